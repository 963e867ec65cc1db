//! `inquiry judge-check`: grade the hand-labelled replies with a judge and
//! report its agreement with the human verdicts (no agent runs).

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;

use super::{decided, runtime};
use crate::app::{model_client_with, Knowledge};
use crate::eval::case::LoadedCase;
use crate::eval::judge_check::{judge_check, render_markdown, render_terminal};
use crate::eval::labels::load_labels;
use crate::eval::report_set;
use crate::retrieval::RetrievalConfig;

/// Arguments of `inquiry judge-check`.
#[derive(Debug, clap::Args)]
pub struct JudgeCheckArgs {
    /// Judge: `rules` (offline, default: patterns, meaning and grounding),
    /// `patterns` (the case patterns alone, as before #27/#34) or `llm` (needs --judge-model).
    #[arg(long, default_value = "rules", value_parser = ["rules", "patterns", "llm"])]
    pub judge: String,
    /// Model of the LLM judge: `anthropic:<id>`, `bedrock:<id>` or `openai:<id>` (a Bedrock judge's region: AWS_REGION).
    #[arg(long, value_name = "MODEL")]
    pub judge_model: Option<String>,
    /// Base URL of the judge model's provider.
    #[arg(long, value_name = "URL")]
    pub judge_base_url: Option<String>,
    /// Judge rubric templates.
    #[arg(long, default_value = "rubrics", value_name = "DIR")]
    pub rubrics: PathBuf,
    /// Sentence embedder of the rule judge's embedding route, off by default
    /// (a generic item reached cosine 0.88 with an unrelated negated sentence,
    /// see labels/README.md): `none`, `auto`
    /// (multilingual-e5-small when --models holds it, else none), `e5`
    /// (required) or `none` (lexical meaning only). The report's judge id
    /// says which was used (`rules+multilingual-e5-small` or `rules`).
    #[arg(long, default_value = "none", value_parser = ["auto", "e5", "none"])]
    pub judge_embedder: String,
    /// Directory holding model folders (see scripts/fetch-models).
    #[arg(long, default_value = "models", value_name = "DIR")]
    pub models: PathBuf,
    /// Directory of labelled replies (one *.yaml file per split).
    #[arg(long, default_value = "labels", value_name = "DIR")]
    pub labels: PathBuf,
    /// Case directory (or file) the labels answer.
    #[arg(long = "cases", default_value = "cases", value_name = "DIR")]
    pub cases_dir: PathBuf,
    /// Cases only the labels answer (siblings of suite cases that `eval` never runs), loaded beside
    /// --cases; a case id may not be in both. Default: `<labels>/cases` when that directory exists.
    #[arg(long = "label-cases", value_name = "DIR")]
    pub label_cases: Option<PathBuf>,
    /// Catalogue directory (tool calls without a stored result run against it).
    #[arg(long, default_value = "data", env = "INQUIRY_DATA")]
    pub data: PathBuf,
    /// Directory of overlay catalogues used by cases.
    #[arg(long, default_value = "fixtures", value_name = "DIR")]
    pub fixtures: PathBuf,
    /// Bounds for `judge_kappa` and `judge_false_pass_rate` (other metrics are ignored here).
    #[arg(long, default_value = "thresholds.json", value_name = "FILE")]
    pub thresholds: PathBuf,
    /// Report name: the set <out>/<name>/ (report.md, report.json).
    #[arg(long, default_value = "judge-check")]
    pub name: String,
    /// Output directory (default: runs/<UTC time>-<name>/).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the JSON report on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Grades every label and writes the report; exit 1 when a bound is missed.
///
/// # Errors
/// Malformed labels, cases or thresholds (exit 2), naming the file, line and field.
pub fn run(args: JudgeCheckArgs) -> anyhow::Result<ExitCode> {
    let dest = report_set::destination(args.out.as_deref(), &args.name, chrono::Utc::now())?;
    let thresholds = crate::eval::metrics::Thresholds::load(&args.thresholds)?;
    let judge: Arc<dyn crate::eval::judge::Judge> = match args.judge.as_str() {
        "rules" => match crate::eval::judge::similarity::judge_embedder(&args.judge_embedder, &args.models)
            .map_err(|e| anyhow::anyhow!("--judge-embedder: {e}"))?
        {
            Some(s) => Arc::new(crate::eval::judge::RuleJudge::with_embedder(s)),
            None => Arc::new(crate::eval::judge::RuleJudge::default()),
        },
        "patterns" => Arc::new(crate::eval::judge::RuleJudge::patterns_only()),
        _ => {
            let spec = args
                .judge_model
                .as_deref()
                .context("--judge llm needs --judge-model anthropic:<id>, bedrock:<id> or openai:<id>")?;
            let model = model_client_with(spec, args.judge_base_url.as_deref())?;
            Arc::new(crate::eval::judge::LlmJudge::load(model, &args.rubrics)?)
        }
    };
    if args.judge == "rules" {
        let with = if judge.id() == "rules" { "without a sentence embedder" } else { "with its embedding route" };
        eprintln!("judge `{}`: the rule judge {with} (--judge-embedder {})", judge.id(), args.judge_embedder);
    }
    // Retrieval is only needed for a search_knowledge call without a stored result.
    let retrieval = RetrievalConfig { cache_dir: None, ..RetrievalConfig::default() };
    let main = Knowledge::load(&args.data, None, &retrieval)?;
    let known =
        crate::eval::Known::new(main.catalogue.listings.iter().map(|l| l.id.clone()).collect(), &args.fixtures)?;
    let mut cases: HashMap<String, LoadedCase> =
        crate::eval::case::load_cases(&args.cases_dir, &known)?.into_iter().map(|c| (c.case.id.clone(), c)).collect();
    let label_cases = args.label_cases.clone().or_else(|| Some(args.labels.join("cases")).filter(|d| d.is_dir()));
    if let Some(dir) = label_cases {
        for c in crate::eval::case::load_cases(&dir, &known)? {
            if cases.contains_key(&c.case.id) {
                anyhow::bail!(
                    "{}: case `{}` is also in {}; a label-only case needs an id of its own",
                    dir.display(),
                    c.case.id,
                    args.cases_dir.display()
                );
            }
            cases.insert(c.case.id.clone(), c);
        }
    }
    let labels = load_labels(&args.labels, &|id| cases.get(id).map(|c| (c.case.must.len(), c.case.must_not.len())))?;
    let mut overlays: HashMap<String, Knowledge> = HashMap::new();
    for c in cases.values() {
        if let Some(o) = &c.case.fixtures {
            if !overlays.contains_key(o) && labels.iter().any(|l| l.label.case == c.case.id) {
                overlays.insert(o.clone(), Knowledge::load(&args.data, Some(&args.fixtures.join(o)), &retrieval)?);
            }
        }
    }
    let toolbox_for = |c: &LoadedCase| match c.case.fixtures.as_ref().and_then(|o| overlays.get(o)) {
        Some(k) => k.toolbox(),
        None => main.toolbox(),
    };
    let report = runtime()?.block_on(judge_check(&labels, &cases, &toolbox_for, judge.as_ref(), &thresholds));
    let mut staging = report_set::Staging::begin(&dest, "judge-check")?;
    let json = serde_json::to_string_pretty(&report)? + "\n";
    staging.write("report.json", json.as_bytes())?;
    staging.write("report.md", render_markdown(&report).as_bytes())?;
    let dir = staging.commit()?;
    eprint!("{}", render_terminal(&report));
    eprintln!("report: {}", dir.join("report.md").display());
    let graded = report.labels.iter().filter(|l| l.verdict.is_some()).count();
    if graded == 0 {
        // Nothing was learnt about the judge: an infrastructure error, not a bad judge.
        decided(2);
        let first = report.labels.iter().find_map(|l| l.unmeasured.clone()).unwrap_or_default();
        anyhow::bail!("the judge `{}` graded none of the {} labels; first: {first}", report.judge, report.labels.len());
    }
    let code = if report.passed() { 0 } else { 1 };
    decided(code);
    if args.json {
        std::io::stdout().lock().write_all(json.as_bytes())?;
    }
    Ok(ExitCode::from(code))
}
