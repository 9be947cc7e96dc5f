//! Fault injection: `POST /__sandbox/faults` queues a misbehaviour for the next `count` API
//! requests whose wire path starts with `path` (and whose method is `method`, if given).
//!
//! Faults are checked in the order they were added; a request uses up one request's worth of
//! the first fault that matches it, and at most one. Faulted requests are still in the
//! request log (so tests can count retries); control requests are never faulted. A fault
//! applies before authentication (it stands for the network or a proxy in front of the
//! service), but the kinds that run the real operation run it with its usual checks.
//!
//! | kind | what the client gets | real operation runs |
//! |---|---|---|
//! | `status` | HTTP `status` (default 500) with `body` (default the error envelope, `Service unavailable` or for 429 `Too many requests`), `content_type` (default `application/json`, `null` for none), `retry_after` (seconds or any text, as `Retry-After`) | no |
//! | `delay` | the normal answer, after `delay_ms` | yes, after the delay |
//! | `reset` | the connection closed (TCP reset) without a byte of response | no |
//! | `hang` | nothing, ever: the connection stays open until the client gives up | no |
//! | `after_processing` | `then: "status"` (default; `status`, `body`, `content_type`, `retry_after` as for `status`) or `then: "reset"`, after the real answer was produced and thrown away | yes |
//! | `body` | HTTP `status` (default 200) with exactly `body` (text) or `body_base64` (bytes), `content_type` (default `application/json`, `null` for none) | no |
//! | `truncate` | a `Content-Length` of the whole body but only `send_bytes` of it (default half), then the connection closes; the body is the real answer, or `body`/`body_base64` | only without `body` |
//! | `drip` | the body `chunk_bytes` (default 4) at a time, every `interval_ms` (default 100); the real answer, or `body`/`body_base64` (with `status`, `content_type`) | only without `body` |
//! | `huge` | a valid verify answer of `size_bytes`, generated as it is sent; `Content-Length` declared unless `chunked: true` | no |
//! | `deep_json` | a verify-like envelope whose `data` is nested `depth` levels (default 10 000) of `nest: "array"` (default) or `"object"` | no |
//! | `duplicate_keys` | a 200 verify answer whose `data` has `status` twice: `first` (default `failed`) where it belongs, `second` (default `successful`) last; `data` is the real answer's when it has one, else a minimal transaction for the path's last segment | yes |
//! | `close_after_answer` | the normal answer (no `Connection: close`), then the connection closed (FIN), as a proxy's keep-alive timeout closes an idle connection | yes |
//! | `non_utf8` | a 200 `application/json` body with bytes that are not UTF-8 | no |
//! | `echo_key` | `body` with `{key}` replaced by the request's bearer key and `{key_tail}` by that key without its first 3 characters (B50) | no |
//! | `request_id` | the normal answer with `X-Request-Id: request_id` instead of the sandbox's own id; in the text `{key}` is replaced by the request's bearer key and `{long}` by `long_chars` (at most 64 Mi) letters `x`; any character but CR, LF and NUL..US other than tab (sent as UTF-8 bytes): a hostile request id (B206) | yes |
//! | `long_text` | HTTP `status` (default 200) with `body` whose `{long}` is replaced by `long_chars` (at most 64 Mi) letters `x`: a service text of any length (B64) | no |

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::{Map, Value};

use crate::app::is_control_path;
use crate::envelope::error;
use crate::listener::{ConnectionControl, PeerInfo};
use crate::paced::{DEFAULT_CHUNK, HugeDocument, PacedReader, Source};
use crate::raw_object::RawObject;
use crate::state::AppState;

/// The most requests one fault can be counted for.
const MAX_COUNT: u64 = 1_000_000_000;
/// The longest `delay_ms` and `interval_ms` accepted: one hour.
const MAX_DELAY_MS: u64 = 3_600_000;
/// The deepest `deep_json` accepted (the body is built in memory: 2 bytes a level for arrays).
const MAX_DEPTH: u64 = 1_000_000;
/// The largest `huge` body accepted (1 TiB: it is generated, never held).
const MAX_HUGE: u64 = 1 << 40;
/// The most characters `long_text` puts in place of `{long}` (the body is built in memory).
const MAX_LONG_CHARS: u64 = 64 * 1024 * 1024;
/// The largest real answer read back for `drip`, `truncate` and `duplicate_keys`.
const MAX_REAL_ANSWER: usize = 16 * 1024 * 1024;

