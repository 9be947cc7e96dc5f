//! B37: fork safety. A client used before `fork` (its pool holding a live connection, its
//! runtime running) keeps working in the forked children and in the parent: several children
//! are forked while the parent keeps calling; each child verifies, confirms and charges its own
//! seeded reference and reports through its exit code; the parent waits with a deadline (a
//! hung child is killed and fails the test); every answer, in every process, is about the
//! reference asked; the parent still works after. Both clients; one child also forks a
//! grandchild after its own calls (state built in a child is left alone by the grandchild).
//!
//! Forked workers that meet an outage do not retry it in step: each process draws its own
//! retry waits (`b37_forked_workers_draw_their_own_retry_waits`).
//!
//! Without per-process state the children hang (the inherited runtime's driver thread does not
//! exist in them, or a parent thread held the runtime at the fork), time out, or read answers
//! meant for the parent over the pooled connection they share with it.

mod support;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use sika_core::{Amount, BlockingClient, ChargeRequest, Client, ExpectedPayment, PaymentCheck, Result, Transaction};
use support::forking::{fork_child, wait_for_child};
use support::{Sandbox, captured_log, transaction_object};

const CHILDREN: usize = 4;
/// Well past the clients' 10 s timeout: a child still running then is hung.
const CHILD_DEADLINE: Duration = Duration::from_secs(25);
const PARENT_REFERENCE: &str = "FORK-PARENT";
const PARENT_AMOUNT: &str = "77.70";

/// What each process checks, for either client.
trait Calls {
    fn verify(&self, reference: &str) -> Result<Transaction>;
    fn confirm(&self, reference: &str, expected: &ExpectedPayment) -> Result<PaymentCheck>;
    fn charge(&self, request: &ChargeRequest) -> Result<sika_core::ChargeResponse>;
}

impl Calls for BlockingClient {
    fn verify(&self, reference: &str) -> Result<Transaction> {
        self.verify_transaction(reference)
    }
    fn confirm(&self, reference: &str, expected: &ExpectedPayment) -> Result<PaymentCheck> {
        self.confirm_payment(reference, expected)
    }
    fn charge(&self, request: &ChargeRequest) -> Result<sika_core::ChargeResponse> {
        self.initiate_charge(request)
    }
}

/// The async client on a runtime of the process that calls (a child builds its own: the
/// parent's is not usable there, and is not the client's to fix).
struct OnRuntime<'a> {
    client: &'a Client,
    runtime: tokio::runtime::Runtime,
}

impl OnRuntime<'_> {
    fn new(client: &Client) -> OnRuntime<'_> {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        OnRuntime { client, runtime }
    }
}

impl Calls for OnRuntime<'_> {
    fn verify(&self, reference: &str) -> Result<Transaction> {
        self.runtime.block_on(self.client.verify_transaction(reference))
    }
    fn confirm(&self, reference: &str, expected: &ExpectedPayment) -> Result<PaymentCheck> {
        self.runtime.block_on(self.client.confirm_payment(reference, expected))
    }
    fn charge(&self, request: &ChargeRequest) -> Result<sika_core::ChargeResponse> {
        self.runtime.block_on(self.client.initiate_charge(request))
    }
}

fn child_reference(child: usize) -> String {
    format!("FORK-CHILD-{child}")
}

/// Each child's transaction has its own amount too, so a crossed answer cannot pass.
fn child_amount(child: usize) -> String {
    format!("{}.{:02}", 10 + child, child)
}

fn seed(sandbox: &Sandbox, processes: usize) {
    sandbox.seed_transaction(&transaction_object(PARENT_REFERENCE, "successful", PARENT_AMOUNT));
    for child in 0..processes {
        sandbox.seed_transaction(&transaction_object(&child_reference(child), "successful", &child_amount(child)));
    }
}

fn expected(amount: &str) -> ExpectedPayment {
    ExpectedPayment { amount: amount.parse::<Amount>().expect("amount"), currency: "GHS".into() }
}

/// One process's checks: its own reference verified (several times, over whatever connection
/// the pool gives) and confirmed, and a charge of its own.
fn checks(calls: &impl Calls, reference: &str, amount: &str) -> std::result::Result<(), String> {
    for _ in 0..5 {
        let transaction = calls.verify(reference).map_err(|e| format!("verify {reference}: {e}"))?;
        if transaction.tx_ref != reference || transaction.amount.to_string() != amount {
            return Err(format!("asked {reference}, got {} of {}", transaction.tx_ref, transaction.amount));
        }
    }
    match calls.confirm(reference, &expected(amount)) {
        Ok(PaymentCheck::Confirmed { .. }) => {}
        other => return Err(format!("confirm {reference}: {other:?}")),
    }
    let charge_reference = format!("{reference}-CHARGE");
    let request = ChargeRequest {
        amount: "5".parse::<Amount>().expect("amount"),
        email: "kofi@example.com".into(),
        phone_number: "+233201230000".into(),
        reference: charge_reference.clone(),
        currency: "GHS".into(),
        provider: "MTN".into(),
        callback_url: None,
    };
    let response = calls.charge(&request).map_err(|e| format!("charge {charge_reference}: {e}"))?;
    let data: serde_json::Value = serde_json::from_str(response.data_json.as_deref().unwrap_or("null"))
        .map_err(|e| format!("charge {charge_reference}: data: {e}"))?;
    if data["tx_ref"] != charge_reference.as_str() {
        return Err(format!("charged {charge_reference}, the answer is about {}", data["tx_ref"]));
    }
    Ok(())
}

