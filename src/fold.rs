//! Text folding shared by city matching and the keyword analyzer.
//!
//! German words reach us in three spellings: `Schlüssel`, `Schluessel` (the ASCII
//! transliteration) and `schlussel` (umlaut dropped). Folding maps all three to
//! `schlussel`: lower-case, strip diacritics (`ä`→`a`, `ß`→`ss`, `é`→`e`), then
//! collapse the transliterated pairs `ae`/`oe`/`ue` to their base vowel. The same
//! function runs at index and query time, so English words that happen to contain
//! those pairs (`blue` → `blu`) still match themselves.

/// Folds one word or phrase: lower-case, diacritics removed, `ae`/`oe`/`ue`
/// collapsed to `a`/`o`/`u`, `ß` → `ss`. Control characters (line breaks, tabs)
/// become spaces; other non-alphanumeric characters are kept as they are
/// (callers split on them).
///
/// ```
/// use inquiry::fold::fold;
/// assert_eq!(fold("Schlüssel"), fold("Schluessel"));
/// assert_eq!(fold("KÖLN"), "koln");
/// ```
pub fn fold(text: &str) -> String {
    collapse_pairs(&plain(text))
}

/// Lower-case ASCII without diacritics (`Schlüssel` → `schlussel`, `ß` → `ss`),
/// but with transliterated pairs left as typed (`Schluessel` → `schluessel`).
/// Control characters become spaces; `€` becomes the word `eur`.
pub fn plain(text: &str) -> String {
    // deunicode drops control characters, newline and tab included, which
    // glued "Hamburg\nUtilities" into one token: make them spaces first.
    // "240€" would become the single token "240eur": give the sign its own word.
    // Built in one buffer: a per-character Vec made this the hottest
    // allocation of grounding (`cargo bench --bench grounding`).
    let mut spaced = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '€' => spaced.push_str(" EUR "),
            c if c.is_control() => spaced.push(' '),
            c => spaced.push(c),
        }
    }
    if spaced.is_ascii() {
        spaced.make_ascii_lowercase();
        return spaced;
    }
    deunicode::deunicode(&spaced).to_lowercase()
}

/// Collapses the transliterated umlaut pairs `ae`/`oe`/`ue` to `a`/`o`/`u`.
pub fn collapse_pairs(ascii: &str) -> String {
    let mut out = String::with_capacity(ascii.len());
    let mut chars = ascii.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if matches!(c, 'a' | 'o' | 'u') && chars.peek() == Some(&'e') {
            chars.next();
        }
    }
    out
}

/// Splits text into folded alphanumeric tokens (split on every non-alphanumeric
/// character after folding). Empty tokens are dropped. A number written with
/// thousands separators is one token (`1,650` and `1.650` → `1650`).
pub fn tokens(text: &str) -> Vec<String> {
    split_words(&fold(text))
}

/// [`tokens`] without collapsing `ae`/`oe`/`ue` (see [`plain`]).
pub fn plain_tokens(text: &str) -> Vec<String> {
    split_words(&plain(text))
}

/// Digit groups joined by `,` or `.` in threes: `1,650`, `1.650.000`.
static THOUSANDS: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"\b\d{1,3}(?:[.,]\d{3})+\b").expect("constant regex"));

fn split_words(folded: &str) -> Vec<String> {
    let joined = THOUSANDS.replace_all(folded, |c: &regex::Captures| c[0].replace([',', '.'], ""));
    joined.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_owned).collect()
}

/// Common exonyms of the catalogue's cities, folded: (exonym, folded native name).
/// Source: the English and Italian/French names in everyday use for these cities.
const CITY_EXONYMS: &[(&str, &str)] = &[
    ("munich", "munchen"),
    ("monaco di baviera", "munchen"),
    ("cologne", "koln"),
    ("nuremberg", "nurnberg"),
    ("hanover", "hannover"),
    ("brunswick", "braunschweig"),
];

/// The exonyms of a city (`Köln` → `["cologne"]`), folded.
pub fn exonyms(city: &str) -> Vec<&'static str> {
    let native = fold_city(city);
    CITY_EXONYMS.iter().filter(|(_, n)| *n == native).map(|(e, _)| *e).collect()
}

/// Folds a city name and resolves an exonym to the native name, so that
/// `Munich`, `münchen`, `Muenchen` and `MUNCHEN` all compare equal.
pub fn fold_city(city: &str) -> String {
    let folded = fold(city.trim());
    let folded = folded.split_whitespace().collect::<Vec<_>>().join(" ");
    CITY_EXONYMS.iter().find(|(exonym, _)| *exonym == folded).map(|(_, native)| (*native).to_owned()).unwrap_or(folded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators_do_not_split_numbers() {
        assert_eq!(tokens("1,650 EUR or 1.650 € or 1650"), ["1650", "eur", "or", "1650", "eur", "or", "1650"]);
        assert_eq!(tokens("3.5 rooms, 2,5 Zimmer"), ["3", "5", "rooms", "2", "5", "zimmer"]);
    }

    #[test]
    fn the_euro_sign_is_its_own_word() {
        assert_eq!(tokens("240€ or €240"), ["240", "eur", "or", "eur", "240"]);
        assert_eq!(exonyms("Köln"), ["cologne"]);
    }

    #[test]
    fn line_breaks_and_tabs_separate_tokens() {
        assert_eq!(tokens("Eimsbüttel, Hamburg\nUtilities\tare"), ["eimsbuttel", "hamburg", "utilities", "are"]);
        assert_eq!(tokens("a\r\nb"), ["a", "b"]);
    }

    #[test]
    fn german_spellings_meet() {
        for w in ["Schlüssel", "Schluessel", "schlussel", "SCHLÜSSEL"] {
            assert_eq!(fold(w), "schlussel", "{w}");
        }
        assert_eq!(fold("Straße"), "strasse");
        assert_eq!(fold("Köln"), fold("Koeln"));
    }

    #[test]
    fn cities_fold_with_exonyms() {
        assert_eq!(fold_city("Munich"), fold_city("München"));
        assert_eq!(fold_city(" cologne "), fold_city("Köln"));
        assert_eq!(fold_city("hamburg"), "hamburg");
    }

    #[test]
    fn tokens_split_on_non_alphanumerics() {
        assert_eq!(tokens("HH-1001: Nebenkosten, 240 €"), ["hh", "1001", "nebenkosten", "240", "eur"]);
    }
}
