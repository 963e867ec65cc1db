//! The offline rule judge: a case's match patterns, read sentence by sentence
//! over the reply's own words.
//!
//! What counts (each rule came from a labelled reply that a whole-text match
//! graded wrongly, see `labels/README.md`):
//! - Only the reply's own text is graded: a quoted passage that repeats the
//!   customer's words (“Is heating included…?”) is removed first, and so is a
//!   clause that reports the question ("you asked whether …").
//! - A `must` pattern counts only in a sentence that is not a question, and
//!   not after a negation in the same clause (not, no, never, without, n't,
//!   nicht, kein…, ohne, exclude…; a negation inside the match is the fact
//!   itself, as in "no lift"): "heating is not included in the 240 EUR"
//!   conveys neither "heating included" nor "240 EUR". The negation's scope
//!   runs forward to the end of its clause, so "estimated at 18,000 EUR and
//!   not yet final" still conveys the estimate.
//! - A `must_not` statement counts unless it is a question or negated the same
//!   way ("doesn't come with free parking" claims no free parking), and a
//!   `must_not` hit overrides a `must` hit in the same clause.
//! - An item without patterns cannot be graded offline: the verdict is
//!   unmeasured ([`JudgeError::Ungradable`]), never a pass or a fail.

use std::sync::LazyLock;

use regex::Regex;

use super::{ItemGrade, Judge, JudgeError, Verdict};
use crate::agent::model::Usage;
use crate::agent::RunResult;
use crate::eval::case::LoadedCase;
use crate::fold::fold;

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
    Regex::new(r"(?i)\b(not|no|never|none|neither|nor|without|cannot|nicht|nie|niemals|kein\w*|ohne|exclud\w*|ausgeschlossen)\b|n['’]t\b")
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

fn words(text: &str) -> Vec<String> {
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
        for m in CLAUSE_BREAK.find_iter(trimmed) {
            clauses.push((from, m.start()));
            from = m.end();
        }
        clauses.push((from, trimmed.len()));
        let text = clause_filtered(trimmed, &clauses);
        out.push(Sentence { question: trimmed.ends_with('?'), text, clauses });
    };
    for m in SENTENCE_END.find_iter(text) {
        push(&text[start..m.end()]);
        start = m.end();
    }
    push(&text[start..]);
    out
}

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

/// Whether the match `[a, b)` follows a negation in its clause. A match
/// that spans clauses is not negated (no one clause scopes it).
fn negated(sentence: &Sentence, a: usize, b: usize) -> bool {
    let Some(&(s, e)) = sentence.clauses.iter().find(|(s, e)| *s <= a && a < *e) else { return false };
    b <= e && NEGATION.find_iter(&sentence.text[s..a]).next().is_some()
}

/// Indices of the clauses that the byte range `[a, b)` touches.
fn clauses_of(sentence: &Sentence, a: usize, b: usize) -> std::ops::Range<usize> {
    let first = sentence.clauses.iter().position(|(_, e)| a < *e).unwrap_or(0);
    let last = sentence.clauses.iter().rposition(|(s, _)| *s < b.max(a + 1)).unwrap_or(first);
    first..last.max(first) + 1
}

/// Clause ranges where a (not negated) `must_not` pattern hits in a sentence.
fn forbidden_clauses(sentence: &Sentence, forbidden: &[&Regex]) -> Vec<std::ops::Range<usize>> {
    forbidden
        .iter()
        .flat_map(|f| f.find_iter(&sentence.text))
        .filter(|m| !negated(sentence, m.start(), m.end()))
        .map(|m| clauses_of(sentence, m.start(), m.end()))
        .collect()
}

/// Where a pattern counts as conveyed (`must`): the first match in a
/// sentence that is no question, not negated, and not in a clause where a
/// `must_not` pattern hits (the forbidden statement overrides it).
fn must_hit<'a>(pats: &'a [Regex], sents: &[Sentence], forbidden: &[&Regex]) -> Option<(&'a Regex, String)> {
    for s in sents.iter().filter(|s| !s.question) {
        let blocked = forbidden_clauses(s, forbidden);
        for p in pats {
            let ok = p.find_iter(&s.text).any(|m| {
                let here = clauses_of(s, m.start(), m.end());
                !negated(s, m.start(), m.end()) && !blocked.iter().any(|b| b.start < here.end && here.start < b.end)
            });
            if ok {
                return Some((p, s.text.trim().to_owned()));
            }
        }
    }
    None
}

