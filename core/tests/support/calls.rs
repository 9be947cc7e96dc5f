//! The one runner of client calls for the scenario files of the behaviours the core decides
//! (ADR 0037; the row vocabulary is `tests/fixtures/scenarios/README.md`): a row names an
//! operation, its input and what must come back and be sent. Python, Kotlin and Swift have the
//! same runner over the same files.

use serde_json::Value;
use sika_core::{
    Amount, AwaitOptions, ChargeRequest, Client, ExpectedPayment, PaymentCheck, SikaError, Transaction, WebhookDecision,
};

use super::{Sandbox, transaction_object};

/// An input's text: a string, or `{repeat, times}` (as in `bad_inputs.json`).
pub fn text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Object(spec) => {
            let unit = spec["repeat"].as_str().expect("repeat");
            unit.repeat(usize::try_from(spec["times"].as_u64().expect("times")).expect("times"))
        }
        other => panic!("not a text input: {other}"),
    }
}

/// A body's bytes: a text input, `{"hex": ...}` (raw bytes), or a list of them joined
/// (`["{...", {"repeat": "[", "times": 9}, "}"]`).
pub fn body_bytes(value: &Value) -> Vec<u8> {
    match value {
        Value::Array(parts) => parts.iter().flat_map(body_bytes).collect(),
        Value::Object(spec) if spec.contains_key("hex") => {
            let hex = spec["hex"].as_str().expect("hex");
            (0..hex.len()).step_by(2).map(|at| u8::from_str_radix(&hex[at..at + 2], 16).expect("hex")).collect()
        }
        other => text(other).into_bytes(),
    }
}

/// The order a row's `expected` describes.
pub fn expected_with(input: &Value) -> Result<ExpectedPayment, SikaError> {
    let expected = &input["expected"];
    Ok(ExpectedPayment { amount: text(&expected["amount"]).parse::<Amount>()?, currency: text(&expected["currency"]) })
}

/// A valid charge (the shared defaults of `bad_inputs.json`) with the row's fields changed.
pub fn charge_with(input: &Value) -> Result<ChargeRequest, SikaError> {
    let field = |name: &str, default: &str| input.get(name).map(text).unwrap_or_else(|| default.to_owned());
    Ok(ChargeRequest {
        amount: field("amount", "10.50").parse::<Amount>()?,
        email: field("email", "ama@example.com"),
        phone_number: field("phone_number", "+233244125678"),
        reference: field("reference", "BAD-INPUT-CHARGE"),
        currency: field("currency", "GHS"),
        provider: field("provider", "MTN"),
        callback_url: Some(field("callback_url", "https://shop.example.com/return")),
    })
}

/// A variant's name as the fixtures spell it: the first word of its `Debug` form.
pub fn variant(debug: &impl std::fmt::Debug) -> String {
    format!("{debug:?}").split([' ', '{', '(']).next().unwrap_or_default().to_owned()
}

/// A transaction's fields as the rows compare them.
fn transaction_answer(transaction: &Transaction) -> Value {
    let status_value = match &transaction.status {
        sika_core::TransactionStatus::Unknown { value } => Value::from(value.clone()),
        _ => Value::Null,
    };
    serde_json::json!({
        "tx_ref": transaction.tx_ref,
        "status": variant(&transaction.status),
        "status_value": status_value,
        "merchant_action": variant(&transaction.status.merchant_action()),
        "is_final": transaction.status.is_final(),
    })
}

/// The keys a row, its `input`, its `expect` and its answer may have, from the one vocabulary of
/// every runner (`tests/fixtures/scenarios/vocabulary.json`).
pub struct Vocabulary {
    pub row: Vec<String>,
    pub input: Vec<String>,
    pub expect: Vec<String>,
    pub answer: Vec<String>,
}

/// The vocabulary, read once.
pub fn vocabulary() -> &'static Vocabulary {
    static VOCABULARY: std::sync::LazyLock<Vocabulary> = std::sync::LazyLock::new(|| {
        let file = super::fixture("scenarios/vocabulary.json");
        let keys = |part: &str| -> Vec<String> {
            let list = file[part].as_array().unwrap_or_else(|| panic!("vocabulary.json has no {part}"));
            list.iter().map(|key| key.as_str().expect("a key").to_owned()).collect()
        };
        Vocabulary { row: keys("row"), input: keys("input"), expect: keys("expect"), answer: keys("answer") }
    });
    &VOCABULARY
}

