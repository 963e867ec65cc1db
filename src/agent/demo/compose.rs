//! Listing fields and figures written as the record gives them (no rounding,
//! no arithmetic), in the reply's language.

use serde_json::Value;

use super::intents::*;
use crate::fold::fold;

pub(super) fn field_lines(l: &Value, asked: &[Field], pets_mentioned: bool, de: bool) -> Vec<String> {
    let id = l["id"].as_str().unwrap_or("");
    let mut out = vec![];
    let mut fields: Vec<Field> = asked.to_vec();
    if pets_mentioned && !fields.contains(&Field::Pets) {
        fields.push(Field::Pets);
    }
    for f in fields {
        let line = match f {
            Field::Price => l["price"].as_f64().map(|p| {
                let price = format_price(p, l["priceUnit"].as_str(), de);
                if de {
                    format!("Der Preis von {id} beträgt {price} [{id}].")
                } else {
                    format!("The price of {id} is {price} [{id}].")
                }
            }),
            Field::Pets => Some(if de {
                format!("Haustiere bei {id}: {} [{id}].", pets_phrase(l["petsAllowed"].as_str().unwrap_or(""), de))
            } else {
                format!("Pets at {id}: {} [{id}].", pets_phrase(l["petsAllowed"].as_str().unwrap_or(""), de))
            }),
            Field::Rooms => l["rooms"].as_f64().map(|r| {
                if de {
                    format!("{id} hat {r} Zimmer [{id}].")
                } else {
                    format!("{id} has {r} rooms [{id}].")
                }
            }),
            Field::Area => l["livingAreaSqm"].as_f64().map(|a| {
                if de {
                    format!("Die Wohnfläche von {id} beträgt {} m² [{id}].", fmt_num(a, de))
                } else {
                    format!("The living area of {id} is {} m² [{id}].", fmt_num(a, de))
                }
            }),
            Field::Floor => Some(match l["floor"].as_i64() {
                Some(0) => {
                    if de {
                        format!("{id} liegt im Erdgeschoss [{id}].")
                    } else {
                        format!("{id} is on the ground floor [{id}].")
                    }
                }
                Some(n) => {
                    if de {
                        format!("{id} liegt im {n}. Stock [{id}].")
                    } else {
                        format!("{id} is on floor {n} [{id}].")
                    }
                }
                None => {
                    if de {
                        format!("Für {id} ist kein Stockwerk angegeben [{id}].")
                    } else {
                        format!("No floor is given for {id} [{id}].")
                    }
                }
            }),
            Field::Available => l["availableFrom"].as_str().map(|d| {
                if de {
                    format!("{id} ist ab {d} verfügbar [{id}].")
                } else {
                    format!("{id} is available from {d} [{id}].")
                }
            }),
            Field::YearBuilt => l["yearBuilt"].as_i64().map(|y| {
                if de {
                    format!("{id} wurde {y} gebaut [{id}].")
                } else {
                    format!("{id} was built in {y} [{id}].")
                }
            }),
            Field::Energy => l["energyClass"].as_str().map(|e| {
                if de {
                    format!("Die Energieklasse von {id} ist {e} [{id}].")
                } else {
                    format!("The energy class of {id} is {e} [{id}].")
                }
            }),
        };
        out.extend(line);
    }
    out
}

pub(super) fn pets_phrase(policy: &str, de: bool) -> String {
    match (policy, de) {
        ("yes", false) => "pets allowed".into(),
        ("yes", true) => "Haustiere erlaubt".into(),
        ("no", false) => "no pets".into(),
        ("no", true) => "keine Haustiere".into(),
        (_, false) => "pets only on request (the landlord decides case by case; this is not a yes)".into(),
        (_, true) => {
            "Haustiere nur auf Anfrage (die Vermieterseite entscheidet im Einzelfall; das ist keine Zusage)".into()
        }
    }
}

