//! The async client against the sandbox: every operation, every documented error,
//! validation that sends nothing, path safety and the USSD flow per test number.

mod support;

use std::time::Duration;

use sika_core::{
    Amount, BankAccountType, ChargeRequest, Client, ClientConfig, MerchantAction, PaymentType, SikaError,
    TransactionStatus,
};
use support::{Sandbox, fixture, scenario_cases, transaction_object};

fn charge(reference: &str, phone: &str, amount: &str) -> ChargeRequest {
    ChargeRequest {
        amount: amount.parse::<Amount>().expect("amount"),
        email: "ama@example.com".into(),
        phone_number: phone.into(),
        reference: reference.into(),
        currency: "GHS".into(),
        provider: "MTN".into(),
        callback_url: Some("https://shop.example.com/return".into()),
    }
}

#[tokio::test]
async fn b02_providers_default_to_ghana_without_sending_a_country() {
    let sandbox = Sandbox::start();
    let providers = sandbox.client().list_mobile_money_providers(None).await.expect("providers");
    assert_eq!(providers.len(), 3);
    assert!(providers.iter().all(|p| p.country == "Ghana" && p.currency == "GHS" && p.provider_type == "mobile_money"));
    let log = sandbox.requests();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0]["path"], "/mobile-money-providers");
    assert!(log[0]["query"].is_null(), "no country parameter is sent: {:?}", log[0]);
}

#[tokio::test]
async fn b03_providers_per_country_are_sent_upper_case() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    for (code, currency, count) in [("ke", "KES", 2), ("Ug", "UGX", 2), ("TZ", "TZS", 2), ("gh", "GHS", 3)] {
        let providers = client.list_mobile_money_providers(Some(code)).await.expect(code);
        assert_eq!(providers.len(), count, "{code}");
        assert!(providers.iter().all(|p| p.currency == currency), "{code}");
    }
    let queries: Vec<_> =
        sandbox.requests().iter().map(|r| r["query"].as_str().unwrap_or_default().to_owned()).collect();
    assert_eq!(queries, ["country=KE", "country=UG", "country=TZ", "country=GH"]);
}

#[tokio::test]
async fn b04_provider_errors_are_typed() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    assert_eq!(client.list_mobile_money_providers(Some("NG")).await, Err(SikaError::NoProvidersFound));
    assert_eq!(client.list_mobile_money_providers(Some("ZZ")).await, Err(SikaError::InvalidCountryCode));
}

#[tokio::test]
async fn b05_b06_banks_default_to_nigeria_and_carry_their_account_type() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let nigeria = client.list_banks(None).await.expect("banks");
    assert!(!nigeria.is_empty());
    assert!(nigeria.iter().all(|b| b.country == "Nigeria" && b.account_type == BankAccountType::Nuban));
    for code in ["GH", "KE", "UG", "TZ"] {
        let banks = client.list_banks(Some(code)).await.expect(code);
        assert!(!banks.is_empty() && banks.iter().all(|b| b.account_type == BankAccountType::AccountNumber), "{code}");
    }
    assert_eq!(client.list_banks(Some("ZZ")).await, Err(SikaError::InvalidCountryCode));
    assert!(sandbox.requests()[0]["query"].is_null(), "no country parameter is sent by default");
}

#[tokio::test]
async fn b27_bank_lists_are_cached_per_country_and_the_cache_can_be_turned_off() {
    let sandbox = Sandbox::start();
    let cached = sandbox.client();
    let first = cached.list_banks(Some("GH")).await.expect("banks");
    let second = cached.list_banks(Some("gh")).await.expect("banks");
    assert_eq!(first, second);
    cached.list_banks(Some("KE")).await.expect("banks");
    assert_eq!(sandbox.requests().len(), 2, "GH once, KE once");

    sandbox.clear_requests();
    let mut config = sandbox.config();
    config.bank_cache_ttl_seconds = 0;
    let uncached = Client::new(config).expect("client");
    uncached.list_banks(Some("GH")).await.expect("banks");
    uncached.list_banks(Some("GH")).await.expect("banks");
    assert_eq!(sandbox.requests().len(), 2);
}

#[tokio::test]
async fn b27_concurrent_bank_calls_share_one_request() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let calls = (0..16).map(|_| {
        let client = client.clone();
        tokio::spawn(async move { client.list_banks(Some("UG")).await })
    });
    for call in calls {
        call.await.expect("task").expect("banks");
    }
    assert_eq!(sandbox.requests().len(), 1);
}

