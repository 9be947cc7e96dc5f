//! The shared bad-input matrix (`tests/fixtures/bad_inputs.json`): each input gets a typed
//! error before anything is sent, or a correct, path-safe request and the service's typed answer.

mod support;

use serde_json::Value;
use sika_core::{Client, ClientConfig, SikaError};
use support::{Sandbox, calls};

async fn run(sandbox: &Sandbox, client: &Client, case: &Value) -> Result<(), SikaError> {
    let input = case["input"].as_object().expect("input");
    let country = input.get("country").map(calls::text);
    match case["operation"].as_str().expect("operation") {
        "verify_transaction" => client.verify_transaction(&calls::text(&input["reference"])).await.map(drop),
        "list_mobile_money_providers" => client.list_mobile_money_providers(country.as_deref()).await.map(drop),
        "list_banks" => client.list_banks(country.as_deref()).await.map(drop),
        "initiate_charge" => client.initiate_charge(&calls::charge_with(&case["input"])?).await.map(drop),
        "new_client" => {
            let mut config = sandbox.config();
            if let Some(key) = input.get("secret_key") {
                config.secret_key = calls::text(key).into();
            }
            if let Some(url) = input.get("base_url") {
                config.base_url = calls::text(url);
            }
            Client::new(config).map(drop)
        }
        other => panic!("unknown operation {other}"),
    }
}

fn error_kind(error: &SikaError) -> String {
    format!("{error:?}").split([' ', '{', '(']).next().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn b30_every_bad_input_is_rejected_or_sent_safely() {
    let sandbox = Sandbox::start();
    let mut config: ClientConfig = sandbox.config();
    config.bank_cache_ttl_seconds = 0;
    let client = Client::new(config).expect("client");
    let matrix: Value = serde_json::from_slice(
        &std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/bad_inputs.json")).expect("matrix"),
    )
    .expect("JSON");
    let cases = matrix["cases"].as_array().expect("cases");
    assert!(cases.len() >= 60, "the matrix shrank: {}", cases.len());
    for case in cases {
        sandbox.clear_requests();
        let result = run(&sandbox, &client, case).await;
        let expect = &case["expect"];
        let sent = sandbox.requests();
        let label = format!("{} {} ({})", case["operation"], case["input"], case["note"]);
        if let Some(field) = expect.get("invalid_input") {
            match &result {
                Err(SikaError::InvalidInput { field: got, .. }) => assert_eq!(got, field, "{label}"),
                other => panic!("{label}: expected InvalidInput, got {other:?}"),
            }
            assert!(sent.is_empty(), "{label}: rejected input was sent: {sent:?}");
        } else if expect.get("configuration").is_some() {
            assert!(matches!(result, Err(SikaError::Configuration { .. })), "{label}: {result:?}");
        } else {
            assert_eq!(sent.len(), 1, "{label}: {sent:?}");
            if let Some(path) = expect.get("sent_path") {
                assert_eq!(&sent[0]["path"], path, "{label}");
                assert!(sent[0]["query"].is_null(), "{label}");
            }
            if let Some(query) = expect.get("sent_query") {
                assert_eq!(&sent[0]["query"], query, "{label}");
            }
            match (expect.get("error"), &result) {
                (Some(kind), Err(error)) => assert_eq!(kind, &error_kind(error), "{label}"),
                (None, Ok(())) => {}
                (want, got) => panic!("{label}: expected {want:?}, got {got:?}"),
            }
        }
    }
}
