//! `Amount` crosses the FFI as its exact decimal text; each language rebuilds its own decimal
//! type from it (`uniffi.toml`): Python `Decimal`, Kotlin `BigDecimal`, Swift `Decimal`.

use sika_core::Amount;

use crate::error::SikaError;

uniffi::custom_type!(Amount, String, {
    remote,
    lower: |amount| amount.to_string(),
    // A text that is not a decimal (`NaN`, `Infinity`) becomes a typed InvalidInput, because
    // UniFFI hands a failed argument lift to the function's own error type.
    try_lift: |text| text
        .parse::<Amount>()
        .map_err(|error| SikaError::from(sika_core::SikaError::from(error)).into()),
});
