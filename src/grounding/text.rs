//! The words of a reply: its own text (quoted customer words removed), its
//! sentences and clauses, negation scope, and its citations. Shared by the
//! answer guards, the grounding check and the rule judge, so all three read a
//! reply the same way.

use std::sync::LazyLock;

use regex::Regex;

use crate::fold::fold;

static BRACKET: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[([^\[\]\n]{1,300})\]").expect("valid pattern"));
static CITATION_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Z]{1,2}-\d{4}(?:#s\d+)?|policy:[a-z0-9-]+#[a-z0-9-]+)$").expect("valid pattern")
});

static QUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"“[^”]*”|„[^“”]*[“”]|"[^"]*"|\[[^\]]*\]"#).expect("valid pattern"));

/// Compiles a pattern that is only ever asked *whether* it matches, with
/// every group made non-capturing. The regex crate's PikeVM keeps one slot
/// per capture group per NFA state in each thread's cache, so a pattern of a
/// few hundred alternatives with a group each (the commitment wording) cost
/// 1.7 GB per thread; without groups the cache is a few MB. Patterns here have
/// no backreferences, so a group's capture is never needed. Panics on an
/// invalid pattern: callers pass constants, checked by their unit tests.
pub(crate) fn match_only(pattern: &str) -> Regex {
    regex::RegexBuilder::new(&non_capturing(pattern))
        // The largest alternatives outgrow the default 10 MB compiled size.
        .size_limit(64 << 20)
        .build()
        .expect("valid pattern")
}

/// `pattern` with each capture group `(…)` rewritten as `(?:…)`; escaped
/// parentheses and those inside a character class are left alone.
fn non_capturing(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + pattern.len() / 8);
    let mut chars = pattern.chars().peekable();
    let mut class_depth = 0usize;
    while let Some(c) = chars.next() {
        out.push(c);
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            '[' => class_depth += 1,
            ']' if class_depth > 0 => class_depth -= 1,
            '(' if class_depth == 0 && chars.peek() != Some(&'?') => out.push_str("?:"),
            _ => {}
        }
    }
    out
}

/// The reply's own words: quoted passages (`“…”`, `„…“`, `"…"`) and bracketed
/// citations removed. A German reply quoting the English catalogue is still
/// German; language checks look at these words only.
pub fn own_words(reply: &str) -> std::borrow::Cow<'_, str> {
    QUOTED.replace_all(reply, " ")
}

/// Citation ids in a reply, in order of first appearance, without duplicates.
/// A bracket may hold several ids separated by `,` or `;`.
pub fn citations(reply: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for cap in BRACKET.captures_iter(reply) {
        for part in cap[1].split([',', ';']) {
            let id = part.trim();
            if CITATION_ID.is_match(id) && !out.iter().any(|o| o == id) {
                out.push(id.to_owned());
            }
        }
    }
    out
}

/// Where each citation id sits in a reply: (byte range of the id, id), in
/// order, every occurrence (the same brackets [`citations`] reads).
pub fn citation_spans(reply: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let mut out = Vec::new();
    for cap in BRACKET.captures_iter(reply) {
        let Some(inner) = cap.get(1) else { continue };
        let mut at = inner.start();
        for part in inner.as_str().split([',', ';']) {
            let lead = part.len() - part.trim_start().len();
            let id = part.trim();
            if CITATION_ID.is_match(id) {
                out.push((at + lead..at + lead + id.len(), id.to_owned()));
            }
            at += part.len() + 1;
        }
    }
    out
}

