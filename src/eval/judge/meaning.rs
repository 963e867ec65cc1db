//! Matching a `must` / `must_not` item by meaning: the item's own text
//! against each sentence of the reply, with the analysis retrieval uses
//! (folding, the DE↔EN glossary, compound parts, the catalogue's synonyms;
//! [`crate::grounding::terms`]), the item's figures with unit and period, and
//! polarity ([`crate::grounding::polarity`]): "heating is not included" does
//! not convey "heating is included", however many words they share.
//!
//! The similarity of a sentence to an item is the share of the item's
//! content terms found in the sentence. The thresholds below were chosen on
//! `labels/dev.yaml` only (figures in `labels/README.md`); `labels/test.yaml`
//! is reported, never tuned on.

use crate::grounding::durations::{contains, durations, Duration};
use crate::grounding::numbers::{figures, same_value, years, Figure};
use crate::grounding::polarity::{polarity, Polarity};
use crate::grounding::terms::{all_terms as terms, shared, vocabulary, Term};
use crate::grounding::text::Sentence;

/// A `must` item is conveyed by meaning from this similarity on (chosen on
/// `labels/dev.yaml` and `labels/dev2.yaml`: on the meaning route no wrong
/// reply's item with agreeing polarity and figures scored 0.5–0.6, while six
/// right replies' items did).
pub const MUST_CONVEYED: f64 = 0.5;
/// A `must` item with a best similarity from here up to [`MUST_CONVEYED`] is
/// undecided (partly matched), below it not conveyed.
pub const MUST_UNDECIDED: f64 = 0.4;
/// A `must_not` statement is made by meaning from this similarity on.
pub const MUST_NOT_STATED: f64 = 0.75;

/// An item that claims an unconditional yes ("die Katze sei einfach
/// erlaubt", "simply allowed"): a sentence clause with a qualification
/// ("nur auf Anfrage") does not say it.
static PLAINLY: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\b(einfach|simply|just|plainly|outright|ohne weiteres|automatisch|automatically|without (any )?condition\w*|bedingungslos|unconditional\w*)\b")
        .expect("valid pattern")
});

/// An item's text, analysed.
#[derive(Debug, Clone)]
pub struct ItemMeaning {
    statement: String,
    clause_texts: Vec<String>,
    clauses: Vec<(Vec<Term>, Polarity)>,
    terms: Vec<Term>,
    figures: Vec<Figure>,
    years: Vec<u32>,
    durations: Vec<Duration>,
}

/// Meta words that open an item's text and are not part of its statement
/// ("Claims heating costs extra", "Behauptet, …", "Nein: …").
const META: &[&str] = &[
    "claims that",
    "claims",
    "says that",
    "says",
    "states that",
    "states",
    "repeats",
    "presents",
    "behauptet,",
    "behauptet",
    "sagt,",
    "sagt",
    "nennt",
    "gives",
    "gibt",
    "ja,",
    "nein:",
    "nein,",
    "yes,",
    "yes:",
    "no:",
    "no,",
];

fn strip_meta(text: &str) -> String {
    let mut t = text.trim().to_owned();
    loop {
        let lower = t.to_lowercase();
        match META.iter().find(|m| lower.starts_with(*m) && lower[m.len()..].starts_with([' ', ','])) {
            Some(m) => t = t[m.len()..].trim_start_matches([' ', ',', ':']).to_owned(),
            None => break,
        }
    }
    t
}

/// A multiplication before a figure ("3 x 980 EUR"), on the text before it.
static TIMES: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"(\d{1,2})\s*[x×*]\s*$").expect("valid pattern"));

/// An item's figures, with a product written out ("States a computed euro
/// deposit (3 x 980 EUR)") read as its result (2,940 EUR): the operand is the
/// cold rent the right reply names, the forbidden figure is the product.
fn item_figures(text: &str) -> Vec<Figure> {
    figures(text)
        .into_iter()
        .map(|mut f| {
            let times = text.find(&f.text).and_then(|at| TIMES.captures(&text[..at]));
            if let Some(n) = times.and_then(|c| c[1].parse::<f64>().ok()) {
                f.value *= n;
            }
            f
        })
        .collect()
}

