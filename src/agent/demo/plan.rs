//! The demo model's plan for one inquiry: which tool calls it still needs,
//! and the reply composed from their results.

use serde_json::{json, Value};

use super::compose::*;
use super::conversation::Conversation;
use super::intents::*;
use crate::golden::Lang;
use crate::handoff::HandoffReason;

/// The demo model's plan for one inquiry, re-derived on every call.
pub(super) struct Plan {
    pub(super) a: Analysis,
    /// Listing id a follow-up relies on (from earlier exchanges).
    pub(super) context_id: Option<String>,
}

/// A citation in a reply, `[HH-1001#s5]` or `[policy:deposit#amount]`.
static CITATION: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"\s*\[[^\[\]\s]{2,80}\]").expect("valid pattern"));

/// Every number in a listing record (prices, areas, deposits, …), for checking figures against it.
fn record_numbers(record: &Value) -> Vec<f64> {
    let mut out = vec![];
    let mut stack = vec![record];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) => out.extend(n.as_f64()),
            Value::String(s) => out.extend(crate::agent::numbers::figures(s).into_iter().map(|f| f.value)),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    out
}

impl Plan {
    pub(super) fn for_inquiry(c: &Conversation) -> Self {
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

    pub(super) fn search_args(&self) -> Option<Value> {
        let a = &self.a;
        if !a.ids.is_empty() || (a.city.is_none() && a.max_price.is_none()) {
            return None;
        }
        // A city alone ("the weather in Hamburg") is not a property search.
        let housing = a.max_price.is_some()
            || !a.features.is_empty()
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
        if !a.features.is_empty() {
            args.insert("features".into(), json!(a.features));
        }
        Some(Value::Object(args))
    }

    /// Listings the answer is about, once the first round's results are in:
    /// known explicit ids, else search results (up to 3), else the follow-up's context id.
    pub(super) fn targets(&self, c: &Conversation) -> Option<Vec<String>> {
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
    pub(super) fn calls(&self, c: &Conversation) -> Vec<(&'static str, Value)> {
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
        for sentence in self.doubtful_earlier_figures(c, scope) {
            calls.push(("search_knowledge", self.knowledge_args(&sentence, scope)));
        }
        let unknown_ids = !self.a.ids.is_empty() && targets.is_empty();
        for q in &self.a.questions {
            if unknown_ids {
                break;
            }
            let mut args = json!({ "query": knowledge_query(q) });
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

    pub(super) fn ticket_args(&self, reason: HandoffReason, scope: Option<&String>, inquiry: &str) -> Value {
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

    pub(super) fn ticket_args_with(&self, reason: HandoffReason, scope: Option<&String>, summary: &str) -> Value {
        json!({
            "reason": reason.as_str(),
            "listingId": scope,
            "summary": truncate_chars(summary, 500),
            "contactEmail": null,
        })
    }

    /// Questions whose knowledge search found nothing and that no listing field answers.
    pub(super) fn unanswered(&self, c: &Conversation, scope: Option<&String>) -> Vec<String> {
        self.a
            .questions
            .iter()
            .filter(|q| {
                let mut args = json!({ "query": knowledge_query(q) });
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
    pub(super) fn reply(&self, c: &Conversation) -> String {
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

        parts.extend(self.corrections(c, scope));

        // A price the customer states about a listing is checked against the record.
        let stated: Vec<f64> = crate::agent::numbers::figures(&c.inquiry)
            .into_iter()
            .filter(|f| f.kind == crate::agent::numbers::FigureKind::Price)
            .map(|f| f.value)
            .collect();
        if !stated.is_empty()
            && self.search_args().is_none()
            && !self.a.intents.contains(&HandoffReason::PriceNegotiation)
        {
            for id in &targets {
                if let Some(price) = self.listing_record(c, id).and_then(|l| l["price"].as_f64().map(|p| (p, l))) {
                    let (p, l) = price;
                    if !stated.iter().any(|v| crate::agent::numbers::same_value(*v, p)) {
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
            let mut args = json!({ "query": knowledge_query(q) });
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

    /// Sentences of the last earlier reply that state a price (EUR), with the figures.
    fn earlier_price_sentences(&self, c: &Conversation) -> Vec<(String, Vec<f64>)> {
        let Some(reply) = c.history_replies.last() else { return vec![] };
        crate::chunk::split_sentences(reply)
            .into_iter()
            .filter_map(|sentence| {
                let prices: Vec<f64> = crate::agent::numbers::figures(&sentence)
                    .into_iter()
                    .filter(|f| f.kind == crate::agent::numbers::FigureKind::Price)
                    .map(|f| f.value)
                    .collect();
                (!prices.is_empty()).then_some((sentence, prices))
            })
            .collect()
    }

    /// Earlier-reply sentences whose price the listing record does not hold
    /// (earlier replies are never evidence): each is checked against the records.
    fn doubtful_earlier_figures(&self, c: &Conversation, scope: Option<&String>) -> Vec<String> {
        if c.history_replies.is_empty() {
            return vec![];
        }
        let Some(record) = scope.and_then(|id| self.listing_record(c, id)) else { return vec![] };
        let known = record_numbers(&record);
        self.earlier_price_sentences(c)
            .into_iter()
            .filter(|(_, prices)| {
                prices.iter().any(|p| !known.iter().any(|k| crate::agent::numbers::same_value(*k, *p)))
            })
            // The claim without its citation: what to look the figure up by.
            .map(|(sentence, _)| CITATION.replace_all(&sentence, "").trim().to_owned())
            .collect()
    }

    /// Corrections of earlier figures: a passage that states another price
    /// for what an earlier-reply sentence claimed.
    fn corrections(&self, c: &Conversation, scope: Option<&String>) -> Vec<String> {
        let de = self.a.lang == Lang::De;
        let mut out = vec![];
        for sentence in self.doubtful_earlier_figures(c, scope) {
            let claimed: Vec<f64> = crate::agent::numbers::figures(&sentence).into_iter().map(|f| f.value).collect();
            let Some(made) = c.result("search_knowledge", &self.knowledge_args(&sentence, scope)) else { continue };
            let hits = made.result["results"].as_array().cloned().unwrap_or_default();
            let differing = hits.iter().find(|h| {
                let text = h["text"].as_str().unwrap_or("");
                let stated: Vec<f64> = crate::agent::numbers::figures(text)
                    .into_iter()
                    .filter(|f| f.kind == crate::agent::numbers::FigureKind::Price)
                    .map(|f| f.value)
                    .collect();
                !stated.is_empty()
                    && !stated.iter().any(|v| claimed.iter().any(|p| crate::agent::numbers::same_value(*v, *p)))
            });
            if let (true, Some(h)) = (made.result["found"] == json!(true), differing) {
                let (text, id) = (h["text"].as_str().unwrap_or(""), h["chunkId"].as_str().unwrap_or(""));
                out.push(if de {
                    format!("Eine Korrektur zu meiner früheren Antwort: Der dort genannte Betrag war falsch. In unseren Unterlagen steht: „{text}“ [{id}]")
                } else {
                    format!("A correction to my earlier reply: the figure I gave there was wrong. Our records say: “{text}” [{id}]")
                });
            }
        }
        out
    }

    pub(super) fn knowledge_args(&self, q: &str, scope: Option<&String>) -> Value {
        let mut args = json!({ "query": knowledge_query(q) });
        if let Some(id) = scope {
            args["listingId"] = json!(id);
        }
        args
    }

    pub(super) fn passages_found(&self, c: &Conversation, q: &str, scope: Option<&String>) -> bool {
        c.result("search_knowledge", &self.knowledge_args(q, scope))
            .is_some_and(|m| !m.is_error && m.result["found"] == json!(true))
    }

    pub(super) fn listing_record(&self, c: &Conversation, id: &str) -> Option<Value> {
        c.result("get_listing", &json!({ "id": id })).filter(|m| !m.is_error).map(|m| m.result.clone())
    }

    pub(super) fn search_summary(&self, result: &Value) -> String {
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
        if self.a.cheapest {
            // Results come sorted by price, lowest first.
            let first = &results[0];
            let id = first["id"].as_str().unwrap_or("");
            let price =
                first["price"].as_f64().map(|p| format_price(p, first["priceUnit"].as_str(), de)).unwrap_or_default();
            lines[0] = if de {
                format!("Am günstigsten ist derzeit {id} [{id}] mit {price} (von {total} passenden Inseraten):")
            } else {
                format!("The cheapest is currently {id} [{id}] at {price} (of {total} matching listings):")
            };
        }
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
            if self.a.offer_type.is_none() {
                line.push_str(match (l["offerType"].as_str(), de) {
                    (Some("sale"), false) => " (for sale)",
                    (Some("sale"), true) => " (zum Kauf)",
                    (Some("rent"), false) => " (to rent)",
                    (Some("rent"), true) => " (zur Miete)",
                    _ => "",
                });
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
