//! The offline demo model: rule-based, German and English, answering only from
//! tool results.
//!
//! It reads the conversation like a model would: the customer's latest
//! inquiry, earlier exchanges (for a listing id a follow-up relies on) and the
//! tool results so far. Each call it either requests the tool calls its plan
//! still needs or writes a reply built from those results: passages quoted
//! verbatim with their chunk ids (so qualifications survive and no figure is
//! computed), listing fields with the listing id, and one sentence per ticket.
//! It knows intents, cities and price phrases, never any particular question.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{json, Value};

use super::model::{Message, ModelClient, ModelError, ModelRequest, ModelResponse, ToolCall, Usage};
use super::numbers::parse_number;
use super::{unwrap_untrusted, REPAIR_PREFIX};
use crate::fold::fold;
use crate::golden::Lang;
use crate::handoff::HandoffReason;

/// The rule-based offline model (`--model demo`).
#[derive(Debug, Default, Clone)]
pub struct DemoModel;

#[async_trait::async_trait]
impl ModelClient for DemoModel {
    fn id(&self) -> &str {
        "demo"
    }

    async fn complete(&self, request: ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        let conversation = Conversation::read(request.messages);
        let plan = Plan::for_inquiry(&conversation);
        let pending: Vec<ToolCall> = plan
            .calls(&conversation)
            .into_iter()
            .filter(|(name, args)| !conversation.made(name, args))
            .enumerate()
            .map(|(i, (name, arguments))| ToolCall {
                id: format!("demo-{}-{}", conversation.results.len(), i),
                name: name.to_owned(),
                arguments,
            })
            .collect();
        let input_chars: usize = request.system.len() + request.messages.iter().map(message_chars).sum::<usize>();
        let response = if pending.is_empty() {
            ModelResponse::text(plan.reply(&conversation))
        } else {
            ModelResponse::tools(pending)
        };
        let output_chars = response.text.as_deref().map_or(0, str::len)
            + response.tool_calls.iter().map(|c| c.arguments.to_string().len() + c.name.len()).sum::<usize>();
        // A rule-based model bills nothing; usage is estimated at four
        // characters per token so budgets and reports behave as with a real model.
        Ok(response.with_usage(Usage {
            input: (input_chars / 4) as u64,
            output: (output_chars / 4) as u64,
            ..Usage::default()
        }))
    }
}

fn message_chars(m: &Message) -> usize {
    match m {
        Message::User { text } => text.len(),
        Message::Assistant { text, tool_calls } => {
            text.as_deref().map_or(0, str::len)
                + tool_calls.iter().map(|c| c.arguments.to_string().len()).sum::<usize>()
        }
        Message::ToolResults { results } => results.iter().map(|r| r.content.len()).sum(),
    }
}

/// A tool call made in this run with its decoded result.
#[derive(Debug, Clone)]
struct Made {
    name: String,
    args: Value,
    result: Value,
    is_error: bool,
}

/// What the demo model reads from the messages.
#[derive(Debug, Default)]
struct Conversation {
    inquiry: String,
    history_inquiries: Vec<String>,
    history_replies: Vec<String>,
    results: Vec<Made>,
    repair_requested: bool,
}

impl Conversation {
    fn read(messages: &[Message]) -> Self {
        // The current inquiry is the last customer message that is not a repair
        // request; everything before it is history.
        let current = messages
            .iter()
            .rposition(|m| matches!(m, Message::User { text } if !text.starts_with(REPAIR_PREFIX)))
            .unwrap_or(0);
        let mut c = Conversation::default();
        for (i, m) in messages.iter().enumerate() {
            match m {
                Message::User { text } if i < current => c.history_inquiries.push(text.clone()),
                Message::User { text } if i == current => c.inquiry = text.clone(),
                Message::User { text } => c.repair_requested |= text.starts_with(REPAIR_PREFIX),
                Message::Assistant { text: Some(t), tool_calls } if i < current && tool_calls.is_empty() => {
                    c.history_replies.push(t.clone())
                }
                _ => {}
            }
        }
        let mut calls: Vec<(String, String, Value)> = vec![];
        for m in &messages[current.min(messages.len())..] {
            match m {
                Message::Assistant { tool_calls, .. } => {
                    calls.extend(tool_calls.iter().map(|t| (t.id.clone(), t.name.clone(), t.arguments.clone())))
                }
                Message::ToolResults { results } => {
                    for r in results {
                        if let Some((_, name, args)) = calls.iter().find(|(id, _, _)| *id == r.call_id) {
                            c.results.push(Made {
                                name: name.clone(),
                                args: args.clone(),
                                result: unwrap_untrusted(&r.content).unwrap_or(Value::Null),
                                is_error: r.is_error,
                            });
                        }
                    }
                }
                Message::User { .. } => {}
            }
        }
        c
    }

    fn made(&self, name: &str, args: &Value) -> bool {
        self.results.iter().any(|m| m.name == name && m.args == *args)
    }

    fn result(&self, name: &str, args: &Value) -> Option<&Made> {
        self.results.iter().find(|m| m.name == name && m.args == *args)
    }
}

static LISTING_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b([a-z]{1,2})-(\d{4})\b").expect("valid pattern"));
static PRICE_LIMIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?ix)\b(?:under|below|less\s+than|up\s+to|max(?:imum)?|at\s+most|no\s+more\s+than|within|bis(?:\s+zu)?|unter|unterhalb\s+von|hochstens|maximal|nicht\s+mehr\s+als)\s*(?:euros?|eur|€)?\s*(\d[\d.,]*)\s*(k\b|tsd\b|tausend\b)?")
        .expect("valid pattern")
});
static ROOMS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d(?:[.,]5)?)\s*-?\s*(?:rooms?|room\s+flat|zimmer|zi\b)").expect("valid pattern")
});

