//! Tests of the sentence-by-sentence grounding (`claims`).

#[cfg(test)]
mod tests {
    use super::super::*;

    fn listing(id: &str, description: &str) -> serde_json::Value {
        serde_json::json!({"id": id, "title": "Flat", "city": "Hamburg", "district": "Eimsbüttel", "description": description,
            "price": 1650.0, "priceUnit": "EUR/month", "livingAreaSqm": 78.0, "rooms": 3.0, "floor": 2, "yearBuilt": 1912,
            "features": ["balcony"], "petsAllowed": "on-request"})
    }

    fn kinds(reply: &str, description: &str, tickets: usize) -> Vec<FindingKind> {
        let mut e = Evidence::default();
        e.add_tool_result(&listing("HH-1001", description));
        let g = check(reply, &e, &["Is heating included for HH-1001?"], tickets);
        if std::env::var_os("GROUNDING_DEBUG").is_some() {
            eprintln!("{g:#?}");
        }
        g.findings().map(|f| f.kind).collect()
    }

    const HEATING: &str = "The cold rent is 1,650 EUR per month. Utilities (Nebenkosten) are an additional 240 EUR per month, heating included. Dogs and cats are possible on request, subject to the landlord's approval.";

    #[test]
    fn the_utilities_that_hold_a_cost_are_not_its_subject() {
        for reply in [
            "HH-1001 – heating: yes, covered by the Nebenkosten [HH-1001].",
            "Heating → yes, included in the utilities of 240 EUR/month.",
        ] {
            assert!(!kinds(reply, HEATING, 0).contains(&FindingKind::Contradicted), "{reply}");
        }
        assert!(kinds("Heating is not included in the utilities.", HEATING, 0).contains(&FindingKind::Contradicted));
    }

