//! The document around a cited source, for the desk's citation dialog: the
//! whole listing description or policy page, split into its chunks, with the
//! cited chunk flagged so the page can highlight it; for a bare listing id,
//! the listing's record.

use serde_json::{json, Value};

use crate::catalogue::Catalogue;
use crate::chunk::{Chunk, ChunkSource};

/// The document `chunk` belongs to, as `{"title", "parts": [{"id", "heading",
/// "text", "cited"}]}`: every chunk of the same listing description (in
/// sentence order) or policy page (in section order), `cited` true for
/// `chunk` itself. `heading` is the policy section's heading (`null` for
/// listing sentences).
pub fn chunk_document(catalogue: &Catalogue, chunks: &[Chunk], chunk: &Chunk) -> Value {
    let (title, siblings): (String, Vec<&Chunk>) = match chunk.source {
        ChunkSource::Listing => {
            let owner = chunk.listing_id.as_deref();
            let title = owner
                .and_then(|id| catalogue.listing(id))
                .map(|l| format!("{} · {}", l.id, l.title))
                .unwrap_or_else(|| owner.unwrap_or("listing").to_owned());
            (
                title,
                chunks
                    .iter()
                    .filter(|c| c.source == ChunkSource::Listing && c.listing_id.as_deref() == owner)
                    .collect(),
            )
        }
        ChunkSource::Policy => {
            let page = policy_page(&chunk.id);
            let prefix = format!("policy:{page}#");
            let title = catalogue.policy(page).map(|p| p.title.clone()).unwrap_or_else(|| page.to_owned());
            (title, chunks.iter().filter(|c| c.source == ChunkSource::Policy && c.id.starts_with(&prefix)).collect())
        }
    };
    let parts: Vec<Value> = siblings
        .into_iter()
        .map(|c| {
            json!({
                "id": c.id,
                "heading": heading(catalogue, c),
                "text": c.text,
                "cited": c.id == chunk.id,
            })
        })
        .collect();
    json!({ "title": title, "parts": parts })
}

/// A listing's record for a bare listing-id citation: `{"title", "fields":
/// [[label, value], ...], "parts": [...]}` with its description sentences as
/// parts (none cited: the whole record is the source).
pub fn listing_record(catalogue: &Catalogue, chunks: &[Chunk], id: &str) -> Option<Value> {
    let l = catalogue.listing(id)?;
    let fields = vec![
        json!(["Offer", wire(&l.offer_type)]),
        json!(["Property", wire(&l.property_type)]),
        json!([
            "Price",
            format!(
                "{} EUR{}",
                l.price,
                if l.offer_type == crate::catalogue::OfferType::Rent { " per month" } else { "" }
            )
        ]),
        json!(["Living area", format!("{} m²", l.living_area_sqm)]),
        json!(["Rooms", l.rooms.to_string()]),
        json!(["Floor", l.floor.map_or_else(|| "—".to_owned(), |f| f.to_string())]),
        json!(["Built", l.year_built.to_string()]),
        json!(["Available from", l.available_from.to_string()]),
        json!(["Pets", wire(&l.pets_allowed)]),
        json!(["Energy class", wire(&l.energy_class)]),
        json!(["Features", l.features.join(", ")]),
    ];
    let parts: Vec<Value> = chunks
        .iter()
        .filter(|c| c.source == ChunkSource::Listing && c.listing_id.as_deref() == Some(id))
        .map(|c| json!({"id": c.id, "heading": null, "text": c.text, "cited": false}))
        .collect();
    Some(json!({
        "title": format!("{} · {} · {}, {}", l.id, l.title, l.district, l.city),
        "fields": fields,
        "parts": parts,
    }))
}

/// `deposit` for `policy:deposit#amount`.
fn policy_page(chunk_id: &str) -> &str {
    let rest = chunk_id.trim_start_matches("policy:");
    rest.split_once('#').map_or(rest, |(page, _)| page)
}

fn heading(catalogue: &Catalogue, chunk: &Chunk) -> Option<String> {
    if chunk.source != ChunkSource::Policy {
        return None;
    }
    let (page, section) = chunk.id.trim_start_matches("policy:").split_once('#')?;
    catalogue.policy(page)?.sections.iter().find(|s| s.slug == section).map(|s| s.heading.clone())
}

/// A catalogue enum as its JSON wire name (`on-request`, `rent`).
fn wire<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalogue() -> Catalogue {
        Catalogue::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data")).unwrap()
    }

    #[test]
    fn a_listing_sentence_is_flagged_within_its_description() {
        let c = catalogue();
        let chunk = c.chunks.iter().find(|ch| ch.id == "HH-1002#s1").unwrap();
        let doc = chunk_document(&c, &c.chunks, chunk);
        let parts = doc["parts"].as_array().unwrap();
        assert!(parts.len() > 2, "{doc:#}");
        assert!(parts.iter().all(|p| p["id"].as_str().unwrap().starts_with("HH-1002#s")));
        let cited: Vec<_> = parts.iter().filter(|p| p["cited"] == true).collect();
        assert_eq!(cited.len(), 1);
        assert_eq!(cited[0]["text"], chunk.text.as_str());
        assert!(doc["title"].as_str().unwrap().starts_with("HH-1002 · "), "{doc:#}");
    }

    #[test]
    fn a_policy_section_is_flagged_within_its_page_with_headings() {
        let c = catalogue();
        let chunk = c.chunks.iter().find(|ch| ch.id.starts_with("policy:deposit#")).unwrap();
        let doc = chunk_document(&c, &c.chunks, chunk);
        let parts = doc["parts"].as_array().unwrap();
        assert_eq!(parts.len(), c.policy("deposit").unwrap().sections.len());
        assert!(parts.iter().all(|p| p["heading"].is_string()));
        assert_eq!(parts.iter().filter(|p| p["cited"] == true).count(), 1);
    }

    #[test]
    fn a_listing_record_has_its_fields_and_sentences() {
        let c = catalogue();
        let record = listing_record(&c, &c.chunks, "HH-1001").unwrap();
        let fields = record["fields"].as_array().unwrap();
        assert!(fields.contains(&json!(["Offer", "rent"])), "{record:#}");
        assert!(fields.contains(&json!(["Price", "1650 EUR per month"])), "{record:#}");
        assert!(fields.contains(&json!(["Pets", "on-request"])), "{record:#}");
        assert!(!record["parts"].as_array().unwrap().is_empty());
        assert!(listing_record(&c, &c.chunks, "XY-9999").is_none());
    }
}
