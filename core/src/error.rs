//! The one error type of Sika.
//!
//! Every message is built from fixed text, the service's own `message`, or a transport
//! description, and each of those passes through the client's key scrubber, so no error
//! ever carries the secret key.

/// Everything that can go wrong in a Sika call. Messages never contain the secret key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Error), uniffi::export(Display))]
// The core's own tests build each kind from its sample in tests/fixtures/errors.json (ADR 0084).
#[cfg_attr(test, derive(serde::Deserialize), serde(tag = "kind", content = "fields"))]
pub enum SikaError {
    /// The service answered `Unauthorized`: the secret key is wrong or revoked.
    #[error("unauthorized: the service rejected the secret key{}", request_id_text(.request_id))]
    Unauthorized {
        /// The id to quote to support: the service's `X-Request-Id` of the answer, else the one
        /// Sika sent with the last attempt; `None` when no request preceded it (ADR 0053).
        request_id: Option<String>,
    },
    /// The service answered `Invalid country code`.
    #[error("invalid country code: the service does not support this country for this operation{}", request_id_text(.request_id))]
    InvalidCountryCode {
        /// The id to quote to support: the service's `X-Request-Id` of the answer, else the one
        /// Sika sent with the last attempt; `None` when no request preceded it (ADR 0053).
        request_id: Option<String>,
    },
    /// The service answered `No providers found`.
    #[error("no mobile money providers found for this country{}", request_id_text(.request_id))]
    NoProvidersFound {
        /// The id to quote to support: the service's `X-Request-Id` of the answer, else the one
        /// Sika sent with the last attempt; `None` when no request preceded it (ADR 0053).
        request_id: Option<String>,
    },
    /// The service answered `Transaction not found`: no transaction has this reference.
    #[error("transaction not found{}", request_id_text(.request_id))]
    TransactionNotFound {
        /// The id to quote to support: the service's `X-Request-Id` of the answer, else the one
        /// Sika sent with the last attempt; `None` when no request preceded it (ADR 0053).
        request_id: Option<String>,
    },
    /// The service answered `Invalid reference`: the reference's format is not accepted.
    #[error("invalid reference: the service rejected the reference's format{}", request_id_text(.request_id))]
    InvalidReference {
        /// The id to quote to support: the service's `X-Request-Id` of the answer, else the one
        /// Sika sent with the last attempt; `None` when no request preceded it (ADR 0053).
        request_id: Option<String>,
    },
    /// The input was rejected before anything was sent.
    #[error("invalid {field}: {reason}")]
    InvalidInput {
        /// The parameter or field name, as in the API (`country`, `reference`, `phone_number`, ...).
        field: String,
        /// Why it was rejected.
        reason: String,
    },
    /// Any other error envelope from the service.
    #[error("service error (HTTP {http_status}): {message}{}", request_id_text(.request_id))]
    Api {
        /// The HTTP status of the response.
        http_status: i32,
        /// The envelope's `message`.
        message: String,
        /// The id to quote to support: the service's `X-Request-Id` of the answer, else the one
        /// Sika sent with the last attempt; `None` when no request preceded it (ADR 0053).
        request_id: Option<String>,
    },
    /// The service asked us to slow down (HTTP 429), after any retries.
    #[error("rate limited by the service{}{}", retry_after_text(*.retry_after_seconds), request_id_text(.request_id))]
    RateLimited {
        /// The `Retry-After` the service sent, in seconds, when it sent one.
        retry_after_seconds: Option<i64>,
        /// The id to quote to support: the service's `X-Request-Id` of the answer, else the one
        /// Sika sent with the last attempt; `None` when no request preceded it (ADR 0053).
        request_id: Option<String>,
    },
    /// The call did not finish within the configured timeout (all retries included).
    #[error("the request timed out{}", request_id_text(.request_id))]
    Timeout {
        /// The id to quote to support: the service's `X-Request-Id` of the answer, else the one
        /// Sika sent with the last attempt; `None` when no request preceded it (ADR 0053).
        request_id: Option<String>,
    },
    /// The service could not be reached or the connection broke.
    #[error("network error: {reason}{}", request_id_text(.request_id))]
    Network {
        /// What the transport reported.
        reason: String,
        /// The id to quote to support: the service's `X-Request-Id` of the answer, else the one
        /// Sika sent with the last attempt; `None` when no request preceded it (ADR 0053).
        request_id: Option<String>,
    },
    /// The response was not what the service's interface describes (not JSON, wrong shape).
    #[error("unexpected response (HTTP {http_status}): {reason}{}", request_id_text(.request_id))]
    UnexpectedResponse {
        /// The HTTP status of the response.
        http_status: i32,
        /// What was wrong with it.
        reason: String,
        /// The id to quote to support: the service's `X-Request-Id` of the answer, else the one
        /// Sika sent with the last attempt; `None` when no request preceded it (ADR 0053).
        request_id: Option<String>,
    },
    /// A charge was sent but its outcome is unknown (timeout, broken connection, 5xx, garbled
    /// answer): it may or may not have been created. Never send it again blindly: verify
    /// `reference` (or wait for the webhook) to learn what happened.
    #[error("the charge's outcome is unknown ({reason}); verify reference `{reference}` before trying again{}", request_id_text(.request_id))]
    ChargeOutcomeUnknown {
        /// The charge's reference, to verify.
        reference: String,
        /// What went wrong after sending.
        reason: String,
        /// The id to quote to support: the service's `X-Request-Id` of the answer, else the one
        /// Sika sent with the last attempt; `None` when no request preceded it (ADR 0053).
        request_id: Option<String>,
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

fn request_id_text(request_id: &Option<String>) -> String {
    match request_id {
        Some(id) => format!(" (request id {id})"),
        None => String::new(),
    }
}

fn retry_after_text(seconds: Option<i64>) -> String {
    match seconds {
        Some(seconds) => format!("; retry after {seconds} s"),
        None => String::new(),
    }
}

impl SikaError {
    /// The variant's name, as every language names the kind (`"TransactionNotFound"`): the
    /// `error.type` of a trace (ADR 0058) and the `kind` of the `sika` command's errors.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Unauthorized { .. } => "Unauthorized",
            Self::InvalidCountryCode { .. } => "InvalidCountryCode",
            Self::NoProvidersFound { .. } => "NoProvidersFound",
            Self::TransactionNotFound { .. } => "TransactionNotFound",
            Self::InvalidReference { .. } => "InvalidReference",
            Self::InvalidInput { .. } => "InvalidInput",
            Self::Api { .. } => "Api",
            Self::RateLimited { .. } => "RateLimited",
            Self::Timeout { .. } => "Timeout",
            Self::Network { .. } => "Network",
            Self::UnexpectedResponse { .. } => "UnexpectedResponse",
            Self::ChargeOutcomeUnknown { .. } => "ChargeOutcomeUnknown",
            Self::Cancelled => "Cancelled",
            Self::Configuration { .. } => "Configuration",
            Self::Storage { .. } => "Storage",
            Self::ClaimLost { .. } => "ClaimLost",
        }
    }

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
        Self::UnexpectedResponse { http_status: http_status.into(), reason, request_id: None }
    }
}

