//! Wire-format conformance of the built `sika-sandbox` binary.
//!
//! Each test starts its own sandbox process on a free loopback port, talks raw HTTP to it and
//! checks what goes over the wire: status codes, `content-type`, the envelope, the exact
//! messages, and the exact JSON text where it matters (amounts). Only 127.0.0.1 is contacted.

mod support;

use std::process::Command;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use support::*;

// ---------------------------------------------------------------------------------------------
// Authentication
// ---------------------------------------------------------------------------------------------

/// The service's operations as the sandbox routes them (`GET /__sandbox/routes`, built from the
/// router's one table), each path parameter filled in: a route added to the sandbox is covered
/// here without an edit (B298).
async fn routed_operations(sandbox: &Sandbox) -> Vec<(Method, String)> {
    let routes = sandbox.control(Method::GET, "/__sandbox/routes", None).await;
    assert_eq!(routes.status, 200, "{}", routes.body);
    let operations: Vec<(Method, String)> = routes.json["data"]
        .as_array()
        .expect("routes")
        .iter()
        .map(|route| {
            let method = Method::from_bytes(route["method"].as_str().expect("method").as_bytes()).expect("a method");
            let path = route["path"].as_str().expect("path");
            // `{name}` segments become `anything`; a route with none stays as it is.
            let filled = path.split('/').map(|segment| if segment.starts_with('{') { "anything" } else { segment });
            (method, filled.collect::<Vec<_>>().join("/"))
        })
        .collect();
    assert!(operations.len() >= 4, "the spec's four operations at least: {operations:?}");
    operations
}

#[tokio::test]
async fn b171_b298_every_routed_operation_requires_the_exact_bearer_key() {
    let sandbox = Sandbox::start();
    let valid_charge = charge_body("auth-1", "+233244120000", &[]);
    let mut requests: Vec<(Method, String, Option<&str>)> = Vec::new();
    for (method, path) in routed_operations(&sandbox).await {
        // Auth comes before validation: no body, a body that is not JSON, and (for a body-taking
        // operation) a valid one are each refused.
        let with_body = method == Method::POST;
        requests.push((method.clone(), path.clone(), None));
        if with_body {
            requests.push((method.clone(), path.clone(), Some("not json")));
            requests.push((method, path, Some(valid_charge.as_str())));
        }
    }
    let bad_headers = [
        None,
        Some("Bearer wrong_key"),
        Some("Basic test_key"),
        Some("bearer test_key"),
        Some("Bearer  test_key"),
        Some("test_key"),
        Some("Bearer"),
    ];
    for (method, path, body) in &requests {
        for header in bad_headers {
            let reply = sandbox.send(method.clone(), path, header, *body).await;
            assert_eq!(reply.status, 401, "{method} {path} with {header:?}: {}", reply.body);
            assert_error(&reply, 401, "Unauthorized");
        }
    }
    for path in ["/mobile-money-providers?country=XX", "/bank?country=XX", "/transaction/verify/a%20b"] {
        let reply = sandbox.send(Method::GET, path, None, None).await;
        assert_error(&reply, 401, "Unauthorized");
    }
    // Nothing was charged by the unauthorised attempts.
    assert_error(&sandbox.verify("auth-1").await, 404, "Transaction not found");
}

// ---------------------------------------------------------------------------------------------
// Mobile money providers
// ---------------------------------------------------------------------------------------------

const PROVIDER_FIELDS: [&str; 10] =
    ["id", "name", "code", "active", "country", "currency", "type", "logo", "createdAt", "updatedAt"];

fn provider_codes(reply: &Reply) -> Vec<String> {
    reply.json["data"]
        .as_array()
        .expect("array of providers")
        .iter()
        .map(|p| p["code"].as_str().expect("code").to_owned())
        .collect()
}

#[tokio::test]
async fn b171_providers_default_to_ghana() {
    let sandbox = Sandbox::start();
    let reply = sandbox.get("/mobile-money-providers").await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json["status"], true);
    assert_eq!(reply.json["message"], "Mobile money providers retrieved successfully");
    assert_eq!(provider_codes(&reply), ["MTN", "VODAFONE", "AIRTELTIGO"]);
    for provider in reply.json["data"].as_array().expect("array") {
        assert_keys(provider, &PROVIDER_FIELDS);
        assert!(provider["id"].is_u64(), "{provider}");
        assert!(provider["name"].as_str().is_some_and(|n| !n.is_empty()));
        assert_eq!(provider["active"], true);
        assert_eq!(provider["country"], "Ghana");
        assert_eq!(provider["currency"], "GHS");
        assert_eq!(provider["type"], "mobile_money");
        assert!(provider["logo"].as_str().is_some_and(|l| l.starts_with("https://")), "{provider}");
        assert!(is_iso_millis(&provider["createdAt"]), "{provider}");
        assert!(is_iso_millis(&provider["updatedAt"]), "{provider}");
    }
    // An explicit GH is the same list.
    assert_eq!(sandbox.get("/mobile-money-providers?country=GH").await.body, reply.body);
}

