//! Delivery of the `charge.success` notification to `--webhook-url`.
//!
//! One attempt per transition, no retries (the spec states none). Every attempt is recorded
//! for `GET /__sandbox/webhooks`; a failure is logged to stderr and otherwise ignored.

use std::time::Duration;

use serde::Serialize;

use crate::state::AppState;
use crate::store::WebhookAttempt;

/// A receiver that is slower than this counts as not delivered.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(5);

/// The configured receiver and the client that talks to it.
#[derive(Debug, Clone)]
pub struct WebhookTarget {
    url: reqwest::Url,
    client: reqwest::Client,
}

impl WebhookTarget {
    /// Checks the URL (http or https) and builds the client. Needs a rustls crypto provider
    /// installed first.
    pub fn new(url: &str) -> Result<Self, String> {
        let url = reqwest::Url::parse(url).map_err(|e| format!("invalid --webhook-url: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err("invalid --webhook-url: the scheme must be http or https".to_owned());
        }
        let client = reqwest::Client::builder()
            // A test receiver is local: never route it through a proxy from the environment.
            .no_proxy()
            .timeout(DELIVERY_TIMEOUT)
            .build()
            .map_err(|e| format!("could not build the webhook HTTP client: {e}"))?;
        Ok(Self { url, client })
    }

    /// One POST; true when the receiver answered with a 2xx status.
    async fn deliver(&self, body: Vec<u8>) -> Result<(), String> {
        let response = self
            .client
            .post(self.url.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await
            .map_err(|e| error_chain(&e))?;
        let status = response.status();
        if status.is_success() { Ok(()) } else { Err(format!("the receiver answered HTTP {}", status.as_u16())) }
    }
}

/// An error with its causes (`reqwest`'s own message alone rarely says what went wrong).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[derive(Serialize)]
struct Event<'a> {
    event: &'static str,
    data: EventData<'a>,
}

#[derive(Serialize)]
struct EventData<'a> {
    reference: &'a str,
}

/// The notification body: `{"event":"charge.success","data":{"reference":REF}}`.
pub fn charge_success_body(reference: &str) -> Result<Vec<u8>, serde_json::Error> {
    serde_json::to_vec(&Event { event: "charge.success", data: EventData { reference } })
}

/// Sends `charge.success` for `reference` in the background, when a webhook URL is set.
pub fn spawn_charge_success(state: &AppState, reference: String) {
    if state.webhook.is_none() {
        return;
    }
    let state = state.clone();
    tokio::spawn(async move {
        let Some(target) = state.webhook.as_ref() else {
            return;
        };
        let result = match charge_success_body(&reference) {
            Ok(body) => target.deliver(body).await,
            Err(e) => Err(e.to_string()),
        };
        if let Err(reason) = &result {
            eprintln!("sika-sandbox: webhook charge.success for {reference:?} not delivered: {reason}");
        }
        state.store.log_webhook(WebhookAttempt { reference, delivered: result.is_ok() });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_shape() {
        let body = charge_success_body("order-1").unwrap_or_default();
        assert_eq!(
            String::from_utf8(body).ok().as_deref(),
            Some(r#"{"event":"charge.success","data":{"reference":"order-1"}}"#)
        );
    }

    #[test]
    fn rejects_bad_urls() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        assert!(WebhookTarget::new("not a url").is_err());
        assert!(WebhookTarget::new("ftp://127.0.0.1/hook").is_err());
        assert!(WebhookTarget::new("http://127.0.0.1:9/hook").is_ok());
    }
}
