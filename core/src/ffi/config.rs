//! Client configuration as foreign code builds it.

use std::fmt;
use std::sync::Arc;

use super::unsigned;
use crate::error::Result;
use crate::secret::{SecretKey, SecretUrl};

/// Settings of a client. Unset optional values take the core's defaults.
#[derive(uniffi::Record)]
#[uniffi::export(Display)]
pub struct ClientConfig {
    /// Your secret key; server-side only. An opaque object: it never prints.
    pub secret_key: Arc<SecretKey>,
    /// `https://...`; plain `http` only for loopback hosts (the sandbox).
    pub base_url: String,
    /// Budget of a whole call, retries and the wait for a connection included. Default 20000
    /// (under a 30 s worker timeout, with time to answer).
    #[uniffi(default = None)]
    pub timeout_ms: Option<i64>,
    /// Budget for opening a connection. Default 10000.
    #[uniffi(default = None)]
    pub connect_timeout_ms: Option<i64>,
    /// Retries of reads after connection errors, 5xx and 429. Default 2. Charges are never retried.
    #[uniffi(default = None)]
    pub max_retries: Option<i32>,
    /// Reuse of a country's bank list, in seconds. Default 3600; 0 turns it off.
    #[uniffi(default = None)]
    pub bank_cache_ttl_seconds: Option<i64>,
    /// Appended to the User-Agent to name your application.
    #[uniffi(default = None)]
    pub user_agent_suffix: Option<String>,
    /// An HTTP CONNECT proxy for https targets, `SecretUrl("http://[user:password@]host:port")`:
    /// an opaque object, so its password never prints (B81); loopback targets never use one,
    /// and environment proxies are ignored.
    #[uniffi(default = None)]
    pub proxy: Option<Arc<SecretUrl>>,
    /// How long a reference the service does not know may be "not visible yet", from this
    /// process's first "not found" for it: a webhook is then answered 503 (`RetryLater`), and
    /// `await_final_status` keeps checking. Default 300000 (five minutes); 0: no grace.
    #[uniffi(default = None)]
    pub not_found_grace_ms: Option<i64>,
    /// Most sockets open to the service at once (connecting, in use or idle); a quarter (none
    /// below 4) is kept for charges. A call beyond it waits for one within its own timeout.
    /// Default 32; at least 1.
    #[uniffi(default = None)]
    pub max_connections_per_host: Option<i32>,
    /// How long an idle connection is kept for reuse. Default 2000, under common server
    /// keep-alive timeouts (Node's 5 s); 0 keeps none.
    #[uniffi(default = None)]
    pub pool_idle_timeout_ms: Option<i64>,
}

/// Kotlin's `toString()` and Swift's `description` (a data class or a struct would print every
/// field whole): printed as the core's configuration is, the key and the proxy as their objects
/// print (`[REDACTED]`), and a `base_url`'s credentials (refused when a client is made, but a
/// configuration may be printed before) as `[REDACTED]` (B81).
impl fmt::Display for ClientConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The settings given, their values as given; unset ones take the core's defaults (`..`).
        fn given<T: fmt::Debug>(shown: &mut fmt::DebugStruct<'_, '_>, name: &str, value: &Option<T>) {
            if let Some(value) = value {
                shown.field(name, value);
            }
        }
        // Destructured whole, so a new setting cannot be left out of the printed form.
        let Self {
            secret_key,
            base_url,
            timeout_ms,
            connect_timeout_ms,
            max_retries,
            bank_cache_ttl_seconds,
            user_agent_suffix,
            proxy,
            not_found_grace_ms,
            max_connections_per_host,
            pool_idle_timeout_ms,
        } = self;
        let mut shown = f.debug_struct("ClientConfig");
        shown.field("secret_key", secret_key);
        shown.field("base_url", &crate::secret::without_credentials(base_url));
        given(&mut shown, "timeout_ms", timeout_ms);
        given(&mut shown, "connect_timeout_ms", connect_timeout_ms);
        given(&mut shown, "max_retries", max_retries);
        given(&mut shown, "bank_cache_ttl_seconds", bank_cache_ttl_seconds);
        given(&mut shown, "user_agent_suffix", user_agent_suffix);
        given(&mut shown, "proxy", proxy);
        given(&mut shown, "not_found_grace_ms", not_found_grace_ms);
        given(&mut shown, "max_connections_per_host", max_connections_per_host);
        given(&mut shown, "pool_idle_timeout_ms", pool_idle_timeout_ms);
        shown.finish_non_exhaustive()
    }
}

impl TryFrom<ClientConfig> for crate::ClientConfig {
    type Error = crate::SikaError;

    fn try_from(config: ClientConfig) -> Result<Self> {
        let mut core = Self::new(SecretKey::clone(&config.secret_key), config.base_url);
        if let Some(value) = config.timeout_ms {
            core.timeout_ms = unsigned("timeout_ms", value)?;
        }
        if let Some(value) = config.connect_timeout_ms {
            core.connect_timeout_ms = unsigned("connect_timeout_ms", value)?;
        }
        if let Some(value) = config.max_retries {
            core.max_retries = unsigned("max_retries", value.into())?;
        }
        if let Some(value) = config.bank_cache_ttl_seconds {
            core.bank_cache_ttl_seconds = unsigned("bank_cache_ttl_seconds", value)?;
        }
        core.user_agent_suffix = config.user_agent_suffix;
        core.proxy = config.proxy.map(|url| SecretUrl::clone(&url));
        if let Some(value) = config.not_found_grace_ms {
            core.not_found_grace_ms = unsigned("not_found_grace_ms", value)?;
        }
        if let Some(value) = config.max_connections_per_host {
            core.max_connections_per_host = unsigned("max_connections_per_host", value.into())?;
        }
        if let Some(value) = config.pool_idle_timeout_ms {
            core.pool_idle_timeout_ms = unsigned("pool_idle_timeout_ms", value)?;
        }
        Ok(core)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b81_a_printed_configuration_shows_no_key_and_no_credentials() {
        let config = ClientConfig {
            secret_key: Arc::new(SecretKey::from("sk_test_canary_B81_key")),
            base_url: "https://merchant:pa55word_B81@api.example.com/v1".to_owned(),
            timeout_ms: Some(5_000),
            connect_timeout_ms: None,
            max_retries: None,
            bank_cache_ttl_seconds: None,
            user_agent_suffix: Some("shop/1.0".to_owned()),
            proxy: Some(Arc::new(SecretUrl::from("http://proxy-user:pa55word_B81@proxy.internal:3128"))),
            not_found_grace_ms: None,
            max_connections_per_host: None,
            pool_idle_timeout_ms: None,
        };
        let printed = config.to_string();
        for secret in ["sk_test_canary_B81_key", "pa55word_B81", "merchant", "proxy-user"] {
            assert!(!printed.contains(secret), "{secret} printed: {printed}");
        }
        assert!(printed.contains("https://[REDACTED]@api.example.com/v1"), "{printed}");
        // The settings given, as given (not `Some(5000)`); the unset ones are the defaults, `..`.
        assert!(printed.contains("timeout_ms: 5000,") && printed.contains("shop/1.0"), "{printed}");
        assert!(!printed.contains("Some(") && !printed.contains("max_retries"), "{printed}");
        assert!(printed.ends_with(", .. }"), "{printed}");
    }
}
