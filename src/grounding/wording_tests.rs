//! Tests of the word lists and clause splitting (`wording`).
use super::*;
use crate::grounding::roles::role;
use crate::grounding::SentenceRole;

#[test]
fn a_negation_at_the_clause_end_stays_with_its_clause() {
    let c: Vec<&str> = clauses("Einen WBS brauchen Sie für diese Wohnung, anders als der Titel vermuten lässt, nicht")
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    assert_eq!(c, ["Einen WBS brauchen Sie für diese Wohnung, anders als der Titel vermuten lässt, nicht"]);
    let c: Vec<&str> = clauses(
        "Einen Wohnberechtigungsschein benötigen Sie, anders als bei vielen Wohnungen, für die Anmietung von B-2002 nicht.",
    )
    .into_iter()
    .map(|(_, t)| t)
    .collect();
    assert_eq!(c.len(), 1, "{c:?}");
    let c: Vec<&str> = clauses("Heating is included, not electricity").into_iter().map(|(_, t)| t).collect();
    assert_eq!(c, ["Heating is included", "not electricity"]);
    // The clause's own verb after its negation: "…, nicht vorlegen".
    let c: Vec<&str> = clauses(
        "Einen Wohnberechtigungsschein müssen Sie für die Anmietung, anders als bei vielen Wohnungen im Bezirk, nicht vorlegen.",
    )
    .into_iter()
    .map(|(_, t)| t)
    .collect();
    assert_eq!(c.len(), 1, "{c:?}");
    // A noun after "nicht" is a clause of its own ("not electricity" above).
    let c: Vec<&str> = clauses("Hunde sind erlaubt, nicht Katzen").into_iter().map(|(_, t)| t).collect();
    assert_eq!(c, ["Hunde sind erlaubt", "nicht Katzen"]);
}

#[test]
fn settled_slots_told_landlords_and_prepared_contracts_are_commitments() {
    let c = |s: &str| COMMITMENT.is_match(&crate::fold::plain(s));
    assert!(c("Donnerstagabends finden die Besichtigungen regelmäßig statt, Ihr Wunschtermin passt also"));
    assert!(c("I've let the landlord know that you'd take HH-1003 at 2,800 EUR"));
    assert!(c("a colleague will be in touch shortly to prepare the rental contract on that basis"));
    assert!(c("Tuesday afternoon is yours as long as you send your proof of income"));
    assert!(c("Ich habe Ihr Angebot dem Vermieter bereits übermittelt"));
    assert!(c("I've passed your offer on to the landlord"));
    assert!(!c("Ich habe Ihr Angebot an eine Kollegin weitergegeben, die mit dem Vermieter spricht"));
    assert!(!c("Ob Ihr Wunschtermin möglich ist, klärt eine Kollegin mit Ihnen"));
    assert!(!c("The landlord decides; a colleague will get back to you"));
    let done = |s: &str| DONE_BY_DENIAL.is_match(&crate::fold::plain(s));
    assert!(done("Damit werden Ihre Daten ab sofort nicht mehr bei uns geführt"));
    assert!(done("there's nothing left to confirm for Saturday"));
    assert!(!done("nothing is confirmed yet for Saturday"));
    let will = |s: &str| LANDLORD_WILL.is_match(&crate::fold::plain(s));
    assert!(will("Auf 1.100 € lässt sich der Vermieter ein, wenn Sie die Wohnung zum 1. Februar übernehmen."));
    assert!(!will("Ob sich der Vermieter darauf einlässt, entscheidet er selbst."));
    let no = |s: &str| LANDLORD_NO_REFUSAL.is_match(&crate::fold::plain(s));
    assert!(no("Dass der Vermieter 1.100 € ablehnt, ist allerdings nicht zu erwarten"));
    assert!(no("Eine Kaltmiete von 1.100 € dürfte beim Vermieter nicht auf Ablehnung stoßen"));
    assert!(no("I doubt the landlord would say no to 2,800 EUR"));
    assert!(!no("Ob der Vermieter ablehnt oder zustimmt, entscheidet er selbst"));
    assert!(c("So your preferred Tuesday afternoon fits the viewing schedule nicely."));
    assert!(c("Tuesday afternoon itself is settled, so they'll only need to agree the exact time."));
    assert!(c("Viewings are held on Tuesday afternoons anyway, so next Tuesday will work."));
    assert!(!c("A colleague will get in touch to arrange a date with you."));
    assert!(no("da wird der Vermieter bei 1.100 € statt 1.190 € kaum Nein sagen"));
    assert!(done("Der Donnerstagabend ist damit auch nicht mehr unverbindlich"));
    let said = |s: &str| LANDLORD_SAID.is_match(&crate::fold::plain(s));
    assert!(said("our Hamburg office has mentioned a storm warning for the coast"));
    assert!(!said("our lettings team will get in touch with you"));
}

