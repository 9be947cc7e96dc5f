//! The two client objects as foreign code calls them: owned arguments in, the core's own
//! records and errors out. Each method is one call of the core (after asking the host's log
//! sink for its level, when a second has passed: `logging::follow_host_level`). The async
//! client's calls run on the SDK's own runtime (`runtime.rs`), not UniFFI's.

use std::future::Future;
use std::sync::Arc;

use super::config::ClientConfig;
use super::host;
use super::logging;
use super::runtime;
use super::tracer::{self, Decided, Traced};
use super::wait::AwaitOptions;
use crate::error::Result;
use crate::trace;
use crate::{Bank, ChargeRequest, ChargeResponse, ExpectedPayment, MobileMoneyProvider, PaymentCheck, Transaction};
use crate::{WebhookDecision, config};

/// The async client: Python coroutines, Kotlin `suspend` functions, Swift `async` methods.
/// Share one per process; it is safe to use from many tasks at once, and across `fork` (a
/// forked process gets its own connections at its first call).
#[derive(uniffi::Object)]
pub struct Client(crate::Client);

// No `async_runtime`: each method spawns its call onto the SDK's runtime itself (runtime.rs).
#[uniffi::export]
impl Client {
    /// Creates a client; throws `Configuration` on a bad setting, `InvalidInput` on a negative one.
    #[uniffi::constructor]
    pub fn new(config: ClientConfig) -> Result<Arc<Self>> {
        host::check_reported_host()?;
        logging::enable_from_env();
        Ok(Arc::new(Self(crate::Client::new(config.try_into()?)?)))
    }

    /// Creates a client from `SIKA_SECRET_KEY` and `SIKA_BASE_URL`.
    #[uniffi::constructor]
    pub fn from_env() -> Result<Arc<Self>> {
        host::check_reported_host()?;
        logging::enable_from_env();
        Ok(Arc::new(Self(crate::Client::new(config::ClientConfig::from_env()?)?)))
    }

    /// Lists the mobile money providers of a country (GH, KE, UG, TZ); none: the service's default, GH.
    ///
    /// Parameters:
    /// - `country`: a two-letter country code, in any case (sent in upper case); none sends no
    ///   country, and the service answers for Ghana.
    ///
    /// Returns: the providers, each with its `code` (the `provider` of a `ChargeRequest`).
    ///
    /// Errors: `InvalidInput` naming `country` (not two letters; nothing sent), `InvalidCountryCode`,
    /// `NoProvidersFound` (Nigeria has none), `Unauthorized` (the key), `RateLimited`, `Timeout` (after
    /// `timeout_ms`, retries included), `Network`, `Api` (any other answer of the service),
    /// `UnexpectedResponse`, and `Configuration` once the client is shut down.
    #[uniffi::method(default(country = None))]
    pub async fn list_mobile_money_providers(&self, country: Option<String>) -> Result<Vec<MobileMoneyProvider>> {
        self.run("list_mobile_money_providers", None, |client| async move {
            client.list_mobile_money_providers(country.as_deref()).await
        })
        .await
    }

    /// Lists the banks of a country (GH, NG, KE, UG, TZ); none: the service's default, NG. Cached.
    ///
    /// Parameters:
    /// - `country`: a two-letter country code, in any case; none sends no country, and the
    ///   service answers for Nigeria.
    ///
    /// Returns: the banks, from the cache while it is fresh (`bank_cache_ttl_seconds`); callers
    /// of a list not cached share one request.
    ///
    /// Errors: `InvalidInput` naming `country` (nothing sent), `InvalidCountryCode`, `Unauthorized`
    /// (the key), `RateLimited`, `Timeout` (after `timeout_ms`, retries included), `Network`, `Api`
    /// (any other answer of the service), `UnexpectedResponse`, and `Configuration` once the client is
    /// shut down.
    #[uniffi::method(default(country = None))]
    pub async fn list_banks(&self, country: Option<String>) -> Result<Vec<Bank>> {
        self.run("list_banks", None, |client| async move { client.list_banks(country.as_deref()).await }).await
    }

    /// Verifies a transaction by your reference. Only status `Successful` means paid.
    ///
    /// Parameters:
    /// - `reference`: your reference of the transaction (`tx_ref`), sent as one path segment.
    ///
    /// Returns: the `Transaction` as the service reports it: its `status`, exact `amount` and
    /// `currency`, times, customer and the raw JSON. An answer about another reference is
    /// `UnexpectedResponse`, never that transaction.
    ///
    /// Errors: `InvalidInput` naming `reference` (empty, `.` or `..`, control characters, too long;
    /// nothing sent), `TransactionNotFound`, `InvalidReference`, `Unauthorized` (the key),
    /// `RateLimited`, `Timeout` (after `timeout_ms`, retries included), `Network`, `Api` (any other
    /// answer of the service), `UnexpectedResponse`, and `Configuration` once the client is shut down.
    pub async fn verify_transaction(&self, reference: String) -> Result<Transaction> {
        let named = Some(reference.clone());
        self.run("verify_transaction", named, |client| async move { client.verify_transaction(&reference).await }).await
    }

