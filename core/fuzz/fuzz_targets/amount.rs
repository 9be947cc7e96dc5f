//! `Amount::from_str`: never panics; an accepted amount's text parses back to an equal
//! amount with the same text (same digits and scale).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sika_core::Amount;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(amount) = text.parse::<Amount>() {
        let shown = amount.to_string();
        let again = shown.parse::<Amount>();
        assert_eq!(again, Ok(amount), "{text:?} shows as {shown:?}, which does not parse back equal");
        let shown_again = again.map(|a| a.to_string()).unwrap_or_default();
        assert_eq!(shown_again, shown, "{text:?}: {shown:?} shows as {shown_again:?} once parsed back");
    }
});
