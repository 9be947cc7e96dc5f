//! Values that cross as another UniFFI type. Each language's mapping is in `core/uniffi.toml`.

use std::time::SystemTime;

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

// Timestamps cross as UniFFI's builtin timestamp: Python UTC `datetime`, Kotlin `Instant`,
// Swift `Date`.
uniffi::custom_type!(Timestamp, SystemTime, {
    remote,
    lower: |time| SystemTime::from(time),
    try_lift: |time| Ok(Timestamp::from(time)),
});