static QUOTE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"“[^”\n]*”|„[^“”\n]*[“”]|"[^"\n]*"|«[^»\n]*»|»[^«\n]*«"#).expect("valid pattern"));
// A sentence ends after . ! ? … and any closing quotes or citation brackets.
static SENTENCE_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"[.!?…]+(["”“»«')]|[ \t]*\[[^\]\n]{1,300}\])*(\s+|$)|\n+"#).expect("valid pattern"));
static CLAUSE_BREAK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)[,;:–—()“”„"«»]|\s-\s|\b(and|or|but|however|although|though|whereas|while|und|oder|aber|jedoch|sondern|allerdings|obwohl|während)\b"#)
        .expect("valid pattern")
});
static NEGATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(not|no|never|none|neither|nor|without|cannot|nicht|nie|niemals|kein\w*|ohne|weder|exclud\w*|ausgeschlossen)\b|n['’]t\b")
        .expect("valid pattern")
});
static REPORTED_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(you\s+(asked|ask|wanted\s+to\s+know|are\s+asking|were\s+asking|wonder(ed)?)\s+(whether|if)|(for\s+)?asking\s+(whether|if)|(sie\s+)?(fragen|fragten|möchten\s+wissen|wollten\s+wissen),?\s+ob|(ihre|der)\s+frage,?\s+ob|your\s+question\s+(whether|if))\b")
        .expect("valid pattern")
});

/// One sentence of a reply's own text.
#[derive(Debug, Clone, PartialEq)]
pub struct Sentence {
    /// The sentence, trimmed, with its end punctuation.
    pub text: String,
    /// Ends with `?`.
    pub question: bool,
    /// Byte ranges of its clauses (between clause breaks).
    pub clauses: Vec<(usize, usize)>,
}

/// The reply's own text: quoted passages that repeat the customer's words
/// (at least 2 words, 80% of them found in the customer's messages) are
/// blanked out. Quoted catalogue passages stay: quoting the record conveys it.
pub fn own_text(reply: &str, customer: &[&str]) -> String {
    let customer_words: std::collections::HashSet<String> = customer.iter().flat_map(|t| words(t)).collect();
    QUOTE
        .replace_all(reply, |cap: &regex::Captures<'_>| {
            let inner = words(&cap[0]);
            let shared = inner.iter().filter(|w| customer_words.contains(*w)).count();
            if inner.len() >= 2 && shared * 5 >= inner.len() * 4 {
                " ".repeat(cap[0].len())
            } else {
                cap[0].to_owned()
            }
        })
        .into_owned()
}

