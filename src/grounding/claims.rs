//! Sentence-by-sentence grounding of a reply against its evidence.
//!
//! Each sentence of the reply's own words ([`super::text::own_text`]) gets a
//! role. Questions back, greetings, offers of help and what the assistant
//! says about itself are not claims about the records; a sentence saying the
//! request was passed to a person is a hand-off statement and must agree with
//! the tickets the run created. Every other sentence is a claim and is
//! checked against the passages and record fields in scope (the listings it
//! names, else the last one named before, and the policy pages):
//!
//! - *unsupported*: a figure or year that no evidence has (or not in the
//!   source cited next to it), or an affirmative claim when the tools
//!   returned no passage or record at all. (A claim whose content words are
//!   mostly absent from the passages is *not* flagged: on `labels/dev.yaml`
//!   that rule flagged 12 of 31 right replies, German ones above all, and
//!   caught no wrong reply that another rule missed.)
//! - *contradicted*: a figure whose period differs from the records' (420 EUR
//!   yearly where the record says monthly), or a clause whose polarity
//!   ([`super::polarity`]) is the opposite of every passage clause about the
//!   same thing;
//! - *hedged*: a guess ("may well", "probably", "in der Regel") where the
//!   passages about it state no guess;
//! - *commitment*: the reply books, confirms, deletes or promises what only a
//!   person can ("the appointment is set", "der Termin steht", "I have
//!   deleted your data"), ticket or not.
//!
//! Quoted passages that are verbatim evidence are the records' own words and
//! are not checked again.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use super::clause_relations::{about_same, denial_meets, focus, same_subject, GENERIC};
use super::clause_relations::{denies_other_figure, ELLIPTIC_NOT, FIGURE_PLUS};
use super::clause_relations::{narrowed_by_condition, parties_differ, rent_kinds_differ, shares_denial};
use super::evidence::Evidence;
use super::figure_checks::{check_counts, check_figures};
use super::polarity::polarity;
use super::quotes::{body, verbatim};
use super::record_clauses::{ev_clauses, EvClause};
use super::roles::role;
use super::terms::{shared, terms, vocabulary, Term};
use super::text::citations;
use super::text::{own_text, sentences};
use super::wording::{
    clauses, ABSENCE, BEFORE, CONCLUDES, CONTRACTION, DEPENDS, DOG_OR_CAT, EMPTY_RESULT, EXCLUSIVE, HANDOFF,
    INDIRECT_QUESTION, MAY_NOT, NEED, OFFER_TO_ASK, PARENS, PRONOUN_OBJECT, REPLY_HEDGE, REPORTED, REQUEST,
    SMALL_ANIMALS, SUGGESTS, THANKS, VERB,
};
use super::{Finding, FindingKind, Grounding, SentenceCheck, SentenceRole};
use crate::fold::{fold, plain};

/// The utilities named as what holds a cost ("covered by the Nebenkosten",
/// "included in the utilities of 240 EUR", "in den NK drin").
static UTILITIES_CONTAINER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b((covered|included|contained|paid|accounted for) (by|in|within|through|with|via) (the |your |those |these )?|part of (the |your |those |these )?|(in|durch|mit|über|uber) (den|die|ihren|ihre) )(\d[\d.,]* ?(eur|euro|€) ?)?(utilities|utility costs|nebenkosten|nk|betriebskosten|service charges?)( of \d[\d.,]* ?(eur|euro|€)(/month| per month| a month)?)?")
        .expect("valid pattern")
});

/// A tail that names what something comes on top of ("zusätzlich zu
/// Kaltmiete und Nebenkosten", "on top of the rent"), folded.
static ON_TOP_TAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(zusatzlich zu[rm]?|on top of|in addition to|plus|neben|ausser)\b").expect("valid pattern")
});

