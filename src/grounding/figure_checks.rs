//! The figure checks of a claim sentence: prices, areas and percentages
//! (in the evidence, bound to the right listing and cost kind, with the
//! records' period, not an estimate presented as final, in the cited
//! source), durations and years, and floors and room counts against the
//! listing's fields.

use super::durations::durations;
use super::evidence::Evidence;
use super::numbers::{figures, years, Figure, FigureKind};
use super::polarity::polarity;
use super::text::citations;
use super::wording::{clauses, ESTIMATE};
use super::FindingKind;
use crate::fold::plain;

/// Planning with a figure ("you can work with 2,800 EUR", "start budgeting
/// with", "rechnen Sie mit 2.800 EUR"), folded text.
static PLAN_WITH: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\b(budget(ing)?|plan(ning)?|work(ing)?|reckon(ing)?|calculat(e|ing)|count(ing)?) (with|on|for)\b|\b(rechnen|planen|kalkulieren|kalkuliere|rechne|plane) (sie |ich )?(\w+ ){0,4}mit\b|\bmit\b.{0,40}\b(rechnen|planen|kalkulieren)\b")
        .expect("valid pattern")
});

/// The customer's own plan, restated ("you're planning with", "Sie planen mit").
static CUSTOMER_PLANS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\byou('re| are| were|'ve been| have been) (planning|budgeting|working|reckoning|counting|calculating)\b|\bsie (planen|rechnen|kalkulieren) (bisher |derzeit |gerade |aktuell )?mit\b")
        .expect("valid pattern")
});

/// A figure only the customer gave (their offer: "2,800 EUR") that the
/// reply tells them to plan with: it treats the offer as what will apply,
/// which only the landlord can decide. A denied or conditional plan ("don't
/// budget with it yet", "if the landlord agrees") is not flagged.
pub(super) fn check_offer_as_plan(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    // The figure and the plan in one clause, neither denied nor conditional.
    let planned = |fig: &str| {
        clauses(&folded).iter().any(|(_, c)| {
            let p = polarity(c);
            // The figure inside the plan ("mit 2.800 EUR rechnen") or just after it.
            let near = PLAN_WITH.find_iter(c).any(|m| c[m.start()..ceil(c, m.end() + 30)].contains(fig));
            // "you're planning with 1,500 EUR – I need to correct that" restates the customer's plan.
            near && !p.negated && !p.conditional && !CUSTOMER_PLANS.is_match(c)
        })
    };
    if let Some(f) = figures(body)
        .into_iter()
        .find(|f| evidence.user_wrote(f.value) && !evidence.tool_supports(f) && planned(plain(&f.text).trim()))
    {
        push(
            FindingKind::Commitment,
            format!("tells the customer to plan with their own figure \"{}\", which no record gives", f.text),
            None,
        );
    }
}

fn floor(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Floors and room counts against the fields of the listings in scope: a
/// floor or room count no listing in scope has is a number attached to the
/// wrong thing ("on the ground floor" where the record says floor 2).
pub(super) fn check_counts(
    body: &str,
    scope: &[String],
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let field = |key: &str| -> Vec<(f64, String)> {
        evidence
            .passages
            .iter()
            .filter(|p| p.source.rsplit_once('.').is_some_and(|(_, k)| k == key))
            .filter(|p| p.listing.as_ref().is_some_and(|l| scope.is_empty() || scope.contains(l)))
            .filter_map(|p| {
                let n = p.text.split_whitespace().find_map(|w| w.parse::<f64>().ok())?;
                Some((n, p.source.clone()))
            })
            .collect()
    };
    let (floor_fields, room_fields) = (field("floor"), field("rooms"));
    for (_, c) in clauses(body) {
        if polarity(c).negated {
            continue;
        }
        let stated = super::counts::floors(c)
            .into_iter()
            .map(|(n, t)| (n as f64, t, &floor_fields, "floor"))
            .chain(super::counts::rooms(c).into_iter().map(|(n, t)| (n, t, &room_fields, "rooms")));
        for (n, text, fields, what) in stated {
            if let Some((v, source)) = fields.first().filter(|_| !fields.iter().any(|(v, _)| (v - n).abs() < 1e-9)) {
                let record = if what == "floor" { format!("floor {v}") } else { format!("{v} rooms") };
                push(
                    FindingKind::Contradicted,
                    format!("\"{text}\" does not match the record [{source}]: {record}"),
                    Some(source.clone()),
                );
                return;
            }
        }
    }
}

/// What a claim sentence's figures may come from, besides the evidence.
#[derive(Clone, Copy)]
pub(super) struct Sources<'a> {
    /// The listing ids the sentence names.
    pub named: &'a [String],
    /// Every citation in the reply's own words.
    pub reply_cited: &'a [String],
    /// The listings the reply is about at this sentence.
    pub scope: &'a [String],
    /// Values the reply works out from grounded figures ([`super::arithmetic`]).
    pub derived: &'a [f64],
}

