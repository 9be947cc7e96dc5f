//! The one error boundary: core errors become `SikaError` for foreign code, with their
//! fields and their message (Python `str(e)`, Kotlin `message`, Swift `description`).

use std::fmt;

/// Everything that can go wrong in a Sika call. Messages never contain the secret key.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Error)]
#[uniffi::export(Display)]
pub enum SikaError {
    /// The service rejected the secret key (`Unauthorized`).
    Unauthorized,
    /// The service does not support the country for this operation (`Invalid country code`).
    InvalidCountryCode,
    /// The country has no mobile money providers (`No providers found`).
    NoProvidersFound,
    /// No transaction has this reference (`Transaction not found`).
    TransactionNotFound,
    /// The service rejected the reference's format (`Invalid reference`).
    InvalidReference,
    /// The input was rejected before anything was sent.
    InvalidInput { field: String, reason: String },
    /// Any other error envelope from the service.
    Api { http_status: u16, message: String },
    /// The service asked to slow down (HTTP 429), after any retries.
    RateLimited { retry_after_seconds: Option<u64> },
    /// The call did not finish within the configured timeout, retries included.
    Timeout,
    /// The service could not be reached or the connection broke.
    Network { reason: String },
    /// The response was not what the service's interface describes.
    UnexpectedResponse { http_status: u16, reason: String },
    /// A charge was sent but its outcome is unknown: verify `reference` before trying again.
    ChargeOutcomeUnknown { reference: String, reason: String },
    /// The call was cancelled by the caller.
    Cancelled,
    /// The client is misconfigured or misused.
    Configuration { reason: String },
}

#[uniffi::export]
impl SikaError {
    /// The human-readable message (the same text as the Rust core's).
    pub fn message(&self) -> String {
        self.to_string()
    }
}

impl From<sika_core::SikaError> for SikaError {
    fn from(error: sika_core::SikaError) -> Self {
        use sika_core::SikaError as Core;
        match error {
            Core::Unauthorized => Self::Unauthorized,
            Core::InvalidCountryCode => Self::InvalidCountryCode,
            Core::NoProvidersFound => Self::NoProvidersFound,
            Core::TransactionNotFound => Self::TransactionNotFound,
            Core::InvalidReference => Self::InvalidReference,
            Core::InvalidInput { field, reason } => Self::InvalidInput { field, reason },
            Core::Api { http_status, message } => Self::Api { http_status, message },
            Core::RateLimited { retry_after_seconds } => Self::RateLimited { retry_after_seconds },
            Core::Timeout => Self::Timeout,
            Core::Network { reason } => Self::Network { reason },
            Core::UnexpectedResponse { http_status, reason } => Self::UnexpectedResponse { http_status, reason },
            Core::ChargeOutcomeUnknown { reference, reason } => Self::ChargeOutcomeUnknown { reference, reason },
            Core::Cancelled => Self::Cancelled,
            Core::Configuration { reason } => Self::Configuration { reason },
        }
    }
}

impl From<&SikaError> for sika_core::SikaError {
    fn from(error: &SikaError) -> Self {
        use SikaError as Ffi;
        match error.clone() {
            Ffi::Unauthorized => Self::Unauthorized,
            Ffi::InvalidCountryCode => Self::InvalidCountryCode,
            Ffi::NoProvidersFound => Self::NoProvidersFound,
            Ffi::TransactionNotFound => Self::TransactionNotFound,
            Ffi::InvalidReference => Self::InvalidReference,
            Ffi::InvalidInput { field, reason } => Self::InvalidInput { field, reason },
            Ffi::Api { http_status, message } => Self::Api { http_status, message },
            Ffi::RateLimited { retry_after_seconds } => Self::RateLimited { retry_after_seconds },
            Ffi::Timeout => Self::Timeout,
            Ffi::Network { reason } => Self::Network { reason },
            Ffi::UnexpectedResponse { http_status, reason } => Self::UnexpectedResponse { http_status, reason },
            Ffi::ChargeOutcomeUnknown { reference, reason } => Self::ChargeOutcomeUnknown { reference, reason },
            Ffi::Cancelled => Self::Cancelled,
            Ffi::Configuration { reason } => Self::Configuration { reason },
        }
    }
}

impl fmt::Display for SikaError {
    /// The core's text, so every language shows the same message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&sika_core::SikaError::from(self), f)
    }
}

impl std::error::Error for SikaError {}

/// Shorthand for exported results.
pub(crate) type Result<T> = std::result::Result<T, SikaError>;
