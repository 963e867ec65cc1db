//! Tests of commitments, promises and hand-offs in the sentence-by-sentence grounding (`claims`).

use super::*;

/// A booking said in other words is a commitment, with a ticket or
/// without; a hand-off that leaves the date open is not.
#[test]
fn bookings_in_other_words_are_commitments() {
    let e = Evidence::default();
    for reply in [
        "I've passed your request to a colleague. You're pencilled in for Tuesday afternoon.",
        "Ihren Wunsch habe ich weitergegeben. Donnerstagabend ist bei uns fest eingeplant.",
        "I've reserved the flat for you until Friday.",
        "You can simply come by at 4 pm.",
        "I've set up a weekend weather alert for Hamburg on your contact details.",
        "I'll put the request in, and the landlord's written approval will then come through with the contract papers.",
        "I've passed your complaint to a colleague, who will call you tomorrow about the repair.",
        "Ihre Anfrage habe ich weitergegeben; eine Kollegin meldet sich noch heute bei Ihnen.",
        "I've sent you a copy of the data we hold about you.",
        "I've put your Tuesday-afternoon viewing in the calendar and passed the details to a colleague.",
        "I've forwarded your request. You're already on their list for that day.",
        "Ich habe Sie für HH-1002 schon mit 1.100 € Kaltmiete als Interessenten eingetragen.",
        "Your request has gone to a colleague. The landlord shows the flat himself, so he'll be expecting you then.",
        "Your wish has gone to a colleague. Saturday itself is no problem for this flat.",
        "Ich habe Ihre Anfrage weitergeleitet, sodass Sie keine Bestätigung mehr abwarten müssen.",
        "Ihre Anfrage ist weitergeleitet; Ihre Daten liegen bei uns ab sofort nicht mehr vor.",
        "I've handed your request to a colleague. You can expect the rent to come down to 2,800 EUR.",
        "Tuesday afternoon it is for HH-1002 – a colleague will be waiting for you at the front door.",
        "Ihre Kontaktdaten sind inzwischen aus unserer Interessentendatei herausgenommen.",
        "Ich habe Ihre Anfrage weitergegeben. Er zeigt Ihnen die Wohnung dann am Donnerstagabend.",
        "Die 1.100 € Kaltmiete halte ich für Sie schon einmal fest.",
        "I've passed it on. I've already put Saturday at 10:00 in the diary for you.",
        "I've passed your request on. Tuesday afternoon is down for you already.",
        "Ihr Kundenkonto und Ihre Kontaktdaten sind bei uns bereits entfernt.",
        "Einen Preis kann ich nicht zusagen. Ihre 1.100 € kann ich aber stehen lassen.",
        "Ich habe den Donnerstagabend für Sie im Besichtigungskalender eingetragen und Ihre Anfrage an eine Kollegin weitergegeben.",
        "I've passed your request to a colleague. I've already noted the reduced rent on your application.",
    ] {
        let g = check(reply, &e, &["Can I view it?"], 1);
        assert!(g.findings().any(|f| f.kind == FindingKind::Commitment), "{reply}: {g:#?}");
    }
    // A listing's description in the marketing voice books nothing.
    for plain in ["Es erwartet Sie ein heller Altbau mit Balkon.", "In the morning it is quiet in the courtyard."] {
        let g = check(plain, &e, &["Can I view it?"], 1);
        assert!(g.findings().all(|f| f.kind != FindingKind::Commitment), "{plain}: {g:#?}");
    }
    let g = check(
        "I've passed your request to a colleague, who will contact you to agree a date. Nothing is booked until then.",
        &e,
        &["Can I view it?"],
        1,
    );
    assert!(g.is_clean(), "{g:#?}");
}

/// "Heizkosten … mit drin" says the opposite of a record clause about
/// heating alone ("heating not included"), however long the reply's clause.
#[test]
fn an_inclusion_of_the_one_thing_a_record_clause_is_about_is_compared() {
    let mut e = Evidence::default();
    e.add_tool_result(&serde_json::json!({"id": "HH-1003", "description": "Utilities (Nebenkosten) are 290 EUR per month, heating not included."}));
    let g = check(
        "Bei HH-1003 sind die Heizkosten in den 290 EUR Nebenkosten im Monat mit drin [HH-1003].",
        &e,
        &["Sind die Heizkosten enthalten?"],
        0,
    );
    assert_eq!(g.findings().map(|f| f.kind).collect::<Vec<_>>(), [FindingKind::Contradicted], "{g:#?}");
    let g = check(
        "Bei HH-1003 kommen zu den 290 EUR Nebenkosten im Monat noch die Heizkosten hinzu, sie sind nicht enthalten [HH-1003].",
        &e,
        &["Sind die Heizkosten enthalten?"],
        0,
    );
    assert!(g.is_clean(), "{g:#?}");
}

/// Knowledge no record holds, beside a correct refusal: the weather, a
/// square with good restaurants. A parking space is no square.
#[test]
fn local_knowledge_after_a_refusal_is_unsupported() {
    let e = Evidence::default();
    for reply in [
        "I can't look up forecasts. From what I know, you'd be looking at a grey, drizzly weekend around five degrees.",
        "Da kann ich nicht weiterhelfen. Rund um den Neptunplatz gibt es mehrere gute Lokale.",
    ] {
        let g = check(reply, &e, &["Wie wird das Wetter?"], 0);
        assert!(g.findings().any(|f| f.kind == FindingKind::Unsupported), "{reply}: {g:#?}");
    }
    // "let us know" is the landlord's here, not an offer to the customer.
    let g = check(
        "Good news, though: the landlord has already let us know that 2,800 EUR works for him.",
        &e,
        &["Would 2,800 EUR be possible?"],
        1,
    );
    assert!(g.findings().any(|f| f.kind == FindingKind::Unsupported), "{g:#?}");
    let mut e = Evidence::default();
    e.add_tool_result(
        &serde_json::json!({"id": "HH-1001", "description": "A space in the underground car park is available."}),
    );
    let g = check("HH-1001 has a Stellplatz in the underground car park [HH-1001].", &e, &["Parking?"], 0);
    assert!(g.findings().all(|f| !f.reason.contains("street")), "{g:#?}");
}