/// Intent patterns over folded text (see [`crate::fold::fold`]: `ü`→`u`,
/// `ä`/`ae`→`a`, …). One ticket per matched reason.
static INTENTS: LazyLock<Vec<(HandoffReason, Regex)>> = LazyLock::new(|| {
    let r = |p: &str| Regex::new(p).expect("valid pattern");
    vec![
        (
            HandoffReason::ViewingRequest,
            r(
                r"\b((can|could|may|might|would\s+like\s+to|want\s+to|like\s+to|i.?d\s+like\s+to|love\s+to|hoping\s+to|able\s+to)\s+(i\s+|we\s+)?(please\s+)?((come|drop\s+by)\s+(and|to)\s+)?(view|see|visit|look\s+at|take\s+a\s+look|come\s+(by|round))|(arrange|book|schedule|set\s+up|request)\s+(a\s+|an\s+)?(viewing|visit|appointment)|viewing\s+(on|at|this|next|tomorrow)|(come|drop\s+by)\s+(and|to)\s+see|besichtigungstermin\w*|termin\s+zur\s+besichtigung|besichtigung\s+(am|um|nachste|diese|morgen)|(kann|konnte|darf|mochte|mochten|wurde|wurden|will|wollen|konnen)\b.{0,80}\b(besichtig\w*|ansehen|anschauen|anzusehen|anzuschauen|vorbeikommen))\b",
            ),
        ),
        (
            HandoffReason::PriceNegotiation,
            r(
                r"\b(negotia\w*|discount|bargain|haggl\w*|verhandl\w*|verhandel\w*|rabatt|preisnachlass|nachlass|entgegenkomm\w*|sonderpreis|better\s+(price|deal|offer)|come\s+down|go\s+down|(lower|reduce|reduced|drop)\s+(the\s+|your\s+)?(price|rent|asking)|(price|rent|miete|preis|kaufpreis)\s+(\w+\s+){0,3}(lower|reduced|senken|reduzier\w*|runter|nachgeben)|would\b.{0,50}\b(accept|take|consider|agree\s+to)\b|(a\s+(little|bit)|slightly|somewhat|etwas|bisschen)\s+(less|lower|cheaper|weniger|gunstiger|niedriger)|(less|lower|cheaper)\s+(rent|price)|(offer|bieten|biete)\s+(you\s+)?(€\s*)?\d|(wurde|wurden|ware|waren)\s+.{0,90}(akzeptieren|einverstanden|annehmen)|(mit|am)\s+(dem\s+)?preis\s+(noch\s+)?(etwas|was)|meet\s+(me|us)\s+halfway|flexib\w+\s+(on|with|beim|bei\s+der|bei\s+dem)\s+(the\s+)?(price|rent|preis|miete))\b",
            ),
        ),
        (
            HandoffReason::ContractOrLegal,
            r(
                r"\b(contract|lease\s+agreement|tenancy\s+agreement|terminat\w*|notice\s+period|cancel\s+(my|the)\s+(lease|tenancy|contract)|legal\w*|lawyer|solicitor|sublet\w*|sublease|clause|vertrag\w*|mietvertrag\w*|kundig\w*|anwalt|anwaltin|rechtlich\w*|juristisch\w*|untervermiet\w*|klausel\w*)\b",
            ),
        ),
        (
            HandoffReason::Complaint,
            r(
                r"\b(complain\w*|unacceptable|disappoint\w*|angry|annoyed|furious|rude|outrageous|still\s+(not|hasn.?t|has\s+not|isn.?t)\s+(been\s+)?(fixed|repaired|answered|resolved)|beschwer\w*|unzufrieden|verargert|enttauscht|unverschamt|frechheit|immer\s+noch\s+nicht\s+(repariert|behoben|beantwortet))\b",
            ),
        ),
        (
            HandoffReason::PersonalDataRequest,
            r(
                r"\b((delete|erase|remove)\s+(all\s+)?(of\s+)?(my|our)\s+(personal\s+)?(data|information|details)|personal\s+data|gdpr|data\s+protection|what\s+data\s+(do\s+)?you\s+(have|hold|store|keep)|dsgvo|datenschutz\w*|(meine|unsere)\s+(personlichen\s+)?daten|daten\s+(losch\w*|geloscht)|auskunft\s+uber\s+(meine|die\s+gespeicherten))\b",
            ),
        ),
    ]
});

static PETS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(dogs?|cats?|pets?|pupp(y|ies)|kittens?|hund\w*|katze\w*|kater|haustier\w*)\b")
        .expect("valid pattern")
});

/// City names with their exonyms (folded), as the customer may write them.
const CITIES: &[(&str, &[&str])] = &[
    ("Hamburg", &["hamburg"]),
    ("Berlin", &["berlin"]),
    ("München", &["munchen", "munich"]),
    ("Köln", &["koln", "cologne"]),
    ("Frankfurt", &["frankfurt"]),
    ("Stuttgart", &["stuttgart"]),
    ("Düsseldorf", &["dusseldorf"]),
    ("Leipzig", &["leipzig"]),
    ("Dresden", &["dresden"]),
    ("Nürnberg", &["nurnberg", "nuremberg"]),
    ("Hannover", &["hannover", "hanover"]),
    ("Bremen", &["bremen"]),
    ("Bonn", &["bonn"]),
];

