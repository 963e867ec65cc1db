//! Figures in text: prices, areas and percentages in German and English
//! formats, each with its kind and, where the text says it, its period
//! (monthly, yearly, one-off).
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

/// How often a figure is due, as the words next to it say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Period {
    /// `per month`, `a month`, `monthly`, `im Monat`, `monatlich`, `/Monat`.
    Monthly,
    /// `per year`, `a year`, `annually`, `jährlich`, `pro Jahr`, `every year`.
    Yearly,
    /// `one-off`, `one-time`, `once`, `einmalig`, `einmal`.
    OneOff,
    /// `per quarter`, `quarterly`, `pro Quartal`, `vierteljährlich`.
    Quarterly,
}

impl Period {
    /// The period in words (`monthly`, `yearly`, `one-off`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Monthly => "monthly",
            Self::Yearly => "yearly",
            Self::OneOff => "one-off",
            Self::Quarterly => "quarterly",
        }
    }
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
    /// The period the words around it give (`240 EUR per month`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<Period>,
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

// Period words, checked in this order on the words around a figure: "einmal
// jährlich" (once a year) is yearly, not one-off.
static YEARLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(per\s+(year|annum)|a\s+year|each\s+year|every\s+year|yearly|annual(ly)?|p\.\s?a|j[äa]e?hrlich\w*|pro\s+jahr|im\s+jahr|jedes\s+jahr|j[äa]hrlich|jahres(summe|betrag|gesamtbetrag|zahlung|pauschale|beitrag)\w*)\b|/\s?(year|yr|jahr|a)\b|\bp\.\s?yr\b")
        .expect("valid pattern")
});
static MONTHLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(per\s+month|a\s+month|each\s+month|every\s+month|monthly|months?ly|im\s+monat|pro\s+monat|je\s+monat|monatlich\w*|mtl\.?|jeden\s+monat)\b|/\s?(month|mo|mth|monat|mon)\b|\bp\.\s?m\b")
        .expect("valid pattern")
});
static QUARTERLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(per\s+quarter|a\s+quarter|each\s+quarter|every\s+quarter|quarterly|pro\s+quartal|im\s+quartal|je\s+quartal|jedes\s+quartal|quartalsweise|viertelj[äa]e?hrlich\w*)\b|/\s?(quarter|quartal)\b")
        .expect("valid pattern")
});
// "420 Euro, die über das Wirtschaftsjahr hinweg an die Gemeinschaft gehen":
// a sum spread over a year is a yearly one, unless a monthly word is near.
static OVER_THE_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b((uber|fur|über|für) (das|ein) (ganze |gesamte )?(wirtschafts|geschäfts|geschafts|kalender)?jahr( hinweg)?|pro (wirtschafts|geschäfts|geschafts)jahr|over the (course of the |whole )?(business |financial |calendar )?year|per (business|financial|calendar) year)\b")
        .expect("valid pattern")
});
static ONE_OFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(one[-\s]off|one[-\s]time|once|single\s+payment|einmalig\w*|einmal)\b").expect("valid pattern")
});
// Where the words that qualify a figure end: a clause break, another figure,
// or a verb of change ("1.280 EUR steigt jedes Jahr um 3,5 Prozent": the
// year is the rhythm of the rise, not the rent's period).
static PERIOD_STOP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)[;:!?()\[\]]|\.(\s|$)|,\s|\b(and|und|but|aber|plus|while|whereas|steigt|steigen|sinkt|sinken|rises|rise|increases|increase|goes up|go up|erhöht sich|erhoht sich|grows)\b|\d")
        .expect("valid pattern")
});

/// A dash and a noun phrase that names the figure before it again ("–
/// dieser Betrag", "— this amount"), at the start of the words after it.
static SAME_FIGURE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(\S+\s+)?(–|—|-|--)\s*(dieser|diese|this|that|the) (betrag|summe|amount|sum|figure)\b")
        .expect("valid pattern")
});

/// Words that open a relative clause about the figure before them.
/// "95 EUR, paid once when the lease is signed": a participle of payment too.
const RELATIVE: &[&str] = &[
    "die ",
    "der ",
    "das ",
    "which ",
    "that ",
    "payable",
    "due ",
    "fällig",
    "zahlbar",
    "paid ",
    "charged ",
    "billed ",
    // "420 EUR Hausgeld, und zwar für das ganze Wirtschaftsjahr": a specification of the figure.
    "und zwar ",
    "namely ",
    "i.e. ",
];

/// The period of the words in `window` (first quarterly, then yearly, then
/// monthly, then one-off).
pub fn period_in(window: &str) -> Option<Period> {
    if QUARTERLY.is_match(window) {
        Some(Period::Quarterly)
    } else if YEARLY.is_match(window) {
        Some(Period::Yearly)
    } else if MONTHLY.is_match(window) {
        Some(Period::Monthly)
    } else if OVER_THE_YEAR.is_match(window) {
        Some(Period::Yearly)
    } else if ONE_OFF.is_match(window) {
        Some(Period::OneOff)
    } else {
        None
    }
}

