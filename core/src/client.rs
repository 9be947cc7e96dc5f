//! The async client.

use std::sync::Arc;
use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use url::Url;

use crate::bank_cache::BankCache;
use crate::config::ClientConfig;
use crate::decode;
use crate::error::{Result, SikaError};
use crate::in_flight::Charge;
use crate::models::{Bank, ChargeBody, ChargeRequest, ChargeResponse, MobileMoneyProvider, Transaction};
use crate::process::PerProcess;
use crate::redact::{self, RemoveKey, VerifiedAs};
use crate::request_id::CallIds;
use crate::safety::await_status::{self, AwaitOptions, Schedule};
use crate::safety::confirm::{self, ExpectedPayment, PaymentCheck};
use crate::safety::grace::{self, NotFound, NotFoundGrace};
use crate::safety::webhook::{self, WebhookDecision};
use crate::secret::SecretKey;
use crate::spans;
use crate::status::TransactionStatus;
use crate::transport::{CallPolicy, Reply, Sent, Transport, TransportSettings};
use crate::validation;

/// Everything but RFC 3986's unreserved characters is encoded, so a reference is always
/// exactly one path segment (`a/b` -> `a%2Fb`, `?x` -> `%3Fx`, `%2F` -> `%252F`).
const PATH_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// The async Sika client. Cheap to clone; clones share one connection pool and bank cache.
/// Safe to use from many tasks at once. Needs a Tokio runtime to run its futures.
///
/// Safe across `fork`: a process forked from the one that used the client gets its own
/// connection pool and an empty bank cache at its first call, and leaves the inherited ones
/// alone (docs/adr/0013-process-model.md).
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
    /// This view's `timeout_ms` and `max_retries` (`with_options` changes them, not the pool).
    policy: CallPolicy,
}

/// A per-call budget for [`Client::with_options`]: each unset value keeps the client's own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// Budget of each whole call of the view, retries and the wait for a connection included.
    pub timeout_ms: Option<u64>,
    /// Retries of reads after connection errors, 5xx and 429. A charge is never retried.
    pub max_retries: Option<u32>,
}

struct Inner {
    settings: Arc<TransportSettings>,
    base_url: Url,
    secret_key: SecretKey,
    bank_cache_ttl: Duration,
    /// `not_found_grace_ms`: how long "not found" may mean "not visible yet" (ADR 0023).
    not_found_grace: Duration,
    process: PerProcess<ProcessState>,
}

/// What a client holds per process: the connection pool, the bank cache, and when each
/// reference was first not found (a forked child starts afresh: its graces only get longer).
struct ProcessState {
    transport: Transport,
    bank_cache: BankCache,
    not_found: NotFoundGrace,
}

impl ProcessState {
    fn new(settings: &Arc<TransportSettings>, bank_cache_ttl: Duration, not_found_grace: Duration) -> Result<Self> {
        Ok(Self {
            transport: Transport::new(Arc::clone(settings))?,
            bank_cache: BankCache::new(bank_cache_ttl),
            not_found: NotFoundGrace::new(not_found_grace),
        })
    }
}

impl Client {
    /// Creates a client; fails with `Configuration` on a bad setting.
    pub fn new(config: ClientConfig) -> Result<Self> {
        let base_url = config.validate()?;
        let settings = Arc::new(TransportSettings::new(&config, &base_url)?);
        let bank_cache_ttl = Duration::from_secs(config.bank_cache_ttl_seconds);
        let not_found_grace = Duration::from_millis(config.not_found_grace_ms);
        let state = ProcessState::new(&settings, bank_cache_ttl, not_found_grace)?;
        Ok(Self {
            inner: Arc::new(Inner {
                settings,
                base_url,
                secret_key: config.secret_key,
                bank_cache_ttl,
                not_found_grace,
                process: PerProcess::new(state),
            }),
            policy: CallPolicy { timeout: Duration::from_millis(config.timeout_ms), max_retries: config.max_retries },
        })
    }