impl ItemMeaning {
    /// Analyses an item's text; parenthesised glosses and chunk ids are left
    /// out ("Heating is included (HH-1001#s5)").
    pub fn new(text: &str) -> Self {
        let mut plain = String::new();
        let mut depth = 0usize;
        for c in text.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                c if depth == 0 => plain.push(c),
                _ => {}
            }
        }
        let plain = strip_meta(&plain);
        let (clause_texts, clauses) = split_clauses(&plain)
            .into_iter()
            .map(|c| (c.to_owned(), (terms(c), polarity(c))))
            .filter(|(_, (t, _))| !t.is_empty())
            .unzip();
        ItemMeaning {
            statement: plain.trim().to_owned(),
            clause_texts,
            clauses,
            terms: terms(&plain),
            figures: item_figures(text),
            years: years(text),
            durations: durations(text),
        }
    }

    /// The statement itself: the item's text without parenthesised glosses
    /// and without its opening meta words ("Claims", "Says that", "Nein:").
    pub fn statement(&self) -> &str {
        &self.statement
    }

    /// The statement's clauses that carry content words, each with its polarity.
    pub fn clauses(&self) -> impl Iterator<Item = (&str, Polarity)> {
        self.clause_texts.iter().map(String::as_str).zip(self.clauses.iter().map(|(_, p)| *p))
    }

    /// Whether every figure of the item is in `text` or in `elsewhere` (the
    /// reply's other sentences) with the same kind, value and no other
    /// period, and every year of the item is in `text`.
    pub fn figures_agree(&self, text: &str, elsewhere: &[Figure]) -> bool {
        let found = figures(text);
        self.figures.iter().all(|f| {
            found.iter().chain(elsewhere).any(|g| {
                g.kind == f.kind
                    && same_value(g.value, f.value)
                    && (f.period.is_none() || g.period.is_none() || f.period == g.period)
            })
        }) && self.years.iter().all(|y| years(text).contains(y))
    }

    /// Whether every duration of the item ("drei Monatskaltmieten", "two
    /// weeks") is somewhere in `reply` with the same count and unit: "zwei
    /// Monatsmieten" does not convey "höchstens drei Monatskaltmieten".
    pub fn durations_agree(&self, reply: &str) -> bool {
        let found = durations(reply);
        self.durations.iter().all(|d| contains(&found, d))
    }

    /// Whether the item has content words to match.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// An item that names an act of the assistant by its verb first ("Confirms
/// the Saturday viewing", "Agrees to or promises the lower rent", "Bucht
/// oder bestätigt die Besichtigung").
/// The assistant as subject: "I", "we", "ich", "wir" (folded text).
static FIRST_PERSON: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"\b(i|i'm|i've|we|we've|ich|wir)\b").expect("valid pattern"));

static ACT_ITEM: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"^(confirms?|agrees?|promises?|books?|accepts?|schedules?|arranges?|bucht|bestatigt|sagt|verspricht|akzeptiert|vereinbart)\b")
        .expect("valid pattern")
});

/// A listing id and a comma that open a label ("K-4001, Nebenkosten:").
static LISTING_PREFIX: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"^\s*[-*•]?\s*(\*\*)?[A-Za-z]{1,2}-\d{4},\s+").expect("valid pattern")
});

fn split_clauses(text: &str) -> Vec<&str> {
    // A table row is one statement: its cells answer its label.
    if super::table_row::is_row(text) {
        return vec![text.trim()];
    }
    // "Zusätzliche Nebenkosten: keine" is one statement: a colon followed by
    // a short value does not start a clause.
    // A bullet's short label ("**Internet speed:** the listing is silent on
    // it") names the subject of the clause after it: the two are one clause.
    if let Some((label, value)) = text.split_once(':') {
        let head = value.split([',', ';', '–', '—']).next().unwrap_or_default();
        // "K-4001, zusätzliche Nebenkosten: keine": a listing id before the label names its subject.
        let own_label = LISTING_PREFIX.find(label).map_or(label, |m| &label[m.end()..]);
        let short_label = own_label.split_whitespace().count() <= 3;
        if !own_label.trim().is_empty()
            && !crate::grounding::label_stands_alone(own_label)
            && (head.split_whitespace().count() <= 3 || short_label)
            && !own_label.contains([',', ';'])
        {
            let mut parts = vec![text[..text.len() - value.len() + head.len()].trim()];
            parts.extend(split_clauses_at(&value[head.len()..]));
            return parts.into_iter().filter(|c| !c.is_empty()).collect();
        }
    }
    split_clauses_at(text)
}