/// Where a `must_not` pattern hits: the first match in a sentence that is no
/// question and not negated ("doesn't come with free parking" does not claim
/// free parking).
fn must_not_hit<'a>(pats: &'a [Regex], sents: &[Sentence]) -> Option<(&'a Regex, String)> {
    sents.iter().filter(|s| !s.question).find_map(|s| {
        pats.iter()
            .find(|p| p.find_iter(&s.text).any(|m| !negated(s, m.start(), m.end())))
            .map(|p| (p, s.text.trim().to_owned()))
    })
}

fn excerpt(s: &str) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 120 {
        flat.chars().take(119).collect::<String>() + "…"
    } else {
        flat
    }
}

/// The offline judge: grades a reply with the case's match patterns under the
/// rules of this module, and its language with [`super::reply_language`].
#[derive(Debug, Default, Clone)]
pub struct RuleJudge;

impl RuleJudge {
    /// Grades a reply against a case without running anything.
    ///
    /// # Errors
    /// [`JudgeError::Ungradable`] when an item has no match patterns.
    pub fn grade(&self, case: &LoadedCase, reply: &str) -> Result<Verdict, JudgeError> {
        let ungradable: Vec<String> = case
            .must_patterns
            .iter()
            .enumerate()
            .filter(|(_, p)| p.is_empty())
            .map(|(i, _)| format!("must {}", i + 1))
            .chain(
                case.must_not_patterns
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.is_empty())
                    .map(|(i, _)| format!("must_not {}", i + 1)),
            )
            .collect();
        if !ungradable.is_empty() {
            return Err(JudgeError::Ungradable(format!(
                "{} without match patterns: the rule judge cannot grade {} (use --judge llm)",
                ungradable.join(", "),
                if ungradable.len() == 1 { "it" } else { "them" }
            )));
        }
        let customer: Vec<&str> = std::iter::once(case.case.inquiry.as_str())
            .chain(case.case.history.iter().map(|t| t.inquiry.as_str()))
            .collect();
        let sents = sentences(&own_text(reply, &customer));
        let forbidden: Vec<&Regex> = case.must_not_patterns.iter().flatten().collect();
        let must = case
            .case
            .must
            .iter()
            .zip(&case.must_patterns)
            .enumerate()
            .map(|(i, (item, pats))| {
                let hit = must_hit(pats, &sents, &forbidden);
                ItemGrade {
                    item: i + 1,
                    text: item.text.clone(),
                    ok: hit.is_some(),
                    note: hit.map(|(p, s)| format!("matched `{}` in: {}", p.as_str(), excerpt(&s))),
                }
            })
            .collect();
        let must_not = case
            .case
            .must_not
            .iter()
            .zip(&case.must_not_patterns)
            .enumerate()
            .map(|(i, (item, pats))| {
                let hit = must_not_hit(pats, &sents);
                ItemGrade {
                    item: i + 1,
                    text: item.text.clone(),
                    ok: hit.is_none(),
                    note: hit.map(|(p, s)| format!("matched `{}` in: {}", p.as_str(), excerpt(&s))),
                }
            })
            .collect();
        let language = super::reply_language(reply);
        Ok(Verdict {
            judge: "rules".into(),
            must,
            must_not,
            unsupported_claims: vec![],
            language,
            language_ok: language == Some(case.case.lang),
            expected_language: Some(case.case.lang),
            usage: Usage::default(),
            cache: None,
        })
    }
}

#[async_trait::async_trait]
impl Judge for RuleJudge {
    fn id(&self) -> String {
        "rules".into()
    }

    async fn judge(&self, case: &LoadedCase, result: &RunResult) -> Result<Verdict, JudgeError> {
        self.grade(case, &result.reply)
    }
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
        let s = sentences("The levy is 3.57 percent. Rent is 1.650 €! Is that fine? Yes");
        let texts: Vec<&str> = s.iter().map(|x| x.text.trim()).collect();
        assert_eq!(texts, ["The levy is 3.57 percent.", "Rent is 1.650 €!", "Is that fine?", "Yes"]);
        assert_eq!(s.iter().map(|x| x.question).collect::<Vec<_>>(), [false, false, true, false]);
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