    /// A view of this client with its own per-call budget, over the same connections, bank
    /// cache and state: for one request handler that must answer sooner (or a background task
    /// that may wait longer) than the client's `timeout_ms`. Unset values keep this view's.
    /// `Configuration` for a timeout of 0 or over a day. Cheap; `shutdown` of any view shuts
    /// them all.
    pub fn with_options(&self, options: CallOptions) -> Result<Self> {
        let mut policy = self.policy;
        if let Some(timeout_ms) = options.timeout_ms {
            if timeout_ms == 0 || timeout_ms > ClientConfig::MAX_TIMEOUT_MS {
                return Err(SikaError::configuration(format!(
                    "timeout_ms must be between 1 and {} (one day)",
                    ClientConfig::MAX_TIMEOUT_MS
                )));
            }
            policy.timeout = Duration::from_millis(timeout_ms);
        }
        if let Some(max_retries) = options.max_retries {
            policy.max_retries = max_retries;
        }
        Ok(Self { inner: Arc::clone(&self.inner), policy })
    }

    /// Creates a client from `SIKA_SECRET_KEY` and `SIKA_BASE_URL`.
    pub fn from_env() -> Result<Self> {
        Self::new(ClientConfig::from_env()?)
    }

    /// Lists the mobile money providers of a country (`GH`, `KE`, `UG`, `TZ`; any case).
    /// `None` sends no country, and the service answers for Ghana.
    pub async fn list_mobile_money_providers(&self, country: Option<&str>) -> Result<Vec<MobileMoneyProvider>> {
        spans::in_call_span(spans::call_span!("list_mobile_money_providers", None::<&str>), async move {
            let url = self.list_url("mobile-money-providers", country)?;
            let state = self.state()?;
            let ids = CallIds::new();
            self.scrubbed(&ids, self.get_decoded(&state, url, decode::providers_response, &ids)).await
        })
        .await
    }

    /// Lists the banks of a country (`GH`, `NG`, `KE`, `UG`, `TZ`; any case). `None` sends no
    /// country, and the service answers for Nigeria. Served from the cache while fresh;
    /// concurrent callers of a list not cached share one request and its outcome. Ends with
    /// `Timeout` after `timeout_ms` at the latest, however many callers wait.
    pub async fn list_banks(&self, country: Option<&str>) -> Result<Vec<Bank>> {
        spans::in_call_span(spans::call_span!("list_banks", None::<&str>), async move {
            let deadline = tokio::time::Instant::now() + self.policy.timeout;
            let url = self.list_url("bank", country)?;
            let cache_key = url.query().unwrap_or_default().to_owned();
            let state = self.state()?;
            let ids = CallIds::new();
            let fetch = fetch_banks(Arc::clone(&state), url, self.key(), self.policy, ids.clone());
            let banks = state.bank_cache.get_or_fetch(&cache_key, fetch);
            self.scrubbed(&ids, within(deadline, banks)).await
        })
        .await
    }

    /// Verifies a transaction by your reference. Check `status`: only `Successful` is paid.
    /// An answer about any other reference is `UnexpectedResponse`, never that transaction.
    pub async fn verify_transaction(&self, reference: &str) -> Result<Transaction> {
        spans::in_call_span(spans::call_span!("verify_transaction", spans::shown(reference)), async move {
            validation::reference(reference)?;
            let url = self.endpoint(&["transaction", "verify", reference]);
            let decode = |status: u16, body: &[u8]| {
                decode::transaction_response_for(reference, status, body)
                    .map(|transaction| VerifiedAs { transaction, reference })
            };
            let state = self.state()?;
            let ids = CallIds::new();
            self.scrubbed(&ids, self.get_decoded(&state, url, decode, &ids)).await.map(|verified| verified.transaction)
        })
        .await
    }

    /// Starts a mobile money charge (`payment_type = mobile_money`). The customer then gets a
    /// USSD prompt; verify the reference (or wait for the webhook) to learn the outcome.
    /// Sent once, never retried.
    pub async fn initiate_charge(&self, request: &ChargeRequest) -> Result<ChargeResponse> {
        spans::in_call_span(spans::call_span!("initiate_charge", spans::shown(&request.reference)), async move {
            let currency = validation::charge(request)?;
            let body = ChargeBody {
                amount: &request.amount,
                email: &request.email,
                phone_number: &request.phone_number,
                reference: &request.reference,
                currency: &currency,
                payment_type: "mobile_money",
                provider: &request.provider,
                callback_url: request.callback_url.as_deref(),
            };
            let body = serde_json::to_vec(&body)
                .map_err(|e| SikaError::invalid_input("charge", format!("cannot be encoded: {e}")))?;
            let url = self.endpoint(&["charge"]);
            let state = self.state()?;
            log::info!(
                target: "sika",
                operation = "initiate_charge",
                reference = request.reference.as_str();
                "charge {}: {} {} to {} via {}",
                request.reference,
                request.amount,
                currency,
                validation::mask_phone(&request.phone_number),
                request.provider
            );
            let ids = CallIds::new();
            // Dropped with this future: a call ended early after sending says so (ADR 0075).
            let charge = Charge::new(self.inner.secret_key.scrub(&request.reference), &ids);
            let outcome = self
                .scrubbed(&ids, async {
                    let posted = state.transport.post_json(url, body, self.policy.timeout, &ids, &charge).await;
                    let key = &self.inner.secret_key;
                    let outcome = posted.map(|reply| {
                        let decoded =
                            redact::decoded_without_key(key, || decode::charge_response(reply.status, &reply.body));
                        with_retry_after(&reply, decoded)
                    });
                    charge_outcome(&request.reference, outcome)
                })
                .await;
            charge.ended();
            outcome
        })
        .await
    }

