//! `inquiry calibrate` (SPEC §8): measure how retrieval scores separate
//! answerable from unanswerable golden questions and propose thresholds.
//!
//! For the active configuration every golden question's scoped candidates are
//! scored once ([`Retriever::candidates`]). For each signal (reranker score,
//! or vector z-score and keyword coverage without a reranker, plus the cosine itself
//! for comparison) the report gives each answerable question's best expected
//! chunk score and rank, each unanswerable question's highest score, the
//! margin, a sweep of thresholds, a proposal and its leave-one-out stability.
//!
//! The population: all answerable questions for a real embedder; for the
//! offline hashing embedder the questions marked `needs_real_embeddings` are
//! left out (a hashing embedder cannot be expected to find paraphrases) and
//! listed separately. The golden set is small and also used during
//! development; the report says so.

mod analyse;
pub mod bounds;
pub mod chart;
pub mod compare;
mod figures;
mod fused;
pub mod guarantee;
pub mod html;
pub mod rank;
pub mod report;
mod report_guarantee;
pub mod stability;
mod write;

pub use figures::StyleFigures;
use figures::{annotate, keeps, next_steps, per_style};
use fused::{fused_proposal, joint_search, round4};

pub use write::write_proposal;

pub use analyse::{analyse_signal, score_golden, Scored};
use analyse::{outcome, question_score};

use serde::{Deserialize, Serialize};

use crate::golden::GoldenSet;
use crate::retrieval::thresholds::ModelThresholds;
use crate::retrieval::{Candidate, RetrievalError, Retriever};

/// A score signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Signal {
    /// Reranker score (0..1).
    Rerank,
    /// z-score of the topic cosine (question without place words) among the scoped chunks.
    VectorZ,
    /// IDF-weighted keyword coverage (0..1).
    KeywordCoverage,
    /// Topic cosine similarity (comparison only; never a threshold).
    Cosine,
}

impl Signal {
    fn of(self, c: &Candidate) -> Option<f64> {
        match self {
            Signal::Rerank => c.rerank,
            Signal::VectorZ => Some(c.cosine_z),
            Signal::KeywordCoverage => Some(c.coverage),
            Signal::Cosine => Some(c.cosine),
        }
    }

    /// Name used in reports and the thresholds file.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Rerank => "rerank",
            Signal::VectorZ => "vectorZ",
            Signal::KeywordCoverage => "keywordCoverage",
            Signal::Cosine => "cosine",
        }
    }
}

/// A question's score on one signal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionScore {
    /// Question id.
    pub id: String,
    /// The question.
    pub question: String,
    /// Answerable: best expected chunk's score (`None`: no expected chunk among
    /// the candidates). Unanswerable: highest score of any candidate.
    pub score: Option<f64>,
    /// Answerable: that chunk's 1-based rank by this signal among the candidates.
    pub rank: Option<usize>,
    /// The chunk meant.
    pub chunk: Option<String>,
    /// Whether it clears (answerable) / is rejected by (unanswerable) the proposed threshold.
    pub ok_at_proposal: Option<bool>,
}

/// One row of the threshold sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    /// Threshold.
    pub threshold: f64,
    /// Answerable questions with an expected chunk kept and in the top 5 (ratio).
    pub recall_at_5: f64,
    /// Unanswerable questions that would return passages.
    pub false_positives: usize,
    /// Questions answered with an expected chunk / questions returning anything.
    pub precision: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
}