#[tokio::test]
async fn b171_providers_per_country_case_insensitive() {
    let sandbox = Sandbox::start();
    let cases = [
        ("ke", "Kenya", "KES", ["MPESA_KE", "AIRTEL_KE"]),
        ("Ug", "Uganda", "UGX", ["MTN_UG", "AIRTEL_UG"]),
        ("tZ", "Tanzania", "TZS", ["MPESA_TZ", "TIGO_TZ"]),
    ];
    for (code, country, currency, codes) in cases {
        let reply = sandbox.get(&format!("/mobile-money-providers?country={code}")).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(provider_codes(&reply), codes);
        for provider in reply.json["data"].as_array().expect("array") {
            assert_keys(provider, &PROVIDER_FIELDS);
            assert_eq!(provider["country"], country);
            assert_eq!(provider["currency"], currency);
        }
        let upper = sandbox.get(&format!("/mobile-money-providers?country={}", code.to_uppercase())).await;
        assert_eq!(upper.body, reply.body);
    }
    assert_eq!(
        provider_codes(&sandbox.get("/mobile-money-providers?country=gh").await),
        ["MTN", "VODAFONE", "AIRTELTIGO"]
    );
}

#[tokio::test]
async fn b171_providers_errors() {
    let sandbox = Sandbox::start();
    for code in ["NG", "ng"] {
        let reply = sandbox.get(&format!("/mobile-money-providers?country={code}")).await;
        assert_error(&reply, 404, "No providers found");
    }
    for code in ["XX", "US", "GHA", "G", "", "G%20H", "%FF"] {
        let reply = sandbox.get(&format!("/mobile-money-providers?country={code}")).await;
        assert_error(&reply, 400, "Invalid country code");
    }
}

// ---------------------------------------------------------------------------------------------
// Banks
// ---------------------------------------------------------------------------------------------

const BANK_FIELDS: [&str; 9] =
    ["id", "name", "code", "active", "country", "currency", "type", "createdAt", "updatedAt"];

fn check_banks(reply: &Reply, country: &str, currency: &str, account_type: &str) {
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.json["status"], true);
    assert_eq!(reply.json["message"], "Banks retrieved successfully");
    let banks = reply.json["data"].as_array().expect("array of banks");
    assert!((3..=5).contains(&banks.len()), "{}", reply.body);
    for bank in banks {
        assert_keys(bank, &BANK_FIELDS);
        assert!(bank["id"].is_u64());
        assert!(
            bank["code"].as_str().is_some_and(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit())),
            "{bank}"
        );
        assert_eq!(bank["active"], true);
        assert_eq!(bank["country"], country);
        assert_eq!(bank["currency"], currency);
        assert_eq!(bank["type"], account_type);
        assert!(is_iso_millis(&bank["createdAt"]), "{bank}");
        assert!(is_iso_millis(&bank["updatedAt"]), "{bank}");
    }
}

#[tokio::test]
async fn b171_banks_default_to_nigeria_nuban() {
    let sandbox = Sandbox::start();
    let reply = sandbox.get("/bank").await;
    check_banks(&reply, "Nigeria", "NGN", "nuban");
    assert_eq!(sandbox.get("/bank?country=NG").await.body, reply.body);
    assert_eq!(sandbox.get("/bank?country=ng").await.body, reply.body);
}

#[tokio::test]
async fn b171_banks_per_country_and_errors() {
    let sandbox = Sandbox::start();
    for (code, country, currency) in [
        ("GH", "Ghana", "GHS"),
        ("gh", "Ghana", "GHS"),
        ("ke", "Kenya", "KES"),
        ("UG", "Uganda", "UGX"),
        ("Tz", "Tanzania", "TZS"),
    ] {
        let reply = sandbox.get(&format!("/bank?country={code}")).await;
        check_banks(&reply, country, currency, "account_number");
    }
    for code in ["XX", "ZA", "NGA", ""] {
        let reply = sandbox.get(&format!("/bank?country={code}")).await;
        assert_error(&reply, 400, "Invalid country code");
    }
}

// ---------------------------------------------------------------------------------------------
// Verify
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn b171_verify_not_found_and_invalid_reference() {
    let sandbox = Sandbox::start();
    assert_error(&sandbox.verify("unknown-ref_1.2").await, 404, "Transaction not found");
    assert_error(&sandbox.verify(&"a".repeat(100)).await, 404, "Transaction not found");
    for reference in [
        "a".repeat(101),
        "a%20b".to_owned(),
        "a%2Fb".to_owned(),
        "caf%C3%A9".to_owned(),
        "a%FFb".to_owned(),
        "a+b".to_owned(),
    ] {
        assert_error(&sandbox.verify(&reference).await, 400, "Invalid reference");
    }
}

