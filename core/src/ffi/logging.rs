//! Turning on the core's logs from Python, Kotlin or Swift, which have no Rust logger of their
//! own: `enable_logging(level)`, or `SIKA_LOG=debug` in the environment when a client is made.
//! Lines go to standard error. The core never logs the key, headers or full phone numbers.

use std::sync::Once;

/// How much the SDK logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum LogLevel {
    /// Errors only.
    Error,
    /// Also each retry of a read, with its cause.
    Warn,
    /// Also each charge sent (phone number masked).
    Info,
    /// Also one line per request: method, path, outcome, time.
    Debug,
    /// Everything the SDK logs.
    Trace,
}

impl From<LogLevel> for log::LevelFilter {
    fn from(level: LogLevel) -> Self {
        match level {
            LogLevel::Error => Self::Error,
            LogLevel::Warn => Self::Warn,
            LogLevel::Info => Self::Info,
            LogLevel::Debug => Self::Debug,
            LogLevel::Trace => Self::Trace,
        }
    }
}

/// Sends the SDK's logs at `level` and above to standard error. Returns false when a logger
/// was already installed in this process (the first one stays).
#[uniffi::export]
pub fn enable_logging(level: LogLevel) -> bool {
    env_logger::Builder::new()
        .filter_level(log::LevelFilter::Off)
        .filter_module("sika", level.into())
        .target(env_logger::Target::Stderr)
        .try_init()
        .is_ok()
}

/// Honours `SIKA_LOG` (error, warn, info, debug, trace) once per process.
pub(crate) fn enable_from_env() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let level = match std::env::var("SIKA_LOG").unwrap_or_default().to_ascii_lowercase().as_str() {
            "error" => LogLevel::Error,
            "warn" => LogLevel::Warn,
            "info" => LogLevel::Info,
            "debug" => LogLevel::Debug,
            "trace" => LogLevel::Trace,
            _ => return,
        };
        enable_logging(level);
    });
}
