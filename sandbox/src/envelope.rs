//! The response envelope every endpoint uses: `{"status": bool, "message": string, "data": ...}`,
//! always `content-type: application/json`, with `"data": null` on errors.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

#[derive(Serialize)]
struct Envelope<'a, T: Serialize> {
    status: bool,
    message: &'a str,
    data: Option<T>,
}

/// A success envelope carrying `data`.
pub fn success<T: Serialize>(code: StatusCode, message: &str, data: &T) -> Response {
    render(code, &Envelope { status: true, message, data: Some(data) })
}

/// A success envelope with `"data": null` (for control actions that return nothing).
pub fn success_empty(code: StatusCode, message: &str) -> Response {
    render::<()>(code, &Envelope { status: true, message, data: None })
}

/// An error envelope: `{"status":false,"message":...,"data":null}`.
pub fn error(code: StatusCode, message: &str) -> Response {
    render::<()>(code, &Envelope { status: false, message, data: None })
}

fn render<T: Serialize>(code: StatusCode, envelope: &Envelope<'_, T>) -> Response {
    match serde_json::to_vec(envelope) {
        Ok(body) => json_response(code, body),
        Err(err) => {
            eprintln!("sika-sandbox: could not serialise a response: {err}");
            json_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                br#"{"status":false,"message":"Internal error","data":null}"#.to_vec(),
            )
        }
    }
}

fn json_response(code: StatusCode, body: Vec<u8>) -> Response {
    let mut response = (code, body).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The answer to a body that could not be read: 413 when it was too large, 400 otherwise.
pub fn body_rejection(rejection: &axum::extract::rejection::BytesRejection) -> Response {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        error(StatusCode::PAYLOAD_TOO_LARGE, "Request body too large")
    } else {
        error(StatusCode::BAD_REQUEST, "Invalid request body")
    }
}
