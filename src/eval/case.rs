//! Eval cases (`cases/*.yaml`): one YAML list of cases per file (SPEC §7).
//!
//! Loading rejects unknown keys, duplicate ids (naming both files), unknown
//! listing ids and reasons, patterns that do not compile, more than five
//! history turns, and empty texts, each with the file and line or case id.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};

use crate::agent::{HistoryTurn, MAX_HISTORY};
use crate::golden::Lang;
use crate::handoff::HandoffReason;

/// A fact the reply must convey, or a statement it must not make, with the
/// offline judge's match patterns (case-insensitive regexes; any one matches).
///
/// Written as `{text, patterns}`, or as a plain string (the text alone: the
/// LLM judge grades it; the rule judge reports it as unmeasured).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expectation {
    /// The item in words (what the LLM judge grades).
    pub text: String,
    /// Match patterns for the rule judge.
    #[serde(default)]
    pub patterns: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectationFields {
    #[serde(deserialize_with = "crate::text_file::non_null::text")]
    text: String,
    #[serde(default)]
    patterns: Vec<String>,
}

impl<'de> Deserialize<'de> for Expectation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Expectation;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an item: a string, or a mapping with `text` and `patterns`")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Expectation, E> {
                Ok(Expectation { text: v.to_owned(), patterns: vec![] })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Expectation, A::Error> {
                let f = ExpectationFields::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(Expectation { text: f.text, patterns: f.patterns })
            }
        }
        d.deserialize_any(V)
    }
}

/// One eval case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Unique id: `[a-z0-9][a-z0-9-]*`, at most 100 characters (it names the trace file).
    #[serde(deserialize_with = "crate::text_file::non_null::id")]
    pub id: String,
    /// Language of the inquiry; the reply must be in it.
    pub lang: Lang,
    /// The customer's message.
    #[serde(deserialize_with = "crate::text_file::non_null::inquiry")]
    pub inquiry: String,
    /// Earlier exchanges, oldest first (at most 5).
    #[serde(default)]
    pub history: Vec<HistoryTurn>,
    /// Listing ids the reply must name or a ticket must carry.
    #[serde(default)]
    pub listings: Vec<String>,
    /// Reasons that must be handed off.
    #[serde(default)]
    pub handoffs: Vec<HandoffReason>,
    /// Reasons that may be handed off (counted neither way).
    #[serde(default, alias = "allowHandoffs")]
    pub allow_handoffs: Vec<HandoffReason>,
    /// Facts the reply must convey.
    #[serde(default)]
    pub must: Vec<Expectation>,
    /// Statements the reply must not make.
    #[serde(default, alias = "mustNot")]
    pub must_not: Vec<Expectation>,
    /// Case types for breakdowns and `--tag`.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Part of the quick subset (`--subset`).
    #[serde(default)]
    pub subset: bool,
    /// Overlay catalogue under the fixtures directory, e.g. `injection`.
    #[serde(default)]
    pub fixtures: Option<String>,
    /// A wrong answer costs money or trust (pass^N is reported for these).
    #[serde(default)]
    pub critical: bool,
    /// Cases of one cluster share context (a listing, a policy page, a
    /// conversation) and are not independent: intervals use cluster-robust
    /// standard errors. Default: its first listing (`listing:HH-1001`), else
    /// the policy page one of its tags names (`policy:deposit`), else itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
}

impl Case {
    /// The case's cluster: `cluster`, else `listing:<first listing>`, else
    /// `policy:<slug>` for the first tag that is one of `policy_pages`, else
    /// `case:<id>`.
    pub fn cluster_key(&self, policy_pages: &[String]) -> String {
        if let Some(c) = &self.cluster {
            return c.clone();
        }
        if let Some(l) = self.listings.first() {
            return format!("listing:{l}");
        }
        if let Some(t) = self.tags.iter().find(|t| policy_pages.contains(t)) {
            return format!("policy:{t}");
        }
        format!("case:{}", self.id)
    }
}

