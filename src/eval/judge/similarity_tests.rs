//! The embedding route with the real multilingual-e5-small weights (ignored,
//! with the reason, where `models/multilingual-e5-small` is absent).

use std::path::Path;
use std::sync::{Arc, OnceLock};

use super::*;
use crate::eval::case::{load_cases, KnownListings, LoadedCase};
use crate::eval::judge::{RuleJudge, Verdict};
use crate::grounding::text::sentences;

fn models() -> &'static Path {
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    DIR.get_or_init(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("models"))
}

fn e5() -> Arc<SentenceSimilarity> {
    static SIM: OnceLock<Arc<SentenceSimilarity>> = OnceLock::new();
    SIM.get_or_init(|| Arc::new(SentenceSimilarity::e5(models()).expect("models/multilingual-e5-small"))).clone()
}

/// The embedding route's verdict on its own: the closest stretch reaches
/// [`EMBED_CONVEYED`] and polarity and figures agree.
fn conveys(item: &str, reply: &str) -> (bool, Option<EmbeddingMatch>) {
    let sim = e5();
    let sents = sentences(reply);
    let v = ReplyVectors::new(&sim, &sents).unwrap();
    let m = v.best(&sim, &ItemMeaning::new(item)).unwrap();
    (m.as_ref().is_some_and(|m| m.similarity >= EMBED_CONVEYED && m.agrees()), m)
}

#[test]
#[cfg_attr(not(e5_models), ignore = "models/multilingual-e5-small is absent: run scripts/fetch-models")]
fn a_paraphrase_is_recognised_and_its_negated_twin_rejected() {
    // Each paraphrase but the first shares few content words with its item,
    // so the lexical matcher alone leaves it not conveyed (asserted below).
    let rows: &[(&str, &str, &str)] = &[
        (
            "Heating is included",
            "Good news: the monthly utilities payment takes care of your heating as well.",
            "Bad news: the monthly utilities payment does not take care of your heating.",
        ),
        (
            "Says there is no listing XY-9999 in the records",
            "I'm sorry, but nothing with the reference XY-9999 turns up on our side.",
            "Good news: something with the reference XY-9999 does turn up on our side.",
        ),
        (
            "Says the records do not state the internet speed",
            "How fast the broadband is isn't something our documentation covers.",
            "How fast the broadband is is something our documentation covers.",
        ),
        (
            "Sagt, dass es dabei nicht helfen kann; es beantwortet Fragen zu den Inseraten der Agentur",
            "Restaurantempfehlungen kann ich Ihnen leider nicht geben. Ich bin nur für unsere Wohnungsangebote zuständig.",
            "Restaurantempfehlungen gebe ich Ihnen gern. Ich bin nur für unsere Wohnungsangebote zuständig.",
        ),
        (
            "Dogs are only possible on request: the landlord decides case by case, it is not guaranteed",
            "Possibly, but it isn't guaranteed. The owner has to approve every dog individually.",
            "Possibly, and it is guaranteed. The owner has to approve every dog individually.",
        ),
    ];
    for (i, (item, para, negated)) in rows.iter().enumerate() {
        let lexical = crate::eval::judge::meaning::best_match(&ItemMeaning::new(item), &sentences(para));
        assert!(
            i == 0 || lexical.as_ref().is_none_or(|m| m.similarity < crate::eval::judge::meaning::MUST_CONVEYED),
            "{para}: {lexical:?}"
        );
        let (yes, m) = conveys(item, para);
        assert!(yes, "{item} / {para}: {m:?}");
        let (no, m) = conveys(item, negated);
        assert!(!no, "{item} / {negated}: {m:?}");
        let m = m.expect("the twin is close");
        if m.similarity >= EMBED_CONVEYED {
            assert!(!m.polarity_agrees, "{negated}: {m:?}");
        }
    }
}

#[test]
#[cfg_attr(not(e5_models), ignore = "models/multilingual-e5-small is absent: run scripts/fetch-models")]
fn a_figure_or_period_mismatch_still_rejects() {
    let item = "The utilities (Nebenkosten) are an additional 240 EUR per month";
    let (yes, m) = conveys(item, "On top of the rent you pay 240 EUR every month for the utilities.");
    assert!(yes, "{m:?}");
    for wrong in [
        "On top of the rent you pay 250 EUR every month for the utilities.",
        "On top of the rent you pay 240 EUR every year for the utilities.",
    ] {
        let (yes, m) = conveys(item, wrong);
        let m = m.expect("a match");
        assert!(!yes && !m.figures_agree, "{wrong}: {m:?}");
    }
}

