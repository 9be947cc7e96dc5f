//! `parse_webhook_event` on any body: never panics; an accepted body is kept as received.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(event) = sika_core::parse_webhook_event(data) {
        assert_eq!(event.raw_json.as_bytes(), data, "raw_json differs from the body");
        assert!(data.len() <= sika_core::MAX_WEBHOOK_BYTES, "an oversized body was accepted");
    }
});
