//! The foreign-language surface (feature `uniffi`): only what must differ from the Rust API.
//!
//! Every record, enum and error Python, Kotlin and Swift see is the core's own type, exported
//! where it is defined (ADR 0011). This module holds the rest:
//! - [`custom_types`]: how `Amount` and timestamps cross (exact decimal text, microseconds);
//! - [`config`]: `ClientConfig` with optional, signed settings (Java has no unsigned integers);
//! - [`wait`]: `AwaitOptions`, likewise;
//! - [`clients`]: the two client objects, whose methods take owned arguments;
//! - [`runtime`], [`wake_gate`]: the runtime the async client's calls run on, one per
//!   process, and the gate its wakes of foreign futures pass (closed at a host's exit);
//! - [`jvm_host`]: whether a JVM host still exists, asked before each of its wakes;
//! - `ledger` (feature `ledger`): the ledger objects (`Ledger`, `BlockingLedger`) and their
//!   signed, optional `LedgerOptions` (ADR 0050);
//! - [`bytes`]: the functions that take a body (webhooks, recorded responses);
//! - [`host_buffers`]: a Rust buffer of the host's bytes in one call (Python's lowering);
//! - [`host`]: the host runtime's own facts, so that a client app is refused (ADR 0027);
//! - [`watched_threads`]: a host thread whose blocking calls give way to its signal handlers;
//! - [`logging`]: the core's logs in the host's logging (a sink per host), or on standard error.

mod bytes;
mod clients;
mod config;
mod custom_types;
mod host;
mod host_buffers;
mod jvm_host;
#[cfg(feature = "ledger")]
mod ledger;
mod logging;
mod runtime;
mod tracer;
mod wait;
mod wake_gate;
mod watched_threads;

pub use clients::{BlockingClient, Client};
pub use config::ClientConfig;
pub use host::{check_host_runtime, report_host_runtime};
#[cfg(feature = "ledger")]
pub use ledger::{BlockingLedger, Ledger, LedgerOptions};
pub use logging::{
    LogLevel, LogRecord, LogSink, enable_logging, flush_log_records, log_level_from_env, set_log_sink,
    set_log_sink_level,
};
pub use tracer::{CallEnd, CallStart, EndedCall, TracedCall, Tracer, set_tracer, take_ended_call, trace_next_call};
pub use wait::AwaitOptions;

use crate::error::SikaError;

/// A signed setting from foreign code as the core's unsigned one; a negative value is the same
/// `InvalidInput { field }` in every language.
fn unsigned<T: TryFrom<i64>>(field: &str, value: i64) -> Result<T, SikaError> {
    T::try_from(value).map_err(|_| {
        let reason = if value < 0 { "must not be negative".to_owned() } else { format!("{value} is too large") };
        SikaError::invalid_input(field, reason)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b30_a_negative_setting_is_invalid_input_naming_it() {
        let error = unsigned::<u64>("timeout_ms", -1).expect_err("negative");
        assert_eq!(
            error,
            SikaError::InvalidInput { field: "timeout_ms".into(), reason: "must not be negative".into() }
        );
        assert!(matches!(unsigned::<u32>("max_retries", i64::MAX), Err(SikaError::InvalidInput { .. })));
        assert_eq!(unsigned::<u64>("timeout_ms", 0), Ok(0));
    }

    /// A change to a config with every setting unset.
    type ConfigChange = fn(&mut ClientConfig);

    #[test]
    fn b30_every_negative_config_setting_is_rejected_before_a_client_exists() {
        let config = |change: ConfigChange| {
            let mut config = ClientConfig {
                secret_key: std::sync::Arc::new(crate::SecretKey::new("sk_test_canary_ffi".into())),
                base_url: "https://api.example.com".into(),
                timeout_ms: None,
                connect_timeout_ms: None,
                max_retries: None,
                bank_cache_ttl_seconds: None,
                user_agent_suffix: None,
                proxy: None,
                not_found_grace_ms: None,
                max_connections_per_host: None,
                pool_idle_timeout_ms: None,
            };
            change(&mut config);
            crate::ClientConfig::try_from(config)
        };
        let cases: [(&str, ConfigChange); 7] = [
            ("timeout_ms", |c| c.timeout_ms = Some(-1)),
            ("connect_timeout_ms", |c| c.connect_timeout_ms = Some(-1)),
            ("max_retries", |c| c.max_retries = Some(-1)),
            ("bank_cache_ttl_seconds", |c| c.bank_cache_ttl_seconds = Some(-1)),
            ("not_found_grace_ms", |c| c.not_found_grace_ms = Some(-1)),
            ("max_connections_per_host", |c| c.max_connections_per_host = Some(-1)),
            ("pool_idle_timeout_ms", |c| c.pool_idle_timeout_ms = Some(-1)),
        ];
        for (field, change) in cases {
            match config(change) {
                Err(SikaError::InvalidInput { field: got, .. }) => assert_eq!(got, field),
                other => panic!("{field}: {other:?}"),
            }
        }
        let defaults = config(|_| {}).expect("no settings: the defaults");
        assert_eq!(defaults.timeout_ms, crate::ClientConfig::DEFAULT_TIMEOUT_MS);
    }

    #[test]
    fn b30_every_negative_wait_option_is_rejected() {
        let cases: [(&str, AwaitOptions); 4] = [
            ("initial_delay_ms", AwaitOptions { initial_delay_ms: Some(-5), ..AwaitOptions::default() }),
            ("interval_ms", AwaitOptions { interval_ms: Some(-5), ..AwaitOptions::default() }),
            ("max_interval_ms", AwaitOptions { max_interval_ms: Some(-5), ..AwaitOptions::default() }),
            ("timeout_ms", AwaitOptions { timeout_ms: Some(-5), ..AwaitOptions::default() }),
        ];
        for (field, options) in cases {
            match crate::AwaitOptions::try_from(Some(options)) {
                Err(SikaError::InvalidInput { field: got, .. }) => assert_eq!(got, field),
                other => panic!("{field}: {:?}", other.map(|_| ())),
            }
        }
        let defaults = crate::AwaitOptions::try_from(None).expect("defaults");
        assert_eq!(defaults.timeout_ms, crate::AwaitOptions::default().timeout_ms);
    }
}