/// A period word that qualifies a settlement, not the figure.
static PERIOD_OF_NOUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(yearly|annual|monthly|quarterly|jahrliche[nrms]?|jährliche[nrms]?|monatliche[nrms]?)\s+(utilities\s+|utility\s+|nebenkosten|betriebskosten)?(statement|settlement|reconciliation|bill|invoice|review|abrechnung|rechnung)\w*")
        .expect("valid pattern")
});

/// A listing id ("M-3001"): its digits do not end the words about a figure.
static LISTING_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b[a-z]{1,3}-\d{3,5}\b").expect("valid pattern"));

/// The period a figure at `[start, end)` of `text` carries: the words after
/// it up to the next clause break or figure (at most 80 bytes), else the
/// three words before it ("monatlich 420 EUR", "a monthly rent of 980 EUR").
fn period_around(text: &str, start: usize, end: usize) -> Option<Period> {
    // "squared up in the yearly statement": the period of another noun,
    // blanked (same length) before the window is cut.
    let after = PERIOD_OF_NOUN.replace_all(&text[end..], |c: &regex::Captures<'_>| " ".repeat(c[0].len()));
    // A listing id is no figure: "420 EUR für M-3001 um die Jahressumme" reads on past it.
    let after = LISTING_ID.replace_all(&after, |c: &regex::Captures<'_>| " ".repeat(c[0].len()));
    let after = after.as_ref();
    // "420 EUR – dieser Betrag wird … einmal im Jahr eingezogen": the clause
    // after a dash that names the figure again qualifies it to its end.
    if let Some(m) = SAME_FIGURE.find(after) {
        let rest = &after[m.end()..];
        let end = rest.find(['.', ';', '?', '!']).unwrap_or(rest.len()).min(120);
        if rest.is_char_boundary(end) {
            if let Some(p) = period_in(&rest[..end]) {
                return Some(p);
            }
        }
    }
    let mut cut = after.len().min(80);
    while !after.is_char_boundary(cut) {
        cut -= 1;
    }
    let after = &after[..cut];
    // A relative clause still qualifies the figure: "420 EUR, die jährlich fällig werden".
    let stop = PERIOD_STOP.find_iter(after).find(|m| {
        let rest = after[m.end()..].trim_start().to_lowercase();
        !(m.as_str().starts_with(',') && RELATIVE.iter().any(|w| rest.starts_with(w)))
            && !(m.as_str().eq_ignore_ascii_case("und") && rest.starts_with("zwar "))
    });
    let after = stop.map_or(after, |m| &after[..m.start()]);
    if let Some(p) = period_in(after) {
        return Some(p);
    }
    let before = &text[..start];
    let words: Vec<&str> = before.split_whitespace().rev().take(3).collect();
    let before: String = words.into_iter().rev().collect::<Vec<_>>().join(" ");
    let before = PERIOD_STOP.find_iter(&before).last().map_or(before.as_str(), |m| &before[m.end()..]);
    period_in(before)
}

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

/// Cardinal number words, English and German (folded and not), with their
/// values: read before a percent word here ("dreieinhalb Prozent"), and
/// before a unit of time ([`super::durations`]) or "rooms"
/// ([`super::counts`]).
pub(super) const NUMBER_WORDS: &[(&str, f64)] = &[
    ("one", 1.0),
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("eleven", 11.0),
    ("twelve", 12.0),
    ("fourteen", 14.0),
    ("eighteen", 18.0),
    ("twenty", 20.0),
    ("twenty-four", 24.0),
    ("thirty", 30.0),
    ("sixty", 60.0),
    ("ninety", 90.0),
    ("ein", 1.0),
    ("eins", 1.0),
    ("zwei", 2.0),
    ("drei", 3.0),
    ("vier", 4.0),
    ("fünf", 5.0),
    ("funf", 5.0),
    ("sechs", 6.0),
    ("sieben", 7.0),
    ("acht", 8.0),
    ("neun", 9.0),
    ("zehn", 10.0),
    ("elf", 11.0),
    ("zwolf", 12.0),
    ("vierzehn", 14.0),
    ("achtzehn", 18.0),
    ("zwanzig", 20.0),
    ("vierundzwanzig", 24.0),
    ("dreissig", 30.0),
    ("sechzig", 60.0),
    ("neunzig", 90.0),
];

/// The value of a cardinal number word ([`NUMBER_WORDS`]), lower case.
pub(super) fn number_word(word: &str) -> Option<f64> {
    NUMBER_WORDS.iter().find(|(w, _)| *w == word).map(|(_, v)| *v)
}

static WORD_PERCENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(one|two|three|four|five|six|seven|eight|nine|ten|eins?|zwei|drei|vier|f[üu]nf|sechs|sieben|acht|neun|zehn)(einhalb|\s+and\s+a\s+half)?\s+(percent|per\s+cent|prozent)\b")
        .expect("valid pattern")
});

