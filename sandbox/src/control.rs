//! The control API under `/__sandbox/`: lets tests seed and inspect transactions, force a
//! status, read what clients sent, inject faults, change settings, read and force webhook
//! deliveries, and reset everything.
//!
//! No authentication (tests must be able to inspect unauthorised traffic), but only loopback
//! peers are served, in case the sandbox is bound to a wider address. None of these requests
//! appear in the request log.
//!
//! | route | body | answer |
//! |---|---|---|
//! | `POST /__sandbox/transactions` | any JSON object; `tx_ref` a string | 201, the stored object |
//! | `GET /__sandbox/transactions/{reference}` | | 200 the object, or 404 |
//! | `POST /__sandbox/transactions/{reference}/status` | `{"status": "<any string>"}` | 200 the object, or 404 |
//! | `GET /__sandbox/requests` | | 200, the request log |
//! | `DELETE /__sandbox/requests` | | 200, data null |
//! | `GET /__sandbox/webhooks` | | 200, the webhook attempts |
//! | `POST /__sandbox/webhooks/send` | `{"reference", "event"?, "times"?, "concurrent"?, "url"?, "body"?}` | 200, the first attempts |
//! | `POST /__sandbox/faults` | a fault (see [`crate::fault`]) | 201, the fault with its id |
//! | `GET /__sandbox/faults` | | 200, the faults still waiting |
//! | `DELETE /__sandbox/faults` | | 200, data null |
//! | `GET /__sandbox/settings` | | 200, the settings |
//! | `POST /__sandbox/settings` | any of `{"webhook_url", "confirm_after_ms", "webhook_repeat", "webhook_retry_ms"}` | 200, the settings |
//! | `GET /__sandbox/connections` | | 200, data `{"open", "accepted"}`: TCP connections open now (this request's own included) and accepted since start |
//! | `GET /__sandbox/routes` | | 200, data `[{"method", "path"}]`: the service's operations, as routed |
//! | `POST /__sandbox/reset` | | 200, data null (settings are kept) |

use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::MAX_WEBHOOK_REPEAT;
use crate::app::method_not_allowed;
use crate::envelope::{body_rejection, error, success, success_empty};
use crate::fault::Fault;
use crate::listener::PeerInfo;
use crate::raw_object::RawObject;
use crate::state::{AppState, Settings};
use crate::webhook::{self, CHARGE_SUCCESS, Notification, WebhookTarget};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/__sandbox/transactions", post(seed_transaction))
        .route("/__sandbox/transactions/{reference}", get(get_transaction))
        .route("/__sandbox/transactions/{reference}/status", post(set_status))
        .route("/__sandbox/requests", get(list_requests).delete(clear_requests))
        .route("/__sandbox/webhooks", get(list_webhooks))
        .route("/__sandbox/webhooks/send", post(send_webhook))
        .route("/__sandbox/faults", get(list_faults).post(add_fault).delete(clear_faults))
        .route("/__sandbox/settings", get(get_settings).post(update_settings))
        .route("/__sandbox/connections", get(connections))
        .route("/__sandbox/routes", get(routes))
        .route("/__sandbox/reset", post(reset))
        .method_not_allowed_fallback(method_not_allowed)
        .route_layer(middleware::from_fn(loopback_only))
}

async fn loopback_only(request: Request, next: Next) -> Response {
    let from_loopback = request
        .extensions()
        .get::<ConnectInfo<PeerInfo>>()
        .is_some_and(|ConnectInfo(peer)| peer.addr.ip().to_canonical().is_loopback());
    if from_loopback { next.run(request).await } else { error(StatusCode::FORBIDDEN, "Forbidden") }
}

type Reference = Result<Path<String>, PathRejection>;
type Body = Result<Bytes, BytesRejection>;

fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "Transaction not found")
}

