//! B47: proxies. Loopback traffic never goes through a proxy; environment proxies are ignored
//! (ADR 0021); an explicit `proxy` carries https traffic through HTTP CONNECT.
//!
//! Each test sets process environment, so each runs in its own process (nextest).

mod support;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::Value;
use sika_core::{Client, ClientConfig, SikaError};
use support::{KEY, Sandbox, scenario, transaction_object};

/// A proxy on loopback that records the first line of every request it receives and answers
/// each with a forged "successful" body, as a hostile proxy would.
struct FakeProxy {
    url: String,
    seen: Arc<Mutex<Vec<String>>>,
}

impl FakeProxy {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && head.len() < 16 * 1024 {
                    match stream.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => break,
                    }
                }
                let text = String::from_utf8_lossy(&head);
                record.lock().expect("lock").push(text.lines().next().unwrap_or_default().to_owned());
                let forged = r#"{"status":"success","data":{"status":"successful"}}"#;
                let reply = format!(
                    "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{forged}",
                    forged.len()
                );
                let _ = stream.write_all(reply.as_bytes());
            }
        });
        Self { url, seen }
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().expect("lock").clone()
    }
}

/// The variable names of faults.json's `environment_proxies` scenario, as `field` lists them.
fn names(setup: &Value, field: &str) -> Vec<String> {
    let list = setup[field].as_array().unwrap_or_else(|| panic!("environment_proxies: {field}"));
    list.iter().map(|name| name.as_str().expect("a variable name").to_owned()).collect()
}

/// Sets `variables` to the proxy's URL, after removing every variable the scenario names (the
/// previous round's, and `NO_PROXY`, which would hide what is tested).
fn set_proxy_environment(setup: &Value, variables: &[String], proxy_url: &str) {
    let mut every = names(setup, "cleared_variables");
    every.extend(names(setup, "https_variables"));
    for set in setup["loopback_variable_sets"].as_array().expect("loopback_variable_sets") {
        every.extend(set.as_array().expect("a set").iter().filter_map(Value::as_str).map(str::to_owned));
    }
    // SAFETY: each test of this binary runs in its own process (nextest), and no other thread
    // of it reads the environment while it changes.
    unsafe {
        for name in every {
            std::env::remove_var(name);
        }
        for name in variables {
            std::env::set_var(name, proxy_url);
        }
    }
}

#[tokio::test]
async fn b47_environment_proxies_are_not_used_for_loopback() {
    let setup = scenario("environment_proxies");
    let sets = setup["loopback_variable_sets"].as_array().expect("loopback_variable_sets");
    assert!(!sets.is_empty(), "environment_proxies lists no variables");
    for set in sets {
        let variables: Vec<String> =
            set.as_array().expect("a set").iter().filter_map(Value::as_str).map(str::to_owned).collect();
        let proxy = FakeProxy::start();
        set_proxy_environment(&setup, &variables, &proxy.url);
        let sandbox = Sandbox::start();
        sandbox.seed_transaction(&transaction_object("B47-ENV", "successful", "5"));
        let transaction = sandbox.client().verify_transaction("B47-ENV").await;
        assert_eq!(transaction.map(|t| t.tx_ref), Ok("B47-ENV".to_owned()), "{variables:?}: not answered directly");
        assert_eq!(proxy.seen(), Vec::<String>::new(), "{variables:?}: the proxy saw the loopback call (and the key)");
        assert_eq!(sandbox.requests().len(), 1);
    }
}

#[tokio::test]
async fn b47_https_proxy_environment_is_ignored_for_https_targets() {
    let setup = scenario("environment_proxies");
    let proxy = FakeProxy::start();
    set_proxy_environment(&setup, &names(&setup, "https_variables"), &proxy.url);
    // `.invalid` never resolves: ignoring the environment, the call fails before any traffic.
    let mut config = ClientConfig::new(KEY, "https://sika-proxy-test.invalid");
    config.max_retries = 0;
    config.timeout_ms = 5_000;
    let result = Client::new(config).expect("client").verify_transaction("B47-HTTPS").await;
    assert!(matches!(result, Err(SikaError::Network { .. })), "{result:?}");
    assert_eq!(proxy.seen(), Vec::<String>::new(), "an environment proxy was used without the merchant's setting");
}

#[tokio::test]
async fn b47_explicit_proxy_carries_https_through_connect() {
    let proxy = FakeProxy::start();
    let mut config = ClientConfig::new(KEY, "https://sika-proxy-test.invalid");
    config.max_retries = 0;
    config.timeout_ms = 5_000;
    config.proxy = Some(proxy.url.clone().into());
    let result = Client::new(config).expect("client").verify_transaction("B47-CONNECT").await;
    // The proxy refuses the tunnel: a network error, never its forged body read as a payment.
    assert!(matches!(result, Err(SikaError::Network { .. })), "{result:?}");
    assert_eq!(proxy.seen(), vec!["CONNECT sika-proxy-test.invalid:443 HTTP/1.1".to_owned()]);
}

#[tokio::test]
async fn b47_explicit_proxy_is_not_used_for_loopback() {
    let proxy = FakeProxy::start();
    let sandbox = Sandbox::start();
    sandbox.seed_transaction(&transaction_object("B47-EXPLICIT", "successful", "5"));
    let mut config = sandbox.config();
    config.proxy = Some(proxy.url.clone().into());
    let transaction = Client::new(config).expect("client").verify_transaction("B47-EXPLICIT").await.expect("direct");
    assert_eq!(transaction.tx_ref, "B47-EXPLICIT");
    assert_eq!(proxy.seen(), Vec::<String>::new());
}

#[test]
fn b47_a_bad_proxy_is_invalid_input_and_nothing_is_sent() {
    let sandbox = Sandbox::start();
    for bad in ["not a url", "ftp://127.0.0.1:21", "http://", "http://127.0.0.1:1/?x=1", "", "socks5://127.0.0.1:1"] {
        let mut config = sandbox.config();
        config.proxy = Some(bad.into());
        let error = Client::new(config).err().unwrap_or_else(|| panic!("{bad:?} accepted"));
        assert!(matches!(&error, SikaError::InvalidInput { field, .. } if field == "proxy"), "{bad:?}: {error:?}");
    }
    assert!(sandbox.requests().is_empty());
}

#[test]
fn b47_proxy_credentials_never_print() {
    let mut config = ClientConfig::new(KEY, "https://api.example.com");
    config.proxy = Some("http://proxyuser:hunter2canary@127.0.0.1:3128".into());
    let printed = format!("{config:?}");
    assert!(!printed.contains("hunter2canary"), "{printed}");
    assert!(!printed.contains("proxyuser"), "{printed}");
    let mut bad = config.clone();
    bad.proxy = Some("http://proxyuser:hunter2canary@127.0.0.1:99999".into());
    let Err(error) = Client::new(bad) else { panic!("port 99999 accepted") };
    assert!(!format!("{error} {error:?}").contains("hunter2canary"), "{error:?}");
}