const QUESTION_WORDS_EN: &[&str] = &[
    "is", "are", "does", "do", "can", "could", "how", "what", "which", "when", "where", "who", "will", "would",
    "should", "may", "and", "was", "has", "have", "did",
];
const QUESTION_WORDS_DE: &[&str] = &[
    "ist", "sind", "gibt", "hat", "haben", "kann", "konnen", "darf", "durfen", "wie", "was", "welche", "welcher",
    "welches", "wann", "wo", "wer", "muss", "mussen", "wird", "und", "warum", "wieviel", "brauche", "bekomme",
];

/// Words that only describe a search (or fill a sentence), not a question about a fact.
const FILLER: &[&str] = &[
    "a",
    "an",
    "the",
    "i",
    "we",
    "my",
    "me",
    "you",
    "your",
    "in",
    "for",
    "with",
    "of",
    "to",
    "it",
    "is",
    "are",
    "do",
    "does",
    "have",
    "has",
    "any",
    "some",
    "looking",
    "search",
    "searching",
    "want",
    "need",
    "would",
    "like",
    "flat",
    "flats",
    "apartment",
    "apartments",
    "house",
    "houses",
    "home",
    "place",
    "something",
    "rent",
    "buy",
    "under",
    "below",
    "less",
    "than",
    "up",
    "max",
    "maximum",
    "eur",
    "euro",
    "euros",
    "month",
    "per",
    "please",
    "hello",
    "hi",
    "dear",
    "thanks",
    "thank",
    "there",
    "available",
    "ich",
    "wir",
    "suche",
    "suchen",
    "eine",
    "einen",
    "ein",
    "die",
    "der",
    "das",
    "in",
    "fur",
    "mit",
    "bis",
    "unter",
    "wohnung",
    "wohnungen",
    "haus",
    "mieten",
    "kaufen",
    "monat",
    "pro",
    "im",
    "und",
    "habe",
    "haben",
    "hallo",
    "guten",
    "tag",
    "danke",
    "bitte",
    "gibt",
    "es",
    "rooms",
    "room",
    "zimmer",
    "can",
    "could",
    "you",
    "have",
    "got",
    "offer",
    "und",
    "and",
    "or",
    "oder",
    "k",
    "am",
    "also",
    "auch",
    "dog",
    "dogs",
    "cat",
    "cats",
    "pet",
    "pets",
    "hund",
    "hunde",
    "katze",
    "katzen",
    "haustier",
    "haustiere",
    "mein",
    "meine",
    "meinen",
    "our",
    "that",
    "this",
    "so",
    "bin",
    "am",
    "just",
    "too",
    "which",
    "geht",
    "possible",
    "moglich",
    "okay",
    "ok",
    "work",
    "works",
    "fine",
    "passt",
];

/// Words that only restate search criteria in a search inquiry ("in which I
/// may keep my cat").
const CRITERIA_WORDS: &[&str] = &[
    "keep",
    "halten",
    "allowed",
    "erlaubt",
    "permitted",
    "bring",
    "mitbringen",
    "darf",
    "live",
    "wohnen",
    "mietwohnung",
];

/// What the demo model takes from an inquiry.
#[derive(Debug, Clone, Default)]
struct Analysis {
    lang: Lang,
    ids: Vec<String>,
    city: Option<String>,
    max_price: Option<f64>,
    min_rooms: Option<f64>,
    pets: bool,
    offer_type: Option<&'static str>,
    property_type: Option<&'static str>,
    intents: Vec<HandoffReason>,
    questions: Vec<String>,
}

/// Detects German vs English from marker words (folded), ignoring quoted
/// passages and bracketed citations: a German reply that quotes the English
/// catalogue is still German. Words common in both languages (`was`, `an`,
/// `also`) are no markers. A tie goes to a statistical detector (whatlang,
/// English and German only), which answers English when unsure.
pub fn detect_language(text: &str) -> Lang {
    let text = super::guards::own_words(text);
    let text = text.as_ref();
    const DE: &[&str] = &[
        "hat",
        "einen",
        "im",
        "ob",
        "wo",
        "kein",
        "keine",
        "ich",
        "ist",
        "die",
        "der",
        "das",
        "und",
        "nicht",
        "eine",
        "ein",
        "mit",
        "fur",
        "wie",
        "hoch",
        "gibt",
        "es",
        "sind",
        "bei",
        "wohnung",
        "haben",
        "kann",
        "darf",
        "mochte",
        "wir",
        "auch",
        "noch",
        "den",
        "dem",
        "zu",
        "auf",
        "bitte",
        "danke",
        "hallo",
        "wann",
        "welche",
        "konnen",
        "ware",
        "wurde",
        "sie",
        "ihr",
        "mein",
        "meine",
        "uns",
        "von",
        "aus",
        "schon",
        "besichtigen",
        "miete",
        "kaution",
        "gerne",
        "uber",
        "oder",
        "aber",
    ];
    const EN: &[&str] = &[
        "i", "is", "the", "and", "not", "a", "with", "for", "how", "much", "there", "are", "at", "have", "can", "may",
        "would", "we", "still", "to", "on", "please", "thanks", "hello", "when", "what", "which", "could", "you",
        "your", "my", "us", "from", "of", "it", "view", "rent", "deposit", "does", "do", "or", "but",
    ];
    let folded = fold(text);
    let words: Vec<&str> = folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let de = words.iter().filter(|w| DE.contains(w)).count() + text.chars().filter(|c| "äöüßÄÖÜ".contains(*c)).count();
    let en = words.iter().filter(|w| EN.contains(w)).count();
    if de == en {
        // No marker decides (short text): ask a statistical detector.
        let detector = whatlang::Detector::with_allowlist(vec![whatlang::Lang::Eng, whatlang::Lang::Deu]);
        return match detector.detect_lang(text) {
            Some(whatlang::Lang::Deu) => Lang::De,
            _ => Lang::En,
        };
    }
    if de > en {
        Lang::De
    } else {
        Lang::En
    }
}

