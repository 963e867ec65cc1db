//! Who pays the agency's commission or a fee: a reply that puts it on the
//! tenant, against a record that says tenants pay none.
//!
//! The commission policy says "Tenants pay no commission … for our rentals
//! this is always the landlord. Tenants are not charged any fee". Labelled
//! wrong replies keep its words and still bill the tenant: the sales rule
//! moved to rentals ("zu gleichen Teilen zwischen Mieter und Vermieter
//! aufgeteilt"), the Bestellerprinzip read backwards ("bei unseren
//! Vermietungen ist das die Mieterseite"), the customer made the client
//! ("die Provision läge dann bei Ihnen"), or a fee under another name
//! ("stellen wir Mietern eine Bearbeitungsgebühr in Rechnung"). Source: the
//! commission faults of the dev label splits (`labels/dev*.yaml`).

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::polarity::polarity;
use super::record_clauses::passage_with_clause;
use super::wording::clauses;
use super::FindingKind;
use crate::fold::plain;

/// The agency's commission or a fee for its service (folded text).
static CHARGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(provision\w*|maklerprovision|courtage|commission|\w*gebuhr\w*|vermittlungs(kosten|pauschale|honorar)\w*|bearbeitungs(pauschale|kosten)\w*|maklerkosten|fees?|brokerage)\b")
        .expect("valid pattern")
});

/// The tenant by name (folded text).
static TENANT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(mieter\w*|tenants?|renters?)\b").expect("valid pattern"));

/// The customer addressed (folded text): the tenant in a rental reply.
/// Original case: the formal "Sie", not "sie" (it, they).
static YOU: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(Sie|Ihnen|(?i:you|your))\b").expect("valid pattern"));

/// A purchase: "you" may then be the buyer, who does pay a share.
static PURCHASE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(kauf\w*|kaufer\w*|purchase\w*|buy\w*|buyer\w*|verkauf\w*|sale|sales)\b").expect("valid pattern")
});

/// Paying, bearing, being billed, or sharing a cost (folded text).
static PAYS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(zahl\w*|bezahl\w*|tragt|tragen|trage|ubernimmt|ubernehmen|pays?|paid|paying|bears?|borne|covers|charged|charges?|billed|invoiced|berechne\w*|in rechnung|(liegt|lage|liegen|lagen)\b[^,;]{0,40}\bbei|(fallt|fallen)\b[^,;]{0,60}\ban|anfall\w*|entsteh\w*|falls? to|rests? with|lies with|\w*pflichtig|liable|(auf|zwischen) \w+ (und|and) \w+ (aufgeteilt|geteilt|verteilt)|aufgeteilt|geteilt|split|shared|halbe|half|halfte|haftig|halftig|zu gleichen teilen|equally)\b")
        .expect("valid pattern")
});

/// Costs the tenant does pay: rent, deposit, utilities (folded text).
static OTHER_COST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b((kalt|warm|pauschal|brutto|netto|monats)?mieten?|kaution|nebenkosten|betriebskosten|rent|deposit|utilities)\b").expect("valid pattern")
});

/// Freed of a charge: "von der Provision freigestellt", "exempt" (folded
/// text); denied, the tenant pays ("freigestellt werden Mieter aber nicht").
static EXEMPT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(freigestellt|befreit|exempt\w*)\b").expect("valid pattern"));

/// A clause that only names the party another clause's cost falls on ("bei
/// unseren Vermietungen ist das die Mieterseite", "that's the tenant").
static NAMES_PARTY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(also|namlich|that is|namely|i\.e\.) (sie|you|die mieter\w*|der mieter|the tenants?)\b|\b(ist|sind|is|are|'s) (das|dies|that|this|it)? ?(die |der |the )?(mieter\w*|tenants?|sie|you)\b|\b(das|dies|that|this|it) (ist|is|'s) (die |der |the )?(mieter\w*|tenants?)\b")
        .expect("valid pattern")
});

/// A record clause that frees tenants of the charge: "Tenants pay no
/// commission", "Tenants are not charged any fee" (folded text).
fn frees_tenants(clause: &str) -> bool {
    TENANT.is_match(clause) && CHARGE.is_match(clause) && polarity(clause).negated
}

