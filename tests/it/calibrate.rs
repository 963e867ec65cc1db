//! `inquiry calibrate` on a hand-made golden set with known reranker scores,
//! and on the bundled golden set with the offline defaults.

use std::sync::Arc;

use inquiry::calibrate::{calibrate, Signal};
use inquiry::catalogue::{Catalogue, Listing};
use inquiry::golden::{Answerable, GoldenSet, Lang, Unanswerable};
use inquiry::retrieval::embed::HashingEmbedder;
use inquiry::retrieval::rerank::{RerankError, Reranker};
use inquiry::retrieval::thresholds::ThresholdsFile;
use inquiry::retrieval::{KeepRule, RetrievalSettings, Retriever};

use crate::support::{catalogue, inquiry, root, texts};

/// Scores a passage by the first keyword of the question it contains:
/// `(question keyword, passage keyword, score)`; anything else scores 0.001.
struct FixedReranker(Vec<(&'static str, &'static str, f32)>);

impl Reranker for FixedReranker {
    fn model_id(&self) -> &str {
        "fixed-test-reranker"
    }
    fn score(&self, question: &str, passages: &[&str]) -> Result<Vec<f32>, RerankError> {
        Ok(passages
            .iter()
            .map(|p| {
                self.0
                    .iter()
                    .find(|(q, k, _)| question.contains(q) && p.contains(k))
                    .map(|(_, _, s)| *s)
                    .unwrap_or(0.001)
            })
            .collect())
    }
}

fn tiny() -> Catalogue {
    let mut l: Listing = catalogue().listings[0].clone();
    l.id = "T-0001".into();
    l.title = "Test flat".into();
    l.description = "The rent is 900 EUR. Heating is included. The flat has a balcony. A cellar belongs to it.".into();
    Catalogue::from_parts(vec![l], vec![])
}

fn answerable(id: &str, q: &str, expected: &str) -> Answerable {
    Answerable {
        id: id.into(),
        lang: Lang::En,
        style: Default::default(),
        question: q.into(),
        listing: None,
        expected: vec![expected.into()],
        needs_real_embeddings: false,
    }
}

fn unanswerable(id: &str, q: &str) -> Unanswerable {
    Unanswerable { id: id.into(), lang: Lang::En, style: Default::default(), question: q.into(), listing: None }
}

fn retriever(cat: &Catalogue, scores: Vec<(&'static str, &'static str, f32)>) -> Retriever {
    Retriever::build(
        cat,
        RetrievalSettings {
            embedder: Arc::new(HashingEmbedder::default()),
            reranker: Some(Arc::new(FixedReranker(scores))),
            keep: KeepRule::Rerank { min_score: 0.5 },
            cache_dir: None,
        },
    )
    .unwrap()
}

fn golden() -> GoldenSet {
    GoldenSet {
        answerable: vec![
            answerable("rent", "What is the rent?", "T-0001#s1"),
            answerable("heating", "Is heating included?", "T-0001#s2"),
            answerable("balcony", "Is there a balcony?", "T-0001#s3"),
        ],
        unanswerable: vec![unanswerable("gym", "Is there a gym?"), unanswerable("school", "How good is the school?")],
    }
}