/// "one of them", "eine davon": a statement about some listing of those
/// named, not about each.
static ONE_OF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(one|some|either) of (them|these|those|the two|both)\b|\b(eine[rs]?|einige) (davon|der beiden|von beiden|von ihnen)\b")
        .expect("valid pattern")
});

/// A condition, not an indirect question: "whether the building has a lift
/// isn't entirely clear to me" doubts the lift, it sets no condition.
/// "depends on the respective listing", "je nach Wohnung", "hängt von der
/// jeweiligen Wohnung ab": what varies from one listing to the next.
static BY_LISTING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(depends on|depending on|varies (by|with|from)) (the |each |every )?(respective |specific |individual |particular |given )?(listing|flat|apartment|property|unit|offer)s?\b|\bje nach (\w+ )?(wohnung|inserat|objekt|angebot)\b|\bhangt (\w+ ){0,3}von (der|dem|den) (jeweiligen |konkreten |einzelnen )?(wohnung|inserat|objekt|angebot)\w* ab\b")
        .expect("valid pattern")
});

static CONDITION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(if|unless|once|wenn|falls|sobald)\b").expect("valid pattern"));

/// The landlord or owner, in both languages (folded text).
static LANDLORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(landlord|owner|vermieter\w*|eigentumer\w*)\b").expect("valid pattern"));

static LISTING_ID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[A-Z]{1,2}-\d{4}\b").expect("valid pattern"));

