//! Starts the project's sandbox on a free loopback port for one test, and stops it after.
#![allow(dead_code)] // each test binary uses a different part of the support code

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Once;
use std::time::{Duration, Instant};

use serde_json::Value;
use sika_core::{BlockingClient, Client, ClientConfig, Transaction, TransactionStatus};

pub const KEY: &str = "sk_test_canary_5b1d0c9e";

/// A running sandbox; killed when dropped.
pub struct Sandbox {
    child: Child,
    _stdin: ChildStdin,
    pub url: String,
}

/// The sandbox binary: `SIKA_SANDBOX_BIN` when the test script built it, else built here.
fn sandbox_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("SIKA_SANDBOX_BIN") {
        return PathBuf::from(path);
    }
    static BUILD: Once = Once::new();
    BUILD.call_once(|| {
        let status =
            Command::new(env!("CARGO")).args(["build", "--quiet", "-p", "sika-sandbox"]).status().expect("cargo runs");
        assert!(status.success(), "building the sandbox failed");
    });
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("debug/sika-sandbox")
}

impl Sandbox {
    pub fn start() -> Self {
        Self::start_with(&["--confirm-after-ms", "150"])
    }

    pub fn start_with(extra: &[&str]) -> Self {
        let mut child = Command::new(sandbox_binary())
            .args(["--port", "0", "--secret-key", KEY, "--exit-on-stdin-eof"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("sandbox starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let mut first_line = String::new();
        BufReader::new(stdout).read_line(&mut first_line).expect("sandbox prints its address");
        let url = first_line.trim().strip_prefix("listening on ").expect("first line names the address").to_owned();
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        Self { child, _stdin: stdin, url }
    }

    pub fn config(&self) -> ClientConfig {
        let mut config = ClientConfig::new(KEY, self.url.clone());
        config.timeout_ms = 10_000;
        config
    }

    pub fn client(&self) -> Client {
        Client::new(self.config()).expect("client")
    }

    pub fn blocking_client(&self) -> BlockingClient {
        BlockingClient::new(self.config()).expect("blocking client")
    }

    /// Seeds a transaction object (JSON text), stored and served byte for byte as given.
    pub fn seed_transaction(&self, object: &str) {
        ureq::post(format!("{}/__sandbox/transactions", self.url))
            .header("content-type", "application/json")
            .send(object)
            .expect("seed");
    }

    /// Sets a transaction's status.
    pub fn set_status(&self, reference: &str, status: &str) {
        let path = percent_encoding::utf8_percent_encode(reference, percent_encoding::NON_ALPHANUMERIC);
        ureq::post(format!("{}/__sandbox/transactions/{path}/status", self.url))
            .send_json(serde_json::json!({ "status": status }))
            .expect("set status");
    }

    /// The API requests the sandbox received, as `{method, path, query, authorized}` objects.
    pub fn requests(&self) -> Vec<Value> {
        let mut response = ureq::get(format!("{}/__sandbox/requests", self.url)).call().expect("request log");
        let body: Value = response.body_mut().read_json().expect("json");
        body["data"].as_array().cloned().unwrap_or_default()
    }

    /// Makes the next `count` API requests under `path` fail as `kind` (and `options`) say.
    pub fn fault(&self, path: &str, kind: &str, count: u32, options: Value) {
        let mut fault = serde_json::json!({ "path": path, "kind": kind, "count": count });
        if let (Some(fault), Value::Object(options)) = (fault.as_object_mut(), options) {
            fault.extend(options);
        }
        ureq::post(format!("{}/__sandbox/faults", self.url)).send_json(fault).expect("fault");
    }

    pub fn clear_requests(&self) {
        ureq::delete(format!("{}/__sandbox/requests", self.url)).call().expect("clear log");
    }

    /// The sandbox's TCP connection counts (`GET /__sandbox/connections`).
    pub fn connections(&self) -> Connections {
        connections(&self.url)
    }

    /// Polls the open-connection count (never a fixed sleep) until it is at most `limit`, for at
    /// most `within`; returns the last count read. Blocking: for threads and multi-thread runtimes.
    pub fn wait_for_open_at_most(&self, limit: u64, within: Duration) -> Connections {
        poll_until(within, || self.connections(), |now| now.open <= limit)
    }

    /// The same, sleeping on Tokio's clock between reads, so the runtime that must close the
    /// connections keeps running (also on a current-thread runtime).
    pub async fn wait_for_open_at_most_async(&self, limit: u64, within: Duration) -> Connections {
        let started = Instant::now();
        loop {
            let now = self.connections();
            if now.open <= limit || started.elapsed() >= within {
                return now;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// `GET /__sandbox/connections`: TCP connections open now (the control request's own
/// included, so an idle sandbox reads 1) and accepted since the sandbox started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connections {
    pub open: u64,
    pub accepted: u64,
}

/// Reads the connection counts of the sandbox at `url`.
pub fn connections(url: &str) -> Connections {
    let mut response = ureq::get(format!("{url}/__sandbox/connections")).call().expect("connection counts");
    let body: Value = response.body_mut().read_json().expect("json");
    let counts = &body["data"];
    Connections {
        open: counts["open"].as_u64().expect("open is a count"),
        accepted: counts["accepted"].as_u64().expect("accepted is a count"),
    }
}

/// Calls `read` until `done` holds for its value or `within` passes (20 ms apart); the last value.
pub fn poll_until<T>(within: Duration, mut read: impl FnMut() -> T, done: impl Fn(&T) -> bool) -> T {
    let started = Instant::now();
    loop {
        let value = read();
        if done(&value) || started.elapsed() >= within {
            return value;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A complete transaction object as the service sends it (JSON text, amount written as given).
pub fn transaction_object(reference: &str, status: &str, amount: &str) -> String {
    format!(
        r#"{{"id":7,"domain":"test","amount":{amount},"currency":"GHS","due_date":null,"has_invoice":false,
        "invoice_number":null,"description":null,"tx_ref":{reference},"gw_ref":"GW-SEED","status":"{status}",
        "payment_type":"mobile_money","created_at":"2024-05-01T12:00:00.000Z","updated_at":"2024-05-01T12:00:00.000Z",
        "customer":{{"id":1,"name":"Ama","phone_number":"+233244123456","email":"ama@example.com",
        "created_at":"2024-04-01T09:00:00.000Z","updated_at":"2024-04-01T09:00:00.000Z"}},"meta":{{"custom_fields":[]}}}}"#,
        reference = Value::from(reference)
    )
}

/// Verifies until the status is final or `limit` passes; returns the last transaction.
pub async fn wait_for_final(client: &Client, reference: &str, limit: Duration) -> Transaction {
    let started = Instant::now();
    loop {
        let transaction = client.verify_transaction(reference).await.expect("verify");
        if transaction.status.is_final() || started.elapsed() > limit {
            return transaction;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until the status is `want` or `limit` passes; returns the last transaction.
pub async fn wait_for_status(
    client: &Client,
    reference: &str,
    want: &TransactionStatus,
    limit: Duration,
) -> Transaction {
    let started = Instant::now();
    loop {
        let transaction = client.verify_transaction(reference).await.expect("verify");
        if &transaction.status == want || started.elapsed() > limit {
            return transaction;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
