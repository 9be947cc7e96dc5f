//! `sika listen --forward-to URL`: a local receiver that becomes the sandbox's webhook target
//! and forwards every delivery to the merchant's own server, answering the sandbox with the
//! merchant's answer (so the sandbox's retries follow the merchant's server). Each event is
//! printed with that answer and how long it took, as `stripe listen` does. On Ctrl-C (or
//! SIGTERM) the sandbox's previous webhook target is put back.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use clap::Args;
use reqwest::Method;
use serde_json::{Value, json};

use crate::Global;
use crate::control::Control;
use crate::exit::{self, Failure};
use crate::output::{clock, colour_on_stdout};
use crate::output::{out, outln};
use crate::service::base_url;

/// How long the merchant's server may take; the sandbox's own limit is 5 s.
const FORWARD_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Args)]
pub struct ListenArgs {
    /// Where to forward each delivery, e.g. http://127.0.0.1:3000/webhooks/sika.
    #[arg(long, value_name = "URL")]
    forward_to: String,
}

struct Forwarder {
    forward_to: reqwest::Url,
    http: reqwest::Client,
    json: bool,
    colour: bool,
}

pub async fn run(global: &Global, args: &ListenArgs) -> Result<u8, Failure> {
    let forward_to = reqwest::Url::parse(&args.forward_to)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https"))
        .ok_or_else(|| Failure::setup(format!("--forward-to {}: not an http(s) URL", args.forward_to)))?;
    let control = Control::new(&base_url(global)?)?;
    let previous = control.call(Method::GET, "/__sandbox/settings", None, 200).await?["webhook_url"].clone();

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|err| Failure::setup(format!("could not listen on 127.0.0.1: {err}")))?;
    let address = listener.local_addr().map_err(|err| Failure::setup(format!("no local address: {err}")))?;
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(FORWARD_TIMEOUT)
        .build()
        .map_err(|err| Failure::setup(format!("could not build an HTTP client: {err}")))?;
    let forwarder = Arc::new(Forwarder { forward_to, http, json: global.json, colour: colour_on_stdout() });
    let app = Router::new().fallback(forward).with_state(forwarder.clone());

    let target = json!({ "webhook_url": format!("http://{address}/") });
    control.call(Method::POST, "/__sandbox/settings", Some(target.to_string()), 200).await?;
    eprintln!("Ready! Forwarding the sandbox's webhooks to {} (Ctrl-C to stop)", forwarder.forward_to);

    let served = axum::serve(listener, app).with_graceful_shutdown(stop_signal());
    let outcome = served.await;
    // Put back what was there, so the sandbox does not post to a receiver that is gone.
    let restore = json!({ "webhook_url": previous });
    let restored = control.call(Method::POST, "/__sandbox/settings", Some(restore.to_string()), 200).await;
    outcome.map_err(|err| Failure::setup(format!("the local receiver failed: {err}")))?;
    restored?;
    Ok(exit::OK)
}

async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// One delivery from the sandbox: forwarded as received (body and content type), answered
/// with the merchant's status and body, or 502 when the merchant's server did not answer.
async fn forward(State(forwarder): State<Arc<Forwarder>>, headers: HeaderMap, body: Bytes) -> Response {
    let event: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let name = event["event"].as_str().unwrap_or("(unreadable event)").to_owned();
    let reference = event["data"]["reference"].as_str().unwrap_or_default().to_owned();
    let received_at = clock();
    let started = Instant::now();
    let mut request = forwarder.http.post(forwarder.forward_to.clone()).body(body);
    if let Some(content_type) = headers.get(header::CONTENT_TYPE) {
        request = request.header(header::CONTENT_TYPE, content_type);
    }
    let answer = match request.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            let body = response.bytes().await.unwrap_or_default();
            Ok((status, body))
        }
        Err(err) => Err(err.without_url().to_string()),
    };
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    forwarder.print(&received_at, &name, &reference, &answer, duration_ms);
    match answer {
        Ok((status, body)) => (StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY), body).into_response(),
        Err(_) => StatusCode::BAD_GATEWAY.into_response(),
    }
}

impl Forwarder {
    fn print(&self, at: &str, event: &str, reference: &str, answer: &Result<(u16, Bytes), String>, ms: u64) {
        if self.json {
            let (status, error) = match answer {
                Ok((status, _)) => (Some(*status), None),
                Err(error) => (None, Some(error.as_str())),
            };
            let line = json!({
                "received_at": at, "event": event, "reference": reference,
                "forward_to": self.forward_to.as_str(), "http_status": status, "error": error, "duration_ms": ms,
            });
            outln!("{line}");
            return;
        }
        let answer = match answer {
            Ok((status, _)) => {
                let code = if (200..300).contains(status) { "32" } else { "31" };
                if self.colour { format!("[\x1b[{code}m{status}\x1b[0m]") } else { format!("[{status}]") }
            }
            Err(error) => format!("[no answer: {error}]"),
        };
        // One write, so that lines of concurrent deliveries never interleave.
        out!("{at}  --> {event} [{reference}]\n{at}  <-- {answer} POST {} ({ms} ms)\n", self.forward_to);
    }
}
