//! The blocking client: the same operations for threads, WSGI servers and Java callers.

use std::future::Future;
use std::sync::Arc;

use tokio::runtime::{Handle, Runtime};

use crate::client::{CallOptions, Client};
use crate::config::ClientConfig;
use crate::error::{Result, SikaError};
use crate::in_flight::Watch;
use crate::models::{Bank, ChargeRequest, ChargeResponse, MobileMoneyProvider, Transaction};
use crate::process::PerProcess;
use crate::safety::await_status::AwaitOptions;
use crate::safety::confirm::{ExpectedPayment, PaymentCheck};
use crate::safety::webhook::WebhookDecision;

/// Blocking Sika client. Owns one Tokio runtime per process (never one per call) and is safe
/// to share between threads: calls from many threads run at once over one connection pool,
/// each on its caller's thread.
///
/// Safe across `fork`: a process forked from the one that used the client builds its own
/// runtime and connection pool at its first call and leaves the inherited ones alone
/// (docs/adr/0013-process-model.md).
pub struct BlockingClient {
    // Declared first, so dropped first: its connection tasks close their sockets with it.
    /// Shared with the views of `with_options`.
    runtime: Arc<PerProcess<CallRuntime>>,
    client: Client,
}

/// The runtime the calls of one process run on; shut down in the background when dropped,
/// which never blocks, so dropping it is safe anywhere, even inside another runtime (a plain
/// drop would panic there).
struct CallRuntime(Option<Runtime>);

impl CallRuntime {
    fn new() -> Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| SikaError::configuration(format!("cannot start the client's runtime: {e}")))?;
        Ok(Self(Some(runtime)))
    }

    fn runtime(&self) -> &Runtime {
        self.0.as_ref().expect("present until dropped")
    }
}

impl Drop for CallRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

impl BlockingClient {
    /// Creates a client and its runtime; fails with `Configuration` on a bad setting.
    pub fn new(config: ClientConfig) -> Result<Self> {
        let runtime = CallRuntime::new()?;
        let client = {
            let _entered = runtime.runtime().enter();
            Client::new(config)?
        };
        Ok(Self { runtime: Arc::new(PerProcess::new(runtime)), client })
    }

    /// A view with its own per-call budget over the same runtime, connections and bank cache:
    /// see [`Client::with_options`].
    pub fn with_options(&self, options: CallOptions) -> Result<Self> {
        Ok(Self { runtime: Arc::clone(&self.runtime), client: self.client.with_options(options)? })
    }

    /// Creates a client from `SIKA_SECRET_KEY` and `SIKA_BASE_URL`.
    pub fn from_env() -> Result<Self> {
        Self::new(ClientConfig::from_env()?)
    }

    /// See [`Client::list_mobile_money_providers`].
    pub fn list_mobile_money_providers(&self, country: Option<&str>) -> Result<Vec<MobileMoneyProvider>> {
        self.run(self.client.list_mobile_money_providers(country))
    }

    /// See [`Client::list_banks`].
    pub fn list_banks(&self, country: Option<&str>) -> Result<Vec<Bank>> {
        self.run(self.client.list_banks(country))
    }

    /// See [`Client::verify_transaction`].
    pub fn verify_transaction(&self, reference: &str) -> Result<Transaction> {
        self.run(self.client.verify_transaction(reference))
    }

    /// See [`Client::initiate_charge`].
    pub fn initiate_charge(&self, request: &ChargeRequest) -> Result<ChargeResponse> {
        self.run(self.client.initiate_charge(request))
    }

    /// See [`Client::confirm_payment`].
    pub fn confirm_payment(&self, reference: &str, expected: &ExpectedPayment) -> Result<PaymentCheck> {
        self.run(self.client.confirm_payment(reference, expected))
    }

    /// See [`Client::handle_webhook`].
    pub fn handle_webhook(&self, body: &[u8], expected: &ExpectedPayment) -> Result<WebhookDecision> {
        self.run(self.client.handle_webhook(body, expected))
    }

    /// See [`Client::await_final_status`]. Cancel it from another thread with `options.cancellation`.
    pub fn await_final_status(&self, reference: &str, options: &AwaitOptions) -> Result<Transaction> {
        self.run(self.client.await_final_status(reference, options))
    }

    /// See [`Client::refresh_banks`].
    pub fn refresh_banks(&self, country: Option<&str>) -> Result<Vec<Bank>> {
        self.run(self.client.refresh_banks(country))
    }