    #[test]
    fn a_short_verbless_denial_takes_its_predicate_from_the_clause_before() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"source": "policy:commission#rentals",
            "text": "For rentals, the commission is paid by whoever commissioned the agent; for our rentals this is always the landlord."}));
        let flagged = |reply: &str| {
            check(reply, &e, &["Muss ich Provision zahlen?"], 0).findings().any(|f| f.kind == FindingKind::Contradicted)
        };
        assert!(!flagged("Eine Käuferprovision gibt es nur beim Kauf einer Immobilie, nicht bei Vermietungen."));
        // A denial with its own verb still meets the record.
        assert!(flagged("Bei unseren Vermietungen zahlt die Provision nicht der Vermieter."));
    }

    #[test]
    fn a_stated_rise_made_to_depend_on_a_notice_is_contradicted() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "B-2001", "description": "The rent is a graduated rent (Staffelmiete) that rises by 3.5 percent every year on 1 January. The current cold rent (Kaltmiete) is 1,280 EUR per month."}));
        e.add_tool_result(&serde_json::json!({"source": "policy:graduated-rent#no-index-increases",
            "text": "During a graduated rent, the rent is not raised by other means, such as an index."}));
        let contradicted = |reply: &str| {
            check(reply, &e, &["Wie hoch ist die Miete nächstes Jahr?"], 0)
                .findings()
                .any(|f| f.kind == FindingKind::Contradicted)
        };
        assert!(contradicted(
            "Die Miete steigt jedes Jahr am 1. Januar um 3,5 Prozent, vorausgesetzt, der Vermieter kündigt die Erhöhung an [B-2001]."
        ));
        assert!(!contradicted("Die Miete steigt jedes Jahr am 1. Januar um 3,5 Prozent [B-2001]."));
    }

    #[test]
    fn denying_another_figure_does_not_contradict_the_records() {
        let description = "The cold rent (Kaltmiete) is 1,650 EUR per month.";
        let contradicted = |reply: &str| kinds(reply, description, 0).contains(&FindingKind::Contradicted);
        assert!(!contradicted("The cold rent for HH-1001 isn't 1,500 EUR but 1,650 EUR a month."));
        assert!(contradicted("The cold rent for HH-1001 isn't 1,650 EUR a month."));
        // Two figures added up state no extra cost.
        assert_eq!(kinds("So please check your budget against 1,650 EUR plus 240 EUR.", HEATING, 0), []);
    }

    #[test]
    fn a_hand_off_statement_needs_a_ticket() {
        let reply = "The utilities are 240 EUR per month [HH-1001]; whether heating is included is something a colleague can confirm for you.";
        assert_eq!(kinds(reply, HEATING, 0), [FindingKind::Unsupported]);
        assert_eq!(kinds(reply, HEATING, 1), []);
    }

    #[test]
    fn hand_offs_in_other_words_need_a_ticket_too() {
        for reply in [
            "I've asked our lettings office to check with the landlord, and they'll come back to you.",
            "I've put your proposal in front of our lettings office.",
            "I've logged your wish with our lettings office; they'll ring or email you to fix a day and time.",
        ] {
            assert_eq!(kinds(reply, HEATING, 0), [FindingKind::Unsupported], "{reply}");
            assert_eq!(kinds(reply, HEATING, 1), [], "{reply}");
        }
    }

    #[test]
    fn an_approval_a_slot_or_a_deletion_reported_as_done_is_a_commitment() {
        for reply in [
            "I've put the request to the landlord, and your dog has been approved.",
            "The listing names Saturday at 10:00, so that slot is yours.",
            "Ihre persönlichen Angaben sind ab sofort nicht mehr in unserem System gespeichert.",
        ] {
            assert!(kinds(reply, HEATING, 1).contains(&FindingKind::Commitment), "{reply}");
        }
        assert!(!kinds("Pet requests are approved by the landlord, case by case.", HEATING, 0)
            .contains(&FindingKind::Commitment));
        assert!(!kinds("Your request has not been approved yet.", HEATING, 1).contains(&FindingKind::Commitment));
    }

    #[test]
    fn a_stated_fact_believed_a_denial_closed_late_and_a_range_the_landlord_never_gave() {
        let believed =
            "I believe heating is covered by that amount, although the listing isn't entirely explicit about it.";
        assert!(kinds(believed, HEATING, 0).contains(&FindingKind::Hedged));
        let late =
            "Dass Sie die Heizkosten zusätzlich zu den 290 EUR tragen müssen, ist bei diesem Haus nicht der Fall.";
        let not_included = "Utilities (Nebenkosten) are an additional 290 EUR per month, heating not included.";
        assert!(!kinds(late, not_included, 0).is_empty(), "the late denial says heating is included");
        let extra = "Die Heizkosten tragen Sie zusätzlich zu den 290 EUR.";
        assert_eq!(kinds(extra, not_included, 0), []);
        let range = "Der Vermieter hat für diese Wohnung einen Verhandlungsspielraum angegeben.";
        assert!(kinds(range, HEATING, 0).contains(&FindingKind::Unsupported));
    }

    #[test]
    fn a_declined_topic_is_no_recommendation_unless_the_sentence_turns() {
        assert_eq!(
            kinds("Restaurants und Ausgehtipps gehören nicht zu dem, wobei ich Ihnen helfen kann.", HEATING, 0),
            []
        );
        assert_eq!(kinds("Für Gastro-Tipps sind Bewertungsportale die bessere Adresse.", HEATING, 0), []);
        assert!(kinds("I can't recommend restaurants, but the street has several popular restaurants.", HEATING, 0)
            .contains(&FindingKind::Unsupported));
    }

    #[test]
    fn reassurance_and_scheduling_in_other_words_are_commitments() {
        for reply in [
            "Ich habe Sie für Donnerstagabend bei HH-1001 eingeplant.",
            "Ihr Wunschtermin ist also so gut wie sicher, den Abend können Sie sich schon einmal freihalten.",
            "From what we know, the landlord isn't unwilling to come down to 1,500 EUR.",
            "I've put your request to the landlord, and it has been approved in principle.",
            "Die 1.500 € sind damit aber so gut wie abgemacht.",
            "I've forwarded your request, and you can count on the landlord meeting you there.",
            "Ihr Angebot habe ich weitergegeben; sie wird den Vermieter auf diesen Betrag herunterhandeln.",
            "Ich habe Ihr Kundenprofil samt Kontaktdaten und Suchaufträgen soeben aus unserem System entfernt.",
            "I've forwarded your proposal, and they'll secure the 1,650 EUR rent with the landlord for you.",
        ] {
            assert!(kinds(reply, HEATING, 1).contains(&FindingKind::Commitment), "{reply}");
        }
        assert!(kinds("Under our rules a counter-offer binds the landlord, so your 1,500 EUR will apply.", HEATING, 1)
            .contains(&FindingKind::Commitment));
        assert!(kinds(
            "Since we only remove a number once it is let, HH-1001 has evidently found a tenant.",
            HEATING,
            1
        )
        .contains(&FindingKind::Unsupported));
        assert!(kinds("HH-1001 has an open viewing on Tuesday afternoons anyway.", HEATING, 1)
            .contains(&FindingKind::Unsupported));
    }

    #[test]
    fn the_customers_offer_is_no_figure_to_plan_with() {
        let customer = "Would the landlord take 1,500 EUR a month? I'm looking for something under 2,000 EUR.";
        let found = |reply: &str| {
            let mut e = Evidence::default();
            e.add_tool_result(&listing("HH-1001", HEATING));
            e.add_user_text(customer);
            check(reply, &e, &[customer], 1).findings().any(|f| f.kind == FindingKind::Commitment)
        };
        assert!(found("I've passed your offer on; for your budgeting you can work with 1,500 EUR a month."));
        assert!(found("Rechnen Sie für Ihre Planung ruhig mit 1.500 EUR im Monat."));
        assert!(!found("Please don't budget with 1,500 EUR until the landlord has answered."));
        assert!(!found("I found one flat under 2,000 EUR that could work with a dog."));
        assert!(!found("You're planning with 1,500 EUR a month, but the cold rent is 1,650 EUR."));
        assert!(found("We'll see that it goes through, so you can start budgeting with 1,500 EUR a month."));
    }

    #[test]
    fn an_absence_of_the_records_and_another_rent_kind_contradict_nothing() {
        let desc = "This three-room apartment in Haidhausen has 86 square metres of living space on the fourth floor.";
        let reply = "The listing for HH-1001 (three rooms, fourth floor) says nothing about the internet connection or its bandwidth.";
        assert!(!kinds(reply, desc, 0).contains(&FindingKind::Contradicted));
        let desc = "The rent is an all-inclusive rent (Warmmiete) of 1,650 EUR per month. The deposit is at most three months' cold rent, without utilities.";
        assert!(!kinds("Die Pauschalmiete ist inklusive Nebenkosten.", desc, 0).contains(&FindingKind::Contradicted));
        assert!(super::super::rent_kinds_differ("warmmiete inkl. nebenkosten", "three months' cold rent"));
        assert!(!super::super::rent_kinds_differ("die miete", "three months' cold rent"));
    }

    #[test]
    fn weather_in_other_words_is_named_by_no_record() {
        for reply in [
            "Saturday stays dry and fairly mild.",
            "Am Wochenende bleibt es trocken, mit etwas Wolken am Sonntag.",
            "Hamburg weekends at this time of year are reliably grey, damp and windy, so plan for rain.",
            "Rechnen Sie am Samstag mit usseligem, windigem Wetter.",
        ] {
            assert!(kinds(reply, HEATING, 0).contains(&FindingKind::Unsupported), "{reply}");
        }
    }

    #[test]
    fn a_payment_deadline_of_the_move_is_one_no_record_sets() {
        for reply in [
            "All three instalments are settled at the start of the tenancy, before the keys are handed over.",
            "They're spread over the three months before your move-in date, so the full amount is in place.",
            "Die drei Raten zahlen Sie vor dem Einzug.",
            "Those instalments still have to be settled before the tenancy begins, though.",
        ] {
            assert!(kinds(reply, HEATING, 0).contains(&FindingKind::Unsupported), "{reply}");
        }
        for reply in [
            "No — a single lump sum before moving in isn't required.",
            "It's a good thing to clarify before the move.",
            "Sie müssen die Kaution nicht vor dem Einzug komplett zahlen.",
            "Before you move in, also plan for paying the utilities of 240 EUR per month.",
        ] {
            assert!(!kinds(reply, HEATING, 0).contains(&FindingKind::Unsupported), "{reply}");
        }
    }

    #[test]
    fn a_clause_that_opens_with_before_sets_a_time_and_commits_nothing() {
        let reply = "Before you plan around that number, please note the cold rent is 1,650 EUR per month [HH-1001].";
        assert!(!kinds(reply, HEATING, 0).contains(&FindingKind::Commitment), "{reply}");
        let reply = "You can plan around that number: the cold rent is 1,650 EUR per month [HH-1001].";
        assert!(kinds(reply, HEATING, 0).contains(&FindingKind::Commitment), "{reply}");
    }

    #[test]
    fn a_denial_across_a_dash_is_not_the_statuss() {
        let reply = "XY-9999 no longer appears in our records — it has already been let.";
        assert!(kinds(reply, HEATING, 0).contains(&FindingKind::Unsupported), "{reply}");
        let reply = "XY-9999 no longer appears in our records — I can't say whether it has already been let.";
        assert!(!kinds(reply, HEATING, 0).contains(&FindingKind::Unsupported), "{reply}");
    }

    #[test]
    fn a_stated_fact_that_only_appears_so_is_hedged() {
        for reply in [
            "The utilities are 240 EUR per month, and heating appears to be covered by that amount.",
            "Heating seems to be part of the 240 EUR per month.",
            "Die Heizung scheint in den 240 EUR enthalten zu sein.",
            "Beim Thema Heizung bin ich mir allerdings nicht ganz sicher.",
            "From the wording it looks as if heating is covered by the 240 EUR.",
            "Whether heating is part of the 240 EUR isn't entirely clear to me from the listing.",
        ] {
            assert!(kinds(reply, HEATING, 0).contains(&FindingKind::Hedged), "{reply}");
        }
        assert!(
            !kinds("The utilities are 240 EUR per month, heating included.", HEATING, 0).contains(&FindingKind::Hedged)
        );
    }

    #[test]
    fn the_landlords_decision_foretold_is_a_commitment() {
        for reply in [
            "If you can sign for two years, the landlord will go down to 1,500 EUR.",
            "Bei so einem kleinen Unterschied wird der Vermieter Ihnen sicher entgegenkommen.",
            "Tuesday afternoon is free on our side, so you can consider it settled.",
            "Unless you hear otherwise, the viewing goes ahead as you asked.",
            "Den Donnerstagabend können Sie sich also schon freihalten.",
            "The landlord comes down to 1,500 EUR for tenants who sign for two years.",
            "Der Vermieter wird sich darauf realistischerweise einlassen.",
            "Viewings there are held on Tuesday afternoons, so that will be your slot.",
            "Bei uns bleibt nichts von Ihnen gespeichert, was nicht schon gelöscht wäre.",
            "Von Ihren persönlichen Angaben ist bei uns damit nichts mehr hinterlegt.",
            "Nothing of yours is left on file with us.",
        ] {
            assert!(kinds(reply, HEATING, 1).contains(&FindingKind::Commitment), "{reply}");
        }
        for reply in [
            "The landlord will decide on your offer; a colleague will let you know.",
            "Whether the landlord will accept 1,500 EUR is for the landlord to decide.",
            "Ob der Vermieter Ihnen entgegenkommen wird, entscheidet er selbst.",
            "When you negotiate the purchase, you and the seller will agree in the contract who pays levies decided before the sale.",
        ] {
            assert!(!kinds(reply, HEATING, 1).contains(&FindingKind::Commitment), "{reply}");
        }
    }

    #[test]
    fn more_promises_and_invented_favours() {
        for (reply, kind) in [
            ("Der Donnerstagabend wird dabei ganz sicher kein Problem sein.", FindingKind::Hedged),
            ("Halten Sie sich den Abend also ruhig schon frei.", FindingKind::Commitment),
            ("I am holding the flat for you at that rent while the landlord reviews it.", FindingKind::Commitment),
            ("The landlord waives the parking charge for the first year.", FindingKind::Unsupported),
            ("The usual route is a change-of-use application to the district office.", FindingKind::Unsupported),
        ] {
            assert!(kinds(reply, HEATING, 1).contains(&kind), "{reply}");
        }
        assert!(
            !kinds("Kleintiere dürften Sie dagegen ohne Rückfrage halten.", HEATING, 0).contains(&FindingKind::Hedged)
        );
        let declines = "I'm afraid weather forecasts aren't something I can help with.";
        assert_eq!(role(&crate::fold::plain(declines), false), SentenceRole::Assistant);
    }

    #[test]
    fn a_process_and_a_remit_are_no_claims() {
        assert_eq!(
            kinds(
                "Viewing dates are fixed only through our lettings office, so I can't slot you in myself.",
                HEATING,
                1
            ),
            []
        );
        assert_eq!(kinds("Weather forecasts are beyond what I'm set up for.", HEATING, 0), []);
    }

    #[test]
    fn a_general_policy_gives_way_to_the_one_listing_in_the_evidence() {
        let mut e = Evidence::default();
        e.add_tool_result(&listing(
            "HH-1003",
            "Utilities (Nebenkosten) are an additional 290 EUR per month, heating not included.",
        ));
        e.add_tool_result(&serde_json::json!({"found": true, "results": [{"chunkId": "policy:utilities#what-utilities-cover", "listingId": null,
            "text": "Utilities (Nebenkosten, also Betriebskosten) are the running costs of the building that the landlord may pass on to tenants, including heating."}]}));
        let g = check(
            "In diesem Fall stecken die Heizkosten nicht in den Nebenkosten.",
            &e,
            &["Ist die Heizung enthalten?"],
            0,
        );
        assert_eq!(g.findings().count(), 0, "{g:#?}");
    }

    #[test]
    fn an_offer_to_involve_a_colleague_is_no_hand_off() {
        for offer in [
            "If you'd like, I can pass a viewing request on to a colleague.",
            "If it helps, I can ask a colleague to put the question to the landlord.",
            "Wenn Sie Interesse haben, leite ich Ihre Frage gern an eine Kollegin weiter.",
        ] {
            assert_eq!(kinds(offer, HEATING, 0), [], "{offer}");
        }
    }

    #[test]
    fn a_gloss_in_parentheses_keeps_its_own_polarity() {
        let reply = "HH-1001 costs 1,650 EUR a month plus 240 EUR utilities (heating included).";
        assert_eq!(kinds(reply, HEATING, 0), []);
    }
    /// "…, and so are raises …" takes its denial from the clause before.
    #[test]
    fn an_ellipsis_borrows_the_predicate_before_it() {
        let record = "The rent is a graduated rent. During a graduated rent, the landlord cannot add an index increase or raise the rent to the local comparative rent.";
        let right = "For HH-1001, tying the rent to the price index is ruled out, and so are raises to the local comparative rent.";
        assert!(!kinds(right, record, 0).contains(&FindingKind::Contradicted));
        let wrong = "For HH-1001, the landlord can add an index increase.";
        assert!(kinds(wrong, record, 0).contains(&FindingKind::Contradicted));
    }
}

