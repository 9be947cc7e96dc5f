//! A small client of the sandbox's control API (`/__sandbox/...`, described in
//! tests/fixtures/sandbox_control.json): no key, loopback only, JSON envelopes.

use std::time::Duration;

use serde_json::Value;

use crate::exit::Failure;

pub struct Control {
    base: String,
    http: reqwest::Client,
}

impl Control {
    pub fn new(base_url: &str) -> Result<Self, Failure> {
        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|err| Failure::sandbox(format!("could not build an HTTP client: {err}")))?;
        Ok(Self { base: base_url.trim_end_matches('/').to_owned(), http })
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
        let url = format!("{}{path}", self.base);
        let mut request = self.http.request(method.clone(), &url);
        if let Some(body) = body {
            request = request.header(reqwest::header::CONTENT_TYPE, "application/json").body(body);
        }
        let response = request.send().await.map_err(|err| {
            Failure::sandbox(format!("the sandbox at {} did not answer ({err}); is `sika sandbox` running?", self.base))
        })?;
        let status = response.status().as_u16();
        let body = response.bytes().await.unwrap_or_default();
        let envelope: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if status == expect {
            Ok(envelope["data"].clone())
        } else {
            let message = envelope["message"].as_str().unwrap_or("no message").to_owned();
            Err(Failure::sandbox(format!("the sandbox refused {method} {path}: HTTP {status} {message}")))
        }
    }
}
