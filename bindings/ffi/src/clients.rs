//! The two client objects. Each method converts its arguments, calls the core, and converts
//! the result; nothing else.

use std::sync::Arc;

use crate::config::{self, ClientConfig};
use crate::error::Result;
use crate::records::{Bank, ChargeRequest, ChargeResponse, MobileMoneyProvider, Transaction};

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
        Ok(Arc::new(Self(sika_core::Client::new(config.into())?)))
    }

    /// Creates a client from `SIKA_SECRET_KEY` and `SIKA_BASE_URL`.
    #[uniffi::constructor]
    pub fn from_env() -> Result<Arc<Self>> {
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

    /// Starts a mobile money charge. Sent once, never retried.
    pub async fn initiate_charge(&self, request: ChargeRequest) -> Result<ChargeResponse> {
        Ok(self.0.initiate_charge(&request.into()).await?.into())
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
        Ok(Arc::new(Self(sika_core::BlockingClient::new(config.into())?)))
    }

    /// Creates a client from `SIKA_SECRET_KEY` and `SIKA_BASE_URL`.
    #[uniffi::constructor]
    pub fn from_env() -> Result<Arc<Self>> {
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
}
