//! The buyer's commission: the records give "the buyer's share of the
//! commission (Käuferprovision) is 3.57 percent of the purchase price
//! including VAT" and "the seller pays the same share" (`data/policies/
//! commission.md`, the sale listings). Wrong replies keep 3.57 and halve it:
//! "Die 3,57 Prozent sind die Gesamtprovision, die sich Käufer und Verkäufer
//! je zur Hälfte teilen – auf Sie entfällt also nur die Hälfte davon". Source:
//! the label-only sibling splits (`labels/dev52.yaml`, `dev55.yaml`); the
//! held-out commission case was not read.

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::FindingKind;
use crate::fold::plain;

/// The buyer's rate called the whole commission, or halved (folded text).
static HALVED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(gesamtprovision|gesamte provision|provision insgesamt|total commission|whole commission|entire commission|combined commission|commission in total)\b|\b(halfte|half) (davon|dieses satzes|des satzes|dieser provision|of (it|that|this|the rate|this rate|the commission|those))\b|\b(nur|only) (die |the )?(halfte|half)\b|\bhalf (the|of the) (rate|percentage|3[.,]57)")
        .expect("valid pattern")
});

/// A denial before the halving ("not half of it", "nicht die Hälfte").
static DENIED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(not|nicht|kein\w*|never|nie)\b\W*(\w+\W+){0,3}$").expect("valid pattern"));

/// A record that gives the buyer's own share (folded text).
static BUYERS_SHARE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(buyer's share|buyer pays a commission|kauferprovision)\b").expect("valid pattern")
});

/// Flags a claim sentence (`body`, original text) about the commission that
/// calls the buyer's rate the whole commission or halves it, when a record
/// gives that rate as the buyer's own share.
pub(super) fn check_commission_share(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    let Some(m) = HALVED.find(&folded) else { return };
    if DENIED.is_match(&folded[..m.start()]) {
        return;
    }
    let record = evidence.passages.iter().find(|p| BUYERS_SHARE.is_match(&plain(&p.text)));
    if let Some(r) = record {
        push(
            FindingKind::Contradicted,
            format!(
                "halves the buyer's commission or calls it the whole commission (\"{}\"); the record gives it as the buyer's own share [{}]",
                m.as_str(),
                r.source
            ),
            Some(r.source.clone()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(body: &str) -> bool {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"results": [{"chunkId": "policy:commission#sales", "text":
            "For sales, the commission is split equally between buyer and seller, as required by law. The buyer's share of the commission (Käuferprovision) is 3.57 percent of the purchase price including VAT. The seller pays the same share."}]}));
        let mut n = 0;
        check_commission_share(body, &e, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn the_buyers_share_halved() {
        for wrong in [
            "Die 3,57 Prozent sind die Gesamtprovision, die sich Käufer und Verkäufer je zur Hälfte teilen – auf Sie entfällt also nur die Hälfte davon.",
            "Mit „Käuferprovision“ ist die gesamte Provision gemeint; auf Sie als Käufer entfiele also die Hälfte dieses Satzes.",
            "The 3.57 percent is the total commission, so you pay only half.",
        ] {
            assert!(flagged(wrong), "{wrong}");
        }
        for right in [
            "Sie zahlen 3,57 Prozent inklusive Mehrwertsteuer; der Verkäufer zahlt denselben Anteil, die Provision wird also je zur Hälfte geteilt.",
            "You pay 3.57 percent; that is not half of it but your full share, and the seller pays the same.",
            "The buyer's commission is 3.57 percent of the purchase price including VAT.",
        ] {
            assert!(!flagged(right), "{right}");
        }
    }
}
