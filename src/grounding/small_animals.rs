//! Small animals (a hamster, budgies, fish) under the pets policy: kept in a
//! cage or tank, they are "allowed without asking the landlord", and "the
//! permission for small animals applies to every residential rental"
//! (`data/policies/pets.md`). Wrong replies keep those words and then put
//! the dog-and-cat rule on them: "Voraussetzung ist allerdings, dass der
//! Vermieter der Haltung schriftlich zustimmt", or take the rule back for one
//! flat: "bei dieser Wohnung greift die Kleintierregel allerdings nicht".
//! Source: the small-animal faults of the label-only sibling cases
//! (`labels/dev52.yaml`); the held-out hamster case was not read.

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::wording::SMALL_ANIMALS;
use super::FindingKind;
use crate::fold::plain;

/// A dog or cat, compounds included ("Wohnungskatze", "Wachhund"; folded text).
pub(super) static DOG_OR_CAT_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\w*(katze|katzen|kater|kitten)\b|\w*hunde?\b|\b(cats?|dogs?|puppy|puppies|welpe\w*)\b")
        .expect("valid pattern")
});

/// A record sentence that needs no one's consent for small animals (folded text).
static WITHOUT_ASKING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(without asking|without (the )?(landlord's )?(approval|consent|permission)|ohne (ruckfrage|nachfrage|zustimmung|genehmigung|erlaubnis))\b")
        .expect("valid pattern")
});

/// A record sentence that applies the permission to every rental (folded text).
static EVERY_RENTAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(applies to (every|all|each)|gilt (fur|bei) (jede|alle))\b").expect("valid pattern")
});

/// An approval the reply makes a condition (folded text): "Voraussetzung ist,
/// dass der Vermieter zustimmt", "only with the landlord's consent", "needs
/// the landlord's approval".
static APPROVAL_NEEDED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(voraussetzung|vorausgesetzt|nur,? (mit|wenn|nach|sofern)|muss|mussen|brauch\w*|benotig\w*|erforderlich|requires?|required|needs?|needed|subject to|only,? (with|if|after|once)|must|have to|has to|sollten|should)\b[^.;]{0,120}\b(zustimm\w*|genehmig\w*|erlaubnis|einverst\w*|approv\w*|consent|permission|sign-off|say-so|ausnahme|exception|beim vermieter anmelden|bestatigen lassen|register \w+ with the landlord|confirmed in writing)\b|\b(zustimmung|genehmigung|erlaubnis|approval|consent|permission)\b[^.;]{0,40}\b(erforderlich|notig|notwendig|needed|required|necessary)\b")
        .expect("valid pattern")
});

/// The rule taken back ("greift … nicht", "doesn't apply here"; folded text).
static RULE_NOT_APPLIED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(\w*regel\w*|rule|policy|erlaubnis|permission)\b[^.;]{0,60}\b(greift|gilt|gelten|apply|applies)\b[^.;]{0,60}\b(nicht|not)\b|\b(greift|gilt)\b[^.;]{0,40}\b(\w*regel\w*|erlaubnis)\b[^.;]{0,60}\bnicht\b|\b(doesn't|does not|don't|do not) apply\b")
        .expect("valid pattern")
});

/// Any denial in the sentence: "Sie brauchen keine Erlaubnis" waives, not needs.
static DENIAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(not|no|never|without|nicht|kein\w*|ohne|nie)\b|n't\b").expect("valid pattern"));

/// A commercial unit, for which the residential permission says nothing.
static COMMERCIAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(commercial|gewerb\w*|shop|laden\w*)\b").expect("valid pattern"));

/// Flags a claim sentence (`body`, original text; `previous`: the sentence
/// before it) about small animals that makes them need the landlord's
/// consent, or that says the small-animal permission does not apply, when
/// the evidence has the policy that allows them without asking.
pub(super) fn check_small_animals(
    body: &str,
    previous: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    // A dog or cat named, or a shop unit: the dog-and-cat or commercial rules may speak.
    if DOG_OR_CAT_WORD.is_match(&folded) || COMMERCIAL.is_match(&folded) {
        return;
    }
    // "… Wellensittiche … grundsätzlich erlaubt. Voraussetzung ist allerdings, dass …":
    // a sentence naming no animal goes on about the small animals of the one before.
    if !SMALL_ANIMALS.is_match(&folded) && !SMALL_ANIMALS.is_match(&plain(previous)) {
        return;
    }
    let policy = |holds: &dyn Fn(&str) -> bool| {
        evidence.passages.iter().find(|p| {
            let t = plain(&p.text);
            SMALL_ANIMALS.is_match(&t) && t.split(". ").any(holds)
        })
    };
    if APPROVAL_NEEDED.is_match(&folded) && !DENIAL.is_match(&folded) {
        if let Some(p) = policy(&|s| WITHOUT_ASKING.is_match(s)) {
            push(
                FindingKind::Contradicted,
                format!(
                    "makes small animals need the landlord's consent; the policy allows them without asking [{}]",
                    p.source
                ),
                Some(p.source.clone()),
            );
            return;
        }
    }
    if RULE_NOT_APPLIED.is_match(&folded) {
        if let Some(p) = policy(&|s| EVERY_RENTAL.is_match(s)) {
            push(
                FindingKind::Contradicted,
                format!(
                    "says the small-animal permission does not apply here; the policy applies it to every residential rental [{}]",
                    p.source
                ),
                Some(p.source.clone()),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(body: &str, previous: &str) -> usize {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"results": [{"chunkId": "policy:pets#small-animals", "text":
            "Small animals kept in a cage or tank, such as fish, hamsters or budgies, are allowed without asking the landlord. The permission for small animals applies to every residential rental, as long as the number of animals stays usual."}]}));
        let mut n = 0;
        check_small_animals(body, previous, &e, &mut |_, _, _| n += 1);
        n
    }

    #[test]
    fn small_animals_need_no_consent_anywhere() {
        let before = "Ja, Wellensittiche zählen als Kleintiere im Käfig und sind auch bei B-2001 erlaubt.";
        for (wrong, previous) in [
            ("Voraussetzung ist allerdings, dass der Vermieter der Haltung vor Vertragsunterzeichnung schriftlich zustimmt.", before),
            ("Your hamster is fine, but it needs the landlord's approval first.", ""),
            ("Bei zwei Vögeln sollten Sie die Haltung allerdings vor der Vertragsunterschrift beim Vermieter anmelden und sich das schriftlich bestätigen lassen.", before),
            ("Bei dieser Wohnung greift die Kleintierregel wegen des Tierverbots allerdings nicht.", before),
            ("The small-animal rule doesn't apply to HH-1002, though, so the hamster can't come.", ""),
            ("Mitbringen könnten Sie sie daher leider nur, wenn der Vermieter eine Ausnahme macht.", before),
        ] {
            assert_eq!(findings(wrong, previous), 1, "{wrong}");
        }
        for (right, previous) in [
            ("Für Kleintiere wie Wellensittiche brauchen Sie keine Erlaubnis des Vermieters.", ""),
            ("Das gilt bei allen unseren Mietwohnungen, solange die Zahl der Tiere im üblichen Rahmen bleibt.", before),
            ("Your hamster can move in without the landlord's approval.", ""),
            ("Dogs and cats need the landlord's approval; the small-animal rule does not apply to them.", ""),
            ("The small-animal rule doesn't apply to the shop unit B-2003.", ""),
            ("The cold rent is 1,190 EUR.", before),
        ] {
            assert_eq!(findings(right, previous), 0, "{right}");
        }
    }
}
