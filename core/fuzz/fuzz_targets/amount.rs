//! `Amount::from_str`: never panics; an accepted amount is exactly the number its text says
//! (every digit kept, checked by an independent reading of the text: nothing rounded), and its
//! text parses back to an equal amount with the same text (same digits and scale).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sika_core::Amount;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(amount) = text.parse::<Amount>() {
        let shown = amount.to_string();
        let written = sika_fuzz::exact_value(text);
        assert!(written.is_some(), "{text:?} was accepted but is not a number text");
        assert_eq!(sika_fuzz::exact_value(&shown), written, "{text:?} was accepted as {shown:?}: digits lost");
        let again = shown.parse::<Amount>();
        assert_eq!(again, Ok(amount), "{text:?} shows as {shown:?}, which does not parse back equal");
        let shown_again = again.map(|a| a.to_string()).unwrap_or_default();
        assert_eq!(shown_again, shown, "{text:?}: {shown:?} shows as {shown_again:?} once parsed back");
    }
});