/// Separation of one signal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignalReport {
    /// The signal.
    pub signal: Signal,
    /// Per answerable question.
    pub answerable: Vec<QuestionScore>,
    /// Per unanswerable question.
    pub unanswerable: Vec<QuestionScore>,
    /// Lowest answerable score minus highest unanswerable score (negative: no
    /// threshold separates them); `None` when either side is empty or unscored.
    pub margin: Option<f64>,
    /// The answerable question with the lowest score.
    pub lowest_answerable: Option<String>,
    /// The unanswerable question with the highest score.
    pub highest_unanswerable: Option<String>,
    /// Sweep over candidate thresholds, ascending.
    pub sweep: Vec<SweepRow>,
    /// Midpoint of the separating interval, when one exists.
    pub separating: Option<f64>,
    /// Without separation: the threshold keeping recall 1 with fewest false positives.
    pub keep_recall: Option<SweepRow>,
    /// Without separation: the best-F1 threshold.
    pub best_f1: Option<SweepRow>,
    /// Leave-one-out: how many questions' verdicts the proposal would change when left out.
    pub loo_changed: usize,
    /// Questions in the leave-one-out.
    pub loo_total: usize,
    /// The threshold the per-question `ok_at_proposal` verdicts refer to: this
    /// signal's own proposal, else the value the fused entry writes for it
    /// (`None`: neither, e.g. raw cosine).
    #[serde(default)]
    pub applied: Option<f64>,
    /// At `applied`: answerable questions whose score clears it, with the
    /// exact (Clopper–Pearson) 95% interval.
    #[serde(default)]
    pub clears_interval: Option<bounds::Interval>,
    /// At `applied`: unanswerable questions whose score reaches it, with the
    /// exact 95% interval.
    #[serde(default)]
    pub false_positive_interval: Option<bounds::Interval>,
    /// Rank metrics of the signal on the answerable questions, with intervals.
    #[serde(default)]
    pub rank: Option<rank::RankMetrics>,
    /// Bootstrap distribution of the signal's own proposal.
    #[serde(default)]
    pub stability: Option<stability::Stability>,
}

impl SignalReport {
    /// The proposed threshold: the separating midpoint, else the recall-1 threshold.
    pub fn proposal(&self) -> Option<f64> {
        self.separating.or(self.keep_recall.as_ref().map(|r| r.threshold))
    }

    /// Sets `applied` and every question's verdict at threshold `t`.
    fn apply(&mut self, t: f64) {
        self.applied = Some(t);
        for s in &mut self.answerable {
            s.ok_at_proposal = Some(s.score.is_some_and(|v| v >= t));
        }
        for s in &mut self.unanswerable {
            s.ok_at_proposal = Some(s.score.is_none_or(|v| v < t));
        }
    }
}

/// Whole calibration result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Model id the thresholds are for (reranker id, else embedder id).
    pub model_id: String,
    /// Embedder id.
    pub embedder: String,
    /// Reranker id, if any.
    pub reranker: Option<String>,
    /// Answerable questions in the population.
    pub answerable: usize,
    /// Unanswerable questions.
    pub unanswerable: usize,
    /// Answerable questions left out (needing real embeddings), by id.
    pub excluded: Vec<String>,
    /// Per-signal reports, thresholded signals first, cosine last.
    pub signals: Vec<SignalReport>,
    /// The proposed thresholds entry for the model id.
    pub proposal: ModelThresholds,
    /// Whether the proposed rule keeps recall 1 with 0 false positives.
    pub separates: bool,
    /// Under the proposed (combined) rule: answerable questions answered in the top 5.
    pub combined_recall_hits: usize,
    /// Under the proposed rule: unanswerable questions returning passages.
    pub combined_false_positives: usize,
    /// Without a reranker: the best pair a joint search over both thresholds
    /// finds (`None` with a reranker).
    #[serde(default)]
    pub joint: Option<JointSearch>,
    /// Under the proposed rule: answerable questions answered in the top 5,
    /// with the exact (Clopper–Pearson) 95% interval.
    #[serde(default)]
    pub recall_interval: Option<bounds::Interval>,
    /// Under the proposed rule: unanswerable questions returning passages,
    /// with the exact 95% interval.
    #[serde(default)]
    pub false_positive_interval: Option<bounds::Interval>,
    /// The guarantee the proposal carries at 95% confidence ([`guarantee`]).
    #[serde(default)]
    pub carried: Option<guarantee::Carried>,
    /// Unanswerable questions a rule of the proposal's form needs for "at
    /// most 5% false positives at 95% confidence" when none of them gets a
    /// passage (59 for one threshold, 146 for the fused rule's two routes).
    #[serde(default)]
    pub unanswerable_needed_5_95: Option<u64>,
    /// The threshold chosen by `--max-false-positive-rate` / `--confidence`.
    #[serde(default)]
    pub guaranteed: Option<guarantee::Guaranteed>,
    /// What to try when the proposal does not separate.
    #[serde(default)]
    pub next_steps: Vec<String>,
    /// The proposal's figures per question style (questions, keyword queries).
    #[serde(default)]
    pub per_style: Vec<StyleFigures>,
    /// The thresholds file's entry for the model id when calibrate started.
    #[serde(default)]
    pub in_force: Option<ModelThresholds>,
    /// The figures per question style at `in_force` (what `ask` and `eval` do today).
    #[serde(default)]
    pub per_style_in_force: Vec<StyleFigures>,
}

