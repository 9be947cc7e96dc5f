//! The service commands, each one call of the SDK's Rust API.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use serde_json::json;
use sika_core::{
    AwaitOptions, Cancellation, Client, ClientConfig, ExpectedPayment, PaymentCheck, SikaError, Transaction,
    TransactionStatus,
};

use crate::Global;
use crate::exit::{self, Failure};
use crate::key::secret_key;
use crate::output::outln;
use crate::output::{colour_on_stderr, colour_on_stdout, json_array, paint_status, print_table};

/// A client for `--base-url` / `SIKA_BASE_URL` with the key of [`secret_key`].
pub fn client(global: &Global) -> Result<Client, Failure> {
    let base_url = base_url(global)?;
    let mut config = ClientConfig::new(sika_core::SecretKey::new(secret_key(global)?), base_url);
    config.user_agent_suffix = Some(format!("sika-cli/{}", env!("CARGO_PKG_VERSION")));
    Ok(Client::new(config)?)
}

pub fn base_url(global: &Global) -> Result<String, Failure> {
    global
        .base_url
        .clone()
        .filter(|url| !url.is_empty())
        .ok_or_else(|| Failure::setup("no service URL: set SIKA_BASE_URL or pass --base-url URL"))
}

fn yes_no(value: bool) -> String {
    if value { "yes" } else { "no" }.to_owned()
}

pub async fn providers(global: &Global, country: Option<&str>) -> Result<u8, Failure> {
    let providers = client(global)?.list_mobile_money_providers(country).await?;
    if global.json {
        outln!("{}", json_array(providers.iter().map(|p| p.to_json())));
    } else {
        let rows: Vec<Vec<String>> = providers
            .iter()
            .map(|p| vec![p.code.clone(), p.name.clone(), p.country.clone(), p.currency.clone(), yes_no(p.active)])
            .collect();
        print_table(&["CODE", "NAME", "COUNTRY", "CURRENCY", "ACTIVE"], &rows);
    }
    Ok(exit::OK)
}

pub async fn banks(global: &Global, country: Option<&str>) -> Result<u8, Failure> {
    let banks = client(global)?.list_banks(country).await?;
    if global.json {
        outln!("{}", json_array(banks.iter().map(|b| b.to_json())));
    } else {
        let rows: Vec<Vec<String>> = banks
            .iter()
            .map(|b| vec![b.code.clone(), b.name.clone(), b.country.clone(), b.currency.clone(), yes_no(b.active)])
            .collect();
        print_table(&["CODE", "NAME", "COUNTRY", "CURRENCY", "ACTIVE"], &rows);
    }
    Ok(exit::OK)
}

/// A transaction as `FIELD  VALUE` lines.
fn print_transaction(transaction: &Transaction) {
    let colour = colour_on_stdout();
    let mut rows = vec![
        vec!["reference".to_owned(), transaction.tx_ref.clone()],
        vec!["status".to_owned(), paint_status(transaction.status.as_str(), colour)],
        vec!["amount".to_owned(), transaction.amount.to_string()],
        vec!["currency".to_owned(), transaction.currency.clone()],
    ];
    let optional = [
        ("payment type", transaction.payment_type.as_ref().map(|t| t.as_str().to_owned())),
        ("gateway ref", transaction.gateway_ref.clone()),
        ("created at", transaction.created_at.as_ref().map(ToString::to_string)),
        ("updated at", transaction.updated_at.as_ref().map(ToString::to_string)),
    ];
    rows.extend(optional.into_iter().filter_map(|(name, value)| value.map(|value| vec![name.to_owned(), value])));
    print_table(&["FIELD", "VALUE"], &rows);
}

pub async fn verify(global: &Global, reference: &str) -> Result<u8, Failure> {
    let transaction = client(global)?.verify_transaction(reference).await?;
    if global.json {
        outln!("{}", transaction.to_json());
    } else {
        print_transaction(&transaction);
    }
    Ok(exit::OK)
}

pub async fn confirm(global: &Global, reference: &str, amount: &str, currency: &str) -> Result<u8, Failure> {
    let amount = amount.parse().map_err(SikaError::from)?;
    let expected = ExpectedPayment { amount, currency: currency.to_owned() };
    let check = client(global)?.confirm_payment(reference, &expected).await?;
    let (code, outcome, detail) = match &check {
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
        outln!("{document}");
    } else {
        let verdict = match &check {
            PaymentCheck::Confirmed { .. } => "confirmed: paid in full, ship the order".to_owned(),
            PaymentCheck::NotYet { .. } => "not yet: still pending; check again later".to_owned(),
            PaymentCheck::NotPaid { transaction, .. } => {
                format!("not paid: the transaction is {}; do not ship", transaction.status.as_str())
            }
            PaymentCheck::Mismatch { field, expected, actual, .. } => {
                format!("mismatch: {field} is {actual}, the order says {expected}; do not ship, investigate")
            }
        };
        outln!("{reference}: {verdict}");
    }
    Ok(code)
}

/// Waits through the SDK's own wait (its schedule, grace and retries), showing progress;
/// Ctrl-C cancels the wait at once.
pub async fn await_final(global: &Global, reference: &str, mut options: AwaitOptions) -> Result<u8, Failure> {
    let client = client(global)?;
    let cancellation = Cancellation::new();
    options.cancellation = Some(cancellation.clone());
    let interactive = std::io::stderr().is_terminal();
    let started = Instant::now();
    if !interactive {
        let limit = match options.timeout_ms {
            ms if ms % 1000 == 0 => format!("{} s", ms / 1000),
            ms => format!("{ms} ms"),
        };
        eprintln!("waiting for {reference} (up to {limit})");
    }
    let wait = client.await_final_status(reference, &options);
    let mut wait = std::pin::pin!(wait);
    let mut ticks = tokio::time::interval(Duration::from_millis(250));
    let result = loop {
        tokio::select! {
            result = &mut wait => break result,
            _ = tokio::signal::ctrl_c() => {
                cancellation.cancel();
            }
            _ = ticks.tick(), if interactive => progress(reference, started.elapsed()),
        }
    };
    if interactive {
        // Clear the progress line.
        eprint!("\r\x1b[2K");
    }
    match result {
        Ok(transaction) => {
            if global.json {
                outln!("{}", transaction.to_json());
            } else {
                let status = paint_status(transaction.status.as_str(), colour_on_stdout());
                outln!("{reference}: {status} (after {} s)", started.elapsed().as_secs());
            }
            Ok(if transaction.status == TransactionStatus::Successful { exit::OK } else { exit::NOT_PAID })
        }
        // The deadline passed with the transaction still pending.
        Err(SikaError::Timeout { .. }) => {
            eprintln!("sika: {reference} is still pending after {} s", started.elapsed().as_secs());
            Ok(exit::NOT_YET)
        }
        Err(SikaError::Cancelled) => {
            eprintln!("sika: interrupted");
            Ok(exit::INTERRUPTED)
        }
        Err(error) => Err(error.into()),
    }
}

fn progress(reference: &str, elapsed: Duration) {
    const FRAMES: [char; 4] = ['|', '/', '-', '\\'];
    let frame = FRAMES[usize::try_from(elapsed.as_millis() / 250).unwrap_or(0) % FRAMES.len()];
    let text = format!("{frame} waiting for {reference}: pending, {} s", elapsed.as_secs());
    let line = if colour_on_stderr() { format!("\x1b[33m{text}\x1b[0m") } else { text };
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "\r\x1b[2K{line}");
    let _ = stderr.flush();
}