    /// Starts a mobile money charge. Sent once, never retried; when its outcome is unknown,
    /// throws `ChargeOutcomeUnknown` naming the reference to verify.
    ///
    /// Parameters:
    /// - `request`: the charge (`amount`, `email`, `phone_number` in international form,
    ///   `reference`, `currency`, `provider`, optional `callback_url`), checked before it is sent.
    ///
    /// Returns: the service's `ChargeResponse` (accepted: the customer gets a USSD prompt; verify
    /// the reference, wait with `await_final_status` or for the webhook to learn the outcome).
    ///
    /// Errors: `InvalidInput` naming the field (nothing sent), `ChargeOutcomeUnknown` (sent, but its
    /// outcome is unknown: verify `reference` before charging again), `Api` (refused: a duplicate
    /// reference is HTTP 409), `Unauthorized` (the key), `RateLimited`, `Timeout` (after `timeout_ms`,
    /// retries included), `Network`, `Api` (any other answer of the service), `UnexpectedResponse`, and
    /// `Configuration` once the client is shut down.
    pub async fn initiate_charge(&self, request: ChargeRequest) -> Result<ChargeResponse> {
        let named = Some(request.reference.clone());
        self.run("initiate_charge", named, |client| async move { client.initiate_charge(&request).await }).await
    }

    /// Verifies `reference` and checks it against the order. Ship only on `Confirmed`.
    ///
    /// Parameters:
    /// - `reference`: your reference of the order's transaction.
    /// - `expected`: the order's `amount` and `currency`.
    ///
    /// Returns: a `PaymentCheck`: `Confirmed` only for status exactly `successful` with the same
    /// reference, currency and amount (as decimals); else `NotYet` (pending), `NotPaid` (with the
    /// action to take) or `Mismatch` (the field, expected and actual).
    ///
    /// Errors: `InvalidInput` naming `reference`, `amount` or `currency` (nothing sent),
    /// `TransactionNotFound`, `InvalidReference`, `Unauthorized` (the key), `RateLimited`, `Timeout`
    /// (after `timeout_ms`, retries included), `Network`, `Api` (any other answer of the service),
    /// `UnexpectedResponse`, and `Configuration` once the client is shut down.
    pub async fn confirm_payment(&self, reference: String, expected: ExpectedPayment) -> Result<PaymentCheck> {
        let named = Some(reference.clone());
        self.run("confirm_payment", named, |client| async move { client.confirm_payment(&reference, &expected).await })
            .await
    }

    /// Decides what to do with a webhook notification for the order `expected` describes.
    ///
    /// Parameters:
    /// - `body`: the request's body, as received (the notification is only a hint: its
    ///   reference is verified with the service).
    /// - `expected`: the order's `amount` and `currency` (look the order up by
    ///   `parse_webhook_event`'s reference first).
    ///
    /// Returns: a `WebhookDecision` (`Fulfil`, `Investigate`, `Ignore`, `RetryLater`, `Reject`);
    /// answer the webhook with its `http_status()`. Deliveries repeat: fulfil once per
    /// reference. A body that is no notification is `Reject`, and a verification that failed is
    /// `RetryLater` (503, so the service delivers again), not an error.
    ///
    /// Errors: `InvalidInput` naming `amount` or `currency` of `expected` (nothing sent).
    pub async fn handle_webhook(&self, body: Vec<u8>, expected: ExpectedPayment) -> Result<WebhookDecision> {
        self.run("handle_webhook", None, |client| async move { client.handle_webhook(&body, &expected).await }).await
    }

    /// Verifies while pending until the status is final; throws `Timeout` or `Cancelled`.
    ///
    /// Parameters:
    /// - `reference`: your reference of the charge.
    /// - `options`: the wait's schedule (`AwaitOptions`: first check after 3 s, then every 2 s
    ///   doubling to 10 s, for at most 120 s, by default) and its `cancellation`.
    ///
    /// Returns: the `Transaction` once its status is final (successful, failed, abandoned,
    /// reversed); check it with `confirm_payment` (or its status) before shipping.
    ///
    /// Errors: `Timeout` at the wait's deadline, `Cancelled` when its cancellation is cancelled,
    /// `TransactionNotFound` once `not_found_grace_ms` passed since its first "not found",
    /// `InvalidInput` naming `reference` or an option (nothing sent), `InvalidReference`,
    /// `Unauthorized` (the key), `Api` and `UnexpectedResponse` (under HTTP 500), and
    /// `Configuration` once the client is shut down. Outages (`Network`, `RateLimited`, 5xx, a
    /// check's own timeout) are retried within the deadline.
    #[uniffi::method(default(options = None))]
    pub async fn await_final_status(&self, reference: String, options: Option<AwaitOptions>) -> Result<Transaction> {
        let options = options.try_into()?;
        let named = Some(reference.clone());
        self.run(
            "await_final_status",
            named,
            |client| async move { client.await_final_status(&reference, &options).await },
        )
        .await
    }