#[tokio::test]
async fn b07_a_wrong_key_is_unauthorized_everywhere() {
    let sandbox = Sandbox::start();
    let mut config = sandbox.config();
    config.secret_key = "sk_test_wrong_key".into();
    let client = Client::new(config).expect("client");
    assert_eq!(client.list_mobile_money_providers(None).await, Err(SikaError::Unauthorized));
    assert_eq!(client.list_banks(None).await, Err(SikaError::Unauthorized));
    assert_eq!(client.verify_transaction("ORDER-1").await.map(|_| ()), Err(SikaError::Unauthorized));
    assert_eq!(client.initiate_charge(&charge("ORDER-1", "+233244125678", "10")).await, Err(SikaError::Unauthorized));
}

#[tokio::test]
async fn b08_verification_errors_are_typed() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    assert_eq!(client.verify_transaction("NO-SUCH-ORDER").await.map(|_| ()), Err(SikaError::TransactionNotFound));
    assert_eq!(client.verify_transaction("bad ref!").await.map(|_| ()), Err(SikaError::InvalidReference));
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
    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("ORDER-WORD", "success", "10"));
    let transaction = sandbox.client().verify_transaction("ORDER-WORD").await.expect("verify");
    assert_eq!(transaction.status, TransactionStatus::Unknown { value: "success".into() });
    assert_eq!(transaction.status.merchant_action(), MerchantAction::Investigate);
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

#[tokio::test]
async fn b12_rejected_input_sends_nothing() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let field = |error: SikaError| match error {
        SikaError::InvalidInput { field, .. } => field,
        other => panic!("expected InvalidInput, got {other:?}"),
    };
    for country in ["", "G", "GHA", " GH", "G1"] {
        assert_eq!(field(client.list_mobile_money_providers(Some(country)).await.unwrap_err()), "country");
        assert_eq!(field(client.list_banks(Some(country)).await.unwrap_err()), "country");
    }
    for reference in ["", ".", "..", "a\u{0}b", "tab\there", &"x".repeat(257)] {
        assert_eq!(field(client.verify_transaction(reference).await.unwrap_err()), "reference", "{reference:?}");
    }
    let good = charge("ORDER-V", "+233244125678", "10.50");
    let bad_charges = [
        ("amount", ChargeRequest { amount: "0".parse().expect("0"), ..good.clone() }),
        ("amount", ChargeRequest { amount: "-1".parse().expect("-1"), ..good.clone() }),
        ("amount", ChargeRequest { amount: "1.001".parse().expect("1.001"), ..good.clone() }),
        ("email", ChargeRequest { email: "not-an-email".into(), ..good.clone() }),
        ("phone_number", ChargeRequest { phone_number: "0244123456".into(), ..good.clone() }),
        ("reference", ChargeRequest { reference: "".into(), ..good.clone() }),
        ("currency", ChargeRequest { currency: "NGN".into(), ..good.clone() }),
        ("provider", ChargeRequest { provider: "".into(), ..good.clone() }),
        ("callback_url", ChargeRequest { callback_url: Some("javascript:alert(1)".into()), ..good.clone() }),
    ];
    for (expected_field, request) in bad_charges {
        assert_eq!(field(client.initiate_charge(&request).await.unwrap_err()), expected_field);
    }
    assert!(sandbox.requests().is_empty(), "rejected input reached the service: {:?}", sandbox.requests());
}

#[tokio::test]
async fn b15_a_charge_keeps_its_amount_exact_and_a_duplicate_is_refused() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let request = charge("ORDER-CHARGE-1", "+233244123333", "100.10");
    let response = client.initiate_charge(&request).await.expect("charge");
    assert_eq!(response.http_status, 200);
    assert_eq!(response.status, Some(true));
    assert!(response.raw_json.contains("100.10"), "{}", response.raw_json);
    let transaction = client.verify_transaction("ORDER-CHARGE-1").await.expect("verify");
    assert_eq!(transaction.amount.to_string(), "100.10");
    assert_eq!(transaction.status, TransactionStatus::Pending);
    assert_eq!(transaction.payment_type, Some(PaymentType::MobileMoney));
    match client.initiate_charge(&request).await {
        Err(SikaError::Api { http_status: 409, message }) => assert!(message.contains("Duplicate"), "{message}"),
        other => panic!("expected a duplicate-reference error, got {other:?}"),
    }
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
        client
            .initiate_charge(&charge(&format!("USSD-{suffix}"), &format!("+23324412{suffix}"), "20"))
            .await
            .expect(suffix);
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
    client.initiate_charge(&charge("USSD-3333", "+233244123333", "20")).await.expect("charge");
    client.initiate_charge(&charge("USSD-4444", "+233244124444", "20")).await.expect("charge");
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
    assert_eq!(client.verify_transaction("ORDER-1").await.map(|_| ()), Err(SikaError::Timeout));
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
