//! The alternative a sentence sets its statement against: "Statt Kaltmiete
//! plus Nebenkosten zahlen Sie hier …", "Unlike many older buildings, …",
//! "Anders als die Nebenkosten einer Mietwohnung geht das Hausgeld …",
//! "rather than a monthly payment". The alternative is what the sentence
//! says does not hold here; read as a claim of its own it contradicts the
//! record the main clause restates. An alternative that opens the sentence
//! is blanked (kept as spaces, so offsets stay) before it is checked. Source: the contrastive
//! replies of `labels/dev50.yaml`.

use std::sync::LazyLock;

use regex::Regex;

use super::wording::VERB;
use crate::fold::plain;

/// A word that opens an alternative (any case).
static ALTERNATIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(statt|anstatt|anstelle von|instead of|rather than|unlike|anders als|im gegensatz zu|in contrast to|as opposed to)\s")
        .expect("valid pattern")
});

/// A relative clause opening right after the alternative (any case).
static RELATIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^,\s*(in denen|in dem|in der|bei denen|die|der|das|wo|where|which|in which)\b")
        .expect("valid pattern")
});

/// The most words an alternative runs to before its sentence goes on.
const MOST_WORDS: usize = 8;

/// Lower-case words a German noun phrase holds besides its nouns: articles,
/// a genitive, joiners, the prepositions of an attribute ("die Nebenkosten
/// einer Mietwohnung", "Kaltmiete plus Nebenkosten", "bei Wohnungen mit dem
/// Vermerk „auf Anfrage“").
const GERMAN_PHRASE: &str = "der die das den dem des ein eine einer eines einem einen plus und oder bzw von vielen \
    viele manchen manche anderen andere ublichen üblichen mit im in bei ohne zu zum zur auf an am";

/// A pronoun opening the alternative: it is a clause of its own, up to its
/// comma ("Anders als man bei Nebenkosten oft annimmt, …"), any case.
static CLAUSE_OPENING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(man|sie|es|wir|ich|du|viele|manche|you|we|one|many|most|people|they)\b")
        .expect("valid pattern")
});

/// Where an alternative starting at `from` (just after its marker) ends.
fn alternative_end(sentence: &str, from: usize, german: bool, opening: bool) -> usize {
    let rest = &sentence[from..];
    let comma = rest.find([',', ';', ':', '–', '—', '(', '[']).map(|i| from + i);
    // "Unlike X, …", "Rather than an ID that's merely let or reserved, …": an English
    // phrase fronted before its sentence runs to its comma, and so does a German clause.
    let within = |end: usize| sentence[from..end].split_whitespace().count() <= MOST_WORDS + 4;
    if opening && (!german || CLAUSE_OPENING.is_match(rest)) {
        if let Some(c) = comma.filter(|c| within(*c)) {
            return c;
        }
    }
    let mut end = from;
    let mut words = 0;
    let mut noun_seen = false;
    let mut pos = 0usize;
    for word in rest.split_inclusive(char::is_whitespace) {
        let at = pos;
        pos += word.len();
        let bare = word.trim();
        if bare.is_empty() {
            continue;
        }
        let core = bare.trim_matches(|c: char| !c.is_alphanumeric());
        let lower = core.chars().next().is_some_and(char::is_lowercase);
        let goes_on = if german {
            noun_seen && lower && !GERMAN_PHRASE.split_whitespace().any(|w| w == core)
        } else {
            words > 0 && VERB.is_match(&plain(core))
        };
        if goes_on {
            break;
        }
        noun_seen |= !lower;
        words += 1;
        let lead = word.len() - word.trim_start().len();
        if let Some(i) = bare.find([',', ';', ':', '–', '—', '(', '[', '.']) {
            return from + at + lead + i;
        }
        end = from + at + lead + bare.len();
        if words >= MOST_WORDS {
            break;
        }
    }
    end
}