    /// Fetches a country's bank list, bypassing the cache, and stores it.
    ///
    /// Parameters:
    /// - `country`: a two-letter country code, in any case; none: Nigeria.
    ///
    /// Returns: the banks, as the service lists them now (then served from the cache).
    ///
    /// Errors: `InvalidInput` naming `country` (nothing sent), `InvalidCountryCode`, `Unauthorized`
    /// (the key), `RateLimited`, `Timeout` (after `timeout_ms`, retries included), `Network`, `Api`
    /// (any other answer of the service), `UnexpectedResponse`, and `Configuration` once the client is
    /// shut down.
    #[uniffi::method(default(country = None))]
    pub async fn refresh_banks(&self, country: Option<String>) -> Result<Vec<Bank>> {
        self.run("refresh_banks", None, |client| async move { client.refresh_banks(country.as_deref()).await }).await
    }

    /// A view of this client with its own per-call budget (`timeout_ms`, `max_retries`; unset
    /// keeps this client's), over the same connections and bank cache: for a request handler
    /// that must answer sooner than the client's timeout. `shutdown` of any view shuts all.
    ///
    /// Parameters:
    /// - `timeout_ms`: the budget of each whole call of the view, in milliseconds.
    /// - `max_retries`: the retries of a read after a connection error, 5xx or 429.
    ///
    /// Returns: the view, a client of the same kind. Nothing is sent.
    ///
    /// Errors: `Configuration` for a timeout of 0 or over a day, `InvalidInput` naming a negative
    /// value.
    #[uniffi::method(default(timeout_ms = None, max_retries = None))]
    pub fn with_options(&self, timeout_ms: Option<i64>, max_retries: Option<i32>) -> Result<Arc<Self>> {
        Ok(Arc::new(Self(self.0.with_options(call_options(timeout_ms, max_retries)?)?)))
    }

    /// Closes the client's connections and drops its bank cache. Calls in flight finish;
    /// later calls throw `Configuration` ("the client has been shut down"). Calling it again
    /// does nothing. (Not `close`: Kotlin objects already have a `close()` that frees them.)
    pub fn shutdown(&self) {
        self.0.shutdown();
    }
}

/// The foreign (signed, optional) per-call settings as the core's; a negative one is `InvalidInput`.
fn call_options(timeout_ms: Option<i64>, max_retries: Option<i32>) -> Result<crate::CallOptions> {
    Ok(crate::CallOptions {
        timeout_ms: timeout_ms.map(|value| super::unsigned("timeout_ms", value)).transpose()?,
        max_retries: max_retries.map(|value| super::unsigned("max_retries", value.into())).transpose()?,
    })
}

impl Client {
    /// The core client (the ledger decides with it).
    #[cfg(feature = "ledger")]
    pub(crate) fn core(&self) -> &crate::Client {
        &self.0
    }

    /// Runs `call` (the client method `operation`, about `reference`) with a clone of the core
    /// client on the SDK's runtime; the foreign side cancelling the returned future aborts it.
    /// The host's tracer sees it start and end here, on the host's thread (ADR 0058): this
    /// body runs in the host's polls.
    async fn run<T, F>(
        &self,
        operation: &'static str,
        reference: Option<String>,
        call: impl FnOnce(crate::Client) -> F,
    ) -> Result<T>
    where
        F: Future<Output = Result<T>> + Send + 'static,
        T: Decided + Send + 'static,
    {
        logging::follow_host_level();
        let traced = tracer::start(operation, reference.as_deref(), Some(self.0.base_url()));
        let call = trace::scoped(traced.as_ref().map(Traced::trace), call(self.0.clone()));
        let result = runtime::run(call).await;
        if let Some(traced) = traced {
            traced.end(&result);
        }
        result
    }
}

/// The blocking client: the same methods as plain calls, for threads, WSGI servers and Java.
/// Waiting on the network does not hold Python's GIL.
#[derive(uniffi::Object)]
pub struct BlockingClient(crate::BlockingClient);

