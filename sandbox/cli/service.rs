//! The service commands, each one call of the SDK's Rust API.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use serde_json::json;
use sika_core::{
    AwaitOptions, CallOptions, Cancellation, Client, ClientConfig, ExpectedPayment, PaymentCheck, SikaError,
    Transaction, TransactionStatus,
};

use crate::Global;
use crate::exit::{self, Failure};
use crate::key::secret_key;
use crate::output::outln;
use crate::output::{
    Cell, colour_on_stderr, colour_on_stdout, escaped, json_array, paint_status, print_json, print_table,
};

/// The longest the last check of `await` may take, after its deadline (within `--timeout-ms`).
const LAST_CHECK_MS: u64 = 5_000;

/// A client for `--base-url` / `SIKA_BASE_URL` with the key of [`secret_key`]; each call within
/// `--timeout-ms` (default: the SDK's 20 s), retries and the wait for a connection included.
pub fn client(global: &Global) -> Result<Client, Failure> {
    client_with(global, global.timeout_ms.unwrap_or(ClientConfig::DEFAULT_TIMEOUT_MS), None)
}

fn client_with(global: &Global, timeout_ms: u64, not_found_grace_ms: Option<u64>) -> Result<Client, Failure> {
    let base_url = base_url(global)?;
    let mut config = ClientConfig::new(sika_core::SecretKey::new(secret_key(global)?), base_url);
    config.user_agent_suffix = Some(format!("sika-cli/{}", env!("CARGO_PKG_VERSION")));
    config.timeout_ms = timeout_ms;
    if let Some(grace) = not_found_grace_ms {
        config.not_found_grace_ms = grace;
    }
    Ok(Client::new(config)?)
}

pub fn base_url(global: &Global) -> Result<String, Failure> {
    global
        .base_url
        .clone()
        .filter(|url| !url.is_empty())
        .ok_or_else(|| Failure::setup("no service URL: set SIKA_BASE_URL or pass --base-url URL"))
}

fn yes_no(value: bool) -> Cell {
    Cell::text(if value { "yes" } else { "no" })
}

pub async fn providers(global: &Global, country: Option<&str>) -> Result<u8, Failure> {
    let providers = client(global)?.list_mobile_money_providers(country).await?;
    if global.json {
        print_json(&json_array(providers.iter().map(|p| p.to_json())));
    } else {
        let rows: Vec<Vec<Cell>> = providers
            .iter()
            .map(|p| {
                vec![
                    (&*p.code).into(),
                    (&*p.name).into(),
                    (&*p.country).into(),
                    (&*p.currency).into(),
                    yes_no(p.active),
                ]
            })
            .collect();
        print_table(&["CODE", "NAME", "COUNTRY", "CURRENCY", "ACTIVE"], &rows);
    }
    Ok(exit::OK)
}

pub async fn banks(global: &Global, country: Option<&str>) -> Result<u8, Failure> {
    let banks = client(global)?.list_banks(country).await?;
    if global.json {
        print_json(&json_array(banks.iter().map(|b| b.to_json())));
    } else {
        let rows: Vec<Vec<Cell>> = banks
            .iter()
            .map(|b| {
                vec![
                    (&*b.code).into(),
                    (&*b.name).into(),
                    (&*b.country).into(),
                    (&*b.currency).into(),
                    yes_no(b.active),
                ]
            })
            .collect();
        print_table(&["CODE", "NAME", "COUNTRY", "CURRENCY", "ACTIVE"], &rows);
    }
    Ok(exit::OK)
}

/// A transaction as `FIELD  VALUE` lines.
fn print_transaction(transaction: &Transaction) {
    let colour = colour_on_stdout();
    let mut rows = vec![
        vec!["reference".into(), Cell::text(&transaction.tx_ref)],
        vec!["status".into(), Cell::status(transaction.status.as_str(), colour)],
        vec!["amount".into(), Cell::text(&transaction.amount.to_string())],
        vec!["currency".into(), Cell::text(&transaction.currency)],
    ];
    let optional = [
        ("payment type", transaction.payment_type.as_ref().map(|t| t.as_str().to_owned())),
        ("gateway ref", transaction.gateway_ref.clone()),
        ("created at", transaction.created_at.as_ref().map(ToString::to_string)),
        ("updated at", transaction.updated_at.as_ref().map(ToString::to_string)),
    ];
    rows.extend(optional.into_iter().filter_map(|(name, value)| value.map(|value| vec![name.into(), value.into()])));
    print_table(&["FIELD", "VALUE"], &rows);
}

