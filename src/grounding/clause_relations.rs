//! How a reply's clause stands to a record clause or to its neighbours,
//! beyond their shared words: a cold rent and an all-inclusive rent are
//! different figures, a tenant and a landlord different parties (neither
//! pair can contradict the other); a conjunct can share the denial that
//! closes the next one ("Hunde | und Katzen nicht erlaubt"); and another
//! clause can make a statement depend on a condition ("…, solange Ihr
//! Verbrauch im üblichen Rahmen bleibt").

use std::sync::LazyLock;

use regex::Regex;

use super::polarity::polarity;
use super::wording::clauses;
use crate::fold::plain;

/// Whether `next` (the clause after `clause`, both slices of `body`) is a
/// second conjunct joined by "und"/"and"/"oder"/"or" whose denial closes
/// both ("Hunde | und Katzen nicht erlaubt", "dogs | or cats are not allowed").
pub(super) fn shares_denial(body: &str, clause: &str, next: &str) -> bool {
    let offset = |c: &str| (c.as_ptr() as usize).saturating_sub(body.as_ptr() as usize);
    let between = body.get(offset(clause) + clause.len()..offset(next)).unwrap_or("");
    matches!(between.trim().to_lowercase().as_str(), "und" | "and" | "oder" | "or" | "sowie")
        && CONJUNCT_DENIED.is_match(&plain(next))
}

/// A conjunct of one or two words and its denial ("Katzen nicht erlaubt",
/// "cats are not allowed").
static CONJUNCT_DENIED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(\w+ ){1,2}((are|is|sind|ist) )?(not|nicht|no longer|nicht mehr|never|nie)\b")
        .expect("valid pattern")
});

/// Whether another clause of `c`'s part of the sentence (up to a semicolon)
/// is an explicit, undenied condition ("vorausgesetzt, …", "as long as …").
pub(super) fn narrowed_by_condition(body: &str, c: &str) -> bool {
    let part = body.split(';').find(|seg| seg.contains(c.trim())).unwrap_or(body);
    clauses(part).iter().any(|(_, pc)| {
        let f = plain(pc);
        pc.trim() != c.trim() && NARROWING.is_match(&f) && !polarity(&f).negated
    })
}

/// An explicit condition (folded): "vorausgesetzt", "sofern", "solange",
/// "as long as", "provided", "only if", "nur wenn", "unless".
static NARROWING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(vorausgesetzt|sofern|solange|as long as|provided( that)?|only if|only when|nur wenn|nur dann|unless|es sei denn)\b")
        .expect("valid pattern")
});

/// A cold rent (Kaltmiete) and an all-inclusive rent (Warmmiete,
/// Pauschalmiete), folded text.
static COLD_RENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(cold|net) rent|\b(netto)?kaltmiete").expect("valid pattern"));
static WARM_RENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(warm|gross|all-inclusive|inclusive) rent|\b(warm|pauschal|brutto|inklusiv)miete")
        .expect("valid pattern")
});

/// Whether one clause speaks of a cold rent only and the other of an
/// all-inclusive rent only: "Pauschalmiete inkl. Nebenkosten" says nothing
/// against "three months' cold rent, without utilities".
pub(super) fn rent_kinds_differ(a: &str, b: &str) -> bool {
    let kind = |t: &str| (COLD_RENT.is_match(t), WARM_RENT.is_match(t));
    matches!((kind(a), kind(b)), ((true, false), (false, true)) | ((false, true), (true, false)))
}

/// Whether two clauses each name a party (tenant, landlord, buyer, seller)
/// and share none: they speak of different payers or deciders.
pub(super) fn parties_differ(a: &str, b: &str) -> bool {
    let (pa, pb) = (super::binding::parties(a), super::binding::parties(b));
    !pa.is_empty() && !pb.is_empty() && !pa.iter().any(|p| pb.contains(p))
}
