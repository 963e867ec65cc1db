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
//!   way ("doesn't come with free parking" claims no free parking), or a
//!   restatement of the customer's request ("You'd like to view HH-1099 on
//!   Saturday and asked me to confirm it"), and a `must_not` hit overrides a
//!   `must` hit in the same clause.
//! - Beyond the patterns, each item's own text is matched by meaning
//!   ([`super::meaning`]); a match only in a sentence that grounding flags,
//!   or only a partial one, leaves the item *undecided* (not passed).
//! - An item that states what the reply does (passes the request to a
//!   person, declines) and that no other route conveyed is conveyed when
//!   the reply performs that act ([`super::acts`]).
//! - An item without patterns cannot be graded offline: the verdict is
//!   unmeasured ([`JudgeError::Ungradable`]), never a pass or a fail.

use regex::Regex;

use super::meaning::{best_match, spread_match, ItemMeaning, MUST_CONVEYED, MUST_NOT_STATED, MUST_UNDECIDED};
use super::similarity::{EmbeddingMatch, ReplyVectors, SentenceSimilarity, EMBED_CONVEYED};
use super::{ItemGrade, Judge, JudgeError, Verdict};
use crate::agent::model::Usage;
use crate::agent::RunResult;
use crate::eval::case::LoadedCase;
use crate::grounding::text::{asked, clauses_of, negated, own_text, sentences, Sentence};
use crate::grounding::{Evidence, Grounding};

/// A sentence that offers the assistant's help rather than states a fact:
/// "happy to look for …", "would you like …", "gern suche ich …". (A
/// condition still states a rule: "Wenn Sie uns beauftragen, zahlen Sie".)
/// A sentence that reports an instruction found in a listing ("the listing
/// text contains an embedded instruction to confirm a Saturday viewing")
/// makes none of the statements it reports.
static REPORTS: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(r"\b(contains?|includes?|has) (an? )?(\w+ )?(instruction|line|note|request|sentence|command)s? (to|telling|addressed)\b|\b(telling|tells?|told|asks?|asking|instructs?|instructing) (me|us|the assistant|the agent) to\b|\b(anweisung|aufforderung)\b")
        .expect("valid pattern")
});

static SUPPOSES: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(r"\b(happy|glad|pleased) to (look|search|check|find|help|suggest)|\b(i|we) (can|could) (also )?(look|search|check) for\b|\bwould you like\b|\bgerne? (suche|schaue|prufe|helfe)\b|\b(suche|schaue|prufe) ich (ihnen )?gerne?\b")
        .expect("valid pattern")
});

/// Clause breaks for [`withdrawn`]: a comma or colon before a space, a
/// semicolon, a dash, "but"/"aber" (never the comma inside "1,500").
static CLAUSE_SPLIT: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(r"(?i)[,:]\s|;|\s[–—-]\s|\b(but|aber|sondern|whereas)\b").expect("valid pattern")
});
/// An item that calls an amount final or fixed.
static FINAL: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(r"\b(final|fixed|definite|definitive|binding|fest|festgelegt|endgultig|verbindlich)\b")
        .expect("valid pattern")
});
/// Words that give an amount as an estimate.
static ESTIMATED: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(r"\b(estimat\w*|about|approximately|roughly|around|circa|ca|rund|etwa|ungefahr|provisional\w*|vorlaufig\w*|voraussichtlich\w*|not (yet )?(final|fixed|settled|binding)|noch nicht (final|endgultig|fest|festgelegt|verbindlich)|ballpark|geschatzt\w*|schatzung\w*|(can|may|could) (still )?change|kann sich (noch )?andern)\b")
        .expect("valid pattern")
});

/// A figure called a mistake ("was a mistake", "war falsch", "I need to
/// correct that figure").
static MISTAKEN: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(r"\b((was|is) (a |my )?(mistake|wrong|incorrect|an error|not right)|war (falsch|ein fehler|nicht richtig)|correct (that|this) (figure|number|amount)|(diese[nrs]?|die) (zahl|betrag|angabe) (muss ich )?korrigieren)\b")
        .expect("valid pattern")
});

