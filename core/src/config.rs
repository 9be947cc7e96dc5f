//! Client configuration and its checks.

use std::net::IpAddr;

use url::{Host, Url};

use crate::error::{Result, SikaError};
use crate::secret::{SecretKey, SecretUrl};

/// Settings of a [`Client`](crate::Client) or [`BlockingClient`](crate::BlockingClient).
#[derive(Clone)]
pub struct ClientConfig {
    /// The merchant's secret key (`Authorization: Bearer <key>`). Server-side only.
    pub secret_key: SecretKey,
    /// The service's base address. Must be `https://`, except a loopback host (the sandbox).
    pub base_url: String,
    /// Budget for one whole call, retries, backoff and the wait for a connection included.
    /// Default 20 000 ms: a call that ends in `Timeout` still leaves a request handler time to
    /// answer under a 30 s worker timeout (gunicorn's default; ADR 0039).
    pub timeout_ms: u64,
    /// Budget for opening one connection. Default 10 000 ms.
    pub connect_timeout_ms: u64,
    /// Retries of a read (GET) after a connection error, 5xx or 429. Default 2. A charge is never retried.
    pub max_retries: u32,
    /// How long a country's bank list is reused. Default 3600 s; 0 turns the cache off.
    pub bank_cache_ttl_seconds: u64,
    /// Appended to the `User-Agent` (`sika/<version> <suffix>`), to name your application.
    pub user_agent_suffix: Option<String>,
    /// An HTTP CONNECT proxy for https targets, `http://[user:password@]host:port`. Loopback
    /// targets never use a proxy, and environment proxies (`HTTPS_PROXY`, ...) are ignored
    /// (ADR 0021). A [`SecretUrl`]: the credentials are never printed (ADR 0040).
    pub proxy: Option<SecretUrl>,
    /// How long a reference the service does not know may be "not visible yet", counted from
    /// this process's first "not found" for it (ADR 0023). Within it, `handle_webhook` answers
    /// `RetryLater` (503) and `await_final_status` keeps checking; after it, `Reject` (400) and
    /// `TransactionNotFound`. Default 300 000 ms (five minutes); 0: no grace.
    pub not_found_grace_ms: u64,
    /// Most sockets this client holds open to the service at once (connecting, in use or idle),
    /// per process: each holds one of these from before it connects until it closes. A quarter
    /// (none below 4) is kept for charges, so reads use at most the rest. A call beyond it
    /// waits for a connection inside its own `timeout_ms` (a charge that never got one was
    /// never sent: `Timeout`, not `ChargeOutcomeUnknown`). Default 32 (ADR 0038, ADR 0065): a
    /// small share of the common 1,024-descriptor limit; at least 1.
    pub max_connections_per_host: u32,
    /// How long an idle pooled connection is kept for reuse. Default 2 000 ms, well under
    /// common server keep-alive timeouts (Node's 5 s), so a read never goes out on a
    /// connection the server is closing (ADR 0038). 0 keeps no idle connection.
    pub pool_idle_timeout_ms: u64,
}

// By hand, naming every field; the key and the proxy print as `[REDACTED]` (their own Debug),
// and so do the credentials of a `base_url` that has some (refused when a client is made, but
// a configuration may be printed before).
impl std::fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("secret_key", &self.secret_key)
            .field("base_url", &crate::secret::without_credentials(&self.base_url))
            .field("timeout_ms", &self.timeout_ms)
            .field("connect_timeout_ms", &self.connect_timeout_ms)
            .field("max_retries", &self.max_retries)
            .field("bank_cache_ttl_seconds", &self.bank_cache_ttl_seconds)
            .field("user_agent_suffix", &self.user_agent_suffix)
            .field("proxy", &self.proxy)
            .field("not_found_grace_ms", &self.not_found_grace_ms)
            .field("max_connections_per_host", &self.max_connections_per_host)
            .field("pool_idle_timeout_ms", &self.pool_idle_timeout_ms)
            .finish()
    }
}

