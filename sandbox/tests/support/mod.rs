//! The harness shared by the sandbox's test files: a sandbox process per test, raw HTTP to
//! it, and a local webhook receiver. Only 127.0.0.1 is contacted.

// Each test file uses its own part of the harness.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use reqwest::Method;
use serde_json::{Value, json};
use tokio::sync::mpsc;

pub const KEY: &str = "test_key";

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

/// A running sandbox; killed (and reaped) when dropped, whatever the test's outcome.
pub struct Sandbox {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    /// Kept open so the sandbox's stdout never sees a closed pipe.
    _stdout: BufReader<ChildStdout>,
    pub url: String,
    pub http: reqwest::Client,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP exchange, with the body kept as text so exact JSON can be compared.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub json: Value,
}

pub fn http_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(10)).build().expect("reqwest client")
}

impl Sandbox {
    pub fn start() -> Self {
        Self::start_with(50, None)
    }

    pub fn start_with(confirm_after_ms: u64, webhook_url: Option<&str>) -> Self {
        Self::start_with_args(confirm_after_ms, webhook_url, &[])
    }

    /// As [`Sandbox::start_with`], with more command-line arguments.
    pub fn start_with_args(confirm_after_ms: u64, webhook_url: Option<&str>, extra: &[&str]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_sika-sandbox"));
        // The key goes through the environment: no key on a command line (B62).
        command.env("SIKA_SANDBOX_SECRET_KEY", KEY).args([
            "--port",
            "0",
            "--confirm-after-ms",
            &confirm_after_ms.to_string(),
            "--exit-on-stdin-eof",
        ]);
        if let Some(url) = webhook_url {
            command.args(["--webhook-url", url]);
        }
        command.args(extra);
        Self::spawn(command)
    }

    /// Starts `command` (the sandbox binary with its arguments and environment) and waits for
    /// its address.
    pub fn spawn(mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // The sandbox's own log is noise in a passing run; set SIKA_SANDBOX_TEST_LOG=1 to see it.
            .stderr(if std::env::var_os("SIKA_SANDBOX_TEST_LOG").is_some() { Stdio::inherit() } else { Stdio::null() })
            .spawn()
            .expect("spawn sika-sandbox");
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("read first stdout line");
        let line = line.trim_end_matches('\n');
        let url =
            line.strip_prefix("listening on ").unwrap_or_else(|| panic!("unexpected first line {line:?}")).to_owned();
        let port = url.strip_prefix("http://127.0.0.1:").unwrap_or_else(|| panic!("not a loopback URL: {url:?}"));
        assert!(port.parse::<u16>().is_ok_and(|p| p != 0), "bad port in {line:?}");
        Self { child, stdin, _stdout: stdout, url, http: http_client() }
    }

