//! B51: descriptive fields (all but `tx_ref`, `status`, `amount` and `currency`) missing, null or
//! of another type read as absent, with a warning that never quotes the customer, and the
//! decision proceeds. B52: times no language holds read as absent through every call, a cached
//! bank list included. The cases are `tests/fixtures/faults.json`'s, read by every language.

mod support;

use log::LevelFilter;
use serde_json::{Value, json};
use sika_core::{
    AwaitOptions, Client, ExpectedPayment, PaymentCheck, Transaction, WebhookDecision, transaction_from_json,
};
use support::{Sandbox, fixture, transaction_object};

/// The fields each confirmed case leaves absent, as the record's JSON names them.
const ABSENT: &[(&str, &[&str])] = &[
    (
        "descriptive_field_mistyped",
        &["id", "domain", "has_invoice", "gateway_ref", "payment_type", "created_at", "updated_at"],
    ),
    (
        "descriptive_fields_missing",
        &["id", "domain", "has_invoice", "gateway_ref", "payment_type", "created_at", "updated_at", "customer"],
    ),
    ("customer_without_updated_at", &[]),
    ("timestamp_year_10000", &["created_at", "updated_at"]),
    ("timestamp_leap_second_9999", &["created_at", "updated_at"]),
];

fn order() -> ExpectedPayment {
    ExpectedPayment { amount: "10".parse().expect("amount"), currency: "GHS".into() }
}

fn fast() -> AwaitOptions {
    AwaitOptions { initial_delay_ms: 50, interval_ms: 50, max_interval_ms: 200, timeout_ms: 5_000, cancellation: None }
}

fn notification(reference: &str) -> Vec<u8> {
    json!({"event": "charge.success", "data": {"reference": reference}}).to_string().into_bytes()
}

fn record_json(transaction: &Transaction) -> Value {
    serde_json::from_str(&transaction.to_json()).expect("JSON")
}

/// Confirms, fulfils and awaits `reference`, each answering `transaction`.
async fn every_decision_proceeds(client: &Client, reference: &str, transaction: &Transaction) {
    match client.confirm_payment(reference, &order()).await.expect("confirm") {
        PaymentCheck::Confirmed { transaction: confirmed } => assert_eq!(&confirmed, transaction),
        other => panic!("{reference}: not confirmed: {other:?}"),
    }
    match client.handle_webhook(&notification(reference), &order()).await.expect("webhook") {
        WebhookDecision::Fulfil { transaction: fulfilled } => assert_eq!(&fulfilled, transaction),
        other => panic!("{reference}: not fulfilled: {other:?}"),
    }
    assert_eq!(&client.await_final_status(reference, &fast()).await.expect("await"), transaction);
}

#[tokio::test]
async fn b51_b52_a_descriptive_fault_never_stops_the_decision() {
    let faults = fixture("faults.json");
    let cases = faults["cases"].as_array().expect("cases");
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    for (id, fields) in ABSENT {
        let case = cases.iter().find(|case| case["id"] == *id).expect(id);
        assert_eq!(case["outcome"], "confirmed", "{id}");
        sandbox.control("reset", None, None);
        sandbox.seed_transaction(&transaction_object("HOSTILE-1", "successful", "10"));
        sandbox.fault("/transaction/verify", case["kind"].as_str().expect("kind"), 4, case["options"].clone());

        let transaction = client.verify_transaction("HOSTILE-1").await.unwrap_or_else(|e| panic!("{id}: {e:?}"));
        assert_eq!(
            (transaction.amount.to_string().as_str(), transaction.status.to_string().as_str()),
            ("10", "successful")
        );
        let json = record_json(&transaction);
        for field in *fields {
            assert_eq!(json[field], Value::Null, "{id}: {field}");
        }
        if *id == "customer_without_updated_at" {
            let customer = transaction.customer.as_ref().expect("customer");
            assert!(customer.updated_at.is_none() && customer.created_at.is_some(), "{customer:?}");
        }
        assert_eq!(transaction_from_json(transaction.to_json()).expect("reads back"), transaction, "{id}");
        every_decision_proceeds(&client, "HOSTILE-1", &transaction).await;
    }
}