/// Flags a claim sentence (`body`, original text) that has the tenant pay
/// the commission or a fee, when a passage in the evidence says tenants pay
/// none. `reply` is the whole reply (any case): in a reply about a
/// purchase, "you" may be the buyer and is not read as the tenant.
pub(super) fn check_payers(
    body: &str,
    reply: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    if !CHARGE.is_match(&folded) || !(PAYS.is_match(&folded) || EXEMPT.is_match(&folded)) {
        return;
    }
    let you_are_tenant = !PURCHASE.is_match(&plain(reply));
    let parts = clauses(body);
    let tenant_pays = parts.iter().enumerate().any(|(i, (_, original))| {
        // "split equally between landlord and | tenant": a bare conjunct
        // belongs to the clause before it.
        let original = if i > 0 && original.split_whitespace().count() <= 2 {
            format!("{} {}", parts[i - 1].1, original)
        } else {
            (*original).to_owned()
        };
        let c = plain(&original);
        let c = c.as_str();
        let p = polarity(c);
        let party = TENANT.is_match(c) || (you_are_tenant && YOU.is_match(&original));
        // "zwischen Vermieter und | Mieter aufgeteilt": the charge may sit in the
        // sentence's other clause, unless this one pays for something else.
        let pays_charge = PAYS.is_match(c) && (CHARGE.is_match(c) || !OTHER_COST.is_match(c));
        let not_exempt = EXEMPT.is_match(c) && p.negated && CHARGE.is_match(c);
        let freed = EXEMPT.is_match(c);
        party && (not_exempt || (!p.negated && !freed && (pays_charge || NAMES_PARTY.is_match(c))))
    });
    if !tenant_pays {
        return;
    }
    if let Some(r) = passage_with_clause(evidence, frees_tenants) {
        push(
            FindingKind::Contradicted,
            format!("has the tenant pay the commission or a fee; the record says tenants pay none [{}]", r.source),
            Some(r.source.clone()),
        );
    }
}

/// The party a payment goes to, named after "an"/"to" (folded text).
static PAYEE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(an|to|zu) (die|den|der|the|ihren|ihre|your) (\w+ )?(?P<party>eigentumergemeinschaft|wohnungseigentumergemeinschaft|owners'? association|homeowners'? association|hausverwaltung|verwaltung|verwalter|property manage\w*|management( company)?|vermieter\w*|landlord|versorger|supplier|energieversorger|agentur|agency|makler\w*)\b")
        .expect("valid pattern")
});

/// The payees' groups: the association and its board are one payee; a
/// landlord, a manager, a supplier and the agency are others.
fn payee_group(party: &str) -> &'static str {
    match party {
        p if p.contains("gemeinschaft") || p.contains("association") => "the owners' association",
        p if p.contains("verwalt") || p.contains("manage") => "the property management",
        p if p.starts_with("vermieter") || p == "landlord" => "the landlord",
        p if p.contains("versorger") || p == "supplier" => "the supplier",
        _ => "the agency",
    }
}

/// A recurring payment whose payee a policy names (folded text).
static PAID_TO: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(hausgeld\w*)\b").expect("valid pattern"));

