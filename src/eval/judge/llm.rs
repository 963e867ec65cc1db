//! The LLM judge: renders `judge_system.md` and `judge_user.md.j2` with
//! minijinja, asks a model through the provider layer, and validates the
//! verdict (every item graded exactly once).

use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;

use super::{ItemGrade, Judge, JudgeError, Verdict};
use crate::agent::model::{Message, ModelClient, ModelRequest, Usage};
use crate::agent::RunResult;
use crate::eval::case::LoadedCase;
use crate::golden::Lang;

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
        .map(|m| ItemGrade {
            item: m.item,
            text: case.case.must[m.item - 1].text.clone(),
            ok: m.met,
            note: m.note,
            route: Some("llm".into()),
            undecided: false,
        })
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
            route: Some("llm".into()),
            undecided: false,
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
        expected_language: Some(case.case.lang),
        usage,
        cache: None,
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
        let request =
            ModelRequest { system: &self.system, messages: &messages, tools: &[], max_output_tokens: 1024, sample: 0 };
        let response = self.model.complete(request).await.map_err(|e| JudgeError::Model(e.to_string()))?;
        let text = response.text.unwrap_or_default();
        let mut verdict = parse_verdict(&self.id(), &text, case, response.usage)?;
        verdict.cache = response.cache;
        Ok(verdict)
    }
}
