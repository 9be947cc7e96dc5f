//! The control API under `/__sandbox/`: lets tests seed and inspect transactions, force a
//! status, read what clients sent, read webhook attempts, and reset everything.
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
//! | `POST /__sandbox/reset` | | 200, data null |

use std::net::SocketAddr;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};

use crate::app::method_not_allowed;
use crate::envelope::{body_rejection, error, success, success_empty};
use crate::raw_object::RawObject;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/__sandbox/transactions", post(seed_transaction))
        .route("/__sandbox/transactions/{reference}", get(get_transaction))
        .route("/__sandbox/transactions/{reference}/status", post(set_status))
        .route("/__sandbox/requests", get(list_requests).delete(clear_requests))
        .route("/__sandbox/webhooks", get(list_webhooks))
        .route("/__sandbox/reset", post(reset))
        .method_not_allowed_fallback(method_not_allowed)
        .route_layer(middleware::from_fn(loopback_only))
}

async fn loopback_only(request: Request, next: Next) -> Response {
    let from_loopback = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .is_some_and(|ConnectInfo(peer)| peer.ip().to_canonical().is_loopback());
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

async fn reset(State(state): State<AppState>) -> Response {
    state.store.reset();
    success_empty(StatusCode::OK, "Sandbox reset")
}