fn split_clauses_at(text: &str) -> Vec<&str> {
    let pieces: Vec<&str> =
        text.split([',', ';', ':', '–', '—'])
            // "I have no authority to accept or promise a price" denies both: no split after a negation.
            .flat_map(|c| {
                if polarity(c).negated {
                    vec![c]
                } else {
                    c.split(" or ").flat_map(|c| c.split(" oder ")).collect()
                }
            })
            // "only an estimate and not yet final" states two things, one denied.
            .flat_map(|c| {
                let at = [" and not ", " und nicht ", " but not ", " aber nicht "]
                    .iter()
                    .find_map(|w| c.find(w).map(|i| (i, w)));
                match at {
                    Some((i, w)) => vec![&c[..i], &c[i + w.len() - "not ".len()..]],
                    None => vec![c],
                }
            })
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
    let pieces = attach_tail_negations(text, pieces);
    // A list of single words ("Nebenkosten, Heizung, Strom und Internet sind
    // drin") is one clause: a one-word piece belongs to the clause after it.
    let mut out: Vec<&str> = vec![];
    let mut pending: Option<usize> = None;
    for piece in pieces {
        let start = pending.take().unwrap_or_else(|| piece.as_ptr() as usize - text.as_ptr() as usize);
        let end = piece.as_ptr() as usize - text.as_ptr() as usize + piece.len();
        if piece.split_whitespace().count() <= 1 {
            pending = Some(start);
            continue;
        }
        out.push(text[start..end].trim());
    }
    if let Some(start) = pending {
        out.push(text[start..].trim());
    }
    out.into_iter().filter(|c| !c.is_empty()).collect()
}

/// A piece that is only a negation ("nicht [B-2002]", "they don't", "aber
/// nicht"): the end of a clause that a subordinate or relative clause
/// interrupted ("Einen WBS brauchen Sie, auch wenn …, nicht"; "the heating,
/// which runs on gas, they don't").
static TAIL_NEGATION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"^(but |aber |jedoch |doch |though |however |und |and )?((they|it|he|she|we|you|i|that|this|sie|es|er|das|man) )?(do not|does not|did not|is not|are not|was not|will not|don't|doesn't|didn't|isn't|aren't|wasn't|won't|can't|cannot|not|nicht|auch nicht|leider nicht|eben nicht|gar nicht|noch nicht|not yet|nicht mehr|no longer)( though| however| leider| allerdings| jedoch)?( ?\[[^\]]*\])*[.!]?$")
        .expect("valid pattern")
});
/// A piece that opens with a subordinating word or a relative pronoun: it
/// interrupts a clause, it does not own a tail negation.
static SUBORDINATE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"^(which|who|whom|whose|that|where|when|while|although|though|even if|even though|as|because|since|if|unless|auch wenn|selbst wenn|obwohl|obgleich|wenn|falls|weil|da|wie|was|wo|welche\w*|der|die|das|den|dem|dessen|deren|ob|sofern|solange|soweit|wahrend|zumal|anders als|contrary to|unlike|entgegen)\b")
        .expect("valid pattern")
});

/// Joins a tail negation to the clause it ends: the pieces from the nearest
/// earlier piece that is not subordinate up to the tail become one clause.
fn attach_tail_negations<'a>(text: &'a str, pieces: Vec<&'a str>) -> Vec<&'a str> {
    let offset = |p: &str| p.as_ptr() as usize - text.as_ptr() as usize;
    let mut out: Vec<&'a str> = vec![];
    for piece in pieces {
        let tail = TAIL_NEGATION.is_match(&crate::fold::plain(piece).replace('’', "'"));
        let main = if tail { out.iter().rposition(|p| !SUBORDINATE.is_match(&crate::fold::plain(p))) } else { None };
        match main {
            Some(j) => {
                let start = offset(out[j]);
                out.truncate(j);
                out.push(&text[start..offset(piece) + piece.len()]);
            }
            None => out.push(piece),
        }
    }
    out
}

/// How a sentence meets an item.
#[derive(Debug, Clone, PartialEq)]
pub struct MeaningMatch {
    /// 0-based sentence index.
    pub sentence: usize,
    /// Share of the item's content terms in the sentence (0..1).
    pub similarity: f64,
    /// Whether the sentence says it the same way round (not negated, same inclusion).
    pub polarity_agrees: bool,
    /// Whether the item's figures and years are all in the sentence, with no other period.
    pub figures_agree: bool,
}