    pub async fn send(&self, method: Method, path: &str, authorization: Option<&str>, body: Option<&str>) -> Reply {
        let mut request = self.http.request(method, format!("{}{path}", self.url));
        if let Some(value) = authorization {
            request = request.header(reqwest::header::AUTHORIZATION, value);
        }
        if let Some(body) = body {
            request = request.header(reqwest::header::CONTENT_TYPE, "application/json").body(body.to_owned());
        }
        let response = request.send().await.expect("request to the sandbox");
        let status = response.status().as_u16();
        let content_type =
            response.headers().get(reqwest::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let body = response.text().await.expect("response body");
        assert_eq!(content_type.as_deref(), Some("application/json"), "content-type of {path}: {body}");
        let json: Value =
            serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: body is not JSON ({e}): {body}"));
        assert_eq!(json.as_object().map(|o| o.len()), Some(3), "envelope shape: {body}");
        assert!(json["status"].is_boolean(), "status: {body}");
        assert!(json["message"].is_string(), "message: {body}");
        assert!(json.get("data").is_some(), "data: {body}");
        if json["status"] == false {
            assert!(json["data"].is_null(), "error data must be null: {body}");
        }
        Reply { status, body, json }
    }

    /// An authorised API call.
    pub async fn api(&self, method: Method, path: &str, body: Option<&str>) -> Reply {
        self.send(method, path, Some(&format!("Bearer {KEY}")), body).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.api(Method::GET, path, None).await
    }

    pub async fn charge(&self, body: &str) -> Reply {
        self.api(Method::POST, "/charge", Some(body)).await
    }

    /// A control API call (never authenticated).
    pub async fn control(&self, method: Method, path: &str, body: Option<&str>) -> Reply {
        self.send(method, path, None, body).await
    }

    pub async fn verify(&self, reference: &str) -> Reply {
        self.get(&format!("/transaction/verify/{reference}")).await
    }

    pub async fn status_of(&self, reference: &str) -> String {
        let reply = self.verify(reference).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.json["data"]["status"].as_str().expect("status string").to_owned()
    }

    /// Polls verify until the status is no longer `pending`, recording every status seen.
    pub async fn statuses_until_final(&self, reference: &str, until: &str) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut seen: Vec<String> = Vec::new();
        loop {
            let status = self.status_of(reference).await;
            if seen.last() != Some(&status) {
                seen.push(status.clone());
            }
            if status == until {
                return seen;
            }
            assert!(Instant::now() < deadline, "{reference}: never reached {until}, saw {seen:?}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub async fn webhooks(&self) -> Value {
        self.control(Method::GET, "/__sandbox/webhooks", None).await.json["data"].clone()
    }

    /// `127.0.0.1:PORT`, for raw TCP clients.
    pub fn address(&self) -> &str {
        self.url.strip_prefix("http://").unwrap_or(&self.url)
    }

    /// An authorised API request whose answer is returned as it is (no envelope checks): for
    /// faults, whose answers are anything but the usual.
    pub async fn raw_api(&self, method: Method, path: &str, body: Option<&str>) -> reqwest::Result<reqwest::Response> {
        let mut request =
            self.http.request(method, format!("{}{path}", self.url)).header("authorization", format!("Bearer {KEY}"));
        if let Some(body) = body {
            request = request.header("content-type", "application/json").body(body.to_owned());
        }
        request.send().await
    }

    /// Adds a fault; asserts it was accepted and returns its `data`.
    pub async fn add_fault(&self, fault: &Value) -> Value {
        let reply = self.control(Method::POST, "/__sandbox/faults", Some(&fault.to_string())).await;
        assert_eq!(reply.status, 201, "{fault}: {}", reply.body);
        assert_eq!(reply.json["message"], "Fault added");
        reply.json["data"].clone()
    }

    pub async fn faults(&self) -> Value {
        self.control(Method::GET, "/__sandbox/faults", None).await.json["data"].clone()
    }

    /// The request log's paths, in order.
    pub async fn logged_paths(&self) -> Vec<String> {
        let log = self.control(Method::GET, "/__sandbox/requests", None).await;
        log.json["data"].as_array().expect("log").iter().map(|r| r["path"].as_str().expect("path").to_owned()).collect()
    }

    /// Changes settings; asserts they were accepted and returns the new ones.
    pub async fn settings(&self, change: &Value) -> Value {
        let reply = self.control(Method::POST, "/__sandbox/settings", Some(&change.to_string())).await;
        assert_eq!(reply.status, 200, "{change}: {}", reply.body);
        assert_eq!(reply.json["message"], "Settings updated");
        reply.json["data"].clone()
    }

    /// Waits for the process to exit; `None` if it is still running after `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

/// How a raw TCP exchange ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The server closed the connection (FIN).
    Closed,
    /// The server reset the connection (RST).
    Reset,
    /// Still open when we stopped waiting.
    StillOpen,
}

/// Sends `request` as is on a new connection to `address`, then reads everything that comes
/// back for at most `wait`: the bytes, and how the exchange ended.
pub async fn raw_exchange(address: &str, request: &[u8], wait: Duration) -> (Vec<u8>, Ending) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(address).await.expect("connect to the sandbox");
    stream.write_all(request).await.expect("send the request");
    let deadline = tokio::time::Instant::now() + wait;
    let mut received = Vec::new();
    let mut buffer = [0_u8; 64 * 1024];
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buffer)).await {
            Err(_) => return (received, Ending::StillOpen),
            Ok(Ok(0)) => return (received, Ending::Closed),
            Ok(Ok(n)) => received.extend_from_slice(&buffer[..n]),
            Ok(Err(err)) if err.kind() == std::io::ErrorKind::ConnectionReset => return (received, Ending::Reset),
            Ok(Err(err)) => panic!("reading from the sandbox: {err}"),
        }
    }
}

/// An authorised `GET path` request as raw HTTP/1.1 bytes.
pub fn raw_get(path: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer {KEY}\r\n\r\n").into_bytes()
}

/// Splits a raw HTTP response into its head (as text) and body bytes.
pub fn split_response(bytes: &[u8]) -> (String, Vec<u8>) {
    let end = bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or_else(|| panic!("no head in {bytes:?}"));
    (String::from_utf8_lossy(&bytes[..end]).into_owned(), bytes[end + 4..].to_vec())
}