/// Fails on a key the vocabulary does not have (a typo would otherwise check nothing).
pub fn check_keys(row: &Value, label: &str) {
    let words = vocabulary();
    let unknown = |object: &Value, known: &[&[String]], part: &str| {
        for key in object.as_object().unwrap_or_else(|| panic!("{label}: {part} is not an object")).keys() {
            assert!(known.iter().any(|list| list.contains(key)), "{label}: unknown key `{key}` in {part}");
        }
    };
    unknown(row, &[&words.row], "the row");
    unknown(&row["input"], &[&words.input], "input");
    unknown(&row["expect"], &[&words.expect, &words.answer], "expect");
    if let Some(first) = row["input"].get("called_before") {
        unknown(&first["input"], &[&words.input], "called_before's input");
    }
}

/// What a call gave, as the rows compare it: the fields of its answer by the fixtures' names.
async fn answer(operation: &str, client: &Client, input: &Value) -> Result<Value, SikaError> {
    let country = input.get("country").map(text);
    let reference = input.get("reference").map(text);
    {
        let list = Value::Array;
        Ok(match operation {
            "list_mobile_money_providers" => list(
                client
                    .list_mobile_money_providers(country.as_deref())
                    .await?
                    .into_iter()
                    .map(|p| {
                        serde_json::json!({"code": p.code, "country": p.country, "currency": p.currency,
                            "provider_type": p.provider_type})
                    })
                    .collect(),
            ),
            "list_banks" => list(
                client
                    .list_banks(country.as_deref())
                    .await?
                    .into_iter()
                    .map(|b| {
                        serde_json::json!({"code": b.code, "country": b.country, "currency": b.currency,
                            "account_type": variant(&b.account_type)})
                    })
                    .collect(),
            ),
            "countries" => list(
                sika_core::countries()
                    .into_iter()
                    .map(|c| {
                        serde_json::json!({"code": c.code, "name": c.name, "currency": c.currency,
                            "bank_account_type": variant(&c.bank_account_type), "mobile_money": c.mobile_money})
                    })
                    .collect(),
            ),
            "verify_transaction" => {
                transaction_answer(&client.verify_transaction(&reference.expect("a reference")).await?)
            }
            "await_final_status" => {
                // The runner's quick polling (tests/fixtures/scenarios/README.md).
                let options = AwaitOptions {
                    initial_delay_ms: 50,
                    interval_ms: 50,
                    max_interval_ms: 200,
                    timeout_ms: 5000,
                    cancellation: None,
                };
                transaction_answer(&client.await_final_status(&reference.expect("a reference"), &options).await?)
            }
            "refresh_banks" => list(
                client
                    .refresh_banks(country.as_deref())
                    .await?
                    .into_iter()
                    .map(|b| serde_json::json!({"code": b.code, "country": b.country, "currency": b.currency}))
                    .collect(),
            ),
            "initiate_charge" => {
                let response = client.initiate_charge(&charge_with(input)?).await?;
                serde_json::json!({"http_status": response.http_status, "accepted": response.status})
            }
            "confirm_payment" => {
                let check = client.confirm_payment(&reference.expect("a reference"), &expected_with(input)?).await?;
                let mut answer = serde_json::json!({"check": variant(&check), "tx_ref": check.transaction().tx_ref});
                match &check {
                    PaymentCheck::Mismatch { field, expected, actual, .. } => {
                        answer["field"] = Value::from(field.clone());
                        answer["expected_value"] = Value::from(expected.clone());
                        answer["actual_value"] = Value::from(actual.clone());
                    }
                    PaymentCheck::NotPaid { action, .. } => answer["action"] = Value::from(variant(action)),
                    PaymentCheck::Confirmed { .. } | PaymentCheck::NotYet { .. } => {}
                }
                answer
            }
            "handle_webhook" => {
                let (body, expected) = (body_bytes(&input["body"]), expected_with(input)?);
                let decision = client.handle_webhook(&body, &expected).await?;
                if input.get("repeat_delivery") == Some(&Value::Bool(true)) {
                    let again = client.handle_webhook(&body, &expected).await?;
                    assert_eq!(again, decision, "a repeated delivery gets the same decision");
                }
                let (tx_ref, reason) = match &decision {
                    WebhookDecision::Fulfil { transaction } => (Value::from(transaction.tx_ref.clone()), Value::Null),
                    WebhookDecision::Investigate { transaction, reason } => {
                        (Value::from(transaction.tx_ref.clone()), Value::from(reason.clone()))
                    }
                    WebhookDecision::Ignore { reason }
                    | WebhookDecision::RetryLater { reason }
                    | WebhookDecision::Reject { reason } => (Value::Null, Value::from(reason.clone())),
                };
                serde_json::json!({"decision": variant(&decision), "http_status": decision.http_status(), "tx_ref": tx_ref,
                    "reason": reason})
            }
            other => panic!("unknown operation {other}"),
        })
    }
}

