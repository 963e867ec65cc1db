//! Evidence with meaning: what a run's tools returned, as passages and typed
//! figures, and what the customer wrote.
//!
//! A tool result is read by what each part *is*: a listing record gives one
//! passage per description sentence (`HH-1001#s5`, the chunk ids of SPEC §3)
//! and one per field (`HH-1001.price`: "price 1650 EUR per month"); a
//! knowledge hit gives its chunk text. Figures come from those passages only,
//! with their kind (EUR, %, m²) and period, so a reply's "240 EUR per month"
//! must meet a 240 EUR figure. Retrieval scores (`bm25`, `coverage`,
//! `cosine`, `cosineZ`, `rerank`), counts (`total`), the digits of ids
//! (`3002` in `M-3002`), keys, ticket fields and timestamps are never
//! evidence: before this, one `get_listing` made an invented "3 %" grounded
//! through a room count or a score.
//!
//! The customer's own figures stay evidence (SPEC §6): "your offer of
//! 1.100 €" needs no source. Earlier replies never are.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::numbers::{figures, numbers, same_value, Figure, FigureKind, Period};

/// One piece of evidence text: a description sentence, a record field or a
/// knowledge passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Passage {
    /// Where it comes from: a chunk id (`HH-1001#s5`, `policy:deposit#amount`)
    /// or a record field (`HH-1001.price`).
    pub source: String,
    /// The listing it belongs to (`None` for policy passages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listing: Option<String>,
    /// The text.
    pub text: String,
}

/// What a run's tools returned and the user wrote: the only sources a reply may use.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Evidence {
    /// Listing and chunk ids returned by tools.
    pub ids: BTreeSet<String>,
    /// Values of the typed figures in [`Evidence::figures`] (kept for older
    /// traces, whose evidence had only numbers).
    pub tool_numbers: Vec<f64>,
    /// Numbers the user wrote (current and earlier inquiries).
    pub user_numbers: Vec<f64>,
    /// Passages and record fields, in the order the tools returned them.
    #[serde(default)]
    pub passages: Vec<Passage>,
    /// Figures of the passages, with kind and period (index into `passages` in `source`).
    #[serde(default)]
    pub figures: Vec<EvidenceFigure>,
}

/// A figure of a passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EvidenceFigure {
    /// The figure.
    pub figure: Figure,
    /// The passage's `source`.
    pub source: String,
}

/// Keys whose values are scores, counts, keys, timestamps or tool messages:
/// never evidence of a fact.
const NOT_EVIDENCE: &[&str] = &[
    "scores",
    "bm25",
    "coverage",
    "cosine",
    "cosineZ",
    "rerank",
    "rank",
    "score",
    "total",
    "found",
    "k",
    "limit",
    "createdAt",
    "ticketId",
    "contactEmail",
    "reason",
    "hint",
    "error",
    "summary",
    "source",
];

fn is_listing_id(s: &str) -> bool {
    let mut parts = s.splitn(2, '-');
    let (Some(a), Some(b)) = (parts.next(), parts.next()) else { return false };
    (1..=2).contains(&a.len())
        && a.chars().all(|c| c.is_ascii_uppercase())
        && b.len() == 4
        && b.chars().all(|c| c.is_ascii_digit())
}

impl Evidence {
    /// Adds a successful tool result: its ids (`id`, `listingId`, `chunkId`),
    /// and its passages and figures as described in the module docs.
    pub fn add_tool_result(&mut self, value: &serde_json::Value) {
        self.walk(value, None);
    }

    /// Whether any tool returned a listing (an id that is neither a chunk
    /// id `HH-1001#s3` nor a policy passage `policy:…`). False after a search
    /// that came back empty, or a lookup of an id the catalogue lacks.
    pub fn found_listing(&self) -> bool {
        self.ids.iter().any(|i| !i.contains('#') && !i.starts_with("policy:"))
    }