#[test]
fn telling_the_customer_to_turn_up_is_a_commitment() {
    let c = |s: &str| COMMITMENT.is_match(&crate::fold::plain(s));
    assert!(c("simply come to the building in the afternoon as you suggested"));
    assert!(c("kommen Sie dann einfach am Dienstag zum Haus"));
    assert!(!c("the building has no lift"));
    assert!(!c("a colleague will come back to you about the building"));
}

#[test]
fn an_answer_word_before_a_colon_is_its_own_clause() {
    let c: Vec<&str> =
        clauses("Keine: Für K-4001 ist eine Pauschalmiete vereinbart").into_iter().map(|(_, t)| t).collect();
    assert_eq!(c.len(), 2, "{c:?}");
    let c: Vec<&str> =
        clauses("Not necessarily: the deposit can be paid in instalments").into_iter().map(|(_, t)| t).collect();
    assert_eq!(c.len(), 2, "{c:?}");
    let c: Vec<&str> = clauses("Zusätzliche Nebenkosten: keine").into_iter().map(|(_, t)| t).collect();
    assert_eq!(c.len(), 1, "{c:?}");
}

#[test]
fn a_slot_to_count_on_a_landlords_approval_and_no_confirmation_needed_are_commitments() {
    let c = |s: &str| COMMITMENT.is_match(&crate::fold::plain(s));
    assert!(c("you can count on Tuesday afternoon"));
    assert!(c("Ihr Angebot habe ich der Vermieterseite bereits übermittelt"));
    assert!(c("ein Betrag von 1.100 € wird dort als annehmbar angesehen"));
    assert!(c("und ist dort befürwortet worden"));
    assert!(c("your request for the cat has already been approved"));
    assert!(!c("the landlord has to approve your cat first"));
    assert!(!c("Die Einheit ist nur für eine gewerbliche Nutzung genehmigt"));
    assert!(!c("A colleague will be in touch to find a date you can count on."));
    let done = |s: &str| DONE_BY_DENIAL.is_match(&crate::fold::plain(s));
    assert!(done("Saturday is not something that still needs confirming"));
    assert!(done("Der Termin bedarf keiner weiteren Bestätigung"));
    assert!(!done("Saturday still needs confirming by a colleague"));
}

#[test]
fn a_denying_label_is_a_clause_of_its_own() {
    let c: Vec<&str> =
        clauses("Keine Provision: Als Mieter zahlen Sie keine Maklerprovision.").into_iter().map(|(_, t)| t).collect();
    assert_eq!(c.len(), 2, "{c:?}");
    assert!(label_stands_alone("**Keine Provision**"));
    assert!(label_stands_alone("Not confirmed yet"));
    assert!(!label_stands_alone("**Lift**"));
    assert!(super::super::polarity::polarity("keep some buffer in case the final figure differs").conditional);
}

