//! Tests of the pet statements (`pets`).
use super::*;

fn status(sentence: &str) -> Vec<Option<PetStatus>> {
    if !ANIMAL.is_match(&plain(sentence)) {
        return vec![];
    }
    let parts = clauses(sentence);
    let qualified = qualifies(&parts);
    let need = need_denied(&parts);
    parts.iter().map(|(k, c)| stated(c, qualified, *k, need)).filter(Option::is_some).collect()
}

#[test]
fn the_three_statuses_in_both_languages() {
    use PetStatus::*;
    assert_eq!(status("Dogs and cats are welcome at HH-1003."), [Some(Allowed)]);
    assert_eq!(status("Hunde und Katzen sind dort erlaubt."), [Some(Allowed)]);
    assert_eq!(status("Dogs and cats are not allowed in this apartment."), [Some(NotAllowed)]);
    assert_eq!(status("Haustiere sind in B-2001 leider verboten."), [Some(NotAllowed)]);
    assert_eq!(status("Hunde und Katzen sind nur auf Anfrage möglich."), [Some(OnRequest)]);
    assert_eq!(status("Your dog would need the landlord's approval."), [Some(OnRequest)]);
    assert_eq!(status("Ob Ihre Katze einziehen darf, entscheidet der Vermieter im Einzelfall."), [Some(OnRequest)]);
    assert_eq!(status("Pets are not automatically allowed there."), [Some(OnRequest)]);
    // A ban denied is a yes: alone, or on the landlord's consent.
    assert_eq!(status("Katzen sind in der Wohnung nicht ausgeschlossen."), [Some(Allowed)]);
    assert_eq!(
        status("Bei einer Katze ist die Haltung hingegen nicht ausgeschlossen, wenn der Vermieter zustimmt."),
        [Some(OnRequest)]
    );
    assert_eq!(status("Cats are not ruled out there."), [Some(Allowed)]);
    assert_eq!(status("HH-1001, where a dog is at least possible."), [Some(OnRequest)]);
    assert_eq!(status("Bei einer einzelnen Wohnungskatze lässt er durchaus mit sich reden."), [Some(OnRequest)]);
    assert_eq!(status("A separate approval for a single dog, though, you need not."), [Some(Allowed)]);
    assert_eq!(status("Voraussetzung ist, dass Sie für die Katze eine Haftpflicht nachweisen."), [Some(OnRequest)]);
    assert_eq!(status("Keeping dogs or cats requires approval under the community rules."), [Some(OnRequest)]);
    // An approval turned into a certainty is a yes.
    assert_eq!(status("For a well-behaved dog that approval is little more than paperwork."), [Some(Allowed)]);
    assert_eq!(status("Bei kleinen Tieren gilt die Zustimmung für Ihre Katze damit als erteilt."), [Some(Allowed)]);
    // A need of approval denied: the animal is allowed.
    assert_eq!(
        status("Hunde und Katzen sind laut Inserat erlaubt, eine gesonderte Zustimmung brauchen Sie also nicht."),
        [Some(Allowed)]
    );
}

#[test]
fn an_allowance_on_a_condition_is_on_request_and_a_conclusion_is_a_yes() {
    use PetStatus::*;
    assert_eq!(status("If the landlord agrees, you can bring your dog."), [Some(OnRequest)]);
    // A "then" of the calendar follows no step.
    assert_eq!(status("Ab dem 1. März 2027 könnten Sie dann mit Ihrer Katze einziehen."), [Some(Allowed)]);
    assert_eq!(
        status("Katzen sind auf Anfrage möglich; Ihre kleine Katze dürfen Sie also mitbringen."),
        [Some(OnRequest), Some(Allowed)]
    );
    assert_eq!(status("Die Zustimmung ist hier nur eine Formsache."), [] as [Option<PetStatus>; 0]);
    assert_eq!(status("Die Zustimmung für Ihre Katze ist nur eine Formsache."), [Some(Allowed)]);
    assert_eq!(status("I've added a pet clause for your dog to the draft contract."), [Some(Allowed)]);
    assert_eq!(
        status("Eine kleine Katze macht kaum Aufwand, daher ist die Zustimmung nur eine Formsache."),
        [Some(Allowed)]
    );
    assert_eq!(
        status("Für Ihre Katze heißt das: Ohne Zustimmung des Vermieters darf sie nicht einziehen."),
        [Some(OnRequest)]
    );
    assert_eq!(status("Dogs aren't allowed outright; they need the owner's approval."), [Some(OnRequest); 2]);
    // ", so yes, …": the bare yes passes its conclusion on.
    assert_eq!(status("Dogs are on request there, so yes, your dog can come along."), [Some(OnRequest), Some(Allowed)]);
    assert_eq!(status("A dog presents no practical difficulty there."), [Some(Allowed)]);
    assert_eq!(status("Your dog is effectively accepted there."), [Some(Allowed)]);
    assert_eq!(status("For your dog, that approval is already part of the listing."), [Some(Allowed)]);
    assert_eq!(status("Hunde sind dort nur bis zu einer kleinen Größe zugelassen."), [Some(OnRequest)]);
    assert_eq!(status("Bei Katzen sieht das Inserat dagegen keine Einschränkung vor."), [Some(Allowed)]);
    assert_eq!(status("Stimmt der Vermieter zu, dann ginge es mit der Katze doch."), [Some(OnRequest)]);
    assert_eq!(
        status("Hunde wie Katzen sind erlaubt, sodass Ihre Katze ohne weitere Anfrage mit einziehen kann."),
        [Some(Allowed), Some(Allowed)]
    );
    assert_eq!(status("Small dogs are fine without asking."), [Some(Allowed)]);
    assert_eq!(status("Ohne Anfrage darf Ihre Katze nicht einziehen."), [Some(OnRequest)]);
    assert_eq!(
        status("Für Ihre Katze gibt es hier keinen Spielraum für eine Einzelfallentscheidung."),
        [Some(NotAllowed)]
    );
    // Another subject in the same sentence is not read as the pet's status.
    assert_eq!(status("Hunde sind erlaubt, ein Stellplatz ist nicht möglich."), [Some(Allowed)]);
}

