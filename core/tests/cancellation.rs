//! B32: cancelling in-flight calls. A call stuck on a `hang` fault and then cancelled by the
//! host (a `tokio::time::timeout`, a `select!` branch, `JoinHandle::abort`, or a
//! `Cancellation` for `await_final_status`) ends promptly, closes its connection (the sandbox's
//! open-connection count returns to its baseline: polled, never a fixed sleep), sends nothing
//! more, leaves no Tokio task behind, and the client keeps working.
//!
//! Tasks: sika-core spawns none itself (no `tokio::spawn` in core/src). The HTTP stack does:
//! one task per open connection (it owns the socket) and one pool-reaper task per client. The
//! async tests read the runtime's own count (`Handle::metrics().num_alive_tasks()`) before, after
//! the cancellation and after dropping the client. The `BlockingClient`'s runtime is private:
//! its tasks are the call being run (the caller blocks until it ends, so none outlives its call)
//! and the connections' tasks, so the blocking test proves through the sandbox that every
//! connection is closed once the client is dropped (`shutdown_background` drops every task).

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use sika_core::{AwaitOptions, Cancellation, Client, SikaError, TransactionStatus};
use support::{Sandbox, transaction_object};

/// How long a closed connection, an ended task or a request may take to show.
const SETTLE: Duration = Duration::from_secs(5);
/// How soon a cancelled call must end: far below the client's own 10 s timeout, with room
/// for a loaded machine.
const PROMPTLY: Duration = Duration::from_secs(2);

fn hang_verify(sandbox: &Sandbox, count: u32) {
    sandbox.fault("/transaction/verify", "hang", count, json!({}));
}

/// How many verify requests the sandbox received.
fn verifies(sandbox: &Sandbox) -> usize {
    sandbox
        .requests()
        .iter()
        .filter(|r| r["path"].as_str().is_some_and(|p| p.starts_with("/transaction/verify/")))
        .count()
}

/// Tasks alive on the runtime running the test.
fn alive_tasks() -> usize {
    tokio::runtime::Handle::current().metrics().num_alive_tasks()
}