/// Fills in each case's default cluster (see [`Case::cluster_key`]) from the
/// policy pages of the catalogue at `data` (`policies/<slug>.md`); an
/// unreadable directory means no policy page.
pub fn resolve_clusters(cases: &mut [LoadedCase], data: &Path) {
    let mut pages: Vec<String> = std::fs::read_dir(data.join("policies"))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let p = e.path();
            (p.extension().is_some_and(|x| x == "md")).then(|| p.file_stem()?.to_str().map(str::to_owned)).flatten()
        })
        .collect();
    pages.sort();
    for c in cases {
        let key = c.case.cluster_key(&pages);
        c.case.cluster = Some(key);
    }
}

/// A case with where it came from and its compiled patterns.
#[derive(Debug, Clone)]
pub struct LoadedCase {
    /// The case.
    pub case: Case,
    /// File it was read from.
    pub file: PathBuf,
    /// Compiled `must` patterns, by item.
    pub must_patterns: Vec<Vec<Regex>>,
    /// Compiled `must_not` patterns, by item.
    pub must_not_patterns: Vec<Vec<Regex>>,
}

impl LoadedCase {
    /// What the customer wrote: the inquiry, then the earlier inquiries
    /// (their words and figures are the customer's own; earlier replies are not).
    pub fn customer_messages(&self) -> Vec<&str> {
        std::iter::once(self.case.inquiry.as_str())
            .chain(self.case.history.iter().map(|t| t.inquiry.as_str()))
            .collect()
    }
}

/// Why cases could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct CaseError {
    /// File or directory.
    pub path: PathBuf,
    /// What was wrong, with line or case id and field.
    pub message: String,
}

/// Listing ids a case may reference: the catalogue's plus those of its overlay.
pub trait KnownListings {
    /// Whether `id` exists in the main catalogue or the named overlay.
    fn knows(&self, id: &str, overlay: Option<&str>) -> bool;
    /// Whether an overlay of this name exists.
    fn has_overlay(&self, name: &str) -> bool;
}

/// Loads every `*.yaml`/`*.yml` file of a directory (sorted by name), or one file.
///
/// # Errors
/// [`CaseError`] naming the file and line, or the case id and field.
pub fn load_cases(dir: &Path, known: &dyn KnownListings) -> Result<Vec<LoadedCase>, CaseError> {
    let err = |path: &Path, message: String| CaseError { path: path.into(), message };
    // A single file is a suite too (`--cases cases/facts.yaml`).
    let files: Vec<PathBuf> = if dir.is_file() {
        vec![dir.to_path_buf()]
    } else {
        let entries = std::fs::read_dir(dir).map_err(|e| err(dir, format!("cannot read directory: {e}")))?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "jsonl"))
            .collect();
        files.sort();
        files
    };
    if files.is_empty() {
        return Err(err(dir, "no *.yaml or *.jsonl case files found".into()));
    }
    let mut out: Vec<LoadedCase> = vec![];
    let mut seen: HashMap<String, (PathBuf, usize)> = HashMap::new();
    for file in files {
        let text = crate::text_file::read(&file).map_err(|e| err(&file, e))?;
        let (cases, lines) = if file.extension().is_some_and(|e| e == "jsonl") {
            parse_jsonl(&text).map_err(|e| err(&file, e))?
        } else {
            (crate::text_file::yaml::<Vec<Case>>(&text).map_err(|e| err(&file, e))?, crate::text_file::id_lines(&text))
        };
        let mut occurrence: HashMap<String, usize> = HashMap::new();
        let mut compiled = PatternCache::default();
        for case in cases {
            // The n-th definition of an id in this file sits on the n-th `id:` line of that value.
            let k = occurrence.entry(case.id.clone()).or_default();
            let line = lines.get(&case.id).and_then(|l| l.get(*k)).copied().unwrap_or(0);
            *k += 1;
            let at = if line > 0 { format!("line {line}: ") } else { String::new() };
            if !crate::text_file::is_safe_id(&case.id) {
                return Err(err(
                    &file,
                    format!(
                        "{at}case id `{}`: {}",
                        crate::text_file::escape_for_terminal(&case.id, 120),
                        crate::text_file::SAFE_ID_RULE
                    ),
                ));
            }
            if let Some((first, first_line)) = seen.get(&case.id) {
                return Err(err(
                    &file,
                    format!("{at}duplicate case id `{}`, first defined in {}:{first_line}", case.id, first.display()),
                ));
            }
            seen.insert(case.id.clone(), (file.clone(), line));
            out.push(validate(case, &file, &at, known, &mut compiled)?);
        }
    }
    Ok(out)
}

