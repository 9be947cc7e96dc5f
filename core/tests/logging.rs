//! What the client logs: requests and charges, with the key never and phone numbers masked.

mod support;

use log::LevelFilter;
use sika_core::{Amount, ChargeRequest, Client, ClientConfig};
use support::Sandbox;

#[tokio::test]
async fn b28_logs_name_requests_but_never_the_key_or_a_full_phone_number() {
    support::captured_log::capture(LevelFilter::Trace);
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    client
        .initiate_charge(&ChargeRequest {
            amount: "12.50".parse::<Amount>().expect("amount"),
            email: "ama@example.com".into(),
            phone_number: "+233244129876".into(),
            reference: "LOG-1".into(),
            currency: "GHS".into(),
            provider: "MTN".into(),
            callback_url: None,
        })
        .await
        .expect("charge");
    client.verify_transaction("LOG-1").await.expect("verify");
    let unreachable =
        Client::new(ClientConfig { max_retries: 1, ..ClientConfig::new(support::KEY, "http://127.0.0.1:9") })
            .expect("client");
    let _ = unreachable.list_banks(None).await;

    let lines = support::captured_log::lines();
    let all = lines.join("\n");
    assert!(all.contains("charge LOG-1: 12.50 GHS to +233*******76 via MTN"), "{all}");
    assert!(all.contains("GET /transaction/verify/LOG-1 -> HTTP 200"), "{all}");
    assert!(all.contains("POST /charge -> HTTP 200"), "{all}");
    assert!(all.contains("retry 1"), "a retried read is logged: {all}");
    assert!(!all.contains(support::KEY), "the key was logged: {all}");
    assert!(!all.contains("Bearer"), "an authorization header was logged: {all}");
    assert!(!all.contains("244129876"), "a full phone number was logged: {all}");
}