#[test]
fn agreements_and_slots_reported_in_other_words() {
    let done = |s: &str| COMMITMENT.is_match(&crate::fold::plain(s));
    assert!(done("Ich habe das bereits mit dem Vermieter abgestimmt: Er ist mit 1.100 EUR Kaltmiete einverstanden."));
    assert!(done("Next Tuesday afternoon should work, so you can keep that time free."));
    assert!(done("Den Donnerstagabend kann ich Ihnen so bestätigen, eine Reservierung dagegen nicht."));
    assert!(done("Damit ist Ihr Wunschtermin abgedeckt."));
    assert!(done("2,800 EUR is agreed in principle."));
    assert!(done("I have also already entered 2,800 EUR as the rent on your application."));
    assert!(!done("Ich kann Ihnen bestätigen, dass die Heizung in den Nebenkosten enthalten ist."));
    assert!(done("Ihr Angebot über 1.100 € ist dem Vermieter übermittelt und für Ihren Mietvertrag vorgemerkt."));
    assert!(done("My colleague only needs to settle the exact time with you."));
    assert!(done("I've passed your request on and entered 2,800 EUR as the monthly rent."));
    let hedge = |s: &str| REPLY_HEDGE.is_match(&crate::fold::plain(s));
    assert!(hedge("Mit 1.100 EUR liegen Sie nah genug dran, das wird sich so umsetzen lassen."));
    assert!(hedge("I might be overlooking it, but I don't think the listing mentions the speed."));
    assert!(hedge("Soweit ich das Inserat verstehe, steigt sie zum 1. Januar."));
    assert!(hedge("Das ist eher als Richtwert zu verstehen."));
    assert!(hedge("The listing seems to suggest that heating is covered."));
    assert!(hedge("Ich würde aber eher damit rechnen."));
    assert!(!hedge("If yours is an assistance dog, such as a guide dog, it is not treated as a pet."));
}

#[test]
fn an_offer_that_introduces_a_statement_is_no_courtesy() {
    let r = |s: &str| role(&crate::fold::plain(s), false);
    assert_eq!(
        r("One thing I can pass on: our Hamburg office has mentioned a storm warning for the coast this weekend."),
        SentenceRole::Claim
    );
    assert_eq!(r("If you like, I can pass on your question to a colleague."), SentenceRole::Courtesy);
}

#[test]
fn restatements_wishes_and_hand_offs_in_other_words() {
    let r = |s: &str| role(&crate::fold::plain(s), false);
    assert_eq!(r("Sie suchen eine Restaurantempfehlung für Köln-Ehrenfeld."), SentenceRole::Question);
    assert_eq!(r("You'd like to know whether heating is included."), SentenceRole::Question);
    assert_eq!(r("Für Ihre Zukunft wünschen wir Ihnen alles Gute."), SentenceRole::Courtesy);
    assert_eq!(r("Verstanden, selbstverständlich kümmern wir uns darum."), SentenceRole::Courtesy);
    assert_eq!(r("Got it, we'll take care of that."), SentenceRole::Courtesy);
    assert_eq!(
        r("Zuerst schauen Sie für ein gutes Restaurant in Ehrenfeld am besten in ein Bewertungsportal oder fragen Bekannte vor Ort."),
        SentenceRole::Courtesy
    );
    assert_eq!(r("For a good meal, your best bet is to check a review site."), SentenceRole::Courtesy);
    assert_eq!(r("Danach suche ich Ihnen passende Angebote aus unseren Inseraten heraus."), SentenceRole::Courtesy);
    assert_eq!(
        r("Ihre Bitte habe ich an die Stelle in unserem Haus übermittelt, die für den Datenschutz verantwortlich ist."),
        SentenceRole::Handoff
    );
    assert_eq!(r("Ihr Angebot liegt jetzt aber bei einem Ansprechpartner aus unserem Team."), SentenceRole::Handoff);
    assert!(ABSENCE.is_match(&crate::fold::plain("neither a speed nor the type of connection appears in our record")));
    assert_eq!(r("Heating is included in the rent."), SentenceRole::Claim);
}