    /// Closes the connection pool, drops the bank cache and shuts the runtime down in the
    /// background (never blocks). Calls in flight finish; every later call fails with
    /// `Configuration` ("the client has been shut down"). Idempotent. Dropping does the same.
    pub fn shutdown(&self) {
        self.client.shutdown();
        // The last call holding the runtime drops it, and so shuts it down.
        drop(self.runtime.shut_down());
    }

    /// The async client this one drives (the foreign blocking calls and the ledger's run it).
    #[cfg(feature = "uniffi")]
    pub(crate) fn async_client(&self) -> &Client {
        &self.client
    }

    /// Runs `call` as this client runs its own calls (on the caller's thread): for the
    /// foreign blocking calls (traced, ADR 0058) and the ledger's, whose decision is this
    /// client's.
    #[cfg(feature = "uniffi")]
    pub(crate) fn run_with<T>(&self, call: impl Future<Output = Result<T>>) -> Result<T> {
        self.run(call)
    }

    /// Runs one call on the caller's thread and waits for it.
    ///
    /// The runtime is a current-thread one, which many threads may `block_on` at once: one of
    /// them at a time holds the scheduler and drives the sockets, timers and connection tasks
    /// for all, and each call's own future (request, decoding) is polled on its caller's
    /// thread. A lone caller so runs its whole exchange on its own thread, with no wake-up
    /// across threads (the costliest step of a loopback call on a small VM); concurrent callers
    /// hand the driver over as each finishes. See docs/adr/0010-blocking-client-runs-on-the-caller.md.
    fn run<T>(&self, call: impl Future<Output = Result<T>>) -> Result<T> {
        // Blocking inside an async runtime would stall (or, in Tokio, panic): say so instead.
        if Handle::try_current().is_ok() {
            return Err(SikaError::configuration(
                "BlockingClient was called from inside an async runtime; use the async Client there",
            ));
        }
        // This process's runtime: a forked child builds its own (process.rs).
        let runtime = self.runtime.get(CallRuntime::new)?;
        let runtime = runtime.runtime();
        // Nothing drives the runtime between calls, so a close the server sent while the
        // client was idle (a proxy's keep-alive timeout) is still unread: the pool would hand
        // out that dead connection and the request (a charge, say) would be lost on it. Let the
        // runtime read its pending I/O events and run the connection tasks they wake first.
        let result = {
            // Dropped at the end of this block, before the yield below: an interrupted call's
            // request goes with it.
            let watch = Watch::new();
            let call = std::pin::pin!(watch.scope(async {
                let_connection_tasks_catch_up().await;
                call.await
            }));
            run_unless_interrupted(call, &watch, |call| runtime.block_on(call))
        };
        if result.is_err() {
            // A call that ended early (timeout, cancellation) dropped its request, which wakes
            // that connection's task to close the socket; nothing drives the runtime between
            // calls, so give the task its turn now rather than at the next call.
            runtime.block_on(tokio::task::yield_now());
        }
        result
    }
}

/// Runs `call` through `block_on` until it ends, giving way to the host between polls when its
/// thread is watched (interruptions.rs, ADR 0070): each time the host's descriptor is readable
/// `block_on` returns, the host's code runs outside the runtime, and the same call resumes, or
/// is dropped when the host says stop: `Cancelled`, or `ChargeOutcomeUnknown` when a charge of
/// the call (`watch`'s, `call` runs in its scope) may have been sent (ADR 0075).
pub(crate) fn run_unless_interrupted<F: Future<Output = Result<T>> + ?Sized, T>(
    mut call: std::pin::Pin<&mut F>,
    watch: &Watch,
    mut block_on: impl FnMut(std::pin::Pin<Box<dyn Future<Output = Option<Result<T>>> + '_>>) -> Option<Result<T>>,
) -> Result<T> {
    let watched = crate::interruptions::this_thread();
    loop {
        if let Some(result) = block_on(Box::pin(crate::interruptions::until_interrupted(watched, call.as_mut()))) {
            return result;
        }
        if let Some(watched) = watched
            && !crate::interruptions::give_way(watched)
        {
            return Err(watch.ended_early(false));
        }
    }
}

/// Yields twice to a current-thread runtime: Tokio polls the I/O driver (without waiting)
/// before it resumes a yielded task, so the first yield reads the pending socket events and
/// queues the connection tasks they wake, and the second lets those tasks run (a connection
/// that reads the server's FIN leaves the pool) before the call. No sleep: costs a few
/// microseconds when nothing is pending (a cached call: about 4.5 -> 7 µs here).
async fn let_connection_tasks_catch_up() {
    tokio::task::yield_now().await;
    tokio::task::yield_now().await;
}

impl std::fmt::Debug for BlockingClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockingClient").field("client", &self.client).finish()
    }
}
