//! HTTP with the rules a payment client needs: one deadline per call, retries only where
//! they are safe, a cap on response size, and errors that never carry the key.

use std::error::Error as _;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue, RETRY_AFTER, USER_AGENT};
use http::{Method, Request, Response, StatusCode, Uri};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client as PooledClient;
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use rustls::RootCertStore;
use tokio::time::Instant;
use url::Url;
use zeroize::Zeroizing;

use tracing::Instrument;

use crate::config::{ClientConfig, is_loopback};
use crate::error::{Result, SikaError};
use crate::in_flight::Charge;
use crate::request_id::{self, CallIds};
use crate::tls;
use crate::trace::AttemptSpan;

mod sockets;

pub(crate) use sockets::Progress;
use sockets::{ConnectTimedOut, Connector, SocketBudget};

/// A pool of HTTP connections over the SDK's own sockets (ADR 0065). It follows no redirect: a
/// payment API has no reason to send one, and following it could send the key elsewhere.
type HttpClient = PooledClient<Connector, Full<Bytes>>;

/// Largest response body read; a larger one is an `UnexpectedResponse`, never an allocation
/// the service controls. The largest real response (a bank list) is far below it.
pub const MAX_RESPONSE_BYTES: usize = 8 * 1024 * 1024;

/// Longest `Retry-After` we wait for between retries; a longer one ends the call as `RateLimited`.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(10);
const BACKOFF_BASE: Duration = Duration::from_millis(200);
const BACKOFF_CAP: Duration = Duration::from_secs(5);

/// Whether a request that failed may have reached the service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    /// The connection was never established: nothing left this machine.
    No,
    /// It may have been received and acted on.
    Maybe,
}

/// What came back: status, `Retry-After` seconds when sent, the body, and the request id to
/// quote: the service's `X-Request-Id` when it sent one, else the one sent (ADR 0053).
pub(crate) struct Reply {
    pub status: u16,
    pub retry_after_seconds: Option<u64>,
    pub body: Vec<u8>,
    pub request_id: String,
}

/// What a client's connection pools are built from, kept for the client's life: a process
/// forked from the one that built a pool builds its own from these (process.rs).
pub(crate) struct TransportSettings {
    roots: RootCertStore,
    https_only: bool,
    connect_timeout: Duration,
    user_agent: HeaderValue,
    authorization: HeaderValue,
    max_connections: u32,
    pool_idle_timeout: Duration,
    /// The merchant's explicit proxy, for https targets only; never one from the environment.
    proxy: Option<Url>,
}

impl TransportSettings {
    pub(crate) fn new(config: &ClientConfig, base_url: &Url) -> Result<Self> {
        let user_agent = match &config.user_agent_suffix {
            Some(suffix) => format!("sika/{} {suffix}", env!("CARGO_PKG_VERSION")),
            None => format!("sika/{}", env!("CARGO_PKG_VERSION")),
        };
        let user_agent = HeaderValue::from_str(&user_agent)
            .map_err(|_| SikaError::configuration("user_agent_suffix must be printable ASCII"))?;
        // The formatted header is wiped after the copy; the copy is marked sensitive so
        // hyper never logs it. (The header bytes inside hyper are not zeroed on drop.)
        let bearer = Zeroizing::new(format!("Bearer {}", config.secret_key.expose()));
        let mut authorization = HeaderValue::from_str(&bearer)
            .map_err(|_| SikaError::configuration("secret_key cannot be sent as an HTTP header"))?;
        authorization.set_sensitive(true);
        Ok(Self {
            roots: tls::roots(base_url.scheme() == "https")?,
            https_only: !is_loopback(base_url),
            connect_timeout: Duration::from_millis(config.connect_timeout_ms),
            user_agent,
            authorization,
            max_connections: config.max_connections_per_host,
            pool_idle_timeout: Duration::from_millis(config.pool_idle_timeout_ms),
            // Loopback (the only plain http allowed) never goes through a proxy: it would see
            // the key in clear text and could forge the answer (ADR 0021).
            proxy: config.proxy_url()?.filter(|_| !is_loopback(base_url)),
        })
    }
}

