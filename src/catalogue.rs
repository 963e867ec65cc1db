//! The catalogue: listings (`listings.json`) and policy pages (`policies/*.md`),
//! loaded and validated (SPEC §3).
//!
//! Every load error names the file, the listing index and id (or the line of a
//! policy page), the field and what was expected, so a person can fix the data
//! without reading this code. Nothing here panics on input data.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::chunk::{self, policy_chunk_id, split_sentences, Chunk, ChunkSource};

/// Whether a listing is offered for rent or for sale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OfferType {
    /// Rented; `price` is EUR per month (cold rent unless the description says otherwise).
    Rent,
    /// For sale; `price` is the purchase price in EUR.
    Sale,
}

/// Kind of property.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PropertyType {
    /// A flat in a multi-unit building.
    Apartment,
    /// A house.
    House,
    /// A commercial unit (shop, office); not a home unless the record says so.
    Commercial,
}

/// Unit of `price`: `EUR/month` for rentals, `EUR` for sales.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum PriceUnit {
    /// Monthly rent in euros.
    #[serde(rename = "EUR/month")]
    EurPerMonth,
    /// Purchase price in euros.
    #[serde(rename = "EUR")]
    Eur,
}

/// Pet policy. `on-request` is not a yes: the landlord decides case by case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PetsAllowed {
    /// Pets allowed.
    Yes,
    /// No pets.
    No,
    /// The landlord decides on request.
    OnRequest,
}

/// Energy efficiency class of the German energy certificate, `A+` (best) to `H`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[allow(missing_docs)]
pub enum EnergyClass {
    #[serde(rename = "A+")]
    APlus,
    A,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
}

/// One listing, with exactly the JSON names of SPEC §3 so other catalogues in
/// this shape load unchanged. Unknown extra keys are ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Listing {
    /// `^[A-Z]{1,2}-\d{4}$`, e.g. `HH-1001`.
    pub id: String,
    /// Headline.
    pub title: String,
    /// City in its native spelling (`München`, `Köln`).
    pub city: String,
    /// District within the city.
    pub district: String,
    /// Free text; split into sentence chunks `<ID>#s<i>`.
    pub description: String,
    /// Rent or sale.
    pub offer_type: OfferType,
    /// Apartment, house or commercial.
    pub property_type: PropertyType,
    /// EUR per month (rent) or EUR (sale); > 0.
    pub price: f64,
    /// Must agree with `offer_type`.
    pub price_unit: PriceUnit,
    /// Living area in square metres; > 0.
    pub living_area_sqm: f64,
    /// Number of rooms (German counting, may be 2.5); > 0.
    pub rooms: f64,
    /// Floor (0 = ground floor); `null` for houses.
    pub floor: Option<i32>,
    /// Year of construction.
    pub year_built: i32,
    /// First day the property is available (ISO date).
    pub available_from: NaiveDate,
    /// Feature tags such as `balcony`, `lift`.
    pub features: Vec<String>,
    /// Pet policy.
    pub pets_allowed: PetsAllowed,
    /// Energy class `A+`…`H`.
    pub energy_class: EnergyClass,
}

/// A policy page `policies/<slug>.md`: a `# Title` line, then `## Section` blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyPage {
    /// File stem, e.g. `deposit`; resource URI `policy://<slug>`.
    pub slug: String,
    /// Text of the `# ` line.
    pub title: String,
    /// The whole file as written (served as `text/markdown`).
    pub markdown: String,
    /// The `## ` sections in order; text before the first section is not indexed.
    pub sections: Vec<PolicySection>,
}

/// One `## Heading` block of a policy page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicySection {
    /// Heading text.
    pub heading: String,
    /// Slugified heading (see [`chunk::slugify`]), unique within the page.
    pub slug: String,
    /// Section body with line breaks collapsed to spaces.
    pub text: String,
}

