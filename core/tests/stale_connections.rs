//! B46: a pooled connection the server closed while idle (a proxy's keep-alive timeout) is
//! never handed to the next blocking call: the call goes out on a new connection and reaches
//! the service, so a charge never comes back `ChargeOutcomeUnknown` for a request the service
//! never received.

mod support;

use std::time::Duration;

use serde_json::json;
use sika_core::{Amount, ChargeRequest, ClientConfig};
use support::Sandbox;

/// Enough rounds that a client which uses the closed connection fails (before the fix, one
/// of the first ten rounds did).
const ROUNDS: u32 = 40;

fn charge(reference: &str) -> ChargeRequest {
    ChargeRequest {
        amount: "5".parse::<Amount>().expect("amount"),
        email: "kofi@example.com".into(),
        phone_number: "+233201230000".into(),
        reference: reference.into(),
        currency: "GHS".into(),
        provider: "MTN".into(),
        callback_url: None,
    }
}

#[test]
fn b46_blocking_charge_after_the_server_closed_the_pooled_connection_reaches_the_server() {
    let sandbox = Sandbox::start();
    // No retries: a charge sent on the dead connection must show, not be hidden by a retry.
    let client = sika_core::BlockingClient::new(ClientConfig { max_retries: 0, ..sandbox.config() }).expect("client");
    sandbox.fault("/charge", "close_after_answer", ROUNDS, json!({}));
    for round in 0..ROUNDS {
        let reference = format!("B46-{round}");
        let response = client.initiate_charge(&charge(&reference));
        assert!(response.is_ok(), "round {round}: {response:?}");
        // The sandbox closed the charge's connection (only the control request's own stays
        // open): its FIN is at the client's socket before the next call starts.
        let open = sandbox.wait_for_open_at_most(1, Duration::from_secs(5)).open;
        assert!(open <= 1, "round {round}: the sandbox still has {open} connections open");
    }
    let charges = sandbox.requests().iter().filter(|request| request["path"] == "/charge").count();
    assert_eq!(charges, ROUNDS as usize, "each charge reached the service once");
}