#[test]
#[cfg_attr(not(e5_models), ignore = "models/multilingual-e5-small is absent: run scripts/fetch-models")]
fn vectors_are_cached_within_a_run() {
    let sim = e5();
    let a = sim.vectors(&["Heating is included", "Heating is included"]).unwrap();
    let b = sim.vectors(&["Heating is included"]).unwrap();
    assert!(Arc::ptr_eq(&a[0], &a[1]) && Arc::ptr_eq(&a[0], &b[0]));
    assert_eq!(a[0].len(), 384);
    let norm: f32 = a[0].iter().map(|x| x * x).sum();
    assert!((norm - 1.0).abs() < 1e-3, "{norm}");
}

#[test]
fn a_count_in_words_must_be_in_the_stretch() {
    let item = "No: the deposit may be paid in three equal monthly instalments";
    assert!(counts_agree(item, "You can split the deposit into 3 monthly payments."));
    assert!(counts_agree(item, "You can split the deposit into three monthly payments."));
    assert!(!counts_agree(item, "The deposit is usually returned within six months of move-out."));
    assert!(!counts_agree(item, "The deposit is usually returned after move-out."));
    assert!(counts_agree("Höchstens drei Monatskaltmieten", "Höchstens das Dreifache der monatlichen Kaltmiete."));
    assert!(!counts_agree("Höchstens drei Monatskaltmieten", "Höchstens das Zweifache der monatlichen Kaltmiete."));
    // Digits in the item (ids, figures, dates) are the figure rules' business.
    assert!(counts_agree("The utilities of HH-1001 are 240 EUR", "They come to 240 EUR."));
}

struct AnyListing;
impl KnownListings for AnyListing {
    fn knows(&self, _: &str, _: Option<&str>) -> bool {
        true
    }
    fn has_overlay(&self, _: &str) -> bool {
        true
    }
}

fn case(yaml: &str) -> LoadedCase {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.yaml"), yaml).unwrap();
    load_cases(dir.path(), &AnyListing).unwrap().remove(0)
}

const NO_LISTING: &str = r#"- id: unknown-id
  lang: en
  inquiry: "Tell me about XY-9999"
  must:
    - text: "Says there is no listing XY-9999 in the records"
      patterns: ['no listing', 'not (in|among) our (records|listings)']
  must_not:
    - text: "Describes or confirms a listing XY-9999"
      patterns: ['XY-9999 (is|has|costs)']
"#;

fn grade(judge: &RuleJudge, reply: &str) -> Verdict {
    judge.grade(&case(NO_LISTING), reply).unwrap()
}

#[test]
#[cfg_attr(not(e5_models), ignore = "models/multilingual-e5-small is absent: run scripts/fetch-models")]
fn the_rule_judge_says_the_embedding_route_decided() {
    let reply = "I'm sorry, but nothing with the reference XY-9999 turns up on our side. Could you check it?";
    let lexical = grade(&RuleJudge::default(), reply);
    assert!(!lexical.must[0].ok, "the lexical matcher alone misses it: {:?}", lexical.must[0]);
    let judge = RuleJudge::with_embedder(e5());
    assert_eq!(crate::eval::judge::Judge::id(&judge), "rules+multilingual-e5-small");
    let v = grade(&judge, reply);
    let g = &v.must[0];
    assert!(g.ok && !g.undecided, "{g:?}");
    assert_eq!(g.route.as_deref(), Some("embedding"));
    let note = g.note.as_deref().unwrap();
    assert!(note.starts_with("conveyed: matched by meaning in sentence 1, similarity 0."), "{note}");
    assert!(note.contains("polarity agrees: I'm sorry, but nothing with the reference XY-9999"), "{note}");
    // The negated twin keeps the lexical grade, and the note says why.
    let v = grade(&judge, "I found XY-9999 in our records.");
    let g = &v.must[0];
    assert!(!g.ok && g.route.as_deref() != Some("embedding"), "{g:?}");
    assert!(g.note.as_deref().unwrap().contains("embedding: best sentence 1, similarity 0."), "{g:?}");
    assert!(g.note.as_deref().unwrap().contains("polarity differs"), "{g:?}");
}

#[test]
fn without_the_model_the_choice_is_none_or_a_named_error() {
    let tmp = tempfile::tempdir().unwrap();
    assert!(judge_embedder("auto", tmp.path()).unwrap().is_none());
    assert!(judge_embedder("none", models()).unwrap().is_none());
    let e = judge_embedder("e5", tmp.path()).unwrap_err();
    assert!(
        e.contains("multilingual-e5-small") && e.contains("missing config.json") && e.contains("scripts/fetch-models"),
        "{e}"
    );
    assert!(judge_embedder("bert", tmp.path()).unwrap_err().contains("expected auto, e5 or none"));
    assert!(is_rule_judge("rules") && is_rule_judge("rules+multilingual-e5-small"));
    assert!(!is_rule_judge("rules+llm:claude") && !is_rule_judge("patterns") && !is_rule_judge("llm:x"));
}
