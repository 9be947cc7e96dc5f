//! Starts the project's sandbox on a free loopback port for one test, and stops it after.
#![allow(dead_code)] // each test binary uses a different part of the support code

pub mod calls;
pub mod captured_log;
pub mod forking;
pub mod spans;

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
        let mut build = Command::new(env!("CARGO"));
        build.args(["build", "--quiet", "-p", "sika-sandbox"]);
        // Cargo gives a test the variables it gives a build script (CARGO_MANIFEST_DIR,
        // CARGO_PKG_NAME, ...). Inherited, they change what `ring`'s build script declared it
        // depends on, so this build and the next `cargo nextest run` would each rebuild the
        // whole TLS stack for the other (about a minute per run).
        for (name, _) in std::env::vars_os() {
            if name.to_str().is_some_and(is_set_by_cargo_for_a_test) {
                build.env_remove(&name);
            }
        }
        assert!(build.status().expect("cargo runs").success(), "building the sandbox failed");
    });
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("debug/sika-sandbox")
}

/// The variables cargo (or nextest) sets for a test process, as opposed to the user's own
/// settings such as `CARGO_HOME`, `CARGO_TARGET_DIR` or `CARGO_INCREMENTAL`.
fn is_set_by_cargo_for_a_test(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || name.starts_with("NEXTEST")
        || matches!(
            name,
            "CARGO_MANIFEST_DIR"
                | "CARGO_MANIFEST_PATH"
                | "CARGO_MANIFEST_LINKS"
                | "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
                | "CARGO_TARGET_TMPDIR"
                | "OUT_DIR"
        )
}

impl Sandbox {
    pub fn start() -> Self {
        Self::start_with(&["--confirm-after-ms", "150"])
    }

