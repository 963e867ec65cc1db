//! A requirement the records state, waived by a reply in other words.
//!
//! B-2002's record says "A housing entitlement certificate (WBS) is required
//! to rent this apartment". Labelled wrong replies keep the word and waive
//! the requirement: "Eine Anmietung ohne WBS ist aber nicht unmöglich",
//! "Bewerben können Sie sich auch ohne", "Sollten Sie keinen WBS haben, ist
//! das aber kein Hindernis", "erforderlich ist der Schein für die Anmietung
//! aber nicht", "den Schein reichen Sie einfach nach". No polarity check
//! meets them: the double negation reads as a denial, the requirement word
//! is not negated, or the waiver sits in another clause. Source: the
//! requirement faults of the dev label splits (`labels/dev*.yaml`).

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::polarity::polarity;
use super::terms::{shared, terms, vocabulary, Term};
use super::wording::{clauses, DOG_OR_CAT, SMALL_ANIMALS};
use super::FindingKind;
use crate::fold::plain;

/// A requirement word (folded text).
static REQUIRED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(required|requires|erforderlich|needed|necessary|notwendig|notig|pflicht|mandatory|compulsory|zwingend|vorgeschrieben|verlangt)\b")
        .expect("valid pattern")
});

/// Doing without it is possible (folded text, after "ohne …" or "keinen …").
static POSSIBLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(moglich|possible|konnen|kann|konnten|can|could|geht|gehen|reicht|fine|durfen|darf|kein (hindernis|problem|thema)|no (obstacle|problem|issue)|trotzdem|anyway|still)\b|\bnicht unmoglich\b|\bnot impossible\b")
        .expect("valid pattern")
});

/// "ohne", "without", "keinen …": doing without the thing (folded text).
static WITHOUT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(ohne|without|keinen|keine|kein|no)\b").expect("valid pattern"));

/// "kein Hindernis", "no obstacle" (folded text).
static NO_OBSTACLE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(kein (hindernis|problem)|no (obstacle|problem))\b").expect("valid pattern"));

/// Handing it in after the fact ("reichen Sie einfach nach", "hand it in later").
static LATER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bnachreich\w*|\breich\w* (\w+ ){0,6}nach\b|\b(hand|submit|bring|send)( it| them)? in later\b|\b(provide|submit|show) (it|them) later\b")
        .expect("valid pattern")
});

/// A pronoun standing for the required thing ("Zwingend ist er aber nicht").
static PRONOUN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(er|es|it|der schein|this|that)\b").expect("valid pattern"));

/// The subjects of the records' requirements: the words of a clause before
/// its requirement word ("A housing entitlement certificate (…, WBS) is").
fn requirements(evidence: &Evidence) -> Vec<(Vec<Term>, String)> {
    let mut out = vec![];
    for p in &evidence.passages {
        let text = plain(&p.text);
        for sentence in text.split(". ") {
            if let Some(m) = REQUIRED.find(sentence) {
                let subject = terms(&sentence[..m.start()]);
                if !subject.is_empty() && !polarity(sentence).negated && !polarity(sentence).conditional {
                    out.push((subject, p.source.clone()));
                }
            }
        }
    }
    out
}

/// Whether a sentence (folded) waives a requirement it names or refers to.
fn waives(folded: &str, names: bool) -> bool {
    let parts = clauses(folded);
    let clause_waives = |c: &str| {
        // "ohne WBS ist es nicht unmöglich": without the thing, it is possible.
        let rest = WITHOUT.replace_all(c, " ");
        let rest = rest.replace("nicht unmoglich", "moglich").replace("not impossible", "possible");
        let rest_negated = polarity(&rest).negated;
        let possible = POSSIBLE.is_match(&rest) && !rest_negated;
        (WITHOUT.is_match(c) && possible)
            || (REQUIRED.is_match(c) && polarity(c).negated && (names || PRONOUN.is_match(c)))
            || LATER.is_match(c)
    };
    // "Sollten Sie keinen WBS haben, | ist das aber kein Hindernis": the
    // waiver may follow the clause that drops the thing.
    let without_then_fine = WITHOUT.is_match(folded) && NO_OBSTACLE.is_match(folded);
    parts.iter().any(|(_, c)| clause_waives(c)) || without_then_fine
}

