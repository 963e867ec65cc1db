//! Tests of the sentence-by-sentence grounding (`claims`) where a reply agrees with its
//! record in other words: exclusive uses, small animals, offers to ask, conjuncts,
//! signatures and demonstrative subjects.
use super::*;

fn record(id: &str, description: &str, pets: &str) -> Evidence {
    let mut e = Evidence::default();
    e.add_tool_result(&serde_json::json!({"id": id, "title": "Unit", "city": "Berlin", "district": "Mitte",
        "description": description, "price": 1280.0, "priceUnit": "EUR/month", "livingAreaSqm": 60.0, "rooms": 2.0,
        "floor": 1, "yearBuilt": 1990, "features": [], "petsAllowed": pets}));
    e
}

/// An exclusive yes implies the other uses' no; a clause about small
/// animals is not one about dogs and cats; the agency offering to ask
/// is the request route, not a yes without its condition.
#[test]
fn only_small_animals_and_an_offer_to_ask_agree_with_the_record() {
    let shop = record("B-2003", "The unit is approved for commercial use only. The unit is not approved for residential use, and living there is not permitted.", "no");
    for reply in [
        "Unfortunately not – B-2003 is licensed for business use only, so you aren't allowed to live there [B-2003].",
        "It isn't approved as a residence, and living there is not permitted [B-2003].",
    ] {
        let g = check(reply, &shop, &["Can I live in B-2003?"], 0);
        assert!(g.is_clean(), "{reply}: {g:#?}");
    }
    let flat = record("B-2001", "Dogs and cats are not allowed in the flat.", "no");
    let g = check(
        "Kleintiere in Käfig oder Aquarium, etwa Hamster oder Fische, wären dagegen grundsätzlich ohne Rückfrage erlaubt.",
        &flat,
        &["Darf ich meine Katze mitbringen?"],
        0,
    );
    assert!(g.findings().all(|f| f.kind != FindingKind::Contradicted), "{g:#?}");
    // Two conjuncts share the denial that closes the second.
    let g = check(
        "Leider nein: In B-2001 sind Hunde und Katzen nicht erlaubt.",
        &flat,
        &["Darf ich meine Katze mitbringen?"],
        0,
    );
    assert!(g.is_clean(), "{g:#?}");
    let g = check("In B-2001 sind Katzen erlaubt.", &flat, &["Darf ich meine Katze mitbringen?"], 0);
    assert!(g.findings().any(|f| f.kind == FindingKind::Contradicted), "{g:#?}");
    let on_request = record("B-2002", "Dogs and cats are possible on request.", "on request");
    let g = check(
        "Wir können die Frage für Ihre kleine Katze gern stellen.",
        &on_request,
        &["Darf ich meine Katze mitbringen?"],
        0,
    );
    assert!(g.findings().all(|f| f.kind != FindingKind::Contradicted), "{g:#?}");
}

/// A letter's signature is courtesy; a sentence whose subject points
/// back ("Diese Kosten …") speaks of what the sentence before named.
#[test]
fn a_signature_and_a_demonstrative_subject_claim_nothing_new() {
    let g = check(
        "Eine Restaurantempfehlung kann ich Ihnen leider nicht geben.\nMit freundlichen Grüßen\nIhr Immobilien-Assistent",
        &Evidence::default(),
        &["Welches Restaurant empfehlen Sie?"],
        0,
    );
    assert!(g.is_clean(), "{g:#?}");
    let house = record("HH-1003", "Utilities (Nebenkosten) are an additional 290 EUR per month, heating not included. The house is heated by an air-source heat pump; tenants pay its electricity directly to the supplier.", "yes");
    let g = check(
        "Den Strom für die Wärmepumpe zahlen Sie direkt an den Versorger. Diese Kosten sollten Sie also zusätzlich zu den 290 EUR einplanen.",
        &house,
        &["Sind die Heizkosten enthalten?"],
        0,
    );
    assert!(g.findings().all(|f| f.kind != FindingKind::Unsupported), "{g:#?}");
}