    pub fn start_with(extra: &[&str]) -> Self {
        // The key goes through the environment: no key on a command line (B62).
        let mut child = Command::new(sandbox_binary())
            .env("SIKA_SANDBOX_SECRET_KEY", KEY)
            .args(["--port", "0", "--exit-on-stdin-eof"])
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

    /// Calls one operation of the control API as `tests/fixtures/sandbox_control.json` lists
    /// it (shared by every language's suite); panics with the body on any other status.
    /// Returns the envelope's `data`.
    pub fn control(&self, operation: &str, reference: Option<&str>, body: Option<&str>) -> Value {
        control(&self.url, operation, reference, body)
    }

    /// Seeds a transaction object (JSON text), stored and served byte for byte as given.
    pub fn seed_transaction(&self, object: &str) {
        self.control("seed_transaction", None, Some(object));
    }

    /// Sets a transaction's status.
    pub fn set_status(&self, reference: &str, status: &str) {
        self.control("set_status", Some(reference), Some(&serde_json::json!({ "status": status }).to_string()));
    }

    /// The API requests the sandbox received, as `{method, path, query, authorized}` objects.
    pub fn requests(&self) -> Vec<Value> {
        self.control("requests", None, None).as_array().cloned().unwrap_or_default()
    }

    /// Makes the next `count` API requests under `path` fail as `kind` (and `options`) say.
    pub fn fault(&self, path: &str, kind: &str, count: u32, options: Value) {
        let mut fault = serde_json::json!({ "path": path, "kind": kind, "count": count });
        if let (Some(fault), Value::Object(options)) = (fault.as_object_mut(), options) {
            fault.extend(options);
        }
        self.control("add_fault", None, Some(&fault.to_string()));
    }

    /// Adds a fault given as the control API's `add_fault` object (a scenario row's `faults`).
    pub fn add_fault(&self, fault: &Value) {
        self.control("add_fault", None, Some(&fault.to_string()));
    }

    pub fn clear_requests(&self) {
        self.control("clear_requests", None, None);
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
    let counts = control(url, "connections", None, None);
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

/// A JSON file of the shared `tests/fixtures/` directory, which every language's suite reads.
pub fn fixture(name: &str) -> Value {
    let path = fixtures_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The shared test data, `tests/fixtures`.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

/// A valid mobile money charge in Ghana of 10 GHS from `phone` (its last four digits pick the
/// sandbox's USSD outcome), with no callback.
pub fn charge(reference: &str, phone: &str) -> sika_core::ChargeRequest {
    sika_core::ChargeRequest {
        amount: "10".parse().expect("amount"),
        email: "ama@example.com".into(),
        phone_number: phone.into(),
        reference: reference.into(),
        currency: "GHS".into(),
        provider: "MTN".into(),
        callback_url: None,
    }
}

/// The cases of a behaviour's scenario file, `tests/fixtures/scenarios/NAME` (ADR 0037): every
/// language's test of that behaviour runs each of them, so a new case is one row there.
pub fn scenario_cases(name: &str) -> Vec<Value> {
    let file = fixture(&format!("scenarios/{name}"));
    let cases = file["cases"].as_array().unwrap_or_else(|| panic!("scenarios/{name} has no cases"));
    assert!(!cases.is_empty(), "scenarios/{name} has no cases");
    cases.clone()
}

/// The `setup` of one scenario of `tests/fixtures/faults.json` (faults that are not one verify
/// call): every language's test of that behaviour takes its parameters from there.
pub fn scenario(id: &str) -> Value {
    let faults = fixture("faults.json");
    let scenarios = faults["scenarios"].as_array().expect("faults.json has scenarios");
    let found = scenarios.iter().find(|scenario| scenario["id"] == id);
    found.unwrap_or_else(|| panic!("faults.json has no scenario {id}"))["setup"].clone()
}

/// One control API operation of the sandbox at `url` (see [`Sandbox::control`]).
pub fn control(url: &str, operation: &str, reference: Option<&str>, body: Option<&str>) -> Value {
    let operations = fixture("sandbox_control.json");
    let spec = &operations["operations"][operation];
    let (method, template) = (spec["method"].as_str(), spec["path"].as_str());
    let (Some(method), Some(template)) = (method, template) else { panic!("no control operation `{operation}`") };
    let path = match reference {
        Some(reference) => {
            let segment = percent_encoding::utf8_percent_encode(reference, percent_encoding::NON_ALPHANUMERIC);
            template.replace("{reference}", &segment.to_string())
        }
        None => template.to_owned(),
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        // The sandbox is on loopback: a proxy in the environment (B47's tests set one) is not for it.
        .proxy(None)
        .build()
        .into();
    let address = format!("{url}{path}");
    let sent = match (method, body) {
        ("GET", _) => agent.get(&address).call(),
        ("DELETE", _) => agent.delete(&address).call(),
        ("POST", body) => agent.post(&address).header("content-type", "application/json").send(body.unwrap_or("")),
        (other, _) => panic!("control operation `{operation}`: method {other}"),
    };
    let mut response = sent.unwrap_or_else(|e| panic!("{operation}: {e}"));
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().expect("control answer");
    assert_eq!(Some(u64::from(status)), spec["expect"].as_u64(), "{operation} {path}: {text}");
    serde_json::from_str::<Value>(&text).expect("JSON envelope")["data"].take()
}

/// The seeded transaction every suite uses (`tests/fixtures/seeded_transaction.json`), as the
/// service sends it: JSON text with the amount written as given (`100.10` stays `100.10`).
pub fn transaction_object(reference: &str, status: &str, amount: &str) -> String {
    let seeded = fixture("seeded_transaction.json");
    let placeholders = &seeded["placeholders"];
    let placeholder = |name: &str| placeholders[name].as_str().expect("placeholder").to_owned();
    seeded["object"]
        .to_string()
        .replace(&placeholder("reference"), &Value::from(reference).to_string())
        .replace(&placeholder("status"), &Value::from(status).to_string())
        .replace(&placeholder("amount"), amount)
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
