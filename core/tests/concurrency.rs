//! B31: one client shared by 32 concurrent callers — a `BlockingClient` by 32 threads, a
//! `Client` by 32 Tokio tasks on a multi-thread runtime — each running the same mixed script
//! (verify, providers, banks, charge, confirm_payment, await_final_status, a typed error),
//! every answer checked against the one a lone caller gets, and the request log checked after:
//! each charge sent exactly once, the bank list fetched once per country.

mod support;

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Barrier};
use std::task::{Context, Poll, Waker};

use serde_json::Value;
use sika_core::{
    Amount, AwaitOptions, Bank, BlockingClient, ChargeRequest, ChargeResponse, Client, ExpectedPayment, MerchantAction,
    MobileMoneyProvider, PaymentCheck, Result, SikaError, Transaction, TransactionStatus,
};
use support::{Sandbox, transaction_object};

const CALLERS: usize = 32;
const ROUNDS: usize = 3;
const PROVIDER_COUNTRIES: [&str; 4] = ["GH", "KE", "UG", "TZ"];
const BANK_COUNTRIES: [&str; 5] = ["NG", "GH", "KE", "UG", "TZ"];
const GH_PROVIDERS: [&str; 3] = ["MTN", "VODAFONE", "AIRTELTIGO"];
/// A seeded transaction's status per caller (`index % 4`); `success` is not paid.
const SEEDED_STATUSES: [&str; 4] = ["successful", "failed", "pending", "success"];
/// A charge's phone number ending per `(caller + round) % 3`, and the status it ends in.
const OUTCOMES: [(&str, TransactionStatus); 3] = [
    ("0000", TransactionStatus::Successful),
    ("1111", TransactionStatus::Failed),
    ("3333", TransactionStatus::Pending),
];

/// The operations of both clients, so one script runs on either. The blocking client's
/// calls block inside `async fn`s that finish at their first poll.
trait Api {
    async fn verify(&self, reference: &str) -> Result<Transaction>;
    async fn providers(&self, country: &str) -> Result<Vec<MobileMoneyProvider>>;
    async fn banks(&self, country: &str) -> Result<Vec<Bank>>;
    async fn charge(&self, request: &ChargeRequest) -> Result<ChargeResponse>;
    async fn confirm(&self, reference: &str, expected: &ExpectedPayment) -> Result<PaymentCheck>;
    async fn await_final(&self, reference: &str, options: &AwaitOptions) -> Result<Transaction>;
}

impl Api for Client {
    async fn verify(&self, reference: &str) -> Result<Transaction> {
        self.verify_transaction(reference).await
    }
    async fn providers(&self, country: &str) -> Result<Vec<MobileMoneyProvider>> {
        self.list_mobile_money_providers(Some(country)).await
    }
    async fn banks(&self, country: &str) -> Result<Vec<Bank>> {
        self.list_banks(Some(country)).await
    }
    async fn charge(&self, request: &ChargeRequest) -> Result<ChargeResponse> {
        self.initiate_charge(request).await
    }
    async fn confirm(&self, reference: &str, expected: &ExpectedPayment) -> Result<PaymentCheck> {
        self.confirm_payment(reference, expected).await
    }
    async fn await_final(&self, reference: &str, options: &AwaitOptions) -> Result<Transaction> {
        self.await_final_status(reference, options).await
    }
}

impl Api for BlockingClient {
    async fn verify(&self, reference: &str) -> Result<Transaction> {
        self.verify_transaction(reference)
    }
    async fn providers(&self, country: &str) -> Result<Vec<MobileMoneyProvider>> {
        self.list_mobile_money_providers(Some(country))
    }
    async fn banks(&self, country: &str) -> Result<Vec<Bank>> {
        self.list_banks(Some(country))
    }
    async fn charge(&self, request: &ChargeRequest) -> Result<ChargeResponse> {
        self.initiate_charge(request)
    }
    async fn confirm(&self, reference: &str, expected: &ExpectedPayment) -> Result<PaymentCheck> {
        self.confirm_payment(reference, expected)
    }
    async fn await_final(&self, reference: &str, options: &AwaitOptions) -> Result<Transaction> {
        self.await_final_status(reference, options)
    }
}

/// Runs a future that never waits (the blocking client's script) on the calling thread.
fn run_blocking<T>(work: impl Future<Output = T>) -> T {
    let mut work = std::pin::pin!(work);
    match work.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(value) => value,
        Poll::Pending => panic!("a blocking call returned Pending"),
    }
}

/// What a lone caller gets: the reference answers of the concurrent calls.
struct Expected {
    providers: HashMap<&'static str, Vec<MobileMoneyProvider>>,
    banks: HashMap<&'static str, Vec<Bank>>,
}