/// "Tenants pay no commission" and "the landlord pays it" speak of different
/// parties: no contradiction. The same denial of the landlord is one.
#[test]
fn a_denial_for_another_party_contradicts_nothing() {
    let mut e = Evidence::default();
    e.add_tool_result(&serde_json::json!({"found": true, "results": [{"chunkId": "policy:commission#rentals", "listingId": null,
        "text": "Under the Bestellerprinzip, the party who commissioned the agency pays the commission, and for our rentals this is always the landlord."}]}));
    let ask = ["Muss ich als Mieter Provision zahlen?"];
    let g = check("Bei Vermietungen über unsere Agentur fällt für die Mieterseite keine Provision an [policy:commission#rentals].", &e, &ask, 0);
    assert!(g.is_clean(), "{g:#?}");
    let g = check(
        "Bei unseren Vermietungen zahlt die Vermieterseite keine Provision [policy:commission#rentals].",
        &e,
        &ask,
        0,
    );
    assert!(!g.is_clean(), "{g:#?}");
}

/// A fact the record states without condition, made to depend on one.
#[test]
fn a_condition_the_record_does_not_set() {
    let e = record(
        "K-4001",
        "The rent is an all-inclusive rent (Warmmiete, also Pauschalmiete) of 1,350 EUR per month. Utilities, heating, electricity and internet are all included in the rent.",
        "no",
    );
    let ask = ["Welche Nebenkosten kommen bei K-4001 dazu?"];
    let g = check(
        "Bei K-4001 sind Nebenkosten, Heizung, Strom und Internet in der Miete enthalten, solange Ihr Verbrauch im üblichen Rahmen bleibt [K-4001].",
        &e,
        &ask,
        0,
    );
    assert!(g.findings().any(|f| f.kind == FindingKind::Contradicted), "{g:#?}");
    let g =
        check("Bei K-4001 sind Nebenkosten, Heizung, Strom und Internet in der Miete enthalten [K-4001].", &e, &ask, 0);
    assert!(g.is_clean(), "{g:#?}");
}

/// A listing's figure beside a policy citation: the policy backs the rule
/// the sentence states, and the figure is in the record of the listing the
/// reply cites. Without that listing cited in the reply, the policy
/// citation must hold the figure itself.
#[test]
fn a_listing_figure_beside_a_policy_citation() {
    let mut e = Evidence::default();
    e.add_tool_result(&serde_json::json!({"id": "HH-1001", "title": "Flat", "price": 1650.0, "priceUnit": "EUR/month",
        "description": "The cold rent (Kaltmiete) is 1,650 EUR per month. Utilities (Nebenkosten) are an additional 240 EUR per month, heating included."}));
    e.add_tool_result(&serde_json::json!({"found": true, "results": [{"chunkId": "policy:utilities#heating", "listingId": null,
        "text": "Where heating is included in the utilities, heating costs are billed mainly by measured consumption."}]}));
    let ask = ["Is heating included for HH-1001?"];
    let unsupported = |reply: &str| {
        check(reply, &e, &ask, 0).findings().filter(|f| f.reason.contains("not in the cited source")).count()
    };
    let first = "Utilities are 240 EUR a month, heating included [HH-1001#s2]. ";
    assert_eq!(
        unsupported(&format!(
            "{first}So the 240 EUR is an advance payment billed by consumption [policy:utilities#heating]."
        )),
        0
    );
    // Without the listing cited anywhere, the policy citation has to hold the figure.
    assert_eq!(
        unsupported("So the 240 EUR is an advance payment billed by consumption [policy:utilities#heating]."),
        1
    );
}

/// An estimate the same sentence calls final is presented as final.
#[test]
fn an_estimate_called_final_in_its_own_sentence() {
    let mut e = Evidence::default();
    e.add_tool_result(&serde_json::json!({"id": "M-3001", "title": "Flat", "description": "A special levy (Sonderumlage) for the facade renovation is estimated at 18,000 EUR; the amount is not yet final."}));
    let ask = ["Is the special levy for M-3001 final?"];
    let contradicted = |reply: &str| check(reply, &e, &ask, 0).findings().any(|f| f.kind == FindingKind::Contradicted);
    assert!(contradicted("The special levy is estimated at 18,000 EUR [M-3001], and that's the final estimate."));
    assert!(!contradicted("The special levy is estimated at 18,000 EUR [M-3001]; it is not yet final."));
}

