//! Figures a reply works out from figures the evidence has: the monthly total
//! of a cold rent and its utilities ("1,650 + 240 = 1,890 EUR", "together
//! 1,890 EUR a month"), what is left of a budget ("2,000 − 1,890 leaves
//! 110 EUR"), a multiple ("3 × 1,650 = 4,950 EUR", "over a year 12 × 1,890").
//! Real assistants do this arithmetic; a figure that is the sum, difference
//! or multiple of grounded figures is grounded too, when the reply shows it
//! as worked out. Percentages are not applied: the records leave a stepped
//! rent's next amount to the contract.
//!
//! The arithmetic must be right: "1,650 + 240 = 1,990 EUR" stays unsupported.

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::numbers::{numbers, same_value, FigureKind};
use super::text::sentences;
use crate::fold::plain;

/// Words that put figures together (folded text): "+", "=", "plus",
/// "together", "in total", "insgesamt", "zusammen", "macht", "comes to".
/// Not a bare "and": "1,890 EUR cold rent and 240 EUR utilities" adds nothing up.
static SUM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\+|=|\b(plus|together|in total|total|totals|all[- ]in|altogether|in all|all told|combined|comes? to|coming to|adds? up( to)?|sum|i\.e\.|that is|that's|insgesamt|zusammen|zusammengerechnet|gesamt\w*|summe|macht|ergibt|ergeben|also|warmmiete|warm rent|monthly outlay|outlay)\b")
        .expect("valid pattern")
});

/// Words that take one figure from another: "−", "minus", "leaves", "left",
/// "below your budget", "übrig", "Luft", "Differenz".
static DIFFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[-−–]\s*\d|=|\b(minus|less|leaves?|leaving|left|remain\w*|spare|short|below|under|above|over|more than|difference|margin|headroom|buffer|cushion|unter|uber|ubrig|bleib\w*|differenz|abzuglich|weniger|mehr als|puffer|luft|spielraum)\b")
        .expect("valid pattern")
});

/// A multiplier: a small number (digits or a word) before "×", "times",
/// "months' rent", "Monatsmieten", "instalments" ("three months' cold rent",
/// "3 × 1,650", "drei Kaltmieten"), or after "×" ("1,650 × 3"). A bare small
/// number ("3 rooms") multiplies nothing.
static MULTIPLIER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(\d{1,2}|two|twice|double|three|triple|four|five|six|twelve|zwei|doppelte?|drei|dreifache|vier|funf|sechs|zwolf)\s*(×|x\b|\*|times\b|mal\b|(months?|monate?|monats\w*|kaltmieten|nettokaltmieten|mieten|rents|instalments?|installments?|raten|teilbetrage|payments|zahlungen)\b)|(×|\bx|\*|\btimes|\bmal)\s*(\d{1,2})\b")
        .expect("valid pattern")
});

/// Multipliers written as words (folded), and their value.
const MULTIPLIER_WORDS: &[(&str, f64)] = &[
    ("two", 2.0),
    ("twice", 2.0),
    ("double", 2.0),
    ("three", 3.0),
    ("triple", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("twelve", 12.0),
    ("zwei", 2.0),
    ("doppelt", 2.0),
    ("doppelte", 2.0),
    ("drei", 3.0),
    ("dreifache", 3.0),
    ("vier", 4.0),
    ("funf", 5.0),
    ("sechs", 6.0),
    ("zwolf", 12.0),
];

/// A year's worth of a monthly figure ("over a year", "im Jahr", "jährlich").
static YEAR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(a year|per year|per annum|over (a|the|one) year|each year|every year|yearly|annual\w*|twelve months|12 months|im jahr|pro jahr|jahrlich\w*|aufs jahr|uber das jahr|ubers jahr|jahres\w*|zwolf monate|12 monate)\b")
        .expect("valid pattern")
});

