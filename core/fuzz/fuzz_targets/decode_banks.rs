//! `decode::banks_response` on any status and body: never panics, hangs or over-allocates.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (status, body) = sika_fuzz::status_and_body(data);
    let _ = sika_core::decode::banks_response(status, body);
});