/// A header's value in a raw head (case-insensitive name), if present.
pub fn head_header(head: &str, name: &str) -> Option<String> {
    head.lines().skip(1).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim().eq_ignore_ascii_case(name).then(|| value.trim().to_owned())
    })
}

/// Seeds a transaction through the control API.
pub async fn seed(sandbox: &Sandbox, object: &str) {
    let reply = sandbox.control(Method::POST, "/__sandbox/transactions", Some(object)).await;
    assert_eq!(reply.status, 201, "{}", reply.body);
}

/// Asserts an exact error envelope.
pub fn assert_error(reply: &Reply, status: u16, message: &str) {
    assert_eq!(reply.status, status, "{}", reply.body);
    assert_eq!(reply.body, format!(r#"{{"status":false,"message":"{message}","data":null}}"#));
}

pub fn sorted_keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> =
        value.as_object().unwrap_or_else(|| panic!("not an object: {value}")).keys().cloned().collect();
    keys.sort();
    keys
}

pub fn assert_keys(value: &Value, expected: &[&str]) {
    let mut expected: Vec<String> = expected.iter().map(|s| (*s).to_owned()).collect();
    expected.sort();
    assert_eq!(sorted_keys(value), expected, "fields of {value}");
}

/// `2024-01-15T10:30:00.000Z`: ISO 8601, UTC, milliseconds.
pub fn is_iso_millis(value: &Value) -> bool {
    let Some(text) = value.as_str() else {
        return false;
    };
    let bytes = text.as_bytes();
    bytes.len() == 24
        && bytes.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            10 => *b == b'T',
            13 | 16 => *b == b':',
            19 => *b == b'.',
            23 => *b == b'Z',
            _ => b.is_ascii_digit(),
        })
}

/// A charge body; `overrides` replace fields (`null` removes one). Amount text stays exact.
pub fn charge_body(reference: &str, phone: &str, overrides: &[(&str, Option<&str>)]) -> String {
    let mut fields: Vec<(String, String)> = vec![
        ("amount".into(), "100.10".into()),
        ("email".into(), r#""kofi@example.com""#.into()),
        ("phone_number".into(), format!("\"{phone}\"")),
        ("reference".into(), format!("\"{reference}\"")),
        ("currency".into(), r#""GHS""#.into()),
        ("payment_type".into(), r#""mobile_money""#.into()),
        ("provider".into(), r#""MTN""#.into()),
        ("callback_url".into(), r#""https://shop.example/done""#.into()),
    ];
    for (name, value) in overrides {
        fields.retain(|(n, _)| n != name);
        if let Some(value) = value {
            fields.push(((*name).to_owned(), (*value).to_owned()));
        }
    }
    let inner: Vec<String> = fields.iter().map(|(name, value)| format!("\"{name}\":{value}")).collect();
    format!("{{{}}}", inner.join(","))
}

/// A local webhook receiver on 127.0.0.1: `/fail` answers 500, anything else 200. Every
/// request is passed on as (path, content-type, body).
pub async fn start_receiver() -> (String, mpsc::UnboundedReceiver<(String, String, String)>) {
    pub async fn record(
        State(sender): State<mpsc::UnboundedSender<(String, String, String)>>,
        request: Request,
    ) -> StatusCode {
        let path = request.uri().path().to_owned();
        let content_type = request
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let body = axum::body::to_bytes(request.into_body(), 1 << 20)
            .await
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let failing = path == "/fail";
        let _ = sender.send((path, content_type, body));
        if failing { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::OK }
    }

    let (sender, receiver) = mpsc::unbounded_channel();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind receiver");
    let address = listener.local_addr().expect("receiver address");
    let app = Router::new().fallback(record).with_state(sender);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{address}"), receiver)
}

pub async fn next_delivery(
    receiver: &mut mpsc::UnboundedReceiver<(String, String, String)>,
) -> (String, String, String) {
    tokio::time::timeout(Duration::from_secs(10), receiver.recv())
        .await
        .expect("a webhook within 10 s")
        .expect("receiver open")
}

/// The webhook log with only `reference` and `delivered` of each attempt (the log has more:
/// `event`, `url`, `http_status`, `error`).
pub fn delivered_by_reference(log: &Value) -> Value {
    log.as_array()
        .expect("webhook log array")
        .iter()
        .map(|attempt| json!({ "reference": attempt["reference"], "delivered": attempt["delivered"] }))
        .collect()
}

pub async fn wait_for_webhook_log(sandbox: &Sandbox, count: usize) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let log = sandbox.webhooks().await;
        if log.as_array().map_or(0, Vec::len) >= count {
            return log;
        }
        assert!(Instant::now() < deadline, "webhook log stayed at {log}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