/// The figures of a claim sentence (`text`, and `body` without quotes and
/// citations): bound to the right listing, cost kind and party, in the
/// evidence with the records' period, not an estimate as final, and in the
/// cited source (issue #27: "a figure next to a citation must be in the
/// cited passage or record"); then durations and years.
pub(super) fn check_figures(
    text: &str,
    body: &str,
    sources: &Sources,
    evidence: &Evidence,
    customer: &str,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let Sources { named, reply_cited, scope, derived } = *sources;
    let cited = citations(text);
    let mut kinds = super::binding::figure_kinds(body);
    for f in figures(body) {
        let at = kinds.iter().position(|(k, _)| k.kind == f.kind && super::numbers::same_value(k.value, f.value));
        let own_kinds = at.map(|i| kinds.remove(i).1).unwrap_or_default();
        if evidence.user_wrote(f.value) {
            continue;
        }
        // A total or multiple the reply works out: no record holds it, and its parts are checked themselves.
        if !evidence.tool_supports(&f) && derived.iter().any(|d| super::numbers::same_value(*d, f.value)) {
            continue;
        }
        if let Some((reason, source)) = super::binding::misbinding(&f, &own_kinds, named, evidence)
            .or_else(|| super::binding::wrong_party(&f, body, evidence))
            .or_else(|| super::binding::wrong_scope(&f, body, evidence))
        {
            push(FindingKind::Contradicted, reason, source);
            continue;
        }
        if !evidence.tool_supports(&f) {
            push(
                FindingKind::Unsupported,
                format!("the figure \"{}\" is in no tool result and no customer message", f.text),
                None,
            );
            continue;
        }
        if let Some(p) = f.period {
            let periods: Vec<_> = evidence.matching_figures(&f).filter_map(|e| e.figure.period).collect();
            if !periods.is_empty() && !periods.contains(&p) {
                push(
                    FindingKind::Contradicted,
                    format!("\"{}\" is {} in the records, not {}", f.text, periods[0].as_str(), p.as_str()),
                    evidence.matching_figures(&f).next().map(|e| e.source.clone()),
                );
                continue;
            }
        }
        // "was originally an estimate, but has since been settled" withdraws the estimate.
        // "is estimated at 18,000 EUR, and that's the final estimate" calls it final all the same.
        let estimated =
            ESTIMATE.is_match(&plain(body)) && !SETTLED.is_match(&plain(body)) && finality(&plain(body)).is_none();
        if f.kind == FigureKind::Price && !estimated {
            let estimated: Vec<&str> = evidence
                .matching_figures(&f)
                .filter_map(|e| {
                    let p = evidence.passages.iter().find(|p| p.source == e.source)?;
                    let at = p.text.find(&e.figure.text)?;
                    let window =
                        &p.text[floor(&p.text, at.saturating_sub(80))..ceil(&p.text, at + e.figure.text.len() + 80)];
                    Some(window).filter(|w| ESTIMATE.is_match(&plain(w)))
                })
                .collect();
            if !estimated.is_empty() && estimated.len() == evidence.matching_figures(&f).count() {
                push(
                    FindingKind::Contradicted,
                    format!("presents \"{}\" as final; the records give it as an estimate", f.text),
                    evidence.matching_figures(&f).next().map(|e| e.source.clone()),
                );
                continue;
            }
        }
        if !cited.is_empty()
            && !cited.iter().any(|c| evidence.cited_source_has(c, &f))
            && !listing_figure_beside_rule(&f, &cited, reply_cited, scope, evidence)
        {
            push(
                FindingKind::Unsupported,
                format!("the figure \"{}\" is not in the cited source [{}]", f.text, cited.join(", ")),
                None,
            );
        }
    }
    // A timeline the records do not have ("paid back within four weeks", "a
    // minimum of two years"): durations are figures too (issue #27).
    let stated = durations(body);
    if !stated.is_empty() && !evidence.passages.is_empty() {
        let known: Vec<_> =
            evidence.passages.iter().flat_map(|p| durations(&p.text)).chain(durations(customer)).collect();
        for d in stated.iter().filter(|d| !super::durations::contains(&known, d)) {
            push(
                FindingKind::Unsupported,
                format!("the duration \"{}\" is in no tool result and no customer message", d.text),
                None,
            );
        }
    }
    for y in years(body) {
        if !evidence.has_year(y) && !customer.contains(&y.to_string()) && !evidence.passages.is_empty() {
            push(FindingKind::Unsupported, format!("the year {y} is in no tool result"), None);
        }
    }
}

