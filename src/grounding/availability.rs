//! Availability: a listing the tools returned, said to be let, sold or taken.
//! The records list every listing as offered, with the date it is free from;
//! none says a listing is gone. Wrong replies keep the listing's right facts
//! and add that it "was let last week" or "ist inzwischen schon an einen
//! anderen Interessenten vergeben", so the customer is not offered it.
//! Source: the label-only sibling splits (`labels/dev56.yaml`,
//! `dev59.yaml`); the held-out cases were not read.

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::polarity::polarity;
use super::FindingKind;
use crate::fold::plain;

/// A listing said to be gone (folded text).
static TAKEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(was|is|are|ist|wurde|sind|(has|have|had)( already)? been)\s+((already|now|since|bereits|schon|inzwischen|leider|meanwhile|mittlerweile)\s+)*((let|rented out|sold|taken|gone)(\s*[.,;:!–-]|\s*$|\s+(already|last|yesterday|recently|meanwhile|in the meantime|to (another|someone|other)\w*|though|unfortunately))|(vergeben|vermietet|verkauft|weg)\b)|\b(ist|wurde|sind) (sie|es|die wohnung|das haus|das objekt)\b[^.;:]{0,50}\b(vergeben|vermietet|verkauft)\b|\bno longer (available|on the market|for rent|for sale|free)\b|\b(promised|reserved|zugesagt|versprochen)\s+(to|for|an)\s+(another|someone|a different|other|einen anderen|eine andere|jemand)\w*|\bnicht mehr (verfugbar|frei|zu haben|auf dem markt)\b|\boff the market\b")
        .expect("valid pattern")
});

/// What a listing is called in or before the claim ("it", "the flat",
/// "HH-1002"; folded text up to the claim's end).
static LISTING_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(it|she|sie|es|flat|apartment|wohnung|haus|house|property|objekt|unit|condominium|[a-z]{1,2}-\d{4})\b[^.;:]{0,100}$")
        .expect("valid pattern")
});

/// Flags a claim sentence (`body`, original text) that calls a listing let,
/// sold or no longer available while the tools returned a listing and no
/// record says so.
pub(super) fn check_availability(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    let Some(m) = TAKEN.find(&folded) else { return };
    // The claim's own clause decides ("…would have suited you; it was let last
    // week, though, so there's nothing else"), and "no longer available"
    // carries its own denial: the rest of the clause does.
    let start = folded[..m.start()].rfind([';', ',']).map_or(0, |i| i + 1);
    let end = folded[m.end()..].find([';', ',']).map_or(folded.len(), |i| m.end() + i);
    let p = polarity(&format!("{} {}", &folded[start..m.start()], &folded[m.end()..end]));
    if p.negated
        || p.conditional
        || !LISTING_SUBJECT.is_match(folded[..m.end()].trim_end_matches(|c: char| !c.is_alphanumeric()))
        || !evidence.found_listing()
    {
        return;
    }
    // A record that says so, other than the viewing policy's "if the property
    // has already been let or sold".
    if evidence.passages.iter().any(|e| {
        let t = plain(&e.text);
        TAKEN.is_match(&t) && !polarity(&t).conditional
    }) {
        return;
    }
    push(
        FindingKind::Unsupported,
        "says the listing is let, sold or no longer available; no record says so".into(),
        None,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(body: &str) -> bool {
        let mut e = Evidence::default();
        e.add_tool_result(
            &serde_json::json!({"id": "HH-1002", "city": "Hamburg", "price": 1190.0, "availableFrom": "2027-02-01"}),
        );
        e.add_tool_result(&serde_json::json!({"results": [{"chunkId": "policy:viewings#cancellation", "text":
            "The agency may cancel a viewing if the property has already been let or sold, and will tell you as early as possible."}]}));
        let mut n = 0;
        check_availability(body, &e, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn a_returned_listing_called_let_or_sold() {
        for wrong in [
            "HH-1002 in Altona would have suited you at 1,190 EUR a month; it was let last week, though.",
            "Leider ist sie inzwischen schon an einen anderen Interessenten vergeben.",
            "The flat is no longer available.",
            "Unfortunately the flat has already been let.",
            "Correction to the line above: HH-1002 has meanwhile been promised to another applicant.",
            "HH-1002 would have suited you at 1,190 EUR a month; it was let last week, though, so there's nothing in Hamburg.",
        ] {
            assert!(flagged(wrong), "{wrong}");
        }
        for right in [
            "HH-1002 is free from 1 February 2027.",
            "A viewing may be cancelled if the property has already been let or sold.",
            "The flat is not let yet, so you can still apply.",
            "Your viewing slot is not confirmed yet.",
            "The unit is let as a shop at 2,400 EUR a month plus VAT.",
            "HH-1003 is let at a cold rent of 3,100 EUR per month.",
        ] {
            assert!(!flagged(right), "{right}");
        }
    }
}
