//! The four tools over the bundled catalogue (SPEC §3–4).

use inquiry::catalogue::{OfferType, PetsAllowed};
use inquiry::chunk::ChunkSource;
use inquiry::handoff::HandoffReason;
use inquiry::tools::{call_json, GetListingInput, HandOffInput, SearchKnowledgeInput, SearchListingsInput};
use serde_json::json;

use crate::support::{catalogue, toolbox};

#[test]
fn chunk_hh_1001_s5_is_the_utilities_sentence() {
    let cat = catalogue();
    let chunk = cat.chunks.iter().find(|c| c.id == "HH-1001#s5").expect("chunk HH-1001#s5");
    assert_eq!(chunk.text, "Utilities (Nebenkosten) are an additional 240 EUR per month, heating included.");
    assert_eq!(chunk.source, ChunkSource::Listing);
    assert_eq!(chunk.listing_id.as_deref(), Some("HH-1001"));
    assert!(chunk.index_text.contains("HH-1001") && chunk.index_text.contains("Hamburg"), "{}", chunk.index_text);
    assert!(chunk.index_text.ends_with(&chunk.text));
}

#[test]
fn policy_chunks_use_page_and_section_slugs() {
    let cat = catalogue();
    let amount = cat.chunks.iter().find(|c| c.id == "policy:deposit#amount").expect("policy:deposit#amount");
    assert_eq!(amount.source, ChunkSource::Policy);
    assert!(amount.text.contains("three months"), "{}", amount.text);
    assert!(!amount.text.contains("This page explains"), "intro text is not indexed");
    assert_eq!(cat.policies.len(), 8);
    assert!((10..=14).contains(&cat.listings.len()));
}

#[test]
fn hamburg_under_2000_with_a_pet() {
    let out = toolbox()
        .search_listings(&SearchListingsInput {
            city: Some("hamburg".into()),
            max_price: Some(2000.0),
            has_pet: Some(true),
            ..Default::default()
        })
        .unwrap();
    let hh = out.results.iter().find(|l| l.id == "HH-1001").expect("HH-1001 in results");
    assert_eq!(hh.price, 1650.0);
    assert_eq!(hh.pets_allowed, PetsAllowed::OnRequest);
    assert!(out.results.iter().all(|l| l.pets_allowed != PetsAllowed::No));
    assert!(out.results.iter().all(|l| l.city == "Hamburg" && l.price <= 2000.0));
    // Without the pet filter the Hamburg flat whose policy is "no" is there: the filter did the work.
    let all = toolbox()
        .search_listings(&SearchListingsInput {
            city: Some("Hamburg".into()),
            max_price: Some(2000.0),
            ..Default::default()
        })
        .unwrap();
    assert!(all.results.iter().any(|l| l.pets_allowed == PetsAllowed::No));
    assert_eq!(all.total, out.total + 1);
}

#[test]
fn exonyms_and_spellings_find_the_same_city() {
    let tb = toolbox();
    let ids = |city: &str| {
        let out = tb.search_listings(&SearchListingsInput { city: Some(city.into()), ..Default::default() }).unwrap();
        out.results.into_iter().map(|l| l.id).collect::<Vec<_>>()
    };
    let munich = ids("Munich");
    assert_eq!(munich.len(), 3, "{munich:?}");
    assert!(munich.iter().all(|id| id.starts_with("M-")));
    assert_eq!(ids("München"), munich);
    assert_eq!(ids("muenchen"), munich);
    assert_eq!(ids("Cologne"), ids("Köln"));
    assert_eq!(ids("Koeln").len(), 3);
    assert!(ids("Paris").is_empty());
}