fn analyze(inquiry: &str) -> Analysis {
    let folded = fold(inquiry);
    let mut a = Analysis { lang: detect_language(inquiry), ..Analysis::default() };
    for cap in LISTING_ID.captures_iter(inquiry) {
        let id = format!("{}-{}", cap[1].to_uppercase(), &cap[2]);
        if !a.ids.contains(&id) {
            a.ids.push(id);
        }
    }
    let words: BTreeSet<&str> = folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    a.city = CITIES.iter().find(|(_, names)| names.iter().any(|n| words.contains(n))).map(|(c, _)| (*c).to_owned());
    if let Some(cap) = PRICE_LIMIT.captures(&folded) {
        let thousands = cap.get(2).is_some();
        a.max_price = parse_number(cap[1].trim_end_matches(['.', ','])).map(|v| if thousands { v * 1000.0 } else { v });
    }
    a.min_rooms = ROOMS.captures(inquiry).and_then(|c| parse_number(&c[1]));
    a.pets = PETS.is_match(&folded);
    let has = |list: &[&str]| list.iter().any(|w| words.contains(w));
    a.offer_type = if has(&["buy", "purchase", "kaufen", "kauf", "eigentumswohnung", "sale"]) {
        Some("sale")
    } else if has(&["rent", "mieten", "miete", "let", "rental"]) && (a.city.is_some() || a.max_price.is_some()) {
        Some("rent")
    } else {
        None
    };
    a.property_type = if has(&["office", "shop", "commercial", "gewerbe", "laden", "buro", "gewerbeflache"]) {
        Some("commercial")
    } else if has(&["house", "haus", "einfamilienhaus", "reihenhaus"]) {
        Some("house")
    } else if has(&["flat", "apartment", "wohnung", "appartement", "condominium", "eigentumswohnung"]) {
        Some("apartment")
    } else {
        None
    };
    for (reason, pattern) in INTENTS.iter() {
        if pattern.is_match(&folded) && !a.intents.contains(reason) {
            a.intents.push(*reason);
        }
    }
    a.questions = question_clauses(inquiry);
    if a.ids.is_empty() && (a.city.is_some() || a.max_price.is_some()) {
        // In a search, a clause that only restates criteria ("in which I may
        // keep my cat?") is answered by the search itself.
        a.questions.retain(|q| {
            let f = fold(q);
            f.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).any(|w| {
                !FILLER.contains(&w) && !CRITERIA_WORDS.contains(&w) && !is_place_or_number(w) && !PETS.is_match(w)
            })
        });
    }
    a
}

/// Splits an inquiry into clauses and keeps those that ask about a fact:
/// a clause ending in `?` or opening with a question word, that is not only a
/// hand-off request (viewing, negotiation, …) or only search criteria.
fn question_clauses(inquiry: &str) -> Vec<String> {
    // Commas separate jobs only in a sentence that also lists search criteria
    // or asks for a hand-off ("flat in Hamburg under 2,000, I have a dog, is
    // heating included, can I view it"); elsewhere a comma belongs to the
    // question ("Does it have parking, and what does it cost?").
    let folded = fold(inquiry);
    let mixed = INTENTS.iter().any(|(_, p)| p.is_match(&folded)) || PRICE_LIMIT.is_match(&folded);
    let mut clauses: Vec<(String, bool)> = vec![];
    let mut current = String::new();
    let chars: Vec<char> = inquiry.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next_space = chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        if matches!(c, '?' | '!' | '\n' | ';') || (c == '.' && next_space) || (c == ',' && next_space && mixed) {
            if c == '?' || c == '.' || c == '!' {
                current.push(c);
            }
            let text = current.trim().to_owned();
            if !text.is_empty() {
                clauses.push((text, c == '?'));
            }
            current.clear();
        } else {
            current.push(c);
        }
    }
    if !current.trim().is_empty() {
        clauses.push((current.trim().to_owned(), false));
    }
    clauses
        .into_iter()
        .filter_map(|(text, ends_with_question)| {
            let folded = fold(&text);
            let words: Vec<&str> = folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
            let opens_question =
                words.first().is_some_and(|w| QUESTION_WORDS_EN.contains(w) || QUESTION_WORDS_DE.contains(w));
            if !(ends_with_question || opens_question) {
                return None;
            }
            if INTENTS.iter().any(|(_, p)| p.is_match(&folded)) {
                return None;
            }
            let topical = words.iter().filter(|w| !FILLER.contains(w) && !is_place_or_number(w)).count();
            (topical > 0).then_some(text)
        })
        .collect()
}