impl ClientConfig {
    /// Default for [`timeout_ms`](Self::timeout_ms).
    pub const DEFAULT_TIMEOUT_MS: u64 = 20_000;
    /// Default for [`connect_timeout_ms`](Self::connect_timeout_ms).
    pub const DEFAULT_CONNECT_TIMEOUT_MS: u64 = 10_000;
    /// Default for [`max_retries`](Self::max_retries).
    pub const DEFAULT_MAX_RETRIES: u32 = 2;
    /// Default for [`bank_cache_ttl_seconds`](Self::bank_cache_ttl_seconds).
    pub const DEFAULT_BANK_CACHE_TTL_SECONDS: u64 = 3600;
    /// Default for [`not_found_grace_ms`](Self::not_found_grace_ms): five minutes.
    pub const DEFAULT_NOT_FOUND_GRACE_MS: u64 = 300_000;
    /// Default for [`max_connections_per_host`](Self::max_connections_per_host).
    pub const DEFAULT_MAX_CONNECTIONS_PER_HOST: u32 = 32;
    /// Upper bound of [`max_connections_per_host`](Self::max_connections_per_host).
    pub const MAX_CONNECTIONS_PER_HOST: u32 = 4096;
    /// Default for [`pool_idle_timeout_ms`](Self::pool_idle_timeout_ms).
    pub const DEFAULT_POOL_IDLE_TIMEOUT_MS: u64 = 2_000;

    /// Upper bound of the timeouts: one day (a deadline must stay representable).
    pub const MAX_TIMEOUT_MS: u64 = 86_400_000;

    /// A configuration with every default.
    pub fn new(secret_key: impl Into<SecretKey>, base_url: impl Into<String>) -> Self {
        Self {
            secret_key: secret_key.into(),
            base_url: base_url.into(),
            timeout_ms: Self::DEFAULT_TIMEOUT_MS,
            connect_timeout_ms: Self::DEFAULT_CONNECT_TIMEOUT_MS,
            max_retries: Self::DEFAULT_MAX_RETRIES,
            bank_cache_ttl_seconds: Self::DEFAULT_BANK_CACHE_TTL_SECONDS,
            user_agent_suffix: None,
            proxy: None,
            not_found_grace_ms: Self::DEFAULT_NOT_FOUND_GRACE_MS,
            max_connections_per_host: Self::DEFAULT_MAX_CONNECTIONS_PER_HOST,
            pool_idle_timeout_ms: Self::DEFAULT_POOL_IDLE_TIMEOUT_MS,
        }
    }

    /// Reads `SIKA_SECRET_KEY` and `SIKA_BASE_URL`; every other setting takes its default.
    pub fn from_env() -> Result<Self> {
        let read = |name: &str| {
            std::env::var(name)
                .ok()
                .filter(|value| !value.is_empty())
                .ok_or_else(|| SikaError::configuration(format!("environment variable {name} is not set")))
        };
        Ok(Self::new(read("SIKA_SECRET_KEY")?, read("SIKA_BASE_URL")?))
    }