/// Stores the object as given (each field's JSON text kept exactly), replacing any
/// transaction with the same `tx_ref`. Verify then answers with exactly this object.
async fn seed_transaction(State(state): State<AppState>, body: Body) -> Response {
    let body = match body {
        Ok(body) => body,
        Err(rejection) => return body_rejection(&rejection),
    };
    let Ok(object) = RawObject::parse(&body) else {
        return error(StatusCode::BAD_REQUEST, "Invalid request body");
    };
    let Some(tx_ref) = object.get_str("tx_ref") else {
        return error(StatusCode::BAD_REQUEST, "tx_ref must be a string");
    };
    let response = success(StatusCode::CREATED, "Transaction stored", &object);
    state.store.put(tx_ref, object);
    response
}

async fn get_transaction(State(state): State<AppState>, reference: Reference) -> Response {
    let Ok(Path(reference)) = reference else {
        return not_found();
    };
    match state.store.get(&reference) {
        Some(object) => success(StatusCode::OK, "Transaction found", &object),
        None => not_found(),
    }
}

/// Forces a status (any string, documented or not) and refreshes `updated_at` if present.
/// A pending USSD simulation for the transaction then no longer applies unless the status
/// is set back to the one it expects.
async fn set_status(State(state): State<AppState>, reference: Reference, body: Body) -> Response {
    let Ok(Path(reference)) = reference else {
        return not_found();
    };
    let body = match body {
        Ok(body) => body,
        Err(rejection) => return body_rejection(&rejection),
    };
    let Ok(request) = RawObject::parse(&body) else {
        return error(StatusCode::BAD_REQUEST, "Invalid request body");
    };
    let Some(status) = request.get_str("status") else {
        return error(StatusCode::BAD_REQUEST, "status must be a string");
    };
    match state.store.set_status(&reference, &status) {
        Ok(Some(object)) => success(StatusCode::OK, "Status updated", &object),
        Ok(None) => not_found(),
        Err(err) => {
            eprintln!("sika-sandbox: could not set a status: {err}");
            error(StatusCode::INTERNAL_SERVER_ERROR, "Internal error")
        }
    }
}

async fn list_requests(State(state): State<AppState>) -> Response {
    success(StatusCode::OK, "ok", &state.store.requests())
}

async fn clear_requests(State(state): State<AppState>) -> Response {
    state.store.clear_requests();
    success_empty(StatusCode::OK, "Request log cleared")
}

async fn list_webhooks(State(state): State<AppState>) -> Response {
    success(StatusCode::OK, "ok", &state.store.webhooks())
}

/// The answer to a control request that is refused (boxed: a `Response` is large).
type Refusal = Box<Response>;

/// A JSON object body, or the answer to give instead.
fn object_body(body: Body) -> Result<Map<String, Value>, Refusal> {
    let body = body.map_err(|rejection| Box::new(body_rejection(&rejection)))?;
    match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Object(object)) => Ok(object),
        _ => Err(bad_request("Invalid request body")),
    }
}

/// The first field not in `known`, as a 400.
fn reject_unknown(object: &Map<String, Value>, known: &[&str], what: &str) -> Result<(), Refusal> {
    match object.keys().find(|key| !known.contains(&key.as_str())) {
        Some(key) => Err(bad_request(&format!("Unknown {what} {key:?}"))),
        None => Ok(()),
    }
}

fn bad_request(message: &str) -> Refusal {
    Box::new(error(StatusCode::BAD_REQUEST, message))
}

async fn add_fault(State(state): State<AppState>, body: Body) -> Response {
    let body = match body {
        Ok(body) => body,
        Err(rejection) => return body_rejection(&rejection),
    };
    match Fault::parse(&body) {
        Ok((fault, count)) => {
            let id = state.store.add_fault(fault, count);
            let described = state.store.faults().into_iter().find(|f| f["id"] == id);
            success(StatusCode::CREATED, "Fault added", &described.unwrap_or_else(|| serde_json::json!({ "id": id })))
        }
        Err(message) => error(StatusCode::BAD_REQUEST, &message),
    }
}

async fn list_faults(State(state): State<AppState>) -> Response {
    success(StatusCode::OK, "ok", &state.store.faults())
}

