//! `tests/fixtures/sandbox_control.json` lists the control API as every language's test helper
//! calls it (method, path, status of a successful call). This proves the list against the
//! routes: each operation, called as listed with a valid body, answers the listed status.

mod support;

use reqwest::Method;
use serde_json::Value;
use support::Sandbox;

/// A valid body for each operation that takes one.
fn body_for(operation: &str) -> Option<&'static str> {
    match operation {
        "seed_transaction" => Some(r#"{"tx_ref":"FIXTURE-1","status":"pending"}"#),
        "set_status" => Some(r#"{"status":"failed"}"#),
        // Port 9 (discard) is closed on loopback: the attempt fails fast and is still answered.
        "send_webhook" => Some(r#"{"reference":"FIXTURE-1","url":"http://127.0.0.1:9/"}"#),
        "add_fault" => Some(r#"{"path":"/bank","kind":"reset"}"#),
        "change_settings" => Some(r#"{"confirm_after_ms":100}"#),
        _ => None,
    }
}

#[tokio::test]
async fn b173_every_listed_control_operation_answers_its_listed_status() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/sandbox_control.json");
    let listed: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("JSON");
    let operations = listed["operations"].as_object().expect("operations");
    let sandbox = Sandbox::start();
    // Seeding comes first (the per-reference operations need the transaction), resetting last.
    let (first, last) = ("seed_transaction", "reset");
    let middle = operations.keys().map(String::as_str).filter(|name| *name != first && *name != last);
    let order = std::iter::once(first).chain(middle).chain(std::iter::once(last));
    let mut called = 0;
    for operation in order {
        let spec = &operations[operation];
        let method = Method::from_bytes(spec["method"].as_str().expect("method").as_bytes()).expect("HTTP method");
        let route = spec["path"].as_str().expect("path").replace("{reference}", "FIXTURE-1");
        let reply = sandbox.control(method, &route, body_for(operation)).await;
        assert_eq!(Some(u64::from(reply.status)), spec["expect"].as_u64(), "{operation} {route}: {}", reply.body);
        assert_eq!(reply.json["status"], true, "{operation}: {}", reply.body);
        called += 1;
    }
    assert_eq!(called, operations.len());
    assert!(called >= 15, "the list names every control route of sandbox/README.md");
}