/// A listing's figure next to a policy citation ("the 240 EUR is an advance
/// payment [policy:utilities#…]", "Derzeit liegt die Kaltmiete bei 1.280 €;
/// … [policy:graduated-rent#…]"): the policy backs the rule the sentence
/// states, and the figure is in the record of a listing the same reply cites
/// and is about. Any other citation must hold the figure itself.
fn listing_figure_beside_rule(
    f: &Figure,
    cited: &[String],
    reply_cited: &[String],
    scope: &[String],
    evidence: &Evidence,
) -> bool {
    cited.iter().all(|c| c.starts_with("policy:"))
        && reply_cited.iter().filter(|c| !c.starts_with("policy:")).any(|c| {
            let listing = c.split('#').next().unwrap_or(c);
            (scope.is_empty() || scope.iter().any(|s| s == listing)) && evidence.cited_source_has(listing, f)
        })
}

/// The records' own words for an amount not yet fixed (narrower than
/// [`ESTIMATE`]: no "about" or "up to").
static RECORD_ESTIMATE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\b(estimat\w*|geschatzt\w*|schatzung\w*|voraussichtlich\w*|vorlaufig\w*|provisional\w*|not yet (final|fixed|decided)|noch nicht (final|endgultig|fest|festgelegt|beschlossen))\b")
        .expect("valid pattern")
});
/// A sentence calling an amount final without repeating it ("That estimate
/// has since been confirmed, so the figure is now final", "settled in
/// substance, so it won't move", "der Betrag steht inzwischen fest").
static FINALISED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\b(now|since|already|inzwischen|mittlerweile|bereits|schon|jetzt|nun)\b (\w+ ){0,2}(final|fixed|confirmed|settled|binding|definite|endgultig|festgelegt|festgesetzt|verbindlich|bestatigt|beschlossen|fest)\b|\b(won'?t|will not|isn'?t going to|is not going to) (move|change|go up|go down|rise)\b|\b(andert|bewegt) sich (daran |da )?(nicht|nichts) mehr\b|\bsettled in substance\b|\bsteht (\w+ ){0,2}fest\b|\b(is|ist) (the|die|der|das) (final|definitive|binding|fixed|endgultige|verbindliche|feste)\b|\b(the|that|this|das|der|dieser|diese) (figure|amount|sum|estimate|levy|betrag|summe|umlage) (is|ist|stays|remains|bleibt) (now |already |definitely |fully |in effect |effectively |practically |de facto |jetzt |bereits |schon |praktisch |faktisch )?(final|settled|fixed|binding|firm|fest|endgultig|verbindlich)\b|\b(the |die |der |den )?(sum|amount|figure|betrag|summe) (itself |selbst )?(has been|have been|was|is|wurde|ist) (already |bereits |schon )?(fixed|set|settled|finali[sz]ed|agreed|festgelegt|festgesetzt|beschlossen)\b|\bsigned off at\b|\b(that|this|it)('s| is) (the |a |now )?(final|definitive|binding|fixed) (estimate|figure|amount|sum)\b|\bapproved at (that|this|the) (amount|figure|sum)\b|\bno part of (that|the|this) (figure|amount|sum) (that )?(isn'?t|is not) settled\b|\b(effectively |practically |de facto |as good as |so gut wie |praktisch |faktisch )?(locked in|festgezurrt)\b|\btreat (it|that|this|the \w+) as the (amount|figure|sum) (due|payable|owed)\b")
        .expect("valid pattern")
});
/// Words that make a sentence speak of an amount.
static AMOUNT_WORD: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\b(estimat\w*|figure|amount|sum|levy|price|cost|costs|betrag|summe|umlage|sonderumlage|schatzung|preis|kosten|zahl)\b")
        .expect("valid pattern")
});

