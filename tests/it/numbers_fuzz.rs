//! The number parser and guards never panic on arbitrary text (property test).

use inquiry::agent::guards::{check, citations, Evidence};
use inquiry::agent::numbers::{figures, numbers, parse_number};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>()) {
        let _ = figures(&s);
        let _ = numbers(&s);
        let _ = parse_number(&s);
        let _ = citations(&s);
        let _ = check(&s, &Evidence::default());
    }

    #[test]
    fn number_like_strings_never_panic(s in "[0-9.,€%m² qsEURo \u{a0}'-]{0,40}") {
        for f in figures(&s) {
            prop_assert!(f.value.is_finite());
        }
        let _ = parse_number(&s);
    }

    #[test]
    fn grouped_thousands_round_trip(n in 1_000u64..100_000_000) {
        let en = n.to_string().as_bytes().rchunks(3).rev().map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join(",");
        let de = en.replace(',', ".");
        prop_assert_eq!(parse_number(&en), Some(n as f64));
        prop_assert_eq!(parse_number(&de), Some(n as f64));
    }
}
