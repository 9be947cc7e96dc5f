//! A small client of the sandbox's control API (`/__sandbox/...`, described in
//! tests/fixtures/sandbox_control.json): no key, loopback only, JSON envelopes.

use std::time::Duration;

use serde_json::Value;

use crate::exit::Failure;

/// How long one control call may take unless `--timeout-ms` says otherwise.
const DEFAULT_TIMEOUT_MS: u64 = 30_000;

pub struct Control {
    base: String,
    http: reqwest::Client,
}

impl Control {
    /// A client of the control API at `base_url`, each call within `timeout_ms` (default 30 s).
    pub fn new(base_url: &str, timeout_ms: Option<u64>) -> Result<Self, Failure> {
        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_millis(timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS)))
            .build()
            .map_err(|err| Failure::sandbox(format!("could not build an HTTP client: {err}")))?;
        Ok(Self { base: base_url.trim_end_matches('/').to_owned(), http })
    }

    /// `GET path`'s `data`, or `None` when the sandbox answered 404 (no such transaction).
    pub async fn find(&self, path: &str) -> Result<Option<Value>, Failure> {
        match self.answer(reqwest::Method::GET, path, None).await? {
            (200, envelope) => Ok(Some(envelope["data"].clone())),
            (404, _) => Ok(None),
            (status, envelope) => Err(refused(&reqwest::Method::GET, path, status, &envelope)),
        }
    }

    /// Calls one operation; the envelope's `data` when the sandbox answered `expect`.
    /// `body` is JSON text (kept as text: amounts keep their scale).
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<String>,
        expect: u16,
    ) -> Result<Value, Failure> {
        let (status, envelope) = self.answer(method.clone(), path, body).await?;
        if status == expect { Ok(envelope["data"].clone()) } else { Err(refused(&method, path, status, &envelope)) }
    }

    /// The status and JSON envelope of one call.
    async fn answer(&self, method: reqwest::Method, path: &str, body: Option<String>) -> Result<(u16, Value), Failure> {
        let url = format!("{}{path}", self.base);
        let mut request = self.http.request(method, &url);
        if let Some(body) = body {
            request = request.header(reqwest::header::CONTENT_TYPE, "application/json").body(body);
        }
        let response = request.send().await.map_err(|err| {
            let err = err.without_url();
            Failure::sandbox(format!("the sandbox at {} did not answer ({err}); is `sika sandbox` running?", self.base))
        })?;
        let status = response.status().as_u16();
        let body = response.bytes().await.unwrap_or_default();
        Ok((status, serde_json::from_slice(&body).unwrap_or(Value::Null)))
    }
}

fn refused(method: &reqwest::Method, path: &str, status: u16, envelope: &Value) -> Failure {
    let message = envelope["message"].as_str().unwrap_or("no message");
    Failure::sandbox(format!("the sandbox refused {method} {path}: HTTP {status} {message}"))
}