/// An estimate called settled in other words, in a sentence of its own.
#[test]
fn an_estimate_settled_in_other_words() {
    let mut e = Evidence::default();
    e.add_tool_result(&serde_json::json!({"id": "M-3001", "title": "Flat", "description": "A special levy (Sonderumlage) for the facade renovation is estimated at 18,000 EUR; the amount is not yet final."}));
    let ask = ["Is the special levy for M-3001 final?"];
    let contradicted = |reply: &str| check(reply, &e, &ask, 0).findings().any(|f| f.kind == FindingKind::Contradicted);
    assert!(contradicted("The levy is estimated at 18,000 EUR [M-3001]. So that figure is in effect settled."));
    assert!(contradicted("The levy is estimated at 18,000 EUR [M-3001]. The sum itself has been fixed for this unit."));
    assert!(!contradicted("The levy is estimated at 18,000 EUR [M-3001]. The sum has not been fixed yet."));
}

/// A structured voice that quotes its record and restates it: a denial in
/// another clause, "Für Sie heißt das", a figure's party in its own clause,
/// an amount "ohne Nebenkosten", a debt denied where the record's term is
/// free of debts, and an empty search in "none of them" words. Source: the
/// label-only sibling split `labels/dev57.yaml`.
#[test]
fn restatements_of_a_quoted_record_agree_with_it() {
    let k4002 = record(
        "K-4002",
        "The landlord provides the confirmation of residence (Wohnungsgeberbestätigung) needed for the Anmeldung.",
        "yes",
    );
    let q = ["Muss ich mich um das Formular für die Anmeldung selbst kümmern?"];
    for reply in [
        "**Kurz:** Um dieses Formular müssen Sie sich bei K-4002 keine Gedanken machen – Sie erhalten es vom Vermieter.",
        "Für Sie heißt das: Die Bescheinigung des Wohnungsgebers wird Ihnen vom Vermieter der Wohnung ausgehändigt.",
    ] {
        let g = check(reply, &k4002, &q, 0);
        assert!(g.is_clean(), "{reply}: {g:#?}");
    }
    // The wrong twin keeps the denial and the landlord in one clause.
    let g = check("Die Bestätigung kommt bei K-4002 nicht vom Vermieter.", &k4002, &q, 0);
    assert!(!g.is_clean());

    let mut sale = Evidence::default();
    sale.add_tool_result(&serde_json::json!({"results": [{"chunkId": "policy:commission#sales", "text":
        "For sales, the commission is split equally between buyer and seller, as required by law. The buyer's share of the commission (Käuferprovision) is 3.57 percent of the purchase price including VAT. The seller pays the same share."}]}));
    let q = ["What is my share of the fee if I buy?"];
    let g = check("So those 3.57 percent are your half; the seller carries an equal share.", &sale, &q, 0);
    assert!(g.is_clean(), "{g:#?}");
    let g = check("The seller pays 3.57 percent, and you pay nothing.", &sale, &q, 0);
    assert!(!g.is_clean());

    let mut hh = record("HH-1002", "The cold rent (Kaltmiete) is 1,190 EUR per month. Utilities (Nebenkosten) are an additional 195 EUR per month, heating included.", "no");
    hh.add_user_text("Haben Sie in Hamburg eine Mietwohnung für höchstens 1.500 € kalt?");
    let q = ["Haben Sie in Hamburg eine Mietwohnung für höchstens 1.500 € kalt?"];
    let g = check("Ohne Nebenkosten zahlen Sie also 1.190 € im Monat.", &hh, &q, 0);
    assert!(g.is_clean(), "{g:#?}");
    let g = check("Die Nebenkosten betragen 1.190 € im Monat.", &hh, &q, 0);
    assert!(!g.is_clean());

    let mut viewing = Evidence::default();
    viewing.add_tool_result(&serde_json::json!({"results": [{"chunkId": "policy:viewings#what-to-bring", "text":
        "A rent payment certificate (Mietschuldenfreiheitsbescheinigung) from your current landlord completes the application."}]}));
    let g = check(
        "**Useful extra:** a Mietschuldenfreiheitsbescheinigung – a note from your present landlord that you owe no rent – rounds off your application.",
        &viewing,
        &["Which papers do I need?"],
        0,
    );
    assert!(g.findings().all(|f| f.kind != FindingKind::Contradicted), "{g:#?}");

    let mut empty = Evidence::default();
    empty.add_user_text("Anything to rent in Hamburg under 700 EUR?");
    let g = check(
        "So every Hamburg flat we currently let costs more than your limit, and none of them fits this budget.",
        &empty,
        &["Anything to rent in Hamburg under 700 EUR?"],
        0,
    );
    assert!(g.is_clean(), "{g:#?}");
}