/// One fault, as added.
#[derive(Debug)]
pub struct Fault {
    path: String,
    method: Option<Method>,
    kind: Kind,
    /// The object the test sent, shown back by the control API.
    given: Map<String, Value>,
}

/// A fixed answer: status, body and the headers that go with it.
#[derive(Debug, Clone)]
struct Canned {
    status: StatusCode,
    body: Bytes,
    content_type: Option<HeaderValue>,
    retry_after: Option<HeaderValue>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Nest {
    Array,
    Object,
}

#[derive(Debug)]
enum Kind {
    Status(Canned),
    Delay(Duration),
    Reset,
    Hang,
    AfterProcessing(Option<Canned>),
    Body(Canned),
    Truncate {
        body: Option<Canned>,
        send_bytes: Option<u64>,
    },
    Drip {
        body: Option<Canned>,
        chunk_bytes: usize,
        interval: Duration,
    },
    Huge {
        size_bytes: u64,
        chunked: bool,
    },
    DeepJson {
        depth: usize,
        nest: Nest,
    },
    DuplicateKeys {
        first: String,
        second: String,
    },
    NonUtf8,
    /// The canned answer with `{key}` in its body replaced by the request's bearer key and
    /// `{key_tail}` by that key without its first 3 characters: a service echoing the key,
    /// whole or cut, into its text (behaviour B50).
    EchoKey(Canned),
    CloseAfterAnswer,
    /// The real answer with this `X-Request-Id` (`{key}` replaced at answer time).
    RequestId(String),
}

/// Fields every fault may have.
const COMMON_FIELDS: [&str; 4] = ["path", "method", "count", "kind"];

/// The options each kind accepts (anything else is refused, to catch typos in tests).
fn options_of(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "status" => &["status", "body", "content_type", "retry_after"],
        "delay" => &["delay_ms"],
        "reset" | "hang" | "non_utf8" | "close_after_answer" => &[],
        "after_processing" => &["then", "status", "body", "content_type", "retry_after"],
        "body" => &["status", "body", "body_base64", "content_type"],
        "truncate" => &["send_bytes", "status", "body", "body_base64", "content_type"],
        "drip" => &["chunk_bytes", "interval_ms", "status", "body", "body_base64", "content_type"],
        "huge" => &["size_bytes", "chunked"],
        "deep_json" => &["depth", "nest"],
        "duplicate_keys" => &["first", "second"],
        "echo_key" => &["status", "body", "content_type"],
        "long_text" => &["status", "body", "long_chars", "content_type"],
        "request_id" => &["request_id", "long_chars"],
        _ => return None,
    })
}

/// Reads a fault object's fields; `null` counts as absent except where it means something.
struct Fields<'a>(&'a Map<String, Value>);

