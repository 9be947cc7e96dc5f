//! The router: which paths exist and the rules that cut across them: the request log (every
//! path but the control API's, first of all), injected faults (API paths only, see
//! [`crate::fault`]), then authentication (API paths only, before anything else of theirs).

use std::sync::atomic::Ordering;

use axum::Router;
use axum::extract::{Request, State};
use axum::handler::Handler;
use axum::http::{Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{MethodFilter, MethodRouter, on};

use crate::envelope::error;
use crate::state::AppState;
use crate::store::LoggedRequest;
use crate::{api, charge, control, fault, request_id};

/// One operation of the service: its method, its path as `docs/openapi.yaml` writes it, and
/// its handler.
struct ApiRoute {
    method: Method,
    path: &'static str,
    handler: MethodRouter<AppState>,
}

fn operation<H, T>(method: Method, path: &'static str, handler: H) -> ApiRoute
where
    H: Handler<T, AppState>,
    T: 'static,
{
    let filter = MethodFilter::try_from(method.clone()).expect("an operation's method is routable");
    ApiRoute { method, path, handler: on(filter, handler) }
}

/// The service's operations, in the spec's order: the one list of them. The router is built from
/// it, so authentication (one layer over all of them) cannot miss one, and `GET
/// /__sandbox/routes` lists it for the tests that prove that (B171's authentication test) and
/// that it is the OpenAPI document's (the contract suite, B298).
fn api_routes() -> Vec<ApiRoute> {
    vec![
        operation(Method::GET, "/mobile-money-providers", api::list_providers),
        operation(Method::GET, "/bank", api::list_banks),
        operation(Method::GET, "/transaction/verify/{reference}", api::verify),
        operation(Method::POST, "/charge", charge::initiate),
    ]
}

/// `(method, path)` of every operation of the service, as [`api_routes`] routes them.
pub fn api_operations() -> Vec<(String, &'static str)> {
    api_routes().into_iter().map(|route| (route.method.to_string(), route.path)).collect()
}

/// Builds the whole service.
pub fn router(state: AppState) -> Router {
    let api = api_routes()
        .into_iter()
        .fold(Router::new(), |api, route| api.route(route.path, route.handler))
        // Set before `route_layer`, so that a wrong method is also answered only after auth.
        .method_not_allowed_fallback(method_not_allowed)
        .route_layer(middleware::from_fn_with_state(state.clone(), require_auth));
    Router::new()
        .merge(api)
        .merge(control::router())
        .fallback(not_found)
        // Layers added later run first: the request is logged, then maybe faulted.
        .layer(middleware::from_fn_with_state(state.clone(), fault::inject))
        .layer(middleware::from_fn_with_state(state.clone(), log_request))
        .layer(middleware::from_fn(request_id::stamp))
        .with_state(state)
}

/// Paths of the control API, which are neither authenticated nor logged.
pub fn is_control_path(path: &str) -> bool {
    path == "/__sandbox" || path.starts_with("/__sandbox/")
}

async fn require_auth(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if state.is_authorized(request.headers()) {
        next.run(request).await
    } else {
        error(StatusCode::UNAUTHORIZED, "Unauthorized")
    }
}

/// Records the request as it arrived on the wire (path still percent-encoded), before any
/// routing decision, so tests can prove what a client sent, or that it sent nothing.
/// A header of the request as text (invalid UTF-8 replaced), or none.
fn header_text(request: &Request, name: &str) -> Option<String> {
    request.headers().get(name).map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
}

async fn log_request(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let uri = request.uri();
    if is_control_path(uri.path()) {
        return next.run(request).await;
    }
    let in_flight = InFlight::enter(&state);
    {
        state.store.log_request(LoggedRequest {
            method: request.method().as_str().to_owned(),
            path: uri.path().to_owned(),
            query: uri.query().map(str::to_owned),
            authorized: state.is_authorized(request.headers()),
            request_id: header_text(&request, request_id::HEADER),
            traceparent: header_text(&request, "traceparent"),
            tracestate: header_text(&request, "tracestate"),
            answered_request_id: request_id::of(&request),
            in_flight: in_flight.count,
            received_ms: u64::try_from(state.started.elapsed().as_millis()).unwrap_or(u64::MAX),
        });
    }
    let response = next.run(request).await;
    drop(in_flight);
    response
}

/// One API request being answered; counted out when dropped (answered, or the client left).
struct InFlight<'a> {
    state: &'a AppState,
    count: usize,
}

impl<'a> InFlight<'a> {
    fn enter(state: &'a AppState) -> Self {
        Self { state, count: state.in_flight.fetch_add(1, Ordering::SeqCst) + 1 }
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.state.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

pub async fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "Not found")
}

pub async fn method_not_allowed() -> Response {
    error(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed")
}
