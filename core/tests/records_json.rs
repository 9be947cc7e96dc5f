//! B40: every record reads back from its own `to_json()` text, exactly (the amount's scale and
//! sub-millisecond times included), and any other text is a typed error.

use std::path::PathBuf;

use serde_json::Value;
use sika_core::{
    Amount, Bank, ChargeRequest, ChargeResponse, CustomField, Customer, ExpectedPayment, MobileMoneyProvider,
    PaymentType, SikaError, Transaction, TransactionStatus, WebhookEvent, bank_from_json, charge_request_from_json,
    charge_response_from_json, countries, country_info_from_json, custom_field_from_json, customer_from_json, decode,
    expected_payment_from_json, mobile_money_provider_from_json, parse_timestamp, parse_webhook_event,
    transaction_from_json, webhook_event_from_json,
};

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

/// Reads the record back and checks it is the same record and writes the same text again
/// (`==` on an amount is decimal equality, so the text is what proves the scale was kept).
fn round_trip<T: PartialEq + std::fmt::Debug>(
    record: &T,
    to_json: impl Fn(&T) -> String,
    from_json: impl Fn(String) -> Result<T, SikaError>,
) {
    let text = to_json(record);
    let back = from_json(text.clone()).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    assert_eq!(&back, record, "{text}");
    assert_eq!(to_json(&back), text);
}

fn check_transaction(transaction: &Transaction) {
    round_trip(transaction, Transaction::to_json, transaction_from_json);
    if let Some(customer) = &transaction.customer {
        round_trip(customer, Customer::to_json, customer_from_json);
    }
    for field in &transaction.custom_fields {
        round_trip(field, CustomField::to_json, custom_field_from_json);
    }
}

#[test]
fn b40_every_recorded_record_reads_back_from_its_json() {
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(fixtures_dir().join("cases.json")).expect("cases.json")).expect("JSON");
    let mut read_back = 0;
    for case in manifest["cases"].as_array().expect("cases") {
        let status = case["http_status"].as_u64().expect("http_status") as u16;
        let body = std::fs::read(fixtures_dir().join(case["body_file"].as_str().expect("body_file"))).expect("body");
        read_back += match case["operation"].as_str().expect("operation") {
            "verify_transaction" => decode::transaction_response(status, &body).map(|t| check_transaction(&t)).is_ok(),
            "list_mobile_money_providers" => decode::providers_response(status, &body)
                .map(|list| {
                    list.iter()
                        .for_each(|p| round_trip(p, MobileMoneyProvider::to_json, mobile_money_provider_from_json))
                })
                .is_ok(),
            "list_banks" => decode::banks_response(status, &body)
                .map(|list| list.iter().for_each(|b| round_trip(b, Bank::to_json, bank_from_json)))
                .is_ok(),
            "initiate_charge" => decode::charge_response(status, &body)
                .map(|c| round_trip(&c, ChargeResponse::to_json, charge_response_from_json))
                .is_ok(),
            other => panic!("unknown operation {other}"),
        } as usize;
    }
    assert!(read_back >= 15, "fewer recorded records than expected: {read_back}");
}

#[test]
fn b40_statuses_read_back_through_the_decoders_parsers() {
    let body = std::fs::read(fixtures_dir().join("responses/verify_success_word.json")).expect("fixture");
    let transaction = decode::transaction_response(200, &body).expect("decodes");
    assert_eq!(transaction.status, TransactionStatus::Unknown { value: "success".into() });
    let back = transaction_from_json(transaction.to_json()).expect("reads back");
    assert_eq!(back.status, TransactionStatus::Unknown { value: "success".into() }, "`success` never becomes paid");
    let mut other = back.clone();
    other.payment_type = Some(PaymentType::Other { value: "ussd".into() });
    round_trip(&other, Transaction::to_json, transaction_from_json);
}