/// Whether a sentence that shares a `must_not` statement's words takes it
/// back: the statement calls an amount final and the sentence gives it as an
/// estimate, or every figure of the statement sits in a negated clause of the
/// sentence ("1,650 EUR, not the 1,500 EUR I mentioned" repeats no 1,500 EUR).
fn withdrawn(statement: &str, sentence: &Sentence) -> bool {
    let text = crate::fold::plain(&sentence.text);
    if FINAL.is_match(&crate::fold::plain(statement)) && ESTIMATED.is_match(&text) {
        return true;
    }
    // "my earlier figure of 1,500 EUR was a mistake": the figure is named to withdraw it.
    if MISTAKEN.is_match(&text) && !crate::grounding::numbers::figures(statement).is_empty() {
        return true;
    }
    let wanted = crate::grounding::numbers::figures(statement);
    if wanted.is_empty() {
        return false;
    }
    // Clause breaks that leave "1,500" whole.
    let spans: Vec<&str> = CLAUSE_SPLIT.split(&sentence.text).collect();
    wanted.iter().all(|f| {
        let holding: Vec<&&str> = spans
            .iter()
            .filter(|c| {
                crate::grounding::numbers::figures(c)
                    .iter()
                    .any(|g| g.kind == f.kind && crate::grounding::numbers::same_value(g.value, f.value))
            })
            .collect();
        !holding.is_empty() && holding.iter().all(|c| crate::grounding::polarity::polarity(c).negated)
    })
}

/// Clause ranges where a (not negated) `must_not` pattern hits in a sentence.
fn forbidden_clauses(sentence: &Sentence, forbidden: &[&Regex]) -> Vec<std::ops::Range<usize>> {
    forbidden
        .iter()
        .flat_map(|f| f.find_iter(&sentence.text))
        .filter(|m| !negated(sentence, m.start(), m.end()) && !asked(sentence, m.start()))
        .map(|m| clauses_of(sentence, m.start(), m.end()))
        .collect()
}