fn is_place_or_number(word: &str) -> bool {
    word.chars().all(|c| c.is_ascii_digit())
        || CITIES.iter().any(|(_, names)| names.contains(&word))
        || QUESTION_WORDS_EN.contains(&word)
        || QUESTION_WORDS_DE.contains(&word)
        || (word.len() <= 2 && word.chars().all(|c| c.is_ascii_alphabetic()))
}

/// Topics a question may ask about that a listing record answers directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Price,
    Pets,
    Rooms,
    Area,
    Floor,
    Available,
    Energy,
    YearBuilt,
}

fn fields_asked(question: &str) -> Vec<Field> {
    let f = fold(question);
    let mut out = vec![];
    let has = |ws: &[&str]| ws.iter().any(|w| f.split(|c: char| !c.is_alphanumeric()).any(|x| x == *w));
    if has(&[
        "price",
        "cost",
        "costs",
        "rent",
        "kaltmiete",
        "miete",
        "preis",
        "kaufpreis",
        "kostet",
        "expensive",
        "teuer",
    ]) {
        out.push(Field::Price);
    }
    if PETS.is_match(&f) {
        out.push(Field::Pets);
    }
    if has(&["rooms", "zimmer"]) {
        out.push(Field::Rooms);
    }
    if has(&["big", "size", "large", "area", "sqm", "qm", "quadratmeter", "gross", "flache"]) {
        out.push(Field::Area);
    }
    if has(&["floor", "etage", "stock", "stockwerk", "geschoss"]) {
        out.push(Field::Floor);
    }
    if has(&["available", "verfugbar", "frei", "einziehen", "move", "bezugsfrei"]) {
        out.push(Field::Available);
    }
    if has(&["energy", "energieklasse", "energieausweis", "efficiency"]) {
        out.push(Field::Energy);
    }
    if has(&["built", "baujahr", "year", "jahr", "gebaut", "old", "alt", "errichtet"]) {
        out.push(Field::YearBuilt);
    }
    out
}

/// Whether a question is about utilities (Nebenkosten, running costs).
fn mentions_utilities(question: &str) -> bool {
    let f = fold(question);
    f.split(|c: char| !c.is_alphanumeric())
        .any(|w| matches!(w, "utilities" | "nebenkosten" | "betriebskosten" | "warmmiete" | "pauschalmiete"))
}

/// The demo model's plan for one inquiry, re-derived on every call.
struct Plan {
    a: Analysis,
    /// Listing id a follow-up relies on (from earlier exchanges).
    context_id: Option<String>,
}

impl Plan {
    fn for_inquiry(c: &Conversation) -> Self {
        let a = analyze(&c.inquiry);
        let context_id = if a.ids.is_empty() {
            let from = |t: &str| LISTING_ID.captures(t).map(|cap| format!("{}-{}", cap[1].to_uppercase(), &cap[2]));
            (0..c.history_inquiries.len())
                .rev()
                .find_map(|i| from(&c.history_inquiries[i]).or_else(|| c.history_replies.get(i).and_then(|r| from(r))))
        } else {
            None
        };
        Self { a, context_id }
    }

    fn search_args(&self) -> Option<Value> {
        let a = &self.a;
        if !a.ids.is_empty() || (a.city.is_none() && a.max_price.is_none()) {
            return None;
        }
        // A city alone ("the weather in Hamburg") is not a property search.
        let housing = a.max_price.is_some()
            || a.property_type.is_some()
            || a.offer_type.is_some()
            || a.min_rooms.is_some()
            || a.pets;
        if !housing {
            return None;
        }
        let mut args = serde_json::Map::new();
        if let Some(c) = &a.city {
            args.insert("city".into(), json!(c));
        }
        if let Some(p) = a.max_price {
            args.insert("maxPrice".into(), json!(p));
        }
        if let Some(r) = a.min_rooms {
            args.insert("minRooms".into(), json!(r));
        }
        if a.pets {
            args.insert("hasPet".into(), json!(true));
        }
        if let Some(t) = a.offer_type {
            args.insert("offerType".into(), json!(t));
        }
        if let Some(t) = a.property_type {
            args.insert("propertyType".into(), json!(t));
        }
        Some(Value::Object(args))
    }

    /// Listings the answer is about, once the first round's results are in:
    /// known explicit ids, else search results (up to 3), else the follow-up's context id.
    fn targets(&self, c: &Conversation) -> Option<Vec<String>> {
        if !self.a.ids.is_empty() {
            let mut known = vec![];
            for id in &self.a.ids {
                let made = c.result("get_listing", &json!({ "id": id }))?;
                if !made.is_error {
                    known.push(id.clone());
                }
            }
            return Some(known);
        }
        if let Some(args) = self.search_args() {
            let made = c.result("search_listings", &args)?;
            let ids = made.result["results"]
                .as_array()
                .map(|r| r.iter().filter_map(|l| l["id"].as_str().map(str::to_owned)).take(3).collect())
                .unwrap_or_default();
            return Some(ids);
        }
        Some(self.context_id.iter().cloned().collect())
    }