#[test]
fn margin_midpoint_and_sweep_with_known_scores() {
    let cat = tiny();
    let r = retriever(
        &cat,
        vec![
            ("rent", "rent is", 0.9),
            ("heating", "Heating", 0.013),
            ("balcony", "balcony", 0.6),
            ("gym", "cellar", 0.003),
            ("school", "balcony", 0.002),
        ],
    );
    let c = calibrate(&golden(), &r).unwrap();
    assert_eq!(c.model_id, "fixed-test-reranker");
    let rr = c.signals.iter().find(|s| s.signal == Signal::Rerank).unwrap();
    let margin = rr.margin.unwrap();
    assert!((margin - (0.013 - 0.003)).abs() < 1e-6, "{margin}");
    assert_eq!(rr.lowest_answerable.as_deref(), Some("heating"));
    assert_eq!(rr.highest_unanswerable.as_deref(), Some("gym"));
    let mid = rr.separating.unwrap();
    assert!((mid - 0.008).abs() < 1e-6, "{mid}");
    assert_eq!(c.proposal.rerank, Some(0.008));
    assert!(c.separates);
    assert_eq!((c.combined_recall_hits, c.combined_false_positives), (3, 0));
    // Sweep rows at observed scores: at 0.003 the gym question still returns a passage.
    let row = |t: f64| rr.sweep.iter().find(|r| (r.threshold - t).abs() < 1e-6).unwrap().clone();
    let at_gym = row(0.003);
    assert_eq!((at_gym.recall_at_5, at_gym.false_positives), (1.0, 1));
    let at_mid = row(0.008);
    assert_eq!((at_mid.recall_at_5, at_mid.false_positives, at_mid.precision), (1.0, 0, 1.0));
    let at_balcony = row(0.6);
    assert!((at_balcony.recall_at_5 - 2.0 / 3.0).abs() < 1e-9 && at_balcony.false_positives == 0);
    assert!(rr.answerable.iter().all(|a| a.ok_at_proposal == Some(true)));
    assert_eq!(rr.answerable.iter().find(|a| a.id == "heating").unwrap().rank, Some(1));
}

#[test]
fn no_separation_is_reported_with_its_costs() {
    let cat = tiny();
    // The gym question scores above the heating answer: no threshold separates.
    let r = retriever(
        &cat,
        vec![
            ("rent", "rent is", 0.9),
            ("heating", "Heating", 0.02),
            ("balcony", "balcony", 0.6),
            ("gym", "cellar", 0.05),
        ],
    );
    let c = calibrate(&golden(), &r).unwrap();
    let rr = c.signals.iter().find(|s| s.signal == Signal::Rerank).unwrap();
    assert!(rr.margin.unwrap() < 0.0);
    assert!(rr.separating.is_none());
    let keep = rr.keep_recall.as_ref().unwrap();
    assert_eq!((keep.recall_at_5, keep.false_positives), (1.0, 1));
    assert!(rr.best_f1.is_some());
    assert!(!c.separates);
}

#[test]
fn no_separation_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let golden = dir.path().join("golden.yaml");
    // An answerable paraphrase not marked as needing real embeddings: keyword
    // coverage cannot separate it from the unanswerable questions.
    std::fs::write(
        &golden,
        "answerable:\n  - id: lift\n    lang: en\n    question: \"Will my shopping bags be a struggle?\"\n    listing: HH-1002\n    expected: [\"HH-1002#s2\"]\n  - id: heating\n    lang: en\n    question: \"Is heating included for HH-1001?\"\n    listing: HH-1001\n    expected: [\"HH-1001#s5\"]\nunanswerable:\n  - id: gym\n    lang: en\n    question: \"Is there a gym nearby?\"\n",
    )
    .unwrap();
    let out = inquiry(&[
        "calibrate",
        "--golden",
        golden.to_str().unwrap(),
        "--out",
        dir.path().to_str().unwrap(),
        "--no-cache",
    ]);
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("does NOT separate"), "{stderr}");
}

#[test]
fn bundled_thresholds_equal_the_calibration_proposal() {
    let cat = catalogue();
    let golden = GoldenSet::load(&root().join("golden/golden.yaml"), &cat).unwrap();
    let r = Retriever::build(
        &cat,
        RetrievalSettings {
            embedder: Arc::new(HashingEmbedder::default()),
            reranker: None,
            keep: KeepRule::Fused { vector_z: f64::INFINITY, keyword_coverage: f64::INFINITY },
            cache_dir: None,
        },
    )
    .unwrap();
    let c = calibrate(&golden, &r).unwrap();
    let file = ThresholdsFile::load(&root().join("retrieval.thresholds.json")).unwrap();
    assert_eq!(file.entries.get(&c.model_id), Some(&c.proposal), "run `inquiry calibrate --write` and review the diff");
    assert!(c.separates);
    // Searching both thresholds together finds nothing better than the proposal.
    let joint = c.joint.as_ref().expect("fused mode runs the joint search");
    assert!(joint.pairs > 100, "{joint:?}");
    assert!(!joint.replaced_proposal);
    assert_eq!(joint.recall_hits, c.combined_recall_hits);
    // The cosine does not separate answerable from unanswerable; the calibrated keyword signal does.
    let margin = |s: Signal| c.signals.iter().find(|r| r.signal == s).unwrap().margin.unwrap();
    assert!(margin(Signal::Cosine) < 0.0, "cosine margin {}", margin(Signal::Cosine));
    assert!(margin(Signal::KeywordCoverage) > 0.0);
    assert_eq!(c.excluded.len(), golden.answerable.iter().filter(|a| a.needs_real_embeddings).count());
}

