//! The desk's example buttons, conversation, step details and citation
//! dialog in real headless Chromium, against `inquiry serve` with the
//! offline demo model.

use std::time::Duration;

use fantoccini::key::Key;
use fantoccini::Locator;
use serde_json::Value;

use crate::browser::Browser;
use crate::support::root;

/// Waits until the conversation shows a reply and the desk is ready for the
/// next message; returns the reply's text.
async fn wait_for_reply(b: &Browser) -> String {
    for _ in 0..300 {
        let replies = b.visible(".msg.agent .reply").await;
        let sending = b.client.find(Locator::Css("#send")).await.unwrap().attr("disabled").await.unwrap();
        if let (Some(reply), None) = (replies.last(), sending) {
            return reply.text().await.unwrap();
        }
        let failed = b.visible("#conversation > .warn").await;
        if let Some(f) = failed.first() {
            panic!("the desk did not answer: {}", f.text().await.unwrap());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no reply within 30 s");
}

async fn active_matches(b: &Browser, css: &str) -> bool {
    let script = format!("return document.activeElement.matches({css:?});");
    b.client.execute(&script, vec![]).await.unwrap() == Value::Bool(true)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(chromium),
    ignore = "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
)]
async fn example_buttons_answer_and_citations_open_a_dialog_that_escape_closes() {
    let catalogue = inquiry::catalogue::Catalogue::load(&root().join("data")).unwrap();
    let examples = inquiry::desk::examples::examples(&catalogue);
    assert_eq!(examples.len(), 4);
    let dir = tempfile::tempdir().unwrap();
    let desk = crate::desk::Desk::start(&dir.path().join("desk.sqlite"), &[]).await;
    let b = Browser::start().await;
    b.client.goto(&format!("{}/", desk.base)).await.unwrap();
    b.client.wait().for_element(Locator::Css("#queue .empty")).await.unwrap();

    // The page shows one button per example, with the catalogue-derived text.
    let buttons = b.visible("#examples button.example").await;
    assert_eq!(buttons.len(), 4);
    for (button, example) in buttons.iter().zip(&examples) {
        assert_eq!(button.text().await.unwrap(), example.label);
        assert_eq!(button.attr("data-inquiry").await.unwrap().as_deref(), Some(example.inquiry.as_str()));
    }

    // Each button starts a new conversation with its inquiry and gets an answer.
    let mut replies = vec![];
    for (i, example) in examples.iter().enumerate() {
        let button = b.client.find(Locator::Css(&format!("#examples button[data-kind='{}']", example.kind))).await;
        button.unwrap().click().await.unwrap();
        let reply = wait_for_reply(&b).await;
        let customers = b.visible(".msg.customer .reply").await;
        assert_eq!(customers.len(), 1, "example {i} starts a new conversation");
        assert_eq!(customers[0].text().await.unwrap(), example.inquiry);
        assert!(!reply.trim().is_empty(), "{}: empty reply", example.kind);
        assert!(!b.visible("#trace .call").await.is_empty(), "{}: no tool call shown", example.kind);
        replies.push(reply);
    }
    let id_of = |inquiry: &str| inquiry.split_whitespace().find(|w| w.contains('-')).unwrap().to_owned();
    // The fact question is answered from the record: its room count, cited.
    let fact = catalogue.listing(&id_of(&examples[0].inquiry)).unwrap();
    assert!(replies[0].contains(&format!("{} rooms", fact.rooms)), "{}", replies[0]);
    assert!(replies[0].contains(&format!("[{}", fact.id)), "{}", replies[0]);
    // The viewing request and the unanswerable question each left a ticket for their listing.
    let queue = b.text_of("#queue").await;
    assert!(queue.contains("viewing_request") && queue.contains(&id_of(&examples[1].inquiry)), "{queue}");
    assert!(queue.contains("not_answerable"), "{queue}");
    // The German inquiry is answered in German with the listing's date.
    let german = catalogue.listing(&id_of(&examples[3].inquiry)).unwrap();
    assert!(replies[3].contains(&german.available_from.to_string()) && replies[3].contains(" ist "), "{}", replies[3]);

    // A follow-up continues the conversation until "New conversation".
    b.client.find(Locator::Css("#examples button[data-kind='fact']")).await.unwrap().click().await.unwrap();
    wait_for_reply(&b).await;
    b.client.find(Locator::Css("#inquiry")).await.unwrap().send_keys("And how large is it?").await.unwrap();
    b.client.find(Locator::Css("#send")).await.unwrap().click().await.unwrap();
    // Sending disables the button at once, so this waits for the follow-up's reply.
    wait_for_reply(&b).await;
    assert_eq!(b.visible(".msg.customer").await.len(), 2);
    assert!(b.text_of("#turn-info").await.contains("2 earlier turn(s)"), "{}", b.text_of("#turn-info").await);
    let follow_up = b.visible(".msg.agent .reply").await[1].text().await.unwrap();
    assert!(follow_up.contains(&format!("{}", fact.living_area_sqm)), "the follow-up knows the listing: {follow_up}");

    // Each step expands to its arguments, result and duration.
    let step = b.client.find(Locator::Css("#trace .call details.step")).await.unwrap();
    assert!(b.visible("#trace .call dd .result").await.is_empty(), "steps start folded");
    step.find(Locator::Css("summary")).await.unwrap().click().await.unwrap();
    let shown: Vec<String> = {
        let mut out = vec![];
        for e in b.visible("#trace .call details[open] dt").await {
            out.push(e.text().await.unwrap());
        }
        out
    };
    assert_eq!(shown, ["Arguments", "Result", "Duration"]);
    let duration = b.visible("#trace .call details[open] dd.duration").await[0].text().await.unwrap();
    assert!(duration.ends_with(" ms") && duration.trim_end_matches(" ms").parse::<u64>().is_ok(), "{duration}");

    // A citation is reachable by keyboard: Tab from "New conversation" lands on the first one.
    b.client.execute("document.getElementById('new-conversation').focus();", vec![]).await.unwrap();
    b.client.active_element().await.unwrap().send_keys(&Key::Tab).await.unwrap();
    assert!(active_matches(&b, "button.cite").await, "Tab reaches a citation");
    // Open the first passage citation (HH-…#s…) with Enter.
    let cite = b.client.find(Locator::Css(".msg.agent button.cite[data-source*='#']")).await.unwrap();
    let id = cite.attr("data-source").await.unwrap().unwrap();
    b.client
        .execute(&format!("document.querySelector(\"button.cite[data-source='{id}']\").focus();"), vec![])
        .await
        .unwrap();
    b.client.active_element().await.unwrap().send_keys(&Key::Enter).await.unwrap();
    let marked = b.client.wait().for_element(Locator::Css("#source-dialog[open] mark.cited-passage")).await.unwrap();
    let source: Value = reqwest::get(format!("{}/api/sources/{}", desk.base, id.replace('#', "%23")))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(marked.text().await.unwrap(), source["text"].as_str().unwrap());
    // The rest of the description is there, unmarked, and the reply's sentence is quoted.
    let parts = b.visible("#source-dialog .doc p.part").await;
    assert!(parts.len() > 1, "the whole description is shown");
    let sentence = b.text_of("#source-dialog .cited-sentence mark").await;
    let replies_now = b.text_of("#conversation").await;
    assert!(sentence.ends_with(&format!("[{id}]")), "{id}: {sentence}\n{replies_now}");
    assert!(b.visible("#source-dialog .ungrounded-note").await.is_empty(), "a returned citation is not marked");
    b.screenshot("desk-citation-dialog.png").await;

    // Escape closes it and the focus returns to the citation.
    b.client.active_element().await.unwrap().send_keys(&Key::Escape).await.unwrap();
    for _ in 0..50 {
        if b.visible("#source-dialog").await.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(b.visible("#source-dialog").await.is_empty(), "Escape closes the dialog");
    assert!(active_matches(&b, &format!("button.cite[data-source='{id}']")).await, "focus returns to the citation");

    // A bare listing citation shows the listing's record.
    let listing_cite = b.client.find(Locator::Css(".msg.agent button.cite:not([data-source*='#'])")).await.unwrap();
    listing_cite.click().await.unwrap();
    b.client.wait().for_element(Locator::Css("#source-dialog[open] dl.fields")).await.unwrap();
    let record = b.text_of("#source-dialog dl.fields").await;
    assert!(record.contains("Rooms") && record.contains(&fact.rooms.to_string()), "{record}");
    b.client.find(Locator::Css("#source-close")).await.unwrap().click().await.unwrap();

    // "New conversation" clears it.
    b.client.find(Locator::Css("#new-conversation")).await.unwrap().click().await.unwrap();
    assert!(b.visible(".msg").await.is_empty());
    assert!(b.text_of("#turn-info").await.starts_with("A new conversation"));

    let console = b.console().await;
    assert!(console.is_empty(), "console output: {console:#?}");
    b.client.clone().close().await.unwrap();
    drop(desk);
}

/// A draft that fails the guards is shown in the middle pane with each
/// failed check: the desk on a (loopback mock of the) Anthropic API whose
/// first draft cites a listing no tool returned, and whose repair is clean.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(chromium),
    ignore = "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
)]
async fn a_draft_that_failed_the_guards_is_listed_with_its_failed_checks() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let fixture = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(root().join("tests/fixtures/providers").join(name)).unwrap())
            .unwrap()
    };
    let server = MockServer::start().await;
    let mut bad = fixture("anthropic_final.json");
    bad["content"][0]["text"] = "The cold rent of HH-1001 is 1,650 EUR per month [HH-1002].".into();
    for (n, body) in [fixture("anthropic_tool_use.json"), bad, fixture("anthropic_final.json")].into_iter().enumerate()
    {
        Mock::given(method("POST"))
            .and(path("/v1/messages"))
            .respond_with(ResponseTemplate::new(200).set_body_json(body))
            .up_to_n_times(1)
            .with_priority(n as u8 + 1)
            .mount(&server)
            .await;
    }
    let dir = tempfile::tempdir().unwrap();
    let uri = server.uri();
    let desk = crate::desk::Desk::start_with_env(
        &dir.path().join("desk.sqlite"),
        &["--model", "anthropic:claude-sonnet-4-5", "--base-url", &uri, "--cache", "off"],
        &[("ANTHROPIC_API_KEY", "sk-test-desk-guard")],
    )
    .await;
    let b = Browser::start().await;
    b.client.goto(&format!("{}/", desk.base)).await.unwrap();
    b.client.wait().for_element(Locator::Css("#queue .empty")).await.unwrap();
    b.client.find(Locator::Css("#inquiry")).await.unwrap().send_keys("How much is the rent of HH-1001?").await.unwrap();
    b.client.find(Locator::Css("#send")).await.unwrap().click().await.unwrap();
    let reply = wait_for_reply(&b).await;
    assert_eq!(reply, "The cold rent of HH-1001 is 1,650 EUR per month [HH-1001].");
    assert_eq!(server.received_requests().await.unwrap().len(), 3, "tool call, rejected draft, repair");
    let guard = b.text_of("#trace .guard-failed").await;
    // Two checks fail: the unknown citation, and grounding (the figure is not in the cited source).
    assert!(guard.contains("model call 2 failed 2 check(s); the model was asked to repair it"), "{guard}");
    let checks = b.visible("#trace .guard-failed li").await;
    assert_eq!(checks.len(), 2);
    assert_eq!(checks[0].text().await.unwrap(), "citation [HH-1002] names an id no tool returned in this conversation");
    let grounding = checks[1].text().await.unwrap();
    assert!(grounding.starts_with("sentence 1 is unsupported: ") && grounding.contains("1,650 EUR"), "{grounding}");
    // The rejected draft is one click away.
    b.client.find(Locator::Css("#trace .guard-failed details summary")).await.unwrap().click().await.unwrap();
    let draft = b.text_of("#trace .guard-failed details pre").await;
    assert!(draft.contains("[HH-1002]"), "{draft}");
    // The repaired reply's citation was returned by a tool, so it is not marked.
    assert!(b.visible(".msg.agent button.cite.ungrounded").await.is_empty());
    assert_eq!(b.visible(".msg.agent button.cite").await.len(), 1);
    b.screenshot("desk-guard.png").await;
    let console = b.console().await;
    assert!(console.is_empty(), "console output: {console:#?}");
    b.client.clone().close().await.unwrap();
    drop(desk);
}