/// Flags a claim sentence (`body`, original text) that sends a payment the
/// records name a payee for ("Hausgeld is the monthly payment an owner makes
/// to the owners' association") to another payee only ("Hausgeld ist die
/// monatliche Vorauszahlung an die Hausverwaltung", "… an den Vermieter").
pub(super) fn check_payees(
    body: &str,
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    let folded = plain(body);
    let Some(cost) = PAID_TO.find(&folded) else { return };
    let named: Vec<&str> = PAYEE.captures_iter(&folded).map(|c| payee_group(&c["party"])).collect();
    if named.is_empty() {
        return;
    }
    let cost = cost.as_str().trim_end_matches('s');
    for p in &evidence.passages {
        let text = plain(&p.text);
        for sentence in text.split(". ") {
            if !sentence.contains(cost) {
                continue;
            }
            let recorded: Vec<&str> = PAYEE.captures_iter(sentence).map(|c| payee_group(&c["party"])).collect();
            if let Some(r) = recorded.first() {
                if !named.iter().any(|n| recorded.contains(n)) {
                    push(
                        FindingKind::Contradicted,
                        format!("has the payment go to {}; the record says to {r} [{}]", named[0], p.source),
                        Some(p.source.clone()),
                    );
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(body: &str) -> bool {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"found": true, "results": [{"chunkId": "policy:commission#rentals", "listingId": null,
            "text": "Tenants pay no commission (Provision, also Maklerprovision) for a rental arranged by the agency. Under the Bestellerprinzip, the party who commissioned the agency pays the commission, and for our rentals this is always the landlord. Tenants are not charged any fee for viewings, documents or the rental contract."}]}));
        let mut n = 0;
        check_payers(body, body, &e, &mut |_, _, _| n += 1);
        n > 0
    }

    #[test]
    fn the_tenant_billed_in_other_words() {
        for wrong in [
            "Bei Vermietungen wird die Provision deshalb zu gleichen Teilen zwischen Vermieter und Mieter aufgeteilt.",
            "Heißt: wer die Wohnung bestellt, also anmietet, trägt die Provision; bei unseren Vermietungen ist das die Mieterseite.",
            "Da Sie sich an uns gewandt haben, gelten Sie als Auftraggeber; die Provision läge dann bei Ihnen.",
            "Für die Vermittlung stellen wir Mietern lediglich eine kleine Bearbeitungsgebühr in Rechnung.",
            "For rentals the commission is split equally between landlord and tenant.",
            "Wenn Sie uns also mit der Suche beauftragen, liegt die Provision bei Ihnen.",
            "Beauftragen Sie uns dagegen selbst mit der Suche, fällt die Provision nach demselben Prinzip bei Ihnen an.",
            "Eine Provision fällt für Sie als Mieter an – nicht jedoch Gebühren für Besichtigungen.",
            "Von der Provision freigestellt werden Mieter deshalb aber nicht.",
            "Nach dem Bestellerprinzip trägt die Provision, wer den Mietvertrag unterschreibt, also Sie als Mieter.",
            "Beauftragen Sie uns dagegen selbst mit der Suche, wären Sie der Besteller und damit provisionspflichtig.",
        ] {
            assert!(flagged(wrong), "{wrong}");
        }
        for right in [
            "Mieter zahlen bei Vermietungen keine Provision; die Vermieterseite trägt sie (Bestellerprinzip).",
            "Die Provision zahlt der Vermieter, nicht Sie.",
            "Für Besichtigungen und Unterlagen fallen für Sie keine Gebühren an.",
            "Anders als beim Kauf, wo Käufer und Verkäufer die Provision teilen, zahlen Sie als Mieter nichts.",
            "As a tenant you won't be charged any commission; the landlord pays it.",
            "Die Provision übernimmt der Vermieter, Sie zahlen nur Miete und Kaution.",
            "Als Mieter sind Sie von der Provision freigestellt.",
            "Für Sie als Mieter fällt keine Provision an.",
            "Für Sie entstehen keine Kosten für Besichtigungen oder Gebühren.",
            "Provisionspflichtig ist bei unseren Vermietungen nur der Vermieter, nicht Sie.",
        ] {
            assert!(!flagged(right), "{right}");
        }
    }

    #[test]
    fn hausgeld_goes_to_the_owners_association() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"found": true, "results": [{"chunkId": "policy:condominium#hausgeld", "listingId": null,
            "text": "Hausgeld is the monthly payment an owner makes to the owners' association (Eigentümergemeinschaft). It covers the running costs of the common property, the property management fee and contributions to the maintenance reserve."}]}));
        let flagged = |body: &str| {
            let mut n = 0;
            check_payees(body, &e, &mut |_, _, _| n += 1);
            n > 0
        };
        assert!(flagged(
            "Hausgeld ist eine monatliche Zahlung an die Hausverwaltung, mit der Heizung und Strom abgerechnet werden."
        ));
        assert!(flagged("Hausgeld ist die Nebenkostenvorauszahlung, die Mieter monatlich an den Vermieter leisten."));
        assert!(!flagged("Hausgeld ist die monatliche Zahlung an die Eigentümergemeinschaft."));
        assert!(!flagged(
            "Das Hausgeld geht an die Eigentümergemeinschaft, eingezogen wird es meist von der Hausverwaltung."
        ));
        assert!(!flagged("Hausgeld zahlen Sie an die Eigentümergemeinschaft, in der Praxis an die Hausverwaltung."));
        assert!(!flagged("Das Hausgeld beträgt 420 EUR im Monat."));
    }

    #[test]
    fn nothing_without_a_record_that_frees_tenants() {
        let mut n = 0;
        check_payers(
            "Die Provision wird zwischen Vermieter und Mieter aufgeteilt.",
            "",
            &Evidence::default(),
            &mut |_, _, _| n += 1,
        );
        assert_eq!(n, 0);
    }
}