    /// Every tool call the plan needs given what is known so far.
    fn calls(&self, c: &Conversation) -> Vec<(&'static str, Value)> {
        let mut calls = vec![];
        for id in &self.a.ids {
            calls.push(("get_listing", json!({ "id": id })));
        }
        if let Some(args) = self.search_args() {
            calls.push(("search_listings", args));
        }
        let Some(targets) = self.targets(c) else {
            return calls;
        };
        if self.context_id.is_some() && !self.a.questions.is_empty() {
            for id in &targets {
                calls.push(("get_listing", json!({ "id": id })));
            }
        }
        let scope = targets.first();
        let unknown_ids = !self.a.ids.is_empty() && targets.is_empty();
        for q in &self.a.questions {
            if unknown_ids {
                break;
            }
            let mut args = json!({ "query": truncate_chars(q, 300) });
            if let Some(id) = scope {
                args["listingId"] = json!(id);
            }
            calls.push(("search_knowledge", args));
        }
        for reason in &self.a.intents {
            calls.push(("hand_off_to_human", self.ticket_args(*reason, scope, &c.inquiry)));
        }
        for q in self.unanswered(c, scope) {
            let summary = format!("Question not answered by the records: {q}");
            calls.push((
                "hand_off_to_human",
                self.ticket_args_with(HandoffReason::NotAnswerableFromListing, scope, &summary),
            ));
        }
        calls
    }

    fn ticket_args(&self, reason: HandoffReason, scope: Option<&String>, inquiry: &str) -> Value {
        let label = match reason {
            HandoffReason::ViewingRequest => "Customer asks to view the property",
            HandoffReason::PriceNegotiation => "Customer asks about a lower price or other terms",
            HandoffReason::ContractOrLegal => "Customer asks a contract or legal question",
            HandoffReason::Complaint => "Customer complaint",
            HandoffReason::PersonalDataRequest => "Customer request about personal data",
            HandoffReason::NotAnswerableFromListing => "Question not answered by the records",
        };
        self.ticket_args_with(reason, scope, &format!("{label}: {}", inquiry.trim()))
    }

    fn ticket_args_with(&self, reason: HandoffReason, scope: Option<&String>, summary: &str) -> Value {
        json!({
            "reason": reason.as_str(),
            "listingId": scope,
            "summary": truncate_chars(summary, 500),
            "contactEmail": null,
        })
    }

    /// Questions whose knowledge search found nothing and that no listing field answers.
    fn unanswered(&self, c: &Conversation, scope: Option<&String>) -> Vec<String> {
        self.a
            .questions
            .iter()
            .filter(|q| {
                let mut args = json!({ "query": truncate_chars(q, 300) });
                if let Some(id) = scope {
                    args["listingId"] = json!(id);
                }
                let not_found = c
                    .result("search_knowledge", &args)
                    .is_some_and(|m| !m.is_error && m.result["found"] == json!(false));
                not_found && (scope.is_none() || fields_asked(q).is_empty())
            })
            .cloned()
            .collect()
    }