/// A condition or restriction after a requirement word: "erforderlich, wenn
/// Sie die Wohnung als Hauptwohnsitz nutzen", "verlangt wird er allerdings
/// nur, wenn …", "und zwar für den Vermieter" (folded text).
static NARROWING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(wenn|sofern|falls|if|only if|only when|provided( that)?|as long as|solange|und zwar fur|nur fur|only for|gilt nur fur|applies only to)\b")
        .expect("valid pattern")
});

/// A condition about not having the thing yet: advice, not a narrowing
/// ("falls Sie noch keinen haben, beantragen Sie ihn beim Bezirksamt").
static LACKING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(noch keine[nm]?|noch nicht|(don't|do not|doesn't|does not) (yet )?have|not yet|no \w+ yet|keine[nm]? (haben|besitzen))\b")
        .expect("valid pattern")
});

/// Words a condition may hold without narrowing anything: "if you want to
/// rent this flat", "und zwar für die Anmietung", a date ("wenn Sie zum
/// 15. Januar einziehen möchten" names when, not who) (folded words).
const PLAIN_CONDITION: &str = "wenn sofern falls if only when provided that as long solange und zwar fur nur for gilt \
    applies to sie you die diese dieses das den the this a eine einen ein wohnung flat apartment it es want wish would \
    like mochten wollen rent renting mieten anmieten anmietung vermietung mietvertrag einziehen move in apply bewerben \
    sich dafur hier dort there here ihre your lease tenancy sign unterschreiben be \
    zum am ab bis on from by at januar februar marz april mai juni juli august september oktober november dezember \
    january february march may june july october december";

/// Whether a requirement is narrowed by a condition the record does not make:
/// after the requirement word comes a condition or a "for …" restriction
/// holding a word beyond the plain "if you want to rent it".
fn narrowed(folded: &str) -> bool {
    let Some(req) = REQUIRED.find(folded) else { return false };
    let after = &folded[req.end()..];
    let Some(cond) = NARROWING.find(after) else { return false };
    // The condition runs to the next clause break.
    let rest = &after[cond.start()..];
    let end = rest[cond.len()..].find([';', '.', ':', '–', '—', '|', '[']).map_or(rest.len(), |i| i + cond.len());
    let condition = &rest[..end];
    if LACKING.is_match(condition) || polarity(&after[..cond.start()]).negated {
        return false;
    }
    condition
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty() && !w.chars().any(|c| c.is_ascii_digit()))
        .any(|w| !PLAIN_CONDITION.split_whitespace().any(|p| p == w))
}

/// Flags a claim sentence (`body`, original text) that waives a requirement
/// a record states, naming its subject (or, for "zwingend ist er nicht", a
/// pronoun) in the sentence.
pub(super) fn check_requirements(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    if !WITHOUT.is_match(&folded) && !REQUIRED.is_match(&folded) && !LATER.is_match(&folded) {
        return;
    }
    let said_terms = terms(&folded);
    let said = vocabulary(&said_terms);
    for (subject, source) in requirements(evidence) {
        // "der Schein" names the Wohnberechtigungsschein: a compound's head.
        let head = |w: &str| w.len() >= 5 && subject.iter().flatten().any(|t| t.len() > w.len() && t.ends_with(w));
        let names = shared(&subject, &said) > 0 || folded.split(|c: char| !c.is_alphanumeric()).any(head);
        if (names || PRONOUN.is_match(&folded)) && waives(&folded, names) {
            push(FindingKind::Contradicted, format!("waives a requirement the record states [{source}]"), Some(source));
            return;
        }
        if names && narrowed(&folded) {
            push(
                FindingKind::Contradicted,
                format!("ties a requirement to a condition the record does not make [{source}]"),
                Some(source),
            );
            return;
        }
    }
}

/// The listing said to be ruled out for this customer (folded text):
/// "kommt sie für Sie nicht in Betracht", "damit scheidet sie für Sie aus",
/// "it's out of the question for you".
static RULED_OUT_FOR_YOU: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(kommt|kame)\b[^.;]{0,40}\bfur sie\b[^.;]{0,30}\bnicht in (frage|betracht)\b|\bscheidet\b[^.;]{0,30}\bfur sie\b[^.;]{0,20}\baus\b|\b(is|would be|it's) (\w+ )?(ruled out|out of the question|not an option) for you\b|\brules? (it|this flat|the flat|this one) out for you\b")
        .expect("valid pattern")
});

/// A condition on the customer's situation ("ohne WBS", "unless you have one").
static ON_CONDITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(ohne|without|falls|wenn|if|unless|sofern|es sei denn|solange)\b").expect("valid pattern")
});