    /// Verifies `reference` and checks it against the order. Only `Confirmed` means ship:
    /// status exactly `successful`, and reference, currency and amount all equal the order's.
    pub async fn confirm_payment(&self, reference: &str, expected: &ExpectedPayment) -> Result<PaymentCheck> {
        spans::in_call_span(spans::call_span!("confirm_payment", spans::shown(reference)), async move {
            confirm::validate_expected(expected)?;
            let transaction = self.verify_transaction(reference).await?;
            Ok(confirm::check_payment(transaction, reference, expected))
        })
        .await
    }

    /// Decides what to do with a webhook notification for the order `expected` describes
    /// (look the order up by [`parse_webhook_event`](crate::parse_webhook_event)'s reference first).
    /// The notification is only a hint: `Fulfil` comes only from verifying its reference.
    /// Answer the webhook with [`WebhookDecision::http_status`]. Deliveries can repeat: make
    /// fulfilment idempotent on the reference. A reference the service does not know is
    /// `RetryLater` (503) for `not_found_grace_ms` after this process first heard "not found"
    /// for it (the notification may be early), `Reject` (400) after that.
    pub async fn handle_webhook(&self, body: &[u8], expected: &ExpectedPayment) -> Result<WebhookDecision> {
        spans::in_call_span(spans::call_span!("handle_webhook", None::<&str>), async move {
            self.decide_webhook(body, expected).await.map(|(decision, _status)| decision)
        })
        .await
    }

    /// `handle_webhook`'s decision, with the status of the transaction it verified, if it
    /// verified one: the ledger records it (a payment that failed is not checked again).
    pub(crate) async fn decide_webhook(
        &self,
        body: &[u8],
        expected: &ExpectedPayment,
    ) -> Result<(WebhookDecision, Option<TransactionStatus>)> {
        confirm::validate_expected(expected)?;
        let reference = match webhook::reference_to_verify(body) {
            Ok(reference) => reference,
            Err(ended) => {
                let decision = scrub_decision(ended.into(), &self.inner.secret_key);
                log_decision(&decision, None);
                return Ok((decision, None));
            }
        };
        let verified = self.verify_transaction(&reference).await;
        Ok(self.webhook_decision_from(&reference, verified, expected))
    }

    /// `decide_webhook`'s decision for a notification of `reference` (checked and expected
    /// already), from a verification made once for several deliveries: the ledger's one
    /// verification in flight per reference (ADR 0085).
    pub(crate) fn webhook_decision_from(
        &self,
        reference: &str,
        verified: Result<Transaction>,
        expected: &ExpectedPayment,
    ) -> (WebhookDecision, Option<TransactionStatus>) {
        let status = verified.as_ref().ok().map(|transaction| transaction.status.clone());
        let decision = webhook::decide(verified, reference, expected, || self.not_found(reference));
        let decision = scrub_decision(decision, &self.inner.secret_key);
        log_decision(&decision, Some(reference));
        (decision, status)
    }

    /// `confirm_payment`'s answer as the decision a notification would get, its reasons
    /// scrubbed like `handle_webhook`'s, with the verified status: the ledger's `settle` (ADR
    /// 0046), from a verification made once for several callers (ADR 0085); the verification's
    /// error is returned as it is.
    #[cfg(feature = "ledger")]
    pub(crate) fn settle_decision_from(
        &self,
        reference: &str,
        verified: Result<Transaction>,
        expected: &ExpectedPayment,
    ) -> Result<(WebhookDecision, Option<TransactionStatus>)> {
        let check = confirm::check_payment(verified?, reference, expected);
        let status = check.transaction().status.clone();
        Ok((scrub_decision(webhook::from_check(check), &self.inner.secret_key), Some(status)))
    }

