//! A reply that corrects itself. Issue #27: "a correction that invents an
//! error" ("I also have to correct my earlier reply: heating is not part of
//! the utilities"). With no earlier turn in the conversation there is no
//! earlier reply to correct, so a self-correction withdraws what this reply
//! (or nothing) said: "You may pay in three instalments. I need to correct
//! myself on that: …". Correcting the customer ("not 1,500 EUR, as you
//! wrote") is not a self-correction. After an earlier turn, what the
//! correction says is checked like any other claim.

use std::sync::LazyLock;

use regex::Regex;

use super::FindingKind;

/// The assistant correcting its own words (folded text).
static SELF_CORRECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(correct (myself|my (earlier|previous|last|first) (reply|answer|message|statement)|that|what i (said|wrote))|i was wrong|i made a mistake|my mistake|scratch that|i misspoke|i need to take (that|this) back|muss (ich )?mich (da |hier )?(korrigieren|berichtigen)|korrigiere (ich )?mich|(korrigieren|berichtigen) muss ich mich|mein fehler|ich habe mich (geirrt|vertan)|meine (vorige|vorherige|letzte|erste) (antwort|aussage|nachricht) (war falsch|muss ich korrigieren|korrigieren)|nehme ich zuruck|(meine|mein|meiner) (\w+ ){0,2}(antwort|auskunft|aussage|angabe|angaben|nachricht)\w* (\w+ ){0,3}(korrigieren|berichtigen|richtigstellen)|correct (my|an) (\w+ ){0,2}(reply|answer|message|statement|information)|korrektur zu meine[rmns]? (\w+ ){0,2}(angabe|antwort|auskunft|aussage|nachricht)|(korrektur|berichtigung|richtigstellung) (dazu|hierzu)|(a |one )?(\w+ )?correction (to|on) (that|this|what i)|(let me|i (should|must|need to|have to)) (amend|revise|correct|refine|qualify) (that|this|what)|correction to (the line above|the above|my (first|last|previous|earlier) (line|point|answer|reply))|korrektur zu (vorhin|eben|oben)|(muss|mochte|sollte) (ich )?mich (\w+ ){0,2}prazisieren|as i (mentioned|said|told you|explained|noted|wrote) (before|earlier|previously|above)|as (mentioned|said|stated) (earlier|before|previously)|wie (ich )?(bereits |schon |vorhin |eben )?(erwahnt|gesagt|mitgeteilt|geschrieben|beschrieben)|hatte ich (\w+ ){0,4}(bezeichnet|gesagt|angegeben|genannt|geschrieben))\b")
        .expect("valid pattern")
});

/// A self-correction in a sentence (`folded`) of a reply in a conversation
/// with no earlier turn (`earlier_turn`: the customer wrote before).
pub(super) fn check_self_correction(
    folded: &str,
    earlier_turn: bool,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    if earlier_turn {
        return;
    }
    if let Some(m) = SELF_CORRECTION.find(folded) {
        push(
            FindingKind::Contradicted,
            format!(
                "corrects itself (\"{}\") with no earlier reply to correct: it withdraws what the reply said",
                m.as_str()
            ),
            None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str, earlier: bool) -> bool {
        let mut hit = false;
        check_self_correction(&crate::fold::plain(text), earlier, &mut |_, _, _| hit = true);
        hit
    }

    #[test]
    fn self_corrections_in_both_languages() {
        assert!(found("I need to correct myself on that: the option only applies to shops.", false));
        assert!(found("Actually, let me correct that: there are open slots on Tuesdays.", false));
        assert!(found("Da muss ich mich korrigieren: die Raten gelten nur für Gewerbe.", false));
        assert!(found("On reflection I should refine that: the ceiling applies to the cash deposit alone.", false));
        assert!(found(
            "Correction to the line above: HH-1002 has meanwhile been promised to another applicant.",
            false
        ));
        assert!(found(
            "Da muss ich mich allerdings gleich präzisieren: die 3,57 Prozent sind die Gesamtprovision.",
            false
        ));
        assert!(found("Ich muss meine frühere Auskunft korrigieren: die Heizung läuft über die Nebenkosten.", false));
        assert!(found("As I mentioned before, 2,800 EUR is the landlord's lower limit.", false));
        assert!(found("Eine Korrektur zu meiner letzten Angabe: die 420 EUR gelten für das Jahr.", false));
        assert!(found("Kleine Korrektur dazu: Die WBS-Bindung ist inzwischen ausgelaufen.", false));
        assert!(found("A small correction to that: the deposit is two months' rent.", false));
        assert!(!found("One correction first: the rent is 1,650 EUR, not 1,500 EUR.", false));
        assert!(!found("I need to correct my earlier reply: the rent is 1,650 EUR.", true));
    }
}