/// Line numbers (1-based) of each id's definitions, in file order.
type IdLines = HashMap<String, Vec<usize>>;

/// One case per line (JSON Lines); blank lines are skipped. Returns the cases
/// and their line numbers by id.
fn parse_jsonl(text: &str) -> Result<(Vec<Case>, IdLines), String> {
    let mut cases = vec![];
    let mut lines: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Case = crate::json_file::from_str(line).map_err(|e| format!("line {}: {e}", i + 1))?;
        lines.entry(case.id.clone()).or_default().push(i + 1);
        cases.push(case);
    }
    Ok((cases, lines))
}

/// Most distinct match patterns compiled from one case file.
pub const MAX_PATTERNS_PER_FILE: usize = 5_000;
/// Most pattern uses in one file, repeats included (YAML aliases repeat lists).
pub const MAX_PATTERN_USES_PER_FILE: usize = 200_000;

/// Compiled patterns of one file, each distinct pattern compiled once.
#[derive(Default)]
struct PatternCache {
    compiled: HashMap<String, Regex>,
    count: usize,
}

fn validate(
    case: Case,
    file: &Path,
    at: &str,
    known: &dyn KnownListings,
    cache: &mut PatternCache,
) -> Result<LoadedCase, CaseError> {
    let err = |field: &str, message: String| CaseError {
        path: file.into(),
        message: format!("{at}case `{}`, field `{field}`: {message}", case.id),
    };
    if case.inquiry.trim().is_empty() {
        return Err(err("inquiry", "is empty; expected the customer's message".into()));
    }
    if case.history.len() > MAX_HISTORY {
        return Err(err("history", format!("has {} turns; at most {MAX_HISTORY} are allowed", case.history.len())));
    }
    if let Some(overlay) = &case.fixtures {
        if !known.has_overlay(overlay) {
            return Err(err(
                "fixtures",
                format!("unknown overlay `{overlay}`; expected a directory of that name in the fixtures directory"),
            ));
        }
    }
    for id in &case.listings {
        if !known.knows(id, case.fixtures.as_deref()) {
            return Err(err("listings", format!("unknown listing id `{id}`")));
        }
    }
    for r in &case.handoffs {
        if case.allow_handoffs.contains(r) {
            return Err(err("allow_handoffs", format!("`{r}` is also required in `handoffs`; list it once")));
        }
    }
    let mut compile = |field: &str, items: &[Expectation]| -> Result<Vec<Vec<Regex>>, CaseError> {
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            if item.text.trim().is_empty() {
                return Err(err(field, format!("item {} has an empty `text`", i + 1)));
            }
            let mut pats = Vec::with_capacity(item.patterns.len());
            for p in &item.patterns {
                cache.count += 1;
                if cache.count > MAX_PATTERN_USES_PER_FILE {
                    return Err(err(field, format!("more than {MAX_PATTERN_USES_PER_FILE} pattern uses in this file")));
                }
                if let Some(r) = cache.compiled.get(p) {
                    // Regex clones share the compiled program.
                    pats.push(r.clone());
                    continue;
                }
                if cache.compiled.len() >= MAX_PATTERNS_PER_FILE {
                    return Err(err(
                        field,
                        format!("more than {MAX_PATTERNS_PER_FILE} distinct match patterns in this file"),
                    ));
                }
                let r = RegexBuilder::new(p)
                    .case_insensitive(true)
                    .size_limit(1 << 20)
                    .build()
                    .map_err(|e| err(field, format!("item {} pattern `{p}` does not compile: {e}", i + 1)))?;
                cache.compiled.insert(p.clone(), r.clone());
                pats.push(r);
            }
            out.push(pats);
        }
        Ok(out)
    };
    let must_patterns = compile("must", &case.must)?;
    let must_not_patterns = compile("must_not", &case.must_not)?;
    if case.must.is_empty() && case.must_not.is_empty() && case.listings.is_empty() && case.handoffs.is_empty() {
        return Err(err(
            "must",
            "the case checks nothing: give at least one of `must`, `must_not`, `listings` or `handoffs`".into(),
        ));
    }
    Ok(LoadedCase { case, file: file.into(), must_patterns, must_not_patterns })
}
