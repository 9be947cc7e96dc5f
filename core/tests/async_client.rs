//! The async client against the sandbox: every operation, every documented error,
//! validation that sends nothing, path safety and the USSD flow per test number.

mod support;

use std::time::Duration;

use sika_core::{
    Amount, ChargeRequest, Client, ClientConfig, MerchantAction, PaymentType, SikaError, TransactionStatus,
};
use support::{Sandbox, calls, charge, fixture, fixtures_dir, scenario_cases, transaction_object};

#[tokio::test]
async fn b02_providers_default_to_ghana_without_sending_a_country() {
    calls::run_scenario("b02_providers_default.json").await;
}

#[tokio::test]
async fn b20_the_country_table_has_five_countries_and_nigeria_banks_only() {
    calls::run_scenario("b20_countries.json").await;
}

/// A row with a key outside the vocabulary (here `sentt`, a typo of `sent`) fails the runner
/// before any call, rather than pass without checking what it meant to.
#[test]
fn b170_the_scenario_runner_refuses_an_unknown_key() {
    let good =
        serde_json::json!({"operation": "countries", "input": {}, "expect": {"count": 5, "sent": []}, "note": "good"});
    calls::check_keys(&good, "good");
    for typo in [
        serde_json::json!({"operation": "countries", "input": {}, "expect": {"count": 5, "sentt": []}}),
        serde_json::json!({"operation": "countries", "input": {"refrence": "R"}, "expect": {"sent": []}}),
        serde_json::json!({"operation": "countries", "input": {}, "expect": {"sent": []}, "notes": "x"}),
    ] {
        let refused = std::panic::catch_unwind(|| calls::check_keys(&typo, "typo"));
        assert!(refused.is_err(), "the runner accepted {typo}");
    }
}

/// The runners' vocabulary is one fixture that the scenarios README describes: each of its keys is
/// named there, and every client-call row of every scenario file and of `bad_inputs.json` (a
/// file no suite runs yet included) uses only its keys.
#[test]
fn b320_the_scenario_vocabulary_is_one_fixture_the_readme_describes() {
    let words = calls::vocabulary();
    let readme = std::fs::read_to_string(fixtures_dir().join("scenarios/README.md")).expect("README.md");
    for key in words.row.iter().chain(&words.input).chain(&words.expect).chain(&words.answer) {
        let named = readme.contains(&format!("`{key}`")) || readme.contains(&format!("`{key}: "));
        assert!(named, "scenarios/README.md does not describe `{key}`");
    }
    let files = std::fs::read_dir(fixtures_dir().join("scenarios")).expect("scenarios");
    let mut names: Vec<String> = files
        .map(|entry| entry.expect("an entry").file_name().into_string().expect("a name"))
        .filter(|name| name.ends_with(".json") && name != "vocabulary.json")
        .map(|name| format!("scenarios/{name}"))
        .collect();
    names.push("bad_inputs.json".to_owned());
    let mut rows = 0;
    for name in names {
        let cases = fixture(&name)["cases"].as_array().cloned().unwrap_or_else(|| panic!("{name} has no cases"));
        for (index, row) in cases.iter().enumerate() {
            // B13's and B24's files have columns of their own, and so have the rows of
            // `bad_inputs.json` that are not `invalid_input` (its `about` says so).
            let runner_row = if name == "bad_inputs.json" {
                row["expect"].get("invalid_input").is_some()
            } else {
                row.get("operation").is_some()
            };
            if runner_row {
                calls::check_keys(row, &format!("{name} #{index}"));
                rows += 1;
            }
        }
    }
    assert!(rows > 120, "only {rows} rows of client calls were found");
}

#[tokio::test]
async fn b03_providers_per_country_are_sent_upper_case() {
    calls::run_scenario("b03_providers_per_country.json").await;
}

#[tokio::test]
async fn b04_provider_errors_are_typed() {
    calls::run_scenario("b04_provider_errors.json").await;
}