#[test]
fn headings_offers_self_descriptions_and_restated_requests_are_no_claims() {
    let r = |s: &str| role(&crate::fold::plain(s), false);
    assert_eq!(r("### Kurz gesagt"), SentenceRole::Courtesy);
    assert_eq!(r("**Details**"), SentenceRole::Courtesy);
    assert_eq!(r("**No, the deposit can be paid in instalments.**"), SentenceRole::Claim);
    assert_eq!(r("Gerne leite ich eine Besichtigungsanfrage an unser Team weiter."), SentenceRole::Courtesy);
    assert_eq!(
        r("Gerne unterstütze ich Sie bei der Suche nach einer Wohnung, in der Katzen erlaubt sind."),
        SentenceRole::Courtesy
    );
    assert_eq!(
        r("Sofern Sie eine Wohnung suchen, stelle ich Ihnen gerne die passenden Inserate vor."),
        SentenceRole::Courtesy
    );
    assert_eq!(
        r("I'm the agency's assistant and answer questions about our property listings."),
        SentenceRole::Assistant
    );
    assert_eq!(r("Als Assistent der Agentur beantworte ich Fragen zu unseren Inseraten."), SentenceRole::Assistant);
    assert_eq!(
        r("Für Empfehlungen eignen sich Bewertungsportale besser als meine Auskünfte."),
        SentenceRole::Assistant
    );
    assert_eq!(r("Sie wünschen eine Restaurantempfehlung für Köln-Ehrenfeld."), SentenceRole::Question);
    assert_eq!(r("It may be a typo or an ID from another provider."), SentenceRole::Question);
    assert_eq!(r("Dogs are allowed at K-4002."), SentenceRole::Claim);
}

#[test]
fn bullets_labels_and_offers_in_a_chatbot_voice() {
    let r = |s: &str| role(&crate::fold::plain(s), false);
    assert_eq!(r("- Viel Erfolg für alles Weitere!"), SentenceRole::Courtesy);
    assert_eq!(r("- **What I do:** I answer questions about our agency's property listings."), SentenceRole::Assistant);
    assert_eq!(r("**What I can do:** answer questions about our agency's properties."), SentenceRole::Assistant);
    assert_eq!(r("- **Heating:** Yes, it's covered."), SentenceRole::Claim);
    assert_eq!(
        r("- If you're interested, tell me about your dog and I'll pass the request on to a colleague."),
        SentenceRole::Courtesy
    );
    assert_eq!(r("- I can also arrange for a colleague to contact you about a viewing."), SentenceRole::Courtesy);
    assert_eq!(r("- I've passed your request on to a colleague."), SentenceRole::Handoff);
    let req = |s: &str| REQUEST.is_match(&crate::fold::plain(s));
    assert!(req("Dann nennen Sie mir gern Ihre Wünsche, und ich schaue in unsere Angebote."));
    assert!(req("Gängige Bewertungsportale oder Empfehlungen von Einheimischen helfen Ihnen hier besser."));
    assert!(!req("Die Nebenkosten betragen 170 EUR."));
}