    /// The reply, built only from tool results.
    fn reply(&self, c: &Conversation) -> String {
        let de = self.a.lang == Lang::De;
        let t = |en: &str, de_text: &str| if de { de_text.to_owned() } else { en.to_owned() };
        let mut parts: Vec<String> = vec![];
        let targets = self.targets(c).unwrap_or_default();
        let scope = targets.first();

        for id in &self.a.ids {
            if c.result("get_listing", &json!({ "id": id })).is_some_and(|m| m.is_error) {
                parts.push(if de {
                    format!("Ein Inserat mit der Nummer {id} habe ich in unserem Bestand nicht gefunden. Gerne suche ich nach Stadt, Preis oder Ausstattung.")
                } else {
                    format!("I could not find a listing with the id {id} in our records. I am happy to search by city, price or features instead.")
                });
            }
        }

        if let Some(args) = self.search_args() {
            if let Some(made) = c.result("search_listings", &args) {
                parts.push(self.search_summary(&made.result));
            }
        }

        // Listing fields a question asks about, for questions the passages do
        // not answer (for explicit or follow-up listings).
        if self.search_args().is_none() {
            // A record field answers what passages leave open; the price only
            // then, because "what does it cost" may be about something else.
            let asked: Vec<Field> = self
                .a
                .questions
                .iter()
                .flat_map(|q| {
                    let found = self.passages_found(c, q, scope);
                    // Utilities are read next to the rent they come on top of
                    // (or that includes them), so the price stays then.
                    let utilities = mentions_utilities(q);
                    fields_asked(q).into_iter().filter(move |f| !found || utilities || *f != Field::Price)
                })
                .collect();
            for id in &targets {
                if let Some(listing) = self.listing_record(c, id) {
                    let lines = field_lines(&listing, &asked, self.a.pets, de);
                    if !lines.is_empty() {
                        parts.push(lines.join(" "));
                    }
                }
            }
        }

        // A price the customer states about a listing is checked against the record.
        let stated: Vec<f64> = super::numbers::figures(&c.inquiry)
            .into_iter()
            .filter(|f| f.kind == super::numbers::FigureKind::Price)
            .map(|f| f.value)
            .collect();
        if !stated.is_empty()
            && self.search_args().is_none()
            && !self.a.intents.contains(&HandoffReason::PriceNegotiation)
        {
            for id in &targets {
                if let Some(price) = self.listing_record(c, id).and_then(|l| l["price"].as_f64().map(|p| (p, l))) {
                    let (p, l) = price;
                    if !stated.iter().any(|v| super::numbers::same_value(*v, p)) {
                        let record = format_price(p, l["priceUnit"].as_str(), de);
                        parts.push(if de {
                            format!(
                                "Zur Klarstellung: Laut unseren Unterlagen beträgt der Preis von {id} {record} [{id}]."
                            )
                        } else {
                            format!("To be precise: according to our records the price of {id} is {record} [{id}].")
                        });
                    }
                }
            }
        }

        for q in &self.a.questions {
            let mut args = json!({ "query": truncate_chars(q, 300) });
            if let Some(id) = scope {
                args["listingId"] = json!(id);
            }
            let Some(made) = c.result("search_knowledge", &args) else { continue };
            if made.is_error {
                continue;
            }
            let hits = made.result["results"].as_array().cloned().unwrap_or_default();
            if made.result["found"] == json!(true) && !hits.is_empty() {
                let quotes: Vec<String> = hits
                    .iter()
                    .take(2)
                    .filter_map(|h| Some(format!("“{}” [{}]", h["text"].as_str()?, h["chunkId"].as_str()?)))
                    .collect();
                // Name the listing when the question clause does not (the id
                // was in another sentence: "Bei B-2001 gilt … Darf der Vermieter …?").
                let about = scope.filter(|id| !q.contains(id.as_str()));
                let intro = match (de, about) {
                    (true, Some(id)) => format!("Zu Ihrer Frage zu {id} „{}“ steht in unseren Unterlagen:", q.trim()),
                    (true, None) => format!("Zu Ihrer Frage „{}“ steht in unseren Unterlagen:", q.trim()),
                    (false, Some(id)) => format!("On your question about {id} “{}”, our records say:", q.trim()),
                    (false, None) => format!("On your question “{}”, our records say:", q.trim()),
                };
                parts.push(format!("{intro} {}", quotes.join(" ")));
            } else if scope.is_none() || fields_asked(q).is_empty() {
                parts.push(if de {
                    format!("Zu „{}“ finde ich in unseren Unterlagen keine Angabe; ich habe die Frage an eine Kollegin oder einen Kollegen weitergegeben.", q.trim())
                } else {
                    format!("I could not find an answer to “{}” in our records, so I have passed the question to a colleague.", q.trim())
                });
            }
        }

        for made in c.results.iter().filter(|m| m.name == "hand_off_to_human" && !m.is_error) {
            let ticket = made.result["ticketId"].as_str().unwrap_or("");
            let listing = made.result["listingId"].as_str().map(|l| format!(" [{l}]")).unwrap_or_default();
            let reason = made.result["reason"].as_str().unwrap_or("");
            let line = match reason {
                "viewing_request" => t(
                    &format!("I have passed your viewing request{listing} to a colleague (ticket {ticket}), who will contact you to arrange a date. Nothing is booked or confirmed yet."),
                    &format!("Ihren Besichtigungswunsch{listing} habe ich an eine Kollegin oder einen Kollegen weitergegeben (Ticket {ticket}); Sie werden für einen Termin kontaktiert. Es ist noch nichts gebucht oder bestätigt."),
                ),
                "price_negotiation" => t(
                    &format!("I cannot agree prices or terms myself; I have passed your request{listing} to a colleague (ticket {ticket}). Until then the advertised price applies."),
                    &format!("Über Preise und Konditionen kann ich nicht selbst verhandeln; Ihre Anfrage{listing} habe ich an eine Kollegin oder einen Kollegen weitergegeben (Ticket {ticket}). Bis dahin gilt der ausgeschriebene Preis."),
                ),
                "contract_or_legal" => t(
                    &format!("Contract and legal questions are answered by a colleague; I have passed yours on (ticket {ticket})."),
                    &format!("Vertrags- und Rechtsfragen beantwortet eine Kollegin oder ein Kollege; ich habe Ihre Frage weitergegeben (Ticket {ticket})."),
                ),
                "complaint" => t(
                    &format!("I am sorry to hear that. I have passed your complaint to a colleague (ticket {ticket}), who will get back to you."),
                    &format!("Das tut mir leid. Ich habe Ihre Beschwerde an eine Kollegin oder einen Kollegen weitergegeben (Ticket {ticket}), die oder der sich bei Ihnen meldet."),
                ),
                "personal_data_request" => t(
                    &format!("I have passed your request about your personal data to our data protection team (ticket {ticket})."),
                    &format!("Ihre Anfrage zu Ihren persönlichen Daten habe ich an unser Datenschutzteam weitergegeben (Ticket {ticket})."),
                ),
                _ => t(
                    &format!("A colleague will follow up on the open question (ticket {ticket})."),
                    &format!("Eine Kollegin oder ein Kollege kümmert sich um die offene Frage (Ticket {ticket})."),
                ),
            };
            parts.push(line);
        }

        if parts.is_empty() {
            parts.push(t(
                "Thank you for your message. Could you tell me which listing or what kind of property you are interested in (city, price, rooms)?",
                "Vielen Dank für Ihre Nachricht. Für welches Inserat oder welche Art von Immobilie interessieren Sie sich (Stadt, Preis, Zimmer)?",
            ));
        }
        if c.repair_requested {
            // A repair request means a figure or id slipped through; keep only the
            // quoted passages and ticket lines, which carry their own sources.
            parts.retain(|p| p.contains('“') || p.contains("Ticket") || p.contains("ticket") || p.contains('„'));
        }
        parts.join("\n\n")
    }

    fn knowledge_args(&self, q: &str, scope: Option<&String>) -> Value {
        let mut args = json!({ "query": truncate_chars(q, 300) });
        if let Some(id) = scope {
            args["listingId"] = json!(id);
        }
        args
    }

    fn passages_found(&self, c: &Conversation, q: &str, scope: Option<&String>) -> bool {
        c.result("search_knowledge", &self.knowledge_args(q, scope))
            .is_some_and(|m| !m.is_error && m.result["found"] == json!(true))
    }