/// `sentence` with each alternative blanked: from its opening word to the
/// end of the alternative ([`alternative_end`]), at most [`MOST_WORDS`]
/// words. In German the phrase ends at the first lower-case word after a
/// noun that is no article, joiner or preposition (the verb of "Statt
/// Kaltmiete zahlen Sie …"); in English at a verb. Only an alternative that
/// opens the sentence is blanked.
pub(super) fn without_alternatives(sentence: &str) -> String {
    let mut out = sentence.to_owned();
    // An alternative that opens the sentence (after a bullet or label).
    let opening = |start: usize| {
        sentence[..start].chars().all(|c| !c.is_alphanumeric() || c.is_whitespace())
            || sentence[..start].trim_end().ends_with(':')
    };
    for m in ALTERNATIVE.find_iter(sentence) {
        let german =
            ["statt", "anstatt", "anstelle", "anders", "im"].iter().any(|w| m.as_str().to_lowercase().starts_with(w));
        let first = opening(m.start());
        let mut end = alternative_end(sentence, m.end(), german, first);
        if !first {
            // Inside the sentence the alternative carries words the sentence still
            // needs: the subject of "an optional extra rather than part of the rent",
            // the stay of "rather than about who sleeps there", figures and ids.
            continue;
        } else {
            // "Anders als bei Wohnungen, in denen Tiere auf Anfrage möglich sind, …":
            // a relative clause after the alternative belongs to it.
            if let Some(r) = RELATIVE.find(&sentence[end..]) {
                let after = end + r.end();
                end = sentence[after..].find([',', ';', ':']).map_or(sentence.len(), |i| after + i);
            }
            // The comma that closes an opening alternative goes with it: the
            // sentence then reads as its main clause ("Unlike X, HH-1002 has …").
            if sentence[end..].starts_with(',') {
                end += 1;
            }
        }
        out.replace_range(m.start()..end, &" ".repeat(end - m.start()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_alternative_is_blanked_and_the_statement_kept() {
        let s = without_alternatives("Statt Kaltmiete plus Nebenkostenvorauszahlung zahlen Sie hier 1.350 €.");
        assert_eq!(s.split_whitespace().collect::<Vec<_>>(), ["zahlen", "Sie", "hier", "1.350", "€."]);
        let s = without_alternatives("Unlike many older buildings, HH-1002 has no lift.");
        assert_eq!(s.trim_start(), "HH-1002 has no lift.");
        let s =
            without_alternatives("Anders als die Nebenkosten einer Mietwohnung geht das Hausgeld an die Gemeinschaft.");
        assert!(s.trim_start().starts_with("geht das Hausgeld"), "{s}");
        assert_eq!(
            s.len(),
            "Anders als die Nebenkosten einer Mietwohnung geht das Hausgeld an die Gemeinschaft.".len()
        );
        let s = without_alternatives(
            "Anders als bei Wohnungen, in denen Tiere auf Anfrage möglich sind, gibt es hier keinen Spielraum.",
        );
        assert_eq!(s.trim_start(), "gibt es hier keinen Spielraum.");
        // "that" after the comma opens the main clause, not a relative one.
        let s = without_alternatives("Unlike a no-pets listing, that means your dog can come along.");
        assert_eq!(s.trim_start(), "that means your dog can come along.");
        let s = without_alternatives(
            "Anders als bei Wohnungen mit dem Vermerk „auf Anfrage“ ist hier keine Entscheidung vorgesehen.",
        );
        assert_eq!(s.trim_start(), "ist hier keine Entscheidung vorgesehen.");
        let s = without_alternatives("Rather than an ID that's merely let or reserved, it doesn't match any listing.");
        assert_eq!(s.trim_start(), "it doesn't match any listing.");
        let s =
            without_alternatives("Anders als man bei Nebenkosten oft annimmt, decken die 290 € die Heizung nicht ab.");
        assert_eq!(s.trim_start(), "decken die 290 € die Heizung nicht ab.");
        let s = without_alternatives("Statt Sie auf eine Warteliste zu setzen, habe ich Ihren Wunsch weitergeleitet.");
        assert_eq!(s.trim_start(), "habe ich Ihren Wunsch weitergeleitet.");
        let tail = "So it's an optional extra rather than part of the rent itself.";
        assert_eq!(without_alternatives(tail), tail);
        // Mid-sentence: kept (its figures and ids still count).
        let mid = "Your request: 2,800 EUR instead of 3,100 EUR for HH-1003.";
        assert_eq!(without_alternatives(mid), mid);
        // No alternative: unchanged.
        assert_eq!(without_alternatives("Heating is included."), "Heating is included.");
    }
}
