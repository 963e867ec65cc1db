//! Grounding: whether a reply says only what its evidence says.
//!
//! One module tree used by the agent's guards and by the eval's code checks
//! and rule judge, so both read a reply and its evidence alike:
//! - [`numbers`]: figures (EUR, %, m²) with their period, in German and English formats;
//! - [`arithmetic`]: totals, remainders and multiples a reply works out from grounded figures;
//! - [`counts`]: floors and room counts, compared with a listing's fields;
//! - [`durations`]: durations and counts of monthly rents ("four weeks", "drei Monatskaltmieten");
//! - [`evidence`]: what the tools returned as passages and typed figures (never scores, ids or keys);
//! - [`text`]: a reply's own words, sentences, clauses, negation scope and citations;
//! - [`terms`]: content terms comparable across German and English;
//! - [`polarity`]: negation, inclusion and conditions of a clause;
//! - [`memo`]: [`check`], each distinct check computed once per process and reused;
//! - `claims`: the sentence-by-sentence check ([`check_uncached`]), with `wording` (clause splitting and the
//!   word lists of roles, commitments, hedges, places, times and statuses) and `figure_checks`
//!   (figures, durations, years, floors and room counts of a claim), and `clause_relations` (a reply
//!   clause against a record clause beyond shared words: rent kinds, parties, shared denials, conditions).
//!
//! This module imports nothing of `agent` or `eval`.

mod acts;
pub mod arithmetic;
mod availability;
mod binding;
mod claims;
mod clause_relations;
mod commission;
mod comparisons;
mod contrast;
mod corrections;
mod counted;
pub mod counts;
mod covers;
mod definitions;
mod deposit_base;
mod documents;
pub mod durations;
pub mod evidence;
mod figure_checks;
mod inclusions;
mod lexicon;
mod listing_facts;
pub mod memo;
pub mod numbers;
mod offers;
mod payers;
mod pets;
pub mod polarity;
mod quotes;
mod recipients;
mod record_clauses;
mod renovations;
mod requirements;
mod rights;
mod roles;
mod scope_offers;
mod settlement;
mod small_animals;
mod spelled;
mod step_dates;
mod sublet;
pub mod tables;
pub mod terms;
pub mod text;
mod triggers;
mod unknown_ids;
mod uses;
mod utility_amounts;
mod wording;

use serde::{Deserialize, Serialize};

pub use claims::check as check_uncached;
pub use evidence::{Evidence, EvidenceFigure, Passage};
pub use memo::check;
pub use roles::{courtesy_only, restates_request};
pub use wording::{label_stands_alone, reports_empty_result};

/// What kind of fault a sentence has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// Its figure or content is in no evidence it could come from.
    Unsupported,
    /// It says the opposite of the evidence (polarity, figure or period).
    Contradicted,
    /// It turns a stated fact into a guess, or adds a guess of its own.
    Hedged,
    /// It books, confirms or promises what only a person can.
    Commitment,
}

impl FindingKind {
    /// Every kind, in report order.
    pub const ALL: [FindingKind; 4] = [Self::Unsupported, Self::Contradicted, Self::Hedged, Self::Commitment];

    /// The wire name (`unsupported`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unsupported => "unsupported",
            Self::Contradicted => "contradicted",
            Self::Hedged => "hedged",
            Self::Commitment => "commitment",
        }
    }
}

/// What a sentence is, for grounding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SentenceRole {
    /// A statement about a listing, a policy or the process: checked.
    Claim,
    /// A question back to the customer.
    Question,
    /// A greeting, thanks, an offer of help, or a heading that only structures the reply.
    Courtesy,
    /// A statement that the request was passed to a person.
    Handoff,
    /// What the assistant says about itself ("outside my scope").
    Assistant,
    /// A passage of the evidence, quoted word for word.
    Quote,
}

/// One finding about one sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Finding {
    /// 1-based sentence number within the reply's own words.
    pub sentence: usize,
    /// The sentence.
    pub text: String,
    /// What is wrong.
    pub kind: FindingKind,
    /// Why, in words (the figure, the passage it contradicts, the hedge).
    pub reason: String,
    /// The evidence passage involved, when there is one (`HH-1001#s5`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sentence {} {}: {} (“{}”)", self.sentence, self.kind.as_str(), self.reason, self.text)
    }
}

/// The grounding of one sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SentenceCheck {
    /// 1-based sentence number.
    pub index: usize,
    /// The sentence.
    pub text: String,
    /// What it is.
    pub role: SentenceRole,
    /// The passage that shares most of its content words, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub support: Option<String>,
    /// What is wrong with it (empty: grounded or not a claim).
    pub findings: Vec<Finding>,
}

/// The grounding of a whole reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Grounding {
    /// Every sentence of the reply's own words, in order.
    pub sentences: Vec<SentenceCheck>,
}

impl Grounding {
    /// Every finding, in sentence order.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.sentences.iter().flat_map(|s| &s.findings)
    }

    /// Whether nothing was found.
    pub fn is_clean(&self) -> bool {
        self.findings().next().is_none()
    }

    /// Sentences that make claims or hand-off statements, and any other
    /// sentence with a finding (what the `grounded_sentence_rate` counts).
    pub fn checked(&self) -> usize {
        self.sentences
            .iter()
            .filter(|s| matches!(s.role, SentenceRole::Claim | SentenceRole::Handoff) || !s.findings.is_empty())
            .count()
    }

    /// Checked sentences without a finding.
    pub fn grounded(&self) -> usize {
        self.sentences
            .iter()
            .filter(|s| matches!(s.role, SentenceRole::Claim | SentenceRole::Handoff) && s.findings.is_empty())
            .count()
    }

    /// Whether the sentence with this text (trimmed) has a finding.
    pub fn flags(&self, sentence: &str) -> bool {
        let t = sentence.trim();
        self.sentences.iter().any(|s| s.text == t && !s.findings.is_empty())
    }

    /// Whether `sentence` passes the request to a person and grounding finds
    /// nothing in it (no commitment, no claim without support).
    pub fn clean_handoff(&self, sentence: &str) -> bool {
        let t = sentence.trim();
        self.sentences.iter().any(|s| s.text == t && s.role == SentenceRole::Handoff && s.findings.is_empty())
    }

    /// Findings of one kind.
    pub fn count(&self, kind: FindingKind) -> usize {
        self.findings().filter(|f| f.kind == kind).count()
    }
}
