//! Issue 27: grounded replies. Each fault kind through the real agent loop
//! with a scripted model over the Anthropic wire format (a loopback mock):
//! the faulty reply is caught by the grounding guard (one repair, then a
//! forced hand-off) and flagged by the eval's `grounding` check; its correct
//! counterpart is answered and passes. The sentences here are this test's
//! own, not the examples.

use std::sync::Arc;
use std::time::Duration;

use inquiry::agent::guards::Violation;
use inquiry::agent::model::ModelClient;
use inquiry::agent::{ForcedCause, HistoryTurn, Limits, Outcome, RunResult};
use inquiry::app::ConnectedAgent;
use inquiry::eval::case::Case;
use inquiry::eval::checks::CodeChecks;
use inquiry::grounding::FindingKind;
use inquiry::providers::{AnthropicClient, HttpConfig, Secret};
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::support::toolbox_with_retrieval;

/// One scripted conversation: the tool calls the model makes, then its reply.
struct Script {
    inquiry: &'static str,
    history: Vec<(&'static str, &'static str)>,
    tools: Vec<(&'static str, Value)>,
    correct: &'static str,
    faulty: &'static str,
    kind: FindingKind,
}

fn message(content: Value, stop: &str) -> Value {
    json!({
        "id": "msg_test", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": content, "stop_reason": stop, "stop_sequence": null,
        "usage": {"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    })
}

/// The scripted model: tool calls first (when the script has any), the reply
/// once tool results (or a repair request) are in the conversation.
async fn scripted(tools: Vec<(&'static str, Value)>, reply: &'static str) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(move |req: &Request| {
            let body: Value = serde_json::from_slice(&req.body).unwrap_or_default();
            let turns = body["messages"].as_array().map_or(0, Vec::len);
            let answered = body.to_string().contains("tool_result") || tools.is_empty() || turns > 1 + 2 * 5;
            let content = if answered {
                json!([{"type": "text", "text": reply}])
            } else {
                Value::Array(
                    tools
                        .iter()
                        .enumerate()
                        .map(|(i, (name, input))| json!({"type": "tool_use", "id": format!("toolu_{i}"), "name": name, "input": input}))
                        .collect(),
                )
            };
            ResponseTemplate::new(200).set_body_json(message(content, if answered { "end_turn" } else { "tool_use" }))
        })
        .mount(&server)
        .await;
    server
}

async fn run(script: &Script, reply: &'static str) -> RunResult {
    let server = scripted(script.tools.clone(), reply).await;
    let config = HttpConfig {
        timeout: Duration::from_secs(10),
        max_attempts: 1,
        base_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(10),
    };
    let model: Arc<dyn ModelClient> =
        Arc::new(AnthropicClient::new("claude-sonnet-4-5", &server.uri(), Secret::new("sk-test"), config).unwrap());
    let connected = ConnectedAgent::connect(model, toolbox_with_retrieval(), Limits::default()).await.unwrap();
    let history: Vec<HistoryTurn> =
        script.history.iter().map(|(q, a)| HistoryTurn { inquiry: (*q).to_owned(), reply: (*a).to_owned() }).collect();
    let result = connected.agent.run(script.inquiry, &history).await.unwrap();
    connected.close().await;
    result
}

fn case_of(script: &Script) -> Case {
    let history: Vec<Value> = script.history.iter().map(|(q, a)| json!({"inquiry": q, "reply": a})).collect();
    serde_json::from_value(json!({
        "id": "scripted", "lang": "en", "inquiry": script.inquiry, "history": history,
        "must": [{"text": "anything"}]
    }))
    .unwrap()
}

fn scripts() -> Vec<Script> {
    vec![
        // A forbidden statement in other words: a cost the record adds on top, said to be covered.
        Script {
            inquiry: "Is heating part of the utilities for HH-1003?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "HH-1003"}))],
            correct: "For HH-1003 the utilities are an additional 290 EUR per month, and the heating is not part of them: the tenant pays the heat pump's electricity directly to the supplier [HH-1003].",
            faulty: "For HH-1003 the 290 EUR of utilities per month already cover the heating, so nothing comes on top for it [HH-1003].",
            kind: FindingKind::Contradicted,
        },
        // The right figure with the wrong period.
        Script {
            inquiry: "Wie hoch ist das Hausgeld bei M-3001?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "M-3001"}))],
            correct: "Das Hausgeld für M-3001 beträgt 420 EUR im Monat [M-3001].",
            faulty: "Für M-3001 fallen 420 EUR Hausgeld pro Jahr an [M-3001].",
            kind: FindingKind::Contradicted,
        },
        // An invented fact beside correct ones: a fee with a figure no record has.
        Script {
            inquiry: "Do I have to pay you anything as a tenant?",
            history: vec![],
            tools: vec![("search_knowledge", json!({"query": "Do tenants pay a commission for rentals?"}))],
            correct: "No. Tenants pay no commission for our rentals; under the Bestellerprinzip the landlord pays it [policy:commission#rentals].",
            faulty: "No. Tenants pay no commission for our rentals [policy:commission#rentals]. Only a contract fee of 150 EUR is charged once the lease is signed.",
            kind: FindingKind::Unsupported,
        },
        // An invented fact after a correct refusal, with no tool result at all.
        Script {
            inquiry: "What will the weather be like in Hamburg this weekend?",
            history: vec![],
            tools: vec![],
            correct: "I'm sorry, I can only help with questions about our listings and letting policies.",
            faulty: "I'm sorry, I can only help with questions about our listings and letting policies. Hamburg weekends this season bring mostly mild, dry afternoons along the Alster.",
            kind: FindingKind::Unsupported,
        },
        // A contradiction that keeps the keywords.
        Script {
            inquiry: "When was M-3003 built, and has anything been renovated?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "M-3003"}))],
            correct: "M-3003 was built in 1985, and its roof and windows were renovated in 2020 [M-3003].",
            faulty: "M-3003 was built in 1985 [M-3003]. Since then nothing has been renovated, so the roof and windows date from 1985.",
            kind: FindingKind::Contradicted,
        },
        // A negation after the noun, in German.
        Script {
            inquiry: "Bekomme ich bei K-4002 vom Vermieter die Bestätigung für die Anmeldung?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "K-4002"}))],
            correct: "Ja, bei K-4002 stellt der Vermieter die Wohnungsgeberbestätigung für die Anmeldung aus [K-4002].",
            faulty: "Die Wohnungsgeberbestätigung für die Anmeldung bekommen Sie bei K-4002 vom Vermieter nicht [K-4002].",
            kind: FindingKind::Contradicted,
        },
        // A hedge on a stated fact.
        Script {
            inquiry: "What are the utilities for HH-1001?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "HH-1001"}))],
            correct: "For HH-1001 the utilities are an additional 240 EUR per month, heating included [HH-1001].",
            faulty: "For HH-1001 the utilities will probably be an additional 240 EUR per month, heating included [HH-1001].",
            kind: FindingKind::Hedged,
        },
        // A promise instead of a hand-off, with a ticket created too.
        Script {
            inquiry: "Can I view HH-1002 on Friday at 5 pm?",
            history: vec![],
            tools: vec![(
                "hand_off_to_human",
                json!({"reason": "viewing_request", "listingId": "HH-1002", "summary": "Customer would like to view HH-1002 on Friday at 5 pm.", "contactEmail": null}),
            )],
            correct: "I have passed your viewing request for HH-1002 to a colleague, who will contact you to agree a time. Nothing is booked yet.",
            faulty: "I have passed your request on, and your viewing of HH-1002 is booked for Friday at 5 pm.",
            kind: FindingKind::Commitment,
        },
        // A correction that invents an error in a right earlier answer.
        Script {
            inquiry: "And what is the deposit?",
            history: vec![("Is heating included for HH-1001?", "Yes, heating is included in the 240 EUR utilities [HH-1001#s5].")],
            tools: vec![("get_listing", json!({"id": "HH-1001"}))],
            correct: "The deposit for HH-1001 is three months' cold rent [HH-1001].",
            faulty: "The deposit for HH-1001 is three months' cold rent [HH-1001]. I must also correct my earlier answer: the heating is billed separately and is not covered by the utilities.",
            kind: FindingKind::Contradicted,
        },
        // An invented timeline: a duration no record has.
        Script {
            inquiry: "Is heating included for HH-1001?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "HH-1001"}))],
            correct: "Yes, for HH-1001 heating is included in the utilities of 240 EUR per month [HH-1001].",
            faulty: "Yes, for HH-1001 heating is included in the utilities of 240 EUR per month [HH-1001]. Any credit from the yearly statement is paid back within four weeks.",
            kind: FindingKind::Unsupported,
        },
        // A number attached to the wrong thing: a floor the record does not give.
        Script {
            inquiry: "Welche Etage ist HH-1001?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "HH-1001"}))],
            correct: "HH-1001 liegt im zweiten Stock [HH-1001].",
            faulty: "HH-1001 liegt im Erdgeschoss, Sie haben also keine Treppen [HH-1001].",
            kind: FindingKind::Contradicted,
        },
        // A local tip after a correct answer: a street and a bakery no record names.
        Script {
            inquiry: "Does HH-1001 have a balcony?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "HH-1001"}))],
            correct: "Yes, HH-1001 has a south-facing balcony overlooking the inner courtyard [HH-1001].",
            faulty: "Yes, HH-1001 has a south-facing balcony overlooking the inner courtyard [HH-1001]. Fresh rolls are close by too: there is a good bakery on the Osterstraße.",
            kind: FindingKind::Unsupported,
        },
        // A cost the records never mention, said to come on top.
        Script {
            inquiry: "What comes on top of the rent for HH-1001?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "HH-1001"}))],
            correct: "On top of the 1,650 EUR cold rent, the utilities for HH-1001 are an additional 240 EUR per month, heating included [HH-1001].",
            faulty: "On top of the 1,650 EUR cold rent, the utilities for HH-1001 are an additional 240 EUR per month [HH-1001]. Hot water, however, is metered and charged separately.",
            kind: FindingKind::Unsupported,
        },
        // What the landlord supposedly told the agency: no record says so.
        Script {
            inquiry: "Does the owner of HH-1003 negotiate?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "HH-1003"}))],
            correct: "The advertised rent for HH-1003 is 3,100 EUR per month [HH-1003].",
            faulty: "The advertised rent for HH-1003 is 3,100 EUR per month [HH-1003]. The owner mentioned to us that he is open to offers from families.",
            kind: FindingKind::Unsupported,
        },
        // A guess presented as a sure outcome.
        Script {
            inquiry: "Can I bring my dog to HH-1001?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "HH-1001"}))],
            correct: "For HH-1001, dogs and cats are possible on request, subject to the landlord's approval [HH-1001].",
            faulty: "For HH-1001, dogs and cats are possible on request, subject to the landlord's approval [HH-1001]. Your dog will definitely be accepted.",
            kind: FindingKind::Hedged,
        },
        // A listing's pet status changed in ordinary words: a no made negotiable,
        // a yes made conditional (the words "dogs", "allowed" are the record's).
        Script {
            inquiry: "Darf meine Katze mit nach B-2001?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "B-2001"}))],
            correct: "Nein, in B-2001 sind Hunde und Katzen laut Inserat nicht erlaubt [B-2001].",
            faulty: "In B-2001 sind Hunde und Katzen laut Inserat nicht erlaubt [B-2001]. Bei einer ruhigen Wohnungskatze lässt der Vermieter aber mit sich reden.",
            kind: FindingKind::Contradicted,
        },
        Script {
            inquiry: "Is my dog okay at HH-1003?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "HH-1003"}))],
            correct: "Yes: dogs and cats are welcome at HH-1003 [HH-1003].",
            faulty: "HH-1003 is a house with a garden [HH-1003]. Your dog can only move in once the landlord has approved it in writing.",
            kind: FindingKind::Contradicted,
        },
        // Invented listing facts in the catalogue's own words: a feature the
        // record does not list, an availability date it does not give.
        Script {
            inquiry: "Which floor is HH-1002 on?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "HH-1002"}))],
            correct: "HH-1002 is on the fifth floor, and the building has no lift [HH-1002].",
            faulty: "HH-1002 is on the fifth floor, and the building has no lift [HH-1002]. You do get a sunny balcony facing the courtyard.",
            kind: FindingKind::Unsupported,
        },
        Script {
            inquiry: "What are the utilities for HH-1001, and when could I move in?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "HH-1001"}))],
            correct: "For HH-1001 the utilities are an additional 240 EUR per month, heating included, and the flat is available from 1 January 2027 [HH-1001].",
            faulty: "For HH-1001 the utilities are an additional 240 EUR per month, heating included, and the flat is available from 1 March 2027 [HH-1001].",
            kind: FindingKind::Contradicted,
        },
        // A reply that corrects itself with no earlier reply to correct, and
        // a quantity of another unit that no record holds.
        Script {
            inquiry: "Can I pay the deposit in instalments?",
            history: vec![],
            tools: vec![("search_knowledge", json!({"query": "Can the deposit be paid in instalments?"}))],
            correct: "Yes: the deposit can be paid in three equal monthly instalments [policy:deposit#instalments].",
            faulty: "Yes: the deposit can be paid in three equal monthly instalments [policy:deposit#instalments]. Let me correct that: for flats, the whole deposit is due before you move in.",
            kind: FindingKind::Contradicted,
        },
        Script {
            inquiry: "Is electricity included at K-4001?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "K-4001"}))],
            correct: "Yes: K-4001 is let at an all-inclusive rent of 1,350 EUR per month [K-4001].",
            faulty: "Yes: K-4001 is let at an all-inclusive rent of 1,350 EUR per month [K-4001]. Electricity is covered up to 2,000 kWh a year.",
            kind: FindingKind::Unsupported,
        },
        // A hand-off statement without a ticket.
        Script {
            inquiry: "How fast is the internet in M-3002?",
            history: vec![],
            tools: vec![("get_listing", json!({"id": "M-3002"}))],
            correct: "The listing for M-3002 does not state the internet speed [M-3002].",
            faulty: "The listing for M-3002 does not state the internet speed [M-3002]. I have passed your question to a colleague, who will get back to you.",
            kind: FindingKind::Unsupported,
        },
        // An invented trigger: "due as soon as" reads as a condition, but states when a payment falls due.
        Script {
            inquiry: "When would I have to pay the commission if I buy K-4003?",
            history: vec![],
            tools: vec![("search_knowledge", json!({"query": "When is the buyer's commission due?"}))],
            correct: "The buyer's commission is due only once the notarised purchase contract has been signed; if the purchase does not take place, none is due [policy:commission#when-commission-is-due].",
            faulty: "The buyer's commission is due as soon as the seller accepts your reservation [policy:commission#when-commission-is-due].",
            kind: FindingKind::Unsupported,
        },
        // An action reported as done that no tool performs.
        Script {
            inquiry: "Will it rain in Hamburg this weekend? I'm coming for viewings.",
            history: vec![],
            tools: vec![],
            correct: "I'm sorry, I can only help with questions about our listings and letting policies.",
            faulty: "I'm sorry, I can only help with questions about our listings and letting policies. I've set up a weekend weather alert for Hamburg on your contact details, though.",
            kind: FindingKind::Commitment,
        },
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_fault_kind_is_caught_and_its_correct_counterpart_passes() {
    for script in scripts() {
        let case = case_of(&script);

        let right = run(&script, script.correct).await;
        assert_eq!(right.outcome, Outcome::Answered, "{}: {:#?}", script.correct, right.guard_events);
        assert_eq!(right.reply, script.correct);
        let checks = CodeChecks::run(&case, &right);
        let grounding = checks.grounding.as_ref().unwrap();
        assert!(grounding.is_clean(), "{}: {:#?}", script.correct, grounding);
        assert!(grounding.checked() >= 1 || script.tools.is_empty(), "{}: nothing was checked", script.correct);
        assert!(checks.failure_lines().iter().all(|l| !l.starts_with("grounding")));

        let wrong = run(&script, script.faulty).await;
        assert_eq!(wrong.outcome, Outcome::ForcedHandoff { cause: ForcedCause::GuardFailed }, "{}", script.faulty);
        let first = &wrong.guard_events[0];
        assert_eq!(first.action, "repair", "one repair attempt first");
        assert!(
            first
                .violations
                .iter()
                .any(|v| matches!(v, Violation::Grounding { finding } if finding.kind == script.kind)),
            "{}: expected {:?}, got {:#?}",
            script.faulty,
            script.kind,
            first.violations
        );
        // The eval's check flags the same draft over the same evidence.
        let mut as_answered = wrong.clone();
        as_answered.reply = script.faulty.to_owned();
        // Without the forced hand-off's own ticket: only what the model created.
        let created = script.tools.iter().filter(|(t, _)| *t == "hand_off_to_human").count();
        as_answered.handoffs.truncate(created);
        let checks = CodeChecks::run(&case, &as_answered);
        let g = checks.grounding.as_ref().unwrap();
        assert!(g.count(script.kind) >= 1, "{}: {g:#?}", script.faulty);
        assert!(g.grounded() < g.checked());
        assert!(checks.failure_lines().iter().any(|l| l.starts_with("grounding: sentence")));
    }
}
