//! The two client objects. Each method converts its arguments, calls the core, and converts
//! the result; nothing else.

use std::sync::Arc;

use crate::config::{self, ClientConfig};
use crate::error::Result;
use crate::logging;
use crate::records::{Bank, ChargeRequest, ChargeResponse, MobileMoneyProvider, Transaction};
use crate::safety::{AwaitOptions, ExpectedPayment, PaymentCheck, WebhookDecision};

fn converted<T, U: From<T>>(items: Vec<T>) -> Vec<U> {
    items.into_iter().map(U::from).collect()
}

/// The async client: Python coroutines, Kotlin `suspend` functions, Swift `async` methods.
/// Share one per process; it is safe to use from many tasks at once.
#[derive(uniffi::Object)]
pub struct Client(sika_core::Client);

#[uniffi::export(async_runtime = "tokio")]
impl Client {
    /// Creates a client; throws `Configuration` on a bad setting.
    #[uniffi::constructor]
    pub fn new(config: ClientConfig) -> Result<Arc<Self>> {
        logging::enable_from_env();
        Ok(Arc::new(Self(sika_core::Client::new(config.into())?)))
    }

    /// Creates a client from `SIKA_SECRET_KEY` and `SIKA_BASE_URL`.
    #[uniffi::constructor]
    pub fn from_env() -> Result<Arc<Self>> {
        logging::enable_from_env();
        Ok(Arc::new(Self(sika_core::Client::new(config::from_env()?)?)))
    }

    /// Lists the mobile money providers of a country (GH, KE, UG, TZ); none: the service's default, GH.
    #[uniffi::method(default(country = None))]
    pub async fn list_mobile_money_providers(&self, country: Option<String>) -> Result<Vec<MobileMoneyProvider>> {
        Ok(converted(self.0.list_mobile_money_providers(country.as_deref()).await?))
    }

    /// Lists the banks of a country (GH, NG, KE, UG, TZ); none: the service's default, NG. Cached.
    #[uniffi::method(default(country = None))]
    pub async fn list_banks(&self, country: Option<String>) -> Result<Vec<Bank>> {
        Ok(converted(self.0.list_banks(country.as_deref()).await?))
    }

    /// Verifies a transaction by your reference. Only status `Successful` means paid.
    pub async fn verify_transaction(&self, reference: String) -> Result<Transaction> {
        Ok(self.0.verify_transaction(&reference).await?.into())
    }

    /// Starts a mobile money charge. Sent once, never retried; when its outcome is unknown,
    /// throws `ChargeOutcomeUnknown` naming the reference to verify.
    pub async fn initiate_charge(&self, request: ChargeRequest) -> Result<ChargeResponse> {
        Ok(self.0.initiate_charge(&request.into()).await?.into())
    }

    /// Verifies `reference` and checks it against the order. Ship only on `Confirmed`.
    pub async fn confirm_payment(&self, reference: String, expected: ExpectedPayment) -> Result<PaymentCheck> {
        Ok(self.0.confirm_payment(&reference, &expected.into()).await?.into())
    }

    /// Decides what to do with a webhook notification for the order `expected` describes.
    pub async fn handle_webhook(&self, body: Vec<u8>, expected: ExpectedPayment) -> Result<WebhookDecision> {
        Ok(self.0.handle_webhook(&body, &expected.into()).await?.into())
    }

    /// Verifies while pending until the status is final; throws `Timeout` or `Cancelled`.
    #[uniffi::method(default(options = None))]
    pub async fn await_final_status(&self, reference: String, options: Option<AwaitOptions>) -> Result<Transaction> {
        let options = options.unwrap_or_default().into();
        Ok(self.0.await_final_status(&reference, &options).await?.into())
    }

    /// Fetches a country's bank list, bypassing the cache, and stores it.
    #[uniffi::method(default(country = None))]
    pub async fn refresh_banks(&self, country: Option<String>) -> Result<Vec<Bank>> {
        Ok(converted(self.0.refresh_banks(country.as_deref()).await?))
    }
}

/// The blocking client: the same methods as plain calls, for threads, WSGI servers and Java.
/// Waiting on the network does not hold Python's GIL.
#[derive(uniffi::Object)]
pub struct BlockingClient(sika_core::BlockingClient);

#[uniffi::export]
impl BlockingClient {
    /// Creates a client; throws `Configuration` on a bad setting.
    #[uniffi::constructor]
    pub fn new(config: ClientConfig) -> Result<Arc<Self>> {
        logging::enable_from_env();
        Ok(Arc::new(Self(sika_core::BlockingClient::new(config.into())?)))
    }

    /// Creates a client from `SIKA_SECRET_KEY` and `SIKA_BASE_URL`.
    #[uniffi::constructor]
    pub fn from_env() -> Result<Arc<Self>> {
        logging::enable_from_env();
        Ok(Arc::new(Self(sika_core::BlockingClient::new(config::from_env()?)?)))
    }

    /// See `Client.list_mobile_money_providers`.
    #[uniffi::method(default(country = None))]
    pub fn list_mobile_money_providers(&self, country: Option<String>) -> Result<Vec<MobileMoneyProvider>> {
        Ok(converted(self.0.list_mobile_money_providers(country.as_deref())?))
    }

    /// See `Client.list_banks`.
    #[uniffi::method(default(country = None))]
    pub fn list_banks(&self, country: Option<String>) -> Result<Vec<Bank>> {
        Ok(converted(self.0.list_banks(country.as_deref())?))
    }

    /// See `Client.verify_transaction`.
    pub fn verify_transaction(&self, reference: String) -> Result<Transaction> {
        Ok(self.0.verify_transaction(&reference)?.into())
    }

    /// See `Client.initiate_charge`.
    pub fn initiate_charge(&self, request: ChargeRequest) -> Result<ChargeResponse> {
        Ok(self.0.initiate_charge(&request.into())?.into())
    }

    /// See `Client.confirm_payment`.
    pub fn confirm_payment(&self, reference: String, expected: ExpectedPayment) -> Result<PaymentCheck> {
        Ok(self.0.confirm_payment(&reference, &expected.into())?.into())
    }

    /// See `Client.handle_webhook`.
    pub fn handle_webhook(&self, body: Vec<u8>, expected: ExpectedPayment) -> Result<WebhookDecision> {
        Ok(self.0.handle_webhook(&body, &expected.into())?.into())
    }

    /// See `Client.await_final_status`; cancel it from another thread with `options.cancellation`.
    #[uniffi::method(default(options = None))]
    pub fn await_final_status(&self, reference: String, options: Option<AwaitOptions>) -> Result<Transaction> {
        let options = options.unwrap_or_default().into();
        Ok(self.0.await_final_status(&reference, &options)?.into())
    }

    /// See `Client.refresh_banks`.
    #[uniffi::method(default(country = None))]
    pub fn refresh_banks(&self, country: Option<String>) -> Result<Vec<Bank>> {
        Ok(converted(self.0.refresh_banks(country.as_deref())?))
    }
}