fn amount(text: &str) -> Amount {
    text.parse().expect("amount")
}

fn seeded_reference(caller: usize) -> String {
    format!("CONC-{caller}")
}

/// A seeded amount with its own digits and scale per caller (`1.00`, `2.01`, ... `32.31`).
fn seeded_amount(caller: usize) -> String {
    format!("{}.{:02}", caller + 1, caller)
}

fn charge_reference(caller: usize, round: usize) -> String {
    format!("CONC-CHARGE-{caller}-{round}")
}

fn charge_request(caller: usize, round: usize) -> ChargeRequest {
    ChargeRequest {
        amount: amount(&format!("{}.{:02}", round + 1, caller)),
        email: format!("payer{caller}@example.com"),
        phone_number: format!("+23324{:03}{}", caller * 10 + round, OUTCOMES[(caller + round) % 3].0),
        reference: charge_reference(caller, round),
        currency: if caller % 2 == 0 { "GHS".into() } else { "ghs".into() },
        provider: GH_PROVIDERS[(caller + round) % 3].into(),
        callback_url: Some(format!("https://shop.example.com/return/{caller}")),
    }
}

/// Seeds every caller's transaction and reads the reference answers with a client of its own
/// (bank cache off), then clears the request log.
fn prepare(sandbox: &Sandbox) -> Arc<Expected> {
    for caller in 0..CALLERS {
        let status = SEEDED_STATUSES[caller % 4];
        sandbox.seed_transaction(&transaction_object(&seeded_reference(caller), status, &seeded_amount(caller)));
    }
    let mut config = sandbox.config();
    config.bank_cache_ttl_seconds = 0;
    let lone = BlockingClient::new(config).expect("client");
    let providers = PROVIDER_COUNTRIES
        .into_iter()
        .map(|country| (country, lone.list_mobile_money_providers(Some(country)).expect("providers")))
        .collect::<HashMap<_, _>>();
    let banks = BANK_COUNTRIES
        .into_iter()
        .map(|country| (country, lone.list_banks(Some(country)).expect("banks")))
        .collect::<HashMap<_, _>>();
    assert_eq!(providers["GH"].len(), 3);
    assert!(banks.values().all(|list| !list.is_empty()));
    sandbox.clear_requests();
    Arc::new(Expected { providers, banks })
}

/// One caller's work: `ROUNDS` rounds of every operation (in an order that differs per
/// caller), then the outcome of each of its charges. Panics on the first wrong answer.
async fn script(api: &impl Api, caller: usize, expected: &Expected) {
    let reference = seeded_reference(caller);
    let seeded_status = SEEDED_STATUSES[caller % 4];
    let order = ExpectedPayment { amount: amount(&seeded_amount(caller)), currency: "ghs".into() };
    for round in 0..ROUNDS {
        for step in 0..6 {
            match (step + caller + round) % 6 {
                0 => {
                    let transaction = api.verify(&reference).await.expect("verify");
                    assert_eq!(transaction.tx_ref, reference);
                    assert_eq!(transaction.amount.to_string(), seeded_amount(caller), "{reference}: exact amount");
                    assert_eq!(transaction.status, TransactionStatus::from_wire(seeded_status), "{reference}");
                }
                1 => {
                    let country = PROVIDER_COUNTRIES[(caller + round) % PROVIDER_COUNTRIES.len()];
                    let providers = api.providers(&country.to_lowercase()).await.expect("providers");
                    assert_eq!(providers, expected.providers[country], "providers of {country}");
                }
                2 => {
                    let country = BANK_COUNTRIES[(caller + round) % BANK_COUNTRIES.len()];
                    let banks = api.banks(country).await.expect("banks");
                    assert_eq!(banks, expected.banks[country], "banks of {country}");
                }
                3 => {
                    let request = charge_request(caller, round);
                    let response = api.charge(&request).await.expect("charge");
                    assert_eq!((response.http_status, response.status), (200, Some(true)), "{}", request.reference);
                    let data: Value = serde_json::from_str(response.data_json.as_deref().expect("data")).expect("json");
                    assert_eq!(data["tx_ref"], request.reference.as_str(), "the answer is about this charge");
                }
                4 => {
                    let check = api.confirm(&reference, &order).await.expect("confirm_payment");
                    match seeded_status {
                        "successful" => assert!(check.is_confirmed(), "{reference}: {check:?}"),
                        "failed" => assert!(
                            matches!(
                                check,
                                PaymentCheck::NotPaid { action: MerchantAction::InformCustomerAllowRetry, .. }
                            ),
                            "{reference}: {check:?}"
                        ),
                        "pending" => assert!(matches!(check, PaymentCheck::NotYet { .. }), "{reference}: {check:?}"),
                        _ => assert!(
                            matches!(check, PaymentCheck::NotPaid { action: MerchantAction::Investigate, .. }),
                            "{reference}: {check:?}"
                        ),
                    }
                    assert_eq!(check.transaction().tx_ref, reference);
                    if seeded_status == "successful" {
                        let short = ExpectedPayment { amount: amount(&format!("{}", caller + 2)), ..order.clone() };
                        let check = api.confirm(&reference, &short).await.expect("confirm_payment");
                        assert!(
                            matches!(check, PaymentCheck::Mismatch { ref field, .. } if field == "amount"),
                            "{reference}: {check:?}"
                        );
                    }
                }
                _ => {
                    let missing = format!("CONC-MISSING-{caller}-{round}");
                    assert!(matches!(
                        api.verify(&missing).await.map(|t| t.tx_ref),
                        Err(SikaError::TransactionNotFound { .. })
                    ));
                }
            }
        }
    }
    let options =
        AwaitOptions { initial_delay_ms: 0, interval_ms: 50, max_interval_ms: 200, ..AwaitOptions::default() };
    for round in 0..ROUNDS {
        let request = charge_request(caller, round);
        let transaction = match &OUTCOMES[(caller + round) % 3].1 {
            TransactionStatus::Pending => api.verify(&request.reference).await.expect("verify"),
            _ => api.await_final(&request.reference, &options).await.expect("await_final_status"),
        };
        assert_eq!(transaction.status, OUTCOMES[(caller + round) % 3].1, "{}", request.reference);
        assert_eq!(transaction.amount, request.amount, "{}", request.reference);
        assert_eq!(transaction.currency, "GHS");
        let paid = ExpectedPayment { amount: request.amount, currency: "GHS".into() };
        let check = api.confirm(&request.reference, &paid).await.expect("confirm_payment");
        assert_eq!(check.is_confirmed(), transaction.status == TransactionStatus::Successful, "{check:?}");
    }
}

