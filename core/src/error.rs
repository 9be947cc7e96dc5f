//! The one error type of Sika.
//!
//! Every message is built from fixed text, the service's own `message`, or a transport
//! description, and each of those passes through the client's key scrubber, so no error
//! ever carries the secret key.

/// Everything that can go wrong in a Sika call. Messages never contain the secret key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Error), uniffi::export(Display))]
pub enum SikaError {
    /// The service answered `Unauthorized`: the secret key is wrong or revoked.
    #[error("unauthorized: the service rejected the secret key")]
    Unauthorized,
    /// The service answered `Invalid country code`.
    #[error("invalid country code: the service does not support this country for this operation")]
    InvalidCountryCode,
    /// The service answered `No providers found`.
    #[error("no mobile money providers found for this country")]
    NoProvidersFound,
    /// The service answered `Transaction not found`: no transaction has this reference.
    #[error("transaction not found")]
    TransactionNotFound,
    /// The service answered `Invalid reference`: the reference's format is not accepted.
    #[error("invalid reference: the service rejected the reference's format")]
    InvalidReference,
    /// The input was rejected before anything was sent.
    #[error("invalid {field}: {reason}")]
    InvalidInput {
        /// The parameter or field name, as in the API (`country`, `reference`, `phone_number`, ...).
        field: String,
        /// Why it was rejected.
        reason: String,
    },
    /// Any other error envelope from the service.
    #[error("service error (HTTP {http_status}): {message}")]
    Api {
        /// The HTTP status of the response.
        http_status: i32,
        /// The envelope's `message`.
        message: String,
    },
    /// The service asked us to slow down (HTTP 429), after any retries.
    #[error("rate limited by the service{}", retry_after_text(*.retry_after_seconds))]
    RateLimited {
        /// The `Retry-After` the service sent, in seconds, when it sent one.
        retry_after_seconds: Option<i64>,
    },
    /// The call did not finish within the configured timeout (all retries included).
    #[error("the request timed out")]
    Timeout,
    /// The service could not be reached or the connection broke.
    #[error("network error: {reason}")]
    Network {
        /// What the transport reported.
        reason: String,
    },
    /// The response was not what the service's interface describes (not JSON, wrong shape).
    #[error("unexpected response (HTTP {http_status}): {reason}")]
    UnexpectedResponse {
        /// The HTTP status of the response.
        http_status: i32,
        /// What was wrong with it.
        reason: String,
    },
    /// A charge was sent but its outcome is unknown (timeout, broken connection, 5xx, garbled
    /// answer): it may or may not have been created. Never send it again blindly: verify
    /// `reference` (or wait for the webhook) to learn what happened.
    #[error("the charge's outcome is unknown ({reason}); verify reference `{reference}` before trying again")]
    ChargeOutcomeUnknown {
        /// The charge's reference, to verify.
        reference: String,
        /// What went wrong after sending.
        reason: String,
    },
    /// The call was cancelled by the caller.
    #[error("the call was cancelled")]
    Cancelled,
    /// The client is misconfigured or misused (bad base URL, missing key, no TLS roots, ...).
    #[error("configuration error: {reason}")]
    Configuration {
        /// What is wrong.
        reason: String,
    },
    /// The ledger's database failed (down, locked past its busy timeout, full, or the
    /// connection was lost mid-change): nothing was recorded half-way and no claim was given.
    /// Try again once the database is back (ADR 0046). Present without the `ledger` feature
    /// too (ADR 0050): a dependent's exhaustive match must not change with cargo's feature
    /// unification.
    #[error("ledger storage error: {reason}")]
    Storage {
        /// What the database reported (never the URL's password).
        reason: String,
    },
    /// `mark_fulfilled` on a claim whose lease expired and that was offered again: another
    /// caller holds the reference's claim now (ADR 0046).
    #[error("the claim on reference `{reference}` was lost: its lease expired and it was offered again")]
    ClaimLost {
        /// The claim's reference.
        reference: String,
    },
}

fn retry_after_text(seconds: Option<i64>) -> String {
    match seconds {
        Some(seconds) => format!("; retry after {seconds} s"),
        None => String::new(),
    }
}

impl SikaError {
    pub(crate) fn invalid_input(field: &str, reason: impl Into<String>) -> Self {
        Self::InvalidInput { field: field.to_owned(), reason: reason.into() }
    }

    pub(crate) fn configuration(reason: impl Into<String>) -> Self {
        Self::Configuration { reason: reason.into() }
    }

    /// A reason may quote the service's text (a decode error names the value it could not
    /// read): it is cut at [`crate::MAX_TEXT_CHARS`] (ADR 0040).
    pub(crate) fn unexpected(http_status: u16, reason: impl Into<String>) -> Self {
        let reason = crate::scrub::bounded(reason.into());
        Self::UnexpectedResponse { http_status: http_status.into(), reason }
    }
}

#[cfg_attr(feature = "uniffi", uniffi::export)]
impl SikaError {
    /// The human-readable message (the same text in every language).
    pub fn message(&self) -> String {
        self.to_string()
    }
}

/// Shorthand for results of Sika calls.
pub type Result<T, E = SikaError> = std::result::Result<T, E>;

impl From<crate::amount::AmountParseError> for SikaError {
    /// Lets `"25.50".parse::<Amount>()?` be used where a `SikaError` is returned.
    fn from(error: crate::amount::AmountParseError) -> Self {
        Self::invalid_input("amount", error.to_string())
    }
}
