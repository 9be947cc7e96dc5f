//! Values that cross as another UniFFI type. Each language's mapping is in the root `uniffi.toml`.

use crate::amount::Amount;
use crate::error::SikaError;
use crate::timestamp::Timestamp;

// Money crosses as its exact decimal text; each language rebuilds its own decimal type from it:
// Python `Decimal`, Kotlin `BigDecimal`, Swift `Decimal`. A text that is not a decimal (`NaN`,
// `Infinity`) becomes a typed InvalidInput, because UniFFI hands a failed argument lift to the
// function's own error type.
uniffi::custom_type!(Amount, String, {
    remote,
    lower: |amount| amount.to_string(),
    try_lift: |text| text.parse::<Amount>().map_err(|error| SikaError::from(error).into()),
});

// Timestamps cross as microseconds since the epoch, and each language builds its own time from
// them (uniffi.toml at the repository root): Python UTC `datetime`, Kotlin `Instant`, Swift `Date` (ADR 0022).
// Not as UniFFI's builtin timestamp: its wire (whole seconds with a sign, then nanoseconds)
// has no negative zero, so a time between -1 s and the epoch crossed as its mirror image
// (`1969-12-31T23:59:59.500Z` arrived as `1970-01-01T00:00:00.500Z`), in every language and
// both directions. Microseconds are what every language holds exactly (Python's `datetime`
// stops there), and the core reads times to the microsecond, so nothing is lost.
uniffi::custom_type!(Timestamp, i64, {
    remote,
    lower: |time| time.timestamp_micros(),
    try_lift: |micros| {
        Timestamp::from_timestamp_micros(micros).ok_or_else(|| {
            SikaError::invalid_input("timestamp", format!("{micros} microseconds from the epoch is out of range")).into()
        })
    },
});