/// A loaded, validated catalogue with its chunks.
#[derive(Debug, Clone)]
pub struct Catalogue {
    /// Listings in file order.
    pub listings: Vec<Listing>,
    /// Policy pages sorted by slug.
    pub policies: Vec<PolicyPage>,
    /// Listing sentence chunks then policy section chunks.
    pub chunks: Vec<Chunk>,
}

/// Why a catalogue could not be loaded. Each message names the file and the
/// place in it; the CLI maps every variant to exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum CatalogueError {
    /// The file or directory could not be read.
    #[error("{path}: cannot read")]
    Io {
        /// File or directory.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The file is not valid JSON / UTF-8 or not an array.
    #[error("{path}: {message}")]
    Syntax {
        /// File.
        path: PathBuf,
        /// What was wrong, with line and column where known.
        message: String,
    },
    /// A listing field is missing or invalid.
    #[error("{path}: listing at index {index} ({id}), field `{field}`: {message}")]
    Listing {
        /// File.
        path: PathBuf,
        /// 0-based index in the array.
        index: usize,
        /// `id "HH-1001"` or `id unknown` when the id itself is unusable.
        id: ListingRef,
        /// JSON field name.
        field: String,
        /// What was found and what was expected.
        message: String,
    },
    /// A policy page is malformed.
    #[error("{path}:{line}: {message}")]
    Policy {
        /// File.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What was expected.
        message: String,
    },
}

/// How an error refers to a listing whose id may itself be broken.
#[derive(Debug, Clone)]
pub struct ListingRef(pub Option<String>);

impl fmt::Display for ListingRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(id) => write!(f, "id \"{id}\""),
            None => f.write_str("id unknown"),
        }
    }
}

/// JSON fields every listing must carry, with what each must hold. The order is
/// the order of SPEC §3 and of the error checks.
const LISTING_FIELDS: &[(&str, &str)] = &[
    ("id", "a string like \"HH-1001\" (^[A-Z]{1,2}-\\d{4}$)"),
    ("title", "a non-empty string"),
    ("city", "a non-empty string"),
    ("district", "a non-empty string"),
    ("description", "a non-empty string"),
    ("offerType", "one of \"rent\", \"sale\""),
    ("propertyType", "one of \"apartment\", \"house\", \"commercial\""),
    ("price", "a number > 0"),
    ("priceUnit", "\"EUR/month\" for rent or \"EUR\" for sale"),
    ("livingAreaSqm", "a number > 0"),
    ("rooms", "a number > 0"),
    ("floor", "an integer or null"),
    ("yearBuilt", "an integer"),
    ("availableFrom", "an ISO date such as \"2027-01-01\""),
    ("features", "an array of strings"),
    ("petsAllowed", "one of \"yes\", \"no\", \"on-request\""),
    ("energyClass", "one of \"A+\", \"A\", \"B\", \"C\", \"D\", \"E\", \"F\", \"G\", \"H\""),
];

fn expected(field: &str) -> &'static str {
    LISTING_FIELDS.iter().find(|(name, _)| *name == field).map(|(_, what)| *what).unwrap_or("a valid value")
}

/// Returns true when `id` matches `^[A-Z]{1,2}-\d{4}$`.
pub fn is_valid_listing_id(id: &str) -> bool {
    let Some((prefix, digits)) = id.split_once('-') else {
        return false;
    };
    (1..=2).contains(&prefix.len())
        && prefix.chars().all(|c| c.is_ascii_uppercase())
        && digits.len() == 4
        && digits.chars().all(|c| c.is_ascii_digit())
}

impl Catalogue {
    /// Loads `<dir>/listings.json` and `<dir>/policies/*.md`, validates both and
    /// builds the chunks.
    ///
    /// # Errors
    /// [`CatalogueError`] naming the file and place of the first problem found.
    pub fn load(dir: &Path) -> Result<Self, CatalogueError> {
        let file = dir.join("listings.json");
        let listings = load_listings(&file)?;
        if listings.is_empty() {
            return Err(CatalogueError::Syntax {
                path: file,
                message: "holds no listings; expected at least one listing in the array".into(),
            });
        }
        let policies = load_policies(&dir.join("policies"))?;
        Ok(Self::from_parts(listings, policies))
    }