#[tokio::test]
async fn b05_banks_default_to_nigeria_and_carry_their_account_type() {
    calls::run_scenario("b05_banks_default.json").await;
}

#[tokio::test]
async fn b06_banks_of_an_unknown_country_are_an_invalid_country_code() {
    calls::run_scenario("b06_banks_unknown_country.json").await;
}

#[tokio::test]
async fn b27_bank_lists_are_cached_per_country_and_refresh_bypasses_the_cache() {
    calls::run_scenario("b27_bank_cache.json").await;
}

#[tokio::test]
async fn b07_a_wrong_key_is_unauthorized_everywhere() {
    calls::run_scenario("b07_wrong_key.json").await;
}

#[tokio::test]
async fn b08_verification_errors_are_typed() {
    calls::run_scenario("b08_verification_errors.json").await;
}

#[tokio::test]
async fn b09_a_seeded_transaction_decodes_exactly() {
    let sandbox = Sandbox::start();
    let object = transaction_object("ORDER-EXACT", "successful", "100.10").replace("\"gw_ref\"", "\"xyz_ref\"");
    sandbox.seed_transaction(&object);
    let transaction = sandbox.client().verify_transaction("ORDER-EXACT").await.expect("verify");
    assert_eq!(transaction.amount.to_string(), "100.10");
    assert_eq!(transaction.gateway_ref.as_deref(), Some("GW-SEED"));
    assert_eq!(transaction.status, TransactionStatus::Successful);
    assert_eq!(transaction.payment_type, Some(PaymentType::MobileMoney));
    let expected = &fixture("seeded_transaction.json")["expected"];
    assert_eq!(transaction.created_at.map(|time| time.timestamp_millis()), expected["created_at_epoch_ms"].as_i64());
    assert_eq!(transaction.updated_at.map(|time| time.timestamp_millis()), expected["updated_at_epoch_ms"].as_i64());
    let as_value = |text: &str| serde_json::from_str::<serde_json::Value>(text).expect("JSON");
    assert_eq!(as_value(&transaction.raw_json), as_value(&object), "raw_json is the object the service sent");
    assert!(
        transaction.raw_json.contains("\"amount\":100.10"),
        "raw_json keeps the number text: {}",
        transaction.raw_json
    );
}

#[tokio::test]
async fn b10_success_is_never_successful() {
    calls::run_scenario("b10_success_is_unknown.json").await;
}

#[tokio::test]
async fn b160_a_reference_sharing_text_with_the_key_verifies_as_itself() {
    calls::run_scenario("b160_reference_shares_key_text.json").await;
}

#[tokio::test]
async fn b13_a_reference_is_always_one_path_segment() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    for case in scenario_cases("b13_reference_path.json") {
        let (reference, sent_path) = (case["reference"].as_str().expect("reference"), &case["sent_path"]);
        sandbox.seed_transaction(&transaction_object(reference, "pending", "5"));
        sandbox.clear_requests();
        let transaction = client.verify_transaction(reference).await.unwrap_or_else(|e| panic!("{reference}: {e}"));
        assert_eq!(transaction.tx_ref, reference);
        let log = sandbox.requests();
        assert_eq!(log.len(), 1, "{reference}");
        assert_eq!(&log[0]["path"], sent_path, "{reference}");
        assert!(log[0]["query"].is_null(), "{reference}");
    }
}

/// B12 reads the `invalid_input` rows of the shared bad-input matrix (B30 runs all of it).
#[tokio::test]
async fn b12_rejected_input_sends_nothing() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let matrix = fixture("bad_inputs.json");
    let rows: Vec<&serde_json::Value> = matrix["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|row| row["expect"].get("invalid_input").is_some())
        .collect();
    assert!(rows.len() >= 40, "the invalid_input rows shrank: {}", rows.len());
    for (index, row) in rows.into_iter().enumerate() {
        calls::check_row(&sandbox, &client, row, &format!("bad_inputs #{index} ({})", row["note"])).await;
    }
}