async fn clear_faults(State(state): State<AppState>) -> Response {
    state.store.clear_faults();
    success_empty(StatusCode::OK, "Faults cleared")
}

/// The settings as the control API shows them.
#[derive(Serialize)]
struct SettingsView {
    webhook_url: Option<String>,
    confirm_after_ms: u64,
    webhook_repeat: u32,
    webhook_retry_ms: Vec<u64>,
}

impl From<Settings> for SettingsView {
    fn from(settings: Settings) -> Self {
        Self {
            webhook_url: settings.webhook.as_ref().map(|target| target.url().to_owned()),
            confirm_after_ms: u64::try_from(settings.confirm_after.as_millis()).unwrap_or(u64::MAX),
            webhook_repeat: settings.webhook_repeat,
            webhook_retry_ms: settings
                .webhook_retry
                .iter()
                .map(|wait| u64::try_from(wait.as_millis()).unwrap_or(u64::MAX))
                .collect(),
        }
    }
}

async fn get_settings(State(state): State<AppState>) -> Response {
    success(StatusCode::OK, "ok", &SettingsView::from(state.settings()))
}

/// Changes any of the settings, all or none: every field is checked before anything changes.
async fn update_settings(State(state): State<AppState>, body: Body) -> Response {
    let change = match SettingsChange::parse(body) {
        Ok(change) => change,
        Err(response) => return *response,
    };
    let settings = state.update_settings(|settings| {
        if let Some(webhook) = change.webhook {
            settings.webhook = webhook;
        }
        if let Some(confirm_after) = change.confirm_after {
            settings.confirm_after = confirm_after;
        }
        if let Some(repeat) = change.webhook_repeat {
            settings.webhook_repeat = repeat;
        }
        if let Some(retry) = change.webhook_retry {
            settings.webhook_retry = retry;
        }
    });
    success(StatusCode::OK, "Settings updated", &SettingsView::from(settings))
}

/// The fields of `POST /__sandbox/settings`; `None` leaves a setting as it is.
struct SettingsChange {
    /// `Some(None)`: no more webhooks.
    webhook: Option<Option<WebhookTarget>>,
    confirm_after: Option<Duration>,
    webhook_repeat: Option<u32>,
    webhook_retry: Option<Vec<Duration>>,
}

impl SettingsChange {
    fn parse(body: Body) -> Result<Self, Refusal> {
        let object = object_body(body)?;
        reject_unknown(&object, &["webhook_url", "confirm_after_ms", "webhook_repeat", "webhook_retry_ms"], "setting")?;
        let webhook = match object.get("webhook_url") {
            None => None,
            Some(Value::Null) => Some(None),
            Some(Value::String(url)) => Some(Some(
                WebhookTarget::loopback(url)
                    .map_err(|reason| bad_request(&format!("Invalid webhook_url: {reason}")))?,
            )),
            Some(_) => return Err(bad_request("webhook_url must be a string or null")),
        };
        let confirm_after = object
            .get("confirm_after_ms")
            .map(|value| {
                value
                    .as_u64()
                    .map(Duration::from_millis)
                    .ok_or_else(|| bad_request("confirm_after_ms must be a non-negative integer"))
            })
            .transpose()?;
        let webhook_repeat = object
            .get("webhook_repeat")
            .map(|value| {
                value.as_u64().and_then(|n| u32::try_from(n).ok()).filter(|n| *n <= MAX_WEBHOOK_REPEAT).ok_or_else(
                    || bad_request(&format!("webhook_repeat must be an integer from 0 to {MAX_WEBHOOK_REPEAT}")),
                )
            })
            .transpose()?;
        let webhook_retry = object.get("webhook_retry_ms").map(retry_schedule).transpose()?;
        Ok(Self { webhook, confirm_after, webhook_repeat, webhook_retry })
    }
}