    /// Builds a catalogue from already validated parts (chunks are derived).
    pub fn from_parts(listings: Vec<Listing>, policies: Vec<PolicyPage>) -> Self {
        let chunks = chunk_catalogue(&listings, &policies);
        Self { listings, policies, chunks }
    }

    /// Adds the listings of an overlay directory (`<dir>/listings.json`, e.g. a
    /// test-only fixture) to this catalogue.
    ///
    /// # Errors
    /// A load error of the overlay file, or an overlay id that the catalogue already has.
    pub fn with_overlay(self, dir: &Path) -> Result<Self, CatalogueError> {
        let path = dir.join("listings.json");
        let extra = load_listings(&path)?;
        let mut listings = self.listings;
        for (index, listing) in extra.into_iter().enumerate() {
            if listings.iter().any(|l| l.id == listing.id) {
                return Err(CatalogueError::Listing {
                    path,
                    index,
                    id: ListingRef(Some(listing.id)),
                    field: "id".into(),
                    message: "duplicates a listing of the main catalogue; expected a new id".into(),
                });
            }
            listings.push(listing);
        }
        Ok(Self::from_parts(listings, self.policies))
    }

    /// Looks a listing up by exact (already normalised) id.
    pub fn listing(&self, id: &str) -> Option<&Listing> {
        self.listings.iter().find(|l| l.id == id)
    }

    /// Looks a policy page up by slug.
    pub fn policy(&self, slug: &str) -> Option<&PolicyPage> {
        self.policies.iter().find(|p| p.slug == slug)
    }
}

/// Largest `listings.json` read (bytes): 1 GiB. A catalogue of 100,000
/// listings shaped like the bundled one is about 110 MB (#32); other input
/// files keep the 64 MiB limit of [`crate::text_file::MAX_FILE_BYTES`].
pub const MAX_LISTINGS_BYTES: u64 = 1 << 30;

/// Loads and validates a listings file.
///
/// # Errors
/// Unreadable file, invalid JSON (with line and column), a top level that is not
/// an array, or the first invalid listing (index, id, field, expectation).
pub fn load_listings(path: &Path) -> Result<Vec<Listing>, CatalogueError> {
    let text = crate::text_file::read_at_most(path, MAX_LISTINGS_BYTES)
        .map_err(|message| CatalogueError::Syntax { path: path.into(), message })?;
    // Strict: a repeated key ("price": 1650, "price": 9999) is an error, not the last value.
    let values: serde_json::Value = crate::json_file::from_str(&text)
        .map_err(|e| CatalogueError::Syntax { path: path.into(), message: format!("invalid JSON: {e}") })?;
    let serde_json::Value::Array(items) = values else {
        return Err(CatalogueError::Syntax {
            path: path.into(),
            message: "expected a JSON array of listings at the top level".into(),
        });
    };
    let mut listings = Vec::with_capacity(items.len());
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (index, item) in items.into_iter().enumerate() {
        let listing = parse_listing(path, index, item)?;
        if let Some(first) = seen.insert(listing.id.clone(), index) {
            return Err(CatalogueError::Listing {
                path: path.into(),
                index,
                id: ListingRef(Some(listing.id)),
                field: "id".into(),
                message: format!("duplicate id, first used by the listing at index {first}; expected unique ids"),
            });
        }
        listings.push(listing);
    }
    Ok(listings)
}