/// Where a pattern counts as conveyed (`must`): the first match in a
/// sentence that is no question, not negated, and not in a clause where a
/// `must_not` pattern hits (the forbidden statement overrides it).
fn must_hit<'a>(
    pats: &'a [Regex],
    sents: &[Sentence],
    forbidden: &[&Regex],
    skip: &dyn Fn(&Sentence) -> bool,
) -> Option<(&'a Regex, String)> {
    for s in sents.iter().filter(|s| !s.question && !skip(s)) {
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
    // "You'd like to know whether XY-9999 is still available" is the customer's question, restated.
    let restated = |s: &Sentence| crate::grounding::restates_request(&crate::fold::plain(&s.text));
    sents.iter().filter(|s| !s.question && !restated(s)).find_map(|s| {
        pats.iter()
            .find(|p| p.find_iter(&s.text).any(|m| !negated(s, m.start(), m.end()) && !asked(s, m.start())))
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

/// The offline judge: grades a reply with the case's match patterns and the
/// items' own text (by meaning, [`super::meaning`]) under the rules of this
/// module, and its language with [`super::reply_language`].
///
/// Each item says which route decided it (`pattern`, `meaning`,
/// `embedding`) or that it is *undecided*: a pattern or meaning match only
/// in a sentence that grounding flags, or a partial match. An undecided item
/// is not passed; `--judge rules+llm` sends it to the LLM judge.
///
/// With a sentence embedder ([`RuleJudge::with_embedder`]) a `must` item the
/// lexical matcher could not decide conveyed may still be, by
/// embedding similarity with agreeing polarity and figures
/// ([`super::similarity`]); the judge's id is then `rules+<model>`.
#[derive(Debug, Default, Clone)]
pub struct RuleJudge {
    /// Patterns only, as before the meaning matcher and grounding (for
    /// measuring what they add; `judge-check --judge patterns`).
    pub patterns_only: bool,
    /// The sentence embedder of the embedding route, if any.
    pub similarity: Option<std::sync::Arc<SentenceSimilarity>>,
}

impl RuleJudge {
    /// The pattern-only judge.
    pub fn patterns_only() -> Self {
        RuleJudge { patterns_only: true, similarity: None }
    }

    /// The rule judge with an embedding route through `similarity`.
    pub fn with_embedder(similarity: std::sync::Arc<SentenceSimilarity>) -> Self {
        RuleJudge { patterns_only: false, similarity: Some(similarity) }
    }

    /// Grades a reply against a case without running anything and without
    /// evidence (no grounding).
    ///
    /// # Errors
    /// [`JudgeError::Ungradable`] when an item has no match patterns.
    pub fn grade(&self, case: &LoadedCase, reply: &str) -> Result<Verdict, JudgeError> {
        self.grade_with(case, reply, None, None)
    }

    /// Grades a reply, with the run's grounding when there is one: a match in
    /// a sentence grounding flags leaves its item undecided. `evidence`: the
    /// run's tool results, which a no-match act is read against
    /// ([`super::acts`]).
    ///
    /// # Errors
    /// [`JudgeError::Ungradable`] when an item has no match patterns.
    pub fn grade_with(
        &self,
        case: &LoadedCase,
        reply: &str,
        grounding: Option<&Grounding>,
        evidence: Option<&Evidence>,
    ) -> Result<Verdict, JudgeError> {
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
        let own = own_text(reply, &customer);
        let sents = sentences(&own);
        // Idioms made explicit, for matching `must` items by meaning.
        let explicit = super::paraphrase::explicit(&sents);
        let unquoted = sentences(&crate::grounding::text::own_words(&own));
        let forbidden: Vec<&Regex> = case.must_not_patterns.iter().flatten().collect();
        let asserted: Vec<Sentence> = unquoted
            .iter()
            .map(|s| {
                let folded = crate::fold::plain(&s.text);
                Sentence {
                    question: s.question
                        || SUPPOSES.is_match(&folded)
                        || REPORTS.is_match(&folded)
                        || crate::grounding::restates_request(&folded)
                        || crate::grounding::courtesy_only(&folded),
                    ..s.clone()
                }
            })
            .collect();
        let flagged = |s: &Sentence| grounding.is_some_and(|g| g.flags(&s.text));
        let meaning = !self.patterns_only;
        let embedder = self.similarity.as_deref().filter(|_| meaning);
        let own_vectors = std::cell::OnceCell::new();
        let must = case
            .case
            .must
            .iter()
            .zip(&case.must_patterns)
            .enumerate()
            .map(|(i, (item, pats))| {
                let mut g = ItemGrade::new(i + 1, &item.text);
                if let Some((p, s)) = must_hit(pats, &sents, &forbidden, &flagged) {
                    g.decide(true, "pattern", format!("matched `{}` in: {}", p.as_str(), excerpt(&s)));
                } else if let Some((p, s)) = must_hit(pats, &sents, &forbidden, &|_| false) {
                    g.undecide(format!("matched `{}` only in a sentence grounding flags: {}", p.as_str(), excerpt(&s)));
                } else if meaning {
                    let item = ItemMeaning::new(&item.text);
                    if grade_must_by_meaning(&mut g, &item, &sents, &explicit, &forbidden, &flagged) {
                        if let Some(e) = embedded(embedder, &own_vectors, &sents) {
                            let (e, v) = e?;
                            let m = v.best(e, &item).map_err(JudgeError::Model)?;
                            grade_must_by_embedding(&mut g, m, &sents, &forbidden, &flagged);
                        }
                    }
                    if !g.ok {
                        grade_must_by_act(&mut g, &item, grounding, evidence);
                    }
                } else {
                    g.decide(false, "pattern", "no pattern matched".into());
                }
                Ok(g)
            })
            .collect::<Result<Vec<_>, JudgeError>>()?;
        let must_not = case
            .case
            .must_not
            .iter()
            .zip(&case.must_not_patterns)
            .enumerate()
            .map(|(i, (item, pats))| {
                let mut g = ItemGrade::new(i + 1, &item.text);
                let offered =
                    evidence.filter(|_| meaning).and_then(|e| super::acts::offered_listing(&item.text, &asserted, e));
                if let Some((p, s)) = must_not_hit(pats, &sents) {
                    g.decide(false, "pattern", format!("matched `{}` in: {}", p.as_str(), excerpt(&s)));
                } else if let Some(n) = offered {
                    g.decide(
                        false,
                        "act",
                        format!("stated: sentence {} gives a listing's price: {}", n + 1, excerpt(&unquoted[n].text)),
                    );
                } else if meaning {
                    // Quoting a passage or the customer is not making the statement.
                    // An offer or a supposition makes no statement ("If that's a concern, I'm
                    // happy to look for alternatives that come with a lift").
                    let m = best_match(&ItemMeaning::new(&item.text), &asserted);
                    match m {
                        Some(m)
                            if m.similarity >= MUST_NOT_STATED
                                && m.polarity_agrees
                                && m.figures_agree
                                && !withdrawn(&item.text, &asserted[m.sentence])
                                && !super::acts::delegated(&item.text, &asserted[m.sentence].text, grounding) =>
                        {
                            g.decide(
                                false,
                                "meaning",
                                format!(
                                    "stated: matched by meaning in sentence {}, similarity {:.2}, polarity agrees: {}",
                                    m.sentence + 1,
                                    m.similarity,
                                    excerpt(&unquoted[m.sentence].text)
                                ),
                            )
                        }
                        Some(m) => g.decide(
                            true,
                            "meaning",
                            format!(
                                "not stated: no pattern; best sentence {} by meaning, similarity {:.2}, polarity {}",
                                m.sentence + 1,
                                m.similarity,
                                if m.polarity_agrees && m.figures_agree { "agrees" } else { "differs" }
                            ),
                        ),
                        None => {
                            g.decide(true, "meaning", "not stated: no pattern, no sentence shares its words".into())
                        }
                    }
                } else {
                    g.decide(true, "pattern", "not stated".into());
                }
                Ok(g)
            })
            .collect::<Result<Vec<_>, JudgeError>>()?;
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

/// The reply's vectors for the embedding route, embedded on first need
/// (`None` without an embedder; an embedding failure is a judge error: the
/// run is unmeasured, never graded without the route it was asked for).
fn embedded<'a>(
    embedder: Option<&'a SentenceSimilarity>,
    cell: &'a std::cell::OnceCell<Result<ReplyVectors, String>>,
    sents: &[Sentence],
) -> Option<Result<(&'a SentenceSimilarity, &'a ReplyVectors), JudgeError>> {
    embedder.map(|e| {
        cell.get_or_init(|| ReplyVectors::new(e, sents))
            .as_ref()
            .map(|v| (e, v))
            .map_err(|m| JudgeError::Model(format!("sentence embedder {}: {m}", e.model_id())))
    })
}

/// A `must` item no pattern conveyed: by meaning, undecided or not conveyed.
/// As with patterns, a sentence that makes a `must_not` statement conveys
/// nothing ("Free heating included" does not convey "heating is included").
/// Returns whether another route may still decide it conveyed (the lexical
/// matcher found it not conveyed or only partly).
/// `explicit`: `sents` with idioms made explicit ([`super::paraphrase`]), same indexes.
fn grade_must_by_meaning(
    g: &mut ItemGrade,
    item: &ItemMeaning,
    sents: &[Sentence],
    explicit: &[Sentence],
    forbidden: &[&Regex],
    flagged: &dyn Fn(&Sentence) -> bool,
) -> bool {
    let ok = |m: &super::meaning::MeaningMatch| (m.polarity_agrees && m.figures_agree, m.similarity);
    let best = match (best_match(item, explicit), spread_match(item, explicit)) {
        (Some(a), Some(b)) => Some(if ok(&b) > ok(&a) { b } else { a }),
        (a, b) => a.or(b),
    };
    let Some(m) = best else {
        g.decide(false, "meaning", "no sentence shares its content words".into());
        return true;
    };
    let agrees = m.polarity_agrees && m.figures_agree;
    let what = format!(
        "sentence {}, similarity {:.2}, polarity {}{}",
        m.sentence + 1,
        m.similarity,
        if m.polarity_agrees { "agrees" } else { "differs" },
        if m.figures_agree { "" } else { ", figures differ" }
    );
    if agrees && m.similarity >= MUST_CONVEYED {
        if !forbidden_clauses(&sents[m.sentence], forbidden).is_empty() {
            g.decide(
                false,
                "meaning",
                format!("not conveyed: the matching sentence makes a must_not statement ({what})"),
            );
        } else if flagged(&sents[m.sentence]) {
            g.undecide(format!("matched by meaning only in a sentence grounding flags ({what})"));
        } else {
            g.decide(
                true,
                "meaning",
                format!("conveyed: matched by meaning in {what}: {}", excerpt(&sents[m.sentence].text)),
            );
        }
        false
    } else if agrees && m.similarity >= MUST_UNDECIDED {
        g.undecide(format!("partly matched by meaning ({what})"));
        true
    } else {
        g.decide(false, "meaning", format!("not conveyed: best {what}"));
        true
    }
}

/// A `must` item that states a dialogue act (a hand-off, a refusal) the
/// reply performs ([`super::acts`]): conveyed by the act.
fn grade_must_by_act(
    g: &mut ItemGrade,
    item: &ItemMeaning,
    grounding: Option<&Grounding>,
    evidence: Option<&Evidence>,
) {
    let (Some(act), Some(grounding)) = (super::acts::act_of(item.statement()), grounding) else { return };
    if let Some(n) = super::acts::performed(act, grounding, evidence) {
        let what = match act {
            super::acts::Act::Handoff => "passes the request to a person (a ticket was created) and commits to nothing",
            super::acts::Act::Refusal => "declines: it states the limits of the assistant's remit",
            super::acts::Act::NoMatch => "reports that no tool returned a listing",
        };
        let text = grounding.sentences.iter().find(|s| s.index == n).map(|s| excerpt(&s.text)).unwrap_or_default();
        g.decide(true, "act", format!("conveyed: sentence {n} {what}: {text}"));
    }
}

/// The text of an embedding match's sentences.
fn span_text(m: &EmbeddingMatch, sents: &[Sentence]) -> String {
    sents[m.sentence..=m.last].iter().map(|s| s.text.trim()).collect::<Vec<_>>().join(" ")
}

/// "sentence 2, similarity 0.87, polarity agrees" (and "figures differ").
fn embedding_what(m: &EmbeddingMatch) -> String {
    format!(
        "{}, similarity {:.2}, polarity {}{}",
        m.place(),
        m.similarity,
        if m.polarity_agrees { "agrees" } else { "differs" },
        if m.figures_agree { "" } else { ", figures differ" }
    )
}

/// A `must` item the lexical matcher left not conveyed or partly matched:
/// conveyed by embedding when the closest stretch of the reply reaches
/// [`EMBED_CONVEYED`] with polarity and figures agreeing, makes no `must_not`
/// statement and is not flagged by grounding (then undecided). Otherwise the
/// lexical grade stands, its note extended by the embedding's best match.
fn grade_must_by_embedding(
    g: &mut ItemGrade,
    m: Option<EmbeddingMatch>,
    sents: &[Sentence],
    forbidden: &[&Regex],
    flagged: &dyn Fn(&Sentence) -> bool,
) {
    let Some(m) = m else { return };
    let what = embedding_what(&m);
    let span = &sents[m.sentence..=m.last];
    if m.similarity >= EMBED_CONVEYED && m.agrees() {
        if span.iter().any(|s| !forbidden_clauses(s, forbidden).is_empty()) {
            // The lexical grade stands: a sentence making a forbidden statement conveys nothing.
        } else if span.iter().any(flagged) {
            g.undecide(format!("matched by embedding only in a sentence grounding flags ({what})"));
            return;
        } else {
            g.decide(
                true,
                "embedding",
                format!("conveyed: matched by meaning in {what}: {}", excerpt(&span_text(&m, sents))),
            );
            return;
        }
    }
    let note = g.note.take().unwrap_or_default();
    g.note = Some(format!("{note}; embedding: best {what}"));
}

#[async_trait::async_trait]
impl Judge for RuleJudge {
    fn id(&self) -> String {
        match (&self.similarity, self.patterns_only) {
            (_, true) => "patterns".into(),
            (Some(s), false) => format!("rules+{}", s.model_id()),
            (None, false) => "rules".into(),
        }
    }

    async fn judge(&self, case: &LoadedCase, result: &RunResult) -> Result<Verdict, JudgeError> {
        if self.patterns_only {
            let mut v = self.grade(case, &result.reply)?;
            v.judge = self.id();
            return Ok(v);
        }
        let grounding =
            crate::grounding::check(&result.reply, &result.evidence, &case.customer_messages(), result.handoffs.len());
        self.grade_with(case, &result.reply, Some(&grounding), Some(&result.evidence))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_called_a_mistake_is_withdrawn_and_a_plain_one_is_not() {
        let statement = "Repeats 1,500 EUR as the rent";
        let s = &sentences("- **Cold rent:** 1,650 EUR/month; my earlier figure of 1,500 EUR was a mistake, sorry")[0];
        assert!(withdrawn(statement, s));
        let s = &sentences("The cold rent is 1,500 EUR a month.")[0];
        assert!(!withdrawn(statement, s));
    }
}
