//! Decodes every recorded response in `tests/fixtures/` and compares with its expected values.
//! The same cases are read by the Python, Kotlin and Swift suites.

use std::path::PathBuf;

use serde_json::{Value, json};
use sika_core::{Bank, ChargeResponse, MobileMoneyProvider, SikaError, Transaction, decode};

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

fn kind_and_value(kind: &str, value: Option<&str>) -> String {
    match value {
        Some(value) => format!("{kind}:{value}"),
        None => kind.to_owned(),
    }
}

fn status_text(status: &sika_core::TransactionStatus) -> String {
    use sika_core::TransactionStatus::*;
    match status {
        Successful => "Successful".into(),
        Pending => "Pending".into(),
        Failed => "Failed".into(),
        Abandoned => "Abandoned".into(),
        Reversed => "Reversed".into(),
        Unknown { value } => kind_and_value("Unknown", Some(value)),
    }
}

fn payment_type_text(payment_type: &sika_core::PaymentType) -> String {
    use sika_core::PaymentType::*;
    match payment_type {
        Card => "Card".into(),
        MobileMoney => "MobileMoney".into(),
        Other { value } => kind_and_value("Other", Some(value)),
    }
}

/// Epoch milliseconds, or null for an absent time.
fn millis(time: Option<sika_core::Timestamp>) -> Option<i64> {
    time.map(|time| time.timestamp_millis())
}

fn provider_json(p: &MobileMoneyProvider) -> Value {
    json!({"id": p.id, "name": p.name, "code": p.code, "active": p.active, "country": p.country,
           "currency": p.currency, "provider_type": p.provider_type, "logo": p.logo,
           "created_at_ms": millis(p.created_at), "updated_at_ms": millis(p.updated_at)})
}

fn bank_json(b: &Bank) -> Value {
    use sika_core::BankAccountType::*;
    let account_type = match &b.account_type {
        Nuban => "Nuban".to_owned(),
        AccountNumber => "AccountNumber".to_owned(),
        Other { value } => kind_and_value("Other", Some(value)),
    };
    json!({"id": b.id, "name": b.name, "code": b.code, "active": b.active, "country": b.country,
           "currency": b.currency, "account_type": account_type,
           "created_at_ms": millis(b.created_at), "updated_at_ms": millis(b.updated_at)})
}

fn transaction_json(t: &Transaction) -> Value {
    let customer = t.customer.as_ref().map(|c| {
        json!({"id": c.id, "name": c.name, "phone_number": c.phone_number, "email": c.email,
               "created_at_ms": millis(c.created_at), "updated_at_ms": millis(c.updated_at)})
    });
    let custom_fields: Vec<Value> = t
        .custom_fields
        .iter()
        .map(|f| json!({"display_name": f.display_name, "variable_name": f.variable_name, "value": f.value}))
        .collect();
    json!({"id": t.id, "domain": t.domain, "amount": t.amount.to_string(), "currency": t.currency,
           "due_date": t.due_date, "has_invoice": t.has_invoice, "invoice_number": t.invoice_number,
           "description": t.description, "tx_ref": t.tx_ref, "gateway_ref": t.gateway_ref,
           "status": status_text(&t.status), "payment_type": t.payment_type.as_ref().map(payment_type_text),
           "created_at_ms": millis(t.created_at), "updated_at_ms": millis(t.updated_at),
           "customer": customer, "custom_fields": custom_fields,
           "merchant_action": format!("{:?}", t.status.merchant_action()), "is_final": t.status.is_final()})
}

fn charge_json(c: &ChargeResponse) -> Value {
    json!({"http_status": c.http_status, "status": c.status, "message": c.message, "data_json": c.data_json})
}

/// Compares an error with `{"kind": ..., optional "http_status", "message"}`.
fn check_error(name: &str, error: &SikaError, expected: &Value) {
    let (kind, http_status, message) = match error {
        SikaError::Unauthorized { .. } => ("Unauthorized", None, None),
        SikaError::InvalidCountryCode { .. } => ("InvalidCountryCode", None, None),
        SikaError::NoProvidersFound { .. } => ("NoProvidersFound", None, None),
        SikaError::TransactionNotFound { .. } => ("TransactionNotFound", None, None),
        SikaError::InvalidReference { .. } => ("InvalidReference", None, None),
        SikaError::Api { http_status, message, .. } => ("Api", Some(*http_status), Some(message.as_str())),
        SikaError::RateLimited { .. } => ("RateLimited", None, None),
        SikaError::UnexpectedResponse { http_status, .. } => ("UnexpectedResponse", Some(*http_status), None),
        other => panic!("{name}: unexpected error kind {other:?}"),
    };
    assert_eq!(expected["kind"], kind, "{name}: got {error:?}");
    if let Some(want) = expected.get("http_status") {
        assert_eq!(want.as_i64().and_then(|s| i32::try_from(s).ok()), http_status, "{name}");
    }
    if let Some(want) = expected.get("message") {
        assert_eq!(want.as_str(), message, "{name}");
    }
}

#[test]
fn b01_every_fixture_decodes_to_its_expected_values() {
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(fixtures_dir().join("cases.json")).expect("cases.json"))
            .expect("cases.json is JSON");
    let cases = manifest["cases"].as_array().expect("cases");
    assert!(cases.len() >= 30, "the fixture set shrank: {}", cases.len());
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let status = case["http_status"].as_u64().expect("http_status") as u16;
        let body = std::fs::read(fixtures_dir().join(case["body_file"].as_str().expect("body_file"))).expect(name);
        let expect = &case["expect"];
        let actual: Result<Value, SikaError> = match case["operation"].as_str().expect("operation") {
            "list_mobile_money_providers" => decode::providers_response(status, &body)
                .map(|list| json!({"providers": list.iter().map(provider_json).collect::<Vec<_>>()})),
            "list_banks" => decode::banks_response(status, &body)
                .map(|list| json!({"banks": list.iter().map(bank_json).collect::<Vec<_>>()})),
            "verify_transaction" => decode::transaction_response(status, &body).map(|t| {
                assert!(serde_json::from_str::<Value>(&t.raw_json).is_ok(), "{name}: raw_json is JSON");
                json!({"transaction": transaction_json(&t)})
            }),
            "initiate_charge" => decode::charge_response(status, &body).map(|c| {
                assert_eq!(c.raw_json.as_bytes(), body.as_slice(), "{name}: raw_json is the body as sent");
                json!({"charge": charge_json(&c)})
            }),
            other => panic!("{name}: unknown operation {other}"),
        };
        match (actual, expect.get("error")) {
            (Ok(value), None) => assert_eq!(&value, expect, "{name}"),
            (Err(error), Some(expected)) => check_error(name, &error, expected),
            (Ok(value), Some(_)) => panic!("{name}: expected an error, decoded {value}"),
            (Err(error), None) => panic!("{name}: expected a value, got {error:?}"),
        }
    }
}

#[test]
fn b09_raw_json_is_the_transaction_object_as_sent() {
    let body = std::fs::read(fixtures_dir().join("responses/verify_odd_values.json")).expect("fixture");
    let transaction = decode::transaction_response(200, &body).expect("decodes");
    let text = std::str::from_utf8(&body).expect("utf-8");
    assert!(text.contains(&transaction.raw_json), "raw_json must be a verbatim slice of the body");
    assert!(transaction.raw_json.contains("\"amount\":1e2"));
}