fn parse_listing(path: &Path, index: usize, item: serde_json::Value) -> Result<Listing, CatalogueError> {
    let id = item.get("id").and_then(|v| v.as_str()).map(str::to_owned);
    let err = |field: &str, message: String| CatalogueError::Listing {
        path: path.into(),
        index,
        id: ListingRef(id.clone()),
        field: field.into(),
        message,
    };
    let Some(object) = item.as_object() else {
        return Err(err("(listing)", format!("expected a JSON object, found {}", kind(&item))));
    };
    for (field, what) in LISTING_FIELDS {
        if !object.contains_key(*field) {
            return Err(err(field, format!("missing; expected {what}")));
        }
    }
    let listing: Listing = serde_path_to_error::deserialize(&item).map_err(|e| {
        let field = e.path().to_string();
        let field = field.split(['.', '[']).next().unwrap_or("").to_owned();
        let found = object.get(&field).map(short_value).unwrap_or_default();
        err(&field, format!("found {found}; expected {}", expected(&field)))
    })?;
    if !is_valid_listing_id(&listing.id) {
        return Err(err("id", format!("found \"{}\"; expected {}", listing.id, expected("id"))));
    }
    for (field, value) in [
        ("title", &listing.title),
        ("city", &listing.city),
        ("district", &listing.district),
        ("description", &listing.description),
    ] {
        if value.trim().is_empty() {
            return Err(err(field, format!("found an empty string; expected {}", expected(field))));
        }
    }
    for (field, value) in
        [("price", listing.price), ("livingAreaSqm", listing.living_area_sqm), ("rooms", listing.rooms)]
    {
        if !(value.is_finite() && value > 0.0) {
            return Err(err(field, format!("found {value}; expected {}", expected(field))));
        }
    }
    let unit_ok = matches!(
        (listing.offer_type, listing.price_unit),
        (OfferType::Rent, PriceUnit::EurPerMonth) | (OfferType::Sale, PriceUnit::Eur)
    );
    if !unit_ok {
        return Err(err(
            "priceUnit",
            format!(
                "found {} for offerType {}; expected \"EUR/month\" for rent or \"EUR\" for sale",
                short_value(&object["priceUnit"]),
                short_value(&object["offerType"])
            ),
        ));
    }
    if let Some(pos) = listing.features.iter().position(|f| f.trim().is_empty()) {
        return Err(err("features", format!("element {pos} is empty; expected non-empty feature names")));
    }
    Ok(listing)
}

fn kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// A value for an error message: short scalars verbatim, containers by kind.
fn short_value(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) if s.chars().count() <= 40 => format!("\"{s}\""),
        serde_json::Value::Number(_) | serde_json::Value::Bool(_) | serde_json::Value::Null => value.to_string(),
        other => kind(other).to_owned(),
    }
}

/// Loads every `*.md` file of a directory as a policy page, sorted by slug.
///
/// # Errors
/// Unreadable directory or file, non-UTF-8 text, a page without a `# Title` as
/// its first non-blank line, an empty or duplicate section heading, an empty section.
pub fn load_policies(dir: &Path) -> Result<Vec<PolicyPage>, CatalogueError> {
    let entries = std::fs::read_dir(dir).map_err(|source| CatalogueError::Io { path: dir.into(), source })?;
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| CatalogueError::Io { path: dir.into(), source })?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "md") {
            paths.push(path);
        }
    }
    paths.sort();
    paths.iter().map(|p| load_policy(p)).collect()
}

/// Parses one policy page file.
///
/// # Errors
/// See [`load_policies`].
pub fn load_policy(path: &Path) -> Result<PolicyPage, CatalogueError> {
    // A byte-order mark is dropped here, so the title line reads "# Deposit".
    let markdown =
        crate::text_file::read(path).map_err(|message| CatalogueError::Syntax { path: path.into(), message })?;
    let slug = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
    parse_policy(path, &slug, markdown)
}