pub async fn verify(global: &Global, reference: &str) -> Result<u8, Failure> {
    let transaction = client(global)?.verify_transaction(reference).await?;
    if global.json {
        print_json(&transaction.to_json());
    } else {
        print_transaction(&transaction);
    }
    Ok(exit::OK)
}

/// The order's expectation from `--amount` and `--currency`, checked as `confirm_payment`
/// checks it (`InvalidInput`, nothing sent).
pub fn expected_payment(amount: &str, currency: &str) -> Result<ExpectedPayment, Failure> {
    let amount = amount.parse().map_err(SikaError::from)?;
    let expected = ExpectedPayment { amount, currency: currency.to_owned() };
    expected.validate()?;
    Ok(expected)
}

pub async fn confirm(global: &Global, reference: &str, expected: &ExpectedPayment) -> Result<u8, Failure> {
    let check = client(global)?.confirm_payment(reference, expected).await?;
    Ok(report_check(global, reference, &check, ""))
}

/// Prints `confirm`'s decision (also `await`'s with an expected payment) and returns its exit
/// code: 0 Confirmed, 1 not paid, 3 not yet, 4 mismatch. `after` ends the text line.
fn report_check(global: &Global, reference: &str, check: &PaymentCheck, after: &str) -> u8 {
    let (code, outcome, detail) = match check {
        PaymentCheck::Confirmed { .. } => (exit::OK, "confirmed", json!({})),
        PaymentCheck::NotYet { .. } => (exit::NOT_YET, "not_yet", json!({})),
        PaymentCheck::NotPaid { action, .. } => {
            (exit::NOT_PAID, "not_paid", json!({ "action": format!("{action:?}") }))
        }
        PaymentCheck::Mismatch { field, expected, actual, .. } => {
            (exit::MISMATCH, "mismatch", json!({ "field": field, "expected": expected, "actual": actual }))
        }
    };
    if global.json {
        let mut document = json!({ "outcome": outcome });
        if let (Some(document), Some(detail)) = (document.as_object_mut(), detail.as_object()) {
            document.extend(detail.clone());
        }
        let transaction: serde_json::Value =
            serde_json::from_str(&check.transaction().to_json()).unwrap_or(serde_json::Value::Null);
        document["transaction"] = transaction;
        print_json(&document.to_string());
    } else {
        let verdict = match check {
            PaymentCheck::Confirmed { .. } => "confirmed: paid in full, ship the order".to_owned(),
            PaymentCheck::NotYet { .. } => "not yet: still pending; check again later".to_owned(),
            PaymentCheck::NotPaid { transaction, .. } => {
                format!("not paid: the transaction is {}; do not ship", transaction.status.as_str())
            }
            PaymentCheck::Mismatch { field, expected, actual, .. } => {
                format!("mismatch: {field} is {actual}, the order says {expected}; do not ship, investigate")
            }
        };
        outln!("{}: {}{after}", escaped(reference), escaped(&verdict));
    }
    code
}

/// What `await` was asked: its schedule, and the order's expectation when given.
pub struct AwaitRequest {
    pub options: AwaitOptions,
    pub expected: Option<ExpectedPayment>,
    pub not_found_grace_ms: u64,
}