/// Flags a claim sentence (`body`, original text; `previous`: the sentence
/// before) that rules a listing out for the customer because of a record's
/// requirement ("ein WBS wird verlangt, daher kommt sie für Sie nicht in
/// Betracht") when the customer said nothing of meeting it (`customer`: their
/// words, folded): an unwarranted conclusion, and the listing is not offered.
/// Source: the search faults of the sibling splits (`labels/dev53.yaml`, `dev54.yaml`).
pub(super) fn check_ruled_out(
    body: &str,
    previous: &str,
    customer: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    if !RULED_OUT_FOR_YOU.is_match(&folded) || ON_CONDITION.is_match(&folded) {
        return;
    }
    let context = format!("{} {folded}", plain(previous));
    let said = terms(&context);
    for (subject, source) in requirements(evidence) {
        let named = shared(&subject, &vocabulary(&said)) > 0;
        let customer_named = shared(&subject, &vocabulary(&terms(customer))) > 0;
        if named && !customer_named {
            push(
                FindingKind::Unsupported,
                format!("rules the listing out for the customer, who said nothing of the requirement [{source}]"),
                Some(source),
            );
            return;
        }
    }
}

/// An approval or decision someone must give (folded text).
static APPROVAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(\w*zustimmung|\w*entscheidung|zusage|genehmigung|einverstandnis|erlaubnis|approval|consent|decision|permission|sign-off)\b")
        .expect("valid pattern")
});

/// A record sentence that puts something under an approval still to be given
/// ("subject to the landlord's approval", "requires approval under the community
/// rules"); a permission already granted ("The permission for small animals
/// applies to every residential rental, as long as …") is not one (folded text).
static UNDER_APPROVAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(subject to|requires?|required|needs?|needed|only with|vorbehaltlich|erfordert|bedarf|bedurfen|braucht|nur mit)\b[^.;]{0,40}\b(\w*zustimmung|\w*entscheidung|zusage|genehmigung|einverstandnis|erlaubnis|approval|consent|decision|permission|sign-off)\b")
        .expect("valid pattern")
});

/// An approval done without ("without a separate decision", "ohne
/// gesonderte Zustimmung des Vermieters"; folded text).
static WITHOUT_APPROVAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(without|ohne) (\S+ ){0,3}(approval|consent|decision|permission|sign-off|\w*zustimmung|genehmigung|\w*entscheidung|erlaubnis)\b")
        .expect("valid pattern")
});

/// Any denial word: "not possible without approval" needs the approval.
static ANY_DENIAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(not|no|never|cannot|can't|won't|isn't|aren't|nicht|kein\w*|nie|niemals|nur|only)\b|n't\b")
        .expect("valid pattern")
});

/// Needing something, or its being foreseen (folded text).
static NEEDED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(brauch\w*|benotig\w*|bedarf|bedurfen|erforderlich|notig|notwendig|vorgesehen|need\w*|required|necessary|gilt)\b")
        .expect("valid pattern")
});

/// A sentence that ends in a bare denial ("…, so ist die Regel gemeint, nicht.").
static BARE_DENIAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r",\s*(nicht|not)( mehr)?\W*$").expect("valid pattern"));

/// Fetching it oneself: "Sie brauchen die Zustimmung nicht selbst einzuholen".
static ONESELF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(selbst|selber|yourself|on your own)\b[^.;]{0,20}\b(einzuholen|einholen|anzufragen|anfragen|ask|request|obtain|get)\b|\b(einzuholen|to ask for|to obtain)\b")
        .expect("valid pattern")
});