#[test]
fn b40_amount_scale_and_sub_millisecond_times_survive() {
    let body = std::fs::read(fixtures_dir().join("responses/verify_successful.json")).expect("fixture");
    let mut transaction = decode::transaction_response(200, &body).expect("decodes");
    transaction.amount = "100.10".parse::<Amount>().expect("amount");
    transaction.updated_at = parse_timestamp("2024-05-01T12:30:00.123456Z");
    let text = transaction.to_json();
    let json: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!((&json["amount"], &json["updated_at"]), (&"100.10".into(), &"2024-05-01T12:30:00.123456Z".into()));
    let back = transaction_from_json(text).expect("reads back");
    assert_eq!(back.amount.to_string(), "100.10");
    assert_eq!(back.updated_at, transaction.updated_at);
}

/// A charge with every field set, a trailing zero in its amount.
fn charge_request() -> ChargeRequest {
    ChargeRequest {
        amount: "20.50".parse().expect("amount"),
        email: "ama@example.com".into(),
        phone_number: "+233244125678".into(),
        reference: "ORDER-1".into(),
        currency: "GHS".into(),
        provider: "MTN".into(),
        callback_url: Some("https://shop.example/back".into()),
    }
}

/// Printed (logs, `Debug`) the customer is masked; written as JSON (for the merchant's own
/// storage) every field is whole and the amount is its exact text.
#[test]
fn b40_a_charge_prints_masked_and_writes_its_amount_as_exact_text() {
    let request = charge_request();
    assert_eq!(request.to_string(), "charge ORDER-1: 20.50 GHS from +233*******78 a***@example.com via MTN");
    let debug = format!("{request:?}");
    assert!(!debug.contains("+233244125678") && !debug.contains("ama@example.com"), "{debug}");
    let json: Value = serde_json::from_str(&request.to_json()).expect("JSON");
    assert_eq!((&json["amount"], &json["phone_number"]), (&"20.50".into(), &"+233244125678".into()));
}

#[test]
fn b40_the_other_records_read_back() {
    for country in countries() {
        round_trip(&country, |c| c.to_json(), country_info_from_json);
    }
    round_trip(&charge_request(), ChargeRequest::to_json, charge_request_from_json);
    let expected = ExpectedPayment { amount: "100.00".parse().expect("amount"), currency: "GHS".into() };
    round_trip(&expected, ExpectedPayment::to_json, expected_payment_from_json);
    let event = parse_webhook_event(br#"{"event":"charge.success","data":{"reference":"ORDER-1"}}"#).expect("event");
    round_trip(&event, WebhookEvent::to_json, webhook_event_from_json);
}

#[test]
fn b40_other_texts_are_a_typed_error() {
    let body = std::fs::read(fixtures_dir().join("responses/verify_successful.json")).expect("fixture");
    let good: Value =
        serde_json::from_str(&decode::transaction_response(200, &body).expect("decodes").to_json()).expect("JSON");
    let changed = |field: &str, value: Value| {
        let mut json = good.clone();
        json[field] = value;
        json.to_string()
    };
    let without_status = {
        let mut json = good.clone();
        json.as_object_mut().expect("object").remove("status");
        json.to_string()
    };
    let duplicate_status = good.to_string().replacen('{', r#"{"status":"successful","#, 1);
    let service_body = std::str::from_utf8(&body).expect("utf-8").to_owned();
    for bad in [
        String::new(),
        "not json".into(),
        "null".into(),
        "[]".into(),
        without_status,
        duplicate_status,
        changed("amount", "1O0.10".into()),
        changed("amount", Value::Null),
        changed("created_at", "yesterday".into()),
        changed("status", 1.into()),
        changed("id", "7".into()),
        service_body,
    ] {
        match transaction_from_json(bad.clone()) {
            Err(SikaError::InvalidInput { field, reason }) => {
                assert_eq!(field, "json", "{bad}");
                assert!(reason.contains("Transaction"), "{reason}");
            }
            other => panic!("{bad}: expected InvalidInput, got {other:?}"),
        }
    }
    assert!(matches!(bank_from_json("{}".into()), Err(SikaError::InvalidInput { .. })));
}
