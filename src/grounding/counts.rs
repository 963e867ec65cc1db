//! Floors and room counts a reply states, read so they can be compared with
//! a listing's `floor` and `rooms` fields: "on the fifth floor", "im 2.
//! Stock", "ground floor", "Erdgeschoss", "a three-room flat", "eine
//! Zweizimmerwohnung", "4 Zimmer". Issue #27: a number attached to the wrong
//! thing is a contradiction even when the digit is somewhere in the evidence
//! (the number guard, by SPEC §6, checks neither floors nor room counts).

use std::sync::LazyLock;

use regex::Regex;

use super::numbers::{number_word, NUMBER_WORDS};
use crate::fold::plain;

const ORDINALS: &[(&str, i64)] = &[
    ("first", 1),
    ("second", 2),
    ("third", 3),
    ("fourth", 4),
    ("fifth", 5),
    ("sixth", 6),
    ("seventh", 7),
    ("eighth", 8),
    ("ninth", 9),
    ("tenth", 10),
    ("erste", 1),
    ("zweite", 2),
    ("dritte", 3),
    ("vierte", 4),
    ("funfte", 5),
    ("sechste", 6),
    ("siebte", 7),
    ("achte", 8),
    ("neunte", 9),
    ("zehnte", 10),
];

static FLOOR: LazyLock<Regex> = LazyLock::new(|| {
    let ord = ORDINALS.iter().map(|(w, _)| *w).collect::<Vec<_>>().join("|");
    Regex::new(&format!(
        r"\b(?P<ground>ground[- ]floor|erdgeschoss|parterre)\b|\b(?:(?P<num>\d{{1,2}})(?:st|nd|rd|th|\.)?|(?P<ord>{ord})[nmrs]?)[\s-]+(?:floor|storey|story|stock|stockwerk|etage|obergeschoss|og)\b"
    ))
    .expect("valid pattern")
});

static ROOMS: LazyLock<Regex> = LazyLock::new(|| {
    // From two on: "a room for your bicycle" and "ein Zimmer" count nothing.
    let card = NUMBER_WORDS.iter().filter(|(_, v)| *v >= 2.0).map(|(w, _)| *w).collect::<Vec<_>>().join("|");
    Regex::new(&format!(r"\b(?P<n>\d(?:[.,]5)?|{card})(?:[- ]?(?:room|rooms|zimmer)\b|zimmer\w*)"))
        .expect("valid pattern")
});

/// The floors `text` names, in order: 0 for the ground floor.
pub fn floors(text: &str) -> Vec<(i64, String)> {
    let f = plain(text);
    FLOOR
        .captures_iter(&f)
        .filter_map(|c| {
            let whole = c.get(0)?.as_str().to_owned();
            if c.name("ground").is_some() {
                return Some((0, whole));
            }
            let n = match (c.name("num"), c.name("ord")) {
                (Some(n), _) => n.as_str().parse().ok()?,
                (None, Some(o)) => ORDINALS.iter().find(|(w, _)| *w == o.as_str())?.1,
                _ => return None,
            };
            Some((n, whole))
        })
        .collect()
}

/// The room counts `text` names, in order ("2.5 rooms" is 2.5).
pub fn rooms(text: &str) -> Vec<(f64, String)> {
    let f = plain(text);
    ROOMS
        .captures_iter(&f)
        .filter_map(|c| {
            let whole = c.get(0)?.as_str().to_owned();
            let n = c.name("n")?.as_str();
            let v = n.replace(',', ".").parse::<f64>().ok().or_else(|| number_word(n))?;
            Some((v, whole))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floor(text: &str) -> Vec<i64> {
        floors(text).into_iter().map(|(n, _)| n).collect()
    }

    fn room(text: &str) -> Vec<f64> {
        rooms(text).into_iter().map(|(n, _)| n).collect()
    }

    #[test]
    fn floors_in_both_languages() {
        assert_eq!(floor("HH-1002 is on the fifth floor"), [5]);
        assert_eq!(floor("on the 5th floor"), [5]);
        assert_eq!(floor("a fourth-floor flat"), [4]);
        assert_eq!(floor("Die Wohnung liegt im 2. Stock"), [2]);
        assert_eq!(floor("im zweiten Obergeschoss"), [2]);
        assert_eq!(floor("the flat is on the ground floor"), [0]);
        assert_eq!(floor("im Erdgeschoss"), [0]);
        assert!(floor("on the top floor").is_empty());
        assert!(floor("a floor area of 78 square metres").is_empty());
    }

    #[test]
    fn room_counts_in_both_languages() {
        assert_eq!(room("a bright three-room apartment"), [3.0]);
        assert_eq!(room("eine Zweizimmerwohnung in Sülz"), [2.0]);
        assert_eq!(room("4 Zimmer"), [4.0]);
        assert_eq!(room("2.5 rooms"), [2.5]);
        assert!(room("a room for your bicycle").is_empty());
    }
}