/// The budget of one call: a client's `timeout_ms` and `max_retries`, or a view's own
/// (`Client::with_options`), over the same connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CallPolicy {
    pub timeout: Duration,
    pub max_retries: u32,
}

/// One process's HTTP client: its connection pool and TLS session cache.
///
/// Every socket holds one of its client's `max_connections_per_host` permits from before it
/// connects until it closes, so a client never has more sockets open (ADR 0065). A call that
/// finds no idle connection and no free permit waits for either inside its own deadline. The
/// pool keeps idle connections for `pool_idle_timeout` (ADR 0038).
pub(crate) struct Transport {
    settings: Arc<TransportSettings>,
    /// Pooled connections, for reads (retried when a reused connection fails: safe for a GET).
    http: HttpClient,
    /// No pooled connection: each charge goes out on a connection of its own, never on one the
    /// server may be closing for idleness (the keep-alive race, ADR 0038).
    fresh: HttpClient,
    /// Built with the pool, so once per process (process.rs): see `jitter_for_this_process`.
    jitter: Mutex<fastrand::Rng>,
}

impl Transport {
    /// A new connection pool; nothing is connected until the first request.
    pub(crate) fn new(settings: Arc<TransportSettings>) -> Result<Self> {
        let budget = SocketBudget::new(settings.max_connections as usize);
        // One TLS configuration (and session cache) for both pools of this process.
        let tls = Arc::new(tls::client_config(settings.roots.clone())?);
        let proxy = settings.proxy.as_ref().map(|proxy| {
            // The proxy's address and its credentials as a `Proxy-Authorization` header.
            let intercept =
                Matcher::builder().https(proxy.as_str()).build().intercept(&Uri::from_static("https://sika.invalid"));
            intercept.map(|found| (found.uri().clone(), found.basic_auth().cloned()))
        });
        let proxy = match proxy {
            Some(None) => return Err(SikaError::invalid_input("proxy", "is not a usable proxy URL")),
            Some(found) => found,
            None => None,
        };
        let connector = |permits| {
            Connector::new(Arc::clone(&tls), proxy.clone(), settings.connect_timeout, settings.https_only, permits)
        };
        let idle_timeout = settings.pool_idle_timeout;
        let pooled = if idle_timeout.is_zero() { 0 } else { settings.max_connections as usize };
        let http = PooledClient::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .pool_max_idle_per_host(pooled)
            .pool_idle_timeout(Some(idle_timeout).filter(|t| !t.is_zero()))
            .build(connector(budget.for_reads()));
        let fresh = PooledClient::builder(TokioExecutor::new())
            .pool_max_idle_per_host(0)
            .build(connector(budget.for_charges()));
        Ok(Self { settings, http, fresh, jitter: Mutex::new(jitter_for_this_process()) })
    }

