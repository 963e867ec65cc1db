//! `--judge rules+llm`: the rule judge decides what it can; only a reply with
//! an undecided item or a sentence grounding flags goes to the LLM judge, and
//! only those items take the LLM's grade. A team pays for the judge only
//! where code cannot decide. Each grade says which route decided it.

use super::{Judge, JudgeError, LlmJudge, RuleJudge, Verdict};
use crate::agent::RunResult;
use crate::eval::case::LoadedCase;

/// The rule judge, falling back to an LLM judge for what it leaves undecided.
pub struct HybridJudge {
    rules: RuleJudge,
    llm: LlmJudge,
}

impl HybridJudge {
    /// The rule judge `rules` with `llm` for undecided items.
    pub fn new(rules: RuleJudge, llm: LlmJudge) -> Self {
        HybridJudge { rules, llm }
    }
}

#[async_trait::async_trait]
impl Judge for HybridJudge {
    fn id(&self) -> String {
        // `rules+llm:<model>`, or `rules+multilingual-e5-small+llm:<model>` with the embedding route.
        format!("{}+{}", self.rules.id(), self.llm.id())
    }

    async fn judge(&self, case: &LoadedCase, result: &RunResult) -> Result<Verdict, JudgeError> {
        let mut v = self.rules.judge(case, result).await?;
        let customer = case.customer_messages();
        let flagged =
            !crate::grounding::check(&result.reply, &result.evidence, &customer, result.handoffs.len()).is_clean();
        let undecided = v.must.iter().chain(&v.must_not).any(|g| g.undecided);
        v.judge = self.id();
        if !undecided && !flagged {
            return Ok(v);
        }
        let llm = self.llm.judge(case, result).await?;
        for (mine, theirs) in v.must.iter_mut().zip(&llm.must).chain(v.must_not.iter_mut().zip(&llm.must_not)) {
            if mine.undecided {
                *mine = theirs.clone();
            }
        }
        if flagged {
            v.unsupported_claims.extend(llm.unsupported_claims);
        }
        v.usage = llm.usage;
        v.cache = llm.cache;
        Ok(v)
    }
}