fn parse_policy(path: &Path, slug: &str, markdown: String) -> Result<PolicyPage, CatalogueError> {
    let perr = |line: usize, message: String| CatalogueError::Policy { path: path.into(), line, message };
    if slug.is_empty() || chunk::slugify(slug) != slug {
        return Err(perr(
            1,
            format!("file name \"{slug}\" is not a slug; expected lower-case letters, digits and '-'"),
        ));
    }
    let mut seen_slugs: HashMap<String, usize> = HashMap::new();
    let mut lines = markdown.lines().enumerate().skip_while(|(_, l)| l.trim().is_empty());
    let title = match lines.next() {
        Some((_, line)) if line.starts_with("# ") && !line[2..].trim().is_empty() => line[2..].trim().to_owned(),
        Some((n, line)) => {
            return Err(perr(n + 1, format!("found \"{}\"; expected a `# Title` line first", truncate(line, 40))))
        }
        None => return Err(perr(1, "empty file; expected a `# Title` line first".into())),
    };
    let mut sections: Vec<(usize, PolicySection)> = Vec::new();
    for (n, line) in lines {
        if let Some(heading) = line.strip_prefix("## ").or_else(|| (line.trim() == "##").then_some("")) {
            let heading = heading.trim();
            if heading.is_empty() {
                return Err(perr(n + 1, "empty section heading; expected `## Heading`".into()));
            }
            let section_slug = chunk::slugify(heading);
            if section_slug.is_empty() {
                return Err(perr(
                    n + 1,
                    format!(
                        "heading \"{heading}\" has no letters or digits; expected a heading that makes a section id"
                    ),
                ));
            }
            // One map lookup per heading (a page of 100,000 sections scanned them all each time).
            if let Some(first) = seen_slugs.get(&section_slug) {
                return Err(perr(
                    n + 1,
                    format!("section \"{heading}\" has the same id \"{section_slug}\" as the section on line {first}; expected unique headings"),
                ));
            }
            seen_slugs.insert(section_slug.clone(), n + 1);
            sections
                .push((n + 1, PolicySection { heading: heading.to_owned(), slug: section_slug, text: String::new() }));
        } else if let Some((_, section)) = sections.last_mut() {
            let line = line.trim();
            if !line.is_empty() {
                if !section.text.is_empty() {
                    section.text.push(' ');
                }
                section.text.push_str(line);
            }
        }
    }
    if let Some((line, s)) = sections.iter().find(|(_, s)| s.text.is_empty()) {
        return Err(perr(*line, format!("section \"{}\" has no text; expected a paragraph under it", s.heading)));
    }
    Ok(PolicyPage { slug: slug.to_owned(), title, markdown, sections: sections.into_iter().map(|(_, s)| s).collect() })
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        s.chars().take(max).collect::<String>() + "…"
    }
}

/// Builds every chunk of a catalogue: listing sentences (file order) then policy
/// sections (page order).
pub fn chunk_catalogue(listings: &[Listing], policies: &[PolicyPage]) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    for listing in listings {
        let header = format!("{} ({}) · {}, {}", listing.title, listing.id, listing.district, listing.city);
        for (i, sentence) in split_sentences(&listing.description).into_iter().enumerate() {
            chunks.push(Chunk {
                id: format!("{}#s{}", listing.id, i + 1),
                source: ChunkSource::Listing,
                listing_id: Some(listing.id.clone()),
                index_text: format!("{header}\n{sentence}"),
                text: sentence,
            });
        }
    }
    for page in policies {
        for section in &page.sections {
            chunks.push(Chunk {
                id: policy_chunk_id(&page.slug, &section.slug),
                source: ChunkSource::Policy,
                listing_id: None,
                index_text: format!("{} · {}\n{}", page.title, section.heading, section.text),
                text: section.text.clone(),
            });
        }
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_id_pattern() {
        for ok in ["HH-1001", "B-2001", "K-0000"] {
            assert!(is_valid_listing_id(ok), "{ok}");
        }
        for bad in ["hh-1001", "HHH-1001", "HH-101", "HH1001", "HH-10011", "-1001", "H1-1001", "ÄÄ-1001"] {
            assert!(!is_valid_listing_id(bad), "{bad}");
        }
    }
}
