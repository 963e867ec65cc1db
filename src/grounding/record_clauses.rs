//! The evidence read clause by clause: each clause of every passage with
//! its terms and polarity, once per check, for the contradiction and
//! condition checks of [`super::claims`].
//!
//! A passage sentence is read clause by clause and, where a comma may list
//! rather than start a clause, as a whole too. Clauses that state no fact
//! are marked conditional: those after an opening "if" and an indirect
//! question with the clauses joined to it ("Each listing says whether dogs
//! and cats are allowed").

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::{Evidence, Passage};
use super::polarity::{polarity, Polarity};
use super::terms::{terms, Term};
use super::wording::{clauses, HEDGE, META_CLAUSE, PARENS, VERB};
use crate::fold::plain;

/// An indirect question ("Each listing says whether dogs and cats are
/// allowed"): it and the clauses joined to it by "and"/"or" state no fact.
static WHETHER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(whether|ob)\b").expect("valid pattern"));

/// A clause that opens with a condition ("If heating is included, …").
static OPENING_IF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\W*(if|unless|once|wenn|falls|sofern|sobald)\b").expect("valid pattern"));

/// The first passage with a clause (folded text) that `holds`: the record
/// a finding cites ("Tenants pay no commission", "No separate utilities
/// statement is issued").
pub(super) fn passage_with_clause(evidence: &Evidence, holds: impl Fn(&str) -> bool) -> Option<&Passage> {
    evidence.passages.iter().find(|p| clauses(&plain(&p.text)).iter().any(|(_, c)| holds(c)))
}

/// One clause of the evidence, analysed once per check.
pub(super) struct EvClause {
    pub(super) source: String,
    pub(super) listing: Option<String>,
    /// The clause itself (the reason quotes it).
    pub(super) clause: String,
    pub(super) terms: Vec<Term>,
    pub(super) polarity: Polarity,
    pub(super) hedged: bool,
    /// A record field that lists values (features, city, …): no polarity to compare.
    pub(super) listish: bool,
}

pub(super) fn ev_clauses(evidence: &Evidence) -> Vec<EvClause> {
    let mut out = vec![];
    for p in &evidence.passages {
        for sentence in crate::chunk::split_sentences(&p.text) {
            let parts = clauses(&sentence);
            // A comma may list ("not charged any fee for viewings, documents
            // or the rental contract") rather than start a clause: the whole
            // sentence is a second reading, so a reply that agrees with it is
            // never called a contradiction of one of its list items.
            // (Only where the sentence says nothing of inclusion: "not
            // included and billed separately" mixes both kinds of word, and
            // its clauses read it better than the whole.)
            let listed = parts.len() > 1;
            // "If heating is included, the heating costs are billed …": the
            // clauses after an opening condition state no fact either.
            // ("Each listing says whether …" opens with an indirect question, not a condition.)
            let opens_with_condition = parts.first().is_some_and(|(_, c)| OPENING_IF.is_match(&plain(c)));
            let whole = (listed && polarity(&PARENS.replace_all(&sentence, " ")).included.is_none())
                .then_some((false, sentence.as_str()));
            // "…not approved for residential use, and living there is not
            // permitted": two clauses that each deny are one denial, not a
            // double negation that cancels.
            let denials = parts.iter().filter(|(_, c)| polarity(&PARENS.replace_all(c, " ")).negated).count();
            // Clauses are trimmed slices of `sentence`: their offsets give the words between them.
            let offset = |c: &str| (c.as_ptr() as usize).saturating_sub(sentence.as_ptr() as usize);
            let mut asked: Vec<bool> = Vec::with_capacity(parts.len());
            for (i, (_, c)) in parts.iter().enumerate() {
                let joined = i > 0 && {
                    let prev = parts[i - 1].1;
                    let between = sentence.get(offset(prev) + prev.len()..offset(c)).unwrap_or("");
                    matches!(between.trim().to_lowercase().as_str(), "and" | "or" | "und" | "oder")
                };
                asked.push(joined && (asked[i - 1] || WHETHER.is_match(&plain(parts[i - 1].1))));
            }
            for (i, (_, c)) in parts.into_iter().chain(whole).enumerate() {
                if META_CLAUSE.is_match(&plain(c)) {
                    continue;
                }
                let t = terms(c);
                // One word split off a list ("Dogs | and cats are possible on
                // request") states nothing; the whole sentence reads it.
                if t.is_empty() || (listed && t.len() < 2 && c != sentence.as_str()) {
                    continue;
                }
                // Nor does a noun phrase split off a list ("a back office"):
                // without a verb or a polarity word it asserts nothing to contradict.
                let mut pol = polarity(&PARENS.replace_all(c, " "));
                if c == sentence.as_str() && denials >= 2 {
                    pol.negated = true;
                }
                if listed
                    && !(pol.negated || pol.included.is_some() || pol.qualified || pol.permits)
                    && !VERB.is_match(&plain(c))
                {
                    continue;
                }
                let field = p.source.rsplit_once('.').map(|(_, f)| f).filter(|f| !f.contains(' '));
                out.push(EvClause {
                    source: p.source.clone(),
                    listing: p.listing.clone(),
                    clause: c.to_owned(),
                    terms: t,
                    polarity: Polarity {
                        conditional: pol.conditional || opens_with_condition || asked.get(i).copied().unwrap_or(false),
                        ..pol
                    },
                    hedged: HEDGE.is_match(&plain(c)),
                    listish: field.is_some_and(|f| f != "petsAllowed"),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(text: &str) -> Evidence {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"found": true, "results": [{"chunkId": "policy:x#y", "listingId": null, "text": text}]}));
        e
    }

    #[test]
    fn two_denials_in_one_sentence_stay_a_denial_read_whole() {
        let e = passage("The unit is not approved for residential use, and living there is not permitted.");
        let clauses = ev_clauses(&e);
        assert!(clauses.len() >= 2, "{}", clauses.len());
        assert!(
            clauses.iter().all(|c| c.polarity.negated),
            "{:?}",
            clauses.iter().map(|c| &c.clause).collect::<Vec<_>>()
        );
    }

    #[test]
    fn an_indirect_question_and_its_joined_clause_state_no_fact() {
        let e = passage("Each listing says whether dogs and cats are allowed: yes, no or on request.");
        let all = ev_clauses(&e);
        let cats: Vec<&EvClause> = all.iter().filter(|c| c.clause.contains("cats")).collect();
        assert!(!cats.is_empty());
        assert!(
            cats.iter().all(|c| c.polarity.conditional),
            "{:?}",
            cats.iter().map(|c| &c.clause).collect::<Vec<_>>()
        );
        let e = passage("The flat has a balcony and dogs are allowed.");
        assert!(ev_clauses(&e).iter().all(|c| !c.polarity.conditional));
    }
}
