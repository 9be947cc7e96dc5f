//! Delivery of webhook notifications: `charge.success` from the USSD simulation, and the ones
//! tests force through `POST /__sandbox/webhooks/send`.
//!
//! No retries (the spec states none): the simulation delivers each `charge.success`
//! `webhook_repeat` times (default 1), one after the other, to simulate repeated deliveries.
//! Every attempt is recorded for `GET /__sandbox/webhooks`; a failure is logged to stderr and
//! otherwise ignored.

use std::net::IpAddr;
use std::time::Duration;

use serde::Serialize;

use crate::state::AppState;
use crate::store::WebhookAttempt;

/// A receiver that is slower than this counts as not delivered.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(5);

/// The event the simulation sends.
pub const CHARGE_SUCCESS: &str = "charge.success";

/// The configured receiver and the client that talks to it.
#[derive(Debug, Clone)]
pub struct WebhookTarget {
    url: reqwest::Url,
    client: reqwest::Client,
}

/// What one POST to the receiver came to.
#[derive(Debug)]
struct Delivery {
    /// The receiver's HTTP status, when it answered at all.
    http_status: Option<u16>,
    /// Why it does not count as delivered (transport error or non-2xx answer).
    error: Option<String>,
}

impl WebhookTarget {
    /// Checks the URL (http or https) and builds the client. Needs a rustls crypto provider
    /// installed first.
    pub fn new(url: &str) -> Result<Self, String> {
        Self::build(url).map_err(|reason| format!("invalid --webhook-url: {reason}"))
    }

    /// As [`WebhookTarget::new`], but only for a loopback receiver (`127.0.0.0/8`, `[::1]` or
    /// `localhost`): what the control API accepts, so that a test can never make the sandbox
    /// call out of the machine.
    pub fn loopback(url: &str) -> Result<Self, String> {
        let target = Self::build(url)?;
        if is_loopback(&target.url) { Ok(target) } else { Err("the host must be a loopback address".to_owned()) }
    }

    fn build(url: &str) -> Result<Self, String> {
        let url = reqwest::Url::parse(url).map_err(|e| e.to_string())?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err("the scheme must be http or https".to_owned());
        }
        let client = reqwest::Client::builder()
            // A test receiver is local: never route it through a proxy from the environment.
            .no_proxy()
            .timeout(DELIVERY_TIMEOUT)
            .build()
            .map_err(|e| format!("could not build the webhook HTTP client: {e}"))?;
        Ok(Self { url, client })
    }

    pub fn url(&self) -> &str {
        self.url.as_str()
    }

    /// One POST; delivered when the receiver answered with a 2xx status.
    async fn deliver(&self, body: Vec<u8>) -> Delivery {
        let sent = self
            .client
            .post(self.url.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await;
        match sent {
            Ok(response) => {
                let status = response.status();
                let error = (!status.is_success()).then(|| format!("the receiver answered HTTP {}", status.as_u16()));
                Delivery { http_status: Some(status.as_u16()), error }
            }
            Err(e) => Delivery { http_status: None, error: Some(error_chain(&e)) },
        }
    }
}

fn is_loopback(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    // IPv6 hosts come bracketed (`[::1]`).
    let bare = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    match bare.parse::<IpAddr>() {
        Ok(ip) => ip.to_canonical().is_loopback(),
        Err(_) => host.eq_ignore_ascii_case("localhost"),
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
    event: &'a str,
    data: EventData<'a>,
}

#[derive(Serialize)]
struct EventData<'a> {
    reference: &'a str,
}

/// A notification body: `{"event":EVENT,"data":{"reference":REF}}`.
pub fn event_body(event: &str, reference: &str) -> Result<Vec<u8>, serde_json::Error> {
    serde_json::to_vec(&Event { event, data: EventData { reference } })
}

/// The notification body: `{"event":"charge.success","data":{"reference":REF}}`.
pub fn charge_success_body(reference: &str) -> Result<Vec<u8>, serde_json::Error> {
    event_body(CHARGE_SUCCESS, reference)
}

/// One notification to send, as many times as asked.
pub struct Notification {
    pub event: String,
    pub reference: Option<String>,
    pub body: Vec<u8>,
    pub times: u32,
}

/// Sends the notification `times` times, one after the other, recording (and returning)
/// every attempt.
pub async fn deliver_now(state: &AppState, target: &WebhookTarget, notification: Notification) -> Vec<WebhookAttempt> {
    let mut attempts = Vec::new();
    for _ in 0..notification.times {
        let delivery = target.deliver(notification.body.clone()).await;
        if let Some(reason) = &delivery.error {
            eprintln!(
                "sika-sandbox: webhook {} for {:?} not delivered: {reason}",
                notification.event,
                notification.reference.as_deref().unwrap_or_default()
            );
        }
        let attempt = WebhookAttempt {
            reference: notification.reference.clone(),
            delivered: delivery.error.is_none(),
            event: notification.event.clone(),
            url: target.url().to_owned(),
            http_status: delivery.http_status,
            error: delivery.error,
        };
        state.store.log_webhook(attempt.clone());
        attempts.push(attempt);
    }
    attempts
}

/// Sends `charge.success` for `reference` in the background (`webhook_repeat` times), when a
/// webhook URL is set.
pub fn spawn_charge_success(state: &AppState, reference: String) {
    let settings = state.settings();
    let Some(target) = settings.webhook else {
        return;
    };
    let body = match charge_success_body(&reference) {
        Ok(body) => body,
        Err(e) => {
            eprintln!("sika-sandbox: could not build a webhook body: {e}");
            return;
        }
    };
    let state = state.clone();
    tokio::spawn(async move {
        let notification = Notification {
            event: CHARGE_SUCCESS.to_owned(),
            reference: Some(reference),
            body,
            times: settings.webhook_repeat,
        };
        deliver_now(&state, &target, notification).await;
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
        let body = event_body("charge.failed", "a\"b").unwrap_or_default();
        assert_eq!(
            String::from_utf8(body).ok().as_deref(),
            Some(r#"{"event":"charge.failed","data":{"reference":"a\"b"}}"#)
        );
    }

    #[test]
    fn rejects_bad_urls() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        assert!(WebhookTarget::new("not a url").is_err());
        assert!(WebhookTarget::new("ftp://127.0.0.1/hook").is_err());
        assert!(WebhookTarget::new("http://127.0.0.1:9/hook").is_ok());
    }

    #[test]
    fn loopback_only_for_the_control_api() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        for url in ["http://127.0.0.1:9/hook", "http://127.8.0.1/", "http://[::1]:9/", "http://LocalHost:9/"] {
            assert!(WebhookTarget::loopback(url).is_ok(), "{url}");
        }
        for url in
            ["http://10.0.0.1/", "http://example.com/", "http://localhost.example.com/", "http://[::ffff:a00:1]/", "x"]
        {
            assert!(WebhookTarget::loopback(url).is_err(), "{url}");
        }
    }
}
