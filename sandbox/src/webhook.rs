//! Delivery of webhook notifications: `charge.success` from the USSD simulation, and the ones
//! tests force through `POST /__sandbox/webhooks/send`.
//!
//! As a real service does, a delivery answered with a non-2xx status, or not answered within
//! [`DELIVERY_TIMEOUT`], is retried in the background on the `webhook_retry_ms` schedule (the
//! setting; `sika-sandbox` retries nothing unless asked, `sika sandbox` asks for 1 s, 5 s,
//! 25 s, 60 s: ADR 0041). The simulation delivers each `charge.success`
//! `webhook_repeat` times (default 1), one after the other, to simulate repeated deliveries;
//! a forced notification may ask for its deliveries all at once (`concurrent`). Every attempt
//! is recorded for `GET /__sandbox/webhooks` with the receiver's answer and its time; a failure
//! is also logged to stderr.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::state::AppState;
use crate::store::WebhookAttempt;

/// A receiver that is slower than this counts as not delivered.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(5);

/// The most retries a schedule may hold.
pub const MAX_RETRIES: usize = 20;

/// The longest wait a schedule may hold (one hour).
pub const MAX_RETRY_WAIT_MS: u64 = 3_600_000;

/// Reads a retry schedule: waits in milliseconds, comma-separated (empty: no retries).
pub fn parse_retry_schedule(text: &str) -> Result<Vec<Duration>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let waits = text
        .split(',')
        .map(|wait| wait.trim().parse::<u64>().ok().filter(|ms| *ms <= MAX_RETRY_WAIT_MS).map(Duration::from_millis))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| format!("each wait must be a whole number of milliseconds up to {MAX_RETRY_WAIT_MS}"))?;
    if waits.len() > MAX_RETRIES {
        return Err(format!("at most {MAX_RETRIES} retries"));
    }
    Ok(waits)
}

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
struct Answer {
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
    async fn post(&self, body: Vec<u8>) -> Answer {
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
                Answer { http_status: Some(status.as_u16()), error }
            }
            Err(e) => Answer { http_status: None, error: Some(error_chain(&e)) },
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
#[derive(Clone)]
pub struct Notification {
    pub event: String,
    pub reference: Option<String>,
    pub body: Vec<u8>,
    pub times: u32,
    /// All `times` deliveries at once (idempotency tests) rather than one after the other.
    pub concurrent: bool,
}

/// Sends the notification `times` times (one after the other, or all at once), recording
/// every attempt; returns the first attempt of each delivery. A delivery that failed is
/// retried in the background on the retry schedule in force.
pub async fn deliver_now(state: &AppState, target: &WebhookTarget, notification: Notification) -> Vec<WebhookAttempt> {
    let retries = state.settings().webhook_retry;
    if notification.concurrent {
        let mut deliveries = tokio::task::JoinSet::new();
        for _ in 0..notification.times {
            let delivery = Delivery::new(state, target, &notification);
            let retries = retries.clone();
            deliveries.spawn(async move { delivery.first_attempt(retries).await });
        }
        let mut attempts = deliveries.join_all().await;
        attempts.sort_by_key(|attempt| attempt.delivery_id);
        attempts
    } else {
        let mut attempts = Vec::new();
        for _ in 0..notification.times {
            attempts.push(Delivery::new(state, target, &notification).first_attempt(retries.clone()).await);
        }
        attempts
    }
}

/// One delivery of a notification: its first attempt and its retries.
struct Delivery {
    state: AppState,
    target: WebhookTarget,
    notification: Notification,
    id: u64,
}

impl Delivery {
    fn new(state: &AppState, target: &WebhookTarget, notification: &Notification) -> Self {
        let id = state.store.next_delivery_id();
        Self { state: state.clone(), target: target.clone(), notification: notification.clone(), id }
    }

    /// Makes the first attempt; when it fails, the retries go on in the background.
    async fn first_attempt(self, retries: Vec<Duration>) -> WebhookAttempt {
        let first = self.attempt(1).await;
        if !first.delivered && !retries.is_empty() {
            tokio::spawn(self.retry(retries));
        }
        first
    }

    async fn retry(self, retries: Vec<Duration>) {
        for (wait, number) in retries.into_iter().zip(2..) {
            tokio::time::sleep(wait).await;
            if self.attempt(number).await.delivered {
                return;
            }
        }
    }

    async fn attempt(&self, number: u32) -> WebhookAttempt {
        let sent_at = crate::time::now_iso();
        let started = Instant::now();
        let answer = self.target.post(self.notification.body.clone()).await;
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        if let Some(reason) = &answer.error {
            eprintln!(
                "sika-sandbox: webhook {} for {:?} (delivery {}, attempt {number}) not delivered: {reason}",
                self.notification.event,
                self.notification.reference.as_deref().unwrap_or_default(),
                self.id
            );
        }
        let attempt = WebhookAttempt {
            reference: self.notification.reference.clone(),
            delivered: answer.error.is_none(),
            event: self.notification.event.clone(),
            url: self.target.url().to_owned(),
            http_status: answer.http_status,
            error: answer.error,
            delivery_id: self.id,
            attempt: number,
            sent_at,
            duration_ms,
        };
        self.state.store.log_webhook(attempt.clone());
        attempt
    }
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
            concurrent: false,
        };
        deliver_now(&state, &target, notification).await;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b171_a_webhook_body_has_the_service_shape() {
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
    fn b88_retry_schedules() {
        assert_eq!(parse_retry_schedule(""), Ok(vec![]));
        assert_eq!(parse_retry_schedule("10, 20"), Ok(vec![Duration::from_millis(10), Duration::from_millis(20)]));
        assert!(parse_retry_schedule("1000,5000,25000,60000").is_ok());
        for bad in ["x", "10,", "-1", "3600001", &["1"; 21].join(",")] {
            assert!(parse_retry_schedule(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn b173_webhook_settings_reject_bad_urls() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        assert!(WebhookTarget::new("not a url").is_err());
        assert!(WebhookTarget::new("ftp://127.0.0.1/hook").is_err());
        assert!(WebhookTarget::new("http://127.0.0.1:9/hook").is_ok());
    }

    #[test]
    fn b173_loopback_only_for_the_control_api() {
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