/// The values of a reply's figures that it works out from grounded ones,
/// in reply order (EUR and plain numbers alike; the caller compares values).
/// `customer` is the customer's own messages: their figures enter a
/// difference (what is left of their budget), never a total or multiple.
pub fn derived_values(reply: &str, evidence: &Evidence, customer: &str) -> Vec<f64> {
    // Every number of the tool results, read on first need.
    let record_numbers = std::cell::OnceCell::new();
    let in_records = |v: f64| {
        evidence.figures.iter().any(|e| same_value(e.figure.value, v))
            || record_numbers
                .get_or_init(|| evidence.passages.iter().flat_map(|p| numbers(&p.text)).collect::<Vec<f64>>())
                .iter()
                .any(|n| same_value(*n, v))
    };
    let customer_numbers = numbers(customer);
    let from_customer = |v: f64| evidence.user_wrote(v) || customer_numbers.iter().any(|n| same_value(*n, v));
    let prices = listing_prices(evidence);
    let mut derived: Vec<f64> = vec![];
    // Figures from the records or worked out from them, and all grounded
    // figures (the customer's too), of the sentences read so far: a bullet
    // list gives its parts on lines of their own and its total last.
    let mut records_window: Vec<Vec<f64>> = vec![];
    let mut any_window: Vec<Vec<f64>> = vec![];
    for s in sentences(reply) {
        let folded = plain(&s.text);
        let bare = super::figure_checks::NOT_A_QUANTITY.replace_all(&folded, " ");
        let here: Vec<f64> = numbers(&bare);
        // Operands: this sentence's figures (before or after: "leaves 110 EUR
        // of your 2,000 EUR") and those of the last few sentences.
        let worked_out = |v: f64, derived: &[f64]| derived.iter().any(|d| same_value(*d, v));
        let mut records: Vec<f64> =
            here.iter().copied().filter(|v| in_records(*v) || worked_out(*v, &derived)).collect();
        let mut any: Vec<f64> = here.iter().copied().filter(|v| records.contains(v) || from_customer(*v)).collect();
        for &v in &here {
            if any.iter().any(|k| same_value(*k, v)) {
                continue;
            }
            let from_records: Vec<f64> =
                records_window.iter().rev().take(3).flatten().chain(records.iter()).copied().collect();
            let from_any: Vec<f64> = any_window.iter().rev().take(3).flatten().chain(any.iter()).copied().collect();
            // A sum or multiple of the records' figures ("1,650 + 240 = 1,890"; "3 × 1,650 = 4,950";
            // "4,950 EUR in three instalments of 1,650 EUR"; "drei Kaltmieten, also 4.950 €").
            // The customer's figure does not enter a total: "your 1,500 + 240 = 1,740" keeps
            // their figure as if it were the rent.
            let sum = SUM.is_match(&folded) && (sums_to(&from_records, v) || listing_total(&prices, v));
            let multiple = multipliers(&folded).iter().any(|m| {
                from_records.iter().any(|a| close(a * m, v) || close(a / m, v))
                    || prices.iter().any(|(_, a)| close(a * m, v))
            });
            // What is left of the customer's budget, or how far their offer is below the rent.
            let difference = DIFFERENCE.is_match(&folded) && differs_to(&from_any, v);
            if sum || multiple {
                records.push(v);
            }
            if sum || multiple || difference {
                derived.push(v);
                any.push(v);
            }
        }
        records_window.push(records);
        any_window.push(any);
    }
    derived
}

/// To the cent, or to the euro where a model rounded ("1,324.80" → "1,325").
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.51
}

/// Whether two to four distinct operands add up to `v`.
fn sums_to(operands: &[f64], v: f64) -> bool {
    let ops: Vec<f64> = operands.iter().rev().take(8).copied().filter(|o| *o > 0.0).collect();
    let n = ops.len();
    (1u32..(1 << n)).any(|mask| {
        let k = mask.count_ones();
        (2..=4).contains(&k) && close((0..n).filter(|i| mask & (1 << i) != 0).map(|i| ops[i]).sum(), v)
    })
}

/// Whether one operand less another is `v`.
fn differs_to(operands: &[f64], v: f64) -> bool {
    operands.iter().any(|a| operands.iter().any(|b| a > b && close(a - b, v)))
}

/// The multipliers a sentence gives (see [`MULTIPLIER`]), and 12 where it
/// speaks of a year.
fn multipliers(folded: &str) -> Vec<f64> {
    let mut out: Vec<f64> = MULTIPLIER
        .captures_iter(folded)
        .filter_map(|c| {
            let w = c.get(1).or_else(|| c.get(5))?.as_str();
            w.parse::<f64>().ok().or_else(|| MULTIPLIER_WORDS.iter().find(|(word, _)| *word == w).map(|(_, m)| *m))
        })
        .filter(|m| (2.0..=60.0).contains(m))
        .collect();
    if YEAR.is_match(folded) {
        out.push(12.0);
    }
    out
}