    /// Verifies `reference` while it is pending (the customer has not answered the USSD prompt
    /// yet), on the schedule of `options`, and returns the transaction once its status is
    /// final. Ends with `Timeout` at the deadline, or `Cancelled` when `options.cancellation` is
    /// cancelled. Brief outages are retried within the deadline; a charge not yet visible
    /// (`TransactionNotFound`) for `not_found_grace_ms` from the wait's first "not found" for it:
    /// the first check after that ends the wait with `TransactionNotFound`.
    pub async fn await_final_status(&self, reference: &str, options: &AwaitOptions) -> Result<Transaction> {
        spans::in_call_span(spans::call_span!("await_final_status", spans::shown(reference)), async move {
            validation::reference(reference)?;
            options.validate()?;
            let poll = async {
                let mut schedule = Schedule::new(options);
                let mut first_not_found = None;
                while schedule.wait().await {
                    let check = tokio::time::timeout_at(schedule.deadline, self.verify_transaction(reference));
                    match check.await {
                        Ok(Ok(transaction)) if transaction.status.is_final() => return Ok(transaction),
                        Ok(Ok(_pending)) => {}
                        Ok(Err(not_found @ SikaError::TransactionNotFound { .. })) => {
                            let since = first_not_found.get_or_insert_with(tokio::time::Instant::now).elapsed();
                            if let NotFound::Unknown { .. } = grace::classify(since, self.inner.not_found_grace) {
                                return Err(not_found);
                            }
                        }
                        Ok(Err(error)) if await_status::is_worth_retrying(&error) => {}
                        Ok(Err(error)) => return Err(error),
                        Err(_deadline) => break,
                    }
                }
                // The wait's own deadline, not a request's: no request id (ADR 0053).
                Err(SikaError::Timeout { request_id: None })
            };
            match &options.cancellation {
                Some(cancellation) => cancellation.run(poll).await,
                None => poll.await,
            }
        })
        .await
    }

    /// Fetches a country's bank list from the service, bypassing the cache, and stores it
    /// (joining a fetch of that list already under way). Bounded by `timeout_ms` like `list_banks`.
    pub async fn refresh_banks(&self, country: Option<&str>) -> Result<Vec<Bank>> {
        spans::in_call_span(spans::call_span!("refresh_banks", None::<&str>), async move {
            let deadline = tokio::time::Instant::now() + self.policy.timeout;
            let url = self.list_url("bank", country)?;
            let cache_key = url.query().unwrap_or_default().to_owned();
            let state = self.state()?;
            let ids = CallIds::new();
            let fetch = fetch_banks(Arc::clone(&state), url, self.key(), self.policy, ids.clone());
            let banks = state.bank_cache.refresh(&cache_key, fetch);
            self.scrubbed(&ids, within(deadline, banks)).await
        })
        .await
    }

    /// Closes the connection pool and drops the bank cache, for this client and its clones.
    /// Calls in flight finish; every later call fails with `Configuration` ("the client has
    /// been shut down"). Idempotent; never blocks. Dropping the last clone does the same.
    pub fn shutdown(&self) {
        drop(self.inner.process.shut_down());
    }

    /// What a "not found" for `reference` means now (ADR 0023). A client shut down since the
    /// verification has no memory left: the first sight is now.
    fn not_found(&self, reference: &str) -> NotFound {
        match self.state() {
            Ok(state) => state.not_found.not_found(reference),
            Err(_) => grace::classify(Duration::ZERO, self.inner.not_found_grace),
        }
    }

    /// This process's connection pool and bank cache, built now in a process forked from the
    /// one that built the last ones (process.rs); `Configuration` after `shutdown`.
    fn state(&self) -> Result<Arc<ProcessState>> {
        let inner = &self.inner;
        inner.process.get(|| ProcessState::new(&inner.settings, inner.bank_cache_ttl, inner.not_found_grace))
    }

