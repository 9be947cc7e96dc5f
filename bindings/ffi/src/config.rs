//! Client configuration. The key is an opaque object, not a string field: generated records
//! print every field (`repr`, `toString`, `description`), and the key must never be printed.

use std::sync::Arc;

use crate::error::{Result, SikaError};

/// The merchant's secret key. Opaque: no language can print or read it back.
#[derive(uniffi::Object)]
pub struct SecretKey(sika_core::SecretKey);

#[uniffi::export]
impl SecretKey {
    /// Wraps the key.
    #[uniffi::constructor]
    pub fn new(key: String) -> Arc<Self> {
        Arc::new(Self(sika_core::SecretKey::new(key)))
    }
}

/// Settings of a client. Unset optional values take the core's defaults.
#[derive(uniffi::Record)]
pub struct ClientConfig {
    pub secret_key: Arc<SecretKey>,
    /// `https://...`; plain `http` only for loopback hosts (the sandbox).
    pub base_url: String,
    /// Budget of a whole call, retries included. Default 30000.
    #[uniffi(default = None)]
    pub timeout_ms: Option<u64>,
    /// Budget for opening a connection. Default 10000.
    #[uniffi(default = None)]
    pub connect_timeout_ms: Option<u64>,
    /// Retries of reads after connection errors, 5xx and 429. Default 2. Charges are never retried.
    #[uniffi(default = None)]
    pub max_retries: Option<u32>,
    /// Reuse of a country's bank list, in seconds. Default 3600; 0 turns it off.
    #[uniffi(default = None)]
    pub bank_cache_ttl_seconds: Option<u64>,
    /// Appended to the User-Agent to name your application.
    #[uniffi(default = None)]
    pub user_agent_suffix: Option<String>,
}

impl From<ClientConfig> for sika_core::ClientConfig {
    fn from(config: ClientConfig) -> Self {
        let mut core = sika_core::ClientConfig::new(config.secret_key.0.clone(), config.base_url);
        if let Some(timeout_ms) = config.timeout_ms {
            core.timeout_ms = timeout_ms;
        }
        if let Some(connect_timeout_ms) = config.connect_timeout_ms {
            core.connect_timeout_ms = connect_timeout_ms;
        }
        if let Some(max_retries) = config.max_retries {
            core.max_retries = max_retries;
        }
        if let Some(ttl) = config.bank_cache_ttl_seconds {
            core.bank_cache_ttl_seconds = ttl;
        }
        core.user_agent_suffix = config.user_agent_suffix;
        core
    }
}

/// Reads `SIKA_SECRET_KEY` and `SIKA_BASE_URL`.
pub(crate) fn from_env() -> Result<sika_core::ClientConfig> {
    sika_core::ClientConfig::from_env().map_err(SikaError::from)
}
