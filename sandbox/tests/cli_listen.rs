//! `sika listen` in front of a merchant's server, then `sika trigger --times 3 --concurrent`
//! (B87): what arrived, what listen printed, what trigger printed, and that listen puts the
//! sandbox's previous webhook target back when stopped.

mod cli_support;

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use cli_support::{CliSandbox, read_until, signal, text, wait_with_limit};

/// What the merchant's server received.
#[derive(Default)]
struct Merchant {
    bodies: Mutex<Vec<String>>,
}

/// A merchant's webhook endpoint that answers only once three deliveries are in flight at the
/// same time (a barrier): deliveries made one after the other would each time out instead.
fn start_merchant() -> (String, Arc<Merchant>, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("rt");
    let merchant = Arc::new(Merchant::default());
    let barrier = Arc::new(tokio::sync::Barrier::new(3));
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("bind merchant");
    let address = listener.local_addr().expect("address");
    let state = (merchant.clone(), barrier);
    let app = Router::new()
        .fallback(
            |State((merchant, barrier)): State<(Arc<Merchant>, Arc<tokio::sync::Barrier>)>, body: String| async move {
                merchant.bodies.lock().expect("lock").push(body);
                match tokio::time::timeout(Duration::from_secs(3), barrier.wait()).await {
                    Ok(_) => StatusCode::OK,
                    Err(_) => StatusCode::SERVICE_UNAVAILABLE,
                }
            },
        )
        .with_state(state);
    runtime.spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{address}/webhooks/sika"), merchant, runtime)
}

#[test]
fn b87_listen_forwards_three_concurrent_deliveries_and_prints_each_answer() {
    let sandbox = CliSandbox::start(&["--webhook-retry-ms", ""]);
    let (forward_to, merchant, _runtime) = start_merchant();

    let mut listen = sandbox
        .sika(&["listen", "--forward-to", &forward_to])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sika listen");
    let (ready, _stderr) = read_until(listen.stderr.take().expect("stderr"), "Ready!");
    assert!(ready.contains(&forward_to), "{ready}");

    let trigger = sandbox.run(&[
        "trigger",
        "charge.success",
        "--reference",
        "ORDER-7",
        "--amount",
        "25.50",
        "--times",
        "3",
        "--concurrent",
    ]);
    assert_eq!(trigger.status.code(), Some(0), "{}{}", text(&trigger.stdout), text(&trigger.stderr));
    let table = text(&trigger.stdout);
    assert_eq!(table.lines().count(), 4, "a header and three deliveries: {table}");
    assert!(table.starts_with("DELIVERY  EVENT           REFERENCE  ANSWER  TIME"), "{table}");
    assert_eq!(table.matches("charge.success  ORDER-7    200").count(), 3, "{table}");

    // The merchant got the sandbox's notification three times, all at once (the barrier).
    let bodies = merchant.bodies.lock().expect("lock").clone();
    assert_eq!(bodies, vec![r#"{"event":"charge.success","data":{"reference":"ORDER-7"}}"#; 3]);

    // The transaction trigger created verifies as it said.
    let verify = sandbox.run(&["confirm", "ORDER-7", "--amount", "25.50", "--currency", "GHS"]);
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));

    signal(&listen, "TERM");
    let status = wait_with_limit(&mut listen, Duration::from_secs(10));
    assert_eq!(status.code(), Some(0));
    let mut printed = String::new();
    std::io::Read::read_to_string(&mut listen.stdout.take().expect("stdout"), &mut printed).expect("read stdout");
    assert_eq!(printed.lines().count(), 6, "{printed}");
    assert_eq!(printed.matches("  --> charge.success [ORDER-7]\n").count(), 3, "{printed}");
    let answers = printed.lines().filter(|line| line.contains(&format!("  <-- [200] POST {forward_to} ("))).count();
    assert_eq!(answers, 3, "{printed}");
    assert!(
        printed.lines().all(|line| line.as_bytes().get(2) == Some(&b':')),
        "each line starts with its time: {printed}"
    );

    // Stopped, listen put back the target that was there before it (none).
    let settings = sandbox.run(&["trigger", "charge.success", "--reference", "ORDER-8"]);
    assert_eq!(settings.status.code(), Some(24), "{}", text(&settings.stderr));
}