pub(crate) fn words(text: &str) -> Vec<String> {
    fold(text).split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

/// Splits text into sentences (after `.`, `!`, `?`, `…` followed by space or
/// the end, and at line breaks; `3.57` and `1.650` stay whole), each with its
/// clauses. A clause that reports the customer's question ("you asked
/// whether …") is dropped.
pub fn sentences(text: &str) -> Vec<Sentence> {
    let mut out = vec![];
    let mut start = 0;
    let mut push = |piece: &str| {
        let trimmed = piece.trim();
        if trimmed.is_empty() {
            return;
        }
        let mut clauses = vec![];
        let mut from = 0;
        // A bullet's short label is the subject of what follows it ("- **Lift:**
        // there isn't one"): its colon breaks no clause, as in `wording::clauses`.
        let label_colon = super::wording::LABEL_COLON
            .captures(trimmed)
            .and_then(|c| c.get(1))
            .filter(|g| !super::wording::label_stands_alone(g.as_str()))
            .map(|g| g.end());
        for m in CLAUSE_BREAK.find_iter(trimmed) {
            if Some(m.start()) == label_colon {
                continue;
            }
            // A comma or colon between digits belongs to a number ("3,100", "10:00").
            let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
            if digit(trimmed[..m.start()].chars().next_back()) && digit(trimmed[m.end()..].chars().next()) {
                continue;
            }
            if super::wording::preposition(m.as_str(), &trimmed[m.end()..])
                || super::wording::joins_compound(m.as_str(), &trimmed[..m.start()])
            {
                continue;
            }
            clauses.push((from, m.start()));
            from = m.end();
        }
        clauses.push((from, trimmed.len()));
        let clauses: Vec<(usize, usize)> =
            super::wording::join_trailing_negations(trimmed, clauses.into_iter().map(|(a, b)| (false, a, b)).collect())
                .into_iter()
                .map(|(_, a, b)| (a, b))
                .collect();
        let text = clause_filtered(trimmed, &clauses);
        out.push(Sentence { question: trimmed.ends_with('?'), text, clauses });
    };
    // "I couldn't find XY-9999 – could you double-check it?": a statement
    // before a dash or semicolon stays a statement when a question follows.
    let mut piece = |p: &str| match QUESTION_TAIL.find(p.trim_end()) {
        Some(m)
            if p.trim_end().ends_with('?')
                && p[..m.start()].split_whitespace().count() >= 4
                && !p[..m.start()].contains(['–', '—', ';']) =>
        {
            push(&p[..m.start()]);
            push(&p[m.start()..]);
        }
        _ => push(p),
    };
    for m in SENTENCE_END.find_iter(text) {
        if continues(text, m.start(), m.end()) {
            continue;
        }
        // A table row is one sentence: "| Thema | Kann ich helfen? |".
        let line_start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
        if !m.as_str().contains('\n') && text[line_start..].trim_start().starts_with('|') {
            continue;
        }
        piece(&text[start..m.end()]);
        start = m.end();
    }
    piece(&text[start..]);
    out
}

/// The question after the last dash or semicolon of a sentence.
static QUESTION_TAIL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(\s[–—]\s|;\s)[^–—;]*$").expect("valid pattern"));

/// A full stop that ends no sentence: an abbreviation or an ordinal before
/// it and the sentence going on after it ("3,57 Prozent inkl. MwSt. wird
/// geteilt", "jeweils zum 1. Juli", "im 2. Stock").
fn continues(text: &str, dot: usize, next: usize) -> bool {
    if !text[dot..].starts_with('.') || text[dot..next].contains('\n') {
        return false;
    }
    let before = text[..dot].rsplit(|c: char| c.is_whitespace() || c == '(').next().unwrap_or_default();
    let after = text[next..].split_whitespace().next().unwrap_or_default();
    let Some(first) = after.chars().next() else { return false };
    let ordinal = !before.is_empty() && before.len() <= 2 && before.chars().all(|c| c.is_ascii_digit());
    // "max. 900 EUR p.m. → 0 results": an arrow or a middle dot goes on with the line.
    first.is_lowercase()
        || matches!(first, '→' | '·' | '=' | '+' | '&')
        || (ordinal && ORDINAL_NOUN.is_match(after))
        || ABBREVIATION.is_match(before)
}

/// Abbreviations a full stop closes mid-sentence ("inkl.", "z.B.", "e.g.").
static ABBREVIATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(inkl|zzgl|exkl|ca|bzw|evtl|ggf|usw|etc|z|z\.b|d\.h|u\.a|nr|str|mtl|monatl|jährl|gem|lt|sog|incl|excl|approx|est|e\.g|i\.e|vs|max|min|mind)$")
        .expect("valid pattern")
});

/// What a German ordinal number stands before: a month, a floor, a step.
static ORDINAL_NOUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember|Jan|Feb|Mär|Apr|Jun|Jul|Aug|Sep|Sept|Okt|Nov|Dez|Stock|Stockwerk|Etage|Obergeschoss|OG|Quartal|Monat|Jahr|Mietjahr|Rate|Stufe|Werktag)\b")
        .expect("valid pattern")
});

/// Blanks the clauses that report the customer's question ("you asked
/// whether heating is included"), keeping byte offsets.
fn clause_filtered(sentence: &str, clauses: &[(usize, usize)]) -> String {
    let mut s = sentence.to_owned();
    for &(a, b) in clauses {
        if REPORTED_QUESTION.is_match(&sentence[a..b]) {
            s.replace_range(a..b, &" ".repeat(b - a));
        }
    }
    s
}