/// Waits through the SDK's own wait (its schedule, grace and retries), showing progress;
/// Ctrl-C (or SIGTERM) cancels the wait at once. At the deadline one last check tells a
/// transaction still pending (3) from one the service does not know (13). With an expected
/// payment the final transaction is decided as `confirm` decides it.
pub async fn await_final(global: &Global, reference: &str, request: AwaitRequest) -> Result<u8, Failure> {
    let AwaitRequest { mut options, expected, not_found_grace_ms } = request;
    let call_timeout = options.timeout_ms.min(ClientConfig::DEFAULT_TIMEOUT_MS);
    let client = client_with(global, call_timeout, Some(not_found_grace_ms))?;
    let cancellation = Cancellation::new();
    options.cancellation = Some(cancellation.clone());
    let interactive = std::io::stderr().is_terminal();
    let started = Instant::now();
    if !interactive {
        let limit = match options.timeout_ms {
            ms if ms % 1000 == 0 => format!("{} s", ms / 1000),
            ms => format!("{ms} ms"),
        };
        eprintln!("waiting for {} (up to {limit})", escaped(reference));
    }
    let wait = client.await_final_status(reference, &options);
    let mut wait = std::pin::pin!(wait);
    let mut ticks = tokio::time::interval(Duration::from_millis(250));
    let mut terminate = terminate_signal();
    let mut stopped_by = exit::INTERRUPTED;
    let result = loop {
        tokio::select! {
            result = &mut wait => break result,
            _ = tokio::signal::ctrl_c() => {
                cancellation.cancel();
            }
            () = terminated(&mut terminate) => {
                stopped_by = exit::TERMINATED;
                cancellation.cancel();
            }
            _ = ticks.tick(), if interactive => progress(reference, started.elapsed()),
        }
    };
    if interactive {
        // Clear the progress line.
        eprint!("\r\x1b[2K");
    }
    let waited = started.elapsed().as_secs();
    let transaction = match result {
        Ok(transaction) => transaction,
        // The deadline passed: one last check says whether the transaction is still pending
        // or was never there (a typo, a charge that never reached the service).
        Err(SikaError::Timeout { .. }) => {
            let last = CallOptions { timeout_ms: Some(call_timeout.min(LAST_CHECK_MS)), max_retries: Some(0) };
            client.with_options(last)?.verify_transaction(reference).await?
        }
        Err(SikaError::Cancelled) => {
            eprintln!("sika: {}", if stopped_by == exit::TERMINATED { "terminated" } else { "interrupted" });
            return Ok(stopped_by);
        }
        Err(error) => return Err(error.into()),
    };
    let after = format!(" (after {waited} s)");
    if let Some(expected) = &expected {
        let check = sika_core::check_payment(transaction, reference, expected);
        if matches!(check, PaymentCheck::NotYet { .. }) {
            eprintln!("sika: {} is still pending after {waited} s", escaped(reference));
        }
        return Ok(report_check(global, reference, &check, &after));
    }
    let code = match &transaction.status {
        TransactionStatus::Successful => exit::OK,
        TransactionStatus::Pending => exit::NOT_YET,
        _ => exit::NOT_PAID,
    };
    if global.json {
        print_json(&transaction.to_json());
    }
    if code == exit::NOT_YET {
        eprintln!("sika: {} is still pending after {waited} s", escaped(reference));
    } else if !global.json {
        let status = paint_status(transaction.status.as_str(), colour_on_stdout());
        outln!("{}: {status}{after}", escaped(reference));
    }
    Ok(code)
}

#[cfg(unix)]
type Terminate = Option<tokio::signal::unix::Signal>;
#[cfg(not(unix))]
type Terminate = ();

#[cfg(unix)]
fn terminate_signal() -> Terminate {
    tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok()
}

#[cfg(not(unix))]
fn terminate_signal() -> Terminate {}

/// Ends when SIGTERM arrives (never where it cannot be caught).
#[cfg(unix)]
async fn terminated(terminate: &mut Terminate) {
    match terminate {
        Some(signal) => {
            signal.recv().await;
        }
        None => std::future::pending::<()>().await,
    }
}

#[cfg(not(unix))]
async fn terminated(_terminate: &mut Terminate) {
    std::future::pending::<()>().await;
}

fn progress(reference: &str, elapsed: Duration) {
    const FRAMES: [char; 4] = ['|', '/', '-', '\\'];
    let frame = FRAMES[usize::try_from(elapsed.as_millis() / 250).unwrap_or(0) % FRAMES.len()];
    let text = format!("{frame} waiting for {}: pending, {} s", escaped(reference), elapsed.as_secs());
    let line = if colour_on_stderr() { format!("\x1b[33m{text}\x1b[0m") } else { text };
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "\r\x1b[2K{line}");
    let _ = stderr.flush();
}