/// "keine weiteren Erhöhungen" denies what comes beyond the graduated rent's
/// steps; "steht dem Vermieter offen" permits. Source: `labels/dev50.yaml`,
/// `labels/dev57.yaml`.
#[test]
fn further_increases_denied_agree_and_an_open_option_permits() {
    let mut e = record(
        "B-2001",
        "The rent is a graduated rent (Staffelmiete) that rises by 3.5 percent every year on 1 January.",
        "no",
    );
    e.add_tool_result(&serde_json::json!({"results": [{"chunkId": "policy:graduated-rent#no-index-increases", "text":
        "During a graduated rent, the landlord cannot add an index increase (Indexmiete) or raise the rent to the local comparative rent. Rent increases after modernisation are also excluded while the graduated rent runs. Only the steps agreed in the contract apply."}]}));
    let q = ["Kann die Miete bei B-2001 zusätzlich an die Inflation gekoppelt werden?"];
    let g =
        check("Anders als bei einer Indexmiete kommen während der Staffel keine weiteren Erhöhungen hinzu.", &e, &q, 0);
    assert!(g.is_clean(), "{g:#?}");
    let g = check("Eine Indexerhöhung zusätzlich zu vereinbaren, steht dem Vermieter offen.", &e, &q, 0);
    assert_eq!(g.count(FindingKind::Contradicted), 1, "{g:#?}");
}

/// "left out of the calculation" denies like "without"; a conjunct of an
/// "as are …" clause borrows its denial. Source: labels/dev58.yaml, dev59.yaml.
#[test]
fn left_out_and_elliptic_conjuncts_agree_with_a_denial() {
    let mut e = Evidence::default();
    e.add_tool_result(&serde_json::json!({"results": [
        {"chunkId": "policy:deposit#amount", "text": "The deposit (Kaution) is at most three months' cold rent, without utilities."},
        {"chunkId": "policy:graduated-rent#no-index-increases", "text":
            "During a graduated rent, the landlord cannot add an index increase (Indexmiete) or raise the rent to the local comparative rent. Rent increases after modernisation are also excluded while the graduated rent runs."}]}));
    let q = ["How high may a deposit be, and can an index be added to a graduated rent?"];
    for reply in [
        "Our deposit policy puts the ceiling at three months' worth of the cold rent, that is the bare rent with the utilities (Nebenkosten) left out of the calculation.",
        "While the Staffelmiete runs, an Indexmiete adjustment is ruled out on top of it, as are a rise to the local comparative rent and a rise after modernisation.",
    ] {
        let g = check(reply, &e, &q, 0);
        assert!(g.findings().all(|f| f.kind != FindingKind::Contradicted), "{reply}: {g:#?}");
    }
    let g = check("The deposit includes the utilities.", &e, &q, 0);
    assert!(!g.is_clean());
}

/// A subject set off by "on the other hand" keeps its predicate; an index
/// rent is a rent that follows inflation. Source: labels/dev56.yaml.
#[test]
fn an_interrupted_subject_and_inflation_are_read_against_the_record() {
    let mut e = Evidence::default();
    e.add_tool_result(&serde_json::json!({"results": [{"chunkId": "policy:viewings#what-to-bring", "text":
        "Please bring an ID card or passport and proof of income for the last three months. We also ask for a SCHUFA credit report."},
        {"chunkId": "policy:graduated-rent#no-index-increases", "text":
        "During a graduated rent, the landlord cannot add an index increase (Indexmiete) or raise the rent to the local comparative rent. Only the steps agreed in the contract apply."}]}));
    let q = ["What do I need, and can the rent follow inflation?"];
    for wrong in [
        "The SCHUFA credit report, on the other hand, is something you don't need to have on you for the viewing itself.",
        "Anders sieht es aus, wenn Sie beide eine Indexklausel aufnehmen; dann kann die Miete neben den Stufen auch der Inflation folgen.",
    ] {
        assert_eq!(check(wrong, &e, &q, 0).count(FindingKind::Contradicted), 1, "{wrong}");
    }
    for right in [
        "The SCHUFA credit report, on the other hand, is something we do ask you to bring.",
        "Eine Kopplung an die Inflation ist während der Staffelmiete ausgeschlossen.",
    ] {
        let g = check(right, &e, &q, 0);
        assert!(g.findings().all(|f| f.kind != FindingKind::Contradicted), "{right}: {g:#?}");
    }
}
