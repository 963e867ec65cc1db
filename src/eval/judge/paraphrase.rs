//! Everyday idioms that say a record's fact without its words, made
//! explicit for the meaning route ("a walk-up" is a building with no lift).
//!
//! Issue #34: right replies fail where they state a fact with no word of
//! the item, most often a negation said without a negation word: "the
//! building's a walk-up — stairs all the way" for "The building has no
//! lift", "the listing is silent on broadband" for "the records do not
//! state the speed", "rein gewerblich" for "not for living". The meaning
//! route compares terms and polarity, so each idiom here gets its explicit
//! wording appended as a clause of its own; the reply's words stay, and only
//! `must` items are matched against the result (a `must_not` statement is
//! never made by an idiom's gloss). A bullet's label answered with a bare
//! "none" gets "no <label>" the same way. Source: the wordings of right replies in
//! the dev label splits (`labels/dev*.yaml`), generalised to the idiom.

use std::sync::LazyLock;

use regex::Regex;

use crate::grounding::text::Sentence;

/// (idiom, explicit wording), the idiom matched case-insensitively. A
/// wording that starts with `~` is inserted inside the idiom's clause, not
/// as a clause of its own.
const IDIOMS: &[(&str, &str)] = &[
    (r"\bwalk-?ups?\b", "no lift"),
    (
        r"\b(stairs|staircase|stairway) (only|all the way)\b|\bonly (by|via|up) the (stairs|staircase|stairway)\b|\bby (the )?(stairs|staircase) only\b",
        "no lift",
    ),
    (r"\bnur (über die|per|zu fuß über die) treppe\b|\bnur treppen\b", "kein Aufzug"),
    // The idiom carries its own negation ("silent", "nothing"): the gloss adds
    // only the verb, inside the clause, so its object stays with it.
    (r"\b(is|are) silent (on|about)\b|\bsays nothing (on|about)\b", "~stated in the records"),
    (r"\bsagt nichts (zu|über)\b", "~genannt"),
    (r"\bschweigt (sich )?(zu|über)\b", "~nicht genannt"),
    (
        r"\b(purely|solely|exclusively|strictly|only) (as )?(a )?(commercial|business)\b",
        "commercial use only, not for living",
    ),
    (r"\b(ausschließlich|rein|nur) (gewerblich|als gewerbe)\w*\b", "nur gewerblich, nicht zum Wohnen"),
    (r"\bnowhere in (our|the|my) (records|catalogue|listings)\b", "not in our records"),
    (r"\b(doesn't|does not) ring a bell\b", "is not in our records"),
    (r"\bmuss ich (leider )?passen\b", "kann ich nicht helfen"),
    (r"\b(outside|beyond) my (patch|wheelhouse|lane)\b", "cannot help with it"),
    (r"\btakes? care of\b", "includes"),
    (r"\b(kommt|kommen) (noch )?(dazu|obendrauf|hinzu)\b", "zusätzlich"),
    (r"\b(can|could|may|might) still (change|move|shift|vary|go up|go down)\b|\bsubject to change\b", "not yet final"),
    (r"\b(kann|könnte|dürfte) sich (\w+ ){0,3}noch (ändern|verschieben|bewegen)\b", "noch nicht endgültig"),
    (
        r"\b(it's|it is|that's|that is|is) (entirely |solely )?(up to|the call of) the (landlord|owner)\b|\bthe (landlord|owner)'s (call|decision)\b|\bleaves? (\w+ ){0,4}to the (landlord|owner)\b",
        "the landlord decides case by case",
    ),
    (
        r"\bhängt (ganz |allein )?(vom|von der) (vermieter|vermieterin|eigentümer|vermieterseite)\w* ab\b",
        "der Vermieter entscheidet im Einzelfall",
    ),
    (r"\b(a )?maybe rather than a yes\b|\bnot a (definite|firm|guaranteed|certain) yes\b", "it is not a yes"),
    (r"\b(kommen|kommt|kame|kamen)\b[^.,;:]{0,100}\bin ?frage\b", "möglich"),
    (
        r"\b(liegt|liegen) (\w+ ){0,4}in der hand (des|der) (vermieter|vermieterin|eigentümer|vermieterseite)\w*\b",
        "der Vermieter entscheidet im Einzelfall",
    ),
    (r"\b(comes?|came) up empty\b|\bdraws? a blank\b|\bno (hits|results|matches) for\b", "is not in our records"),
    (r"\bjede[nrs]? (\w+ )?(anfrage|fall|wunsch|antrag) (für sich|einzeln|gesondert)\b", "im Einzelfall"),
    (r"\bdamit (sind|ist) (\w+ ){0,6}(bezahlt|abgegolten|abgedeckt)\b", "enthalten"),
    (
        r"\b(decided|decides|judged|considered) (individually|case by case|one by one) by the (landlord|owner)\b",
        "on request, the landlord decides",
    ),
];