    fn listing_record(&self, c: &Conversation, id: &str) -> Option<Value> {
        c.result("get_listing", &json!({ "id": id })).filter(|m| !m.is_error).map(|m| m.result.clone())
    }

    fn search_summary(&self, result: &Value) -> String {
        let de = self.a.lang == Lang::De;
        let results = result["results"].as_array().cloned().unwrap_or_default();
        let total = result["total"].as_u64().unwrap_or(0);
        if results.is_empty() {
            return if de {
                "Zu Ihren Kriterien habe ich derzeit kein passendes Inserat gefunden.".into()
            } else {
                "I found no listing that matches your criteria at the moment.".into()
            };
        }
        let mut lines = vec![if de {
            format!("Passend zu Ihren Kriterien habe ich {total} Inserat(e) gefunden:")
        } else {
            format!("I found {total} listing(s) matching your criteria:")
        }];
        for l in results.iter().take(3) {
            let id = l["id"].as_str().unwrap_or("");
            let price = l["price"].as_f64().map(|p| format_price(p, l["priceUnit"].as_str(), de)).unwrap_or_default();
            let mut line = format!(
                "- {} [{id}], {}, {}: {price}",
                l["title"].as_str().unwrap_or(""),
                l["district"].as_str().unwrap_or(""),
                l["city"].as_str().unwrap_or("")
            );
            if self.a.pets {
                line.push_str("; ");
                line.push_str(&pets_phrase(l["petsAllowed"].as_str().unwrap_or(""), de));
            }
            if l["propertyType"] == json!("commercial") {
                line.push_str(if de {
                    " (Gewerbeeinheit, nicht zum Wohnen)"
                } else {
                    " (commercial unit, not a home)"
                });
            }
            lines.push(line);
        }
        lines.join("\n")
    }
}

fn field_lines(l: &Value, asked: &[Field], pets_mentioned: bool, de: bool) -> Vec<String> {
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

fn pets_phrase(policy: &str, de: bool) -> String {
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
fn format_price(value: f64, unit: Option<&str>, de: bool) -> String {
    let per = match (unit, de) {
        (Some("EUR/month"), false) => " per month",
        (Some("EUR/month"), true) => " pro Monat",
        _ => "",
    };
    format!("{} EUR{per}", fmt_num(value, de))
}

/// Thousands-grouped number: `1,650` (en) / `1.650` (de); decimals kept.
fn fmt_num(value: f64, de: bool) -> String {
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

fn truncate_chars(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analyses_the_opening_inquiry() {
        let a =
            analyze("A flat in Hamburg under €2,000, I have a dog, is heating included, can I view it on Saturday?");
        assert_eq!(a.lang, Lang::En);
        assert_eq!(a.city.as_deref(), Some("Hamburg"));
        assert_eq!(a.max_price, Some(2000.0));
        assert!(a.pets);
        assert_eq!(a.intents, [HandoffReason::ViewingRequest]);
        assert_eq!(a.questions, ["is heating included"]);
    }

    #[test]
    fn words_shared_by_both_languages_do_not_decide() {
        // "was" is English too: this question got a German reply once.
        assert_eq!(detect_language("When was HH-1001 built?"), Lang::En);
        assert_eq!(detect_language("Was kostet ein Tiefgaragenstellplatz bei M-3002?"), Lang::De);
        assert_eq!(detect_language("Liegt die Wohnung an der Alster?"), Lang::De);
        assert_eq!(detect_language("Is the flat also available in May?"), Lang::En);
    }

    #[test]
    fn analyses_german() {
        let a = analyze("Wohnung in München bis 2.500 €, ich habe eine Katze. Ist die Heizung inklusive? Kann ich sie am Samstag besichtigen?");
        assert_eq!(a.lang, Lang::De);
        assert_eq!(a.city.as_deref(), Some("München"));
        assert_eq!(a.max_price, Some(2500.0));
        assert!(a.pets);
        assert_eq!(a.intents, [HandoffReason::ViewingRequest]);
        assert_eq!(a.questions, ["Ist die Heizung inklusive?"]);
    }

    #[test]
    fn recognises_every_intent() {
        let cases = [
            ("Would the landlord perhaps accept 1,500 instead?", HandoffReason::PriceNegotiation),
            ("Is there any flexibility on the price?", HandoffReason::PriceNegotiation),
            ("Wäre der Vermieter mit 1.500 € einverstanden?", HandoffReason::PriceNegotiation),
            ("Please delete all my personal data.", HandoffReason::PersonalDataRequest),
            ("Bitte löschen Sie meine Daten.", HandoffReason::PersonalDataRequest),
            ("Can I terminate the contract early?", HandoffReason::ContractOrLegal),
            ("Die Heizung ist immer noch nicht repariert, ich möchte mich beschweren.", HandoffReason::Complaint),
            ("Can I see the flat on Friday?", HandoffReason::ViewingRequest),
        ];
        for (text, reason) in cases {
            assert!(analyze(text).intents.contains(&reason), "{text}: {:?}", analyze(text).intents);
        }
        assert!(analyze("Is heating included?").intents.is_empty());
    }

    #[test]
    fn formats_numbers_like_the_record() {
        assert_eq!(fmt_num(1650.0, false), "1,650");
        assert_eq!(fmt_num(1650.0, true), "1.650");
        assert_eq!(fmt_num(1190000.0, false), "1,190,000");
        assert_eq!(fmt_num(78.5, true), "78,5");
        assert_eq!(fmt_num(240.0, false), "240");
    }
}
