//! Who a hand-off went to. A request about the customer's personal data
//! (deletion, access, GDPR) is a `personal_data_request` ticket, which the
//! agency's data-protection staff handle (the agent's hand-off kinds,
//! `src/agent/system_prompt.md`; the data cases in `cases/handoffs.yaml`
//! expect "an die zuständige Stelle (Datenschutz)", "the data protection
//! team"). A reply that says it passed such a request to the lettings team,
//! the property management or the landlord names a party the run's ticket
//! does not go to. Source: the wrong-party faults of the dev label splits.

use std::sync::LazyLock;

use regex::Regex;

use super::polarity::polarity;
use super::FindingKind;

/// The customer asks about their personal data (folded text).
static PERSONAL_DATA: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(personal data|my data|my details|personenbezogen\w*|meine (\w+ )?daten|dsgvo|gdpr|datenauskunft|loschen|loschung|delete|deletion|erase|erasure)\b")
        .expect("valid pattern")
});

/// A letting-side party named as where the request went, after "an"/"to"
/// or "im"/"in" ("an die Hausverwaltung", "im Vermietungsteam", "to our
/// lettings team"), or as the one who now handles it.
static LETTING_RECIPIENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(an|im|in|bei|to|with) (die |das |den |der |unsere?n? |unserer |ihre?n? |ihrer |the |our |your )?(\w+ ){0,2}(vermietungsteam|vermietungsabteilung|vermietung|hausverwaltung|verwaltung|vermieterseite|vermieter\w*|eigentumer\w*|makler\w*|lettings? (team|department|office|agent)|property manage\w*|management company|landlord\w*|owner)\b|\b(vermietungsteam|vermietungsabteilung|hausverwaltung|lettings? (team|department)|property manage\w*)\b.{0,40}\b(bearbeitet|kummert|ubernimmt|veranlasst|handles|deals with|takes care|will arrange|processes)\b")
        .expect("valid pattern")
});

/// Data-protection staff named as the recipient.
static DATA_PROTECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(datenschutz\w*|data protection|data-protection|privacy (team|officer|office)|dpo)\b")
        .expect("valid pattern")
});

/// Flags a hand-off sentence (`folded`, its `clauses`) that sends a
/// personal-data request (named in the sentence or by the customer) to a
/// letting-side party and names no data-protection staff in a clause it
/// does not deny.
pub(super) fn check_recipient(
    folded: &str,
    clauses: &[(bool, &str)],
    customer: &str,
    handoff: &Regex,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    if !(PERSONAL_DATA.is_match(folded) || PERSONAL_DATA.is_match(customer)) {
        return;
    }
    let to_letting = clauses.iter().any(|(_, c)| LETTING_RECIPIENT.is_match(c) && !polarity(c).negated);
    let handed = clauses.iter().any(|(_, c)| handoff.is_match(c));
    let to_data_protection = clauses.iter().any(|(_, c)| DATA_PROTECTION.is_match(c) && !polarity(c).negated);
    if handed && to_letting && !to_data_protection {
        push(
            FindingKind::Contradicted,
            "says a personal-data request went to a letting-side party; such requests go to the agency's data-protection staff (hand-off kind personal_data_request)".into(),
            None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fold::plain;

    fn flags(sentence: &str, customer: &str) -> bool {
        let folded = plain(sentence);
        let clauses = super::super::wording::clauses(&folded);
        let mut n = 0;
        check_recipient(&folded, &clauses, &plain(customer), &super::super::wording::HANDOFF, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn a_data_request_sent_to_the_lettings_side_is_flagged_and_to_data_protection_is_not() {
        let ask = "Bitte löschen Sie alle meine persönlichen Daten.";
        assert!(flags("Ihre Löschanfrage habe ich an Ihre Ansprechpartnerin im Vermietungsteam weitergegeben.", ask));
        assert!(flags(
            "Ihre Löschanfrage habe ich an die zuständige Hausverwaltung weitergeleitet; sie meldet sich.",
            ask
        ));
        assert!(flags(
            "I've passed your request to our lettings team, who will be in touch.",
            "Please delete my data."
        ));
        assert!(!flags("Ihre Löschanfrage habe ich an unseren Datenschutz weitergegeben.", ask));
        assert!(!flags("I've passed your request to our data protection team.", "Please delete my data."));
        // Not a data request: a viewing goes to the lettings team.
        assert!(!flags(
            "Ich habe Ihre Anfrage an unser Vermietungsteam weitergegeben.",
            "Kann ich die Wohnung am Samstag ansehen?"
        ));
        // Denied: "nicht an die Hausverwaltung".
        assert!(!flags(
            "Ihre Anfrage habe ich nicht an die Hausverwaltung, sondern an den Datenschutz weitergegeben.",
            ask
        ));
    }
}