/// Polls `read` on Tokio's clock until `done` holds or `SETTLE` passes; the last value.
async fn eventually<T>(mut read: impl FnMut() -> T, done: impl Fn(&T) -> bool) -> T {
    let started = Instant::now();
    loop {
        let value = read();
        if done(&value) || started.elapsed() >= SETTLE {
            return value;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The open count of an idle sandbox: only the control request's own connection.
async fn idle_baseline(sandbox: &Sandbox) -> u64 {
    let open = sandbox.wait_for_open_at_most_async(1, SETTLE).await.open;
    assert_eq!(open, 1, "an idle sandbox counts only the control request's own connection");
    open
}

/// Waits until `calls` verifies hang at the sandbox, each on an open connection of its own.
async fn wait_until_hanging(sandbox: &Sandbox, baseline: u64, calls: usize) {
    let seen = eventually(|| verifies(sandbox), |n| *n >= calls).await;
    assert_eq!(seen, calls, "the hung verifies reached the sandbox");
    let open = eventually(|| sandbox.connections().open, |open| *open >= baseline + calls as u64).await;
    assert!(open >= baseline + calls as u64, "{calls} hung calls hold {open} connections, baseline {baseline}");
}

async fn assert_connections_return(sandbox: &Sandbox, baseline: u64, what: &str) {
    let after = sandbox.wait_for_open_at_most_async(baseline, SETTLE).await;
    assert!(after.open <= baseline, "{what}: connections still open {after:?}, baseline {baseline}");
}

async fn assert_still_works(sandbox: &Sandbox, client: &Client) {
    sandbox.seed_transaction(&transaction_object("AFTER-1", "successful", "12.50"));
    let transaction = client.verify_transaction("AFTER-1").await.expect("the client works after a cancellation");
    assert_eq!((transaction.tx_ref.as_str(), transaction.amount.to_string()), ("AFTER-1", "12.50".to_owned()));
    assert_eq!(transaction.status, TransactionStatus::Successful);
}

fn fast_await(cancellation: &Cancellation) -> AwaitOptions {
    AwaitOptions {
        initial_delay_ms: 0,
        interval_ms: 50,
        max_interval_ms: 100,
        timeout_ms: 60_000,
        cancellation: Some(cancellation.clone()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b32_a_call_dropped_by_a_timeout_closes_its_connection() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let baseline = idle_baseline(&sandbox).await;
    hang_verify(&sandbox, 1);
    let started = Instant::now();
    let outcome = tokio::time::timeout(Duration::from_millis(300), client.verify_transaction("HANG-1")).await;
    assert!(outcome.is_err(), "the hung call answered: {outcome:?}");
    assert!(started.elapsed() < PROMPTLY, "the timeout took {:?}", started.elapsed());
    assert_eq!(verifies(&sandbox), 1, "the call reached the sandbox before it was dropped");
    assert!(sandbox.connections().accepted >= 2, "the call opened a connection");
    assert_connections_return(&sandbox, baseline, "after a timeout").await;
    assert_still_works(&sandbox, &client).await;
}

#[tokio::test]
async fn b32_a_call_dropped_by_select_closes_its_connection_on_a_current_thread_runtime() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    let baseline = idle_baseline(&sandbox).await;
    hang_verify(&sandbox, 1);
    // The other branch wins once the call's connection is open and its request is at the
    // sandbox; the call's future is then dropped by `select!`.
    let hanging = async {
        eventually(|| (verifies(&sandbox), sandbox.connections().open), |(n, open)| *n == 1 && *open > baseline).await
    };
    let started = Instant::now();
    tokio::select! {
        outcome = client.verify_transaction("HANG-1") => panic!("the hung call answered: {outcome:?}"),
        (seen, open) = hanging => assert!(seen == 1 && open > baseline, "never hung: {seen} verifies, {open} open"),
    }
    assert!(started.elapsed() < SETTLE);
    assert_connections_return(&sandbox, baseline, "after select!").await;
    assert_still_works(&sandbox, &client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b32_aborted_tasks_close_their_connections_and_leave_no_task_behind() {
    // Every read socket of the default cap of 32: a quarter is kept for charges (ADR 0065).
    const CALLS: usize = 24;
    let tasks_at_start = alive_tasks();
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    sandbox.seed_transaction(&transaction_object("WARM-1", "pending", "1"));
    client.verify_transaction("WARM-1").await.expect("warm-up: one pooled connection");
    let tasks_warm = alive_tasks();
    assert!(tasks_warm > tasks_at_start, "a pooled connection is driven by a task ({tasks_warm} alive)");
    sandbox.clear_requests();
    // The warm connection counts as open too: the baseline is read, not assumed.
    let baseline = eventually(|| sandbox.connections().open, |open| *open <= 2).await;

    hang_verify(&sandbox, CALLS as u32);
    let calls: Vec<_> = (0..CALLS)
        .map(|index| {
            let client = client.clone();
            tokio::spawn(async move { client.verify_transaction(&format!("HANG-{index}")).await })
        })
        .collect();
    wait_until_hanging(&sandbox, baseline.saturating_sub(1), CALLS).await;
    assert!(alive_tasks() >= tasks_warm + CALLS, "each hung call is a live task");

    let started = Instant::now();
    for call in &calls {
        call.abort();
    }
    for call in calls {
        let ended = tokio::time::timeout(PROMPTLY, call).await.expect("an aborted task ends promptly");
        assert!(ended.is_err_and(|e| e.is_cancelled()), "the task was cancelled, not finished");
    }
    assert!(started.elapsed() < PROMPTLY * 2);
    // Every hung connection closes (the warm one too, if a call reused it) and its task ends.
    assert_connections_return(&sandbox, baseline, "after abort").await;
    let tasks = eventually(alive_tasks, |n| *n <= tasks_warm).await;
    assert!(tasks <= tasks_warm, "{tasks} tasks alive after the abort, {tasks_warm} before the calls");
    assert_eq!(verifies(&sandbox), CALLS, "nothing was sent again");

    assert_still_works(&sandbox, &client).await;
    // Dropping the client closes its pool: no connection and no task outlives it.
    drop(client);
    assert_connections_return(&sandbox, 1, "after dropping the client").await;
    let tasks = eventually(alive_tasks, |n| *n <= tasks_at_start).await;
    assert_eq!(tasks, tasks_at_start, "tasks left behind by a dropped client");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b32_await_final_status_cancelled_between_checks_stops_and_checks_no_more() {
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    sandbox.seed_transaction(&transaction_object("WAIT-PENDING", "pending", "20"));
    let cancellation = Cancellation::new();
    let options = fast_await(&cancellation);
    let waiting = tokio::spawn({
        let client = client.clone();
        async move { client.await_final_status("WAIT-PENDING", &options).await }
    });
    assert!(eventually(|| verifies(&sandbox), |n| *n >= 3).await >= 3, "the wait checks while pending");
    let started = Instant::now();
    cancellation.cancel();
    let result = tokio::time::timeout(PROMPTLY, waiting).await.expect("ends promptly").expect("task");
    assert_eq!(result.map(|t| t.tx_ref), Err(SikaError::Cancelled));
    assert!(started.elapsed() < PROMPTLY);
    let checks = verifies(&sandbox);
    // Four times the longest interval between checks: a check still scheduled would show.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(verifies(&sandbox), checks, "no check after the cancellation");
    assert_connections_return(&sandbox, 2, "the pooled connection at most").await;
    assert_still_works(&sandbox, &client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b32_await_final_status_cancelled_during_a_hung_check_closes_its_connection() {
    let tasks_at_start = alive_tasks();
    let sandbox = Sandbox::start();
    let client = sandbox.client();
    sandbox.seed_transaction(&transaction_object("WAIT-HANG", "pending", "20"));
    let baseline = idle_baseline(&sandbox).await;
    hang_verify(&sandbox, 1);
    let cancellation = Cancellation::new();
    let options = fast_await(&cancellation);
    let waiting = tokio::spawn({
        let client = client.clone();
        async move { client.await_final_status("WAIT-HANG", &options).await }
    });
    wait_until_hanging(&sandbox, baseline, 1).await;
    let started = Instant::now();
    cancellation.cancel();
    let result = tokio::time::timeout(PROMPTLY, waiting).await.expect("ends promptly").expect("task");
    assert_eq!(result.map(|t| t.tx_ref), Err(SikaError::Cancelled));
    assert!(started.elapsed() < PROMPTLY);
    assert_connections_return(&sandbox, baseline, "after cancelling a hung check").await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(verifies(&sandbox), 1, "no check after the cancellation");
    assert_still_works(&sandbox, &client).await;
    drop(client);
    let tasks = eventually(alive_tasks, |n| *n <= tasks_at_start).await;
    assert_eq!(tasks, tasks_at_start, "tasks left behind");
}

#[test]
fn b32_blocking_await_final_status_cancelled_from_another_thread() {
    let sandbox = Sandbox::start();
    let client = Arc::new(sandbox.blocking_client());
    sandbox.seed_transaction(&transaction_object("BLOCK-WAIT", "pending", "20"));
    let baseline = sandbox.wait_for_open_at_most(1, SETTLE).open;
    assert_eq!(baseline, 1, "an idle sandbox counts only the control request's own connection");

    // Between checks: the waiting thread polls while pending, then is cancelled.
    let cancellation = Cancellation::new();
    let waiting = std::thread::spawn({
        let (client, options) = (Arc::clone(&client), fast_await(&cancellation));
        move || client.await_final_status("BLOCK-WAIT", &options)
    });
    assert!(support::poll_until(SETTLE, || verifies(&sandbox), |n| *n >= 3) >= 3, "the wait checks while pending");
    let started = Instant::now();
    cancellation.cancel();
    let result = waiting.join().expect("no panic");
    assert!(started.elapsed() < PROMPTLY, "the blocking wait took {:?} to stop", started.elapsed());
    assert_eq!(result.map(|t| t.tx_ref), Err(SikaError::Cancelled));
    let checks = verifies(&sandbox);
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(verifies(&sandbox), checks, "no check after the cancellation");

    // During a hung check: the connection it was stuck on closes.
    sandbox.clear_requests();
    let pooled = sandbox.wait_for_open_at_most(baseline + 1, SETTLE).open;
    hang_verify(&sandbox, 1);
    let cancellation = Cancellation::new();
    let waiting = std::thread::spawn({
        let (client, options) = (Arc::clone(&client), fast_await(&cancellation));
        move || client.await_final_status("BLOCK-WAIT", &options)
    });
    assert_eq!(support::poll_until(SETTLE, || verifies(&sandbox), |n| *n >= 1), 1, "the check hangs");
    let started = Instant::now();
    cancellation.cancel();
    let result = waiting.join().expect("no panic");
    assert!(started.elapsed() < PROMPTLY, "the blocking wait took {:?} to stop", started.elapsed());
    assert_eq!(result.map(|t| t.tx_ref), Err(SikaError::Cancelled));
    let after = sandbox.wait_for_open_at_most(pooled, SETTLE);
    assert!(after.open <= pooled, "the hung check's connection stayed open: {after:?}, before {pooled}");
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(verifies(&sandbox), 1, "no check after the cancellation");

    sandbox.seed_transaction(&transaction_object("AFTER-1", "failed", "3"));
    let transaction = client.verify_transaction("AFTER-1").expect("works after a cancellation");
    assert_eq!(transaction.status, TransactionStatus::Failed);
    // Dropping the client shuts its runtime down: every task, so every connection, is gone.
    drop(Arc::into_inner(client).expect("the waiting threads are done"));
    let after = sandbox.wait_for_open_at_most(baseline, SETTLE);
    assert!(after.open <= baseline, "connections outlived the blocking client: {after:?}");
}