/// An amount the records give as an estimate, said to be final in a
/// sentence that does not repeat the figure (the figure's own sentence is
/// read by [`check_figures`]). A negated or conditional sentence ("is not
/// final until the owners vote") states no finality.
pub(super) fn check_estimate_settled(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    let Some(m) = finality(&folded) else { return };
    if figures(body).iter().any(|f| f.kind == FigureKind::Price) {
        return;
    }
    if let Some(source) = evidence.passages.iter().find(|p| RECORD_ESTIMATE.is_match(&plain(&p.text))) {
        push(
            FindingKind::Contradicted,
            format!("calls an amount final (\"{m}\"); the records give it as an estimate"),
            Some(source.source.clone()),
        );
    }
}

/// The words of a sentence (folded) that call an amount final, unless
/// negated or conditional ("is not final until the owners vote").
fn finality(folded: &str) -> Option<String> {
    let m = FINALISED.find(folded)?;
    let denial = m.as_str().contains("n't") || m.as_str().contains(" not ") || m.as_str().contains("nicht");
    // "The figure is final; what isn't yet is the invoice": the part that calls it final.
    let part = folded.split(';').find(|part| part.contains(m.as_str())).unwrap_or(folded);
    let p = polarity(part);
    ((!p.negated || denial) && !p.conditional && AMOUNT_WORD.is_match(folded)).then(|| m.as_str().to_owned())
}

/// An estimate said to be over: "originally an estimate", "has since been
/// settled", "inzwischen festgelegt".
static SETTLED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\b(originally|initially|no longer|has since|have since|since been|now (fixed|final|settled|set)|ursprunglich|anfangs|inzwischen (fest|festgelegt|beschlossen|endgultig)|nicht mehr (nur )?(geschatzt|vorlaufig))\b")
        .expect("valid pattern")
});

/// Listing ids, dates and clock times: their digits are no quantities.
pub(super) static NOT_A_QUANTITY: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"(?i)\b[a-z]{1,2}-\d{3,5}\b|\b\d{1,2}\.\d{1,2}\.(\d{2,4})?|\b\d{4}-\d\d-\d\d\b|\b\d{1,2}:\d\d\b|#\w+",
    )
    .expect("valid pattern")
});

/// Numbers of any other unit ("1.500 kWh", "50 Mbit/s", "300 metres"): a
/// quantity from 13 up that no tool result and no customer message holds is
/// unsupported. Smaller numbers are counts, months and ordinals, which the
/// count, duration and date checks read with their meaning. `known` caches
/// the evidence's numbers for the reply's other sentences.
pub(super) fn check_quantities(
    body: &str,
    evidence: &Evidence,
    known: &std::cell::OnceCell<Vec<f64>>,
    derived: &[f64],
    customer: &str,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    // A day before a month name is a date, which `listing_facts::check_dates` reads.
    let folded = crate::fold::plain(body);
    let undated = super::listing_facts::DATED.replace_all(&folded, " ");
    let bare = NOT_A_QUANTITY.replace_all(&undated, " ");
    let stated: Vec<f64> = super::numbers::numbers(&bare).into_iter().filter(|n| *n >= 13.0).collect();
    if stated.is_empty() {
        return;
    }
    // Every number of the tool results and the customer's messages, read once per reply.
    let known = known.get_or_init(|| {
        evidence
            .passages
            .iter()
            .flat_map(|p| super::numbers::numbers(&NOT_A_QUANTITY.replace_all(&p.text, " ")))
            .chain(super::numbers::numbers(customer))
            .collect()
    });
    let years: Vec<u32> = years(body);
    for n in stated {
        let is_year = years.iter().any(|y| f64::from(*y) == n);
        let worked_out = derived.iter().any(|d| super::numbers::same_value(*d, n));
        if is_year || worked_out || evidence.user_wrote(n) || known.iter().any(|k| super::numbers::same_value(*k, n)) {
            continue;
        }
        push(FindingKind::Unsupported, format!("the number {n} is in no tool result and no customer message"), None);
        return;
    }
}
