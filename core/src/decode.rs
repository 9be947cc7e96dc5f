//! Turns a response (HTTP status and body bytes) into a typed value or a typed error.
//!
//! Public so that recorded responses can be decoded without a network (our shared fixtures,
//! fuzzing, a merchant's own stored responses). The client uses exactly these functions.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::error::{Result, SikaError};
use crate::models::{Bank, ChargeResponse, MobileMoneyProvider, Transaction};

/// The service's envelope, with `data` left as raw text for a second, typed pass.
#[derive(Deserialize)]
struct Envelope<'a> {
    status: bool,
    #[serde(default)]
    message: Option<String>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
}

/// The charge response's envelope: the spec does not describe it, so every part is optional
/// and kept raw (so `data_json` keeps amounts exactly as sent).
#[derive(Deserialize)]
struct LooseEnvelope<'a> {
    #[serde(borrow, default)]
    status: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
}

/// Decodes a mobile money provider list response.
pub fn providers_response(http_status: u16, body: &[u8]) -> Result<Vec<MobileMoneyProvider>> {
    list(http_status, body, "mobile money provider list")
}

/// Decodes a bank list response.
pub fn banks_response(http_status: u16, body: &[u8]) -> Result<Vec<Bank>> {
    list(http_status, body, "bank list")
}

/// Decodes a verification response.
pub fn transaction_response(http_status: u16, body: &[u8]) -> Result<Transaction> {
    let data = success_data(http_status, body)?;
    Transaction::from_json(data.get())
        .map_err(|e| SikaError::unexpected(http_status, format!("malformed transaction: {e}")))
}

/// Decodes the answer to verifying `reference`, which must be about that reference: an answer
/// about another transaction (a crossed connection, a caching proxy, a service bug) is an
/// `UnexpectedResponse` naming both, never a `Transaction` that could be taken for this one.
pub fn transaction_response_for(reference: &str, http_status: u16, body: &[u8]) -> Result<Transaction> {
    let transaction = transaction_response(http_status, body)?;
    if transaction.tx_ref == reference {
        return Ok(transaction);
    }
    // A valid reference is short; a longer tx_ref is only described, so the message stays bounded.
    let answered = if transaction.tx_ref.chars().count() <= crate::MAX_REFERENCE_CHARS {
        format!("`{}`", transaction.tx_ref)
    } else {
        format!("a tx_ref of {} characters", transaction.tx_ref.chars().count())
    };
    Err(SikaError::unexpected(
        http_status,
        format!("the service answered about reference {answered} when `{reference}` was verified"),
    ))
}

/// Decodes a charge response. Any JSON body of a 2xx response is returned as sent; an error
/// envelope (`status: false`) or another HTTP status becomes an error.
pub fn charge_response(http_status: u16, body: &[u8]) -> Result<ChargeResponse> {
    let text = std::str::from_utf8(body).map_err(|_| SikaError::unexpected(http_status, "body is not UTF-8 text"))?;
    let envelope: LooseEnvelope<'_> = serde_json::from_str(text).map_err(|e| not_json(http_status, &e))?;
    let status = envelope.status.and_then(|raw| serde_json::from_str::<bool>(raw.get()).ok());
    let message = envelope.message.and_then(|raw| serde_json::from_str::<String>(raw.get()).ok());
    if status == Some(false) || !is_success(http_status) {
        return Err(error_for(http_status, message.as_deref().unwrap_or_default()));
    }
    let data_json = envelope.data.map(|raw| raw.get()).filter(|raw| *raw != "null").map(str::to_owned);
    Ok(ChargeResponse { http_status: http_status.into(), status, message, data_json, raw_json: text.to_owned() })
}

fn list<T: DeserializeOwned>(http_status: u16, body: &[u8], what: &str) -> Result<Vec<T>> {
    let data = success_data(http_status, body)?;
    serde_json::from_str(data.get()).map_err(|e| SikaError::unexpected(http_status, format!("malformed {what}: {e}")))
}

