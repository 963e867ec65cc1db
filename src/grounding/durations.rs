//! Durations and counts of monthly rents in text, in German and English:
//! "four weeks", "a minimum of two years", "14 Tage", "zwölf Monate",
//! "three months' cold rent", "drei Monatskaltmieten", "das Dreifache der
//! monatlichen Kaltmiete". Issue #27 counts "a count, a period" among the
//! figure kinds a reply must not invent: a timeline the records do not have
//! ("paid back within four weeks", "the lease runs for at least two years")
//! is a figure without evidence like an invented price.
//!
//! Only counts of two or more are read: "a month", "one year" and "per
//! month" are how prices state their period (see [`super::numbers`]), not
//! durations. Days and weeks compare with each other (a week is 7 days),
//! months and years likewise (a year is 12 months).

use std::sync::LazyLock;

use regex::Regex;

use super::numbers::{number_word, NUMBER_WORDS};
use crate::fold::plain;

/// The unit of a duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Days (`Tage`), with weeks as 7 days.
    Day,
    /// Months (`Monate`, `Monatsmieten`, `months' rent`), with years as 12 months.
    Month,
}

/// A duration: `value` units (days or months), as written in `text`.
#[derive(Debug, Clone, PartialEq)]
pub struct Duration {
    /// The count in `unit`s (weeks converted to days, years to months).
    pub value: f64,
    /// Days or months.
    pub unit: Unit,
    /// The words it was read from ("four weeks").
    pub text: String,
}

/// The number words a duration may start with: the cardinals of
/// [`super::numbers::NUMBER_WORDS`] and "double"/"triple" ("double the
/// monthly rent").
static WORDS: LazyLock<String> =
    LazyLock::new(|| NUMBER_WORDS.iter().map(|(w, _)| *w).chain(["double", "triple"]).collect::<Vec<_>>().join("|"));

/// A count and its unit, on folded text (`plain`): "4 weeks", "zwei jahre",
/// "drei monatskaltmieten", "three months' rent".
static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    let words = WORDS.as_str();
    Regex::new(&format!(
        r"\b(?P<num>\d{{1,3}}|{words})(?:\s+(?:full|whole|calendar|ganze|volle)n?)?[\s-]+(?P<unit>days?|weeks?|monthly\s+(?:cold\s+|net\s+|basic\s+)?(?:rent\s+)?(?:payments?|rents?|instalments?|kaltmiete\w*|nettokaltmiete\w*|mieten)|months?|years?|tage?n?|wochen?|monate?n?|monats\w*|jahre?n?)\b"
    ))
    .expect("valid pattern")
});

/// "das Dreifache der monatlichen Kaltmiete", "three times the monthly rent":
/// a multiple of the monthly rent is that many months' rent.
static MULTIPLE: LazyLock<Regex> = LazyLock::new(|| {
    let words = WORDS.as_str();
    Regex::new(&format!(
        r"\b(?:(?P<de>zwei|drei|vier|funf|sechs)fache\w*\s+(?:der|einer|ihrer)\s+(?:monatlichen\s+)?(?:netto)?(?:kalt)?miete|(?P<en>\d|{words})\s+times\s+(?:the\s+)?(?:monthly\s+)?(?:(?:cold\s+|net\s+)?rent|kaltmiete|nettokaltmiete|miete))\b"
    ))
    .expect("valid pattern")
});

/// "per two weeks" is a rate, not a duration. ("every two years" and "alle
/// zwei Jahre" are: a frequency the records must give.) Checked on the
/// words before the count.
static NOT_A_FACT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(per|pro|je)\s*$").expect("valid pattern"));

fn number(word: &str) -> Option<f64> {
    let multiple = match word {
        "double" => Some(2.0),
        "triple" => Some(3.0),
        _ => None,
    };
    word.parse::<f64>().ok().or(multiple).or_else(|| number_word(word))
}