/// Runs every row of a behaviour's scenario file through this runner, against one sandbox.
pub async fn run_scenario(name: &str) {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    for (index, row) in super::scenario_cases(name).iter().enumerate() {
        check_row(&sandbox, &client, row, &format!("{name} #{index} ({})", row["note"])).await;
    }
}

/// Runs one row against `sandbox` (its log cleared first) and checks everything it expects.
pub async fn check_row(sandbox: &Sandbox, client: &Client, row: &Value, label: &str) {
    check_keys(row, label);
    let (operation, input, expect) = (row["operation"].as_str().expect("operation"), &row["input"], &row["expect"]);
    let configured;
    let client = if input.get("secret_key").is_some() || input.get("settings").is_some() {
        let mut config = sandbox.config();
        if let Some(key) = input.get("secret_key") {
            config.secret_key = text(key).into();
        }
        for (name, value) in input.get("settings").and_then(Value::as_object).into_iter().flatten() {
            let number = value.as_u64().unwrap_or_else(|| panic!("{label}: setting {name}"));
            match name.as_str() {
                "max_retries" => config.max_retries = u32::try_from(number).expect("max_retries"),
                "bank_cache_ttl_seconds" => config.bank_cache_ttl_seconds = number,
                other => panic!("{label}: unknown setting {other}"),
            }
        }
        configured = Client::new(config).expect("client");
        &configured
    } else {
        client
    };
    if let Some(seed) = input.get("seed") {
        let reference = text(&input["reference"]);
        let (status, amount) = (seed["status"].as_str().expect("status"), seed["amount"].as_str().expect("amount"));
        sandbox.seed_transaction(&transaction_object(&reference, status, amount));
    }
    for fault in input.get("faults").and_then(Value::as_array).into_iter().flatten() {
        sandbox.add_fault(fault);
    }
    if let Some(other) = input.get("answered_about") {
        let (reference, status) =
            (other["reference"].as_str().expect("reference"), other["status"].as_str().expect("status"));
        let data = transaction_object(reference, status, other["amount"].as_str().expect("amount"));
        let body = format!(r#"{{"status":true,"message":"Verification successful","data":{data}}}"#);
        let path = format!("/transaction/verify/{}", text(&input["reference"]));
        sandbox.fault(&path, "body", 1, serde_json::json!({ "body": body }));
    }
    if let Some(first) = input.get("called_before") {
        let operation = first["operation"].as_str().expect("operation");
        Box::pin(answer(operation, client, &first["input"]))
            .await
            .unwrap_or_else(|e| panic!("{label}: first call: {e:?}"));
    }
    if input.get("charged_before") == Some(&Value::Bool(true)) {
        let first = answer(operation, client, input).await.unwrap_or_else(|e| panic!("{label}: first call: {e:?}"));
        assert_eq!((&first["http_status"], &first["accepted"]), (&Value::from(200), &Value::Bool(true)), "{label}");
    }
    sandbox.clear_requests();
    let started = std::time::Instant::now();
    let result = match input.get("concurrent").and_then(Value::as_u64) {
        Some(times) => {
            let calls = (0..times).map(|_| answer(operation, client, input));
            let answers = futures_util::future::join_all(calls).await;
            for other in &answers[1..] {
                assert_eq!(other.as_ref().ok(), answers[0].as_ref().ok(), "{label}: concurrent answers differ");
            }
            answers.into_iter().next().expect("one call at least")
        }
        None => answer(operation, client, input).await,
    };
    let elapsed = started.elapsed();
    let sent = sandbox.requests();
    if let Some(least) = expect.get("min_elapsed_ms").and_then(Value::as_u64) {
        assert!(elapsed.as_millis() >= u128::from(least), "{label}: the call took {elapsed:?}");
    }
    if let Some(field) = expect.get("invalid_input") {
        match &result {
            Err(SikaError::InvalidInput { field: got, .. }) => assert_eq!(got, field, "{label}"),
            other => panic!("{label}: expected InvalidInput, got {other:?}"),
        }
        assert!(sent.is_empty(), "{label}: rejected input was sent: {sent:?}");
        return;
    }
    match (expect.get("error"), &result) {
        (Some(kind), Err(error)) => {
            assert_eq!(kind, &variant(error), "{label}: {error:?}");
            if let Some(status) = expect.get("http_status") {
                let (SikaError::Api { http_status, .. } | SikaError::UnexpectedResponse { http_status, .. }) = error
                else {
                    panic!("{label}: {error:?} has no HTTP status")
                };
                assert_eq!(status, &Value::from(*http_status), "{label}");
            }
            if let Some(hint) = expect.get("retry_after_seconds") {
                let SikaError::RateLimited { retry_after_seconds, .. } = error else { panic!("{label}: {error:?}") };
                assert_eq!(hint, &Value::from(*retry_after_seconds), "{label}");
            }
            // A text, or a list of texts each in the message.
            let parts = match expect.get("message_contains") {
                Some(Value::Array(parts)) => parts.clone(),
                Some(part) => vec![part.clone()],
                None => vec![],
            };
            let message = error.to_string();
            for part in parts {
                assert!(message.contains(part.as_str().expect("text")), "{label}: {message}");
            }
        }
        (None, Ok(answer)) => check_answer(answer, expect, label),
        (want, got) => panic!("{label}: expected {want:?}, got {got:?}"),
    }
    let want_sent = expect["sent"].as_array().unwrap_or_else(|| panic!("{label}: the row says what is sent"));
    assert_eq!(sent.len(), want_sent.len(), "{label}: {sent:?}");
    for (request, want) in sent.iter().zip(want_sent) {
        for (name, value) in want.as_object().expect("a request") {
            assert_eq!(&request[name], value, "{label}: {name} of {request}");
        }
    }
}

fn check_answer(answer: &Value, expect: &Value, label: &str) {
    if let Some(items) = answer.as_array() {
        if let Some(count) = expect.get("count") {
            assert_eq!(&Value::from(items.len()), count, "{label}");
        }
        if let Some(least) = expect.get("min_count") {
            assert!(items.len() as u64 >= least.as_u64().expect("count"), "{label}: {}", items.len());
        }
        if let Some(codes) = expect.get("codes_in_order") {
            let got: Vec<&str> = items.iter().map(|item| item["code"].as_str().expect("code")).collect();
            assert_eq!(&Value::from(got), codes, "{label}");
        }
        for (code, fields) in expect.get("items").and_then(Value::as_object).into_iter().flatten() {
            let item =
                items.iter().find(|item| &item["code"] == code).unwrap_or_else(|| panic!("{label}: no item {code}"));
            for (name, value) in fields.as_object().expect("an item's fields") {
                assert_eq!(&item[name], value, "{label}: {name} of {item}");
            }
        }
        if let Some(codes) = expect.get("codes") {
            let mut got: Vec<&str> = items.iter().map(|item| item["code"].as_str().expect("code")).collect();
            got.sort_unstable();
            assert_eq!(&Value::from(got), codes, "{label}");
        }
        for (name, value) in expect.get("every").and_then(Value::as_object).into_iter().flatten() {
            for item in items {
                assert_eq!(&item[name], value, "{label}: {name} of {item}");
            }
        }
    } else {
        for name in &vocabulary().answer {
            if let Some(value) = expect.get(name) {
                assert_eq!(&answer[name], value, "{label}: {name}");
            }
        }
        if let Some(part) = expect.get("reason_contains") {
            let reason = answer["reason"].as_str().unwrap_or_default();
            assert!(reason.contains(part.as_str().expect("text")), "{label}: the reason {reason:?}");
        }
    }
}
