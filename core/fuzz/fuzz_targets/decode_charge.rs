//! `decode::charge_response`: never panics, and an accepted body is kept byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (status, body) = sika_fuzz::status_and_body(data);
    if let Ok(response) = sika_core::decode::charge_response(status, body) {
        assert_eq!(response.raw_json.as_bytes(), body, "raw_json differs from the body");
        assert_eq!(response.http_status, i32::from(status));
        assert!((200..300).contains(&status), "a charge was accepted with HTTP status {status}");
        assert_ne!(response.status, Some(false), "a charge was accepted with `status: false`");
    }
});