/// What `calibrate` is asked beyond the default proposal.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Options {
    /// `(α, 1 − δ)`: choose a threshold with "false-positive rate ≤ α with
    /// probability ≥ 1 − δ" by the conformal rule.
    pub guarantee: Option<(f64, f64)>,
    /// The thresholds entry in force, to report the figures per style at it.
    pub in_force: Option<ModelThresholds>,
}

/// Result of searching keyword-coverage and vector-z thresholds together.
///
/// The proposal sets the two thresholds one after the other (coverage first,
/// then z above every unanswerable z-score). This search tries every pair of
/// candidate values (each signal's per-question scores and the midpoints
/// between neighbours) and keeps the pair with the most answerable questions
/// in the top 5 at 0 false positives, so the report can say whether any pair
/// does better than the proposal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JointSearch {
    /// Pairs tried.
    pub pairs: usize,
    /// Best pair's keyword-coverage threshold.
    pub keyword_coverage: f64,
    /// Best pair's vector z threshold.
    pub vector_z: f64,
    /// Answerable questions in the top 5 at that pair.
    pub recall_hits: usize,
    /// Whether the pair replaced the one-after-the-other proposal (it found
    /// more questions, or the proposal had false positives).
    pub replaced_proposal: bool,
}

/// Calibrates the active configuration of `retriever` on `golden`.
///
/// # Errors
/// A retrieval failure.
pub fn calibrate(golden: &GoldenSet, retriever: &Retriever) -> Result<Calibration, RetrievalError> {
    calibrate_with(golden, retriever, Options::default())
}

