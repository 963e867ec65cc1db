//! Judges grade a reply against a case's `must` / `must_not` items and its
//! language (SPEC §7). The offline rule judge uses the case's match patterns
//! and a language detector; the LLM judge renders `rubrics/` templates and
//! parses a JSON verdict. A judge failure is "unmeasured": never a pass.

use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::case::LoadedCase;
use crate::agent::model::{Message, ModelClient, ModelRequest, Usage};
use crate::agent::RunResult;
use crate::golden::Lang;

/// The grade of one rubric item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemGrade {
    /// 1-based item number within `must` or `must_not`.
    pub item: usize,
    /// The item's text.
    pub text: String,
    /// `must`: the fact is conveyed. `must_not`: the statement is NOT made.
    pub ok: bool,
    /// The judge's reason or the pattern that matched.
    pub note: Option<String>,
}

/// A judge's verdict on one reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Which judge: `rules` or `llm:<model>`.
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
    /// Tokens the judge used (0 for the rule judge).
    pub usage: Usage,
}

impl Verdict {
    /// Whether every item and the language pass and no unsupported claim was found.
    pub fn passed(&self) -> bool {
        self.failure_lines().is_empty()
    }

    /// One line per failed item, for reports.
    pub fn failure_lines(&self) -> Vec<String> {
        let mut out = vec![];
        for g in self.must.iter().filter(|g| !g.ok) {
            out.push(format!("judge: must {} not conveyed: {}", g.item, g.text));
        }
        for g in self.must_not.iter().filter(|g| !g.ok) {
            let why = g.note.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
            out.push(format!("judge: must_not {} stated: {}{why}", g.item, g.text));
        }
        for c in &self.unsupported_claims {
            out.push(format!("judge: unsupported claim: {c}"));
        }
        if !self.language_ok {
            let got = self.language.map(|l| l.as_str()).unwrap_or("unknown");
            out.push(format!("judge: reply language is {got}"));
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

/// The offline judge: a `must` item is conveyed when any of its patterns
/// matches the reply; a `must_not` item is stated when any of its patterns
/// matches; the language comes from [`reply_language`]. Items without
/// patterns cannot be graded offline and fail the verdict (write patterns).
#[derive(Debug, Default, Clone)]
pub struct RuleJudge;

#[async_trait::async_trait]
impl Judge for RuleJudge {
    fn id(&self) -> String {
        "rules".into()
    }

    async fn judge(&self, case: &LoadedCase, result: &RunResult) -> Result<Verdict, JudgeError> {
        let reply = &result.reply;
        let grade =
            |items: &[super::case::Expectation], patterns: &[Vec<regex::Regex>], must: bool| -> Vec<ItemGrade> {
                items
                    .iter()
                    .zip(patterns)
                    .enumerate()
                    .map(|(i, (item, pats))| {
                        let hit = pats.iter().find(|p| p.is_match(reply));
                        let note = match (hit, pats.is_empty()) {
                            (_, true) => Some("no match patterns: cannot be graded offline".to_owned()),
                            (Some(p), _) => Some(format!("matched `{}`", p.as_str())),
                            (None, _) => None,
                        };
                        let ok = if pats.is_empty() {
                            false
                        } else if must {
                            hit.is_some()
                        } else {
                            hit.is_none()
                        };
                        ItemGrade { item: i + 1, text: item.text.clone(), ok, note }
                    })
                    .collect()
            };
        let language = reply_language(reply);
        Ok(Verdict {
            judge: self.id(),
            must: grade(&case.case.must, &case.must_patterns, true),
            must_not: grade(&case.case.must_not, &case.must_not_patterns, false),
            unsupported_claims: vec![],
            language,
            language_ok: language == Some(case.case.lang),
            usage: Usage::default(),
        })
    }
}

/// The LLM judge: renders `judge_system.md` and `judge_user.md.j2` from a
/// rubric directory with minijinja, asks a model, and validates the verdict.
pub struct LlmJudge {
    model: Arc<dyn ModelClient>,
    system: String,
    user_template: String,
}

impl LlmJudge {
    /// Loads the rubric templates from `dir`.
    ///
    /// # Errors
    /// A missing template file, or one that does not parse.
    pub fn load(model: Arc<dyn ModelClient>, dir: &Path) -> anyhow::Result<Self> {
        use anyhow::Context as _;
        let system = std::fs::read_to_string(dir.join("judge_system.md"))
            .with_context(|| format!("{}: cannot read judge_system.md", dir.display()))?;
        let user_template = std::fs::read_to_string(dir.join("judge_user.md.j2"))
            .with_context(|| format!("{}: cannot read judge_user.md.j2", dir.display()))?;
        let mut env = minijinja::Environment::new();
        env.add_template("judge_user", &user_template)
            .with_context(|| format!("{}: judge_user.md.j2 does not parse", dir.display()))?;
        Ok(Self { model, system, user_template })
    }

    /// Renders the user prompt for one run.
    ///
    /// # Errors
    /// A template error.
    pub fn render(&self, case: &LoadedCase, result: &RunResult) -> Result<String, JudgeError> {
        let mut env = minijinja::Environment::new();
        env.add_template("judge_user", &self.user_template).map_err(|e| JudgeError::Template(e.to_string()))?;
        let calls: Vec<serde_json::Value> = result
            .trace
            .iter()
            .filter(|t| !t.is_error)
            .map(|t| serde_json::json!({"tool": t.tool, "arguments": t.arguments.to_string(), "result": t.result.to_string()}))
            .collect();
        let ctx = minijinja::context! {
            case => minijinja::Value::from(minijinja::value::Serde(&case.case)),
            reply => &result.reply,
            tool_calls => minijinja::Value::from(minijinja::value::Serde(&calls)),
        };
        env.get_template("judge_user").and_then(|t| t.render(ctx)).map_err(|e| JudgeError::Template(e.to_string()))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVerdict {
    must: Vec<RawMust>,
    must_not: Vec<RawMustNot>,
    #[serde(default)]
    unsupported_claims: Vec<String>,
    language: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawMust {
    item: usize,
    met: bool,
    #[serde(default)]
    note: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawMustNot {
    item: usize,
    violated: bool,
    #[serde(default)]
    note: Option<String>,
}

/// Parses and validates an LLM verdict: JSON (optionally inside a code fence
/// or surrounding prose), every `must` and `must_not` item graded exactly once.
///
/// # Errors
/// [`JudgeError::InvalidVerdict`] naming the skipped or duplicated item.
pub fn parse_verdict(judge: &str, text: &str, case: &LoadedCase, usage: Usage) -> Result<Verdict, JudgeError> {
    let start = text.find('{').ok_or_else(|| JudgeError::InvalidVerdict("no JSON object in the answer".into()))?;
    let end = text.rfind('}').ok_or_else(|| JudgeError::InvalidVerdict("no JSON object in the answer".into()))?;
    let raw: RawVerdict = serde_json::from_str(text.get(start..=end).unwrap_or_default())
        .map_err(|e| JudgeError::InvalidVerdict(format!("not the verdict JSON shape: {e}")))?;
    let check = |kind: &str, graded: Vec<usize>, n: usize| -> Result<(), JudgeError> {
        for item in 1..=n {
            match graded.iter().filter(|g| **g == item).count() {
                0 => return Err(JudgeError::InvalidVerdict(format!("{kind} item {item} was not graded"))),
                1 => {}
                k => return Err(JudgeError::InvalidVerdict(format!("{kind} item {item} was graded {k} times"))),
            }
        }
        if let Some(extra) = graded.iter().find(|g| **g == 0 || **g > n) {
            return Err(JudgeError::InvalidVerdict(format!("{kind} item {extra} does not exist (the case has {n})")));
        }
        Ok(())
    };
    check("must", raw.must.iter().map(|m| m.item).collect(), case.case.must.len())?;
    check("must_not", raw.must_not.iter().map(|m| m.item).collect(), case.case.must_not.len())?;
    let language = match raw.language.as_deref() {
        Some("en") => Some(Lang::En),
        Some("de") => Some(Lang::De),
        _ => None,
    };
    let mut must: Vec<ItemGrade> = raw
        .must
        .into_iter()
        .map(|m| ItemGrade { item: m.item, text: case.case.must[m.item - 1].text.clone(), ok: m.met, note: m.note })
        .collect();
    must.sort_by_key(|g| g.item);
    let mut must_not: Vec<ItemGrade> = raw
        .must_not
        .into_iter()
        .map(|m| ItemGrade {
            item: m.item,
            text: case.case.must_not[m.item - 1].text.clone(),
            ok: !m.violated,
            note: m.note,
        })
        .collect();
    must_not.sort_by_key(|g| g.item);
    Ok(Verdict {
        judge: judge.to_owned(),
        must,
        must_not,
        unsupported_claims: raw.unsupported_claims,
        language,
        language_ok: language == Some(case.case.lang),
        usage,
    })
}

#[async_trait::async_trait]
impl Judge for LlmJudge {
    fn id(&self) -> String {
        format!("llm:{}", self.model.id())
    }

    async fn judge(&self, case: &LoadedCase, result: &RunResult) -> Result<Verdict, JudgeError> {
        let prompt = self.render(case, result)?;
        let messages = [Message::User { text: prompt }];
        let request = ModelRequest { system: &self.system, messages: &messages, tools: &[], max_output_tokens: 1024 };
        let response = self.model.complete(request).await.map_err(|e| JudgeError::Model(e.to_string()))?;
        let text = response.text.unwrap_or_default();
        parse_verdict(&self.id(), &text, case, response.usage)
    }
}