fn unit_of(word: &str) -> Option<(Unit, f64)> {
    let w = word;
    if w.starts_with("day") || w.starts_with("tag") {
        Some((Unit::Day, 1.0))
    } else if w.starts_with("week") || w.starts_with("woche") {
        Some((Unit::Day, 7.0))
    } else if w.starts_with("month") || w.starts_with("monat") {
        Some((Unit::Month, 1.0))
    } else if w.starts_with("year") || w.starts_with("jahr") {
        Some((Unit::Month, 12.0))
    } else {
        None
    }
}

/// The durations of two or more units in `text`, in order.
pub fn durations(text: &str) -> Vec<Duration> {
    let f = plain(text).replace(['’', '\''], " ");
    let mut out: Vec<(usize, Duration)> = vec![];
    for c in DURATION.captures_iter(&f) {
        let (Some(m), Some(n), Some(u)) = (c.get(0), c.name("num"), c.name("unit")) else { continue };
        if NOT_A_FACT.is_match(&f[..m.start()]) {
            continue;
        }
        let (Some(count), Some((unit, factor))) = (number(n.as_str()), unit_of(u.as_str())) else { continue };
        if count < 2.0 {
            continue;
        }
        out.push((m.start(), Duration { value: count * factor, unit, text: m.as_str().to_owned() }));
    }
    for c in MULTIPLE.captures_iter(&f) {
        let Some(m) = c.get(0) else { continue };
        let word = c.name("de").or_else(|| c.name("en")).map(|w| w.as_str()).unwrap_or_default();
        if let Some(count) = number(word).filter(|n| *n >= 2.0) {
            out.push((m.start(), Duration { value: count, unit: Unit::Month, text: m.as_str().to_owned() }));
        }
    }
    out.sort_by_key(|(at, _)| *at);
    out.into_iter().map(|(_, d)| d).collect()
}

/// Whether `d` is among `found` (same unit, same count).
pub fn contains(found: &[Duration], d: &Duration) -> bool {
    found.iter().any(|e| e.unit == d.unit && (e.value - d.value).abs() < 1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<(f64, Unit)> {
        durations(text).into_iter().map(|d| (d.value, d.unit)).collect()
    }

    #[test]
    fn durations_in_both_languages() {
        use Unit::*;
        assert_eq!(read("any credit is paid back within four weeks"), [(28.0, Day)]);
        assert_eq!(read("The lease runs for a minimum of two years."), [(24.0, Month)]);
        assert_eq!(read("innerhalb von 14 Tagen"), [(14.0, Day)]);
        assert_eq!(read("Die Kaution beträgt höchstens drei Monatskaltmieten."), [(3.0, Month)]);
        // Mixed words (labels/dev56.yaml, dev59.yaml).
        assert_eq!(read("the Kaution is set at three monthly Kaltmieten"), [(3.0, Month)]);
        assert_eq!(read("the Kaution is set at three times the monthly Kaltmiete"), [(3.0, Month)]);
        assert_eq!(read("The deposit is three months' cold rent."), [(3.0, Month)]);
        assert_eq!(read("Höchstens das Dreifache der monatlichen Kaltmiete"), [(3.0, Month)]);
        assert_eq!(read("at most three times the monthly cold rent"), [(3.0, Month)]);
        assert_eq!(read("zwölf Monate"), read("ein Jahr, also zwölf Monate"));
        assert_eq!(read("for twelve full months"), [(12.0, Month)]);
        assert_eq!(read("allerdings nur alle zwei Jahre"), [(24.0, Month)]);
        assert_eq!(read("together with the following two monthly rent payments"), [(2.0, Month)]);
    }

    #[test]
    fn periods_and_rates_are_not_durations() {
        for text in [
            "240 EUR a month",
            "one year after moving in",
            "per month",
            "three equal monthly instalments",
            "HH-1001 has 3 rooms",
        ] {
            assert!(durations(text).is_empty(), "{text}: {:?}", durations(text));
        }
    }

    #[test]
    fn weeks_are_days_and_years_are_months() {
        let a = durations("two weeks");
        let b = durations("14 Tage");
        assert!(contains(&b, &a[0]));
        assert!(contains(&durations("24 Monate"), &durations("zwei Jahre")[0]));
        assert!(!contains(&durations("three months"), &durations("two months")[0]));
    }
}
