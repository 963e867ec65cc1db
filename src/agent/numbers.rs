//! Figures in text: prices, areas and percentages in German and English formats.
//!
//! `1.650 €` and `1,650 EUR` are 1650; `2.420,50 €` is 2420.5; `3,57 %` is 3.57;
//! `78 m²`, `78 qm`, `78 sqm` and `78 square metres` are areas. Only numbers
//! attached to one of those units are *figures*; dates, floors, room counts and
//! durations carry no such unit and are never checked (SPEC §6).
//!
//! Separator rule: with both `.` and `,` the last one is the decimal mark; with
//! one kind repeated it separates thousands; a single one followed by exactly
//! three digits separates thousands (`1.650` is 1650, the German reading the
//! catalogue uses), otherwise it is the decimal mark (`3.57`, `2,5`).

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// What a figure measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FigureKind {
    /// Euros (`€`, `EUR`, `Euro`).
    Price,
    /// Square metres (`m²`, `qm`, `sqm`, `square metres`, `Quadratmeter`).
    Area,
    /// Percent (`%`, `percent`, `Prozent`).
    Percent,
}

/// A figure found in text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Figure {
    /// Unit class.
    pub kind: FigureKind,
    /// Parsed value.
    pub value: f64,
    /// The matched text, e.g. `1.650 €`.
    pub text: String,
}

const NUM: &str = r"\d{1,3}(?:[.,\u{a0}\u{202f}']\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?";

static FIGURE: LazyLock<Regex> = LazyLock::new(|| {
    // Before a number a currency word must start a word; after one it may
    // follow directly (`240EUR`).
    let money_before = r"€|\bEUR\b|\bEuros?\b";
    let money_after = r"€|EUR\b|Euros?\b";
    let area = r"m²|m2\b|qm\b|sqm\b|square\s+met(?:re|er)s?\b|Quadratmetern?\b";
    let percent = r"%|percent\b|per\s+cent\b|Prozent\b";
    Regex::new(&format!(
        r"(?ix)
        (?:(?P<pre>{money_before})\s?(?P<pre_num>{NUM}))
        | (?:(?P<num>{NUM})\s?(?:(?P<money>{money_after})|(?P<area>{area})|(?P<pct>{percent})))"
    ))
    .expect("figure pattern is valid")
});

static NUMBER: LazyLock<Regex> = LazyLock::new(|| Regex::new(NUM).expect("number pattern is valid"));

