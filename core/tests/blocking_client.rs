//! The blocking client against the sandbox: the same operations without async, shared
//! across threads, and a clear error (not a panic) when misused inside a runtime.

mod support;

use std::sync::Arc;

use sika_core::{Amount, ChargeRequest, SikaError, TransactionStatus};
use support::{Sandbox, transaction_object};

#[test]
fn b19_every_operation_works_without_async() {
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
    assert!(matches!(client.verify_transaction("NOPE").map(|_| ()), Err(SikaError::TransactionNotFound { .. })));
    assert!(matches!(client.list_mobile_money_providers(Some("NG")), Err(SikaError::NoProvidersFound { .. })));
}

#[test]
fn b18_one_client_is_shared_by_many_threads() {
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
fn b19_inside_an_async_runtime_it_errors_instead_of_panicking() {
    let sandbox = Sandbox::start();
    let client = sandbox.blocking_client();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let result = runtime.block_on(async { client.verify_transaction("ORDER-1").map(|_| ()) });
    assert!(matches!(result, Err(SikaError::Configuration { .. })), "{result:?}");
    // Dropping the client inside a runtime must not panic either.
    runtime.block_on(async move { drop(client) });
    assert!(sandbox.requests().is_empty());
}