/// Forks `CHILDREN` children, each running `checks` on its own reference (child 0 also forks
/// a grandchild after its checks), while `parent_calls` runs in the parent; then waits for
/// them all and asserts they passed.
fn fork_children_while_the_parent_calls(
    sandbox: &Sandbox,
    child_checks: impl Fn(&str, &str) -> std::result::Result<(), String> + Sync,
    parent_calls: impl Fn() + Send,
) {
    seed(sandbox, CHILDREN + 1);
    let stop = &AtomicBool::new(false);
    let outcomes = std::thread::scope(|scope| {
        let caller = scope.spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                parent_calls();
            }
        });
        let mut children = Vec::new();
        for child in 0..CHILDREN {
            children.push(fork_child(|| {
                child_checks(&child_reference(child), &child_amount(child))?;
                if child == 0 {
                    let grandchild = CHILDREN;
                    let pid = fork_child(|| child_checks(&child_reference(grandchild), &child_amount(grandchild)));
                    wait_for_child(pid, Instant::now() + CHILD_DEADLINE).map_err(|e| format!("grandchild: {e}"))?;
                }
                Ok(())
            }));
            // Forks land at different points of the parent's calls.
            std::thread::sleep(Duration::from_millis(3));
        }
        let deadline = Instant::now() + CHILD_DEADLINE;
        let outcomes: Vec<_> = children.into_iter().map(|pid| wait_for_child(pid, deadline)).collect();
        stop.store(true, Ordering::Relaxed);
        caller.join().expect("the parent's calls never failed");
        outcomes
    });
    let failed: Vec<_> = outcomes.into_iter().filter_map(std::result::Result::err).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The parent's own check: its reference, and nothing else, every time.
fn parent_verified(transaction: Result<Transaction>) {
    let transaction = transaction.expect("the parent's verify");
    assert_eq!(transaction.tx_ref, PARENT_REFERENCE, "the parent got an answer about another reference");
    assert_eq!(transaction.amount.to_string(), PARENT_AMOUNT);
}

/// Every charge of every process reached the service exactly once.
fn each_charge_sent_once(sandbox: &Sandbox, references: impl Iterator<Item = String>) {
    let charges: Vec<_> = sandbox.requests().into_iter().filter(|request| request["path"] == "/charge").collect();
    let references: Vec<_> = references.collect();
    assert_eq!(charges.len(), references.len(), "one charge per process: {charges:?}");
}

#[test]
fn b37_a_blocking_client_used_before_fork_works_in_children_and_parent() {
    let sandbox = Sandbox::start();
    let client = Arc::new(sandbox.blocking_client());
    seed(&sandbox, 0);
    // A live pooled connection, and a runtime that has run.
    parent_verified(client.verify_transaction(PARENT_REFERENCE));
    let parent_calls = AtomicUsize::new(0);
    fork_children_while_the_parent_calls(
        &sandbox,
        |reference, amount| checks(&*client, reference, amount),
        || {
            parent_verified(client.verify_transaction(PARENT_REFERENCE));
            parent_calls.fetch_add(1, Ordering::Relaxed);
        },
    );
    assert!(parent_calls.load(Ordering::Relaxed) > 0, "the parent called while forking");
    checks(&*client, PARENT_REFERENCE, PARENT_AMOUNT).expect("the parent still works");
    each_charge_sent_once(&sandbox, (0..=CHILDREN).map(child_reference).chain([PARENT_REFERENCE.to_owned()]));
}