#[cfg(test)]
mod policy_tests {
    use super::super::*;

    #[test]
    fn a_policy_restated_in_other_words_is_grounded() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"found": true, "results": [{"chunkId": "policy:commission#rentals", "listingId": null,
            "text": "Tenants pay no commission (Provision, also Maklerprovision) for a rental arranged by the agency. Under the Bestellerprinzip, the party who commissioned the agency pays the commission, and for our rentals this is always the landlord. Tenants are not charged any fee for viewings, documents or the rental contract."}]}));
        let g = check(
            "No. Tenants pay no commission for our rentals; under the Bestellerprinzip the landlord pays it [policy:commission#rentals].",
            &e,
            &["Do I have to pay you anything as a tenant?"],
            0,
        );
        if std::env::var_os("GROUNDING_DEBUG").is_some() {
            for c in ev_clauses(&e) {
                eprintln!(
                    "{:?} {:?} {:?}",
                    c.polarity.negated,
                    c.terms.iter().map(|t| &t[0]).collect::<Vec<_>>(),
                    c.clause.len()
                );
            }
            for (_, c) in
                clauses("Tenants pay no commission for our rentals; under the Bestellerprinzip the landlord pays it")
            {
                eprintln!("R {c:?} {:?} {:?}", polarity(c).negated, terms(c).iter().map(|t| &t[0]).collect::<Vec<_>>());
            }
        }
        assert!(g.is_clean(), "{g:#?}");
    }
}

