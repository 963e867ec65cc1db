//! Documents: who provides one and for what period. The records say "the
//! landlord provides the confirmation of residence (Wohnungsgeberbestätigung)
//! needed for the Anmeldung" (K-4002) and ask for "proof of income for the
//! last three months" at a viewing (`data/policies/viewings.md`). Wrong
//! replies keep the document's name and move its source ("you'd pick the form
//! up at the Bürgeramt and fill it in yourself — it isn't something that comes
//! from the landlord's side"), tie it to a condition ("issued only once the
//! deposit has been received in full"), or change the period ("Einkommens-
//! nachweise der letzten drei Jahre"). Source: the label-only sibling splits
//! (`labels/dev52.yaml`, `dev55.yaml`); the held-out cases were not read.

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::FindingKind;
use crate::fold::plain;

/// A record sentence in which the landlord provides a document (folded text).
static LANDLORD_PROVIDES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(landlord|vermieter\w*) (provides|issues|gives|supplies|hands over|stellt)\b")
        .expect("valid pattern")
});

/// The document a reply speaks of (folded text).
static DOCUMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(wohnungsgeber\w*|confirmation of residence|(the|this|that|das|die|dieses) (form|document|confirmation|formular|dokument|bestatigung|bescheinigung))\b")
        .expect("valid pattern")
});

/// The landlord denied as the source, or the customer sent elsewhere (folded
/// text). The denial and the landlord share a clause: "Um dieses Formular
/// müssen Sie sich keine Gedanken machen – Sie erhalten es vom Vermieter".
static NOT_FROM_LANDLORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(not|isn't|doesn't|won't|nicht|kein\w*)\b[^.;:,\-]{0,40}\b(from|comes from|vom|von (der|dem)) (the )?(landlord|vermieter\w*)|\b(landlord|vermieter\w*)\b[^.;]{0,30}\b(does not|doesn't|won't|will not|cannot|can't)\b[^.;]{0,15}\b(provide|issue|give|supply)|\b(stellt|gibt)\b[^.;]{0,40}\bvermieter\b[^.;]{0,30}\bnicht\b|\b(yourself|selbst|selber)\b[^.;]{0,40}\b(pick up|get|obtain|fill|besorgen|abholen|ausfullen|beantragen)|\b(pick|picks|get|obtain) (\w+ ){0,3}(up )?(at|from) the burgeramt\b|\b(beim|am) burgeramt (\w+ ){0,3}(abholen|besorgen|beantragen|holen)\b|\b(left to you|up to you|ihre sache|ihnen uberlassen)\b|\b(burgeramt|registration office|meldeamt)\b[^.;]{0,20}\b(has it|hands? (it )?out|gives? (it )?out|keeps? it|liegt (es|sie) (bereit|aus))\b")
        .expect("valid pattern")
});

/// The agency named as the document's source ("die Bestätigung bekommen Sie
/// von uns", "ausgestellt wird sie von unserer Agentur"), folded text.
static FROM_THE_AGENCY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(bekommen|erhalten|get|receive|ausgestellt|bereitgestellt|ausgehandigt|provided|issued|supplied)\b[^.;]{0,30}\b(von|by|from) (uns|unserer agentur|der agentur|unserem team|us|the agency|our agency|our team)\b")
        .expect("valid pattern")
});

/// A pronoun subject ("it is issued only once …", "sie wird erst …"; folded).
static PRONOUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(it|this|that|es|sie|diese|dieses) (is|will be|gets|only|wird|gibt|bekommen|erhalten)\b")
        .expect("valid pattern")
});

/// A condition put on the document ("only once the deposit …", "erst nach …"; folded text).
static ONLY_ONCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(only|erst|nur) (once|after|when|if|nach|wenn|sobald|nachdem)\b|\b(once|after|sobald|nachdem)\b[^.;]{0,40}\b(deposit|kaution|keys?|schlussel\w*|paid|bezahlt|signed|unterschrieben)\b").expect("valid pattern")
});

/// A period of income proof (folded text; the count is group `n`, the unit `u`).
static INCOME_PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(einkommen\w*|gehalt\w*|lohn\w*|verdienst\w*|income|salary|pay ?slips?|payslips?|earnings)\b\W+(\w+\W+){0,5}?(letzten|vergangenen|last|past|previous) (?P<n>\w+) (?P<u>monat\w*|jahr\w*|woch\w*|months?|years?|weeks?)\b")
        .expect("valid pattern")
});

fn unit(word: &str) -> &'static str {
    if word.starts_with("monat") || word.starts_with("month") {
        "month"
    } else if word.starts_with("jahr") || word.starts_with("year") {
        "year"
    } else {
        "week"
    }
}