#[test]
fn b37_an_async_client_used_before_fork_works_in_children_and_parent() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    // The parent's runtime: worker threads that the children do not have.
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("rt");
    seed(&sandbox, 0);
    parent_verified(runtime.block_on(client.verify_transaction(PARENT_REFERENCE)));
    // The parent's calls run as tasks on its workers while the test's thread forks.
    let (stop, calls) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicUsize::new(0)));
    let callers: Vec<_> = (0..2)
        .map(|_| {
            let (client, stop, calls) = (client.clone(), Arc::clone(&stop), Arc::clone(&calls));
            runtime.spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    parent_verified(client.verify_transaction(PARENT_REFERENCE).await);
                    calls.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    fork_children_while_the_parent_calls(
        &sandbox,
        |reference, amount| checks(&OnRuntime::new(&client), reference, amount),
        || std::thread::sleep(Duration::from_millis(1)),
    );
    stop.store(true, Ordering::Relaxed);
    for caller in callers {
        runtime.block_on(caller).expect("the parent's calls never failed");
    }
    assert!(calls.load(Ordering::Relaxed) > 0, "the parent called while forking");
    let parent = OnRuntime { client: &client, runtime };
    checks(&parent, PARENT_REFERENCE, PARENT_AMOUNT).expect("the parent still works");
    each_charge_sent_once(&sandbox, (0..=CHILDREN).map(child_reference).chain([PARENT_REFERENCE.to_owned()]));
}

#[test]
fn b37_a_client_created_before_fork_and_first_used_in_the_child_works() {
    let sandbox = Sandbox::start();
    seed(&sandbox, 2);
    let blocking = sandbox.blocking_client();
    let client = sandbox.client();
    let pid = fork_child(|| {
        checks(&blocking, &child_reference(0), &child_amount(0))?;
        checks(&OnRuntime::new(&client), &child_reference(1), &child_amount(1))
    });
    wait_for_child(pid, Instant::now() + CHILD_DEADLINE).expect("the child passed");
    checks(&blocking, PARENT_REFERENCE, PARENT_AMOUNT).expect("the parent works");
}

#[test]
fn b43_a_shut_down_client_fails_with_configuration_in_a_child_too() {
    let sandbox = Sandbox::start();
    seed(&sandbox, 1);
    let blocking = sandbox.blocking_client();
    parent_verified(blocking.verify_transaction(PARENT_REFERENCE));
    blocking.shutdown();
    let pid = fork_child(|| match blocking.verify_transaction(&child_reference(0)) {
        Err(sika_core::SikaError::Configuration { reason }) if reason == "the client has been shut down" => Ok(()),
        other => Err(format!("after shutdown: {other:?}")),
    });
    wait_for_child(pid, Instant::now() + CHILD_DEADLINE).expect("the child passed");
    assert_eq!(sandbox.requests().len(), 1, "nothing sent after shutdown");
}

/// The waits the SDK announced before each retry ("retry N in X ms", its WARN records).
fn retry_waits() -> Vec<u128> {
    captured_log::take()
        .iter()
        .filter(|line| line.contains("; retry "))
        .filter_map(|line| line.rsplit_once(" in ")?.1.strip_suffix(" ms")?.parse().ok())
        .collect()
}

#[test]
fn b37_forked_workers_draw_their_own_retry_waits() {
    const RETRIES: u32 = 3;
    captured_log::capture(log::LevelFilter::Warn);
    let sandbox = Sandbox::start();
    seed(&sandbox, 0);
    let mut config = sandbox.config();
    config.max_retries = RETRIES;
    let client = BlockingClient::new(config).expect("client");
    let outage = |count| sandbox.fault("/transaction/verify", "status", count, serde_json::json!({ "status": 503 }));
    // The parent (a gunicorn master with --preload) has retried once before it forks.
    outage(1);
    parent_verified(client.verify_transaction(PARENT_REFERENCE));
    assert_eq!(retry_waits().len(), 1, "the parent retried once");
    // Each worker meets the same outage; the workers are forked one after the other from the
    // same parent state, so the sandbox's fault count is each one's alone.
    let parent = std::process::id();
    let file = |child: usize| Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("retry-waits-{parent}-{child}"));
    let drawn: Vec<Vec<u128>> = (0..2)
        .map(|child| {
            outage(RETRIES);
            let pid = fork_child(|| {
                parent_verified(client.verify_transaction(PARENT_REFERENCE));
                let text = retry_waits().iter().map(u128::to_string).collect::<Vec<_>>().join(" ");
                std::fs::write(file(child), text).map_err(|e| format!("writing the waits: {e}"))
            });
            wait_for_child(pid, Instant::now() + CHILD_DEADLINE).expect("the worker passed");
            let text = std::fs::read_to_string(file(child)).expect("the worker's waits");
            std::fs::remove_file(file(child)).expect("removed");
            text.split(' ').map(|wait| wait.parse().expect("a wait")).collect()
        })
        .collect();
    assert_eq!(drawn[0].len(), RETRIES as usize, "worker 0 retried {RETRIES} times: {drawn:?}");
    assert_eq!(drawn[1].len(), RETRIES as usize, "worker 1 retried {RETRIES} times: {drawn:?}");
    // Waits in [0, 200), [0, 400) and [0, 800) ms: equal by chance once in 64 million.
    assert_ne!(drawn[0], drawn[1], "two forked workers retried an outage in step");
}
