//! Amounts of money written in words: "ninety-five euros", "one thousand
//! three hundred euros", "thirteen hundred euros", "fünfundneunzig Euro",
//! "dreizehnhundert Euro". Real assistants write figures this way now and
//! then; read as digits they are checked like any other price (an invented
//! "gut dreizehnhundert Euro" is in no record), and they convey an item's
//! figure ("95 EUR per month").

use std::sync::LazyLock;

use regex::Regex;

const EN_UNITS: &[&str] = &[
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const EN_TENS: &[&str] = &["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
/// German, folded (ü → u, ß → ss).
const DE_UNITS: &[&str] = &[
    "null", "ein", "zwei", "drei", "vier", "funf", "sechs", "sieben", "acht", "neun", "zehn", "elf", "zwolf",
    "dreizehn", "vierzehn", "funfzehn", "sechzehn", "siebzehn", "achtzehn", "neunzehn",
];
const DE_TENS: &[&str] =
    &["", "", "zwanzig", "dreissig", "vierzig", "funfzig", "sechzig", "siebzig", "achtzig", "neunzig"];

/// A run of English number words, or one German number word, before a
/// currency word (folded text).
static SPELLED_AMOUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b((?:(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|and)[\s-]+)*(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand)|[a-z]*(?:hundert|tausend|zig|ssig|zehn|elf|zwolf|eins|zwei|drei|vier|funf|sechs|sieben|acht|neun))\s+(euros?|eur)\b")
        .expect("valid pattern")
});

/// The value of an English number phrase ("one thousand three hundred",
/// "thirteen hundred", "ninety-five"); `None` for anything else.
fn english(words: &str) -> Option<f64> {
    let (mut total, mut current) = (0u64, 0u64);
    let mut any = false;
    for w in words.split(|c: char| c == '-' || c.is_whitespace()).filter(|w| !w.is_empty() && *w != "and") {
        if let Some(u) = EN_UNITS.iter().position(|x| *x == w) {
            current += u as u64;
        } else if let Some(t) = EN_TENS.iter().position(|x| !x.is_empty() && *x == w) {
            current += 10 * t as u64;
        } else if w == "hundred" {
            current = current.max(1) * 100;
        } else if w == "thousand" {
            total += current.max(1) * 1000;
            current = 0;
        } else {
            return None;
        }
        any = true;
    }
    any.then_some((total + current) as f64)
}

/// The value of a number below 100 in German ("funfundneunzig", "zwolf").
fn german_below_100(w: &str) -> Option<u64> {
    if w.is_empty() {
        return Some(0);
    }
    if let Some(u) = DE_UNITS.iter().position(|x| *x == w) {
        return Some(u as u64);
    }
    if w == "eins" {
        return Some(1);
    }
    if let Some(t) = DE_TENS.iter().position(|x| !x.is_empty() && *x == w) {
        return Some(10 * t as u64);
    }
    let (unit, tens) = w.split_once("und")?;
    let u = DE_UNITS.iter().position(|x| *x == unit).filter(|u| (1..10).contains(u))?;
    let t = DE_TENS.iter().position(|x| !x.is_empty() && *x == tens)?;
    Some(10 * t as u64 + u as u64)
}

/// The value of a German number word ("dreizehnhundert",
/// "zweitausendachthundert", "funfundneunzig"), folded.
fn german(w: &str) -> Option<f64> {
    let (thousands, rest) = match w.split_once("tausend") {
        Some((a, b)) => (if a.is_empty() { 1 } else { german_below_100(a)? }, b),
        None => (0, w),
    };
    let (hundreds, rest) = match rest.split_once("hundert") {
        Some((a, b)) => (if a.is_empty() { 1 } else { german_below_100(a)? }, b),
        None => (0, rest),
    };
    let value = thousands * 1000 + hundreds * 100 + german_below_100(rest)?;
    (value > 0).then_some(value as f64)
}

/// Spelled-out amounts in `folded` (plain folded text): (byte offset, byte
/// end, value in EUR).
pub(super) fn spelled_amounts(folded: &str) -> Vec<(usize, usize, f64)> {
    SPELLED_AMOUNT
        .captures_iter(folded)
        .filter_map(|c| {
            let m = c.get(0)?;
            let words = c.get(1)?.as_str();
            let value = english(words).or_else(|| german(words))?;
            Some((m.start(), m.end(), value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<f64> {
        spelled_amounts(&crate::fold::plain(text)).into_iter().map(|(_, _, v)| v).collect()
    }

    #[test]
    fn english_and_german_amounts_in_words() {
        assert_eq!(values("an additional ninety-five euros a month"), [95.0]);
        assert_eq!(values("around thirteen hundred euros"), [1300.0]);
        assert_eq!(values("one thousand three hundred and fifty euros"), [1350.0]);
        assert_eq!(values("fünfundneunzig Euro im Monat"), [95.0]);
        assert_eq!(values("gut dreizehnhundert Euro Kaltmiete"), [1300.0]);
        assert_eq!(values("zweitausendachthundert Euro"), [2800.0]);
        assert_eq!(values("zwölf Euro"), [12.0]);
    }

    #[test]
    fn other_words_before_euro_are_no_amount() {
        assert!(values("a few euros").is_empty());
        assert!(values("in Euro").is_empty());
        assert!(values("the rent in euros").is_empty());
        assert!(values("ein paar Euro mehr").is_empty());
    }
}