/// Checks every sentence of `reply` against `evidence`. `customer` holds the
/// customer's messages (current and earlier inquiries: their words and
/// figures are theirs), `tickets` how many hand-off tickets the run created.
pub fn check(reply: &str, evidence: &Evidence, customer: &[&str], tickets: usize) -> Grounding {
    let own = own_text(reply, customer);
    let evc = ev_clauses(evidence);
    let folded_passages: Vec<String> = evidence.passages.iter().map(|p| fold(&p.text)).collect();
    // Passages and the customer's words, folded like a sentence's `folded`.
    // Built on first need: most sentences name no place, time or status.
    let plain_sources_cell: std::cell::OnceCell<Vec<String>> = std::cell::OnceCell::new();
    let plain_sources = || {
        plain_sources_cell.get_or_init(|| {
            evidence.passages.iter().map(|p| plain(&p.text)).chain(customer.iter().map(|c| plain(c))).collect()
        })
    };
    let customer_terms: Vec<Term> = customer.iter().flat_map(|c| terms(c)).collect();
    let customer_text: String = customer.join(" ");
    let customer_plain_cell: std::cell::OnceCell<String> = std::cell::OnceCell::new();
    let customer_plain = || customer_plain_cell.get_or_init(|| plain(&customer_text)).as_str();
    let known: BTreeSet<String> = evidence.passages.iter().filter_map(|p| p.listing.clone()).collect();
    let mut scope: Vec<String> = vec![];
    // The sentence before: a pronoun can stand for the animal it names.
    let mut previous = String::new();
    let known_numbers = std::cell::OnceCell::new();
    // The records' cost statements and counts, read once per reply.
    let cost_records = std::cell::OnceCell::new();
    let record_counts = std::cell::OnceCell::new();
    let cover_items = std::cell::OnceCell::new();
    let reply_cited = citations(&own);
    // Totals, remainders and multiples the reply works out from grounded figures.
    let derived = super::arithmetic::derived_values(&own, evidence, &customer_text);
    let mut out = Grounding::default();
    let sents = sentences(&own);
    let table_roles = super::tables::table_roles(&sents);
    for (i, s) in sents.iter().enumerate() {
        let text = s.text.trim();
        if text.is_empty() {
            continue;
        }
        let body = super::contrast::without_alternatives(&body(text, &folded_passages)).trim_start().to_owned();
        let folded = plain(&body);
        let named: Vec<String> = LISTING_ID.find_iter(text).map(|m| m.as_str().to_owned()).collect();
        if named.iter().any(|n| known.contains(n)) {
            scope = named.into_iter().filter(|n| known.contains(n)).collect();
        }
        let in_scope =
            |c: &&EvClause| c.listing.as_ref().is_none_or(|l| scope.is_empty() || scope.iter().any(|s| s == l));
        let folded_clauses = clauses(&folded);
        let role = if verbatim(text, &folded_passages) {
            SentenceRole::Quote
        } else if signature(&folded, &previous) {
            SentenceRole::Courtesy
        } else if let Some(r) = table_roles[i] {
            r
        } else {
            role(&folded, s.question)
        };
        let mut findings = vec![];
        let mut push = |kind: FindingKind, reason: String, source: Option<String>| {
            // Two checks that find the same fault against the same passage report it once.
            if source.is_some() && findings.iter().any(|f: &Finding| f.kind == kind && f.source == source) {
                return;
            }
            findings.push(Finding { sentence: i + 1, text: text.to_owned(), kind, reason, source });
        };
        super::acts::check_acts(role, &folded, &folded_clauses, &body, &plain_sources, &mut push);
        super::scope_offers::check_off_topic_offer(&folded, &folded_clauses, &mut push);
        super::recipients::check_recipient(&folded, &folded_clauses, customer_plain(), &HANDOFF, &mut push);
        // "Einen anderen Preis kann ich nicht zusagen; ich habe Ihre Anfrage aber
        // weitergegeben": the negation of one clause does not deny the hand-off of another.
        // A suggestion to ask a colleague hands nothing off.
        let handed_off = || {
            folded_clauses.iter().any(|(_, c)| HANDOFF.is_match(c) && !polarity(c).negated && !SUGGESTS.is_match(c))
                || (!folded_clauses.iter().any(|(_, c)| HANDOFF.is_match(c)) && !polarity(&folded).negated)
        };
        if role == SentenceRole::Handoff && tickets == 0 && handed_off() {
            push(
                FindingKind::Unsupported,
                "says the request was passed to a person, but the run created no ticket".into(),
                None,
            );
        }
        let sentence_terms = terms(&body);
        let mut support: Option<String> = None;
        if matches!(role, SentenceRole::Claim | SentenceRole::Assistant | SentenceRole::Handoff) {
            // "Ihre Katze dürfte also nicht mit einziehen" is a permission denied, not a guess.
            // "Before you budget with that figure, …" or "if you budget with it"
            // sets a condition, it turns nothing into a guess.
            let hedge = REPLY_HEDGE.find(&folded).filter(|h| {
                // "Kleintiere dürften Sie dagegen halten" grants a permission.
                let permission = h.as_str().starts_with("durfte") && folded[h.end()..].trim_start().starts_with("sie ");
                // "Whether your dog will be approved is not known" asks, it guesses nothing;
                // "Whether it has a lift isn't entirely clear" is the guess itself.
                let asked = folded_clauses.iter().any(|(_, c)| {
                    let opening = c.trim_start_matches(|ch: char| !ch.is_alphanumeric());
                    let after = c.find(h.as_str()).map(|at| &c[at + h.as_str().len()..]);
                    (opening.starts_with("whether ") || opening.starts_with("ob "))
                        && after.is_some_and(|rest| {
                            rest.split_whitespace()
                                .any(|w| ["is", "are", "remains", "ist", "sind", "bleibt"].contains(&w))
                        })
                });
                !permission
                    && !asked
                    && !(h.as_str().starts_with("durfte") && MAY_NOT.is_match(&folded))
                    && !folded_clauses.iter().any(|(_, c)| {
                        // "looks as if" compares, it sets no condition.
                        let c_no_as_if = c.replace("as if", "").replace("als ob", "");
                        c.contains(h.as_str()) && (CONDITION.is_match(&c_no_as_if) || BEFORE.is_match(c))
                    })
            });
            if let Some(h) = hedge {
                // "That depends on the landlord" restates a record that leaves the decision open.
                // "It depends on the landlord" needs no shared noun: the landlord is its subject.
                let landlord = LANDLORD.is_match(&folded);
                // "The amount depends on the respective listing" says the records vary; it guesses nothing.
                let by_listing =
                    DEPENDS.is_match(h.as_str()) && BY_LISTING.is_match(&folded) && !LISTING_ID.is_match(text);
                let open = by_listing
                    || DEPENDS.is_match(h.as_str())
                        && evc.iter().filter(in_scope).any(|c| {
                            c.polarity.qualified
                                && ((landlord && sentence_terms.len() <= 3) || about_same(&sentence_terms, &c.terms))
                        });
                let backed =
                    open || evc.iter().filter(in_scope).any(|c| c.hedged && about_same(&sentence_terms, &c.terms));
                if !backed {
                    push(FindingKind::Hedged, format!("turns the records into a guess (\"{}\")", h.as_str()), None);
                }
            }
        }
        if matches!(role, SentenceRole::Claim | SentenceRole::Assistant | SentenceRole::Handoff) {
            super::corrections::check_self_correction(&folded, customer.len() > 1, &mut push);
            super::figure_checks::check_offer_as_plan(&body, evidence, &mut push);
            super::offers::check_offer_accepted(&body, evidence, &mut push);
        }
        if matches!(role, SentenceRole::Claim | SentenceRole::Assistant) {
            super::pets::check_pets(&body, &previous, &scope, evidence, &mut push);
            super::small_animals::check_small_animals(&body, &previous, evidence, &mut push);
        }
        if role == SentenceRole::Claim {
            let named_here: Vec<String> =
                LISTING_ID.find_iter(text).map(|m| m.as_str().to_owned()).filter(|n| known.contains(n)).collect();
            let sources = super::figure_checks::Sources {
                named: &named_here,
                reply_cited: &reply_cited,
                scope: &scope,
                derived: &derived,
            };
            check_figures(text, &body, &sources, evidence, &customer_text, &mut push);
            check_counts(&body, &scope, evidence, &mut push);
            super::comparisons::check_comparisons(&body, &mut push);
            super::figure_checks::check_estimate_settled(&body, evidence, &mut push);
            super::figure_checks::check_quantities(
                &body,
                evidence,
                &known_numbers,
                &derived,
                &customer_text,
                &mut push,
            );
            super::listing_facts::check_listing_facts(&body, &scope, evidence, &plain(&customer_text), &mut push);
            super::listing_facts::check_dates(&body, evidence, &plain(&customer_text), &mut push);
            super::step_dates::check_step_dates(&body, evidence, &mut push);
            super::uses::check_residential_use(&body, evidence, &mut push);
            super::renovations::check_renovations(&body, &scope, evidence, &mut push);
            super::deposit_base::check_deposit_base(&body, &previous, evidence, &mut push);
            super::deposit_base::check_deposit_cap(&body, evidence, &mut push);
            super::deposit_base::check_deposit_bound(&body, &scope, evidence, &mut push);
            super::commission::check_commission_share(&body, evidence, &mut push);
            super::sublet::check_sublet(&body, evidence, &mut push);
            super::documents::check_documents(&body, &previous, evidence, &mut push);
            super::availability::check_availability(&body, evidence, &mut push);
            super::payers::check_payers(&body, &own, evidence, &mut push);
            super::payers::check_payees(&body, evidence, &mut push);
            super::requirements::check_requirements(&body, evidence, &mut push);
            super::requirements::check_ruled_out(&body, &previous, customer_plain(), evidence, &mut push);
            super::requirements::check_approval_waived(&body, &scope, evidence, &mut push);
            super::settlement::check_settlement(&body, evidence, &mut push);
            super::rights::check_rights(&body, &previous, evidence, &mut push);
            super::inclusions::check_inclusions(&body, &scope, evidence, &cost_records, &mut push);
            super::utility_amounts::check_utilities_in_rent(&body, evidence, &mut push);
            super::utility_amounts::check_utilities_on_top(&body, &scope, evidence, &mut push);
            super::utility_amounts::check_cold_rent_as_total(&body, evidence, &mut push);
            super::covers::check_covers(&body, &own, evidence, &cover_items, &mut push);
            super::triggers::check_triggers(&body, evidence, &customer_text, &mut push);
            super::triggers::check_rhythm(&body, evidence, &customer_text, &mut push);
            super::counted::check_counted(&body, evidence, &record_counts, &customer_text, &mut push);
            super::definitions::check_definitions(&folded, evidence, &customer_terms, &mut push);
            super::unknown_ids::check_unknown_history(&body, &previous, &known, &mut push);
            if evidence.passages.is_empty() {
                // Nothing to say it from: only a statement of absence ("no listing matches") stands.
                // "no property XY-9999 …, so I can't tell you" states only absences; "it was a
                // two-room flat that was let last month" asserts in one of its clauses.
                // "Wie lange die Bearbeitung dauert, geht aus meinen Unterlagen nicht
                // hervor": the indirect question names what the records lack.
                let absence = ABSENCE.is_match(&folded);
                let asserts = folded_clauses.iter().any(|(_, c)| {
                    let cp = polarity(c);
                    terms(&CONTRACTION.replace_all(c, "")).len() >= 2
                        && !(absence && INDIRECT_QUESTION.is_match(c))
                        && !cp.negated
                        && !cp.conditional
                        && !REQUEST.is_match(c)
                        && !THANKS.is_match(c)
                });
                if sentence_terms.len() >= 2
                    && asserts
                    && !THANKS.is_match(&folded)
                    && !EMPTY_RESULT.is_match(&folded)
                    && !polarity(&folded).conditional
                    && !REQUEST.is_match(&folded)
                    && !customer_covers(&sentence_terms, &customer_terms)
                {
                    push(FindingKind::Unsupported, "no tool result supports it".into(), None);
                }
            } else {
                // Something said to be included or extra that no record in scope
                // mentions ("hot water is metered and charged on top"): the
                // subject may sit in another clause, so the whole sentence is read.
                // "1,650 EUR plus 240 EUR" adds two figures: arithmetic, not an extra.
                let whole = polarity(&FIGURE_PLUS.replace_all(&PARENS.replace_all(&folded, " "), " "));
                // "Diese Kosten sollten Sie zusätzlich einplanen": a demonstrative
                // subject is what the sentence before named.
                if whole.included.is_some() && !whole.conditional && !DEMONSTRATIVE_SUBJECT.is_match(&folded) {
                    let subject: Vec<Term> =
                        focus(&sentence_terms).into_iter().filter(|t| !GENERIC.contains(&t[0])).collect();
                    let in_scope_vocabulary: BTreeSet<&str> = evc
                        .iter()
                        .filter(in_scope)
                        .flat_map(|e| e.terms.iter().flatten().map(String::as_str))
                        .collect();
                    if !subject.is_empty()
                        && shared(&subject, &in_scope_vocabulary) == 0
                        && !customer_covers(&subject, &customer_terms)
                    {
                        push(
                            FindingKind::Unsupported,
                            "says what is included or extra, but no record in scope mentions it".into(),
                            None,
                        );
                    }
                }
                // Contradictions, clause by clause.
                // A qualification qualifies its own part of the sentence (up to a
                // semicolon: "…; the agency provides these on request"), and a
                // denied need of approval ("eine Zustimmung brauchen Sie nicht")
                // qualifies nothing.
                let sentence_qualified = folded_clauses
                    .iter()
                    .any(|(_, c)| polarity(c).qualified && !(polarity(c).negated && NEED.is_match(c)));
                let qualified_part = |c: &str| {
                    let part = body.split(';').find(|seg| seg.contains(c.trim())).unwrap_or(&body);
                    clauses(part).iter().any(|(_, pc)| {
                        let pp = polarity(&plain(pc));
                        pp.qualified && !(pp.negated && NEED.is_match(&plain(pc)))
                    })
                };
                let body_clauses = clauses(&body);
                for (k, &(conclusive, c)) in body_clauses.iter().enumerate() {
                    // "– zusätzlich zu Kaltmiete und Nebenkosten": a verbless tail that
                    // says what the clause before comes on top of states nothing itself.
                    if k > 0 && ON_TOP_TAIL.is_match(&plain(c)) && !VERB.is_match(&plain(c)) {
                        continue;
                    }
                    let outer = PARENS.replace_all(c, " ");
                    let p = polarity(&outer);
                    // "covered by the Nebenkosten", "included in the utilities of 240 EUR":
                    // the utilities hold what the clause speaks of; they are not its subject.
                    let ct = if p.included == Some(true) && UTILITIES_CONTAINER.is_match(c) {
                        terms(&UTILITIES_CONTAINER.replace_all(c, " "))
                    } else {
                        terms(c)
                    };
                    // "In B-2001 sind Hunde | und Katzen nicht erlaubt": the first
                    // conjunct shares the denial that closes the second.
                    if !p.negated && body_clauses.get(k + 1).is_some_and(|(_, n)| shares_denial(&body, c, n)) {
                        continue;
                    }
                    // One content word states nothing to contradict ("als Mieterin"), unless it is denied.
                    if ct.is_empty() || (ct.len() < 2 && !p.negated) {
                        continue;
                    }
                    // A list item without a verb or a polarity word ("hamsters or budgies") asserts nothing.
                    if !(p.negated || p.included.is_some() || p.qualified || p.permits) && !VERB.is_match(&plain(c)) {
                        continue;
                    }
                    if p.conditional {
                        continue;
                    }
                    // "…, nicht bei Vermietungen": a short denial without a verb takes its
                    // predicate from the clause before; alone it says nothing to compare.
                    if p.negated
                        && p.included.is_none()
                        && !p.permits
                        && !p.qualified
                        && !VERB.is_match(&plain(c))
                        && ELLIPTIC_NOT.is_match(&plain(c))
                    {
                        continue;
                    }
                    if super::clause_relations::elliptic(&body, k.checked_sub(1).map(|j| body_clauses[j].1), c) {
                        continue;
                    }
                    // "… Wohnungen heraus, | in denen Katzen erlaubt sind" speaks of other flats.
                    if k > 0 && super::wording::about_other_flats(&plain(body_clauses[k - 1].1), &plain(c)) {
                        continue;
                    }
                    // What the listing text says or asks, reported ("the listing
                    // contains an instruction to confirm the viewing"), and an
                    // inclusion whose object is a pronoun ("already cover it"):
                    // no polarity of their own to set against a record clause.
                    // "one of them could work with a dog" says nothing of each listing named.
                    if REPORTED.is_match(&plain(c)) || PRONOUN_OBJECT.is_match(&plain(c)) || ONE_OF.is_match(&plain(c))
                    {
                        continue;
                    }
                    // "The listing doesn't say how much of the 240 EUR is for heating"
                    // denies a record's content, not the content itself.
                    if p.negated && ABSENCE.is_match(&plain(c)) {
                        continue;
                    }
                    // Clauses on the same topic; for a plain yes/no of polarity the
                    // subject must be shared too, unless the reply grants a permission
                    // (then "possible" / "allowed" is the subject).
                    let related: Vec<&EvClause> = evc
                        .iter()
                        .filter(in_scope)
                        .filter(|e| !e.polarity.conditional && !e.listish && about_same(&ct, &e.terms))
                        .collect();
                    // An inclusion said of the one thing a short record clause is
                    // about ("heating not included") is about that thing, however
                    // long the reply's clause.
                    let inclusion_of = |e: &EvClause| {
                        p.included.is_some()
                            && e.polarity.included.is_some()
                            && focus(&e.terms).len() == 1
                            // "plus 240 EUR utilities (heating included)": the gloss has a polarity of its own.
                            && shared(&focus(&terms(&outer)), &vocabulary(&focus(&e.terms))) == 1
                    };
                    let same: Vec<&EvClause> = related
                        .iter()
                        .copied()
                        // Before any listing is named, with several in the evidence, one
                        // listing's record cannot say what the sentence is about.
                        .filter(|e| !(scope.is_empty() && known.len() > 1 && e.listing.is_some()))
                        .filter(|e| p.permits || same_subject(&ct, &e.terms) || inclusion_of(e))
                        // An all-inclusive rent and a cold rent are different figures.
                        .filter(|e| !rent_kinds_differ(&plain(c), &plain(&e.clause)))
                        // "Tenants pay no commission" says nothing against "the landlord pays it".
                        .filter(|e| !parties_differ(&plain(c), &plain(&e.clause)))
                        // "for business use only" agrees with "not approved for residential use".
                        .filter(|e| !(EXCLUSIVE.is_match(&plain(c)) && !p.negated && e.polarity.negated))
                        // A clause of a sentence about small animals that names no dog or cat.
                        .filter(|e| {
                            let about_pets =
                                e.source.ends_with(".petsAllowed") || DOG_OR_CAT.is_match(&plain(&e.clause));
                            !(about_pets && SMALL_ANIMALS.is_match(&plain(&body)) && !DOG_OR_CAT.is_match(&plain(c)))
                        })
                        // "the cold rent isn't 1,500 EUR (but 1,650 EUR)" denies another
                        // figure than the record gives: no contradiction of the record's.
                        .filter(|e| !(p.negated && denies_other_figure(c, &e.clause)))
                        .filter(|e| {
                            // "on the fifth floor with no lift" does not deny the fifth floor.
                            (!p.negated || e.polarity.negated || denial_meets(c, &e.terms))
                                && (!e.polarity.negated || p.negated || denial_meets(&e.clause, &ct))
                        })
                        .collect();
                    // A record clause that says nothing of inclusion ("heated by gas
                    // central heating") neither backs nor denies "billed directly".
                    let same: Vec<&EvClause> = if p.included.is_some() {
                        same.into_iter().filter(|e| e.polarity.included.is_some() || e.polarity.negated).collect()
                    } else {
                        same
                    };
                    // A general policy clause gives way to the listing's own record when
                    // that record, on the same topic, says what the reply says.
                    let general_only = same.iter().all(|e| e.listing.is_none())
                        && related.iter().any(|e| {
                            // With one listing in the evidence, it is the one the reply speaks of.
                            e.listing.is_some() && (!scope.is_empty() || known.len() == 1) && !p.disagrees(&e.polarity)
                        });
                    if let Some(first) =
                        same.first().filter(|_| !general_only && same.iter().all(|e| p.disagrees(&e.polarity)))
                    {
                        push(
                            FindingKind::Contradicted,
                            format!("“{}” says the opposite of [{}]: “{}”", c.trim(), first.source, first.clause),
                            Some(first.source.clone()),
                        );
                        break;
                    }
                    let Some(first) = related.first() else { continue };
                    let same = &related;
                    // A statement of fact the records make without condition, made to
                    // depend on one ("steigt um 3,5 % – vorausgesetzt, der Vermieter kündigt
                    // an", "sind enthalten, solange Ihr Verbrauch im üblichen Rahmen bleibt").
                    if !p.negated && !p.permits && !p.qualified && narrowed_by_condition(&body, c) {
                        // With a figure, the record clauses that give it are the ones restated.
                        let figs = super::numbers::numbers(c);
                        let with_figure: Vec<&&EvClause> = same
                            .iter()
                            .filter(|e| {
                                super::numbers::numbers(&e.clause)
                                    .iter()
                                    .any(|v| figs.iter().any(|f| super::numbers::same_value(*f, *v)))
                            })
                            .collect();
                        let restated: Vec<&&EvClause> =
                            if with_figure.is_empty() { same.iter().collect() } else { with_figure };
                        if restated
                            .iter()
                            .all(|e| !e.polarity.qualified && !e.polarity.negated && !e.polarity.conditional)
                        {
                            push(
                                FindingKind::Contradicted,
                                format!(
                                    "“{}” is made to depend on a condition that [{}] does not have: “{}”",
                                    c.trim(),
                                    first.source,
                                    first.clause
                                ),
                                Some(first.source.clone()),
                            );
                            break;
                        }
                    }
                    if p.negated || !p.permits {
                        continue;
                    }
                    // A yes that drops the records' condition, or adds one they do not have.
                    let conclusive = conclusive || CONCLUDES.is_match(&plain(c));
                    let qualified = p.qualified || (!conclusive && sentence_qualified);
                    // "Wir können die Frage für Ihre Katze gern stellen" is the request route itself.
                    let offers_to_ask = OFFER_TO_ASK.is_match(&plain(c));
                    if !qualified && !offers_to_ask && same.iter().all(|e| e.polarity.qualified && !e.polarity.negated)
                    {
                        push(
                            FindingKind::Contradicted,
                            format!("“{}” drops the condition of [{}]: “{}”", c.trim(), first.source, first.clause),
                            Some(first.source.clone()),
                        );
                        break;
                    }
                    if qualified_part(c) && same.iter().all(|e| !e.polarity.qualified && !e.polarity.negated) {
                        push(
                            FindingKind::Contradicted,
                            format!(
                                "“{}” adds a condition that [{}] does not have: “{}”",
                                c.trim(),
                                first.source,
                                first.clause
                            ),
                            Some(first.source.clone()),
                        );
                        break;
                    }
                }
                support = evc
                    .iter()
                    .filter(in_scope)
                    .map(|c| (shared(&sentence_terms, &vocabulary(&c.terms)), c))
                    .max_by_key(|(n, _)| *n)
                    .filter(|(n, _)| *n > 0)
                    .map(|(_, c)| c.source.clone());
            }
        }
        previous = body;
        out.sentences.push(SentenceCheck { index: i + 1, text: text.to_owned(), role, support, findings });
    }
    out
}