    /// Checks every setting; returns the parsed base URL.
    pub(crate) fn validate(&self) -> Result<Url> {
        self.proxy_url()?;
        if self.secret_key.is_empty() {
            return Err(SikaError::configuration("secret_key is empty"));
        }
        // Checked here so a bad key fails at construction with a clear message, not later
        // as an opaque header error; the message never repeats the key.
        if !self.secret_key.expose().bytes().all(|b| b.is_ascii_graphic()) {
            return Err(SikaError::configuration("secret_key contains white space, control or non-ASCII characters"));
        }
        for (name, value) in [("timeout_ms", self.timeout_ms), ("connect_timeout_ms", self.connect_timeout_ms)] {
            if value == 0 || value > Self::MAX_TIMEOUT_MS {
                return Err(SikaError::configuration(format!(
                    "{name} must be between 1 and {} (one day)",
                    Self::MAX_TIMEOUT_MS
                )));
            }
        }
        if self.not_found_grace_ms > Self::MAX_TIMEOUT_MS {
            return Err(SikaError::configuration(format!(
                "not_found_grace_ms must be at most {} (one day)",
                Self::MAX_TIMEOUT_MS
            )));
        }
        if self.max_connections_per_host == 0 || self.max_connections_per_host > Self::MAX_CONNECTIONS_PER_HOST {
            return Err(SikaError::configuration(format!(
                "max_connections_per_host must be between 1 and {}",
                Self::MAX_CONNECTIONS_PER_HOST
            )));
        }
        if self.pool_idle_timeout_ms > Self::MAX_TIMEOUT_MS {
            return Err(SikaError::configuration(format!(
                "pool_idle_timeout_ms must be at most {} (one day)",
                Self::MAX_TIMEOUT_MS
            )));
        }
        if let Some(suffix) = &self.user_agent_suffix {
            if suffix.is_empty() || !suffix.bytes().all(|b| b == b' ' || b.is_ascii_graphic()) {
                return Err(SikaError::configuration("user_agent_suffix must be printable ASCII"));
            }
        }
        parse_base_url(&self.base_url)
    }
}

impl ClientConfig {
    /// The parsed [`proxy`](Self::proxy), checked. Errors never repeat the text (it may hold
    /// a password).
    pub(crate) fn proxy_url(&self) -> Result<Option<Url>> {
        let Some(text) = self.proxy.as_ref().map(SecretUrl::expose) else { return Ok(None) };
        let invalid = |reason: &str| SikaError::invalid_input("proxy", reason);
        let url = Url::parse(text).map_err(|_| invalid("is not a URL"))?;
        if url.scheme() != "http" {
            return Err(invalid("must be an http:// URL of an HTTP CONNECT proxy"));
        }
        if url.host().is_none() || url.port_or_known_default().is_none() {
            return Err(invalid("has no host"));
        }
        if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
            return Err(invalid("must be http://[user:password@]host:port, without a path or query"));
        }
        Ok(Some(url))
    }
}