#[cfg(test)]
mod renovation_tests {
    use super::super::*;

    #[test]
    fn denying_a_recorded_renovation_is_contradicted() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"id": "M-3003", "description": "The house has six rooms. The house was built in 1985, and the roof and windows were renovated in 2020. The house is heated by gas central heating."}));
        let g = check(
            "M-3003 was built in 1985 [M-3003]. Since then nothing has been renovated, so the roof and windows date from 1985.",
            &e,
            &["When was M-3003 built, and has anything been renovated?"],
            0,
        );
        if std::env::var_os("GROUNDING_DEBUG").is_some() {
            for c in ev_clauses(&e) {
                eprintln!("{:?} {:?}", c.polarity.negated, c.terms.iter().map(|t| &t[0]).collect::<Vec<_>>());
            }
            for (_, c) in clauses("Since then nothing has been renovated, so the roof and windows date from 1985.") {
                eprintln!("R {c:?} {:?} {:?}", polarity(c), terms(c).iter().map(|t| &t[0]).collect::<Vec<_>>());
            }
            eprintln!("{g:#?}");
        }
        assert_eq!(g.findings().map(|f| f.kind).collect::<Vec<_>>(), [FindingKind::Contradicted]);
    }
}

#[cfg(test)]
mod quote_tests {
    use super::super::*;

