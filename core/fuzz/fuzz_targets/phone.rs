//! `normalize_phone_number`: never panics; an accepted number is `^\+\d{8,15}$` and
//! normalizing it again gives it back unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The mobile money countries (any case), one without mobile money, and junk.
const COUNTRIES: [&str; 12] = ["GH", "KE", "UG", "TZ", "NG", "gh", "tZ", "", "G", "GHA", "1A", "\u{c0}B"];

fuzz_target!(|data: &[u8]| {
    let Some((selector, rest)) = data.split_first() else { return };
    let country = COUNTRIES[usize::from(*selector) % COUNTRIES.len()];
    let text = String::from_utf8_lossy(rest);
    if let Ok(number) = sika_core::normalize_phone_number(&text, country) {
        assert!(sika_fuzz::is_international_phone(&number), "{text:?} ({country}) normalized to {number:?}");
        let again = sika_core::normalize_phone_number(&number, country);
        assert_eq!(again.as_deref(), Ok(number.as_str()), "{number:?} ({country}) does not normalize to itself");
    }
});