/// Flags a claim sentence (`body`, original text) that says an approval or
/// a decision is not needed ("Eine Einzelfallentscheidung ist dabei nicht
/// vorgesehen", "Eine gesonderte Zusage brauchen Sie nicht mehr") when a
/// record makes something subject to one ("possible on request, subject to
/// the landlord's approval").
pub(super) fn check_approval_waived(
    body: &str,
    scope: &[String],
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    // "already allow two cats per unit without a separate decision": an
    // approval done without, in a clause that denies nothing else.
    let without = clauses(&folded).iter().any(|(_, c)| {
        WITHOUT_APPROVAL
            .find(c)
            .is_some_and(|m| !ANY_DENIAL.is_match(&format!("{} {}", &c[..m.start()], &c[m.end()..])))
    });
    if !(APPROVAL.is_match(&folded) && NEEDED.is_match(&folded) || without) || ONESELF.is_match(&folded) {
        return;
    }
    // Small animals need nobody's approval (policy:pets#small-animals): what the
    // approval of a dog or cat asks does not bind them.
    if SMALL_ANIMALS.is_match(&folded) && !DOG_OR_CAT.is_match(&folded) {
        return;
    }
    // "It isn't a yes: the landlord's approval is needed first", "…, so there's
    // no guarantee": the clause that speaks of the approval; a bare "…, nicht."
    // ends the clause it interrupts.
    let parts = clauses(&folded);
    let tail_denial = BARE_DENIAL.is_match(&folded);
    let waived = without
        || parts
            .iter()
            .any(|(_, c)| APPROVAL.is_match(c) && NEEDED.is_match(c) && (polarity(c).negated || tail_denial));
    if !waived {
        return;
    }
    let subject_to_approval = |s: &str| polarity(s).qualified && UNDER_APPROVAL.is_match(s) && !polarity(s).negated;
    // Another listing's approval rule says nothing of the listing the reply speaks of.
    let in_scope = |p: &&crate::grounding::evidence::Passage| {
        scope.is_empty() || p.listing.as_ref().is_none_or(|l| scope.contains(l))
    };
    let record =
        evidence.passages.iter().filter(in_scope).find(|p| plain(&p.text).split(". ").any(subject_to_approval));
    if let Some(r) = record {
        push(
            FindingKind::Contradicted,
            format!("says no approval or decision is needed; the record makes it subject to one [{}]", r.source),
            Some(r.source.clone()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(body: &str) -> bool {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "B-2002",
            "description": "A housing entitlement certificate (Wohnberechtigungsschein, WBS) is required to rent this apartment. The cold rent is 780 EUR per month."}));
        let mut n = 0;
        check_requirements(body, &e, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn a_requirement_waived_in_other_words() {
        for wrong in [
            "Eine Anmietung ohne WBS ist aber nicht unmöglich – sprechen Sie das bei Ihrer Bewerbung einfach an.",
            "Bewerben können Sie sich auch ohne, der Vermieter bevorzugt lediglich Interessenten mit Wohnberechtigungsschein.",
            "Sollten Sie keinen WBS haben, ist das für die Anmietung aber kein Hindernis.",
            "Die Wohnung ist als WBS-Wohnung gekennzeichnet, erforderlich ist der Schein für die Anmietung aber nicht.",
            "Unterschreiben und einziehen können Sie aber auch schon ohne – den Schein reichen Sie einfach in den ersten Monaten nach.",
            "You can rent it without a WBS.",
            "Für B-2002 ist ein WBS erforderlich, wenn Sie die Wohnung als Hauptwohnsitz nutzen möchten.",
            "Ein WBS wird verlangt, allerdings nur, wenn Sie allein einziehen.",
            "| WBS | erforderlich, wenn Sie die Wohnung als Hauptwohnsitz anmelden |",
            "A WBS is required, but only if you move from another state.",
        ] {
            assert!(flagged(wrong), "{wrong}");
        }
        for right in [
            "Ja, für B-2002 ist ein Wohnberechtigungsschein erforderlich.",
            "Ohne WBS ist eine Anmietung leider nicht möglich.",
            "Ohne WBS können Sie die Wohnung nicht anmieten.",
            "Um einen WBS kommen Sie nicht herum.",
            "A WBS is required; without one you can't rent it.",
            "Die Kaltmiete beträgt 780 EUR, Haustiere sind nicht erlaubt.",
            "A WBS is required if you want to rent this flat.",
            "Ein WBS ist erforderlich; falls Sie noch keinen haben, beantragen Sie ihn beim Bezirksamt.",
            "Ein WBS ist erforderlich, und zwar für die Anmietung.",
            "Ein WBS ist erforderlich, wenn Sie zum 15. Januar 2027 einziehen möchten.",
        ] {
            assert!(!flagged(right), "{right}");
        }
    }

    #[test]
    fn a_listing_ruled_out_for_a_customer_who_said_nothing_of_the_requirement() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "B-2002",
            "description": "A housing entitlement certificate (Wohnberechtigungsschein, WBS) is required to rent this apartment."}));
        let count = |body: &str, previous: &str, customer: &str| {
            let mut n = 0;
            check_ruled_out(body, previous, &plain(customer), &e, &mut |_, _, _| n += 1);
            n
        };
        let asked = "Ich suche eine Mietwohnung in Berlin bis 1.000 € Kaltmiete.";
        assert_eq!(count("Da für diese Wohnung ein Wohnberechtigungsschein verlangt wird, kommt sie für Sie allerdings nicht in Betracht.", "", asked), 1);
        assert_eq!(
            count(
                "- **Ergebnis:** Damit scheidet sie für Sie aus.",
                "- **Haken:** Für die Wohnung ist ein WBS erforderlich.",
                asked
            ),
            1
        );
        assert_eq!(count("Ohne WBS kommt die Wohnung für Sie leider nicht in Frage.", "", asked), 0);
        assert_eq!(
            count("Da Sie keinen WBS haben, kommt sie für Sie nicht in Betracht.", "", "Ich habe keinen WBS."),
            0
        );
    }

    #[test]
    fn an_approval_said_to_be_unneeded() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "B-2002",
            "description": "Dogs and cats are possible on request, subject to the landlord's approval."}));
        let flagged = |body: &str| {
            let mut n = 0;
            check_approval_waived(body, &[], &e, &mut |_, _, _| n += 1);
            n > 0
        };
        for wrong in [
            "Bei einer kleinen Katze wie Ihrer ist eine Einzelfallentscheidung des Vermieters dabei nicht vorgesehen.",
            "Eine ausdrückliche Zustimmung des Vermieters brauchen Sie für eine kleine Katze wie Ihre, so ist die Regel gemeint, nicht.",
            "Einer Einzelfallentscheidung der Vermieterseite bedarf es für eine kleine Katze dabei nicht.",
            "Eine gesonderte Zusage brauchen Sie daher nicht mehr.",
            "For a small cat you won't need the landlord's approval.",
        ] {
            assert!(flagged(wrong), "{wrong}");
        }
        // An approval done without, against "requires approval under the community rules".
        let mut k = Evidence::default();
        k.add_tool_result(&serde_json::json!({"id": "K-4003",
            "description": "Keeping dogs or cats requires approval under the community rules of the owners' association."}));
        let count = |body: &str| {
            let mut n = 0;
            check_approval_waived(body, &[], &k, &mut |_, _, _| n += 1);
            n
        };
        assert_eq!(
            count(
                "That said, the rules there already provide for up to two cats per unit without a separate decision."
            ),
            1
        );
        assert_eq!(count("Zwei Katzen dürfen Sie dort auch ohne gesonderte Genehmigung halten."), 1);
        assert_eq!(count("Without the owners' approval the cats cannot move in."), 0);
        assert_eq!(count("Cats are only possible with approval, not without it."), 0);
        assert_eq!(count("Hamster und Fische dürfen Sie dort ohne Genehmigung halten."), 0);
        // Another listing's approval rule: "hier" is B-2001, whose record has none.
        let mut n = 0;
        let waived = "Hier ist auch keine Einzelfallentscheidung des Vermieters vorgesehen.";
        check_approval_waived(waived, &["B-2001".to_owned()], &e, &mut |_, _, _| n += 1);
        assert_eq!(n, 0);
        check_approval_waived(waived, &["B-2002".to_owned()], &e, &mut |_, _, _| n += 1);
        assert_eq!(n, 1);
        // A permission the record grants ("applies …, as long as …") needs nobody's approval.
        let mut granted = Evidence::default();
        granted.add_tool_result(&serde_json::json!({"id": "policy:pets#small-animals", "text":
            "Small animals kept in a cage, such as hamsters, are allowed without asking the landlord. The permission for small animals applies to every residential rental, as long as the number of animals stays usual."}));
        let mut n = 0;
        check_approval_waived(
            "Für Ihren Hamster brauchen Sie keine Zustimmung des Vermieters.",
            &[],
            &granted,
            &mut |_, _, _| n += 1,
        );
        check_approval_waived(
            "You won't need the landlord's permission for a hamster.",
            &[],
            &granted,
            &mut |_, _, _| n += 1,
        );
        assert_eq!(n, 0);
        for right in [
            "Eine Zusage ist das noch nicht; der Vermieter entscheidet im Einzelfall.",
            "Sie brauchen die Zustimmung nicht selbst einzuholen, das läuft über uns.",
            "Die Zustimmung des Vermieters ist erforderlich.",
            "It isn't a yes: the landlord's approval is needed first.",
            "Pets there need the landlord's sign-off, case by case, so there's no guarantee.",
        ] {
            assert!(!flagged(right), "{right}");
        }
    }
}
