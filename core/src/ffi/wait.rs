//! Options of `await_final_status` as foreign code builds them.

use std::sync::Arc;

use super::unsigned;
use crate::error::Result;
use crate::safety::await_status::Cancellation;

/// How to wait for a final status. Unset values take the core's defaults (first check after
/// 3000 ms, then every 2000 ms doubling up to 10 000 ms, for at most 120 000 ms).
#[derive(uniffi::Record, Default)]
pub struct AwaitOptions {
    /// Wait before the first check; the customer needs time to answer. Default 3000 ms.
    #[uniffi(default = None)]
    pub initial_delay_ms: Option<i64>,
    /// Wait between checks, doubled after each one up to `max_interval_ms`. Default 2000 ms.
    #[uniffi(default = None)]
    pub interval_ms: Option<i64>,
    /// Longest wait between checks. Default 10 000 ms.
    #[uniffi(default = None)]
    pub max_interval_ms: Option<i64>,
    /// Give up after this long, in all. Default 120 000 ms.
    #[uniffi(default = None)]
    pub timeout_ms: Option<i64>,
    /// Stops the wait early when cancelled from another task or thread.
    #[uniffi(default = None)]
    pub cancellation: Option<Arc<Cancellation>>,
}

impl TryFrom<Option<AwaitOptions>> for crate::AwaitOptions {
    type Error = crate::SikaError;

    fn try_from(options: Option<AwaitOptions>) -> Result<Self> {
        let options = options.unwrap_or_default();
        let defaults = Self::default();
        let setting = |field: &str, value: Option<i64>, default: u64| value.map_or(Ok(default), |v| unsigned(field, v));
        Ok(Self {
            initial_delay_ms: setting("initial_delay_ms", options.initial_delay_ms, defaults.initial_delay_ms)?,
            interval_ms: setting("interval_ms", options.interval_ms, defaults.interval_ms)?,
            max_interval_ms: setting("max_interval_ms", options.max_interval_ms, defaults.max_interval_ms)?,
            timeout_ms: setting("timeout_ms", options.timeout_ms, defaults.timeout_ms)?,
            cancellation: options.cancellation.map(|handle| Cancellation::clone(&handle)),
        })
    }
}
