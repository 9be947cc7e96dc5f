//! `sika listen --forward-to URL`: a local receiver that becomes the sandbox's webhook target
//! and forwards every delivery to the merchant's own server, answering the sandbox with the
//! merchant's answer (so the sandbox's retries follow the merchant's server). Each event is
//! printed with that answer and how long it took, as `stripe listen` does. On Ctrl-C (or
//! SIGTERM) the sandbox's previous webhook target is put back.
//!
//! The merchant's answer is read up to [`MAX_ANSWER_BYTES`] (the rest is not read), within
//! the forwarding time limit; an answer cut off at either is reported so, never as a plain
//! `[200]`. The `user:password` of `--forward-to` is never printed.

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
use crate::output::out;
use crate::output::{clock, colour_on_stdout, escaped, print_json, without_credentials};
use crate::service::base_url;

/// How long the merchant's server may take unless `--timeout-ms` says otherwise; the
/// sandbox's own limit is 5 s.
const FORWARD_TIMEOUT_MS: u64 = 10_000;

/// The most of the merchant's answer that is kept (and passed back to the sandbox): 64 KiB.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;

#[derive(Args)]
pub struct ListenArgs {
    /// Where to forward each delivery, e.g. http://127.0.0.1:3000/webhooks/sika.
    #[arg(long, value_name = "URL")]
    forward_to: String,
}

struct Forwarder {
    forward_to: reqwest::Url,
    /// `forward_to` as printed: without its credentials, escaped.
    shown: String,
    /// The time limit of one forward, in milliseconds.
    limit_ms: u64,
    http: reqwest::Client,
    json: bool,
    colour: bool,
}

/// What the merchant's server answered.
enum Answer {
    /// A whole answer, of at most [`MAX_ANSWER_BYTES`].
    Whole { status: u16, body: Bytes },
    /// An answer longer than [`MAX_ANSWER_BYTES`]: its first bytes; the rest was not read.
    TooLong { status: u16, body: Bytes },
    /// Its status came, but its body did not end within the time limit (`timed_out`) or the
    /// connection broke off (the error).
    CutOff { status: u16, timed_out: bool, error: String },
    /// No answer: the error.
    None(String),
}

pub async fn run(global: &Global, args: &ListenArgs) -> Result<u8, Failure> {
    let forward_to =
        reqwest::Url::parse(&args.forward_to).ok().filter(|url| matches!(url.scheme(), "http" | "https")).ok_or_else(
            || Failure::setup(format!("--forward-to {}: not an http(s) URL", without_credentials(&args.forward_to))),
        )?;
    let control = Control::new(&base_url(global)?, global.timeout_ms)?;
    let previous = control.call(Method::GET, "/__sandbox/settings", None, 200).await?["webhook_url"].clone();

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|err| Failure::setup(format!("could not listen on 127.0.0.1: {err}")))?;
    let address = listener.local_addr().map_err(|err| Failure::setup(format!("no local address: {err}")))?;
    let limit_ms = global.timeout_ms.unwrap_or(FORWARD_TIMEOUT_MS);
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_millis(limit_ms))
        .build()
        .map_err(|err| Failure::setup(format!("could not build an HTTP client: {err}")))?;
    let shown = escaped(&without_credentials(forward_to.as_str()));
    let forwarder =
        Arc::new(Forwarder { forward_to, shown, limit_ms, http, json: global.json, colour: colour_on_stdout() });
    let app = Router::new().fallback(forward).with_state(forwarder.clone());

    let target = json!({ "webhook_url": format!("http://{address}/") });
    control.call(Method::POST, "/__sandbox/settings", Some(target.to_string()), 200).await?;
    eprintln!("Ready! Forwarding the sandbox's webhooks to {} (Ctrl-C to stop)", forwarder.shown);

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
/// with the merchant's status and body (its first [`MAX_ANSWER_BYTES`]), 504 when its answer
/// did not end within the time limit, or 502 when the merchant's server did not answer.
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
        Ok(response) => read_answer(response).await,
        Err(err) => Answer::None(if err.is_timeout() {
            format!("the {} limit passed", shown_ms(forwarder.limit_ms))
        } else {
            err.without_url().to_string()
        }),
    };
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    forwarder.print(&received_at, &name, &reference, &answer, duration_ms);
    let status = |status: u16| StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    match answer {
        Answer::Whole { status: code, body } | Answer::TooLong { status: code, body } => {
            (status(code), body).into_response()
        }
        Answer::CutOff { timed_out: true, .. } => StatusCode::GATEWAY_TIMEOUT.into_response(),
        Answer::CutOff { .. } | Answer::None(_) => StatusCode::BAD_GATEWAY.into_response(),
    }
}

/// Reads the answer's body up to [`MAX_ANSWER_BYTES`], chunk by chunk: never more is held.
async fn read_answer(mut response: reqwest::Response) -> Answer {
    let status = response.status().as_u16();
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = MAX_ANSWER_BYTES - body.len();
                if chunk.len() > room {
                    body.extend_from_slice(&chunk[..room]);
                    // Dropping the response closes its connection: the rest is never read.
                    return Answer::TooLong { status, body: body.into() };
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Answer::Whole { status, body: body.into() },
            Err(err) => {
                let timed_out = err.is_timeout();
                return Answer::CutOff { status, timed_out, error: err.without_url().to_string() };
            }
        }
    }
}

/// `10 s`, `1500 ms`.
fn shown_ms(ms: u64) -> String {
    if ms % 1000 == 0 { format!("{} s", ms / 1000) } else { format!("{ms} ms") }
}

impl Forwarder {
    fn print(&self, at: &str, event: &str, reference: &str, answer: &Answer, ms: u64) {
        let limit = shown_ms(self.limit_ms);
        if self.json {
            let (status, cut_off, error) = match answer {
                Answer::Whole { status, .. } => (Some(*status), None, None),
                Answer::TooLong { status, .. } => (Some(*status), Some("size_limit"), None),
                Answer::CutOff { status, timed_out: true, .. } => {
                    (Some(*status), Some("time_limit"), Some(format!("the answer was cut off at the {limit} limit")))
                }
                Answer::CutOff { status, error, .. } => (Some(*status), Some("connection"), Some(escaped(error))),
                Answer::None(error) => (None, None, Some(escaped(error))),
            };
            let line = json!({
                "received_at": at, "event": event, "reference": reference,
                "forward_to": self.shown, "http_status": status, "cut_off": cut_off, "error": error,
                "duration_ms": ms,
            });
            print_json(&line.to_string());
            return;
        }
        let painted = |status: u16| {
            let code = if (200..300).contains(&status) { "32" } else { "31" };
            if self.colour { format!("\x1b[{code}m{status}\x1b[0m") } else { status.to_string() }
        };
        let answer = match answer {
            Answer::Whole { status, .. } => format!("[{}]", painted(*status)),
            Answer::TooLong { status, .. } => {
                format!("[{}, answer cut at {} KiB]", painted(*status), MAX_ANSWER_BYTES / 1024)
            }
            Answer::CutOff { status, timed_out: true, .. } => {
                format!("[{}, answer cut off at the {limit} limit]", painted(*status))
            }
            Answer::CutOff { status, error, .. } => {
                format!("[{}, answer cut off: {}]", painted(*status), escaped(error))
            }
            Answer::None(error) => format!("[no answer: {}]", escaped(error)),
        };
        let (event, reference) = (escaped(event), escaped(reference));
        // One write, so that lines of concurrent deliveries never interleave.
        out!("{at}  --> {event} [{reference}]\n{at}  <-- {answer} POST {} ({ms} ms)\n", self.shown);
    }
}
