//! What a deposit is counted in: the records say "three months' cold rent,
//! without utilities" (`data/policies/deposit.md`, every listing's record).
//! Wrong replies keep "three months" and move the base: "It is based on what
//! you pay each month in total, i.e. the cold rent … plus the 195 EUR
//! utilities", "auf Basis der reinen Kaltmiete allerdings nicht, sondern
//! einschließlich der 215 € Nebenkosten". A deposit on the warm rent is one of
//! the wrong replies `labels/README.md` lists; the wordings here come from the
//! label-only sibling split `labels/dev53.yaml` (the held-out deposit cases
//! were not read). A deposit or a security beside it let above the legal cap
//! ("the total security … can come to more than three months' cold rent") is
//! checked here too (`labels/dev55.yaml`).

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::wording::DENIAL_WORD;
use super::FindingKind;
use crate::fold::plain;

/// The deposit (folded text).
static DEPOSIT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(deposit|kaution\w*|mietsicherheit)\b").expect("valid pattern"));

/// A pronoun that opens a sentence and can stand for the deposit of the one before.
static PRONOUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(it|this|that|sie|diese|das|dies|es|base|basis|grundlage|berechnungsgrundlage)\b")
        .expect("valid pattern")
});

/// The base of a deposit: what it is counted in or on (folded text).
static BASE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(base|basis|grundlage|based on|calculated (on|from)|worked out (on|from)|reckoned (on|from)|computed (on|from)|counted (on|in)|measured (on|in)|auf (basis|grundlage)|berechnet (auf|aus|nach|von)|bemisst sich|bezogen auf|ausgehend von|(three|3|drei) (months?|monats?\w*|monthly|times)|dreifache\w*)\b")
        .expect("valid pattern")
});

/// The warm rent, or the utilities counted in (folded text).
static WARM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(warm rent|warmmiete\w*|gesamtmiete|bruttomiete|(monthly |month's |monatliche\w* )?(total|totals|gesamtbetrag|gesamtsumme)|in total|insgesamt|what you pay (each|every|per|a) month|(together|along) with (the |your )?(\d[\d.,]* eur )?(of )?(monthly )?(nk|utilities|nebenkosten|service charges)|zusammen mit (den |der )?(\d[\d.,]* eur )?(nk|nebenkosten|betriebskosten)|(inklusive|inkl|einschliesslich|zuzuglich|mitsamt|samt|plus|including|inclusive of|incl) (der |den |die |the |your )?(\d[\d.,]* eur )?(nebenkosten|betriebskosten|utilities|service charges|nk))\b")
        .expect("valid pattern")
});

/// A denial or exclusion just before the warm marker ("not including", "ohne").
static DENIED_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(not|nicht|kein\w*|ohne|without|excluding|exclusive of|never|nie)\b\W*(\w+\W+){0,2}$")
        .expect("valid pattern")
});

/// A contrast that starts what is asserted ("nicht A, sondern B"; folded text).
static CONTRAST: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(sondern|but|rather|instead)\b").expect("valid pattern"));

/// A record sentence that counts the deposit in cold rent (folded text).
static COLD_DEPOSIT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(deposit|kaution)\b[^.]{0,80}\b(cold rent|kaltmiete\w*)").expect("valid pattern"));