/// Percentages written in words ("dreieinhalb Prozent" is 3.5 %). Only with
/// a percent word: a bare "three" is a count, not a figure.
fn word_percentages(text: &str) -> Vec<(usize, Figure)> {
    WORD_PERCENT
        .captures_iter(text)
        .filter_map(|c| {
            let m = c.get(0)?;
            let word = c[1].to_lowercase();
            let base = number_word(&word)?;
            let value = base + if c.get(2).is_some() { 0.5 } else { 0.0 };
            let period = period_around(text, m.start(), m.end());
            Some((m.start(), Figure { kind: FigureKind::Percent, value, text: m.as_str().to_owned(), period }))
        })
        .collect()
}

/// Amounts of money in words ("ninety-five euros", "dreizehnhundert Euro",
/// [`super::spelled`]). Their offsets and text are those of the folded text,
/// which is what the checks that bind a figure to its words read.
fn word_amounts(text: &str) -> Vec<(usize, Figure)> {
    let folded = crate::fold::plain(text);
    super::spelled::spelled_amounts(&folded)
        .into_iter()
        .map(|(start, end, value)| {
            let period = period_around(&folded, start, end);
            (start, Figure { kind: FigureKind::Price, value, text: folded[start..end].to_owned(), period })
        })
        .collect()
}

/// Every price, area and percentage figure in `text`, in order (digits, and
/// percentages and amounts of money in words).
pub fn figures(text: &str) -> Vec<Figure> {
    let mut out: Vec<(usize, Figure)> = digit_figures(text);
    out.extend(word_percentages(text));
    out.extend(word_amounts(text));
    out.sort_by_key(|(at, _)| *at);
    out.into_iter().map(|(_, f)| f).collect()
}

fn digit_figures(text: &str) -> Vec<(usize, Figure)> {
    FIGURE
        .captures_iter(text)
        .filter_map(|c| {
            let m = c.get(0)?;
            let whole = m.as_str().to_owned();
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
            let period = if kind == FigureKind::Area { None } else { period_around(text, m.start(), m.end()) };
            Some((m.start(), Figure { kind, value: parse_number(num)?, text: whole, period }))
        })
        .collect()
}

/// Every number in `text`, with or without a unit (evidence side: a tool result
/// saying "240 EUR" or "3.5 percent" supports those figures).
pub fn numbers(text: &str) -> Vec<f64> {
    NUMBER.find_iter(text).filter_map(|m| parse_number(m.as_str())).collect()
}

static YEAR: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(1[89]\d\d|20\d\d)\b").expect("valid pattern"));

/// Calendar years (1800–2099) written as four digits, not part of a longer
/// number or an id (`M-2019`), in order.
pub fn years(text: &str) -> Vec<u32> {
    YEAR.find_iter(text)
        .filter(|m| {
            let before = text[..m.start()].chars().next_back();
            let after = text[m.end()..].chars().next();
            !matches!(before, Some('-' | '.' | ',' | '#')) && !matches!(after, Some('.' | ',') if text[m.end()..].chars().nth(1).is_some_and(|c| c.is_ascii_digit()))
        })
        .filter_map(|m| m.as_str().parse().ok())
        .collect()
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
            ("um dreieinhalb Prozent", Some((Percent, 3.5))),
            ("three and a half percent", Some((Percent, 3.5))),
            ("drei Prozent", Some((Percent, 3.0))),
            ("three rooms", None),
            ("one of our colleagues", None),
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
    fn the_rhythm_of_a_rise_is_not_the_amounts_period() {
        let f = figures("Die Kaltmiete von derzeit 1.280 EUR steigt jedes Jahr zum 1. Januar um 3,5 Prozent.");
        assert_eq!(f[0].period, None, "{f:?}");
        assert_eq!(figures("420 EUR, die jährlich fällig werden")[0].period, Some(Period::Yearly));
        assert_eq!(
            figures("420 EUR Hausgeld fällig, und zwar als Betrag für das ganze Wirtschaftsjahr")[0].period,
            Some(Period::Yearly)
        );
        assert_eq!(
            figures("420 EUR – dieser Betrag wird mit dem Wirtschaftsplan festgesetzt und einmal im Jahr eingezogen")
                [0]
            .period,
            Some(Period::Yearly)
        );
        assert_eq!(figures("240 EUR per month")[0].period, Some(Period::Monthly));
        assert_eq!(figures("Cost: 95 EUR/yr, billed separately")[0].period, Some(Period::Yearly));
        assert_eq!(figures("95 EUR p.m. extra")[0].period, Some(Period::Monthly));
        assert_eq!(figures("95 EUR/mo extra")[0].period, Some(Period::Monthly));
        // A listing id between the figure and its period word is no other figure.
        let f = figures("handelt es sich bei den 420 EUR für M-3001 um die Jahressumme");
        assert_eq!(f[0].period, Some(Period::Yearly), "{f:?}");
        assert_eq!(figures("420 EUR für M-3001")[0].period, None);
        assert_eq!(
            figures("420 Euro, die über das Wirtschaftsjahr hinweg an die Gemeinschaft gehen")[0].period,
            Some(Period::Yearly)
        );
        assert_eq!(figures("420 EUR monatlich, festgelegt für das Wirtschaftsjahr")[0].period, Some(Period::Monthly));
        assert_eq!(figures("it's 95 EUR, paid once when the lease is signed")[0].period, Some(Period::OneOff));
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