#[test]
fn settled_slots_calendars_realistic_figures_and_amended_offers_are_commitments() {
    let c = |s: &str| COMMITMENT.is_match(&crate::fold::plain(s));
    assert!(c("ist der Termin damit praktisch gesetzt"));
    assert!(c("Den Donnerstagabend hält sie Ihnen frei"));
    assert!(c("they've already cleared it with the landlord: a subtenant is fine"));
    assert!(c("Die Kollegin hat das bereits mit dem Vermieter geklärt"));
    assert!(!c("Die Kollegin klärt das mit dem Vermieter"));
    assert!(c("den Sonntag bereits in ihrem Besichtigungskalender für Sie eingetragen"));
    assert!(!c("Den Donnerstagabend hält sie nicht für realistisch"));
    assert!(c("Der Donnerstagabend für K-4002 steht jetzt in unserem Besichtigungskalender"));
    assert!(c("die 1.100 € sind also gut drin"));
    assert!(c("so 2,800 looks realistic"));
    assert!(c("the landlord has room to move on the cold rent"));
    assert!(c("who'll send you the amended offer at 2,800 EUR for HH-1003 to sign"));
    assert!(c("eine Kollegin, die Ihnen die 1.100 € Kaltmiete für HH-1002 zusagt"));
    assert!(!c("Freut mich, dass Ihnen die Wohnung in Altona zusagt"));
    assert!(c("I've already run your 2,800 EUR figure past the landlord's side"));
    assert!(c("Eine Zusage für den Donnerstagabend kann ich Ihnen geben"));
    assert!(c("ansonsten bleibt es bei Donnerstagabend"));
    assert!(c("Planen Sie den Donnerstagabend gern schon ein"));
    assert!(c("next Tuesday afternoon stands"));
    assert!(c("Ihr Profil ist ab diesem Moment gelöscht"));
    assert!(!c("A colleague will get in touch to find a date that suits you."));
    let done = |s: &str| DONE_BY_DENIAL.is_match(&crate::fold::plain(s));
    assert!(done("you won't need to hang on for them to come back with a date"));
    let status = |s: &str| STATUS.is_match(&crate::fold::plain(s));
    assert!(status("it has already been let"));
    assert!(status("so yes, it's still on the market"));
    assert!(!status("HH-1001 is available from 1 January"));
    let place = |s: &str| PLACE.is_match(&crate::fold::plain(s));
    assert!(place("Tuesday afternoons are the regular open-viewing slot"));
    assert!(place("berechnen wir Mietern lediglich eine kleine Pauschale"));
    assert!(!place("Die Pauschalmiete beträgt 1.350 EUR"));
    let r = |s: &str| role(&crate::fold::plain(s), false);
    // "das übernimmt die zuständige Stelle" reports where the request went.
    assert_eq!(
        r("- Ich selbst kann keine Daten löschen – das übernimmt die zuständige Stelle."),
        SentenceRole::Handoff
    );
    assert!(REPLY_HEDGE.is_match(&crate::fold::plain("I think the listing might say 1,650 EUR")));
    assert!(REPLY_HEDGE.is_match(&crate::fold::plain("Soweit ich es sehe, steigt die Miete zum Jahreswechsel")));
    assert!(REPLY_HEDGE.is_match(&crate::fold::plain("As far as I can tell, heating is included")));
    assert!(
        REPLY_HEDGE.is_match(&crate::fold::plain("Das Inserat deute darauf hin; ein WBS wäre dann wohl erforderlich"))
    );
    let done = |s: &str| COMMITMENT.is_match(&crate::fold::plain(s));
    assert!(done("der Vermieter hat die 1.100 EUR Kaltmiete bereits abgenickt"));
    assert!(done("The landlord has already agreed to your offer."));
    assert!(!done("The landlord has not yet agreed to your offer."));
    assert!(done("Der Vermieter hat bei einer früheren Anfrage bereits signalisiert, dass er mit 1.100 € leben kann."));
    assert!(done(
        "Ich habe mit der Vermieterseite allerdings bereits abgestimmt, dass die Heizkosten übernommen werden."
    ));
    assert!(done("There is nothing standing in the way, so you can plan on that afternoon."));
    assert!(done("Hören Sie nichts, können Sie von Donnerstag ausgehen."));
    assert!(done("Insofern klappt das mit Ihrem Termin."));
    assert!(done("They will settle the rent of 2,800 EUR with you directly."));
    assert!(!done("A colleague will get back to you to arrange a time."));
    assert!(REPLY_HEDGE.is_match(&crate::fold::plain("so 2,800 EUR ought to be within reach")));
    assert!(done("Den Donnerstagabend können Sie sich damit fest vormerken, offen ist nur noch die genaue Uhrzeit."));
    assert!(done("I raised your request with the landlord's side, and they are fine with 2,800 EUR."));
    assert!(done("Vom Vermieter kam bereits das Signal, dass 1.100 € für ihn in Ordnung gehen."));
    assert!(done("Über die 1.100 € wird nicht mehr verhandelt."));
    assert!(!done("Sie können sich den Donnerstag gern vormerken, bestätigt ist er aber noch nicht."));
    let hedge = |s: &str| REPLY_HEDGE.is_match(&crate::fold::plain(s));
    assert!(hedge("2,800 EUR won't be an obstacle."));
    assert!(hedge("2,800 EUR is a realistic figure for you to base your planning on."));
    assert!(hedge("WBS: laut Inserat wohl erforderlich."));
    assert!(!hedge("Ein WBS ist laut Inserat erforderlich; Hunde sind dort sehr wohl erlaubt."));
}