#[test]
fn results_sorted_by_price_ascending_and_limited() {
    let tb = toolbox();
    let out =
        tb.search_listings(&SearchListingsInput { offer_type: Some(OfferType::Rent), ..Default::default() }).unwrap();
    assert!(
        out.results.windows(2).all(|w| w[0].price <= w[1].price),
        "{:?}",
        out.results.iter().map(|l| l.price).collect::<Vec<_>>()
    );
    let limited = tb
        .search_listings(&SearchListingsInput {
            offer_type: Some(OfferType::Rent),
            limit: Some(2),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(limited.results.len(), 2);
    assert_eq!(limited.total, out.total, "total counts matches before the limit");
    assert_eq!(limited.results[0].id, out.results[0].id);
}

#[test]
fn limit_outside_1_to_25_is_a_tool_error() {
    let tb = toolbox();
    for limit in [0, 26, 1000] {
        let err = tb.search_listings(&SearchListingsInput { limit: Some(limit), ..Default::default() }).unwrap_err();
        assert!(err.hint.contains("1 to 25"), "{err:?}");
    }
    for limit in [1, 25] {
        assert!(tb.search_listings(&SearchListingsInput { limit: Some(limit), ..Default::default() }).is_ok());
    }
}

#[test]
fn other_filters_apply() {
    let tb = toolbox();
    let out = tb
        .search_listings(&SearchListingsInput {
            features: Some(vec!["Lift".into()]),
            min_rooms: Some(3.0),
            ..Default::default()
        })
        .unwrap();
    assert!(!out.results.is_empty());
    assert!(out.results.iter().all(|l| l.rooms >= 3.0 && l.features.iter().any(|f| f == "lift")));
    let none = tb
        .search_listings(&SearchListingsInput {
            available_by: Some("2000-01-01".parse().unwrap()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(none.total, 0);
    let err = tb.search_listings(&SearchListingsInput { max_price: Some(-1.0), ..Default::default() }).unwrap_err();
    assert!(err.error.contains("maxPrice"));
}

#[test]
fn get_listing_trims_and_upper_cases() {
    let listing = toolbox().get_listing(&GetListingInput { id: " hh-1001 ".into() }).unwrap();
    assert_eq!(listing.id, "HH-1001");
    assert_eq!(listing.price, 1650.0);
    assert!(listing.description.contains("heating included"));
}

#[test]
fn get_listing_unknown_id_points_to_search_listings() {
    let err = toolbox().get_listing(&GetListingInput { id: "ZZ-0000".into() }).unwrap_err();
    assert!(err.error.contains("ZZ-0000"));
    assert!(err.hint.contains("search_listings"), "{err:?}");
}

fn handoff(reason: HandoffReason, listing: Option<&str>, summary: &str) -> HandOffInput {
    HandOffInput { reason, listing_id: listing.map(Into::into), summary: summary.into(), contact_email: None }
}

#[test]
fn hand_off_accepts_each_reason_and_stores_tickets() {
    let tb = toolbox();
    for (i, reason) in HandoffReason::ALL.into_iter().enumerate() {
        let ticket =
            tb.hand_off_to_human(&handoff(reason, Some("hh-1001"), "Customer asks for a Saturday viewing.")).unwrap();
        assert_eq!(ticket.ticket_id, format!("TKT-{:04}", i + 1));
        assert_eq!(ticket.reason, reason);
        assert_eq!(ticket.listing_id.as_deref(), Some("HH-1001"));
        chrono::DateTime::parse_from_rfc3339(&ticket.created_at).expect("RFC 3339 timestamp");
    }
    let stored = tb.handoffs().tickets();
    assert_eq!(stored.len(), 6);
    assert_eq!(stored.iter().map(|t| t.reason).collect::<Vec<_>>(), HandoffReason::ALL);
}

#[test]
fn hand_off_rejects_bad_input_and_stores_nothing() {
    let tb = toolbox();
    let err = tb
        .hand_off_to_human(&handoff(HandoffReason::ViewingRequest, Some("XX-9999"), "Viewing on Saturday please"))
        .unwrap_err();
    assert!(err.hint.contains("search_listings"));
    let short = tb.hand_off_to_human(&handoff(HandoffReason::Complaint, None, "too short")).unwrap_err();
    assert!(short.error.contains("9 characters"), "{short:?}");
    let long = "x".repeat(501);
    let err = tb.hand_off_to_human(&handoff(HandoffReason::Complaint, None, &long)).unwrap_err();
    assert!(err.error.contains("501 characters"));
    assert!(tb.hand_off_to_human(&handoff(HandoffReason::Complaint, None, &"x".repeat(500))).is_ok());
    assert!(tb.hand_off_to_human(&handoff(HandoffReason::Complaint, None, "exactly 10")).is_ok());
    let mut bad_mail = handoff(HandoffReason::Complaint, None, "Heating broken since Monday");
    bad_mail.contact_email = Some("not-an-address".into());
    assert!(tb.hand_off_to_human(&bad_mail).is_err());
    assert_eq!(tb.handoffs().tickets().len(), 2, "only the two valid calls created tickets");
}

#[test]
fn search_knowledge_validates_its_input() {
    let tb = toolbox();
    let q = |query: &str, listing: Option<&str>, k: Option<u32>| SearchKnowledgeInput {
        query: query.into(),
        listing_id: listing.map(Into::into),
        k,
    };
    assert!(tb.search_knowledge(&q("hi", None, None)).unwrap_err().hint.contains("3 to 300"));
    assert!(tb.search_knowledge(&q(&"a".repeat(301), None, None)).is_err());
    assert!(tb.search_knowledge(&q("Is heating included?", None, Some(0))).is_err());
    assert!(tb.search_knowledge(&q("Is heating included?", None, Some(11))).is_err());
    let err = tb.search_knowledge(&q("Is heating included?", Some("ZZ-1234"), None)).unwrap_err();
    assert!(err.hint.contains("search_listings"));
    let out = tb.search_knowledge(&q("Is heating included?", Some(" hh-1001"), Some(3))).unwrap();
    assert!(!out.found && out.results.is_empty() && out.reason.is_some());
}

#[test]
fn json_dispatch_reports_invalid_arguments_as_tool_errors() {
    let tb = toolbox();
    let bad = call_json(&tb, "search_listings", json!({"city": "Hamburg", "maxRent": 2000}));
    assert!(bad.is_error);
    assert!(bad.value["error"].as_str().unwrap().contains("unknown field `maxRent`"), "{}", bad.value);
    let bad_reason =
        call_json(&tb, "hand_off_to_human", json!({"reason": "booking", "summary": "Wants to book it now"}));
    assert!(bad_reason.is_error);
    assert!(bad_reason.value["error"].as_str().unwrap().contains("viewing_request"));
    let unknown = call_json(&tb, "delete_listing", json!({}));
    assert!(unknown.is_error && unknown.value["hint"].as_str().unwrap().contains("get_listing"));
    let ok = call_json(&tb, "get_listing", json!({"id": "b-2001"}));
    assert!(!ok.is_error);
    assert_eq!(ok.value["id"], "B-2001");
}
