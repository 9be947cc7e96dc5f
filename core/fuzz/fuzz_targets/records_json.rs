//! Records as JSON (B63): any text read by a `*_from_json` reader, any webhook body accepted by
//! `parse_webhook_event`, and an `ExpectedPayment` of any amount text the core accepts all write
//! their `to_json()` without a panic (the writer's `expect` holds), and that text reads back to
//! the same record, so `to_json` never needs an internal error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sika_core::{
    ExpectedPayment, bank_from_json, charge_request_from_json, charge_response_from_json, country_info_from_json,
    custom_field_from_json, customer_from_json, expected_payment_from_json, mobile_money_provider_from_json,
    parse_webhook_event, transaction_from_json, webhook_event_from_json,
};

/// Reads `text` with `read`; when it is a record, its `to_json()` reads back to it.
fn round_trip<T: PartialEq + std::fmt::Debug>(
    text: &str,
    read: fn(String) -> sika_core::Result<T>,
    write: fn(&T) -> String,
) {
    if let Ok(record) = read(text.to_owned()) {
        let written = write(&record);
        assert_eq!(
            read(written.clone()).as_ref(),
            Ok(&record),
            "{text:?} wrote {written:?}, which reads back otherwise"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(event) = parse_webhook_event(data) {
        round_trip(&event.to_json(), webhook_event_from_json, |e| e.to_json());
    }
    let Ok(text) = std::str::from_utf8(data) else { return };
    round_trip(text, transaction_from_json, |r| r.to_json());
    round_trip(text, customer_from_json, |r| r.to_json());
    round_trip(text, custom_field_from_json, |r| r.to_json());
    round_trip(text, bank_from_json, |r| r.to_json());
    round_trip(text, mobile_money_provider_from_json, |r| r.to_json());
    round_trip(text, charge_request_from_json, |r| r.to_json());
    round_trip(text, charge_response_from_json, |r| r.to_json());
    round_trip(text, country_info_from_json, |r| r.to_json());
    round_trip(text, webhook_event_from_json, |r| r.to_json());
    round_trip(text, expected_payment_from_json, |r| r.to_json());
    // An order as another language builds it: any amount text the core accepts, any currency.
    let (amount, currency) = text.split_once('\n').unwrap_or((text, "GHS"));
    if let Ok(amount) = amount.parse() {
        let written = ExpectedPayment { amount, currency: currency.to_owned() }.to_json();
        assert!(expected_payment_from_json(written.clone()).is_ok(), "{text:?} wrote {written:?}");
    }
});