/// [`calibrate`] with [`Options`]: the guaranteed threshold when asked for.
///
/// # Errors
/// A retrieval failure.
pub fn calibrate_with(
    golden: &GoldenSet,
    retriever: &Retriever,
    options: Options,
) -> Result<Calibration, RetrievalError> {
    let real_embedder = !retriever.embedder_id().starts_with("hashing");
    let (scored, excluded) = score_golden(golden, retriever, real_embedder)?;
    let qs: Vec<&Scored> = scored.iter().collect();
    let reranker = retriever.reranker_id().map(str::to_owned);
    let (signals, proposal): (Vec<Signal>, ModelThresholds) = if reranker.is_some() {
        let rr = analyse_signal(&qs, Signal::Rerank);
        let p = ModelThresholds { rerank: rr.proposal().map(round4), ..Default::default() };
        (vec![Signal::Rerank, Signal::KeywordCoverage, Signal::VectorZ, Signal::Cosine], p)
    } else {
        (vec![Signal::KeywordCoverage, Signal::VectorZ, Signal::Cosine], fused_proposal(&qs))
    };
    let mut reports: Vec<SignalReport> = signals.iter().map(|s| analyse_signal(&qs, *s)).collect();
    let mut proposal = if reranker.is_some() {
        ModelThresholds { rerank: reports[0].proposal().map(round4), ..proposal }
    } else {
        proposal
    };
    let order = if reranker.is_some() { Signal::Rerank } else { Signal::KeywordCoverage };
    let has_reranker = reranker.is_some();
    let judge = |p: &ModelThresholds| -> (usize, usize) {
        let (mut hits, mut fps) = (0, 0);
        for q in &qs {
            let (hit, any) = outcome(q, &|c: &Candidate| keeps(p, has_reranker, c), order);
            hits += usize::from(hit);
            fps += usize::from(any && !q.answerable);
        }
        (hits, fps)
    };
    let (mut hits, mut fps) = judge(&proposal);
    let mut joint = if reranker.is_none() { joint_search(&qs) } else { None };
    if let Some(j) = joint.as_mut() {
        let pair = ModelThresholds {
            keyword_coverage: Some(round4(j.keyword_coverage)),
            vector_z: Some(round4(j.vector_z)),
            rerank: None,
        };
        let (pair_hits, pair_fps) = judge(&pair);
        if pair_fps == 0 && (fps > 0 || pair_hits > hits) {
            // The joint search beats the one-after-the-other proposal: write it.
            (proposal, hits, fps) = (pair, pair_hits, pair_fps);
            j.replaced_proposal = true;
        } else if fps == 0 {
            // Report the proposal itself when it is as good as the best pair.
            if let (Some(cv), Some(z)) = (proposal.keyword_coverage, proposal.vector_z) {
                (j.keyword_coverage, j.vector_z, j.recall_hits) = (cv, z, hits);
            }
        }
    }
    // Without a reranker, show each question's verdict at the value the fused
    // entry writes for its signal (whether or not the signal separates alone).
    if reranker.is_none() {
        for r in &mut reports {
            let written = match r.signal {
                Signal::VectorZ => proposal.vector_z,
                Signal::KeywordCoverage => proposal.keyword_coverage,
                Signal::Rerank | Signal::Cosine => None,
            };
            if let Some(t) = written {
                r.apply(t);
            }
        }
    }
    for r in &mut reports {
        annotate(r, &qs);
    }
    let answerable = qs.iter().filter(|q| q.answerable).count();
    let unanswerable = qs.len() - answerable;
    let family = guarantee::Family::of(&qs, reranker.is_some());
    let carried = guarantee::carried(&qs, reranker.is_some(), &proposal, 0.95);
    let guaranteed = match (options.guarantee, family) {
        (Some((alpha, confidence)), Some(f)) => Some(guarantee::choose(&qs, f, alpha, confidence)),
        _ => None,
    };
    let separates = hits == answerable && fps == 0;
    let by_style = per_style(&qs, &proposal, has_reranker, order);
    let next_steps =
        if separates { vec![] } else { next_steps(&reports, reranker.is_some(), answerable, unanswerable) };
    Ok(Calibration {
        model_id: reranker.clone().unwrap_or_else(|| retriever.embedder_id().to_owned()),
        embedder: retriever.embedder_id().to_owned(),
        reranker,
        answerable,
        unanswerable,
        excluded,
        signals: reports,
        proposal,
        separates,
        combined_recall_hits: hits,
        combined_false_positives: fps,
        joint,
        recall_interval: Some(bounds::clopper_pearson(hits as u64, answerable as u64, 0.95)),
        false_positive_interval: Some(bounds::clopper_pearson(fps as u64, unanswerable as u64, 0.95)),
        carried: carried.clone(),
        unanswerable_needed_5_95: carried.as_ref().and_then(|k| k.needed_for_5_95),
        in_force: options.in_force,
        per_style_in_force: options.in_force.map(|p| per_style(&qs, &p, has_reranker, order)).unwrap_or_default(),
        guaranteed,
        next_steps,
        per_style: by_style,
    })
}