/// The request log after the run: every charge sent exactly once, every bank list fetched
/// once (the shared cache and its single flight), nothing unauthorized.
fn check_requests(sandbox: &Sandbox) {
    let log = sandbox.requests();
    assert!(log.iter().all(|r| r["authorized"] == true), "every request carried the key");
    let charges = log.iter().filter(|r| r["method"] == "POST" && r["path"] == "/charge").count();
    assert_eq!(charges, CALLERS * ROUNDS, "each charge sent exactly once");
    let mut bank_queries: Vec<_> =
        log.iter().filter(|r| r["path"] == "/bank").map(|r| r["query"].as_str().unwrap_or_default()).collect();
    bank_queries.sort_unstable();
    let mut want: Vec<_> = BANK_COUNTRIES.iter().map(|c| format!("country={c}")).collect();
    want.sort_unstable();
    assert_eq!(bank_queries, want, "one bank request per country");
    let provider_calls = log.iter().filter(|r| r["path"] == "/mobile-money-providers").count();
    assert_eq!(provider_calls, CALLERS * ROUNDS, "providers are not cached");
}

#[test]
fn b31_one_blocking_client_shared_by_32_threads() {
    let sandbox = Sandbox::start();
    let expected = prepare(&sandbox);
    let client = Arc::new(sandbox.blocking_client());
    let start = Arc::new(Barrier::new(CALLERS));
    let threads: Vec<_> = (0..CALLERS)
        .map(|caller| {
            let (client, expected, start) = (Arc::clone(&client), Arc::clone(&expected), Arc::clone(&start));
            std::thread::spawn(move || {
                start.wait();
                run_blocking(script(&*client, caller, &expected));
            })
        })
        .collect();
    for (caller, thread) in threads.into_iter().enumerate() {
        thread.join().unwrap_or_else(|_| panic!("caller {caller} failed (see its panic above)"));
    }
    check_requests(&sandbox);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn b31_one_async_client_shared_by_32_tasks() {
    let sandbox = Sandbox::start();
    // The lone caller is a blocking client: on a thread of its own, outside the runtime.
    let expected = std::thread::scope(|scope| scope.spawn(|| prepare(&sandbox)).join().expect("prepared"));
    let client = sandbox.client();
    let start = Arc::new(tokio::sync::Barrier::new(CALLERS));
    let tasks: Vec<_> = (0..CALLERS)
        .map(|caller| {
            let (client, expected, start) = (client.clone(), Arc::clone(&expected), Arc::clone(&start));
            tokio::spawn(async move {
                start.wait().await;
                script(&client, caller, &expected).await;
            })
        })
        .collect();
    for (caller, task) in tasks.into_iter().enumerate() {
        task.await.unwrap_or_else(|e| panic!("caller {caller} failed: {e}"));
    }
    check_requests(&sandbox);
}