#[test]
fn small_animals_and_assistance_dogs_are_not_read() {
    assert!(status("Small animals such as hamsters are allowed without asking.").is_empty());
    assert!(status("Assistance dogs are not treated as pets.").is_empty());
}

#[test]
fn the_agency_does_not_decide_on_request() {
    let mut e = Evidence::default();
    e.add_tool_result(&serde_json::json!({"id": "HH-1001", "description": "Dogs and cats are possible on request.", "petsAllowed": "on-request"}));
    let findings = |body: &str| {
        let mut n = 0;
        check_pets(body, "", &["HH-1001".to_owned()], &e, &mut |_, _, _| n += 1);
        n
    };
    assert_eq!(findings("Dogs are on request, which means our agency decides on each animal individually."), 1);
    assert_eq!(findings("Your dog's request goes through our agency, and the landlord decides."), 0);
    // The request made the permission, or a notice instead of one.
    assert_eq!(findings("Die Anfrage für Ihren Hund ist dabei schon Ihre Zusage."), 1);
    assert_eq!(findings("For the dog, it is a notification rather than a permission."), 1);
    assert_eq!(findings("Die Anfrage für Ihren Hund ist noch keine Zusage."), 0);
    assert_eq!(
        findings("Dogs are possible on request, which means you let the landlord know about your dog when you apply."),
        1
    );
    assert_eq!(
        findings("„Auf Anfrage“ heiße dabei, dass Sie die Katze vor dem Einzug bei der Hausverwaltung anmelden."),
        1
    );
    assert_eq!(findings("On request means the landlord decides whether your dog can move in."), 0);
}

#[test]
fn a_route_through_the_agency_is_no_certainty() {
    assert_eq!(status("The request for your dog goes through our agency."), [Some(PetStatus::OnRequest)]);
    assert_eq!(status("Your request for the dog goes through."), [Some(PetStatus::Allowed)]);
}

#[test]
fn a_cat_set_aside_leaves_a_sentence_about_small_animals() {
    let mut e = Evidence::default();
    e.add_tool_result(
        &serde_json::json!({"id": "B-2001", "description": "Dogs and cats are not allowed.", "petsAllowed": "no"}),
    );
    let findings = |body: &str| {
        let mut n = 0;
        check_pets(body, "", &["B-2001".to_owned()], &e, &mut |_, _, _| n += 1);
        n
    };
    assert_eq!(findings("Falls Sie außer der Katze noch Kleintiere haben: Tiere, die im Käfig oder Aquarium leben, dürfen Sie ohne Rückfrage beim Vermieter halten."), 0);
    assert_eq!(findings("Ihre Katze dürfen Sie ohne Rückfrage halten."), 1);
    assert_eq!(
        findings("Hunde und Katzen sind nicht erlaubt – es sei denn, der Vermieter gibt Ihnen schriftlich sein Okay."),
        1
    );
    assert_eq!(
        findings("Dogs are not allowed, unless it is an assistance dog, which the agency clarifies with the landlord."),
        0
    );
    assert_eq!(findings("Hunde dürfen in der Wohnung nicht gehalten werden, Katzen dagegen schon."), 1);
    assert_eq!(
        findings("Eine kleine Katze, die in der Wohnung lebt, zählt nach unseren Regeln zu den Kleintieren."),
        1
    );
}

#[test]
fn a_sentence_after_one_ending_on_small_animals_goes_on_about_them() {
    let mut e = Evidence::default();
    e.add_tool_result(
        &serde_json::json!({"id": "B-2001", "description": "Dogs and cats are not allowed.", "petsAllowed": "no"}),
    );
    let findings = |body: &str, previous: &str| {
        let mut n = 0;
        check_pets(body, previous, &["B-2001".to_owned()], &e, &mut |_, _, _| n += 1);
        n
    };
    let small_last =
        "Das Verbot betrifft nur Hunde und Katzen; Kleintiere wie Hamster dürfen Sie ohne Erlaubnis halten.";
    let cat_last = "Kleintiere sind erlaubt, und Ihre Katze auch.";
    let follow_on = "Das gilt bei allen unseren Mietwohnungen, solange die Zahl der Tiere im üblichen Rahmen bleibt.";
    assert_eq!(findings(follow_on, small_last), 0);
    // After a sentence that ended on the cat, the same words speak of the cat.
    assert_eq!(findings(follow_on, cat_last), 1);
}

#[test]
fn a_house_cat_is_a_cat_after_a_sentence_on_small_animals() {
    let mut e = Evidence::default();
    e.add_tool_result(
        &serde_json::json!({"id": "B-2001", "description": "Dogs and cats are not allowed.", "petsAllowed": "no"}),
    );
    let mut n = 0;
    check_pets(
        "Eine reine Wohnungskatze fällt damit ebenfalls unter diese Regel – die können Sie also mitbringen.",
        "Kleintiere wie Hamster dürfen Sie ohne Rückfrage halten.",
        &["B-2001".to_owned()],
        &e,
        &mut |_, _, _| n += 1,
    );
    assert_eq!(n, 1);
}
