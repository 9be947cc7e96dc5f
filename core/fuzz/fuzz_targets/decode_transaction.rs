//! `decode::transaction_response` on any status and body: never panics, and never reports
//! `Successful` (paid) unless the body says exactly `"successful"`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::Deserialize;
use sika_core::TransactionStatus;

/// An independent reading of `data.status` (serde's derive, which also rejects a duplicated key).
#[derive(Deserialize)]
struct Envelope {
    data: Data,
}

#[derive(Deserialize)]
struct Data {
    status: String,
}

fuzz_target!(|data: &[u8]| {
    let (status, body) = sika_fuzz::status_and_body(data);
    let Ok(transaction) = sika_core::decode::transaction_response(status, body) else { return };
    assert!((200..300).contains(&status), "a transaction was decoded from HTTP status {status}");
    if transaction.status == TransactionStatus::Successful {
        let body_text = String::from_utf8_lossy(body);
        // The invariant: a paid status needs the exact JSON string "successful" in the body.
        // JSON may spell a letter as a \u escape (`"successfu\u006c"` is the same string), so a
        // body with a \u escape is checked by the independent reading below only.
        assert!(
            sika_fuzz::contains(body, b"\"successful\"") || sika_fuzz::contains(body, b"\\u"),
            "Successful without the text \"successful\" in {body_text:?}"
        );
        let independent = serde_json::from_slice::<Envelope>(body).map(|envelope| envelope.data.status);
        assert!(
            matches!(independent.as_deref(), Ok("successful")),
            "Successful, but data.status reads {independent:?} in {body_text:?}"
        );
    }
});