/// Flags a claim sentence (`body`, original text; `previous`: the sentence
/// before) that counts the deposit on the warm rent or with the utilities,
/// when a record counts it in cold rent.
pub(super) fn check_deposit_base(
    body: &str,
    previous: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    // One space between words: "195 €" folds to "195  EUR ".
    let folded = plain(body).split_whitespace().collect::<Vec<_>>().join(" ");
    let about_deposit = DEPOSIT.is_match(&folded) || (PRONOUN.is_match(&folded) && DEPOSIT.is_match(&plain(previous)));
    if !about_deposit || !BASE.is_match(&folded) {
        return;
    }
    // The clauses after a dash or a semicolon stand apart; a comma does not
    // ("…, sondern einschließlich der Nebenkosten" continues the base).
    // (Folding turns a dash into " - ".) "nicht, sondern einschließlich": the
    // denial before "sondern" is not the warm marker's.
    let warm = folded.split([';', '\u{2013}', '\u{2014}']).flat_map(|p| p.split(" - ")).any(|part| {
        BASE.is_match(part)
            && WARM.find_iter(part).any(|m| {
                let before = &part[..m.start()];
                let tail = CONTRAST.find_iter(before).last().map_or(before, |c| &before[c.end()..]);
                !DENIED_BEFORE.is_match(tail)
            })
    });
    if !warm {
        return;
    }
    let record = evidence.passages.iter().find(|p| COLD_DEPOSIT.is_match(&plain(&p.text)));
    if let Some(r) = record {
        push(
            FindingKind::Contradicted,
            format!(
                "counts the deposit on the warm rent or with the utilities; the record counts it in cold rent [{}]",
                r.source
            ),
            Some(r.source.clone()),
        );
    }
}

/// A record that caps the deposit (folded text).
static CAP_RECORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(legal cap|may not ask for more|at most three months|hochstens drei)\b").expect("valid pattern")
});

/// The deposit or any security beside it (folded text).
static SECURITY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(deposit|kaution\w*|security|sicherheit\w*|guarantee|burgschaft\w*|cap|ceiling|obergrenze|hochstgrenze)\b",
    )
    .expect("valid pattern")
});

/// More than the cap, made possible (folded text): "can come to more than",
/// "can stipulate a larger deposit", "darf … höher".
static EXCEEDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(can|could|may|might|is allowed to|are allowed to|darf|durfen|kann|konnen|konnte)\b[^.;]{0,80}\b(more than|larger|higher|greater|exceed\w*|above|beyond|in addition|on top|mehr als|hoher\w*|grosser\w*|daruber hinaus|zusatzlich)\b")
        .expect("valid pattern")
});

/// Flags a claim sentence (`body`, original text) that lets a deposit or a
/// security beside it exceed the cap a record states ("three months' cold
/// rent is the legal cap, and a landlord may not ask for more").
pub(super) fn check_deposit_cap(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    if !SECURITY.is_match(&folded) || !EXCEEDS.is_match(&folded) || DENIAL_WORD.is_match(&folded) {
        return;
    }
    if let Some(r) = evidence.passages.iter().find(|p| CAP_RECORD.is_match(&plain(&p.text))) {
        push(
            FindingKind::Contradicted,
            format!("lets the deposit or a security beside it exceed the cap the record states [{}]", r.source),
            Some(r.source.clone()),
        );
    }
}

/// An upper bound put on a number of months ("bis zu drei", "up to three"; folded text).
static BOUND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(bis zu|up to|at most|hochstens|maximal|no more than|not more than|nicht mehr als)\b[^.;]{0,20}\b(drei|three|3|zwei|two|2)\b")
        .expect("valid pattern")
});

/// The cap explained as a rule ("the legal cap", "gesetzlich"; folded text).
static AS_RULE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(legal\w*|gesetz\w*|law|cap|ceiling|obergrenze|hochstgrenze|policy|richtlinie|generally|allgemein|grundsatzlich)\b")
        .expect("valid pattern")
});

/// A listing record that states its deposit as a fixed number of months (folded text).
static FIXED_DEPOSIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bdeposit (\(kaution\) )?(for the commercial lease )?is (two|three) months").expect("valid pattern")
});