    /// A GET (with the transport's retries) decoded by `decode`, without the key (ADR 0040).
    async fn get_decoded<T: RemoveKey>(
        &self,
        state: &ProcessState,
        url: Url,
        decode: impl Fn(u16, &[u8]) -> Result<T>,
        ids: &CallIds,
    ) -> Result<T> {
        let reply = state.transport.get(url, self.policy, ids).await?;
        let decoded = redact::decoded_without_key(&self.inner.secret_key, || decode(reply.status, &reply.body));
        with_retry_after(&reply, decoded)
    }

    /// The key, for work that outlives this call's borrow (a shared bank list fetch).
    fn key(&self) -> SecretKey {
        self.inner.secret_key.clone()
    }

    fn list_url(&self, path: &str, country: Option<&str>) -> Result<Url> {
        let country = country.map(validation::country_code).transpose()?;
        let mut url = self.endpoint(&[path]);
        if let Some(country) = country {
            url.query_pairs_mut().append_pair("country", &country);
        }
        Ok(url)
    }

    /// The service's base URL (the tracer's `server.address` and `server.port`, and the
    /// ledger's key of a verification in flight).
    #[cfg(any(feature = "uniffi", feature = "ledger"))]
    pub(crate) fn base_url(&self) -> &Url {
        &self.inner.base_url
    }

    /// The base URL with `segments` appended, each encoded as exactly one path segment.
    fn endpoint(&self, segments: &[&str]) -> Url {
        let mut url = self.inner.base_url.clone();
        let mut path = url.path().trim_end_matches('/').to_owned();
        for segment in segments {
            path.push('/');
            path.extend(utf8_percent_encode(segment, PATH_SEGMENT));
        }
        url.set_path(&path);
        url
    }

    /// Runs a call and removes the key from any text its error carries: the one place where
    /// outside text (server messages, transport errors) becomes a public error. An error that
    /// has no request id yet and follows an attempt (a deadline that ended the call around it)
    /// gets the id of `ids`' last attempt (ADR 0053).
    async fn scrubbed<T>(&self, ids: &CallIds, call: impl Future<Output = Result<T>>) -> Result<T> {
        call.await.map_err(|error| scrub(error.with_request_id(ids.last().as_deref()), &self.inner.secret_key))
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("base_url", &self.inner.base_url.as_str()).finish_non_exhaustive()
    }
}

/// A bank list fetch that owns what it needs, so callers other than the one that started it
/// can await it (bank_cache.rs).
async fn fetch_banks(
    state: Arc<ProcessState>,
    url: Url,
    key: SecretKey,
    policy: CallPolicy,
    ids: CallIds,
) -> Result<Vec<Bank>> {
    let reply = state.transport.get(url, policy, &ids).await?;
    let decoded = redact::decoded_without_key(&key, || decode::banks_response(reply.status, &reply.body));
    with_retry_after(&reply, decoded)
}

/// `call`'s outcome, or `Timeout` at `deadline`.
async fn within<T>(deadline: tokio::time::Instant, call: impl Future<Output = Result<T>>) -> Result<T> {
    tokio::time::timeout_at(deadline, call).await.unwrap_or(Err(SikaError::Timeout { request_id: None }))
}

/// A charge's result: once the request may have reached the service, any failure that is not
/// a definite refusal means the charge may exist, so it becomes `ChargeOutcomeUnknown`.
fn charge_outcome(
    reference: &str,
    outcome: std::result::Result<Result<ChargeResponse>, (SikaError, Sent)>,
) -> Result<ChargeResponse> {
    let unknown = |reason: String, request_id: Option<String>| SikaError::ChargeOutcomeUnknown {
        reference: reference.to_owned(),
        reason,
        request_id,
    };
    match outcome {
        Ok(Ok(response)) => Ok(response),
        Err((error, Sent::No)) => Err(error),
        Err((error, Sent::Maybe)) => {
            // The id is the outer error's, not repeated inside its reason.
            let (error, request_id) = error.take_request_id();
            Err(unknown(error.to_string(), request_id))
        }
        Ok(Err(SikaError::Api { http_status, message, request_id })) if http_status >= 500 => {
            Err(unknown(format!("the service answered HTTP {http_status}: {message}"), request_id))
        }
        Ok(Err(SikaError::UnexpectedResponse { http_status, reason, request_id }))
            if !(300..500).contains(&http_status) =>
        {
            Err(unknown(format!("HTTP {http_status} with an unreadable body: {reason}"), request_id))
        }
        Ok(Err(definite)) => Err(definite),
    }
}

