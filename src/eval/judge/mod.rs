//! Judges grade a reply against a case's `must` / `must_not` items and its
//! language (SPEC §7). The offline rule judge uses the case's match patterns
//! and a language detector; the LLM judge renders `rubrics/` templates and
//! parses a JSON verdict. A judge failure is "unmeasured": never a pass.

pub mod acts;
mod hybrid;
mod llm;
pub mod meaning;
mod paraphrase;
mod rules;
pub mod similarity;
mod table_row;

pub use crate::grounding::text::{own_text, sentences, Sentence};
pub use hybrid::HybridJudge;
pub use llm::{parse_verdict, LlmJudge};
pub use rules::RuleJudge;

use serde::{Deserialize, Serialize};

use super::case::LoadedCase;
use crate::agent::model::Usage;
use crate::agent::RunResult;
use crate::golden::Lang;

/// The grade of one rubric item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ItemGrade {
    /// 1-based item number within `must` or `must_not`.
    pub item: usize,
    /// The item's text.
    pub text: String,
    /// `must`: the fact is conveyed. `must_not`: the statement is NOT made.
    pub ok: bool,
    /// The judge's reason or the pattern that matched.
    pub note: Option<String>,
    /// What decided it: `pattern`, `meaning`, `embedding` (rule judge) or
    /// `llm`; absent for older verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
    /// The rule judge could not decide it (a match only in a sentence that
    /// grounding flags, or a partial one): not passed; `rules+llm` sends it
    /// to the LLM judge.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub undecided: bool,
}

impl ItemGrade {
    /// An ungraded item (not passed until decided).
    pub fn new(item: usize, text: &str) -> Self {
        ItemGrade { item, text: text.to_owned(), ok: false, note: None, route: None, undecided: false }
    }

    /// Decides the item: `ok` by `route`, with a note.
    pub fn decide(&mut self, ok: bool, route: &str, note: String) {
        self.ok = ok;
        self.route = Some(route.to_owned());
        self.note = Some(note);
        self.undecided = false;
    }

    /// Leaves the item undecided (not passed), with why.
    pub fn undecide(&mut self, note: String) {
        self.ok = false;
        self.route = None;
        self.note = Some(note);
        self.undecided = true;
    }
}

/// A judge's verdict on one reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Verdict {
    /// Which judge: `rules`, `rules+multilingual-e5-small` (with the
    /// embedding route), `rules+llm:<model>` or `llm:<model>`.
    pub judge: String,
    /// One grade per `must` item, in order.
    pub must: Vec<ItemGrade>,
    /// One grade per `must_not` item, in order.
    pub must_not: Vec<ItemGrade>,
    /// Claims the tool results do not support (LLM judge only).
    pub unsupported_claims: Vec<String>,
    /// Detected reply language, if known.
    pub language: Option<Lang>,
    /// Whether the reply is in the case's language.
    pub language_ok: bool,
    /// The language the case asks for.
    #[serde(default)]
    pub expected_language: Option<Lang>,
    /// Tokens the judge used (0 for the rule judge).
    pub usage: Usage,
    /// How the judge's model call used the response cache (LLM judge with a cache).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<crate::agent::model::CacheUse>,
}

impl Verdict {
    /// Whether every item and the language pass and no unsupported claim was found.
    pub fn passed(&self) -> bool {
        self.failure_lines().is_empty()
    }

    /// One line per failed item, for reports.
    pub fn failure_lines(&self) -> Vec<String> {
        let mut out = vec![];
        for g in self.must.iter().chain(&self.must_not).filter(|g| g.undecided) {
            let kind = if self.must.iter().any(|m| std::ptr::eq(m, g)) { "must" } else { "must_not" };
            let why = g.note.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
            out.push(format!("judge: {kind} {} undecided: {}{why}", g.item, g.text));
        }
        for g in self.must.iter().filter(|g| !g.ok && !g.undecided) {
            out.push(format!("judge: must {} not conveyed: {}", g.item, g.text));
        }
        for g in self.must_not.iter().filter(|g| !g.ok && !g.undecided) {
            let why = g.note.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
            out.push(format!("judge: must_not {} stated: {}{why}", g.item, g.text));
        }
        for c in &self.unsupported_claims {
            out.push(format!("judge: unsupported claim: {c}"));
        }
        if !self.language_ok {
            let got = self.language.map(|l| l.as_str()).unwrap_or("unknown");
            match self.expected_language {
                Some(want) => out.push(format!("judge: reply language is {got}, expected {}", want.as_str())),
                None => out.push(format!("judge: reply language is {got}")),
            }
        }
        out
    }
}

/// Why a judge could not grade.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JudgeError {
    /// The judge model failed.
    #[error("judge model failed: {0}")]
    Model(String),
    /// The verdict was not valid JSON or broke the rubric's shape.
    #[error("invalid verdict: {0}")]
    InvalidVerdict(String),
    /// The rubric template failed to render.
    #[error("rubric template: {0}")]
    Template(String),
    /// The judge cannot grade this case (e.g. the rule judge and an item
    /// without match patterns): the run is unmeasured, never passed or failed.
    #[error("ungradable: {0}")]
    Ungradable(String),
}

/// Grades replies.
#[async_trait::async_trait]
pub trait Judge: Send + Sync {
    /// Judge id for reports (`rules`, `llm:<model>`).
    fn id(&self) -> String;
    /// Grades one run of one case.
    ///
    /// # Errors
    /// [`JudgeError`]; the harness records the case as unmeasured.
    async fn judge(&self, case: &LoadedCase, result: &RunResult) -> Result<Verdict, JudgeError>;
}

/// Detects the language of a reply with `whatlang`, ignoring quoted catalogue
/// passages and bracketed citations (a German reply may quote English text).
/// `None` when the text is not reliably English or German.
pub fn reply_language(reply: &str) -> Option<Lang> {
    let own = crate::agent::guards::own_words(reply);
    let detector = whatlang::Detector::with_allowlist(vec![whatlang::Lang::Eng, whatlang::Lang::Deu]);
    match detector.detect_lang(&own) {
        Some(whatlang::Lang::Deu) => Some(Lang::De),
        Some(whatlang::Lang::Eng) => Some(Lang::En),
        _ => None,
    }
}