/// The listings' prices in the evidence (not the policies'), with the
/// listing each belongs to.
fn listing_prices(evidence: &Evidence) -> Vec<(&str, f64)> {
    evidence
        .figures
        .iter()
        .filter(|e| e.figure.kind == FigureKind::Price && !e.source.starts_with("policy:"))
        .map(|e| (e.source.split(['#', '.']).next().unwrap_or(&e.source), e.figure.value))
        .collect()
}

/// Whether `v` is one listing's rent plus the utilities its record states
/// (the warm rent a model names without writing out the sum).
fn listing_total(prices: &[(&str, f64)], v: f64) -> bool {
    prices.iter().enumerate().any(|(i, (la, a))| {
        prices.iter().enumerate().any(|(j, (lb, b))| i < j && la == lb && !same_value(*a, *b) && close(a + b, v))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence() -> Evidence {
        let mut e = Evidence::default();
        e.add_tool_result(&serde_json::json!({
            "id": "HH-1001", "title": "Flat", "city": "Hamburg",
            "description": "The cold rent (Kaltmiete) is 1,650 EUR per month. Utilities (Nebenkosten) are an additional 240 EUR per month, heating included. The deposit (Kaution) is three months' cold rent.",
            "price": 1650.0, "priceUnit": "EUR/month", "livingAreaSqm": 78.0, "rooms": 3.0, "floor": 2
        }));
        e
    }

    fn derived(reply: &str) -> Vec<f64> {
        derived_values(reply, &evidence(), "A flat under 2,000 EUR?")
    }

    #[test]
    fn a_sum_written_out_is_grounded() {
        assert_eq!(derived("You pay 1,650 + 240 = 1,890 EUR a month [HH-1001]."), vec![1890.0]);
        assert_eq!(
            derived("Sie zahlen 1.650 € Kaltmiete plus 240 € Nebenkosten, zusammen 1.890 € im Monat."),
            vec![1890.0]
        );
    }

    #[test]
    fn a_sum_over_bullets_is_grounded() {
        let reply = "- Cold rent: 1,650 EUR\n- Utilities: 240 EUR\n- Total: 1,890 EUR a month";
        assert_eq!(derived(reply), vec![1890.0]);
    }

    #[test]
    fn wrong_arithmetic_is_not_grounded() {
        assert!(derived("You pay 1,650 + 240 = 1,990 EUR a month.").is_empty());
        assert!(derived("In total you pay 1,990 EUR a month.").is_empty());
    }

    #[test]
    fn a_warm_rent_without_its_sum_is_grounded() {
        assert_eq!(derived("In total you pay 1,890 EUR a month for HH-1001."), vec![1890.0]);
        // No word that puts figures together: a bare figure is not worked out.
        assert!(derived("The cold rent is 1,890 EUR.").is_empty());
    }

    #[test]
    fn a_difference_and_a_multiple_are_grounded() {
        assert_eq!(
            derived("That is 1,650 + 240 = 1,890 EUR, which leaves 110 EUR of your 2,000 EUR."),
            vec![1890.0, 110.0]
        );
        assert_eq!(derived("The deposit is three months' cold rent: 3 × 1,650 = 4,950 EUR."), vec![4950.0]);
        assert_eq!(derived("Die Kaution beträgt drei Kaltmieten, also 4.950 €."), vec![4950.0]);
        assert_eq!(derived("1,650 + 240 = 1,890 EUR a month, so 22,680 EUR over a year."), vec![1890.0, 22680.0]);
    }

    #[test]
    fn the_customers_figure_enters_no_total() {
        let e = evidence();
        // The customer's wrong rent carried into a total stays unsupported.
        let d = derived_values("Monthly total: 1,500 + 240 = 1,740 EUR.", &e, "Is it still 1,500 EUR?");
        assert!(d.is_empty());
        // What is left of their budget is worked out from it.
        let d = derived_values("1,650 + 240 = 1,890 EUR, so 110 EUR below your 2,000 EUR.", &e, "under 2,000 EUR");
        assert_eq!(d, vec![1890.0, 110.0]);
    }

    #[test]
    fn a_percentage_step_is_not_worked_out() {
        // 1,650 × 1.035 = 1,707.75: the next step's amount is the contract's.
        assert!(derived("After the 3.5 % step the rent would be 1,707.75 EUR.").is_empty());
    }
}