/// Parses one number token by the separator rule of this module; `None` when
/// it is not a number.
pub fn parse_number(token: &str) -> Option<f64> {
    let cleaned: String = token.chars().filter(|c| !matches!(c, '\u{a0}' | '\u{202f}' | '\'')).collect();
    let dots = cleaned.matches('.').count();
    let commas = cleaned.matches(',').count();
    let normalised = match (dots, commas) {
        (0, 0) => cleaned,
        (_, 0) | (0, _) => {
            let sep = if dots > 0 { '.' } else { ',' };
            let count = dots + commas;
            let after = cleaned.rsplit(sep).next().unwrap_or("");
            if count > 1 || after.len() == 3 {
                cleaned.replace(sep, "")
            } else {
                cleaned.replace(sep, ".")
            }
        }
        _ => {
            let last_dot = cleaned.rfind('.').unwrap_or(0);
            let last_comma = cleaned.rfind(',').unwrap_or(0);
            if last_comma > last_dot {
                cleaned.replace('.', "").replace(',', ".")
            } else {
                cleaned.replace(',', "")
            }
        }
    };
    normalised.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Every price, area and percentage figure in `text`, in order.
pub fn figures(text: &str) -> Vec<Figure> {
    FIGURE
        .captures_iter(text)
        .filter_map(|c| {
            let whole = c.get(0)?.as_str().to_owned();
            let (num, kind) = if let Some(n) = c.name("pre_num") {
                (n.as_str(), FigureKind::Price)
            } else {
                let kind = if c.name("money").is_some() {
                    FigureKind::Price
                } else if c.name("area").is_some() {
                    FigureKind::Area
                } else {
                    FigureKind::Percent
                };
                (c.name("num")?.as_str(), kind)
            };
            Some(Figure { kind, value: parse_number(num)?, text: whole })
        })
        .collect()
}

/// Every number in `text`, with or without a unit (evidence side: a tool result
/// saying "240 EUR" or "3.5 percent" supports those figures).
pub fn numbers(text: &str) -> Vec<f64> {
    NUMBER.find_iter(text).filter_map(|m| parse_number(m.as_str())).collect()
}

/// Whether two figure values are the same number (to the cent).
pub fn same_value(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.005
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Option<(FigureKind, f64)> {
        let f = figures(text);
        assert!(f.len() <= 1, "{text}: {f:?}");
        f.first().map(|f| (f.kind, f.value))
    }

    #[test]
    fn figure_table() {
        use FigureKind::*;
        let rows: &[(&str, Option<(FigureKind, f64)>)] = &[
            ("1.650 €", Some((Price, 1650.0))),
            ("1,650 EUR", Some((Price, 1650.0))),
            ("2.420,50 €", Some((Price, 2420.5))),
            ("2,420.50 EUR", Some((Price, 2420.5))),
            ("€1,650", Some((Price, 1650.0))),
            ("€ 240", Some((Price, 240.0))),
            ("EUR 1.190.000", Some((Price, 1_190_000.0))),
            ("1,190,000 EUR", Some((Price, 1_190_000.0))),
            ("240 Euro", Some((Price, 240.0))),
            ("240 Euros", Some((Price, 240.0))),
            ("240EUR", Some((Price, 240.0))),
            ("99,90 €", Some((Price, 99.9))),
            ("1.650", None),
            ("3,57 %", Some((Percent, 3.57))),
            ("3.57 percent", Some((Percent, 3.57))),
            ("3.5 per cent", Some((Percent, 3.5))),
            ("3,5 Prozent", Some((Percent, 3.5))),
            ("10%", Some((Percent, 10.0))),
            ("78 m²", Some((Area, 78.0))),
            ("78 m2", Some((Area, 78.0))),
            ("78 qm", Some((Area, 78.0))),
            ("78 sqm", Some((Area, 78.0))),
            ("78 square metres", Some((Area, 78.0))),
            ("78 square meters", Some((Area, 78.0))),
            ("78,5 Quadratmeter", Some((Area, 78.5))),
            ("1.200 m²", Some((Area, 1200.0))),
            ("on 2027-01-01", None),
            ("am 01.01.2027", None),
            ("on the 2nd floor", None),
            ("im 3. OG", None),
            ("3 rooms", None),
            ("3 Zimmer", None),
            ("three months' cold rent", None),
            ("6 months", None),
            ("since 1912", None),
            ("HH-1001", None),
            ("TKT-0001", None),
        ];
        assert!(rows.len() >= 30);
        for (text, expected) in rows {
            assert_eq!(one(text), *expected, "{text}");
        }
    }

    #[test]
    fn several_figures_in_order() {
        let f = figures("Rent 1.650 € plus 240 EUR utilities, 78 m², up 3,5 % a year.");
        let values: Vec<f64> = f.iter().map(|f| f.value).collect();
        assert_eq!(values, [1650.0, 240.0, 78.0, 3.5]);
    }

    #[test]
    fn number_separator_rule() {
        assert_eq!(parse_number("1.650"), Some(1650.0));
        assert_eq!(parse_number("1,650"), Some(1650.0));
        assert_eq!(parse_number("1.65"), Some(1.65));
        assert_eq!(parse_number("1,5"), Some(1.5));
        assert_eq!(parse_number("1.234.567"), Some(1_234_567.0));
        assert_eq!(parse_number("1.234,5"), Some(1234.5));
        assert_eq!(parse_number("1,234.5"), Some(1234.5));
        assert_eq!(parse_number("abc"), None);
        assert_eq!(numbers("240 EUR per month, 3.5 percent"), [240.0, 3.5]);
    }
}