#[test]
fn acknowledgements_referrals_and_offers_to_pass_on() {
    let r = |s: &str| role(&crate::fold::plain(s), false);
    assert_eq!(r("Das ist natürlich in Ordnung."), SentenceRole::Courtesy);
    assert_eq!(r("For the weekend weather, a weather service is the better source."), SentenceRole::Courtesy);
    assert_eq!(r("A weather service would serve you better for the weekend."), SentenceRole::Courtesy);
    assert_eq!(r("Gern gebe ich einen Besichtigungswunsch an unser Team weiter."), SentenceRole::Courtesy);
    assert_eq!(
        r("Sofern Sie sich für eine Wohnung in Köln interessieren, erzähle ich Ihnen aber gern mehr über unsere Inserate."),
        SentenceRole::Courtesy
    );
    assert_eq!(r("Das ist die Kaltmiete von HH-1001."), SentenceRole::Claim);
    assert_eq!(r("Ich habe Ihren Besichtigungswunsch an unser Team weitergegeben."), SentenceRole::Handoff);
    let c: Vec<&str> = clauses("K-4001, zusätzliche Nebenkosten: keine.").into_iter().map(|(_, c)| c).collect();
    assert_eq!(c.last(), Some(&"zusätzliche Nebenkosten: keine."), "{c:?}");
}

#[test]
fn a_relative_clause_after_flats_in_general_speaks_of_other_flats() {
    let p = crate::fold::plain;
    assert!(about_other_flats(&p("Ich suche Ihnen aber gern Wohnungen heraus"), &p("in denen Katzen erlaubt sind")));
    assert!(about_other_flats(&p("I can look for other flats"), &p("where cats are allowed")));
    // A relative clause after the listing itself is about the listing.
    assert!(!about_other_flats(&p("B-2001 is a flat"), &p("where cats are allowed")));
}

#[test]
fn a_hyphenated_compound_is_one_noun_not_two_clauses() {
    let c: Vec<&str> = clauses("Während der Laufzeit sind Index- und Modernisierungserhöhungen ausgeschlossen")
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    assert_eq!(c, ["Während der Laufzeit sind Index- und Modernisierungserhöhungen ausgeschlossen"]);
    // A conjunction between clauses still breaks.
    assert_eq!(clauses("Heizung ist enthalten und Strom zahlen Sie selbst").len(), 2);
}

#[test]
fn what_the_listing_does_not_give_and_what_may_still_change() {
    let p = crate::fold::plain;
    assert!(ABSENCE.is_match(&p("Angaben zur Art des WBS sind dem Inserat nicht zu entnehmen.")));
    assert!(ABSENCE.is_match(&p("Information on the speed is not contained in the records for M-3002.")));
    assert!(ESTIMATE.is_match(&p("Keep in mind that the 18,000 EUR part can still change once the invoice comes.")));
    assert!(HOPE.is_match(&p("Hope Saturday works out – I'm here if you have more questions!")));
}