    /// A GET, retried on connection errors, 5xx and 429 within the call's deadline; each
    /// attempt carries `ids`' id with its number.
    pub(crate) async fn get(&self, url: Url, policy: CallPolicy, ids: &CallIds) -> Result<Reply> {
        let deadline = Instant::now() + policy.timeout;
        let mut attempt = 0;
        loop {
            let request = Attempt { method: Method::GET, url: url.clone(), body: None, number: attempt + 1 };
            let outcome = self.attempt(&self.http, request, deadline, &mut Sent::Maybe, ids, None).await;
            let wait = match &outcome {
                Ok(reply) if is_retryable_status(reply.status) => match reply.retry_after_seconds {
                    Some(seconds) if reply.status == 429 => {
                        Some(Duration::from_secs(seconds)).filter(|w| *w <= MAX_RETRY_AFTER)
                    }
                    _ => Some(self.backoff(attempt)),
                },
                Err(SikaError::Network { .. }) => Some(self.backoff(attempt)),
                _ => None,
            };
            match wait {
                Some(wait) if attempt < policy.max_retries && Instant::now() + wait < deadline => {
                    let (operation, reference) = operation_of(url.path());
                    log::warn!(
                        target: "sika",
                        operation = operation,
                        reference = reference.as_deref(),
                        http_status = outcome.as_ref().ok().map(|reply| reply.status),
                        attempt = attempt + 1,
                        request_id = ids.last().as_deref();
                        "GET {} failed ({}); retry {} in {} ms", url.path(), outcome_text(&outcome), attempt + 1, wait.as_millis()
                    );
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                _ => return outcome,
            }
        }
    }

    /// The wait before retry `attempt + 1`, drawn from this process's own jitter.
    fn backoff(&self, attempt: u32) -> Duration {
        backoff(attempt, self.jitter.lock().unwrap_or_else(PoisonError::into_inner).f64())
    }

    /// A POST of a JSON body, sent once, on a connection of its own (never a pooled one the
    /// server may be closing): a charge that may have reached the service must never be sent
    /// again. The error says whether the request certainly did not leave (`Sent::No`: no
    /// connection was free within the deadline, or none could be made) or may have reached
    /// the service. `charge` follows the attempt, for a call ended early (in_flight.rs).
    pub(crate) async fn post_json(
        &self,
        url: Url,
        body: Vec<u8>,
        timeout: Duration,
        ids: &CallIds,
        charge: &Charge,
    ) -> std::result::Result<Reply, (SikaError, Sent)> {
        let deadline = Instant::now() + timeout;
        let mut sent = Sent::No;
        let request = Attempt { method: Method::POST, url, body: Some(body), number: 1 };
        let outcome = self.attempt(&self.fresh, request, deadline, &mut sent, ids, Some(charge)).await;
        outcome.map_err(|error| (error, sent))
    }

    /// One request within `deadline`: the one place every attempt goes through (its id, its
    /// log record, its outcome). `sent` becomes `Maybe` once the request is handed to a
    /// connection, and `No` again when that connection could not be made. Its error carries
    /// the service's request id when an answer came with one, else the id sent. A charge's
    /// attempt is followed by its `charge` (in_flight.rs).
    async fn attempt(
        &self,
        http: &HttpClient,
        Attempt { method, url, body, number: attempt }: Attempt,
        deadline: Instant,
        sent: &mut Sent,
        ids: &CallIds,
        charge: Option<&Charge>,
    ) -> Result<Reply> {
        let (method_name, path) = (method.to_string(), url.path().to_owned());
        let sent_id = ids.attempt(attempt);
        let span = tracing::info_span!(
            target: "sika",
            "sika.attempt",
            otel.name = %format_args!("{method_name} {}", crate::trace::url_template(&path)),
            otel.kind = "client",
            http.request.method = %method_name,
            server.address = url.host_str(),
            server.port = url.port_or_known_default(),
            url.template = %crate::trace::url_template(&path),
            http.request.resend_count = (attempt > 1).then(|| attempt - 1),
            http.response.status_code = tracing::field::Empty,
            error.type = tracing::field::Empty,
            sika.request_id = %sent_id,
        );
        let mut request = Request::builder()
            .method(method)
            .uri(url.as_str())
            .header(AUTHORIZATION, self.settings.authorization.clone())
            .header(ACCEPT, "application/json")
            .header(USER_AGENT, self.settings.user_agent.clone())
            .header(request_id::HEADER, &sent_id);
        if let Some(trace) = ids.trace() {
            for (name, value) in trace.headers() {
                request = request.header(name, value);
            }
        }
        let traced_since = ids.trace().filter(|trace| trace.keeps_attempts()).map(|_| crate::trace::unix_nanos());
        let mut answered_id = None;
        let request = match body {
            Some(body) => request.header(CONTENT_TYPE, "application/json").body(Full::new(Bytes::from(body))),
            None => request.body(Full::default()),
        }
        .map_err(|error| SikaError::configuration(format!("the request could not be built: {error}")));
        let started = Instant::now();
        let progress = Arc::new(Progress::default());
        if let Some(charge) = charge {
            charge.attempting(&progress);
        }
        let exchange = async {
            let response = progress.track(http.request(request?)).await.map_err(|error| request_error(&error))?;
            let status = response.status();
            answered_id = response.headers().get(request_id::HEADER).and_then(request_id::from_service);
            let retry_after_seconds = retry_after(&response);
            let body = read_capped(response, status).await?;
            Ok(Reply { status: status.as_u16(), retry_after_seconds, body, request_id: String::new() })
        };
        let outcome = tokio::time::timeout_at(deadline, exchange.instrument(span.clone()))
            .await
            .unwrap_or(Err(SikaError::Timeout { request_id: None }));
        // Nothing can have left before a socket was connected for this attempt; a charge's
        // socket is its own (`fresh`), so for a charge this is exact.
        *sent = if progress.connected() { Sent::Maybe } else { Sent::No };
        let quoted = answered_id.unwrap_or_else(|| sent_id.clone());
        let outcome = match outcome {
            Ok(reply) => Ok(Reply { request_id: quoted, ..reply }),
            Err(error) => Err(error.with_request_id(Some(&quoted))),
        };
        if let (Some(trace), Some(started_at_unix_nanos)) = (ids.trace(), traced_since) {
            let status_code = outcome.as_ref().ok().map(|reply| i32::from(reply.status));
            trace.record(AttemptSpan {
                method: method_name.clone(),
                url_template: crate::trace::url_template(&path),
                resend_count: i32::try_from(attempt - 1).unwrap_or(i32::MAX),
                status_code,
                error_type: crate::trace::error_type(status_code, outcome.as_ref().err()),
                request_id: sent_id.clone(),
                started_at_unix_nanos,
                ended_at_unix_nanos: crate::trace::unix_nanos(),
            });
        }
        match &outcome {
            Ok(reply) => {
                span.record("http.response.status_code", reply.status);
                if reply.status >= 400 {
                    span.record("error.type", reply.status);
                }
            }
            // The attempt keeps the id it sent; the call's span quotes the error's.
            Err(error) => {
                span.record("error.type", error.kind());
            }
        }
        // Paths carry references only; headers (the key) and bodies (phone numbers) are never logged.
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let (operation, reference) = operation_of(&path);
        log::debug!(
            target: "sika",
            operation = operation,
            reference = reference.as_deref(),
            http_status = outcome.as_ref().ok().map(|reply| reply.status),
            attempt = attempt,
            duration_ms = duration_ms,
            request_id = sent_id.as_str();
            "{method_name} {path} -> {} in {duration_ms} ms", outcome_text(&outcome)
        );
        outcome
    }
}

/// What one attempt sends.
struct Attempt {
    method: Method,
    url: Url,
    body: Option<Vec<u8>>,
    /// 1 for the first.
    number: u32,
}

async fn read_capped(response: Response<Incoming>, status: StatusCode) -> Result<Vec<u8>> {
    let too_large =
        || SikaError::unexpected(status.as_u16(), format!("response body larger than {MAX_RESPONSE_BYTES} bytes"));
    let declared = response.headers().get(http::header::CONTENT_LENGTH).and_then(|value| value.to_str().ok());
    if declared
        .and_then(|length| length.trim().parse::<u64>().ok())
        .is_some_and(|length| length > MAX_RESPONSE_BYTES as u64)
    {
        return Err(too_large());
    }
    let mut incoming = response.into_body();
    let mut body = Vec::new();
    while let Some(frame) = incoming.frame().await {
        let frame = frame.map_err(|error| failure("reading the answer failed", Some(&error)))?;
        let Ok(chunk) = frame.into_data() else { continue };
        if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The SDK operation a request's path belongs to, and the reference it names (a log record's
/// fields, ADR 0044). The path is as sent (a reference percent-encoded).
fn operation_of(path: &str) -> (&'static str, Option<String>) {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match segments.as_slice() {
        [.., "transaction", "verify", reference] => (
            "verify_transaction",
            Some(percent_encoding::percent_decode_str(reference).decode_utf8_lossy().into_owned()),
        ),
        [.., "charge"] => ("initiate_charge", None),
        [.., "bank"] => ("list_banks", None),
        [.., "mobile-money-providers"] => ("list_mobile_money_providers", None),
        _ => ("request", None),
    }
}

fn outcome_text(outcome: &Result<Reply>) -> String {
    match outcome {
        Ok(reply) => format!("HTTP {}", reply.status),
        // Escaped like every text that leaves the SDK: a log record stays one line.
        Err(error) => crate::scrub::escape_controls(&error.to_string()),
    }
}

fn retry_after(response: &Response<Incoming>) -> Option<u64> {
    response.headers().get(RETRY_AFTER)?.to_str().ok()?.trim().parse().ok()
}

fn is_retryable_status(status: u16) -> bool {
    matches!(status, 429 | 500 | 502 | 503 | 504)
}

/// Exponential backoff with full jitter: a random wait in `[0, min(cap, base * 2^attempt)]`.
fn backoff(attempt: u32, fraction: f64) -> Duration {
    let ceiling = BACKOFF_BASE.saturating_mul(1 << attempt.min(16)).min(BACKOFF_CAP);
    ceiling.mul_f64(fraction)
}

/// The retry jitter of one process. Forked workers (gunicorn, Celery prefork) inherit the
/// parent's thread-local generator at the same state, so without the process id in the seed
/// every worker would draw the same waits and retry an outage in step.
fn jitter_for_this_process() -> fastrand::Rng {
    jitter_seeded(fastrand::u64(..), std::process::id())
}

fn jitter_seeded(inherited: u64, pid: u32) -> fastrand::Rng {
    // An odd multiplier spreads consecutive process ids over the whole seed.
    fastrand::Rng::with_seed(inherited ^ u64::from(pid).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// A request that got no answer: `Timeout` when connecting outlasted `connect_timeout_ms`,
/// else `Network`, saying whether the connection or the exchange on it failed.
fn request_error(error: &hyper_util::client::legacy::Error) -> SikaError {
    failure(if error.is_connect() { "connection failed" } else { "request failed" }, error.source())
}

/// `what` and its causes on one line (never the URL: the caller knows it).
fn failure(what: &str, mut source: Option<&(dyn std::error::Error + 'static)>) -> SikaError {
    let mut text = what.to_owned();
    let mut timed_out = false;
    while let Some(cause) = source {
        timed_out |= cause.is::<ConnectTimedOut>();
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    if timed_out {
        SikaError::Timeout { request_id: None }
    } else {
        SikaError::Network { reason: text, request_id: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b26_backoff_stays_within_its_ceiling() {
        for attempt in 0..40 {
            for fraction in [0.0, 0.5, 0.999_999] {
                let wait = backoff(attempt, fraction);
                assert!(wait <= BACKOFF_CAP, "{attempt}: {wait:?}");
                assert!(wait <= BACKOFF_BASE.saturating_mul(1 << attempt.min(16)));
            }
        }
        assert_eq!(backoff(3, 0.5), BACKOFF_BASE * 4);
    }

    /// Two forked workers inherit one generator state; their process ids tell them apart
    /// (the fork itself: `core/tests/fork.rs`, B37).
    #[test]
    fn b37_the_jitter_seed_holds_the_process_id() {
        let draws = |pid| -> Vec<u64> {
            let mut rng = jitter_seeded(42, pid);
            (0..8).map(|_| rng.u64(..)).collect()
        };
        assert_eq!(draws(1000), draws(1000));
        assert_ne!(draws(1000), draws(1001));
    }

    #[test]
    fn b26_only_transient_statuses_are_retried() {
        for status in [429, 500, 502, 503, 504] {
            assert!(is_retryable_status(status));
        }
        for status in [200, 400, 401, 404, 409, 501] {
            assert!(!is_retryable_status(status));
        }
    }
}
