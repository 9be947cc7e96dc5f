//! The blocking client: the same operations for threads, WSGI servers and Java callers.

use std::future::Future;

use tokio::runtime::{Handle, Runtime};

use crate::client::Client;
use crate::config::ClientConfig;
use crate::error::{Result, SikaError};
use crate::models::{Bank, ChargeRequest, ChargeResponse, MobileMoneyProvider, Transaction};
use crate::safety::await_status::AwaitOptions;
use crate::safety::confirm::{ExpectedPayment, PaymentCheck};
use crate::safety::webhook::WebhookDecision;

/// Blocking Sika client. Owns one multi-thread Tokio runtime for its whole life (never one
/// per call) and is safe to share between threads: calls from many threads run at once over
/// one connection pool.
pub struct BlockingClient {
    client: Client,
    runtime: Option<Runtime>,
}

impl BlockingClient {
    /// Creates a client and its runtime; fails with `Configuration` on a bad setting.
    pub fn new(config: ClientConfig) -> Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("sika-blocking")
            .enable_all()
            .build()
            .map_err(|e| SikaError::configuration(format!("cannot start the client's runtime: {e}")))?;
        let client = {
            let _entered = runtime.enter();
            Client::new(config)?
        };
        Ok(Self { client, runtime: Some(runtime) })
    }

    /// Creates a client from `SIKA_SECRET_KEY` and `SIKA_BASE_URL`.
    pub fn from_env() -> Result<Self> {
        Self::new(ClientConfig::from_env()?)
    }

    /// See [`Client::list_mobile_money_providers`].
    pub fn list_mobile_money_providers(&self, country: Option<&str>) -> Result<Vec<MobileMoneyProvider>> {
        let country = country.map(str::to_owned);
        self.run(|client| async move { client.list_mobile_money_providers(country.as_deref()).await })
    }

    /// See [`Client::list_banks`].
    pub fn list_banks(&self, country: Option<&str>) -> Result<Vec<Bank>> {
        let country = country.map(str::to_owned);
        self.run(|client| async move { client.list_banks(country.as_deref()).await })
    }

    /// See [`Client::verify_transaction`].
    pub fn verify_transaction(&self, reference: &str) -> Result<Transaction> {
        let reference = reference.to_owned();
        self.run(|client| async move { client.verify_transaction(&reference).await })
    }

    /// See [`Client::initiate_charge`].
    pub fn initiate_charge(&self, request: &ChargeRequest) -> Result<ChargeResponse> {
        let request = request.clone();
        self.run(|client| async move { client.initiate_charge(&request).await })
    }

    /// See [`Client::confirm_payment`].
    pub fn confirm_payment(&self, reference: &str, expected: &ExpectedPayment) -> Result<PaymentCheck> {
        let (reference, expected) = (reference.to_owned(), expected.clone());
        self.run(|client| async move { client.confirm_payment(&reference, &expected).await })
    }

    /// See [`Client::handle_webhook`].
    pub fn handle_webhook(&self, body: &[u8], expected: &ExpectedPayment) -> Result<WebhookDecision> {
        let (body, expected) = (body.to_vec(), expected.clone());
        self.run(|client| async move { client.handle_webhook(&body, &expected).await })
    }

    /// See [`Client::await_final_status`]. Cancel it from another thread with `options.cancellation`.
    pub fn await_final_status(&self, reference: &str, options: &AwaitOptions) -> Result<Transaction> {
        let (reference, options) = (reference.to_owned(), options.clone());
        self.run(|client| async move { client.await_final_status(&reference, &options).await })
    }

    /// See [`Client::refresh_banks`].
    pub fn refresh_banks(&self, country: Option<&str>) -> Result<Vec<Bank>> {
        let country = country.map(str::to_owned);
        self.run(|client| async move { client.refresh_banks(country.as_deref()).await })
    }

    /// The async client sharing this client's connection pool and cache.
    pub fn async_client(&self) -> &Client {
        &self.client
    }

    /// Runs one call on the runtime and waits for it.
    ///
    /// The call is spawned onto a worker thread and the caller blocks on its `JoinHandle`,
    /// rather than `block_on(call)` polling it on the caller's thread: hyper runs each
    /// connection as a task on a worker, so with `block_on` every step of the exchange (request
    /// handed over, response head, each body chunk) is a wake-up across threads. Spawned, the
    /// call and its connection run on one worker and the caller is woken once, at the end
    /// (about twice the sequential throughput on loopback; see docs/adr/0008-performance.md).
    /// The arguments are owned copies (a reference, a small request) so the task is `'static`.
    fn run<T, F, Fut>(&self, call: F) -> Result<T>
    where
        F: FnOnce(Client) -> Fut,
        Fut: Future<Output = Result<T>> + Send + 'static,
        T: Send + 'static,
    {
        // Blocking inside an async runtime would stall (or, in Tokio, panic): say so instead.
        if Handle::try_current().is_ok() {
            return Err(SikaError::configuration(
                "BlockingClient was called from inside an async runtime; use the async Client there",
            ));
        }
        let Some(runtime) = &self.runtime else {
            return Err(SikaError::configuration("the client has been shut down"));
        };
        match runtime.block_on(runtime.spawn(call(self.client.clone()))) {
            Ok(result) => result,
            // A panic in the call reaches the caller as before (the FFI turns it into an error).
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            Err(_cancelled) => Err(SikaError::configuration("the client has been shut down")),
        }
    }
}

impl Drop for BlockingClient {
    fn drop(&mut self) {
        // `shutdown_background` never blocks, so dropping the client is safe anywhere,
        // including from inside another runtime (a plain drop would panic there).
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl std::fmt::Debug for BlockingClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockingClient").field("client", &self.client).finish()
    }
}