/// Whether the match `[a, b)` is negated in its clause: a negation before it,
/// or one after it that the clause's polarity keeps. A match that spans
/// clauses is not negated (no one clause scopes it).
pub fn negated(sentence: &Sentence, a: usize, b: usize) -> bool {
    let Some(&(s, e)) = sentence.clauses.iter().find(|(s, e)| *s <= a && a < *e) else { return false };
    // A match that ends in the clause break ("Katzen gestattet,") ends before it.
    let mut b = b;
    while b > a + 1 && sentence.text[..b].ends_with(|c: char| c.is_ascii_punctuation() || c.is_whitespace()) {
        b -= 1;
    }
    if b > e {
        return false;
    }
    // Before the match any negation word counts; after it ("three monthly
    // instalments is an option our landlords don't offer", "setzt … nicht
    // voraus") the rest of the clause is read with its idioms and double
    // negations ("Katzen sind dort nicht verboten" denies nothing).
    let after = &sentence.text[b..e];
    NEGATION.find_iter(&sentence.text[s..a]).next().is_some()
        || (NEGATION.is_match(after) && !NOT_FINAL.is_match(after) && super::polarity::polarity(after).negated)
}

/// "not (yet) final" after an amount says it is an estimate; it does not
/// deny what comes before it ("a provisional figure that hasn't been
/// finalised").
static NOT_FINAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(\bnot\b|n['’]t\b|\bnoch nicht\b)(\s+\w+){0,2}\s+(final\w*|fixed|settled|confirmed|decided|binding|endgültig|endgultig|fest|festgelegt|beschlossen|verbindlich)\b")
        .expect("valid pattern")
});

/// Whether the match at `a` sits in a clause that asks rather than states:
/// one opened by "whether", "ob", "if", "falls" ("Whether 2,800 EUR would be
/// acceptable is not my call").
pub fn asked(sentence: &Sentence, a: usize) -> bool {
    let Some(&(s, _)) = sentence.clauses.iter().find(|(s, e)| *s <= a && a < *e) else { return false };
    ASKING.is_match(&sentence.text[s..a])
}

static ASKING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^\W*(whether|if|ob|falls)\b").expect("valid pattern"));

/// Indices of the clauses that the byte range `[a, b)` touches.
pub fn clauses_of(sentence: &Sentence, a: usize, b: usize) -> std::ops::Range<usize> {
    let first = sentence.clauses.iter().position(|(_, e)| a < *e).unwrap_or(0);
    let last = sentence.clauses.iter().rposition(|(s, _)| *s < b.max(a + 1)).unwrap_or(first);
    first..last.max(first) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn customer_quotes_are_removed_catalogue_quotes_kept() {
        let reply = "On your question “Is heating included in the utilities for HH-1001?”: “Utilities (Nebenkosten) are an additional 240 EUR per month, heating included.” [HH-1001#s5]";
        let own = own_text(reply, &["Is heating included in the utilities for HH-1001?"]);
        assert!(!own.contains("Is heating included"), "{own}");
        assert!(own.contains("heating included.”"), "{own}");
    }

    #[test]
    fn sentences_end_after_closing_quotes_and_citations() {
        let s = sentences("“Rent is 240 EUR.” [HH-1001#s5] “Tenants pay no commission.” [policy:commission#rentals]");
        assert_eq!(s.len(), 2, "{s:?}");
    }

    #[test]
    fn sentences_keep_numbers_whole_and_mark_questions() {
        assert_eq!(sentences("Levy → est. 18,000 EUR for this unit.").len(), 1);
        let s = sentences("The levy is 3.57 percent. Rent is 1.650 €! Is that fine? Yes");
        let texts: Vec<&str> = s.iter().map(|x| x.text.trim()).collect();
        assert_eq!(texts, ["The levy is 3.57 percent.", "Rent is 1.650 €!", "Is that fine?", "Yes"]);
        assert_eq!(s.iter().map(|x| x.question).collect::<Vec<_>>(), [false, false, true, false]);
    }

    #[test]
    fn abbreviations_and_ordinals_end_no_sentence() {
        let texts = |t: &str| sentences(t).iter().map(|x| x.text.trim().to_owned()).collect::<Vec<_>>();
        assert_eq!(texts("3,57 Prozent inkl. MwSt. wird geteilt. Danke!").len(), 2);
        assert_eq!(texts("Search: Munich, max. 900 EUR p.m. → 0 results. Try again?").len(), 2);
        assert_eq!(
            texts("Die Miete steigt jeweils zum 1. Juli. Mehr steht im Vertrag."),
            ["Die Miete steigt jeweils zum 1. Juli.", "Mehr steht im Vertrag."]
        );
        assert_eq!(texts("Sie liegt im 2. Stock.").len(), 1);
        assert_eq!(texts("The flat is on floor 2. The building has no lift.").len(), 2);
    }

    #[test]
    fn a_statement_before_a_closing_question_stays_a_statement() {
        let s = sentences("I couldn't find XY-9999 anywhere in our listings – could you double-check it?");
        assert_eq!(s.iter().map(|x| x.question).collect::<Vec<_>>(), [false, true]);
        assert_eq!(sentences("Is heating – and water – included?").len(), 1);
    }

    #[test]
    fn negation_outside_the_match_counts_inside_does_not() {
        let s = &sentences("Heating is not included, the utilities are 240 EUR.")[0];
        let included = s.text.find("included").unwrap();
        assert!(negated(s, included, included + 8));
        let n = s.text.find("240").unwrap();
        assert!(!negated(s, n, n + 3), "the negation is in another clause");
        let s = &sentences("Heating is not included in the 240 EUR utilities.")[0];
        let n = s.text.find("240").unwrap();
        assert!(negated(s, n, n + 3));
        let s = &sentences("The levy is estimated at 18,000 EUR and is not yet final.")[0];
        let n = s.text.find("estimated").unwrap();
        assert!(!negated(s, n, n + 9), "the negation scopes forward");
        let t = &sentences("The building has no lift.")[0];
        let a = t.text.find("no lift").unwrap();
        assert!(!negated(t, a, a + 7), "a negation inside the match is the fact itself");
    }

    #[test]
    fn reported_questions_are_not_the_reply_s_own_claims() {
        let s = &sentences("You asked whether heating is included, and I have passed it on.")[0];
        assert!(!s.text.contains("heating is included"), "{}", s.text);
    }
}