/// A bullet's label answered with a bare "none" ("- **Lift:** there isn't
/// one", "Aufzug: keiner"): the value denies the label's thing.
static LABEL_NONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\W*([a-zäöüß][\wäöüß -]{0,25}?)\W*:\W*(?:(there isn't one|there is none|there's none|none|no|not available|n/a)|(keine?r?s?|nein|gibt es nicht|nicht vorhanden))\b")
        .expect("valid pattern")
});

/// A negation inside an idiom's match.
static NEGATED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(nicht|kein\w*|not|no|never|nie)\b|n't\b").expect("valid pattern"));

static COMPILED: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    IDIOMS.iter().map(|(p, w)| (Regex::new(&format!("(?i){p}")).expect("valid pattern"), *w)).collect()
});

/// The sentences with each idiom's explicit wording appended after it as a
/// clause of its own; same count and order, so indexes stay valid. Clause
/// offsets are not kept (the meaning route splits clauses from the text).
pub fn explicit(sents: &[Sentence]) -> Vec<Sentence> {
    sents
        .iter()
        .map(|s| {
            let mut text = s.text.clone();
            for (re, wording) in COMPILED.iter() {
                // "kommt nicht infrage" is no "möglich": an idiom under a negation
                // gets no gloss unless the gloss carries the negation itself.
                let negated = |m: &str| NEGATED.is_match(m) && !NEGATED.is_match(wording) && !wording.starts_with('~');
                if re.find_iter(&text).any(|m| !negated(m.as_str())) {
                    text = re
                        .replace_all(&text, |c: &regex::Captures<'_>| {
                            if negated(&c[0]) {
                                c[0].to_owned()
                            } else if let Some(inline) = wording.strip_prefix('~') {
                                format!("{} {inline}", &c[0])
                            } else {
                                format!("{}, {wording},", &c[0])
                            }
                        })
                        .into_owned();
                }
            }
            if let Some(c) = LABEL_NONE.captures(&s.text) {
                let no = if c.get(3).is_some() { "kein" } else { "no" };
                text = format!("{text} {no} {}.", &c[1]);
            }
            Sentence { text, question: s.question, clauses: vec![] }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grounding::text::sentences;

    #[test]
    fn idioms_get_their_explicit_wording() {
        let s = explicit(&sentences("It's on the fifth floor, and the building's a walk-up."));
        assert_eq!(s[0].text, "It's on the fifth floor, and the building's a walk-up, no lift,.");
        let s = explicit(&sentences("Die Einheit ist rein gewerblich zugelassen."));
        assert!(s[0].text.contains("nicht zum Wohnen"), "{}", s[0].text);
        let s = explicit(&sentences("It is put at roughly EUR 18,000, a projected figure that can still move."));
        assert!(s[0].text.contains("not yet final"), "{}", s[0].text);
        let s = explicit(&sentences("The listing leaves dogs and cats to the landlord: a maybe rather than a yes."));
        assert!(s[0].text.contains("the landlord decides case by case") && s[0].text.contains("it is not a yes"));
        let s = explicit(&sentences("Das hängt vom Vermieter ab."));
        assert!(s[0].text.contains("entscheidet im Einzelfall"), "{}", s[0].text);
        let s = explicit(&sentences("Our catalogue comes up empty for XY-9999."));
        assert!(s[0].text.contains("is not in our records"), "{}", s[0].text);
        let s = explicit(&sentences("Der Vermieter prüft jede Anfrage für sich."));
        assert!(s[0].text.contains("im Einzelfall"), "{}", s[0].text);
        let s = explicit(&sentences("Dogs are decided individually by the landlord."));
        assert!(s[0].text.contains("on request"), "{}", s[0].text);
        let s = explicit(&sentences("Katzen kommen dort nur mit Einverständnis in Frage."));
        assert!(s[0].text.contains("möglich"), "{}", s[0].text);
        let s = explicit(&sentences("Katzen kommen dort nicht in Frage."));
        assert!(!s[0].text.contains("möglich"), "{}", s[0].text);
        let s = explicit(&sentences("- **Lift:** there isn't one; access is by the staircase only."));
        assert!(s[0].text.ends_with("no Lift."), "{}", s[0].text);
        assert!(s[0].text.contains("staircase only, no lift,"), "{}", s[0].text);
        let s = explicit(&sentences("Aufzug: keiner vorhanden."));
        assert!(s[0].text.ends_with("kein Aufzug."), "{}", s[0].text);
        let s = explicit(&sentences("Lift: yes, since 2019."));
        assert!(!s[0].text.contains("no Lift"), "{}", s[0].text);
        // A silence idiom keeps its object in its own, negated clause.
        let s = explicit(&sentences(
            "The M-3002 listing says nothing about the internet speed, so I cannot give a figure.",
        ));
        let first = s[0].text.split(',').next().unwrap();
        assert!(
            first.contains("internet speed") && crate::grounding::polarity::polarity(first).negated,
            "{}",
            s[0].text
        );
        let same = sentences("Heating is included.");
        assert_eq!(explicit(&same)[0].text, same[0].text);
    }
}