/// The `request_id` field of the variants that follow a request, `None` for the others: one
/// list for `request_id` (`&self`) and its slot (`&mut self`), which bind the field by reference
/// as the error is borrowed.
macro_rules! request_id_field {
    ($error:expr) => {
        match $error {
            SikaError::Unauthorized { request_id }
            | SikaError::InvalidCountryCode { request_id }
            | SikaError::NoProvidersFound { request_id }
            | SikaError::TransactionNotFound { request_id }
            | SikaError::InvalidReference { request_id }
            | SikaError::Api { request_id, .. }
            | SikaError::RateLimited { request_id, .. }
            | SikaError::Timeout { request_id }
            | SikaError::Network { request_id, .. }
            | SikaError::UnexpectedResponse { request_id, .. }
            | SikaError::ChargeOutcomeUnknown { request_id, .. } => Some(request_id),
            SikaError::InvalidInput { .. }
            | SikaError::Cancelled
            | SikaError::Configuration { .. }
            | SikaError::Storage { .. }
            | SikaError::ClaimLost { .. } => None,
        }
    };
}

impl SikaError {
    /// The id to quote to support: the service's `X-Request-Id` of the answer it sent, else
    /// the `X-Request-Id` Sika sent with the call's last attempt. `None` for the errors no
    /// request preceded (`InvalidInput`, `Configuration`, `Cancelled`, `Storage`, `ClaimLost`)
    /// and for errors read from bytes (`decode_*`, `parse_webhook_event`). ADR 0053.
    pub fn request_id(&self) -> Option<&str> {
        request_id_field!(self).and_then(Option::as_deref)
    }

    /// The slot of the variants that follow a request.
    fn request_id_slot(&mut self) -> Option<&mut Option<String>> {
        request_id_field!(self)
    }

    /// The error with `id` as its request id, unless it has one already (the service's, set
    /// closer to the answer, wins) or is a kind no request precedes.
    pub(crate) fn with_request_id(mut self, id: Option<&str>) -> Self {
        if let (Some(slot @ None), Some(id)) = (self.request_id_slot(), id) {
            *slot = Some(id.to_owned());
        }
        self
    }

    /// The error without its request id, and the id: for an error quoted inside another's text.
    pub(crate) fn take_request_id(mut self) -> (Self, Option<String>) {
        let id = self.request_id_slot().and_then(Option::take);
        (self, id)
    }

    /// The error with `scrub` applied to its request id (the service's text, ADR 0040).
    pub(crate) fn map_request_id(mut self, scrub: impl FnOnce(&str) -> String) -> Self {
        if let Some(slot @ Some(_)) = self.request_id_slot() {
            *slot = slot.as_deref().map(scrub);
        }
        self
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

#[cfg(test)]
pub(crate) mod tests;