#[tokio::test]
async fn b09_a_charged_amount_verifies_exactly() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let request = ChargeRequest {
        amount: "100.10".parse::<Amount>().expect("amount"),
        ..charge("ORDER-CHARGE-1", "+233244123333")
    };
    let response = client.initiate_charge(&request).await.expect("charge");
    assert!(response.raw_json.contains("100.10"), "{}", response.raw_json);
    let transaction = client.verify_transaction("ORDER-CHARGE-1").await.expect("verify");
    assert_eq!(transaction.amount.to_string(), "100.10");
    assert_eq!(transaction.status, TransactionStatus::Pending);
    assert_eq!(transaction.payment_type, Some(PaymentType::MobileMoney));
}

#[tokio::test]
async fn b15_a_duplicate_charge_reference_is_an_api_error_409() {
    calls::run_scenario("b15_duplicate_charge.json").await;
}

#[tokio::test]
async fn b14_the_ussd_flow_ends_as_each_test_number_says() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let numbers = [
        ("0000", TransactionStatus::Successful),
        ("1111", TransactionStatus::Failed),
        ("2222", TransactionStatus::Abandoned),
        ("5678", TransactionStatus::Successful),
    ];
    for (suffix, _) in &numbers {
        client.initiate_charge(&charge(&format!("USSD-{suffix}"), &format!("+23324412{suffix}"))).await.expect(suffix);
    }
    for (suffix, want) in &numbers {
        let transaction = support::wait_for_final(&client, &format!("USSD-{suffix}"), Duration::from_secs(5)).await;
        assert_eq!(&transaction.status, want, "{suffix}");
    }
}

#[tokio::test]
async fn b14_number_3333_stays_pending_and_4444_is_reversed_after_success() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    client.initiate_charge(&charge("USSD-3333", "+233244123333")).await.expect("charge");
    client.initiate_charge(&charge("USSD-4444", "+233244124444")).await.expect("charge");
    let successful =
        support::wait_for_status(&client, "USSD-4444", &TransactionStatus::Successful, Duration::from_secs(5)).await;
    assert_eq!(successful.status, TransactionStatus::Successful);
    let reversed =
        support::wait_for_status(&client, "USSD-4444", &TransactionStatus::Reversed, Duration::from_secs(5)).await;
    assert_eq!(reversed.status, TransactionStatus::Reversed);
    assert_eq!(reversed.status.merchant_action(), MerchantAction::UpdateOrderAndRefund);
    let pending = client.verify_transaction("USSD-3333").await.expect("verify");
    assert_eq!(pending.status, TransactionStatus::Pending, "3333 never resolves");
}

#[tokio::test]
async fn b29_a_server_that_never_answers_times_out_within_the_budget() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let _silent = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket); // accept and never answer
        }
    });
    let mut config = ClientConfig::new(support::KEY, format!("http://{address}"));
    config.timeout_ms = 300;
    let client = Client::new(config).expect("client");
    let started = std::time::Instant::now();
    assert!(matches!(client.verify_transaction("ORDER-1").await.map(|_| ()), Err(SikaError::Timeout { .. })));
    assert!(started.elapsed() < Duration::from_secs(3), "took {:?}", started.elapsed());
}

#[tokio::test]
async fn b16_a_closed_port_is_a_network_error_without_the_key() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let mut config = ClientConfig::new(support::KEY, format!("http://127.0.0.1:{port}"));
    config.max_retries = 0;
    let client = Client::new(config).expect("client");
    match client.list_banks(Some("GH")).await {
        Err(error @ SikaError::Network { .. }) => {
            assert!(!format!("{error} {error:?}").contains(support::KEY));
        }
        other => panic!("expected a network error, got {other:?}"),
    }
}

#[test]
fn b17_plain_http_to_a_remote_host_is_refused() {
    let error = Client::new(ClientConfig::new(support::KEY, "http://api.example.com")).expect_err("must refuse");
    assert!(matches!(error, SikaError::Configuration { .. }));
}