/// Flags a claim sentence (`body`, original text) that moves a document the
/// records have the landlord provide, ties it to a condition, or gives the
/// income proof another period than the record.
pub(super) fn check_documents(
    body: &str,
    previous: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    // "Please bear in mind that it is issued only once …": the pronoun stands
    // for the document the sentence before named.
    let named = DOCUMENT.is_match(&folded) || (PRONOUN.is_match(&folded) && DOCUMENT.is_match(&plain(previous)));
    if named {
        if let Some(r) = evidence.passages.iter().find(|p| LANDLORD_PROVIDES.is_match(&plain(&p.text))) {
            let reason = if NOT_FROM_LANDLORD.is_match(&folded) {
                Some("says the document does not come from the landlord; the record has the landlord provide it")
            } else if FROM_THE_AGENCY.is_match(&folded) {
                Some("has the agency provide the document; the record has the landlord provide it")
            } else if ONLY_ONCE.is_match(&folded) && ISSUED.is_match(&folded) {
                Some("ties the document to a condition the record does not make")
            } else {
                None
            };
            if let Some(reason) = reason {
                push(FindingKind::Contradicted, format!("{reason} [{}]", r.source), Some(r.source.clone()));
                return;
            }
        }
    }
    for said in INCOME_PERIOD.captures_iter(&folded) {
        let said_unit = unit(&said["u"]);
        for p in &evidence.passages {
            let text = plain(&p.text);
            if let Some(rec) = INCOME_PERIOD.captures(&text) {
                if unit(&rec["u"]) != said_unit {
                    push(
                        FindingKind::Contradicted,
                        format!(
                            "gives the income proof a period of {} {}; the record asks for the last {} {} [{}]",
                            &said["n"], &said["u"], &rec["n"], &rec["u"], p.source
                        ),
                        Some(p.source.clone()),
                    );
                    return;
                }
            }
        }
    }
}

/// The document issued or handed over (folded text).
static ISSUED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(issued|issues|provided|provides|handed over|hands over|supplied|supplies|given|gives|stellt|ausgestellt|ausgehandigt|ubergeben|bereitgestellt|erhalten|bekommen|receive|get)\b")
        .expect("valid pattern")
});

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(body: &str) -> bool {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "K-4002", "description":
            "The landlord provides the confirmation of residence (Wohnungsgeberbestätigung) needed for the Anmeldung."}));
        e.add_tool_result(&serde_json::json!({"results": [{"chunkId": "policy:viewings#what-to-bring", "text":
            "Please bring an ID card or passport, proof of income for the last three months and a SCHUFA credit report."}]}));
        let mut n = 0;
        let (previous, body) = body.split_once(" | ").unwrap_or(("", body));
        check_documents(body, previous, &e, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn a_document_moved_conditioned_or_given_another_period() {
        for wrong in [
            "For K-4002 you'd pick the form up at the Bürgeramt and fill it in yourself — it isn't something that comes from the landlord's side.",
            "Die Wohnungsgeberbestätigung stellt der Vermieter leider nicht aus.",
            "Please bear in mind that the confirmation is issued only once the deposit has been received in full.",
            "Bringen Sie dazu Einkommensnachweise der letzten drei Jahre mit.",
            "Ein Formular beim Eigentümer anfordern müssen Sie nicht – die Bestätigung bekommen Sie von uns.",
            "The landlord provides the confirmation of residence — once the deposit has been paid in full and the keys have been handed over.",
            "Obtaining that form is left to you as the tenant, though: the Bürgeramt has it on hand when you go to register.",
            "The landlord supplies the Wohnungsgeberbestätigung. | Please bear in mind that it is issued only once the deposit has been received in full.",
        ] {
            assert!(flagged(wrong), "{wrong}");
        }
        for right in [
            "The landlord provides the Wohnungsgeberbestätigung, so you don't need to get it anywhere else.",
            "Die Wohnungsgeberbestätigung bekommen Sie vom Vermieter.",
            "Once you have moved in, the landlord provides the Wohnungsgeberbestätigung for your Anmeldung.",
            "The landlord supplies the Wohnungsgeberbestätigung. | It is issued by the landlord, so you need nothing else.",
            "Um dieses Formular müssen Sie sich keine Gedanken machen – Sie erhalten es vom Vermieter.",
            "Die Bestätigung stellt der Vermieter aus; von uns bekommen Sie vorab die Vertragsunterlagen.",
            "Bringen Sie Einkommensnachweise der letzten drei Monate mit.",
            "Proof of income for the past three months, your ID and a SCHUFA report.",
        ] {
            assert!(!flagged(right), "{right}");
        }
    }
}