#[cfg(test)]
mod span_tests {
    use super::*;

    #[test]
    fn citation_spans_point_at_each_id() {
        let reply = "Heating is included [HH-1001#s5; policy:deposit#amount] and [x] [HH-1001].";
        let spans = citation_spans(reply);
        let ids: Vec<&str> = spans.iter().map(|(r, _)| &reply[r.clone()]).collect();
        assert_eq!(ids, ["HH-1001#s5", "policy:deposit#amount", "HH-1001"]);
        assert!(spans.iter().all(|(r, id)| &reply[r.clone()] == id));
    }

    #[test]
    fn a_negation_after_the_match_counts_unless_it_says_not_final() {
        let at = |text: &str, word: &str| {
            let s = &sentences(text)[0];
            let a = s.text.find(word).unwrap();
            negated(s, a, a + word.len())
        };
        assert!(at(
            "Splitting it into three monthly instalments is an option our landlords don't offer.",
            "three monthly instalments"
        ));
        assert!(at("Leider nein – in B-2001 sind weder Hunde noch Katzen gestattet.", "Katzen gestattet"));
        assert!(at(
            "Einen Wohnberechtigungsschein setzt der Vermieter, anders als sonst, nicht voraus.",
            "Wohnberechtigungsschein"
        ));
        assert!(at(
            "In B-2001 sind weder Hunde noch Katzen gestattet, Ihre Katze also auch nicht.",
            "Katzen gestattet,"
        ));
        assert!(!at("It is a provisional figure that hasn't been finalised.", "provisional"));
        assert!(!at("Katzen sind dort nicht verboten.", "Katzen"));
    }

    #[test]
    fn capture_groups_become_non_capturing_and_escapes_and_classes_stay() {
        assert_eq!(non_capturing(r"\b(a|b(c))\(d\)[(x)](?i:e)"), r"\b(?:a|b(?:c))\(d\)[(x)](?i:e)");
        let r = match_only(r"\b(i|we)('ve| have) (booked|confirmed)\b");
        assert!(r.is_match("we've booked it"));
        assert!(!r.is_match("we have asked"));
        assert_eq!(r.captures_len(), 1, "only the implicit whole-match group");
    }
}