/// `webhook_retry_ms`: an array of waits in milliseconds, checked as the command line's.
fn retry_schedule(value: &Value) -> Result<Vec<Duration>, Refusal> {
    let refuse = |reason: &str| bad_request(&format!("webhook_retry_ms must be an array of milliseconds: {reason}"));
    let waits = value.as_array().ok_or_else(|| refuse("not an array"))?;
    let text = waits
        .iter()
        .map(|wait| wait.as_u64().map(|ms| ms.to_string()).ok_or_else(|| refuse("not a non-negative integer")))
        .collect::<Result<Vec<_>, _>>()?
        .join(",");
    webhook::parse_retry_schedule(&text).map_err(|reason| refuse(&reason))
}

/// A string field: `Ok(None)` when absent or null, a 400 when of another type.
fn string_field(object: &Map<String, Value>, name: &str) -> Result<Option<String>, Refusal> {
    match object.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(bad_request(&format!("{name} must be a string"))),
    }
}

/// Delivers a notification now, whatever the transaction's status, or whether it exists.
async fn send_webhook(State(state): State<AppState>, body: Body) -> Response {
    let (target, notification) = match forced_notification(&state, body) {
        Ok(parsed) => parsed,
        Err(response) => return *response,
    };
    let attempts = webhook::deliver_now(&state, &target, notification).await;
    success(StatusCode::OK, "Webhook sent", &attempts)
}

/// Reads `{"reference", "event"?, "times"?, "url"?, "body"?}`: where to send what.
fn forced_notification(state: &AppState, body: Body) -> Result<(WebhookTarget, Notification), Refusal> {
    let object = object_body(body)?;
    reject_unknown(&object, &["reference", "event", "times", "concurrent", "url", "body"], "field")?;
    let reference = string_field(&object, "reference")?;
    let event = string_field(&object, "event")?.unwrap_or_else(|| CHARGE_SUCCESS.to_owned());
    let times = match object.get("times") {
        None | Some(Value::Null) => 1,
        Some(value) => value
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| (1..=MAX_WEBHOOK_REPEAT).contains(n))
            .ok_or_else(|| bad_request(&format!("times must be an integer from 1 to {MAX_WEBHOOK_REPEAT}")))?,
    };
    let body = match (string_field(&object, "body")?, &reference) {
        (Some(raw), _) => raw.into_bytes(),
        (None, Some(reference)) => webhook::event_body(&event, reference).map_err(|err| {
            eprintln!("sika-sandbox: could not build a webhook body: {err}");
            Box::new(error(StatusCode::INTERNAL_SERVER_ERROR, "Internal error"))
        })?,
        (None, None) => return Err(bad_request("reference must be a string")),
    };
    let target = match string_field(&object, "url")? {
        Some(url) => WebhookTarget::loopback(&url).map_err(|reason| bad_request(&format!("Invalid url: {reason}")))?,
        None => state.settings().webhook.ok_or_else(|| bad_request("No webhook URL configured"))?,
    };
    let concurrent = match object.get("concurrent") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(concurrent)) => *concurrent,
        Some(_) => return Err(bad_request("concurrent must be a boolean")),
    };
    Ok((target, Notification { event, reference, body, times, concurrent }))
}

async fn reset(State(state): State<AppState>) -> Response {
    state.store.reset();
    success_empty(StatusCode::OK, "Sandbox reset")
}

#[derive(Serialize)]
struct ConnectionCounts {
    open: u64,
    accepted: u64,
}

#[derive(Serialize)]
struct RouteEntry {
    method: String,
    path: &'static str,
}

/// The service's operations as the router serves them (`crate::app::api_operations`): what a
/// test iterates to cover every route, and compares with the OpenAPI document's.
async fn routes() -> Response {
    let routes: Vec<RouteEntry> =
        crate::app::api_operations().into_iter().map(|(method, path)| RouteEntry { method, path }).collect();
    success(StatusCode::OK, "Routes", &routes)
}

async fn connections(State(state): State<AppState>) -> Response {
    let counts = ConnectionCounts { open: state.connections.open(), accepted: state.connections.accepted() };
    success(StatusCode::OK, "Connections", &counts)
}