impl Fields<'_> {
    fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name).filter(|value| !value.is_null())
    }

    fn string(&self, name: &str) -> Result<Option<String>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(format!("{name} must be a string")),
        }
    }

    fn integer(&self, name: &str, min: u64, max: u64) -> Result<Option<u64>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(value) => match value.as_u64() {
                Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
                _ => Err(format!("{name} must be an integer from {min} to {max}")),
            },
        }
    }

    fn boolean(&self, name: &str) -> Result<Option<bool>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(format!("{name} must be a boolean")),
        }
    }

    fn status(&self, default: u16) -> Result<StatusCode, String> {
        let code = self.integer("status", 200, 599)?.unwrap_or(u64::from(default));
        u16::try_from(code)
            .ok()
            .and_then(|code| StatusCode::from_u16(code).ok())
            .ok_or_else(|| "status must be an integer from 200 to 599".to_owned())
    }

    /// `content_type`: absent means `application/json`, `null` means no header at all.
    fn content_type(&self) -> Result<Option<HeaderValue>, String> {
        match self.0.get("content_type") {
            None => Ok(Some(HeaderValue::from_static("application/json"))),
            Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => {
                HeaderValue::from_str(text).map(Some).map_err(|_| "content_type is not a valid header value".to_owned())
            }
            Some(_) => Err("content_type must be a string or null".to_owned()),
        }
    }

    /// `retry_after`: whole seconds, or any text (an HTTP date, or garbage for parser tests).
    fn retry_after(&self) -> Result<Option<HeaderValue>, String> {
        let text = match self.get("retry_after") {
            None => return Ok(None),
            Some(Value::String(text)) => text.clone(),
            Some(value) if value.is_u64() => value.to_string(),
            Some(_) => return Err("retry_after must be a non-negative integer or a string".to_owned()),
        };
        HeaderValue::from_str(&text).map(Some).map_err(|_| "retry_after is not a valid header value".to_owned())
    }

    /// `body` (text) or `body_base64` (bytes), not both.
    fn body_bytes(&self) -> Result<Option<Bytes>, String> {
        match (self.string("body")?, self.string("body_base64")?) {
            (Some(_), Some(_)) => Err("give body or body_base64, not both".to_owned()),
            (Some(text), None) => Ok(Some(Bytes::from(text))),
            (None, Some(encoded)) => decode_base64(&encoded)
                .map(|bytes| Some(Bytes::from(bytes)))
                .ok_or_else(|| "body_base64 is not valid base64".to_owned()),
            (None, None) => Ok(None),
        }
    }

    /// The answer of `status` and `after_processing`: the error envelope unless `body` says
    /// otherwise.
    fn error_answer(&self) -> Result<Canned, String> {
        let status = self.status(500)?;
        let body = match self.string("body")? {
            Some(text) => Bytes::from(text),
            None if status == StatusCode::TOO_MANY_REQUESTS => {
                Bytes::from_static(br#"{"status":false,"message":"Too many requests","data":null}"#)
            }
            None => Bytes::from_static(br#"{"status":false,"message":"Service unavailable","data":null}"#),
        };
        Ok(Canned { status, body, content_type: self.content_type()?, retry_after: self.retry_after()? })
    }

    /// The explicit body of `truncate` and `drip`, if any.
    fn explicit_body(&self) -> Result<Option<Canned>, String> {
        let Some(body) = self.body_bytes()? else {
            for name in ["status", "content_type"] {
                if self.0.contains_key(name) {
                    return Err(format!("{name} only goes with body or body_base64"));
                }
            }
            return Ok(None);
        };
        Ok(Some(Canned { status: self.status(200)?, body, content_type: self.content_type()?, retry_after: None }))
    }
}

impl Fault {
    /// Parses the body of `POST /__sandbox/faults`; returns the fault and its `count`, or the
    /// message of a 400.
    pub fn parse(body: &[u8]) -> Result<(Self, u64), String> {
        let Ok(Value::Object(given)) = serde_json::from_slice::<Value>(body) else {
            return Err("Invalid request body".to_owned());
        };
        let fields = Fields(&given);
        let path = fields.string("path")?.ok_or("path must be a string")?;
        if !path.starts_with('/') {
            return Err("path must start with /".to_owned());
        }
        if is_control_path(&path) {
            return Err("the control API cannot be faulted".to_owned());
        }
        let method = match fields.string("method")? {
            None => None,
            Some(text) => Some(
                Method::from_bytes(text.to_ascii_uppercase().as_bytes())
                    .map_err(|_| "method is not a valid HTTP method".to_owned())?,
            ),
        };
        let count = fields.integer("count", 1, MAX_COUNT)?.unwrap_or(1);
        let kind_name = fields.string("kind")?.ok_or("kind must be a string")?;
        let options = options_of(&kind_name).ok_or_else(|| format!("Unknown kind {kind_name:?}"))?;
        if let Some(unknown) =
            given.keys().find(|k| !COMMON_FIELDS.contains(&k.as_str()) && !options.contains(&k.as_str()))
        {
            return Err(format!("Unknown field {unknown:?} for kind {kind_name:?}"));
        }
        let kind = Self::parse_kind(&kind_name, &fields)?;
        Ok((Self { path, method, kind, given: given.clone() }, count))
    }

    fn parse_kind(kind: &str, fields: &Fields<'_>) -> Result<Kind, String> {
        Ok(match kind {
            "status" => Kind::Status(fields.error_answer()?),
            "delay" => {
                let ms = fields.integer("delay_ms", 0, MAX_DELAY_MS)?.ok_or("delay_ms is required")?;
                Kind::Delay(Duration::from_millis(ms))
            }
            "reset" => Kind::Reset,
            "hang" => Kind::Hang,
            "after_processing" => match fields.string("then")?.as_deref() {
                None | Some("status") => Kind::AfterProcessing(Some(fields.error_answer()?)),
                Some("reset") => {
                    if let Some(name) = ["status", "body", "content_type", "retry_after"]
                        .into_iter()
                        .find(|name| fields.0.contains_key(*name))
                    {
                        return Err(format!("{name} does not go with then: reset"));
                    }
                    Kind::AfterProcessing(None)
                }
                Some(_) => return Err(r#"then must be "status" or "reset""#.to_owned()),
            },
            "body" => Kind::Body(Canned {
                status: fields.status(200)?,
                body: fields.body_bytes()?.unwrap_or_default(),
                content_type: fields.content_type()?,
                retry_after: None,
            }),
            "echo_key" => Kind::EchoKey(Canned {
                status: fields.status(200)?,
                body: fields.body_bytes()?.ok_or("body is required")?,
                content_type: fields.content_type()?,
                retry_after: None,
            }),
            "long_text" => {
                let template = fields.string("body")?.ok_or("body is required")?;
                if !template.contains("{long}") {
                    return Err("body must contain {long}".to_owned());
                }
                let chars = fields.integer("long_chars", 0, MAX_LONG_CHARS)?.ok_or("long_chars is required")?;
                let long = "x".repeat(usize::try_from(chars).map_err(|_| "long_chars is too large")?);
                Kind::Body(Canned {
                    status: fields.status(200)?,
                    body: Bytes::from(template.replace("{long}", &long)),
                    content_type: fields.content_type()?,
                    retry_after: None,
                })
            }
            "truncate" => {
                let body = fields.explicit_body()?;
                let send_bytes = fields.integer("send_bytes", 0, u64::MAX)?;
                if let (Some(body), Some(send)) = (&body, send_bytes) {
                    if send >= body.body.len() as u64 {
                        return Err("send_bytes must be less than the body's length".to_owned());
                    }
                }
                if body.as_ref().is_some_and(|b| b.body.is_empty()) {
                    return Err("an empty body cannot be truncated".to_owned());
                }
                Kind::Truncate { body, send_bytes }
            }
            "drip" => {
                let chunk = fields.integer("chunk_bytes", 1, DEFAULT_CHUNK as u64)?.unwrap_or(4);
                let interval = fields.integer("interval_ms", 0, MAX_DELAY_MS)?.unwrap_or(100);
                Kind::Drip {
                    body: fields.explicit_body()?,
                    chunk_bytes: usize::try_from(chunk).unwrap_or(DEFAULT_CHUNK),
                    interval: Duration::from_millis(interval),
                }
            }
            "huge" => Kind::Huge {
                size_bytes: fields.integer("size_bytes", 0, MAX_HUGE)?.ok_or("size_bytes is required")?,
                chunked: fields.boolean("chunked")?.unwrap_or(false),
            },
            "deep_json" => Kind::DeepJson {
                depth: usize::try_from(fields.integer("depth", 1, MAX_DEPTH)?.unwrap_or(10_000)).unwrap_or(10_000),
                nest: match fields.string("nest")?.as_deref() {
                    None | Some("array") => Nest::Array,
                    Some("object") => Nest::Object,
                    Some(_) => return Err(r#"nest must be "array" or "object""#.to_owned()),
                },
            },
            "duplicate_keys" => Kind::DuplicateKeys {
                first: fields.string("first")?.unwrap_or_else(|| "failed".to_owned()),
                second: fields.string("second")?.unwrap_or_else(|| "successful".to_owned()),
            },
            "request_id" => {
                let template = fields.string("request_id")?.ok_or("request_id is required")?;
                let chars = fields.integer("long_chars", 0, MAX_LONG_CHARS)?.unwrap_or(0);
                let long = "x".repeat(usize::try_from(chars).map_err(|_| "long_chars is too large")?);
                let text = template.replace("{long}", &long);
                if HeaderValue::from_bytes(text.replace("{key}", "k").as_bytes()).is_err() {
                    return Err("request_id cannot be sent as a header value".to_owned());
                }
                Kind::RequestId(text)
            }
            "non_utf8" => Kind::NonUtf8,
            "close_after_answer" => Kind::CloseAfterAnswer,
            _ => return Err(format!("Unknown kind {kind:?}")),
        })
    }

    /// Whether this fault applies to a request with this method and wire path.
    pub fn matches(&self, method: &str, path: &str) -> bool {
        path.starts_with(&self.path) && self.method.as_ref().is_none_or(|m| m.as_str() == method)
    }

    /// The fault as the control API shows it: what was sent, with its id, the requests it
    /// still applies to (`count`) and `method` (`null` for any).
    pub fn describe(&self, id: u64, remaining: u64) -> Value {
        let mut object = self.given.clone();
        object.insert("id".to_owned(), Value::from(id));
        object.insert("count".to_owned(), Value::from(remaining));
        object.insert("method".to_owned(), self.method.as_ref().map_or(Value::Null, |m| Value::from(m.as_str())));
        Value::Object(object)
    }
}

/// Middleware (inside the request log, outside everything else): applies the first matching
/// fault, if any, to an API request.
pub async fn inject(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if is_control_path(path) {
        return next.run(request).await;
    }
    match state.store.take_fault(request.method().as_str(), path) {
        Some(fault) => apply(&fault, request, next).await,
        None => next.run(request).await,
    }
}

async fn apply(fault: &Fault, request: Request, next: Next) -> Response {
    let control = request.extensions().get::<ConnectInfo<PeerInfo>>().map(|ConnectInfo(peer)| peer.control.clone());
    match &fault.kind {
        Kind::Status(answer) | Kind::Body(answer) => canned(answer),
        Kind::EchoKey(answer) => canned(&echo_key(answer, &request)),
        Kind::RequestId(text) => {
            let text = text.replace("{key}", bearer_key(&request));
            let mut response = next.run(request).await;
            if let Ok(value) = HeaderValue::from_bytes(text.as_bytes()) {
                response.headers_mut().insert(crate::request_id::HEADER, value);
            }
            response
        }
        Kind::Delay(delay) => {
            tokio::time::sleep(*delay).await;
            next.run(request).await
        }
        Kind::Reset => reset(control.as_ref()),
        Kind::Hang => hang(request).await,
        Kind::CloseAfterAnswer => {
            match &control {
                Some(control) => control.close_after_answer(),
                None => eprintln!("sika-sandbox: no connection control for a close_after_answer fault"),
            }
            next.run(request).await
        }
        Kind::AfterProcessing(then) => {
            drop(next.run(request).await);
            match then {
                Some(answer) => canned(answer),
                None => reset(control.as_ref()),
            }
        }
        Kind::Truncate { body, send_bytes } => {
            let (status, content_type, bytes) = match body {
                Some(answer) => (answer.status, answer.content_type.clone(), answer.body.clone()),
                None => match real_answer(request, next).await {
                    Ok(real) => real,
                    Err(response) => return response,
                },
            };
            let length = bytes.len() as u64;
            let send = send_bytes.unwrap_or(length / 2).min(length.saturating_sub(1));
            let reader = PacedReader::new(Source::Bytes(bytes), send, DEFAULT_CHUNK, None, true);
            streamed(status, content_type, reader, Some(length))
        }
        Kind::Drip { body, chunk_bytes, interval } => {
            let (status, content_type, bytes) = match body {
                Some(answer) => (answer.status, answer.content_type.clone(), answer.body.clone()),
                None => match real_answer(request, next).await {
                    Ok(real) => real,
                    Err(response) => return response,
                },
            };
            let length = bytes.len() as u64;
            let reader = PacedReader::new(Source::Bytes(bytes), length, *chunk_bytes, Some(*interval), false);
            streamed(status, content_type, reader, Some(length))
        }
        Kind::Huge { size_bytes, chunked } => {
            let source = Source::Huge(HugeDocument::new(*size_bytes));
            let length = source.len();
            let reader = PacedReader::new(source, length, DEFAULT_CHUNK, None, false);
            let json = Some(HeaderValue::from_static("application/json"));
            streamed(StatusCode::OK, json, reader, (!chunked).then_some(length))
        }
        Kind::DeepJson { depth, nest } => json_bytes(StatusCode::OK, deep_json(*depth, *nest)),
        Kind::DuplicateKeys { first, second } => duplicate_keys(request, next, first, second).await,
        Kind::NonUtf8 => json_bytes(
            StatusCode::OK,
            b"{\"status\":true,\"message\":\"Verification successful\",\"data\":{\"tx_ref\":\"\xff\xfe\xfd\",\"status\":\"successful\"}}"
                .to_vec(),
        ),
    }
}

/// The request's bearer key, or empty.
fn bearer_key(request: &Request) -> &str {
    request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .unwrap_or_default()
}

fn echo_key(answer: &Canned, request: &Request) -> Canned {
    let key = bearer_key(request);
    let tail: String = key.chars().skip(3).collect();
    let body = String::from_utf8_lossy(&answer.body).replace("{key_tail}", &tail).replace("{key}", key);
    Canned { body: Bytes::from(body), ..answer.clone() }
}

fn canned(answer: &Canned) -> Response {
    let mut response = Response::new(Body::from(answer.body.clone()));
    *response.status_mut() = answer.status;
    if let Some(content_type) = &answer.content_type {
        response.headers_mut().insert(header::CONTENT_TYPE, content_type.clone());
    }
    if let Some(retry_after) = &answer.retry_after {
        response.headers_mut().insert(header::RETRY_AFTER, retry_after.clone());
    }
    response
}

fn json_bytes(status: StatusCode, body: Vec<u8>) -> Response {
    canned(&Canned {
        status,
        body: Bytes::from(body),
        content_type: Some(HeaderValue::from_static("application/json")),
        retry_after: None,
    })
}

/// Closes the connection without a response: the response returned here is never written.
fn reset(control: Option<&Arc<ConnectionControl>>) -> Response {
    match control {
        Some(control) => {
            control.abort();
            error(StatusCode::INTERNAL_SERVER_ERROR, "Connection reset")
        }
        None => {
            eprintln!("sika-sandbox: no connection control for a reset fault");
            error(StatusCode::INTERNAL_SERVER_ERROR, "Internal error")
        }
    }
}

/// Never answers. The request body is read first, so that hyper keeps watching the socket
/// and drops this future as soon as the client closes the connection.
async fn hang(request: Request) -> Response {
    let _ = axum::body::to_bytes(request.into_body(), MAX_REAL_ANSWER).await;
    std::future::pending::<Response>().await
}

/// Runs the real operation and reads its answer back: (status, content-type, body).
async fn real_answer(request: Request, next: Next) -> Result<(StatusCode, Option<HeaderValue>, Bytes), Response> {
    let (parts, body) = next.run(request).await.into_parts();
    match axum::body::to_bytes(body, MAX_REAL_ANSWER).await {
        Ok(bytes) => Ok((parts.status, parts.headers.get(header::CONTENT_TYPE).cloned(), bytes)),
        Err(err) => {
            eprintln!("sika-sandbox: could not read back an answer for a fault: {err}");
            Err(error(StatusCode::INTERNAL_SERVER_ERROR, "Internal error"))
        }
    }
}

/// A response whose body comes from `reader`, with a declared `Content-Length` when given.
fn streamed(
    status: StatusCode,
    content_type: Option<HeaderValue>,
    reader: PacedReader,
    length: Option<u64>,
) -> Response {
    let mut response = Response::new(reader.into_body());
    *response.status_mut() = status;
    if let Some(content_type) = content_type {
        response.headers_mut().insert(header::CONTENT_TYPE, content_type);
    }
    if let Some(length) = length {
        response.headers_mut().insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    }
    response
}

/// `{"status":true,"message":"Verification successful","data":[[[...]]]}`, `depth` levels.
fn deep_json(depth: usize, nest: Nest) -> Vec<u8> {
    let (open, leaf, close): (&[u8], &[u8], &[u8]) = match nest {
        Nest::Array => (b"[", b"", b"]"),
        Nest::Object => (br#"{"a":"#, b"null", b"}"),
    };
    let prefix: &[u8] = br#"{"status":true,"message":"Verification successful","data":"#;
    let mut body = Vec::with_capacity(prefix.len() + depth * (open.len() + close.len()) + leaf.len() + 1);
    body.extend_from_slice(prefix);
    for _ in 0..depth {
        body.extend_from_slice(open);
    }
    body.extend_from_slice(leaf);
    for _ in 0..depth {
        body.extend_from_slice(close);
    }
    body.push(b'}');
    body
}

/// A 200 verify answer whose `data` carries `status` twice (see the module docs).
async fn duplicate_keys(request: Request, next: Next, first: &str, second: &str) -> Response {
    let last_segment = request.uri().path().rsplit('/').next().unwrap_or_default().to_owned();
    let data = match real_answer(request, next).await {
        Ok((_, _, bytes)) => RawObject::parse(&bytes)
            .ok()
            .and_then(|envelope| envelope.get("data").and_then(|data| RawObject::parse(data.get().as_bytes()).ok())),
        Err(response) => return response,
    };
    let data = data.unwrap_or_else(|| {
        let reference = percent_encoding::percent_decode_str(&last_segment).decode_utf8_lossy().into_owned();
        let mut object = RawObject::new();
        let _ = object.insert_json("tx_ref", &reference);
        object
    });
    let quoted = |text: &str| serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned());
    let mut fields: Vec<String> = Vec::new();
    let mut placed = false;
    for (name, value) in data.iter() {
        if name == "status" {
            if !placed {
                fields.push(format!("\"status\":{}", quoted(first)));
                placed = true;
            }
        } else {
            fields.push(format!("{}:{}", quoted(name), value.get()));
        }
    }
    if !placed {
        fields.push(format!("\"status\":{}", quoted(first)));
    }
    fields.push(format!("\"status\":{}", quoted(second)));
    let body = format!(r#"{{"status":true,"message":"Verification successful","data":{{{}}}}}"#, fields.join(","));
    json_bytes(StatusCode::OK, body.into_bytes())
}

/// Standard base64 (`+/`, `=` padding optional; whitespace ignored). `None` when invalid.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    fn value(c: u8) -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' | b'-' => Some(62),
            b'/' | b'_' => Some(63),
            _ => None,
        }
    }
    let symbols: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let unpadded = symbols.strip_suffix(b"==").or_else(|| symbols.strip_suffix(b"=")).unwrap_or(&symbols);
    if unpadded.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(unpadded.len() * 3 / 4);
    for group in unpadded.chunks(4) {
        let mut accumulated = 0_u32;
        for &c in group {
            accumulated = (accumulated << 6) | value(c)?;
        }
        let bytes = accumulated.to_be_bytes();
        match group.len() {
            4 => out.extend_from_slice(&bytes[1..4]),
            3 => out.extend_from_slice(&(accumulated << 6).to_be_bytes()[1..3]),
            2 => out.push((accumulated >> 4) as u8),
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Fault, String> {
        Fault::parse(text.as_bytes()).map(|(fault, _)| fault)
    }

    #[test]
    fn b172_base64_round_trips() {
        assert_eq!(decode_base64("").as_deref(), Some(&b""[..]));
        assert_eq!(decode_base64("/w==").as_deref(), Some(&[0xff_u8][..]));
        assert_eq!(decode_base64("/w").as_deref(), Some(&[0xff_u8][..]));
        assert_eq!(decode_base64("aGk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(decode_base64("aGVsbG8gd29ybGQ=").as_deref(), Some(&b"hello world"[..]));
        assert_eq!(decode_base64("AAEC/f7/").as_deref(), Some(&[0, 1, 2, 0xfd, 0xfe, 0xff][..]));
        assert!(decode_base64("a").is_none());
        assert!(decode_base64("a*==").is_none());
        assert!(decode_base64("a=b=").is_none());
    }

    #[test]
    fn b172_faults_parse_and_bad_ones_are_rejected() {
        assert!(parse(r#"{"path":"/bank","kind":"status","status":503,"retry_after":7}"#).is_ok());
        assert!(parse(r#"{"path":"/bank","kind":"status","retry_after":"soon"}"#).is_ok());
        assert!(parse(r#"{"path":"/bank","kind":"status","content_type":null}"#).is_ok());
        assert!(parse(r#"{"path":"/","method":"get","count":3,"kind":"reset"}"#).is_ok());
        assert!(parse(r#"{"path":"/charge","kind":"after_processing","then":"reset"}"#).is_ok());
        assert!(parse(r#"{"path":"/x","kind":"body","body_base64":"/w=="}"#).is_ok());
        assert!(parse(r#"{"path":"/charge","kind":"close_after_answer"}"#).is_ok());
        assert!(parse(r#"{"path":"/x","kind":"long_text","body":"{\"m\":\"{long}\"}","long_chars":10}"#).is_ok());
        for bad in [
            "nope",
            "[]",
            r#"{"kind":"reset"}"#,
            r#"{"path":"bank","kind":"reset"}"#,
            r#"{"path":"/__sandbox/faults","kind":"reset"}"#,
            r#"{"path":"/bank"}"#,
            r#"{"path":"/bank","kind":"explode"}"#,
            r#"{"path":"/bank","kind":"reset","count":0}"#,
            r#"{"path":"/bank","kind":"reset","count":-1}"#,
            r#"{"path":"/bank","kind":"reset","count":1.5}"#,
            r#"{"path":"/bank","kind":"reset","method":"GE T"}"#,
            r#"{"path":"/bank","kind":"reset","status":500}"#,
            r#"{"path":"/bank","kind":"status","status":99}"#,
            r#"{"path":"/bank","kind":"status","status":600}"#,
            r#"{"path":"/bank","kind":"status","retry_after":-1}"#,
            r#"{"path":"/bank","kind":"status","retry_after":"a\nb"}"#,
            r#"{"path":"/bank","kind":"status","content_type":5}"#,
            r#"{"path":"/bank","kind":"delay"}"#,
            r#"{"path":"/bank","kind":"delay","delay_ms":3600001}"#,
            r#"{"path":"/bank","kind":"after_processing","then":"explode"}"#,
            r#"{"path":"/bank","kind":"after_processing","then":"reset","status":500}"#,
            r#"{"path":"/bank","kind":"body","body":"a","body_base64":"YQ=="}"#,
            r#"{"path":"/bank","kind":"body","body_base64":"!!"}"#,
            r#"{"path":"/bank","kind":"truncate","body":"abc","send_bytes":3}"#,
            r#"{"path":"/bank","kind":"truncate","body":""}"#,
            r#"{"path":"/bank","kind":"truncate","status":200}"#,
            r#"{"path":"/bank","kind":"drip","chunk_bytes":0}"#,
            r#"{"path":"/bank","kind":"huge"}"#,
            r#"{"path":"/bank","kind":"deep_json","depth":0}"#,
            r#"{"path":"/bank","kind":"deep_json","nest":"list"}"#,
            r#"{"path":"/bank","kind":"close_after_answer","status":500}"#,
            r#"{"path":"/bank","kind":"long_text","body":"no placeholder","long_chars":10}"#,
            r#"{"path":"/bank","kind":"long_text","body":"{long}"}"#,
            r#"{"path":"/bank","kind":"long_text","body":"{long}","long_chars":67108865}"#,
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn b172_a_fault_matches_its_path_prefix() {
        let Ok(fault) = parse(r#"{"path":"/transaction/verify","method":"get","kind":"reset"}"#) else {
            panic!("valid fault rejected");
        };
        assert!(fault.matches("GET", "/transaction/verify/abc"));
        assert!(!fault.matches("POST", "/transaction/verify/abc"));
        assert!(!fault.matches("GET", "/bank"));
        let Ok(any) = parse(r#"{"path":"/","kind":"hang"}"#) else {
            panic!("valid fault rejected");
        };
        assert!(any.matches("DELETE", "/anything"));
    }

    #[test]
    fn b172_deep_json_shapes() {
        assert_eq!(
            String::from_utf8(deep_json(3, Nest::Array)).ok().as_deref(),
            Some(r#"{"status":true,"message":"Verification successful","data":[[[]]]}"#)
        );
        assert_eq!(
            String::from_utf8(deep_json(2, Nest::Object)).ok().as_deref(),
            Some(r#"{"status":true,"message":"Verification successful","data":{"a":{"a":null}}}"#)
        );
    }
}