/// An amount the records give as an estimate, called final in a sentence
/// of its own; "not yet final" is no such claim.
#[test]
fn an_estimate_called_final_without_its_figure_is_contradicted() {
    let mut e = Evidence::default();
    e.add_tool_result(&serde_json::json!({"id": "M-3001", "description": "The special levy for the facade is estimated at 18,000 EUR and is not yet final."}));
    let said = |reply: &str| check(reply, &e, &["How much is the levy?"], 0);
    let g = said("The levy for M-3001 is estimated at 18,000 EUR [M-3001]. That estimate has since been confirmed, so the figure is now final.");
    assert!(g.findings().any(|f| f.kind == FindingKind::Contradicted), "{g:#?}");
    let g = said("The levy for M-3001 is estimated at 18,000 EUR [M-3001]. The figure is not final yet.");
    assert!(g.is_clean(), "{g:#?}");
    let g = said("**Special levy:** estimated at 18,000 EUR [M-3001].\n**Status:** this is the final figure set by the owners' association.");
    assert!(g.findings().any(|f| f.kind == FindingKind::Contradicted), "{g:#?}");
    let g = said("The levy is estimated at 18,000 EUR [M-3001]. This is not the final figure.");
    assert!(g.is_clean(), "{g:#?}");
    let g = said("The levy is estimated at 18,000 EUR [M-3001]. The figure is final; what isn't yet is the invoice.");
    assert!(g.findings().any(|f| f.kind == FindingKind::Contradicted), "{g:#?}");
    let g =
        said("The levy is estimated at 18,000 EUR [M-3001]. The figure is not final; only the invoice will fix it.");
    assert!(g.is_clean(), "{g:#?}");
}

/// "depending on", "je nach" turn a stated rule into a maybe; "before
/// you budget with it" sets a time, it guesses nothing.
#[test]
fn hedges_and_time_conditions() {
    let mut e = Evidence::default();
    e.add_tool_result(
        &serde_json::json!({"found": true, "results": [{"chunkId": "policy:deposit#instalments", "listingId": null,
        "text": "The deposit may be paid in three equal monthly instalments."}]}),
    );
    let g = check(
        "Depending on the landlord, you may be able to pay the deposit in three monthly instalments.",
        &e,
        &["Can I pay the deposit in instalments?"],
        0,
    );
    assert!(g.findings().any(|f| f.kind == FindingKind::Hedged), "{g:#?}");
    let g = check("There may be a way to pay the deposit in three monthly instalments.", &e, &["Instalments?"], 0);
    assert!(g.findings().any(|f| f.kind == FindingKind::Hedged), "{g:#?}");
    let g = check(
        "Before you budget with that figure, note that the deposit may be paid in three equal monthly instalments.",
        &e,
        &["Can I pay the deposit in instalments?"],
        0,
    );
    assert!(g.findings().all(|f| f.kind != FindingKind::Hedged), "{g:#?}");
}

/// "während der Staffel" is a preposition: the clause keeps its verb
/// and its "ausgeschlossen".
#[test]
fn waehrend_before_an_article_breaks_no_clause() {
    let mut e = Evidence::default();
    e.add_tool_result(&serde_json::json!({"found": true, "results": [{"chunkId": "policy:graduated-rent#no-index-increases", "listingId": null,
        "text": "During a graduated rent, the landlord cannot add an index increase (Indexmiete) or raise the rent to the local comparative rent."}]}));
    let g = check(
        "Eine zusätzliche Indexerhöhung oder eine Anpassung an die Vergleichsmiete ist während der Staffel ausgeschlossen [policy:graduated-rent#no-index-increases].",
        &e,
        &["Was kostet B-2001 nächstes Jahr?"],
        0,
    );
    assert!(g.is_clean(), "{g:#?}");
}

/// A policy's consequent after "If …," states no fact the reply could
/// contradict; "whether" opens no condition.
#[test]
fn the_clauses_after_an_opening_condition_are_conditional() {
    let mut e = Evidence::default();
    e.add_tool_result(
        &serde_json::json!({"found": true, "results": [{"chunkId": "policy:utilities#heating", "listingId": null,
        "text": "If heating is included, the heating costs are billed mainly according to measured consumption."}]}),
    );
    let g = check("With this flat you won't get a heating bill of your own.", &e, &["Is heating included?"], 0);
    assert!(g.findings().all(|f| f.kind != FindingKind::Contradicted), "{g:#?}");
}

/// Other words for forbidden, for included, and pointers to other sources.
#[test]
fn tabu_takes_care_of_and_pointers_elsewhere() {
    assert!(crate::grounding::polarity::polarity("Katzen sind in dieser Wohnung tabu").negated);
    assert_eq!(
        crate::grounding::polarity::polarity("the 240 EUR you pay on top for utilities takes care of the heating")
            .included,
        Some(true)
    );
    let g = check(
        "Für Ehrenfeld finden Sie auf Bewertungsportalen sicher aktuelle Tipps.",
        &Evidence::default(),
        &["Welches Restaurant empfehlen Sie?"],
        0,
    );
    assert!(g.is_clean(), "{g:#?}");
}
