//! The desk's example inquiries: one button each for a fact question, a
//! viewing request, a question the records cannot answer and a German
//! inquiry, written from the loaded catalogue (its listing ids, districts and
//! fields), so a different catalogue gets examples about its own listings.
//! They are not taken from the eval cases.

use serde::Serialize;

use crate::catalogue::{Catalogue, Listing, OfferType};

/// One example button.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Example {
    /// `fact`, `viewing`, `unanswerable` or `german`.
    pub kind: &'static str,
    /// The button's label.
    pub label: &'static str,
    /// The message it sends.
    pub inquiry: String,
}

/// The examples for `catalogue`, in button order: up to four, one per kind.
/// Each names a different listing where the catalogue has enough of them
/// (rentals for the fact, viewing and German questions, preferring a sale
/// listing for the unanswerable one); an empty catalogue has no examples.
pub fn examples(catalogue: &Catalogue) -> Vec<Example> {
    let listings = &catalogue.listings;
    if listings.is_empty() {
        return vec![];
    }
    let rentals: Vec<&Listing> = listings.iter().filter(|l| l.offer_type == OfferType::Rent).collect();
    let mut used: Vec<&str> = vec![];
    let with_floor: Vec<&Listing> = rentals.iter().copied().filter(|l| l.floor.is_some()).collect();
    let fact = pick(&with_floor, listings, &mut used);
    let viewing = pick(&rentals, listings, &mut used);
    let sales: Vec<&Listing> = listings.iter().filter(|l| l.offer_type == OfferType::Sale).collect();
    let unanswerable = pick(&sales, listings, &mut used);
    let german = pick(&rentals, listings, &mut used);
    vec![
        Example {
            kind: "fact",
            label: "Fact question",
            inquiry: format!("How many rooms does {} in {} have, and which floor is it on?", fact.id, fact.district),
        },
        Example {
            kind: "viewing",
            label: "Viewing request",
            inquiry: format!("Could I view {} in {} next Wednesday at 5 pm?", viewing.id, viewing.district),
        },
        Example {
            kind: "unanswerable",
            label: "Question the records can't answer",
            inquiry: format!(
                "Is there a supermarket within walking distance of {} in {}?",
                unanswerable.id, unanswerable.district
            ),
        },
        Example {
            kind: "german",
            label: "German inquiry",
            inquiry: format!(
                "Ist das Angebot {} in {} noch frei, und ab wann kann ich einziehen?",
                german.id, german.district
            ),
        },
    ]
}

/// The first listing not in `used` among `preferred`, else among `all`,
/// else the first of `all` (which is not empty); marks it used.
fn pick<'a>(preferred: &[&'a Listing], all: &'a [Listing], used: &mut Vec<&'a str>) -> &'a Listing {
    let chosen =
        preferred.iter().copied().chain(all.iter()).find(|l| !used.contains(&l.id.as_str())).unwrap_or(&all[0]);
    used.push(&chosen.id);
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_catalogue_gets_four_examples_about_different_listings() {
        let catalogue = Catalogue::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data")).unwrap();
        let examples = examples(&catalogue);
        let kinds: Vec<_> = examples.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, ["fact", "viewing", "unanswerable", "german"]);
        // HH-1001 is the first rental with a floor; M-3001 the first sale.
        assert_eq!(examples[0].inquiry, "How many rooms does HH-1001 in Eimsbüttel have, and which floor is it on?");
        assert!(examples[1].inquiry.starts_with("Could I view HH-1002 in Altona"), "{}", examples[1].inquiry);
        assert!(examples[2].inquiry.contains("M-3001 in Schwabing"), "{}", examples[2].inquiry);
        assert!(examples[3].inquiry.starts_with("Ist das Angebot HH-1003 in Volksdorf"), "{}", examples[3].inquiry);
        let cases = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("cases");
        for file in std::fs::read_dir(cases).unwrap() {
            let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
            for e in &examples {
                assert!(!text.contains(&e.inquiry), "{} is an eval case", e.inquiry);
            }
        }
    }

    #[test]
    fn an_empty_catalogue_has_no_examples() {
        let mut catalogue = Catalogue::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data")).unwrap();
        catalogue.listings.clear();
        assert!(examples(&catalogue).is_empty());
    }
}