#[tokio::test]
async fn b51_an_absent_field_is_a_warning_that_never_quotes_the_customer() {
    support::captured_log::capture(LevelFilter::Warn);
    let case = fixture("faults.json")["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .find(|case| case["id"] == "descriptive_field_mistyped")
        .cloned()
        .expect("case");
    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("HOSTILE-1", "successful", "10"));
    sandbox.fault("/transaction/verify", "body", 1, case["options"].clone());
    sandbox.client().verify_transaction("HOSTILE-1").await.expect("verify");

    let warnings = support::captured_log::lines();
    let ours: Vec<&String> = warnings.iter().filter(|line| line.contains("HOSTILE-1")).collect();
    for field in ["`id`", "`created_at`", "`has_invoice`", "customer: `phone_number`", "customer: `email`"] {
        assert!(ours.iter().any(|line| line.contains(field) && line.contains("read as absent")), "{field}: {ours:?}");
    }
    for line in &ours {
        assert!(line.starts_with("sika "), "{line}");
        assert!(!line.contains("233244123456") && !line.contains("ama@example.com"), "{line}");
    }
}

/// The seeded transaction with `created_at` and the customer's `updated_at` set to `text`.
fn with_times(reference: &str, text: &str) -> String {
    let mut transaction: Value =
        serde_json::from_str(&transaction_object(reference, "successful", "10")).expect("JSON");
    transaction["created_at"] = text.into();
    transaction["customer"]["updated_at"] = text.into();
    transaction.to_string()
}

#[tokio::test]
async fn b52_a_time_no_language_holds_is_absent_in_every_call() {
    let faults = fixture("faults.json");
    let scenario = faults["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .find(|scenario| scenario["id"] == "timestamps_out_of_range")
        .expect("scenario");
    let setup = &scenario["setup"];
    let exact = (setup["exact"]["text"].as_str().expect("text"), setup["exact"]["epoch_ms"].as_i64());
    let texts = setup["absent"].as_array().expect("absent").iter().map(|text| (text.as_str().expect("text"), None));
    let sandbox = Sandbox::start();
    for (text, expected_ms) in texts.chain([exact]) {
        sandbox.control("reset", None, None);
        sandbox.seed_transaction(&with_times("B52-1", text));
        let client = sandbox.client();

        let transaction = client.verify_transaction("B52-1").await.expect("verify");
        assert_eq!(transaction.created_at.map(|time| time.timestamp_millis()), expected_ms, "{text}");
        let customer = transaction.customer.as_ref().expect("customer");
        assert_eq!(customer.updated_at.map(|time| time.timestamp_millis()), expected_ms, "{text}");
        assert!(transaction.updated_at.is_some(), "{text}: the other times are read");
        let written = &record_json(&transaction)["created_at"];
        assert_eq!(written, &expected_ms.map_or(Value::Null, |_| text.into()), "{text}");
        every_decision_proceeds(&client, "B52-1", &transaction).await;

        // A bank list with such a time, then the same list from the cache.
        let body = setup["bank_list_body"].as_str().expect("body").replace("{time}", text);
        sandbox.fault("/bank", "body", 1, json!({"body": body}));
        for _ in 0..2 {
            let banks = client.list_banks(Some("NG")).await.expect("banks");
            assert_eq!(banks.iter().map(|bank| bank.code.as_str()).collect::<Vec<_>>(), ["044"]);
            assert_eq!(banks[0].created_at.map(|time| time.timestamp_millis()), expected_ms, "{text}");
            assert!(banks[0].updated_at.is_some());
        }
        let fetched =
            sandbox.requests().iter().filter(|r| r["path"].as_str().is_some_and(|p| p.starts_with("/bank"))).count();
        assert_eq!(fetched, 1, "{text}: the second list came from the cache");
    }
}