/// A subject that points back to the sentence before ("Diese Kosten …",
/// "These costs …", "Das …").
static DEMONSTRATIVE_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\W*(diese[nrs]?|these|those|this|that|das|dies)\b( (costs?|kosten|betrag|amount|charges?|gebuhr\w*))?\b",
    )
    .expect("valid pattern")
});

/// A letter's closing salutation ("Mit freundlichen Grüßen", "Kind regards").
static CLOSING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(mit freundlichen grussen|freundliche grusse|viele grusse|beste grusse|herzliche grusse|liebe grusse|kind regards|best regards|warm regards|regards|best wishes|yours sincerely|sincerely|yours faithfully|cheers)\W*$")
        .expect("valid pattern")
});

/// The signature under a closing salutation ("Ihr Immobilien-Assistent"):
/// a name or a title of at most four words, no claim.
fn signature(folded: &str, previous: &str) -> bool {
    CLOSING.is_match(&plain(previous)) && folded.split_whitespace().count() <= 4 && !VERB.is_match(folded)
}

fn customer_covers(t: &[Term], customer: &[Term]) -> bool {
    shared(t, &vocabulary(customer)) * 2 > t.len()
}

#[cfg(test)]
#[path = "claims_agreement_tests.rs"]
mod agreement_tests;
#[cfg(test)]
#[path = "claims_tests.rs"]
mod claims_tests;
#[cfg(test)]
#[path = "claims_commitment_tests.rs"]
mod commitment_tests;