/// The best-matching non-question sentence for an item (highest similarity;
/// among equals the first), or `None` when no sentence shares a term.
pub fn best_match(item: &ItemMeaning, sents: &[Sentence]) -> Option<MeaningMatch> {
    let mut best: Option<MeaningMatch> = None;
    let everywhere: Vec<Figure> = sents.iter().filter(|s| !s.question).flat_map(|s| figures(&s.text)).collect();
    let whole: String = sents.iter().filter(|s| !s.question).map(|s| s.text.as_str()).collect::<Vec<_>>().join(" ");
    for (i, s) in sents.iter().enumerate().filter(|(_, s)| !s.question) {
        let st = terms(&s.text);
        let vocab = vocabulary(&st);
        let sim =
            if item.terms.is_empty() { 0.0 } else { shared(&item.terms, &vocab) as f64 / item.terms.len() as f64 };
        if sim == 0.0 {
            continue;
        }
        // The item clause and the sentence clause that share most terms.
        let mut polarity_agrees = true;
        let sent_clauses: Vec<(Vec<Term>, Polarity, bool)> = split_clauses(&s.text)
            .into_iter()
            .map(|c| (terms(c), super::table_row::clause_polarity(c), FIRST_PERSON.is_match(&crate::fold::plain(c))))
            .filter(|(t, _, _)| !t.is_empty())
            .collect();
        let act = ACT_ITEM.is_match(&crate::fold::plain(&item.statement));
        let pair = item
            .clauses
            .iter()
            .zip(&item.clause_texts)
            .flat_map(|((it, ip), text)| {
                sent_clauses.iter().map(move |(stt, sp, me)| {
                    // "Confirms the Saturday viewing": the clause with the item's
                    // verb ("I can't confirm dates") says it, not the one that
                    // only shares its object ("your request for a Saturday viewing").
                    let verb = act && it.first().is_some_and(|v| shared(std::slice::from_ref(v), &vocabulary(stt)) > 0);
                    // "I can't confirm Saturday myself, because viewing dates are confirmed only
                    // by a person": the act is the assistant's, in its own clause.
                    let own = verb && *me;
                    ((verb, own, shared(it, &vocabulary(stt))), ip, sp, text)
                })
            })
            .max_by_key(|(n, _, _, _)| *n);
        if let Some(((_, _, n), ip, sp, text)) = pair {
            if n > 0 {
                // "die Katze sei einfach erlaubt" is not said by "nur auf Anfrage möglich".
                let plainly = PLAINLY.is_match(&crate::fold::plain(text)) && !ip.qualified;
                polarity_agrees = !ip.disagrees(sp) && !(plainly && sp.qualified);
            }
        }
        // The item's figure may sit in another sentence of the reply ("K-4002
        // for 980 EUR … Dogs and cats are allowed there").
        let figures_agree = item.figures_agree(&s.text, &everywhere) && item.durations_agree(&whole);
        let m = MeaningMatch { sentence: i, similarity: sim, polarity_agrees, figures_agree };
        let better = match &best {
            None => true,
            Some(b) => {
                (m.polarity_agrees && m.figures_agree, m.similarity)
                    > (b.polarity_agrees && b.figures_agree, b.similarity)
            }
        };
        if better {
            best = Some(m);
        }
    }
    best
}

/// An item of several clauses matched clause by clause, each clause in the
/// sentence that shares most of its terms ("The price request has been
/// passed to a person; the assistant does not agree prices" is often said in
/// two sentences). The similarity is the share of all clause terms found in
/// their best sentences; polarity must agree for every clause, and the item's
/// figures must all be in those sentences. `None` for a one-clause item (that
/// is [`best_match`]'s case) or when a clause meets no sentence.
pub fn spread_match(item: &ItemMeaning, sents: &[Sentence]) -> Option<MeaningMatch> {
    if item.clauses.len() < 2 {
        return None;
    }
    let analysed: Vec<(usize, Vec<(Vec<Term>, Polarity)>, Vec<Term>)> = sents
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.question)
        .map(|(i, s)| {
            let clauses = split_clauses(&s.text)
                .into_iter()
                .map(|c| (terms(c), polarity(c)))
                .filter(|(t, _)| !t.is_empty())
                .collect();
            (i, clauses, terms(&s.text))
        })
        .collect();
    let (mut found, mut total, mut agrees) = (0usize, 0usize, true);
    let mut used: Vec<usize> = vec![];
    for (it, ip) in &item.clauses {
        total += it.len();
        let best = analysed
            .iter()
            .map(|(i, clauses, st)| (shared(it, &vocabulary(st)), i, clauses))
            .filter(|(n, _, _)| *n > 0)
            .max_by_key(|(n, i, _)| (*n, std::cmp::Reverse(**i)))?;
        found += best.0;
        used.push(*best.1);
        // The sentence clause that shares most of this item clause's terms says it the same way round.
        if let Some((_, sp)) = best.2.iter().max_by_key(|(ct, _)| shared(it, &vocabulary(ct))) {
            agrees &= !ip.disagrees(sp);
        }
    }
    let text: String = used.iter().map(|i| sents[*i].text.as_str()).collect::<Vec<_>>().join(" ");
    let found_figures = figures(&text);
    let figures_agree = item.figures.iter().all(|f| {
        found_figures.iter().any(|g| {
            g.kind == f.kind
                && same_value(g.value, f.value)
                && (f.period.is_none() || g.period.is_none() || f.period == g.period)
        })
    }) && item.years.iter().all(|y| years(&text).contains(y))
        && item.durations_agree(&text);
    Some(MeaningMatch {
        sentence: used[0],
        similarity: found as f64 / total.max(1) as f64,
        polarity_agrees: agrees,
        figures_agree,
    })
}

#[cfg(test)]
#[path = "meaning_tests.rs"]
mod tests;