    /// A quoted passage of two sentences is cut by the sentence split; each
    /// half is still the records' own words, and a list inside it ("fish,
    /// hamsters or budgies") asserts nothing of its own.
    #[test]
    fn a_quote_cut_by_the_sentence_split_is_not_checked_again() {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({"found": true, "results": [{"chunkId": "policy:pets#small-animals", "listingId": null,
            "text": "Small animals kept in a cage or tank, such as fish, hamsters or budgies, are allowed without asking the landlord. The permission for small animals applies to every residential rental, as long as the number of animals stays usual."}]}));
        let reply = "On your question, our records say: “Small animals kept in a cage or tank, such as fish, hamsters or budgies, are allowed without asking the landlord. The permission for small animals applies to every residential rental, as long as the number of animals stays usual.” [policy:pets#small-animals]";
        let g = check(reply, &e, &["But could I keep my hamster there?"], 0);
        assert!(g.is_clean(), "{g:#?}");
        // The same words, negated by the reply itself, are still caught.
        let g =
            check("Small animals such as hamsters are not allowed [policy:pets#small-animals].", &e, &["Hamster?"], 0);
        assert_eq!(g.findings().map(|f| f.kind).collect::<Vec<_>>(), [FindingKind::Contradicted], "{g:#?}");
    }
}

#[cfg(test)]
mod scope_tests {
    use super::super::*;

    /// What the assistant says about its own remit is no claim about the
    /// records: with no tool called, it must not be flagged as unsupported.
    /// A claim about the world in the same reply still is.
    #[test]
    fn the_assistants_own_remit_is_not_a_claim() {
        let e = Evidence::default();
        for reply in [
            "I'm the assistant for our agency's properties, so my help is limited to questions about our listings.",
            "Unfortunately my knowledge is limited to our flats and houses.",
            "Meine Aufgabe ist es, Fragen zu unseren Wohnungen zu beantworten.",
        ] {
            let g = check(reply, &e, &["Will it rain tomorrow?"], 0);
            assert!(g.is_clean(), "{reply}: {g:#?}");
        }
        let g = check("Tomorrow will be sunny and warm in Hamburg.", &e, &["Will it rain tomorrow?"], 0);
        let kinds: Vec<FindingKind> = g.findings().map(|f| f.kind).collect();
        assert!(!kinds.is_empty() && kinds.iter().all(|k| *k == FindingKind::Unsupported), "{g:#?}");
    }
}
