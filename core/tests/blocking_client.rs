//! The blocking client against the sandbox: the same operations without async, shared
//! across threads, and a clear error (not a panic) when misused inside a runtime.

mod support;

use std::sync::Arc;

use sika_core::{Amount, ChargeRequest, SikaError, TransactionStatus};
use support::{Sandbox, transaction_object};

#[test]
fn every_operation_works_without_async() {
    let sandbox = Sandbox::start();
    let client = sandbox.blocking_client();
    assert_eq!(client.list_mobile_money_providers(None).expect("providers").len(), 3);
    assert!(!client.list_banks(Some("ng")).expect("banks").is_empty());
    sandbox.seed_transaction(&transaction_object("BLOCK-1", "failed", "12.30"));
    let transaction = client.verify_transaction("BLOCK-1").expect("verify");
    assert_eq!(transaction.status, TransactionStatus::Failed);
    assert_eq!(transaction.amount.to_string(), "12.30");
    let response = client
        .initiate_charge(&ChargeRequest {
            amount: "5".parse::<Amount>().expect("amount"),
            email: "kofi@example.com".into(),
            phone_number: "+233201230000".into(),
            reference: "BLOCK-CHARGE".into(),
            currency: "ghs".into(),
            provider: "VODAFONE".into(),
            callback_url: None,
        })
        .expect("charge");
    assert_eq!(response.status, Some(true));
    assert_eq!(client.verify_transaction("NOPE").map(|_| ()), Err(SikaError::TransactionNotFound));
    assert_eq!(client.list_mobile_money_providers(Some("NG")), Err(SikaError::NoProvidersFound));
}

#[test]
fn one_client_is_shared_by_many_threads() {
    let sandbox = Sandbox::start();
    for index in 0..8 {
        sandbox.seed_transaction(&transaction_object(&format!("THREAD-{index}"), "successful", "1.00"));
    }
    let client = Arc::new(sandbox.blocking_client());
    let threads: Vec<_> = (0..8)
        .map(|index| {
            let client = Arc::clone(&client);
            std::thread::spawn(move || {
                for _ in 0..10 {
                    let transaction = client.verify_transaction(&format!("THREAD-{index}")).expect("verify");
                    assert_eq!(transaction.tx_ref, format!("THREAD-{index}"));
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("no thread panicked");
    }
    assert_eq!(sandbox.requests().len(), 80);
}

#[test]
fn inside_an_async_runtime_it_errors_instead_of_panicking() {
    let sandbox = Sandbox::start();
    let client = sandbox.blocking_client();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let result = runtime.block_on(async { client.verify_transaction("ORDER-1").map(|_| ()) });
    assert!(matches!(result, Err(SikaError::Configuration { .. })), "{result:?}");
    // Dropping the client inside a runtime must not panic either.
    runtime.block_on(async move { drop(client) });
    assert!(sandbox.requests().is_empty());
}

/// A server that answers each request on a connection it then closes (FIN, no `Connection:
/// close` header, as a keep-alive timeout at a proxy would): the client pools the connection,
/// which is closed by the time of the next call. Returns the address and the request lines.
fn server_closing_idle_connections() -> (String, Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = format!("http://{}", listener.local_addr().expect("address"));
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let mut reader = BufReader::new(stream);
            let (mut request_line, mut length) = (String::new(), 0usize);
            if reader.read_line(&mut request_line).is_err() || request_line.is_empty() {
                continue;
            }
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
                    break;
                }
                if let Some((name, value)) = header.split_once(':') {
                    if name.eq_ignore_ascii_case("content-length") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            log.lock().expect("log").push(request_line.trim().to_owned());
            let answer = br#"{"status":true,"message":"Charge initiated","data":{"status":"pending"}}"#;
            let mut stream = reader.into_inner();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                answer.len()
            );
            let _ = stream.write_all(answer);
            // Dropped here: the connection is closed once answered.
        }
    });
    (address, seen)
}

#[test]
fn a_pooled_connection_closed_by_the_server_while_idle_is_not_used_for_the_next_call() {
    // The blocking client's runtime is driven only during calls (ADR 0010), so the close is
    // noticed at the next call: it must go out on a new connection, not fail, and a charge
    // must be sent exactly once.
    let (address, seen) = server_closing_idle_connections();
    let config =
        sika_core::ClientConfig { max_retries: 0, ..sika_core::ClientConfig::new("sk_test_canary_idle", &address) };
    let client = sika_core::BlockingClient::new(config).expect("client");
    let charge = |reference: &str| ChargeRequest {
        amount: "5".parse::<Amount>().expect("amount"),
        email: "kofi@example.com".into(),
        phone_number: "+233201230000".into(),
        reference: reference.into(),
        currency: "GHS".into(),
        provider: "MTN".into(),
        callback_url: None,
    };
    for index in 0..3 {
        let response = client.initiate_charge(&charge(&format!("IDLE-{index}"))).expect("a charge after an idle close");
        assert_eq!(response.status, Some(true));
        // Long enough for the server's FIN to reach the client's socket.
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(seen.lock().expect("log").len(), 3, "each charge was sent exactly once: {:?}", seen.lock());
}