/// Formats a price as the record gives it, without rounding: `1,650 EUR per
/// month` / `1.650 EUR pro Monat`.
pub(super) fn format_price(value: f64, unit: Option<&str>, de: bool) -> String {
    let per = match (unit, de) {
        (Some("EUR/month"), false) => " per month",
        (Some("EUR/month"), true) => " pro Monat",
        _ => "",
    };
    format!("{} EUR{per}", fmt_num(value, de))
}

/// Thousands-grouped number: `1,650` (en) / `1.650` (de); decimals kept.
pub(super) fn fmt_num(value: f64, de: bool) -> String {
    let (group, decimal) = if de { ('.', ',') } else { (',', '.') };
    let whole = value.trunc() as i64;
    let digits = whole.abs().to_string();
    let mut grouped = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(group);
        }
        grouped.push(ch);
    }
    if whole < 0 {
        grouped.insert(0, '-');
    }
    let frac = value.fract().abs();
    if frac > 1e-9 {
        let cents = format!("{:.2}", frac);
        grouped.push(decimal);
        grouped.push_str(cents.trim_start_matches("0.").trim_end_matches('0'));
    }
    grouped
}

/// At most `max` characters of `s`, cut at a word boundary with `…` when it is longer.
pub(super) fn truncate_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let head: String = s.chars().take(max.saturating_sub(1)).collect();
    let cut = match head.rfind(char::is_whitespace) {
        Some(i) if i > head.len() / 2 => &head[..i],
        _ => head.as_str(),
    };
    format!("{}…", cut.trim_end_matches([',', ';', ':', ' ']))
}

/// The `search_knowledge` query for a question clause: without a framing
/// lead-in ("Quick one about HH-1003 - what …"), without words that frame a
/// question rather than say what it is about ("sort of", "ends up"), at most
/// 300 characters cut at a word.
pub(super) fn knowledge_query(q: &str) -> String {
    let mut text = q.trim();
    for sep in [" - ", " – ", " — ", ": "] {
        if let Some((lead, rest)) = text.split_once(sep) {
            let opens = fold(rest)
                .split(|c: char| !c.is_alphanumeric())
                .find(|w| !w.is_empty())
                .is_some_and(|w| is_one_of(QUESTION_WORDS_EN, w) || is_one_of(QUESTION_WORDS_DE, w));
            if opens && !lead.contains('?') {
                text = rest;
                break;
            }
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let kept: Vec<&str> = words
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            let f = fold(w);
            let core = f.trim_matches(|c: char| !c.is_alphanumeric());
            // A price in the question (perhaps a wrong one) is not a search term:
            // the records state their own figures.
            let price_like = core.len() >= 3 && core.chars().all(|c| c.is_ascii_digit() || c == '.' || c == ',');
            // A particle after a verb is half of a phrasal verb, not filler:
            // "when does it go up?" asks when the rent rises (#30).
            let particle =
                *i > 0 && is_one_of(PHRASAL_VERBS, fold(words[i - 1]).trim_matches(|c: char| !c.is_alphanumeric()));
            core.is_empty() || ((particle || !is_one_of(DISCOURSE, core)) && !price_like)
        })
        .map(|(_, w)| *w)
        .collect();
    let mut query = if kept.is_empty() { text.to_owned() } else { kept.join(" ") };
    // "How old is the heating?" asks when it was installed or built; records
    // state a year ("installed in 2022"), never an age.
    let folded = fold(&query);
    if folded.contains("how old") || folded.contains("wie alt") {
        let words: Vec<&str> =
            query.split_whitespace().filter(|w| !matches!(fold(w).as_str(), "old" | "alt")).collect();
        query = format!("{} installed built", words.join(" "));
    }
    truncate_chars(&query, 300)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers_like_the_record() {
        assert_eq!(fmt_num(1650.0, false), "1,650");
        assert_eq!(fmt_num(1650.0, true), "1.650");
        assert_eq!(fmt_num(1190000.0, false), "1,190,000");
        assert_eq!(fmt_num(78.5, true), "78,5");
        assert_eq!(fmt_num(240.0, false), "240");
    }
}