#[uniffi::export]
impl BlockingClient {
    /// Creates a client; throws `Configuration` on a bad setting, `InvalidInput` on a negative one.
    #[uniffi::constructor]
    pub fn new(config: ClientConfig) -> Result<Arc<Self>> {
        host::check_reported_host()?;
        logging::enable_from_env();
        Ok(Arc::new(Self(crate::BlockingClient::new(config.try_into()?)?)))
    }

    /// Creates a client from `SIKA_SECRET_KEY` and `SIKA_BASE_URL`.
    #[uniffi::constructor]
    pub fn from_env() -> Result<Arc<Self>> {
        host::check_reported_host()?;
        logging::enable_from_env();
        Ok(Arc::new(Self(crate::BlockingClient::new(config::ClientConfig::from_env()?)?)))
    }

    /// See `Client.list_mobile_money_providers`.
    #[uniffi::method(default(country = None))]
    pub fn list_mobile_money_providers(&self, country: Option<String>) -> Result<Vec<MobileMoneyProvider>> {
        self.run("list_mobile_money_providers", None, |client| client.list_mobile_money_providers(country.as_deref()))
    }

    /// See `Client.list_banks`.
    #[uniffi::method(default(country = None))]
    pub fn list_banks(&self, country: Option<String>) -> Result<Vec<Bank>> {
        self.run("list_banks", None, |client| client.list_banks(country.as_deref()))
    }

    /// See `Client.verify_transaction`.
    pub fn verify_transaction(&self, reference: String) -> Result<Transaction> {
        self.run("verify_transaction", Some(&reference), |client| client.verify_transaction(&reference))
    }

    /// See `Client.initiate_charge`.
    pub fn initiate_charge(&self, request: ChargeRequest) -> Result<ChargeResponse> {
        self.run("initiate_charge", Some(&request.reference), |client| client.initiate_charge(&request))
    }

    /// See `Client.confirm_payment`.
    pub fn confirm_payment(&self, reference: String, expected: ExpectedPayment) -> Result<PaymentCheck> {
        self.run("confirm_payment", Some(&reference), |client| client.confirm_payment(&reference, &expected))
    }

    /// See `Client.handle_webhook`.
    pub fn handle_webhook(&self, body: Vec<u8>, expected: ExpectedPayment) -> Result<WebhookDecision> {
        self.run("handle_webhook", None, |client| client.handle_webhook(&body, &expected))
    }

    /// See `Client.await_final_status`; cancel it from another thread with `options.cancellation`.
    #[uniffi::method(default(options = None))]
    pub fn await_final_status(&self, reference: String, options: Option<AwaitOptions>) -> Result<Transaction> {
        let options = options.try_into()?;
        self.run("await_final_status", Some(&reference), |client| client.await_final_status(&reference, &options))
    }

    /// See `Client.refresh_banks`.
    #[uniffi::method(default(country = None))]
    pub fn refresh_banks(&self, country: Option<String>) -> Result<Vec<Bank>> {
        self.run("refresh_banks", None, |client| client.refresh_banks(country.as_deref()))
    }

    /// See `Client.with_options`: a view with its own per-call budget over the same runtime,
    /// connections and bank cache.
    #[uniffi::method(default(timeout_ms = None, max_retries = None))]
    pub fn with_options(&self, timeout_ms: Option<i64>, max_retries: Option<i32>) -> Result<Arc<Self>> {
        Ok(Arc::new(Self(self.0.with_options(call_options(timeout_ms, max_retries)?)?)))
    }

    /// Closes the client's connections, drops its bank cache and stops its runtime in the
    /// background (never blocks). Calls in flight finish; later calls throw `Configuration`
    /// ("the client has been shut down"). Calling it again does nothing.
    pub fn shutdown(&self) {
        self.0.shutdown();
    }
}

impl BlockingClient {
    /// The core client (the ledger decides with it).
    #[cfg(feature = "ledger")]
    pub(crate) fn core(&self) -> &crate::BlockingClient {
        &self.0
    }

    /// Runs `call` (the client method `operation`, about `reference`) as the core blocking
    /// client runs its own (on the caller's thread), after following the host's log level (as
    /// the async client's `run` does): the one place every blocking method goes through. The
    /// host's tracer sees it start and end here, on the caller's thread (ADR 0058).
    fn run<'a, T, F>(
        &'a self,
        operation: &str,
        reference: Option<&str>,
        call: impl FnOnce(&'a crate::Client) -> F,
    ) -> Result<T>
    where
        F: Future<Output = Result<T>>,
        T: Decided,
    {
        logging::follow_host_level();
        let client = self.0.async_client();
        let traced = tracer::start(operation, reference, Some(client.base_url()));
        let result = self.0.run_with(trace::scoped(traced.as_ref().map(Traced::trace), call(client)));
        if let Some(traced) = traced {
            traced.end(&result);
        }
        result
    }
}