#[tokio::test]
async fn b171_percent_encoded_reference_is_one_segment() {
    let sandbox = Sandbox::start();
    let seeded = r#"{"tx_ref":"a/b","status":"successful","amount":5}"#;
    let stored = sandbox.control(Method::POST, "/__sandbox/transactions", Some(seeded)).await;
    assert_eq!(stored.status, 201, "{}", stored.body);
    sandbox.control(Method::DELETE, "/__sandbox/requests", None).await;

    let reply = sandbox.verify("a%2Fb").await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.body, format!(r#"{{"status":true,"message":"Verification successful","data":{seeded}}}"#));
    // Split into two segments it is another path altogether.
    assert_error(&sandbox.verify("a/b").await, 404, "Not found");

    // Other odd references seeded the same way are found by exact lookup.
    let long = "x".repeat(150);
    for (tx_ref, encoded) in
        [("a b", "a%20b".to_owned()), ("café", "caf%C3%A9".to_owned()), (long.as_str(), long.clone())]
    {
        let body = json!({ "tx_ref": tx_ref }).to_string();
        sandbox.control(Method::POST, "/__sandbox/transactions", Some(&body)).await;
        let reply = sandbox.verify(&encoded).await;
        assert_eq!(reply.status, 200, "{tx_ref}: {}", reply.body);
        assert_eq!(reply.json["data"]["tx_ref"], tx_ref);
    }

    let log = sandbox.control(Method::GET, "/__sandbox/requests", None).await;
    let paths: Vec<&str> =
        log.json["data"].as_array().expect("log").iter().map(|r| r["path"].as_str().expect("path")).collect();
    assert_eq!(paths[..2], ["/transaction/verify/a%2Fb", "/transaction/verify/a/b"]);
    assert_eq!(paths[2], "/transaction/verify/a%20b");
    assert_eq!(paths[3], "/transaction/verify/caf%C3%A9");
}

// ---------------------------------------------------------------------------------------------
// Charge
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn b171_charge_creates_a_pending_transaction_with_exact_fields() {
    let sandbox = Sandbox::start_with(60_000, None);
    let reply = sandbox.charge(&charge_body("order-1", "+233244125678", &[])).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    let gw_ref = reply.json["data"]["gw_ref"].as_str().expect("gw_ref");
    assert!(gw_ref.starts_with("GW-"), "{gw_ref}");
    assert_eq!(
        reply.body,
        format!(
            concat!(
                r#"{{"status":true,"message":"Charge initiated","data":{{"tx_ref":"order-1","#,
                r#""gw_ref":"{}","status":"pending","amount":100.10,"currency":"GHS","provider":"MTN"}}}}"#
            ),
            gw_ref
        )
    );

    let verified = sandbox.verify("order-1").await;
    assert_eq!(verified.status, 200, "{}", verified.body);
    let data = &verified.json["data"];
    for field in ["created_at", "updated_at"] {
        assert!(is_iso_millis(&data[field]), "{field}: {data}");
        assert!(is_iso_millis(&data["customer"][field]), "customer {field}");
    }
    let expected = format!(
        concat!(
            r#"{{"status":true,"message":"Verification successful","data":{{"id":1,"domain":"test","#,
            r#""amount":100.10,"currency":"GHS","due_date":null,"has_invoice":false,"#,
            r#""invoice_number":null,"description":null,"tx_ref":"order-1","gw_ref":"{gw}","#,
            r#""status":"pending","payment_type":"mobile_money","created_at":"{c}","#,
            r#""updated_at":"{u}","customer":{{"id":1,"name":"kofi","#,
            r#""phone_number":"+233244125678","email":"kofi@example.com","#,
            r#""created_at":"{cc}","updated_at":"{cu}"}},"meta":{{"custom_fields":[]}}}}}}"#
        ),
        gw = gw_ref,
        c = data["created_at"].as_str().unwrap_or_default(),
        u = data["updated_at"].as_str().unwrap_or_default(),
        cc = data["customer"]["created_at"].as_str().unwrap_or_default(),
        cu = data["customer"]["updated_at"].as_str().unwrap_or_default(),
    );
    assert_eq!(verified.body, expected);

    // A second charge gets the next id and another gateway reference.
    let second = sandbox
        .charge(&charge_body(
            "order-2",
            "+254712345678",
            &[("currency", Some(r#""KES""#)), ("provider", Some(r#""MPESA_KE""#)), ("callback_url", None)],
        ))
        .await;
    assert_eq!(second.status, 200, "{}", second.body);
    assert_eq!(second.json["data"]["currency"], "KES");
    assert_eq!(second.json["data"]["provider"], "MPESA_KE");
    assert_ne!(second.json["data"]["gw_ref"], gw_ref);
    assert_eq!(sandbox.verify("order-2").await.json["data"]["id"], 2);
}

#[tokio::test]
async fn b171_charge_validation_errors() {
    let sandbox = Sandbox::start();
    let phone = "+233244120000";
    let cases: Vec<(String, &str)> = vec![
        ("not json".into(), "Invalid request body"),
        ("".into(), "Invalid request body"),
        ("[1,2]".into(), "Invalid request body"),
        (r#""text""#.into(), "Invalid request body"),
        (charge_body("v-1", phone, &[("amount", None)]), "Invalid amount"),
        (charge_body("v-1", phone, &[("amount", Some("0"))]), "Invalid amount"),
        (charge_body("v-1", phone, &[("amount", Some("-5"))]), "Invalid amount"),
        (charge_body("v-1", phone, &[("amount", Some(r#""100""#))]), "Invalid amount"),
        (charge_body("v-1", phone, &[("amount", Some("null"))]), "Invalid amount"),
        (charge_body("v-1", phone, &[("amount", Some("1e400"))]), "Invalid amount"),
        (charge_body("v-1", phone, &[("email", None)]), "Invalid email"),
        (charge_body("v-1", phone, &[("email", Some(r#""kofi""#))]), "Invalid email"),
        (charge_body("v-1", phone, &[("email", Some(r#""a@b@c.com""#))]), "Invalid email"),
        (charge_body("v-1", phone, &[("email", Some("5"))]), "Invalid email"),
        (charge_body("v-1", phone, &[("phone_number", None)]), "Invalid phone number"),
        (charge_body("v-1", "0244120000", &[]), "Invalid phone number"),
        (charge_body("v-1", "+1234567", &[]), "Invalid phone number"),
        (charge_body("v-1", "+1234567890123456", &[]), "Invalid phone number"),
        (charge_body("v-1", "+23324 4120000", &[]), "Invalid phone number"),
        (charge_body("v-1", phone, &[("reference", None)]), "Invalid reference"),
        (charge_body("", phone, &[]), "Invalid reference"),
        (charge_body("a/b", phone, &[]), "Invalid reference"),
        (charge_body(&"r".repeat(101), phone, &[]), "Invalid reference"),
        (charge_body("v-1", phone, &[("reference", Some("12"))]), "Invalid reference"),
        (charge_body("v-1", phone, &[("currency", None)]), "Invalid currency"),
        (charge_body("v-1", phone, &[("currency", Some(r#""NGN""#))]), "Invalid currency"),
        (charge_body("v-1", phone, &[("currency", Some(r#""USD""#))]), "Invalid currency"),
        (charge_body("v-1", phone, &[("currency", Some(r#""ghs""#))]), "Invalid currency"),
        (charge_body("v-1", phone, &[("payment_type", None)]), "Invalid payment type"),
        (charge_body("v-1", phone, &[("payment_type", Some(r#""card""#))]), "Invalid payment type"),
        (charge_body("v-1", phone, &[("provider", None)]), "Invalid provider"),
        (charge_body("v-1", phone, &[("provider", Some(r#""MPESA_KE""#))]), "Invalid provider"),
        (charge_body("v-1", phone, &[("provider", Some(r#""mtn""#))]), "Invalid provider"),
        (charge_body("v-1", phone, &[("provider", Some(r#""NOPE""#))]), "Invalid provider"),
        (charge_body("v-1", phone, &[("callback_url", Some("5"))]), "Invalid callback URL"),
    ];
    for (body, message) in &cases {
        let reply = sandbox.charge(body).await;
        assert_eq!(reply.json["message"], *message, "body {body}");
        assert_error(&reply, 400, message);
    }
    // None of them created anything.
    assert_error(&sandbox.verify("v-1").await, 404, "Transaction not found");
    // A null callback_url is the same as none.
    let ok = sandbox.charge(&charge_body("v-1", phone, &[("callback_url", Some("null"))])).await;
    assert_eq!(ok.status, 200, "{}", ok.body);
}

#[tokio::test]
async fn b171_charge_body_too_large_is_rejected() {
    let sandbox = Sandbox::start();
    let padding = "x".repeat(3 * 1024 * 1024);
    let body = charge_body("big-1", "+233244120000", &[("padding", Some(&format!("\"{padding}\"")))]);
    assert_error(&sandbox.charge(&body).await, 413, "Request body too large");
}

#[tokio::test]
async fn b171_duplicate_reference_is_409() {
    let sandbox = Sandbox::start();
    let body = charge_body("dup-1", "+233244123333", &[]);
    assert_eq!(sandbox.charge(&body).await.status, 200);
    let again = sandbox.charge(&charge_body("dup-1", "+233244120000", &[("amount", Some("5"))])).await;
    assert_error(&again, 409, "Duplicate transaction reference");
    // The first transaction is untouched.
    let verified = sandbox.verify("dup-1").await;
    assert!(verified.body.contains(r#""amount":100.10"#), "{}", verified.body);
    // A seeded reference is taken too.
    sandbox.control(Method::POST, "/__sandbox/transactions", Some(r#"{"tx_ref":"seeded-1"}"#)).await;
    assert_error(
        &sandbox.charge(&charge_body("seeded-1", "+233244120000", &[])).await,
        409,
        "Duplicate transaction reference",
    );
}

#[tokio::test]
async fn b171_amount_text_round_trips_exactly() {
    let sandbox = Sandbox::start_with(60_000, None);
    for (reference, amount) in [("amt-1", "100.10"), ("amt-2", "1.50e1"), ("amt-3", "0.000001")] {
        let reply = sandbox.charge(&charge_body(reference, "+233244125678", &[("amount", Some(amount))])).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert!(reply.body.contains(&format!(r#""amount":{amount},"#)), "{}", reply.body);
        let verified = sandbox.verify(reference).await;
        assert!(verified.body.contains(&format!(r#""amount":{amount},"#)), "{}", verified.body);
    }
    // Seeded objects keep every field's text, whatever it is.
    let seeded = concat!(
        r#"{"tx_ref":"seed-1","amount":1e2,"xyz_ref":"XYZ-9","due_date":{"d": [1, 2.50]},"#,
        r#""description":null,"big":12345678901234567890123,"neg":-0.0,"s":"\u00e9\n"}"#
    );
    let stored = sandbox.control(Method::POST, "/__sandbox/transactions", Some(seeded)).await;
    assert_eq!(stored.status, 201, "{}", stored.body);
    assert_eq!(stored.body, format!(r#"{{"status":true,"message":"Transaction stored","data":{seeded}}}"#));
    assert_eq!(
        sandbox.verify("seed-1").await.body,
        format!(r#"{{"status":true,"message":"Verification successful","data":{seeded}}}"#)
    );
}

// ---------------------------------------------------------------------------------------------
// USSD simulation and webhooks
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn b171_ussd_outcomes_by_last_four_digits() {
    let sandbox = Sandbox::start();
    let cases = [
        ("ussd-0000", "+233244120000", "successful"),
        ("ussd-1111", "+233244121111", "failed"),
        ("ussd-2222", "+233244122222", "abandoned"),
        ("ussd-5678", "+233244125678", "successful"),
        ("ussd-ke", "+254712349999", "successful"),
    ];
    for (reference, phone, _) in cases {
        let body = if phone.starts_with("+254") {
            charge_body(reference, phone, &[("currency", Some(r#""KES""#)), ("provider", Some(r#""AIRTEL_KE""#))])
        } else {
            charge_body(reference, phone, &[])
        };
        let reply = sandbox.charge(&body).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(reply.json["data"]["status"], "pending");
    }
    for (reference, _, outcome) in cases {
        let seen = sandbox.statuses_until_final(reference, outcome).await;
        assert!(seen == ["pending", outcome] || seen == [outcome], "{reference}: {seen:?}");
        let data = sandbox.verify(reference).await.json["data"].clone();
        assert!(is_iso_millis(&data["updated_at"]));
        assert!(data["updated_at"].as_str() >= data["created_at"].as_str(), "{data}");
    }
    // The failed and abandoned ones stay so.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(sandbox.status_of("ussd-1111").await, "failed");
    assert_eq!(sandbox.status_of("ussd-2222").await, "abandoned");
    assert_eq!(sandbox.status_of("ussd-0000").await, "successful");
}

#[tokio::test]
async fn b171_ussd_3333_stays_pending() {
    let sandbox = Sandbox::start();
    let reply = sandbox.charge(&charge_body("ussd-3333", "+233244123333", &[])).await;
    assert_eq!(reply.status, 200);
    let before = sandbox.verify("ussd-3333").await.body;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = sandbox.verify("ussd-3333").await;
    assert_eq!(after.json["data"]["status"], "pending");
    assert_eq!(after.body, before, "nothing about it changed");
}

#[tokio::test]
async fn b171_ussd_4444_successful_then_reversed_with_webhook() {
    let (receiver_url, mut deliveries) = start_receiver().await;
    let sandbox = Sandbox::start_with(300, Some(&format!("{receiver_url}/hook")));
    let reply = sandbox.charge(&charge_body("ussd-4444", "+233244124444", &[])).await;
    assert_eq!(reply.status, 200);
    let seen = sandbox.statuses_until_final("ussd-4444", "reversed").await;
    // Polling may miss a short-lived state, but never sees anything out of order.
    let order = ["pending", "successful", "reversed"];
    let positions: Vec<usize> = seen.iter().map(|s| order.iter().position(|o| o == s).expect("known status")).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
    // The success transition itself is proven by its webhook.
    let (path, content_type, body) = next_delivery(&mut deliveries).await;
    assert_eq!(path, "/hook");
    assert_eq!(content_type, "application/json");
    assert_eq!(body, r#"{"event":"charge.success","data":{"reference":"ussd-4444"}}"#);
    let log = wait_for_webhook_log(&sandbox, 1).await;
    assert_eq!(delivered_by_reference(&log), json!([{ "reference": "ussd-4444", "delivered": true }]));
    assert_eq!(log[0]["event"], "charge.success");
    assert_eq!(log[0]["url"], format!("{receiver_url}/hook"));
    assert_eq!(log[0]["http_status"], 200);
    assert_eq!(log[0]["error"], Value::Null);
    // Reversal sends no second charge.success.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(deliveries.try_recv().is_err());
}

#[tokio::test]
async fn b171_webhook_is_sent_on_success_only() {
    let (receiver_url, mut deliveries) = start_receiver().await;
    let sandbox = Sandbox::start_with(50, Some(&format!("{receiver_url}/hook")));
    for (reference, phone) in
        [("wh-fail", "+233244121111"), ("wh-abandon", "+233244122222"), ("wh-ok", "+233244120000")]
    {
        assert_eq!(sandbox.charge(&charge_body(reference, phone, &[])).await.status, 200);
    }
    let (path, content_type, body) = next_delivery(&mut deliveries).await;
    assert_eq!(
        (path.as_str(), content_type.as_str(), body.as_str()),
        ("/hook", "application/json", r#"{"event":"charge.success","data":{"reference":"wh-ok"}}"#)
    );
    sandbox.statuses_until_final("wh-fail", "failed").await;
    sandbox.statuses_until_final("wh-abandon", "abandoned").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(deliveries.try_recv().is_err(), "only one webhook expected");
    assert_eq!(delivered_by_reference(&sandbox.webhooks().await), json!([{ "reference": "wh-ok", "delivered": true }]));
}

#[tokio::test]
async fn b171_failed_webhook_delivery_is_recorded_and_harmless() {
    // A receiver that answers 500.
    let (receiver_url, mut deliveries) = start_receiver().await;
    let sandbox = Sandbox::start_with(50, Some(&format!("{receiver_url}/fail")));
    sandbox.charge(&charge_body("wh-500", "+233244120000", &[])).await;
    next_delivery(&mut deliveries).await;
    let log = wait_for_webhook_log(&sandbox, 1).await;
    assert_eq!(delivered_by_reference(&log), json!([{ "reference": "wh-500", "delivered": false }]));
    assert_eq!(log[0]["http_status"], 500);
    assert_eq!(log[0]["error"], "the receiver answered HTTP 500");
    assert_eq!(sandbox.status_of("wh-500").await, "successful");
    drop(sandbox);

    // Nobody listening at all.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let closed_url = format!("http://{}/hook", closed.local_addr().expect("addr"));
    drop(closed);
    let sandbox = Sandbox::start_with(50, Some(&closed_url));
    sandbox.charge(&charge_body("wh-closed", "+233244120000", &[])).await;
    let log = wait_for_webhook_log(&sandbox, 1).await;
    assert_eq!(delivered_by_reference(&log), json!([{ "reference": "wh-closed", "delivered": false }]));
    assert_eq!(log[0]["http_status"], Value::Null);
    assert!(log[0]["error"].as_str().is_some_and(|e| !e.is_empty()), "{log}");
    // Still serving.
    assert_eq!(sandbox.status_of("wh-closed").await, "successful");
    assert_eq!(sandbox.get("/bank").await.status, 200);
}

// ---------------------------------------------------------------------------------------------
// Routing
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn b171_unknown_paths_and_wrong_methods() {
    let sandbox = Sandbox::start();
    for path in [
        "/",
        "/nope",
        "/bank/",
        "/banks",
        "/transaction/verify",
        "/transaction/verify/",
        "/transaction/verify/a/b",
        "/__sandbox/nope",
    ] {
        assert_error(&sandbox.get(path).await, 404, "Not found");
        assert_error(&sandbox.send(Method::GET, path, None, None).await, 404, "Not found");
    }
    assert_error(&sandbox.api(Method::POST, "/bank", None).await, 405, "Method not allowed");
    assert_error(&sandbox.api(Method::GET, "/charge", None).await, 405, "Method not allowed");
    assert_error(&sandbox.api(Method::DELETE, "/transaction/verify/x", None).await, 405, "Method not allowed");
    // Auth still comes first on a known path.
    assert_error(&sandbox.send(Method::POST, "/bank", None, None).await, 401, "Unauthorized");
}

// ---------------------------------------------------------------------------------------------
// Control API
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn b173_request_log_records_what_arrived() {
    let sandbox = Sandbox::start();
    sandbox.get("/mobile-money-providers?country=gh&x=%20y").await;
    sandbox.send(Method::GET, "/bank", None, None).await;
    sandbox.send(Method::GET, "/bank", Some("Bearer nope"), None).await;
    sandbox.get("/transaction/verify/a%2Fb").await;
    sandbox.charge("{}").await;
    sandbox.get("/unknown?q").await;
    // Control requests are not logged.
    sandbox.webhooks().await;
    let mut log = sandbox.control(Method::GET, "/__sandbox/requests", None).await;
    assert_eq!(log.status, 200);
    assert_eq!(log.json["message"], "ok");
    // Each answer's own id (B200), all different; one request in flight at a time (they were
    // sent one after another), arrival times in order; then the rest compared exactly.
    let mut answered = std::collections::HashSet::new();
    let mut last_arrival = 0;
    for entry in log.json["data"].as_array_mut().expect("entries") {
        let entry = entry.as_object_mut().expect("an entry");
        let id = entry.remove("answered_request_id").expect("answered_request_id");
        assert!(id.as_str().is_some_and(|id| id.starts_with("req_")), "{id}");
        assert!(answered.insert(id.to_string()), "{id} twice");
        assert_eq!(entry.remove("in_flight"), Some(json!(1)));
        // No trace context was sent (B208 sends one).
        assert_eq!((entry.remove("traceparent"), entry.remove("tracestate")), (Some(Value::Null), Some(Value::Null)));
        let arrival = entry.remove("received_ms").and_then(|at| at.as_u64()).expect("received_ms");
        assert!(arrival >= last_arrival, "{arrival} ms after {last_arrival} ms");
        last_arrival = arrival;
    }
    assert_eq!(
        log.json["data"],
        json!([
            {"method": "GET", "path": "/mobile-money-providers", "query": "country=gh&x=%20y", "authorized": true, "request_id": null},
            {"method": "GET", "path": "/bank", "query": null, "authorized": false, "request_id": null},
            {"method": "GET", "path": "/bank", "query": null, "authorized": false, "request_id": null},
            {"method": "GET", "path": "/transaction/verify/a%2Fb", "query": null, "authorized": true, "request_id": null},
            {"method": "POST", "path": "/charge", "query": null, "authorized": true, "request_id": null},
            {"method": "GET", "path": "/unknown", "query": "q", "authorized": true, "request_id": null},
        ])
    );
    let cleared = sandbox.control(Method::DELETE, "/__sandbox/requests", None).await;
    assert_eq!(cleared.body, r#"{"status":true,"message":"Request log cleared","data":null}"#);
    let log = sandbox.control(Method::GET, "/__sandbox/requests", None).await;
    assert_eq!(log.body, r#"{"status":true,"message":"ok","data":[]}"#);
}

#[tokio::test]
async fn b173_control_transactions_seed_get_and_status() {
    let sandbox = Sandbox::start();
    let seed = "/__sandbox/transactions";
    assert_error(&sandbox.control(Method::POST, seed, Some("nope")).await, 400, "Invalid request body");
    assert_error(&sandbox.control(Method::POST, seed, Some("[]")).await, 400, "Invalid request body");
    for body in [r#"{"amount":1}"#, r#"{"tx_ref":5}"#, r#"{"tx_ref":null}"#] {
        assert_error(&sandbox.control(Method::POST, seed, Some(body)).await, 400, "tx_ref must be a string");
    }

    let seeded = r#"{"tx_ref":"ctl-1","status":"pending","updated_at":"2024-01-01T00:00:00.000Z","xyz_ref":"X-1"}"#;
    let stored = sandbox.control(Method::POST, seed, Some(seeded)).await;
    assert_eq!(stored.status, 201);
    let got = sandbox.control(Method::GET, "/__sandbox/transactions/ctl-1", None).await;
    assert_eq!(got.body, format!(r#"{{"status":true,"message":"Transaction found","data":{seeded}}}"#));
    assert_error(
        &sandbox.control(Method::GET, "/__sandbox/transactions/missing", None).await,
        404,
        "Transaction not found",
    );

    // Any string status; updated_at refreshed because the object has one.
    let set =
        sandbox.control(Method::POST, "/__sandbox/transactions/ctl-1/status", Some(r#"{"status":"success"}"#)).await;
    assert_eq!(set.status, 200, "{}", set.body);
    assert_eq!(set.json["message"], "Status updated");
    assert_eq!(set.json["data"]["status"], "success");
    assert_eq!(set.json["data"]["xyz_ref"], "X-1");
    assert!(is_iso_millis(&set.json["data"]["updated_at"]));
    assert_ne!(set.json["data"]["updated_at"], "2024-01-01T00:00:00.000Z");
    assert_eq!(sandbox.status_of("ctl-1").await, "success");

    // An object without updated_at does not gain one.
    sandbox.control(Method::POST, seed, Some(r#"{"tx_ref":"ctl-2"}"#)).await;
    let set =
        sandbox.control(Method::POST, "/__sandbox/transactions/ctl-2/status", Some(r#"{"status":"reversed"}"#)).await;
    assert_eq!(set.body, r#"{"status":true,"message":"Status updated","data":{"tx_ref":"ctl-2","status":"reversed"}}"#);

    for body in ["nope", r#"{"status":1}"#, "{}"] {
        let reply = sandbox.control(Method::POST, "/__sandbox/transactions/ctl-1/status", Some(body)).await;
        assert_eq!(reply.status, 400, "{body}: {}", reply.body);
    }
    assert_error(
        &sandbox.control(Method::POST, "/__sandbox/transactions/missing/status", Some(r#"{"status":"failed"}"#)).await,
        404,
        "Transaction not found",
    );

    // Seeding the same tx_ref replaces the object.
    sandbox.control(Method::POST, seed, Some(r#"{"tx_ref":"ctl-1","v":2}"#)).await;
    assert_eq!(
        sandbox.verify("ctl-1").await.body,
        r#"{"status":true,"message":"Verification successful","data":{"tx_ref":"ctl-1","v":2}}"#
    );
}

#[tokio::test]
async fn b173_forced_status_wins_over_the_simulation() {
    let sandbox = Sandbox::start_with(1000, None);
    sandbox.charge(&charge_body("force-1", "+233244120000", &[])).await;
    let set =
        sandbox.control(Method::POST, "/__sandbox/transactions/force-1/status", Some(r#"{"status":"failed"}"#)).await;
    assert_eq!(set.status, 200);
    tokio::time::sleep(Duration::from_millis(1300)).await;
    assert_eq!(sandbox.status_of("force-1").await, "failed");
}

#[tokio::test]
async fn b173_reset_clears_everything() {
    let (receiver_url, mut deliveries) = start_receiver().await;
    let sandbox = Sandbox::start_with(50, Some(&format!("{receiver_url}/hook")));
    sandbox.charge(&charge_body("reset-1", "+233244120000", &[])).await;
    next_delivery(&mut deliveries).await;
    wait_for_webhook_log(&sandbox, 1).await;
    sandbox.control(Method::POST, "/__sandbox/transactions", Some(r#"{"tx_ref":"reset-2"}"#)).await;

    let reply = sandbox.control(Method::POST, "/__sandbox/reset", None).await;
    assert_eq!(reply.body, r#"{"status":true,"message":"Sandbox reset","data":null}"#);
    assert_eq!(sandbox.webhooks().await, json!([]));
    let log = sandbox.control(Method::GET, "/__sandbox/requests", None).await;
    assert_eq!(log.json["data"], json!([]));
    assert_error(&sandbox.verify("reset-1").await, 404, "Transaction not found");
    assert_error(&sandbox.verify("reset-2").await, 404, "Transaction not found");
    // The reference is free again and ids restart.
    let again = sandbox.charge(&charge_body("reset-1", "+233244123333", &[])).await;
    assert_eq!(again.status, 200);
    assert_eq!(sandbox.verify("reset-1").await.json["data"]["id"], 1);
}

#[tokio::test]
async fn b173_control_api_wrong_method_is_json() {
    let sandbox = Sandbox::start();
    assert_error(&sandbox.control(Method::GET, "/__sandbox/reset", None).await, 405, "Method not allowed");
    assert_error(&sandbox.control(Method::PUT, "/__sandbox/transactions", None).await, 405, "Method not allowed");
}

// ---------------------------------------------------------------------------------------------
// Process lifecycle
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn b174_exits_when_stdin_closes() {
    let mut sandbox = Sandbox::start();
    assert_eq!(sandbox.get("/bank").await.status, 200);
    drop(sandbox.stdin.take());
    let status = sandbox.wait_exit(Duration::from_secs(10));
    assert!(status.is_some_and(|s| s.success()), "expected a clean exit, got {status:?}");
}

#[cfg(unix)]
#[tokio::test]
async fn b174_exits_cleanly_on_sigterm_and_sigint() {
    for signal in ["-TERM", "-INT"] {
        let mut sandbox = Sandbox::start();
        assert_eq!(sandbox.get("/bank").await.status, 200);
        let sent = Command::new("kill").args([signal, &sandbox.child.id().to_string()]).status().expect("run kill");
        assert!(sent.success());
        let status = sandbox.wait_exit(Duration::from_secs(10));
        assert!(status.is_some_and(|s| s.success()), "{signal}: expected a clean exit, got {status:?}");
    }
}

/// B201: the request log shows the `X-Request-Id` a client sent and the one it was answered with.
#[tokio::test]
async fn b201_the_request_log_records_the_request_ids() {
    let sandbox = Sandbox::start();
    let response = reqwest::Client::new()
        .get(format!("{}/bank", sandbox.url))
        .header("X-Request-Id", "sika_test_1")
        .send()
        .await
        .expect("request");
    let answered = response.headers()["x-request-id"].to_str().expect("text").to_owned();
    let log = sandbox.control(Method::GET, "/__sandbox/requests", None).await;
    assert_eq!(log.json["data"][0]["request_id"], "sika_test_1");
    assert_eq!(log.json["data"][0]["answered_request_id"], answered.as_str());
}