fn parse_base_url(text: &str) -> Result<Url> {
    let url = Url::parse(text).map_err(|e| SikaError::configuration(format!("base_url is not a URL: {e}")))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(SikaError::configuration("base_url must not contain credentials"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(SikaError::configuration("base_url must not have a query or fragment"));
    }
    match url.scheme() {
        "https" => Ok(url),
        "http" if is_loopback(&url) => Ok(url),
        "http" => Err(SikaError::configuration(
            "base_url must use https:// (plain http is only allowed for loopback hosts such as the sandbox)",
        )),
        other => Err(SikaError::configuration(format!("base_url scheme `{other}` is not supported; use https://"))),
    }
}

/// Whether the URL's host is this machine: `localhost`, 127.0.0.0/8 or `::1`.
pub(crate) fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(base_url: &str) -> ClientConfig {
        ClientConfig::new("sk_test_key", base_url)
    }

    #[test]
    fn b17_defaults_are_the_documented_ones() {
        let config = config("https://api.example.com");
        assert_eq!(config.timeout_ms, 20_000);
        assert_eq!(config.connect_timeout_ms, 10_000);
        assert_eq!(config.max_retries, 2);
        assert_eq!(config.bank_cache_ttl_seconds, 3600);
        assert_eq!(config.user_agent_suffix, None);
        assert_eq!(config.not_found_grace_ms, 300_000);
        assert_eq!(config.max_connections_per_host, 32);
        assert_eq!(config.pool_idle_timeout_ms, 2_000);
    }

    #[test]
    fn b74_the_connection_cap_is_at_least_one_and_bounded() {
        for (cap, valid) in [(0, false), (1, true), (32, true), (4096, true), (4097, false)] {
            let config = ClientConfig { max_connections_per_host: cap, ..config("https://api.example.com") };
            assert_eq!(config.validate().is_ok(), valid, "{cap}");
        }
    }

    #[test]
    fn b17_https_anywhere_http_only_on_loopback() {
        for good in [
            "https://api.example.com",
            "https://api.example.com/v1/",
            "http://127.0.0.1:8080",
            "http://[::1]:1",
            "http://localhost:3000",
            "http://127.8.9.10",
        ] {
            assert!(config(good).validate().is_ok(), "{good}");
        }
        for bad in [
            "http://api.example.com",
            "http://10.0.0.1",
            "ftp://127.0.0.1",
            "https://user:pw@api.example.com",
            "https://api.example.com/?x=1",
            "not a url",
            "",
        ] {
            assert!(matches!(config(bad).validate(), Err(SikaError::Configuration { .. })), "{bad}");
        }
    }

    #[test]
    fn b17_timeouts_must_be_positive_and_bounded() {
        for (timeout_ms, connect_timeout_ms) in [(0, 1), (1, 0), (u64::MAX, 1), (1, ClientConfig::MAX_TIMEOUT_MS + 1)] {
            let mut config = config("https://api.example.com");
            config.timeout_ms = timeout_ms;
            config.connect_timeout_ms = connect_timeout_ms;
            assert!(
                matches!(config.validate(), Err(SikaError::Configuration { .. })),
                "{timeout_ms} {connect_timeout_ms}"
            );
        }
    }

    #[test]
    fn b53_the_not_found_grace_may_be_zero_and_at_most_a_day() {
        for (grace_ms, valid) in
            [(0, true), (ClientConfig::MAX_TIMEOUT_MS, true), (ClientConfig::MAX_TIMEOUT_MS + 1, false)]
        {
            let config = ClientConfig { not_found_grace_ms: grace_ms, ..config("https://api.example.com") };
            assert_eq!(config.validate().is_ok(), valid, "{grace_ms}");
        }
    }

    #[test]
    fn b17_key_problems_are_reported_without_the_key() {
        for key in ["", "sk test", "sk_test\n", "sk_tést"] {
            let error = ClientConfig::new(key, "https://api.example.com").validate().expect_err(key);
            let text = error.to_string();
            assert!(matches!(error, SikaError::Configuration { .. }));
            if !key.is_empty() {
                assert!(!text.contains(key), "{text}");
            }
        }
    }

    #[test]
    fn b65_debug_output_hides_the_proxy_password() {
        let mut config = ClientConfig::new("sk_test_canary_key", "https://api.example.com");
        config.proxy = Some("http://user:pa55word_canary@proxy.example.com:3128".into());
        let printed = format!("{config:?}");
        assert!(!printed.contains("pa55word"), "{printed}");
        assert!(config.proxy_url().expect("a valid proxy").is_some(), "the URL is kept, only never shown");
    }

    #[test]
    fn b65_no_printed_form_of_a_configuration_shows_a_password() {
        let mut config = ClientConfig::new("sk_test_canary_key", "https://merchant:pa55word_base@api.example.com");
        config.proxy = Some("http://merchant:pa55word_proxy@proxy.example.com:3128".into());
        let printed = format!("{config:?} {config:#?}");
        assert!(!printed.contains("pa55word") && !printed.contains("merchant:"), "{printed}");
        assert!(printed.contains("https://[REDACTED]@api.example.com"), "{printed}");
        // The client made from it refuses the base URL's credentials, without printing them.
        let error = config.validate().expect_err("credentials in base_url");
        assert!(!format!("{error} {error:?}").contains("pa55word"));
    }

    #[test]
    fn b17_debug_output_hides_the_key() {
        let printed = format!("{:?}", ClientConfig::new("sk_test_canary_key", "https://api.example.com"));
        assert!(!printed.contains("canary"), "{printed}");
    }
}