#[test]
fn calibrate_writes_reports_and_only_the_active_entry() {
    let dir = tempfile::tempdir().unwrap();
    let thresholds = dir.path().join("t.json");
    std::fs::write(
        &thresholds,
        r#"{"other-model": {"rerank": 0.5}, "hashing-512-v1": {"vectorZ": 1.0, "keywordCoverage": 0.9}}"#,
    )
    .unwrap();
    let out = inquiry(&[
        "calibrate",
        "--out",
        dir.path().to_str().unwrap(),
        "--retrieval-thresholds",
        thresholds.to_str().unwrap(),
        "--write",
        "--json",
        "--no-cache",
    ]);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["model_id"], "hashing-512-v1");
    assert!(stderr.contains("-    \"keywordCoverage\": 0.9"), "{stderr}");
    let written = ThresholdsFile::load(&thresholds).unwrap();
    assert_eq!(written.entries["other-model"].rerank, Some(0.5), "other entries untouched");
    assert_eq!(written.entries["hashing-512-v1"].keyword_coverage, report["proposal"]["keywordCoverage"].as_f64());
    let set = dir.path().join("calibration");
    for f in ["report.md", "report.json", "report.svg", ".inquiry-report"] {
        assert!(set.join(f).is_file(), "{f} in {}", set.display());
    }
}

#[test]
#[cfg_attr(not(e5_models), ignore = "models/multilingual-e5-small is absent: run scripts/fetch-models")]
fn e5_thresholds_equal_the_calibration_proposal_when_models_are_present() {
    let cat = catalogue();
    let golden = GoldenSet::load(&root().join("golden/golden.yaml"), &cat).unwrap();
    // The committed thresholds were calibrated on the int8 engine (the default
    // where the CPU has VNNI); on a CPU without it the engine's portable
    // kernel gives the same numbers, more slowly.
    use inquiry::retrieval::e5::{E5Embedder, E5Engine, E5_MODEL_ID};
    let model = E5Embedder::load_with(&root().join("models").join(E5_MODEL_ID), E5Engine::Int8).unwrap();
    let (embedder, reranker): (Arc<dyn inquiry::retrieval::embed::Embedder>, _) = (Arc::new(model), None);
    let keep = KeepRule::Fused { vector_z: f64::INFINITY, keyword_coverage: f64::INFINITY };
    let r = Retriever::build(&cat, RetrievalSettings { embedder, reranker, keep, cache_dir: None }).unwrap();
    let c = calibrate(&golden, &r).unwrap();
    let file = ThresholdsFile::load(&root().join("retrieval.thresholds.json")).unwrap();
    assert_eq!(file.entries.get("multilingual-e5-small"), Some(&c.proposal));
    // Honest figures: no separation on all 52 answerable questions; 0 false positives kept.
    assert!(!c.separates);
    assert_eq!(c.combined_false_positives, 0);
    // No (coverage, z) pair does better: the fused rule's ceiling on this set.
    let joint = c.joint.as_ref().expect("fused mode runs the joint search");
    assert_eq!(joint.recall_hits, c.combined_recall_hits, "{joint:?}");
    assert!(c.combined_recall_hits >= 46, "measured 46/52");
    let cosine = c.signals.iter().find(|s| s.signal == Signal::Cosine).unwrap();
    assert!(cosine.margin.unwrap() < 0.0, "cosine does not separate");
}

