//! A bad catalogue fails with one message naming file, listing index/id, field
//! and expectation (issue: foundation). Each case mutates a copy of the bundled data.

use inquiry::catalogue::Catalogue;
use serde_json::{json, Value};

use crate::support::temp_catalogue;

/// Applies `mutate` to the bundled listings array, loads, returns the error text.
fn listing_error(mutate: impl FnOnce(&mut Vec<Value>)) -> String {
    let dir = temp_catalogue();
    let path = dir.path().join("listings.json");
    let mut listings: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    mutate(&mut listings);
    std::fs::write(&path, serde_json::to_string_pretty(&listings).unwrap()).unwrap();
    load_error(dir.path())
}

fn raw_listings_error(text: &[u8]) -> String {
    let dir = temp_catalogue();
    std::fs::write(dir.path().join("listings.json"), text).unwrap();
    load_error(dir.path())
}

fn policy_error(name: &str, text: &[u8]) -> String {
    let dir = temp_catalogue();
    std::fs::write(dir.path().join("policies").join(name), text).unwrap();
    load_error(dir.path())
}

fn load_error(dir: &std::path::Path) -> String {
    match Catalogue::load(dir) {
        Ok(_) => panic!("catalogue in {} loaded but should not", dir.display()),
        Err(e) => e.to_string(),
    }
}

fn assert_contains(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "expected {part:?} in error:\n{message}");
    }
}

#[test]
fn invalid_json_names_line_and_column() {
    let msg = raw_listings_error(b"[\n  {\"id\": \"HH-1001\",}\n]");
    assert_contains(&msg, &["listings.json: invalid JSON", "line 2 column"]);
}

#[test]
fn top_level_must_be_an_array() {
    let msg = raw_listings_error(b"{\"listings\": []}");
    assert_contains(&msg, &["listings.json: expected a JSON array of listings at the top level"]);
}

#[test]
fn listing_must_be_an_object() {
    let msg = listing_error(|l| l.insert(1, json!("HH-1009")));
    assert_contains(
        &msg,
        &["listing at index 1 (id unknown), field `(listing)`: expected a JSON object, found a string"],
    );
}

#[test]
fn missing_field() {
    let msg = listing_error(|l| {
        l[2].as_object_mut().unwrap().remove("price");
    });
    assert_contains(
        &msg,
        &["listings.json: listing at index 2 (id \"HH-1003\"), field `price`: missing; expected a number > 0"],
    );
}

#[test]
fn missing_nullable_floor_is_still_missing() {
    let msg = listing_error(|l| {
        l[0].as_object_mut().unwrap().remove("floor");
    });
    assert_contains(&msg, &["index 0 (id \"HH-1001\"), field `floor`: missing; expected an integer or null"]);
}

#[test]
fn wrong_enum_value() {
    let msg = listing_error(|l| l[3]["petsAllowed"] = json!("maybe"));
    assert_contains(&msg, &[
        "index 3 (id \"B-2001\"), field `petsAllowed`: found \"maybe\"; expected one of \"yes\", \"no\", \"on-request\"",
    ]);
}

#[test]
fn wrong_energy_class() {
    let msg = listing_error(|l| l[0]["energyClass"] = json!("A++"));
    assert_contains(&msg, &["field `energyClass`: found \"A++\"; expected one of \"A+\""]);
}

#[test]
fn duplicate_id() {
    let msg = listing_error(|l| l[4]["id"] = json!("HH-1001"));
    assert_contains(
        &msg,
        &["index 4 (id \"HH-1001\"), field `id`: duplicate id, first used by the listing at index 0"],
    );
}

#[test]
fn id_not_matching_pattern() {
    let msg = listing_error(|l| l[0]["id"] = json!("hh-1001"));
    assert_contains(
        &msg,
        &["index 0 (id \"hh-1001\"), field `id`: found \"hh-1001\"; expected a string like \"HH-1001\""],
    );
}

#[test]
fn id_of_wrong_type() {
    let msg = listing_error(|l| l[5]["id"] = json!(2003));
    assert_contains(&msg, &["index 5 (id unknown), field `id`: found 2003; expected a string like"]);
}

#[test]
fn non_positive_price() {
    let msg = listing_error(|l| l[0]["price"] = json!(-5));
    assert_contains(&msg, &["(id \"HH-1001\"), field `price`: found -5; expected a number > 0"]);
}

#[test]
fn price_unit_must_match_offer_type() {
    let msg = listing_error(|l| l[0]["priceUnit"] = json!("EUR"));
    assert_contains(
        &msg,
        &["field `priceUnit`: found \"EUR\" for offerType \"rent\"; expected \"EUR/month\" for rent"],
    );
}

#[test]
fn empty_string_field() {
    let msg = listing_error(|l| l[1]["title"] = json!("  "));
    assert_contains(
        &msg,
        &["index 1 (id \"HH-1002\"), field `title`: found an empty string; expected a non-empty string"],
    );
}

#[test]
fn date_not_iso() {
    let msg = listing_error(|l| l[0]["availableFrom"] = json!("01.01.2027"));
    assert_contains(
        &msg,
        &["field `availableFrom`: found \"01.01.2027\"; expected an ISO date such as \"2027-01-01\""],
    );
}

#[test]
fn floor_as_string() {
    let msg = listing_error(|l| l[0]["floor"] = json!("2"));
    assert_contains(&msg, &["field `floor`: found \"2\"; expected an integer or null"]);
}

#[test]
fn feature_of_wrong_type() {
    let msg = listing_error(|l| l[0]["features"] = json!(["balcony", 3]));
    assert_contains(&msg, &["field `features`: found an array; expected an array of strings"]);
}

#[test]
fn missing_listings_file() {
    let dir = temp_catalogue();
    std::fs::remove_file(dir.path().join("listings.json")).unwrap();
    assert_contains(&load_error(dir.path()), &["listings.json: cannot read"]);
}

#[test]
fn policy_without_title() {
    let msg = policy_error("parking.md", b"\n## Spaces\nSpaces cost extra.\n");
    assert_contains(&msg, &["policies/parking.md:2: found \"## Spaces\"; expected a `# Title` line first"]);
}

#[test]
fn empty_policy_file() {
    let msg = policy_error("parking.md", b"");
    assert_contains(&msg, &["policies/parking.md:1: empty file; expected a `# Title` line first"]);
}

#[test]
fn policy_duplicate_section_ids() {
    let msg = policy_error("parking.md", b"# Parking\n\n## Spaces\nOne.\n\n## spaces!\nTwo.\n");
    assert_contains(
        &msg,
        &["policies/parking.md:6: section \"spaces!\" has the same id \"spaces\" as the section on line 3"],
    );
}

#[test]
fn policy_empty_section() {
    let msg = policy_error("parking.md", b"# Parking\n## Spaces\n\n## Fees\nTen euros.\n");
    assert_contains(&msg, &["policies/parking.md:2: section \"Spaces\" has no text"]);
}

#[test]
fn policy_not_utf8() {
    let msg = policy_error("parking.md", b"# Parking\n## Spaces\nGr\xfc\xdfe\n");
    assert_contains(&msg, &["policies/parking.md: not valid UTF-8"]);
}

#[test]
fn policy_file_name_not_a_slug() {
    let msg = policy_error("Parking Rules.md", b"# Parking\n## Spaces\nOne.\n");
    assert_contains(&msg, &["Parking Rules.md:1: file name \"Parking Rules\" is not a slug"]);
}
