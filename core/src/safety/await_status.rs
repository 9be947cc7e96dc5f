//! Waiting for the customer's answer to the USSD prompt, by verifying while pending.

use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::error::{Result, SikaError};

/// How to wait for a final status.
#[derive(Debug, Clone)]
pub struct AwaitOptions {
    /// Wait before the first check; the customer needs time to answer. Default 3000 ms.
    pub initial_delay_ms: u64,
    /// Wait between checks, doubled after each one up to `max_interval_ms`. Default 2000 ms.
    pub interval_ms: u64,
    /// Longest wait between checks. Default 10 000 ms.
    pub max_interval_ms: u64,
    /// Give up after this long, in all. Default 120 000 ms (USSD prompts expire within minutes).
    pub timeout_ms: u64,
    /// Stops the wait early when cancelled (for hosts whose task cancellation does not reach Rust).
    pub cancellation: Option<Cancellation>,
}

impl Default for AwaitOptions {
    fn default() -> Self {
        Self {
            initial_delay_ms: 3000,
            interval_ms: 2000,
            max_interval_ms: 10_000,
            timeout_ms: 120_000,
            cancellation: None,
        }
    }
}

impl AwaitOptions {
    pub(crate) fn validate(&self) -> Result<()> {
        let bounded = |name: &str, value: u64, minimum: u64| {
            if (minimum..=crate::ClientConfig::MAX_TIMEOUT_MS).contains(&value) {
                Ok(())
            } else {
                Err(SikaError::invalid_input(
                    name,
                    format!("must be between {minimum} and {} ms", crate::ClientConfig::MAX_TIMEOUT_MS),
                ))
            }
        };
        bounded("initial_delay_ms", self.initial_delay_ms, 0)?;
        bounded("interval_ms", self.interval_ms, 1)?;
        bounded("max_interval_ms", self.max_interval_ms, self.interval_ms)?;
        bounded("timeout_ms", self.timeout_ms, 1)
    }
}

/// A handle that stops a wait from another task or thread. Cloning shares the handle.
#[derive(Debug, Clone, Default)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Object))]
pub struct Cancellation(CancellationToken);

#[cfg_attr(feature = "uniffi", uniffi::export)]
impl Cancellation {
    /// A new, uncancelled handle.
    #[cfg_attr(feature = "uniffi", uniffi::constructor)]
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops every wait that uses this handle; they end with `SikaError::Cancelled`.
    pub fn cancel(&self) {
        self.0.cancel();
    }

    /// Whether `cancel` was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

impl Cancellation {
    /// Runs `work` until it ends or the handle is cancelled.
    pub(crate) async fn run<T>(&self, work: impl Future<Output = Result<T>>) -> Result<T> {
        tokio::select! {
            biased;
            () = self.0.cancelled() => Err(SikaError::Cancelled),
            result = work => result,
        }
    }
}

/// Errors after which checking again can succeed: the service was unreachable or busy. (A
/// charge not visible yet, `TransactionNotFound`, has its own bound: the grace, ADR 0023.)
pub(crate) fn is_worth_retrying(error: &SikaError) -> bool {
    match error {
        SikaError::Timeout { .. } | SikaError::Network { .. } | SikaError::RateLimited { .. } => true,
        SikaError::Api { http_status, .. } | SikaError::UnexpectedResponse { http_status, .. } => *http_status >= 500,
        _ => false,
    }
}

/// The polling schedule: the first wait, then doubling waits capped at the maximum.
pub(crate) struct Schedule {
    pub deadline: Instant,
    next_wait: Duration,
    interval: Duration,
    max_interval: Duration,
}

impl Schedule {
    pub(crate) fn new(options: &AwaitOptions) -> Self {
        Self {
            deadline: Instant::now() + Duration::from_millis(options.timeout_ms),
            next_wait: Duration::from_millis(options.initial_delay_ms),
            interval: Duration::from_millis(options.interval_ms),
            max_interval: Duration::from_millis(options.max_interval_ms),
        }
    }

    /// Sleeps until the next check; false when the next check would fall past the deadline.
    pub(crate) async fn wait(&mut self) -> bool {
        let wake = Instant::now() + self.next_wait;
        if wake >= self.deadline {
            return false;
        }
        tokio::time::sleep_until(wake).await;
        self.next_wait = self.interval;
        self.interval = (self.interval * 2).min(self.max_interval);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b23_options_are_checked() {
        assert!(AwaitOptions::default().validate().is_ok());
        let bad = [
            AwaitOptions { interval_ms: 0, ..AwaitOptions::default() },
            AwaitOptions { timeout_ms: 0, ..AwaitOptions::default() },
            AwaitOptions { max_interval_ms: 1000, interval_ms: 2000, ..AwaitOptions::default() },
            AwaitOptions { timeout_ms: u64::MAX, ..AwaitOptions::default() },
        ];
        for options in bad {
            assert!(matches!(options.validate(), Err(SikaError::InvalidInput { .. })), "{options:?}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn b23_the_schedule_doubles_up_to_its_cap_and_stops_at_the_deadline() {
        let options = AwaitOptions {
            initial_delay_ms: 100,
            interval_ms: 100,
            max_interval_ms: 300,
            timeout_ms: 1000,
            cancellation: None,
        };
        let mut schedule = Schedule::new(&options);
        let started = Instant::now();
        let mut checks = Vec::new();
        while schedule.wait().await {
            checks.push(started.elapsed().as_millis());
        }
        assert_eq!(checks, [100, 200, 400, 700]);
    }

    #[tokio::test]
    async fn b23_a_cancelled_handle_ends_the_work() {
        let cancellation = Cancellation::new();
        cancellation.cancel();
        let result = cancellation.run(std::future::pending::<Result<()>>()).await;
        assert_eq!(result, Err(SikaError::Cancelled));
    }
}