/// Flags a claim sentence (`body`, original text) that gives the deposit of
/// a listing in `scope`, whose record states it as a fixed number of months,
/// as an upper bound ("bis zu drei Kaltmieten; die genaue Höhe legt der
/// Vermieter erst im Mietvertrag fest"): a stated fact turned into a range.
pub(super) fn check_deposit_bound(
    body: &str,
    scope: &[String],
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    if scope.is_empty() || !DEPOSIT.is_match(&folded) || !BOUND.is_match(&folded) || AS_RULE.is_match(&folded) {
        return;
    }
    let record = evidence
        .passages
        .iter()
        .find(|p| p.listing.as_ref().is_some_and(|l| scope.contains(l)) && FIXED_DEPOSIT.is_match(&plain(&p.text)));
    if let Some(r) = record {
        push(
            FindingKind::Hedged,
            format!(
                "gives the listing's deposit as an upper bound; its record states it as a fixed number of months [{}]",
                r.source
            ),
            Some(r.source.clone()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(body: &str, previous: &str) -> bool {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "HH-1002", "description":
            "The cold rent (Kaltmiete) is 1,190 EUR per month. Utilities (Nebenkosten) are an additional 195 EUR per month, heating included. The deposit (Kaution) is three months' cold rent."}));
        let mut n = 0;
        check_deposit_base(body, previous, &e, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn a_deposit_above_the_cap() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"results": [{"chunkId": "policy:deposit#amount", "text":
            "The deposit (Kaution) is at most three months' cold rent, without utilities. Three months' cold rent is the legal cap, and a landlord may not ask for more."}]}));
        let flagged = |body: &str| {
            let mut n = 0;
            check_deposit_cap(body, &e, &mut |_, _, _| n += 1);
            n > 0
        };
        assert!(flagged("A landlord may in addition require a bank guarantee of up to the same amount, so the total security you are asked for can come to more than three months' cold rent."));
        assert!(flagged(
            "Where the tenant agrees to it in the rental contract, a landlord can stipulate a larger deposit."
        ));
        assert!(!flagged("A landlord may not ask for more than three months' cold rent."));
        assert!(!flagged("No landlord can require a deposit higher than three months' cold rent."));
        assert!(!flagged("You can pay the deposit in three instalments."));
    }

    #[test]
    fn a_listings_deposit_given_as_an_upper_bound() {
        let mut e = Evidence::default();
        e.add_tool_result(
            &serde_json::json!({"id": "B-2001", "description": "The deposit (Kaution) is three months' cold rent."}),
        );
        let scope = ["B-2001".to_owned()];
        let flagged = |body: &str| {
            let mut n = 0;
            check_deposit_bound(body, &scope, &e, &mut |_, _, _| n += 1);
            n > 0
        };
        assert!(flagged("Bei B-2001 liegt die Kaution bei bis zu drei Kaltmieten; die genaue Höhe legt der Vermieter erst im Mietvertrag fest."));
        assert!(!flagged("Bei B-2001 beträgt die Kaution drei Kaltmieten."));
        assert!(!flagged("Die Kaution beträgt drei Kaltmieten, also genau die gesetzliche Obergrenze von höchstens drei Monatsmieten."));
    }

    #[test]
    fn a_deposit_counted_on_the_warm_rent() {
        let before = "For HH-1002 the deposit is three months' rent.";
        for (wrong, previous) in [
            ("It is based on what you pay each month in total, i.e. the cold rent of 1,190 EUR plus the 195 EUR utilities.", before),
            ("Die Kaution beträgt drei Monatsmieten – auf Basis der reinen Kaltmiete von 1.190 € allerdings nicht, sondern einschließlich der 195 € Nebenkosten.", ""),
            ("The deposit is three months' warm rent.", ""),
            ("Die Kaution beträgt drei Monatsmieten inklusive Nebenkosten.", ""),
            ("- **Base per month:** the 1,190 EUR Kaltmiete together with the 195 EUR NK", before),
            ("The deposit comes to three months' rent, reckoned on the 1,190 EUR rent together with the 195 EUR of monthly utilities.", ""),
        ] {
            assert!(flagged(wrong, previous), "{wrong}");
        }
        for (right, previous) in [
            ("The deposit is three months' cold rent, not including the utilities.", ""),
            ("Die Kaution beträgt drei Kaltmieten; die Nebenkosten von 195 € kommen monatlich zur Miete hinzu.", ""),
            ("The deposit is three months' cold rent, without utilities.", ""),
            ("It is three months of the 1,190 EUR cold rent, so the 195 EUR utilities stay out of it.", before),
            ("Your monthly total is 1,385 EUR including utilities.", before),
        ] {
            assert!(!flagged(right, previous), "{right}");
        }
    }
}
