//! Every answer of the sandbox carries `X-Request-Id`, as a real service's answers do, so a
//! merchant's logs (and support tickets) can name the exact exchange.

use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

/// The header's name.
pub const HEADER: &str = "x-request-id";

/// Counts every request the process answers (never reset: ids stay unique across resets).
static NEXT: AtomicU64 = AtomicU64::new(1);

/// `req_<process id>_<n>`: unique per sandbox process, and across processes started together.
fn next_id() -> String {
    format!("req_{:x}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// The id a request is answered with, kept in its extensions for the request log.
#[derive(Debug, Clone)]
struct Answered(String);

/// The id `request` will be answered with (empty outside [`stamp`]).
pub fn of(request: &Request) -> String {
    request.extensions().get::<Answered>().map(|Answered(id)| id.clone()).unwrap_or_default()
}

/// Stamps the answer (faulted ones too: a proxy in front would still see the service's id),
/// unless it has an id already: the `request_id` fault's, a hostile service's.
pub async fn stamp(mut request: Request, next: Next) -> Response {
    let id = next_id();
    request.extensions_mut().insert(Answered(id.clone()));
    let mut response = next.run(request).await;
    if let (false, Ok(value)) = (response.headers().contains_key(HEADER), HeaderValue::from_str(&id)) {
        response.headers_mut().insert(HEADER, value);
    }
    response
}

#[cfg(test)]
mod tests {
    #[test]
    fn b89_request_ids_differ() {
        let (first, second) = (super::next_id(), super::next_id());
        assert_ne!(first, second);
        assert!(first.starts_with("req_"));
    }
}