#[test]
fn write_refuses_incomplete_entries_and_shows_a_real_diff() {
    use inquiry::calibrate::write_proposal;
    use inquiry::retrieval::thresholds::ModelThresholds;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.json");
    let original = r#"{"a": {"vectorZ": 2.0, "keywordCoverage": 0.3}, "b": {"vectorZ": 5.0, "keywordCoverage": 0.3}}"#;
    std::fs::write(&path, original).unwrap();
    // No vectorZ: ask and eval would stop working, so nothing is written.
    let incomplete = ModelThresholds { keyword_coverage: Some(0.5), ..Default::default() };
    let e = write_proposal(&path, "b", incomplete, false).unwrap_err().to_string();
    assert!(e.contains("no vectorZ threshold") && e.contains("unchanged"), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
    // The diff shows the removed line even though entry `a` has the same text.
    let next = ModelThresholds { vector_z: Some(4.0), keyword_coverage: Some(0.4), rerank: None };
    let diff = write_proposal(&path, "b", next, false).unwrap();
    assert!(diff.contains("-    \"keywordCoverage\": 0.3") && diff.contains("+    \"keywordCoverage\": 0.4"), "{diff}");
    assert!(diff.contains("-    \"vectorZ\": 5.0") || diff.contains("-    \"vectorZ\": 5"), "{diff}");
    let written = inquiry::retrieval::thresholds::ThresholdsFile::load(&path).unwrap();
    assert_eq!(written.entries["a"].vector_z, Some(2.0), "other entries untouched");
}

/// Runs `inquiry -C home calibrate …` with the bundled data given by absolute path.
fn calibrate_in(home: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let data = root().join("data");
    let golden = root().join("golden/golden.yaml");
    let thresholds = root().join("retrieval.thresholds.json");
    let mut args = vec![
        "-C",
        home.to_str().unwrap(),
        "calibrate",
        "--no-cache",
        "--data",
        data.to_str().unwrap(),
        "--golden",
        golden.to_str().unwrap(),
        "--retrieval-thresholds",
        thresholds.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    inquiry(&args)
}

#[test]
fn a_second_run_the_same_day_keeps_the_first_report() {
    let home = tempfile::tempdir().unwrap();
    let first = calibrate_in(home.path(), &[]);
    assert_eq!(first.status.code(), Some(0), "{}", texts(&first).1);
    let second = calibrate_in(home.path(), &["--max-false-positive-rate", "0.25"]);
    assert_eq!(second.status.code(), Some(0), "{}", texts(&second).1);
    let runs = home.path().join("runs");
    let mut sets: Vec<String> = std::fs::read_dir(&runs)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("calibration"))
        .collect();
    sets.sort();
    assert_eq!(sets.len(), 2, "two sets, neither overwritten: {sets:?}");
    let reports: Vec<String> =
        sets.iter().map(|s| std::fs::read_to_string(runs.join(s).join("report.md")).unwrap()).collect();
    assert_eq!(reports.iter().filter(|r| r.contains("Threshold with a guarantee")).count(), 1, "one of each");
    // runs/latest points at the second.
    let latest = std::fs::read_to_string(runs.join("latest/report.md")).unwrap();
    assert!(latest.contains("Threshold with a guarantee: at most 25.0% false positives"), "{latest}");
    // An explicit --out keeps an existing set unless --replace is given.
    let out = home.path().join("reports");
    let a = calibrate_in(home.path(), &["--out", out.to_str().unwrap(), "--name", "cal"]);
    assert_eq!(a.status.code(), Some(0), "{}", texts(&a).1);
    let b = calibrate_in(home.path(), &["--out", out.to_str().unwrap(), "--name", "cal"]);
    let (_, err) = texts(&b);
    assert_eq!(b.status.code(), Some(2), "{err}");
    assert!(err.contains("exists and is kept") && err.contains("--replace"), "{err}");
    let c = calibrate_in(home.path(), &["--out", out.to_str().unwrap(), "--name", "cal", "--replace"]);
    assert_eq!(c.status.code(), Some(0), "{}", texts(&c).1);
}

#[test]
fn write_is_checked_before_any_work() {
    let home = tempfile::tempdir().unwrap();
    let missing = home.path().join("no-such-dir/t.json");
    let thresholds = root().join("retrieval.thresholds.json");
    let out = inquiry(&[
        "-C",
        home.path().to_str().unwrap(),
        "calibrate",
        "--no-cache",
        "--data",
        root().join("data").to_str().unwrap(),
        "--golden",
        "/nonexistent/golden.yaml",
        "--retrieval-thresholds",
        missing.to_str().unwrap(),
        "--write",
    ]);
    let (_, err) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    // The thresholds path is named, not the golden file that would be read later.
    assert!(err.contains("no-such-dir") && err.contains("does not exist"), "{err}");
    assert!(!home.path().join("runs").exists(), "nothing written");
    let _ = thresholds;
}

#[test]
fn bundled_figures_carry_exact_bounds_and_the_guarantee() {
    let home = tempfile::tempdir().unwrap();
    let out = calibrate_in(home.path(), &["--json", "--max-false-positive-rate", "0.05", "--confidence", "0.95"]);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let c: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    // 0 of 12 unanswerable: exact 95% interval [0, 26.46%].
    let fp = &c["false_positive_interval"];
    assert_eq!((fp["k"].as_u64(), fp["n"].as_u64()), (Some(0), Some(12)));
    assert!((fp["upper"].as_f64().unwrap() - 0.264648).abs() < 1e-5, "{fp}");
    // The fused proposal's two routes, each 0 of 12 at 97.5% (one-sided bound 26.46%), added.
    let carried = &c["carried"];
    assert!((carried["max_false_positive_rate"].as_f64().unwrap() - 2.0 * 0.26464847).abs() < 1e-5, "{carried}");
    assert_eq!((carried["exact"].as_bool(), carried["method"].as_str()), (Some(true), Some("two routes")));
    assert_eq!(c["unanswerable_needed_5_95"], 146);
    // 5% at 95% is not possible with 12 unanswerable questions; it says how many are needed.
    let g = &c["guaranteed"];
    assert!(g["allowance"].is_null() && g["thresholds"].is_null(), "{g}");
    assert_eq!(g["unanswerable_needed"], 59);
    assert!(stderr.contains("not possible with 12 unanswerable questions; needs at least 59"), "{stderr}");
    // Every signal has rank metrics with intervals and a bootstrap.
    for s in c["signals"].as_array().unwrap() {
        let r5 = &s["rank"]["recall_at_5"];
        assert!(r5["lower"].as_f64().unwrap() <= r5["rate"].as_f64().unwrap(), "{s}");
        assert!(s["rank"]["mrr"]["upper"].as_f64().unwrap() <= 1.0);
        assert!(s["stability"]["draws"].as_u64().unwrap() > 1000, "{}", s["signal"]);
    }
}

#[test]
fn a_looser_guarantee_picks_a_threshold_that_admits_no_more_than_allowed() {
    let cat = catalogue();
    let golden = GoldenSet::load(&root().join("golden/golden.yaml"), &cat).unwrap();
    let r = Retriever::build(
        &cat,
        RetrievalSettings {
            embedder: Arc::new(HashingEmbedder::default()),
            reranker: None,
            keep: KeepRule::Fused { vector_z: f64::INFINITY, keyword_coverage: f64::INFINITY },
            cache_dir: None,
        },
    )
    .unwrap();
    let opts = inquiry::calibrate::Options { guarantee: Some((0.25, 0.95)), ..Default::default() };
    let c = inquiry::calibrate::calibrate_with(&golden, &r, opts).unwrap();
    let g = c.guaranteed.as_ref().unwrap();
    // (0.75)^12 = 0.0317 <= 0.05, and P(Bin(12, 0.25) <= 1) = 0.158 > 0.05: k = 0.
    assert_eq!(g.allowance, Some(0));
    let fp = g.false_positives.unwrap();
    assert_eq!((fp.k, fp.n), (0, 12));
    let t = g.thresholds.unwrap();
    assert!(t.keyword_coverage.is_some() && t.vector_z.is_some());
    assert!(g.recall_at_5.unwrap().k > 0);
}

#[test]
fn the_guarantee_rule_with_a_reranker_on_known_scores() {
    let cat = tiny();
    let r = retriever(
        &cat,
        vec![
            ("rent", "rent is", 0.9),
            ("heating", "Heating", 0.013),
            ("balcony", "balcony", 0.6),
            ("gym", "cellar", 0.003),
            ("school", "balcony", 0.002),
        ],
    );
    let opts = inquiry::calibrate::Options { guarantee: Some((0.9, 0.9)), ..Default::default() };
    let c = inquiry::calibrate::calibrate_with(&golden(), &r, opts).unwrap();
    // n = 2 unanswerable: P(Bin(2, 0.9) <= 0) = 0.01 <= 0.1, P(<= 1) = 0.19 > 0.1: k = 0,
    // so the threshold sits just above the highest unanswerable score (0.003).
    let g = c.guaranteed.unwrap();
    assert_eq!(g.allowance, Some(0));
    assert_eq!(g.thresholds.unwrap().rerank, Some(0.0031));
    assert_eq!(g.recall_at_5.unwrap().k, 3);
    // The default proposal (0.008) lets none through: 1 - 0.05^(1/2) = 0.7764.
    let k = c.carried.unwrap();
    assert!((k.max_false_positive_rate - 0.776_393).abs() < 1e-5 && k.exact, "{k:?}");
}

fn compare_retrieval(base: &str, cand: &str, extra: &[&str]) -> std::process::Output {
    let data = root().join("data");
    let golden = root().join("golden/golden.yaml");
    let mut args = vec![
        "compare-retrieval",
        "--no-cache",
        "--data",
        data.to_str().unwrap(),
        "--golden",
        golden.to_str().unwrap(),
        "--base",
        base,
        "--cand",
        cand,
    ];
    args.extend_from_slice(extra);
    inquiry(&args)
}

#[test]
fn compare_retrieval_pairs_two_configurations_question_by_question() {
    let thresholds = root().join("retrieval.thresholds.json");
    let base = format!("embedder=hashing,thresholds={}", thresholds.display());
    // The same configuration twice: nothing changes, every difference is 0.
    let same = compare_retrieval(&base, &base, &[]);
    let (md, err) = texts(&same);
    assert_eq!(same.status.code(), Some(0), "{err}");
    assert!(md.contains("## Questions that changed (0)") && md.contains("None: every question"), "{md}");
    assert!(md.contains("| recall@5 | 52 |") && md.contains("| +0.0 | +0.0 to +0.0 | −"), "{md}");
    assert!(md.contains("| 1.000 | 0 / 0 |"), "{md}");
    // The Agresti–Min interval does not collapse to a point when nothing changed.
    let v: serde_json::Value = serde_json::from_str(&texts(&compare_retrieval(&base, &base, &["--json"])).0).unwrap();
    let r5 = &v["metrics"][1]["paired_interval"];
    assert!(r5["lo"].as_f64().unwrap() < 0.0 && r5["hi"].as_f64().unwrap() > 0.0, "{r5}");
    // A candidate that keeps everything (keyword coverage ≥ 0): every
    // unanswerable question now returns passages; answerable ones lose nothing.
    let dir = tempfile::tempdir().unwrap();
    let loose = dir.path().join("loose.json");
    std::fs::write(&loose, r#"{"hashing-512-v1": {"vectorZ": 99, "keywordCoverage": 0}}"#).unwrap();
    let out = compare_retrieval(&base, &format!("thresholds={}", loose.display()), &["--json"]);
    let (json, err) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!((v["answerable"].as_u64(), v["unanswerable"].as_u64()), (Some(52), Some(12)));
    let fp = v["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == "false_positive").unwrap();
    assert_eq!((fp["base"].as_f64(), fp["cand"].as_f64(), fp["higher"].as_u64()), (Some(0.0), Some(1.0), Some(12)));
    assert_eq!(fp["interval"]["lo"].as_f64(), Some(1.0), "every question moved the same way: {fp}");
    let r5 = v["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == "recall_at5").unwrap();
    assert_eq!(r5["lower"].as_u64(), Some(0), "keeping more never loses an expected chunk from the top 5: {r5}");
    let changed = v["changed"].as_array().unwrap();
    assert_eq!(changed.iter().filter(|q| q["answerable"] == false).count(), 12, "{json}");
    // A bad specification names the key.
    let bad = compare_retrieval(&base, "embeder=e5", &[]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(texts(&bad).1.contains("unknown key `embeder`"), "{}", texts(&bad).1);
}