/// Fills in `Retry-After` on a rate-limit error from the reply's header, and the reply's
/// request id on any error decoded from it.
fn with_retry_after<T>(reply: &Reply, result: Result<T>) -> Result<T> {
    result
        .map_err(|error| match error {
            SikaError::RateLimited { retry_after_seconds: None, request_id } => {
                // A value past i64 (no real Retry-After) is reported as absent.
                SikaError::RateLimited {
                    retry_after_seconds: reply.retry_after_seconds.and_then(|s| i64::try_from(s).ok()),
                    request_id,
                }
            }
            other => other,
        })
        .map_err(|error| error.with_request_id(Some(&reply.request_id)))
}

/// Passes every text field of an error through the scrubber, so that its `Display`, built
/// only from fixed text and these fields, is fit to leave the SDK.
fn scrub(error: SikaError, key: &SecretKey) -> SikaError {
    // The request id may be the service's text (ADR 0053): scrubbed like its messages.
    match error.map_request_id(|id| key.scrub(id)) {
        SikaError::Api { http_status, message, request_id } => {
            SikaError::Api { http_status, message: key.scrub(&message), request_id }
        }
        SikaError::Network { reason, request_id } => SikaError::Network { reason: key.scrub(&reason), request_id },
        SikaError::UnexpectedResponse { http_status, reason, request_id } => {
            SikaError::UnexpectedResponse { http_status, reason: key.scrub(&reason), request_id }
        }
        SikaError::ChargeOutcomeUnknown { reference, reason, request_id } => {
            SikaError::ChargeOutcomeUnknown { reference: key.scrub(&reference), reason: key.scrub(&reason), request_id }
        }
        SikaError::InvalidInput { field, reason } => {
            SikaError::InvalidInput { field: key.scrub(&field), reason: key.scrub(&reason) }
        }
        SikaError::Configuration { reason } => SikaError::Configuration { reason: key.scrub(&reason) },
        other @ (SikaError::Unauthorized { .. }
        | SikaError::InvalidCountryCode { .. }
        | SikaError::NoProvidersFound { .. }
        | SikaError::TransactionNotFound { .. }
        | SikaError::InvalidReference { .. }
        | SikaError::RateLimited { .. }
        | SikaError::Timeout { .. }
        | SikaError::Cancelled) => other,
        other @ (SikaError::Storage { .. } | SikaError::ClaimLost { .. }) => other,
    }
}

/// Decisions worth a person's attention (`Investigate`, `Reject`) are logged at WARN, the others
/// at DEBUG (ADR 0044); the reason is already scrubbed and bounded.
fn log_decision(decision: &WebhookDecision, reference: Option<&str>) {
    let (kind, reason, attention) = match decision {
        WebhookDecision::Investigate { reason, .. } => ("Investigate", reason.as_str(), true),
        WebhookDecision::Reject { reason } => ("Reject", reason.as_str(), true),
        WebhookDecision::Fulfil { .. } => ("Fulfil", "paid as expected", false),
        WebhookDecision::Ignore { reason } => ("Ignore", reason.as_str(), false),
        WebhookDecision::RetryLater { reason } => ("RetryLater", reason.as_str(), false),
    };
    let level = if attention { log::Level::Warn } else { log::Level::Debug };
    log::log!(
        target: "sika",
        level,
        operation = "handle_webhook",
        reference = reference;
        "webhook for {}: {kind}: {reason}", reference.unwrap_or("no reference")
    );
}

/// A decision's reason quotes outside text (a notification's event, the service's status or
/// currency, an error): it leaves the SDK through the same scrubber as errors.
fn scrub_decision(decision: WebhookDecision, key: &SecretKey) -> WebhookDecision {
    match decision {
        WebhookDecision::Fulfil { transaction } => WebhookDecision::Fulfil { transaction },
        WebhookDecision::Investigate { transaction, reason } => {
            WebhookDecision::Investigate { transaction, reason: key.scrub(&reason) }
        }
        WebhookDecision::Ignore { reason } => WebhookDecision::Ignore { reason: key.scrub(&reason) },
        WebhookDecision::RetryLater { reason } => WebhookDecision::RetryLater { reason: key.scrub(&reason) },
        WebhookDecision::Reject { reason } => WebhookDecision::Reject { reason: key.scrub(&reason) },
    }
}