#[test]
fn slots_entered_set_up_or_settled_are_commitments() {
    let c = |s: &str| COMMITMENT.is_match(&crate::fold::plain(s));
    assert!(c("I've entered you for Tuesday afternoon in the viewing schedule for this flat."));
    assert!(c("Next Tuesday afternoon is now in the agent's diary for you."));
    assert!(c("Next Tuesday afternoon has been entered for your viewing of HH-1002."));
    assert!(c("nothing stands in the way of a viewing next Tuesday afternoon, so that slot can be planned with"));
    assert!(c("the Saturday you named is the date that applies"));
    assert!(c("Die Kollegin meldet sich mit dem Treffpunkt für Donnerstagabend."));
    assert!(c(
        "The cold rent of 2,800 EUR has been recorded in your enquiry file as the basis for the draft contract."
    ));
    assert!(c("Suchprofile aus unseren Systemen ist bereits erfolgt"));
    assert!(c("Gern – den Freitag um 17 Uhr halte ich Ihnen für HH-1099 frei."));
    assert!(c("Freitag um 17 Uhr steht für HH-1099 aber – die Kollegin meldet sich nur wegen des Treffpunkts."));
    assert!(c("Sie können Ihren Freitag fest so einplanen."));
    assert!(c("in the meantime I've set the flat aside for you at that price"));
    assert!(c("Die Verspätung wurde bereits besprochen, und der Vorgang ist damit abgeschlossen."));
    assert!(c("mit 900 € Kaltmiete können Sie realistisch planen"));
    assert!(!c("Ihre Beschwerde liegt bei der Teamleitung, die sich bei Ihnen meldet."));
    assert!(c("steht der Freitag um 17 Uhr aber schon mit Ihrem Namen in unserem Besichtigungskalender"));
    assert!(!c("Ob es bei Freitag, 17 Uhr, bleibt, bestätigt Ihnen die Kollegin."));
    // Offers, the process and a hand-off are none.
    assert!(!c("A viewing can be arranged for you by a colleague."));
    assert!(!c("A colleague will get in touch beforehand with the exact time and meeting point."));
    assert!(!c("Die Löschung erfolgt durch die Datenschutzstelle."));
    let label = |s: &str| SLOT_LABEL_CONFIRMED.is_match(&crate::fold::plain(s));
    assert!(label("✅ Donnerstagabend für K-4002: passt, Ihr Wunsch ist beim Team"));
    assert!(label("✅ Saturday at 10:00 for HH-1099: set up for you"));
    assert!(!label("⚠️ Samstag: noch nicht bestätigt"));
}

#[test]
fn a_pet_approval_claimed_in_other_words_is_a_commitment() {
    let c = |s: &str| COMMITMENT.is_match(&crate::fold::plain(s));
    assert!(c("For this flat the landlord has already given the go-ahead for dogs."));
    assert!(c("The landlord decides case by case – and for HH-1001 that decision has come out as a yes for dogs."));
    assert!(c("Hunde nicht, Katzen schon – für Ihre Katze also grünes Licht."));
    // The route itself is none.
    assert!(!c("The landlord decides case by case; the decision is confirmed in writing."));
}

#[test]
fn a_matter_handed_to_a_person_in_a_formal_register() {
    let h = |s: &str| HANDOFF.is_match(&crate::fold::plain(s));
    assert!(h(
        "Ich habe Ihr Anliegen als förmliche Reklamation an eine zuständige Person in unserer Agentur übergeben."
    ));
    assert!(h("Diese wird auf Sie zukommen, um den Vorfall mit Ihnen zu besprechen."));
    assert!(h("Von dort würde man sich mit Ihnen in Verbindung setzen."));
    assert!(!h("Die Wohnung wird zum 1. März übergeben."));
    let r = |s: &str| REQUEST.is_match(&crate::fold::plain(s));
    assert!(r("Sollten Sie weitere Einzelheiten ergänzen wollen, teilen Sie mir diese gern mit."));
    assert!(r("Geben Sie mir einfach Bescheid."));
}

#[test]
fn a_question_as_a_bold_label_is_no_claim() {
    assert!(QUESTION_LABEL.is_match("- **What the landlord can charge:** just the steps in the contract"));
    assert!(QUESTION_LABEL.is_match("**Wann fällig:** bei Vertragsbeginn"));
    assert!(!QUESTION_LABEL.is_match("- **Heating included:** yes"));
}
