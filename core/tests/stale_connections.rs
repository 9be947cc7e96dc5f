//! B46: a pooled connection the server closed while idle (a proxy's keep-alive timeout) is
//! never handed to the next blocking call: the call goes out on a new connection and reaches
//! the service, so a charge never comes back `ChargeOutcomeUnknown` for a request the service
//! never received.

mod support;

use std::time::Duration;

use serde_json::json;
use sika_core::ClientConfig;
use support::{Sandbox, charge, scenario};

#[test]
fn b46_blocking_charge_after_the_server_closed_the_pooled_connection_reaches_the_server() {
    // faults.json's `stale_pooled_connection`: enough rounds that a client which uses the closed
    // connection fails (before the fix, one of the first ten rounds did).
    let setup = scenario("stale_pooled_connection");
    let (path, kind) = (setup["path"].as_str().expect("path"), setup["kind"].as_str().expect("kind"));
    let rounds = setup["rounds"].as_u64().expect("rounds") as u32;
    // No retries: a charge sent on the dead connection must show, not be hidden by a retry.
    let max_retries = setup["max_retries"].as_u64().expect("max_retries") as u32;
    let sandbox = Sandbox::start();
    let client = sika_core::BlockingClient::new(ClientConfig { max_retries, ..sandbox.config() }).expect("client");
    sandbox.fault(path, kind, rounds, json!({}));
    for round in 0..rounds {
        let reference = format!("B46-{round}");
        let response = client.initiate_charge(&charge(&reference, "+233244125678"));
        assert!(response.is_ok(), "round {round}: {response:?}");
        // The sandbox closed the charge's connection (only the control request's own stays
        // open): its FIN is at the client's socket before the next call starts.
        let open = sandbox.wait_for_open_at_most(1, Duration::from_secs(5)).open;
        assert!(open <= 1, "round {round}: the sandbox still has {open} connections open");
    }
    let charges = sandbox.requests().iter().filter(|request| request["path"] == path).count();
    assert_eq!(charges, rounds as usize, "each charge reached the service once");
}
