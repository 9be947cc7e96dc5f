//! The exit codes, for shell scripts and cron jobs (docs/cli.md, ADR 0041). Stable: a code
//! is never reused for another meaning.

use sika_core::SikaError;

/// Done; for `confirm` (and `await --amount --currency`): Confirmed, ship the order; for
/// `await` without an expected payment: final and successful, which is not "paid" (the
/// amount and currency were not checked).
pub const OK: u8 = 0;
/// Not paid: failed, abandoned, reversed or a status the SDK does not know. Do not ship.
pub const NOT_PAID: u8 = 1;
/// A usage error (unknown flag, missing argument, a value out of range): clap's code.
pub const USAGE: u8 = 2;
/// Not yet: still pending (for `await`: at the deadline).
pub const NOT_YET: u8 = 3;
/// The service reports a transaction that does not match the order: investigate.
pub const MISMATCH: u8 = 4;
/// The sandbox's control API refused or could not be reached (`sandbox`, `listen`, `trigger`).
pub const SANDBOX: u8 = 24;
/// Standard output was closed by its reader (`sika providers | head -1`), as shells report a
/// SIGPIPE; nothing more is printed.
pub const OUTPUT_CLOSED: u8 = 141;
/// Interrupted (Ctrl-C), as shells report a SIGINT.
pub const INTERRUPTED: u8 = 130;
/// Stopped by SIGTERM, as shells report it (`await` cancels its wait and exits with it).
pub const TERMINATED: u8 = 143;

/// The code of each error kind of the SDK: 10 to 23.
pub fn for_error(error: &SikaError) -> u8 {
    match error {
        SikaError::Unauthorized { .. } => 10,
        SikaError::InvalidCountryCode { .. } => 11,
        SikaError::NoProvidersFound { .. } => 12,
        SikaError::TransactionNotFound { .. } => 13,
        SikaError::InvalidReference { .. } => 14,
        SikaError::InvalidInput { .. } => 15,
        SikaError::Api { .. } => 16,
        SikaError::RateLimited { .. } => 17,
        SikaError::Timeout { .. } => 18,
        SikaError::Network { .. } => 19,
        SikaError::UnexpectedResponse { .. } => 20,
        SikaError::ChargeOutcomeUnknown { .. } => 21,
        SikaError::Cancelled => INTERRUPTED,
        SikaError::Configuration { .. } => 23,
        // The ledger's (never raised by this command, which keeps no ledger).
        SikaError::Storage { .. } => 25,
        SikaError::ClaimLost { .. } => 26,
    }
}

/// Why the command stopped, and its exit code. The message never holds the key.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    /// The SDK's error kind, or `Usage` (2) and `Sandbox` (24) for the command's own.
    pub kind: &'static str,
    pub message: String,
    /// The SDK error's request id, to quote to support (ADR 0053).
    pub request_id: Option<String>,
}

impl Failure {
    /// A problem with how `sika` was set up (key, base URL): the code of `Configuration`.
    pub fn setup(message: impl Into<String>) -> Self {
        Self { code: 23, kind: "Configuration", message: message.into(), request_id: None }
    }

    pub fn sandbox(message: impl Into<String>) -> Self {
        Self { code: SANDBOX, kind: "Sandbox", message: message.into(), request_id: None }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Self { code: USAGE, kind: "Usage", message: message.into(), request_id: None }
    }

    /// The failure as `--json` prints it: `{"error": {"kind", "message", "exit_code",
    /// "request_id"}}`, its message escaped as on a terminal.
    pub fn to_json(&self) -> String {
        let error = serde_json::json!({
            "kind": self.kind,
            "message": crate::output::escaped(&self.message),
            "exit_code": self.code,
            "request_id": self.request_id.as_deref().map(crate::output::escaped),
        });
        serde_json::json!({ "error": error }).to_string()
    }
}

impl From<SikaError> for Failure {
    fn from(error: SikaError) -> Self {
        Self {
            code: for_error(&error),
            // The core's name of the kind, as `--json` errors give it (`"kind"`).
            kind: error.kind(),
            message: error.to_string(),
            request_id: error.request_id().map(str::to_owned),
        }
    }
}