/// Checks the envelope and returns its `data` when the call succeeded.
fn success_data(http_status: u16, body: &[u8]) -> Result<&RawValue> {
    let envelope: Envelope<'_> = serde_json::from_slice(body).map_err(|e| not_json(http_status, &e))?;
    let message = envelope.message.as_deref().unwrap_or_default();
    if !envelope.status {
        return Err(error_for(http_status, message));
    }
    if !is_success(http_status) {
        // `status: true` with an error status: the two halves disagree, so trust neither.
        return Err(SikaError::unexpected(http_status, "envelope status is true but the HTTP status is an error"));
    }
    envelope
        .data
        .filter(|data| data.get() != "null")
        .ok_or_else(|| SikaError::unexpected(http_status, "envelope status is true but data is null"))
}

fn is_success(http_status: u16) -> bool {
    (200..300).contains(&http_status)
}

fn not_json(http_status: u16, error: &serde_json::Error) -> SikaError {
    if http_status == 429 {
        return SikaError::RateLimited { retry_after_seconds: None, request_id: None };
    }
    SikaError::unexpected(http_status, format!("body is not a JSON envelope: {error}"))
}

/// Maps an error envelope's message to its typed error, whatever the HTTP status: the spec
/// documents the messages but not the statuses. Matching ignores case and outer white space.
fn error_for(http_status: u16, message: &str) -> SikaError {
    let documented = [
        ("Unauthorized", SikaError::Unauthorized { request_id: None }),
        ("Invalid country code", SikaError::InvalidCountryCode { request_id: None }),
        ("No providers found", SikaError::NoProvidersFound { request_id: None }),
        ("Transaction not found", SikaError::TransactionNotFound { request_id: None }),
        ("Invalid reference", SikaError::InvalidReference { request_id: None }),
    ];
    let trimmed = message.trim();
    if let Some((_, error)) = documented.into_iter().find(|(text, _)| text.eq_ignore_ascii_case(trimmed)) {
        return error;
    }
    if http_status == 429 {
        return SikaError::RateLimited { retry_after_seconds: None, request_id: None };
    }
    // The service's text, cut at MAX_TEXT_CHARS (ADR 0040): a 7 MB message is not an error's.
    SikaError::Api {
        http_status: http_status.into(),
        message: crate::scrub::bound(message).into_owned(),
        request_id: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages of the spec's error table (`## Errors` of docs/spec/service-interface.md):
    /// the first cell of each row under its header.
    fn spec_error_messages() -> Vec<String> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/spec/service-interface.md");
        let spec = std::fs::read_to_string(path).expect("the spec");
        let section = spec.split("\n## ").find(|section| section.starts_with("Errors\n")).expect("## Errors");
        let mut rows = section.lines().filter(|line| line.starts_with('|'));
        let header = rows.next().expect("the error table");
        assert!(header.contains("Message"), "{header}");
        rows.skip(1) // the |---| line
            .map(|row| row.trim_matches('|').split('|').next().unwrap_or_default().trim().to_owned())
            .collect()
    }

    fn envelope(message: &str) -> Vec<u8> {
        serde_json::json!({ "status": false, "message": message, "data": null }).to_string().into()
    }

    /// Every message of the spec's error table decodes to the kind whose sample in
    /// tests/fixtures/errors.json names it (`service_message`), in any case and with outer space,
    /// from every decoder and whatever the HTTP status; a documented message the table of
    /// `error_for` does not know would be an `Api` and fails here; and no sample names a message
    /// the spec does not document.
    #[test]
    fn b296_every_documented_error_message_decodes_to_its_kind() {
        let documented = spec_error_messages();
        assert!(documented.len() >= 5, "{documented:?}");
        let samples = crate::error::tests::fixture_kinds();
        let claimed: Vec<(&str, &str)> = samples
            .iter()
            .filter_map(|sample| Some((sample.get("service_message")?.as_str()?, sample["kind"].as_str()?)))
            .collect();
        let mut claimed_messages: Vec<&str> = claimed.iter().map(|(message, _)| *message).collect();
        let mut documented_messages: Vec<&str> = documented.iter().map(String::as_str).collect();
        claimed_messages.sort_unstable();
        documented_messages.sort_unstable();
        assert_eq!(claimed_messages, documented_messages, "errors.json's service_message: the spec's error table");
        for (message, kind) in claimed {
            for text in [message.to_owned(), format!("  {}\n", message.to_uppercase())] {
                for http_status in [400, 401, 404, 500] {
                    let body = envelope(&text);
                    let decoded = [
                        transaction_response(http_status, &body).map(drop),
                        banks_response(http_status, &body).map(drop),
                        providers_response(http_status, &body).map(drop),
                        charge_response(http_status, &body).map(drop),
                    ];
                    for result in decoded {
                        let error = result.expect_err("an error envelope");
                        assert_eq!(error.kind(), kind, "{text:?} (HTTP {http_status}): {error:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn b296_an_undocumented_message_is_api_with_the_service_text() {
        let error = transaction_response(400, &envelope("Unknown account")).expect_err("an error envelope");
        assert_eq!(error, SikaError::Api { http_status: 400, message: "Unknown account".into(), request_id: None });
    }

    fn answer_about(tx_ref: &str) -> Vec<u8> {
        let object = serde_json::json!({
            "id": 1, "domain": "test", "amount": 5, "currency": "GHS", "tx_ref": tx_ref, "gw_ref": "GW-1", "has_invoice": false,
            "status": "successful", "payment_type": "mobile_money",
            "created_at": "2024-05-01T12:00:00.000Z", "updated_at": "2024-05-01T12:00:00.000Z",
        });
        serde_json::json!({ "status": true, "message": "Verification successful", "data": object }).to_string().into()
    }

    #[test]
    fn b36_an_answer_about_the_reference_asked_is_the_transaction() {
        let transaction = transaction_response_for("ORDER-1", 200, &answer_about("ORDER-1")).expect("decodes");
        assert_eq!(transaction.tx_ref, "ORDER-1");
    }

    #[test]
    fn b36_an_answer_about_another_reference_names_both_and_stays_bounded() {
        let error = transaction_response_for("ORDER-1", 200, &answer_about("order-1")).expect_err("crossed");
        assert_eq!(
            error.to_string(),
            "unexpected response (HTTP 200): the service answered about reference `order-1` when `ORDER-1` was verified"
        );
        let long = "R".repeat(10_000);
        let error = transaction_response_for("ORDER-1", 200, &answer_about(&long)).expect_err("crossed");
        assert!(error.to_string().contains("a tx_ref of 10000 characters"), "{error}");
        assert!(error.to_string().len() < 200, "{error}");
    }

    /// What docs/RELIABILITY.md says of nesting: a body nested 10,000 deep is a typed error, not
    /// a stack overflow, while the same nesting in a field the SDK ignores is skipped without
    /// recursion (serde_json's `ignore_value`), so the answer is accepted.
    #[test]
    fn b29_deep_nesting_is_a_typed_error_and_skipped_in_ignored_fields() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let deep_data = format!(r#"{{"status":true,"message":"ok","data":{}}}"#, nested(10_000));
        let decoded_too_deep = transaction_response(200, deep_data.as_bytes());
        assert!(matches!(decoded_too_deep, Err(SikaError::UnexpectedResponse { .. })), "{decoded_too_deep:?}");
        let deep_unused = String::from_utf8(answer_about("ORDER-1")).expect("UTF-8").replacen(
            r#""gw_ref""#,
            &format!(r#""extra":{},"gw_ref""#, nested(10_000)),
            1,
        );
        let transaction = transaction_response(200, deep_unused.as_bytes()).expect("deep nesting in an ignored field");
        assert_eq!(transaction.tx_ref, "ORDER-1");
    }
}
