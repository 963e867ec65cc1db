//! An offer of help with what the assistant does not do: "Bei
//! Restaurantempfehlungen helfe ich Ihnen gern weiter, bei Bewertungen
//! allerdings nicht", "Restaurantempfehlungen gebe ich Ihnen gern". The
//! assistant answers questions about the agency's listings and hands the
//! rest to a person; a refusal whose negation lands on a neighbouring thing
//! offers the very help it should decline. Offers of help are courtesy and
//! are otherwise not read as claims, so this check reads every sentence.
//! Source: the out-of-scope faults of the dev label splits (`labels/dev*.yaml`).

use std::sync::LazyLock;

use regex::Regex;

use super::polarity::polarity;
use super::FindingKind;

/// The assistant offering help or advice (folded text).
static OFFER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(helfe|helfen) (ich|wir) (\w+ ){0,3}(gern|gerne)\b|\b(gebe|geben) (ich|wir) (ihnen )?(\w+ )?(gern|gerne)\b|\b(happy|glad) to (help|recommend|suggest|point)\b|\b(i|we) (can|could|will|'ll) (gladly )?(recommend|suggest)\b|\b(empfehle|empfehlen) (ich|wir) (ihnen )?(gern|gerne)\b|\bgladly (recommend|suggest|help)\b")
        .expect("valid pattern")
});

/// What the assistant does not advise on: places to eat out, the weather, taxes (folded text).
static OFF_TOPIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(restaurant\w*|lokale|lokalen|kneipe\w*|bars|cafes|bistros?|gastronomie\w*|essen gehen|places to eat|wetter\w*|weather|forecasts?|wettervorhersage\w*|steuererklarung\w*|steuerberatung\w*|steuer|steuern|tax|taxes|tax returns?|tax advice)\b")
        .expect("valid pattern")
});

/// A word standing for the customer's request ("dabei", "with that").
static ANAPHOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(dabei|damit|with that|with this|with it)\b").expect("valid pattern"));

/// Flags a sentence (its `clauses`, folded) whose clause offers help with a
/// restaurant or the weather, named there or standing for it ("dabei").
pub(super) fn check_off_topic_offer(
    folded: &str,
    clauses: &[(bool, &str)],
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    if !OFF_TOPIC.is_match(folded) {
        return;
    }
    // "Dabei helfe ich Ihnen gern; …": the word stands for the request only at
    // the sentence's start ("… flats there, I'm happy to help with that" is about the flats).
    // A denial joined on at the end ("…, bei Bewertungen allerdings nicht") names its
    // own object: the offer is read in its own part of the clause.
    let offers = clauses.iter().enumerate().any(|(i, (_, c))| {
        c.split([',', ';']).any(|part| {
            let p = polarity(part);
            OFFER.is_match(part)
                && !p.negated
                && !p.conditional
                && (OFF_TOPIC.is_match(part) || (i == 0 && ANAPHOR.is_match(part)))
        })
    });
    if offers {
        push(
            FindingKind::Unsupported,
            "offers help with something outside the agency's listings (restaurants, the weather, taxes); the assistant answers questions about the agency's listings"
                .into(),
            None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(sentence: &str) -> bool {
        let folded = crate::fold::plain(sentence);
        let parts = super::super::wording::clauses(&folded);
        let mut n = 0;
        check_off_topic_offer(&folded, &parts, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn help_offered_with_what_the_assistant_does_not_do() {
        assert!(flagged("Bei Restaurantempfehlungen helfe ich Ihnen gern weiter, bei Bewertungen einzelner Lokale allerdings nicht."));
        assert!(flagged(
            "Restaurantempfehlungen für Köln-Ehrenfeld gebe ich Ihnen gern, Reservierungen dagegen nicht."
        ));
        assert!(flagged(
            "Dabei helfe ich Ihnen gern; bei der Restaurantwahl allerdings nur mit allgemeinen Hinweisen."
        ));
        assert!(!flagged(
            "Bei Restaurantempfehlungen kann ich Ihnen leider nicht helfen, bei Wohnungen in Köln aber gern."
        ));
        assert!(!flagged("Restaurant tips are outside what I can do, but I'm happy to help with flats in Köln."));
        assert!(!flagged(
            "For the weather, a weather service is the better source; I'm glad to help with our listings."
        ));
        assert!(!flagged("For the weekend a weather service is your best bet, and if you're looking at flats there, I'm happy to help with that."));
        assert!(flagged(
            "Bei Ihrer Steuererklärung helfe ich Ihnen gern, bei einer verbindlichen Steuerberatung allerdings nicht."
        ));
        assert!(!flagged("Bei Ihrer Steuererklärung kann ich Ihnen leider nicht helfen; gern helfe ich bei Fragen zu unseren Wohnungen."));
        assert!(!flagged(
            "Die Provision beträgt 3,57 Prozent inklusive Mehrwertsteuer; bei weiteren Fragen helfe ich Ihnen gern."
        ));
    }
}