    fn walk(&mut self, value: &serde_json::Value, listing: Option<&str>) {
        match value {
            serde_json::Value::Object(map) => {
                for key in ["id", "listingId", "chunkId"] {
                    if let Some(s) = map.get(key).and_then(|v| v.as_str()) {
                        self.ids.insert(s.to_owned());
                    }
                }
                if map.contains_key("ticketId") {
                    // A ticket: the model's own summary, not a fact of the records.
                    return;
                }
                if let (Some(chunk), Some(text)) =
                    (map.get("chunkId").and_then(|v| v.as_str()), map.get("text").and_then(|v| v.as_str()))
                {
                    let owner = map.get("listingId").and_then(|v| v.as_str());
                    self.add_passage(chunk, owner, text);
                    return;
                }
                match map.get("id").and_then(|v| v.as_str()).filter(|id| is_listing_id(id)) {
                    Some(id) => self.add_listing(id, map),
                    None => {
                        for (key, v) in map {
                            if !NOT_EVIDENCE.contains(&key.as_str()) && !matches!(key.as_str(), "id" | "listingId") {
                                self.walk(v, listing);
                            }
                        }
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| self.walk(v, listing)),
            serde_json::Value::String(s) if s.chars().any(char::is_alphabetic) => {
                let source = listing.map_or_else(|| "tool".to_owned(), str::to_owned);
                self.add_passage(&source, listing, s);
            }
            // A bare number under an unknown key says nothing about what it measures.
            _ => {}
        }
    }

    /// A listing record or summary: description sentences and fields.
    fn add_listing(&mut self, id: &str, map: &serde_json::Map<String, serde_json::Value>) {
        let str_of = |k: &str| map.get(k).and_then(|v| v.as_str());
        let num_of = |k: &str| map.get(k).and_then(serde_json::Value::as_f64);
        if let Some(d) = str_of("description") {
            for (i, s) in crate::chunk::split_sentences(d).iter().enumerate() {
                self.add_passage(&format!("{id}#s{}", i + 1), Some(id), s);
            }
        }
        for key in ["title", "city", "district"] {
            if let Some(v) = str_of(key) {
                self.add_passage(&format!("{id}.{key}"), Some(id), v);
            }
        }
        if let Some(price) = num_of("price") {
            let monthly = str_of("priceUnit").is_some_and(|u| u.contains("month"));
            let text =
                if monthly { format!("rent {price} EUR per month") } else { format!("purchase price {price} EUR") };
            let period = if monthly { Some(Period::Monthly) } else { Some(Period::OneOff) };
            self.add_field(id, "price", text, Some((FigureKind::Price, price, period)));
        }
        if let Some(a) = num_of("livingAreaSqm") {
            self.add_field(
                id,
                "livingAreaSqm",
                format!("living area {a} square metres"),
                Some((FigureKind::Area, a, None)),
            );
        }
        if let Some(r) = num_of("rooms") {
            self.add_field(id, "rooms", format!("{r} rooms"), None);
        }
        if let Some(f) = map.get("floor") {
            match f.as_i64() {
                Some(f) => self.add_field(id, "floor", format!("floor {f}"), None),
                None if f.is_null() => {}
                None => {}
            }
        }
        if let Some(y) = map.get("yearBuilt").and_then(serde_json::Value::as_i64) {
            self.add_field(id, "yearBuilt", format!("built in {y}"), None);
        }
        if let Some(p) = str_of("petsAllowed") {
            let text = match p {
                "yes" => "pets are allowed".to_owned(),
                "no" => "pets are not allowed".to_owned(),
                "on-request" => "pets only on request, subject to the landlord's approval".to_owned(),
                other => format!("pets: {other}"),
            };
            self.add_field(id, "petsAllowed", text, None);
        }
        if let Some(features) = map.get("features").and_then(|v| v.as_array()) {
            let list: Vec<&str> = features.iter().filter_map(|f| f.as_str()).collect();
            if !list.is_empty() {
                self.add_field(id, "features", format!("features: {}", list.join(", ").replace('-', " ")), None);
            }
        }
        for key in ["offerType", "propertyType", "energyClass", "availableFrom"] {
            if let Some(v) = str_of(key) {
                self.add_field(id, key, format!("{key}: {v}"), None);
            }
        }
    }

    fn add_field(&mut self, id: &str, key: &str, text: String, figure: Option<(FigureKind, f64, Option<Period>)>) {
        let source = format!("{id}.{key}");
        if let Some((kind, value, period)) = figure {
            self.tool_numbers.push(value);
            self.figures.push(EvidenceFigure {
                figure: Figure { kind, value, text: text.clone(), period },
                source: source.clone(),
            });
        }
        self.passages.push(Passage { source, listing: Some(id.to_owned()), text });
    }

    fn add_passage(&mut self, source: &str, listing: Option<&str>, text: &str) {
        if self.passages.iter().any(|p| p.source == source && p.text == text) {
            return;
        }
        for f in figures(text) {
            self.tool_numbers.push(f.value);
            self.figures.push(EvidenceFigure { figure: f, source: source.to_owned() });
        }
        self.passages.push(Passage {
            source: source.to_owned(),
            listing: listing.map(str::to_owned),
            text: text.to_owned(),
        });
    }

    /// Adds text the user wrote.
    pub fn add_user_text(&mut self, text: &str) {
        self.user_numbers.extend(numbers(text));
    }

    /// Whether a figure is grounded: a tool figure of the same kind and value,
    /// or a number the customer wrote. Evidence stored by an older version
    /// (numbers only, no typed figures) is matched by value.
    pub fn supports(&self, figure: &Figure) -> bool {
        self.user_wrote(figure.value) || self.tool_supports(figure)
    }

    /// Whether a tool result has this figure (kind and value).
    pub fn tool_supports(&self, figure: &Figure) -> bool {
        if self.figures.is_empty() && self.passages.is_empty() {
            return self.tool_numbers.iter().any(|n| same_value(*n, figure.value));
        }
        self.figures.iter().any(|e| e.figure.kind == figure.kind && same_value(e.figure.value, figure.value))
    }

    /// Whether the customer wrote this value (current or earlier inquiries).
    pub fn user_wrote(&self, value: f64) -> bool {
        self.user_numbers.iter().any(|n| same_value(*n, value))
    }

    /// The evidence figures of the same kind and value as `figure`.
    pub fn matching_figures<'a>(&'a self, figure: &'a Figure) -> impl Iterator<Item = &'a EvidenceFigure> + 'a {
        self.figures.iter().filter(move |e| e.figure.kind == figure.kind && same_value(e.figure.value, figure.value))
    }

    /// Whether the cited source `id` (a chunk id, or a listing id for its whole
    /// record) holds this figure.
    pub fn cited_source_has(&self, id: &str, figure: &Figure) -> bool {
        self.matching_figures(figure).any(|e| {
            e.source == id
                || (!id.contains('#') && e.source.split(['#', '.']).next() == Some(id))
                || (id.contains("#s") && e.source.split(['#', '.']).next() == id.split('#').next())
        })
    }

    /// Whether any passage (or record field) mentions this calendar year.
    pub fn has_year(&self, year: u32) -> bool {
        let y = year.to_string();
        self.passages.iter().any(|p| p.text.contains(&y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grounding::numbers::figures;

    fn listing() -> serde_json::Value {
        serde_json::json!({
            "id": "M-3002", "title": "Flat", "city": "München", "district": "Haidhausen",
            "description": "The cold rent is 2,150 EUR per month. A space in the underground car park can be rented for an extra 95 EUR per month.",
            "price": 2150.0, "priceUnit": "EUR/month", "livingAreaSqm": 84.0, "rooms": 3.0, "floor": 4,
            "yearBuilt": 2016, "availableFrom": "2027-02-01", "features": ["balcony", "lift"], "petsAllowed": "on-request", "energyClass": "A"
        })
    }

    fn one(text: &str) -> Figure {
        figures(text).remove(0)
    }

    #[test]
    fn scores_ids_counts_and_keys_are_not_evidence() {
        let mut e = Evidence::default();
        e.add_tool_result(&listing());
        e.add_tool_result(&serde_json::json!({"found": true, "results": [{"chunkId": "policy:deposit#amount", "source": "policy", "listingId": null,
            "text": "The deposit is at most three months' cold rent.", "scores": {"bm25": 5.03, "coverage": 1.0, "cosine": 0.29, "cosineZ": 2.17}}]}));
        e.add_tool_result(&serde_json::json!({"total": 7, "results": []}));
        e.add_tool_result(&serde_json::json!({"ticketId": "TKT-0004", "createdAt": "2026-12-01T10:00:00Z", "reason": "viewing_request",
            "listingId": "M-3002", "summary": "Customer offers 1,900 EUR", "contactEmail": null}));
        for invented in
            ["3 %", "4 EUR", "3002 EUR", "5.03 EUR", "2 %", "7 EUR", "1,900 EUR", "10 EUR", "84 EUR", "2016 EUR"]
        {
            assert!(!e.supports(&one(invented)), "{invented} counted as grounded");
        }
        for real in ["2,150 EUR", "95 €", "84 m²"] {
            assert!(e.supports(&one(real)), "{real} not grounded");
        }
        assert!(!e.supports(&one("95 m²")), "a price is not an area");
        assert!(e.ids.contains("M-3002") && e.ids.contains("policy:deposit#amount"));
    }

    #[test]
    fn fields_and_sentences_are_passages_with_periods() {
        let mut e = Evidence::default();
        e.add_tool_result(&listing());
        assert!(e.passages.iter().any(|p| p.source == "M-3002#s2" && p.text.contains("95 EUR")));
        let parking = e.matching_figures(&one("95 EUR")).next().map(|f| f.figure.period);
        assert_eq!(parking, Some(Some(Period::Monthly)));
        assert!(e.cited_source_has("M-3002#s2", &one("95 EUR")));
        assert!(e.cited_source_has("M-3002", &one("95 EUR")));
        assert!(!e.cited_source_has("policy:deposit#amount", &one("95 EUR")));
        assert!(e.has_year(2016) && !e.has_year(2015));
    }

    #[test]
    fn the_customer_s_figures_stay_evidence() {
        let mut e = Evidence::default();
        e.add_user_text("Would the owner consider 650.000 EUR?");
        assert!(e.supports(&one("650,000 EUR")));
        assert!(e.supports(&one("650.000 €")));
    }
}
