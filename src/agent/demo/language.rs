//! German or English, from marker words.

use crate::fold::fold;
use crate::golden::Lang;

/// Detects German vs English from marker words (folded), ignoring quoted
/// passages and bracketed citations: a German reply that quotes the English
/// catalogue is still German. Words common in both languages (`was`, `an`,
/// `also`) are no markers. A tie goes to a statistical detector (whatlang,
/// English and German only), which answers English when unsure.
pub fn detect_language(text: &str) -> Lang {
    let text = crate::agent::guards::own_words(text);
    let text = text.as_ref();
    const DE: &[&str] = &[
        "hat",
        "einen",
        "im",
        "ob",
        "wo",
        "kein",
        "keine",
        "ich",
        "ist",
        "die",
        "der",
        "das",
        "und",
        "nicht",
        "eine",
        "ein",
        "mit",
        "fur",
        "wie",
        "hoch",
        "gibt",
        "es",
        "sind",
        "bei",
        "wohnung",
        "haben",
        "kann",
        "darf",
        "mochte",
        "wir",
        "auch",
        "noch",
        "den",
        "dem",
        "zu",
        "auf",
        "bitte",
        "danke",
        "hallo",
        "wann",
        "welche",
        "konnen",
        "ware",
        "wurde",
        "sie",
        "ihr",
        "mein",
        "meine",
        "uns",
        "von",
        "aus",
        "schon",
        "besichtigen",
        "miete",
        "kaution",
        "gerne",
        "uber",
        "oder",
        "aber",
    ];
    const EN: &[&str] = &[
        "i", "is", "the", "and", "not", "a", "with", "for", "how", "much", "there", "are", "at", "have", "can", "may",
        "would", "we", "still", "to", "on", "please", "thanks", "hello", "when", "what", "which", "could", "you",
        "your", "my", "us", "from", "of", "it", "view", "rent", "deposit", "does", "do", "or", "but",
    ];
    let folded = fold(text);
    let words: Vec<&str> = folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let de = words.iter().filter(|w| DE.contains(w)).count() + text.chars().filter(|c| "äöüßÄÖÜ".contains(*c)).count();
    let en = words.iter().filter(|w| EN.contains(w)).count();
    if de == en {
        // No marker decides (short text): ask a statistical detector.
        let detector = whatlang::Detector::with_allowlist(vec![whatlang::Lang::Eng, whatlang::Lang::Deu]);
        return match detector.detect_lang(text) {
            Some(whatlang::Lang::Deu) => Lang::De,
            _ => Lang::En,
        };
    }
    if de > en {
        Lang::De
    } else {
        Lang::En
    }
}
