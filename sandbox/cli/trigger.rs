//! `sika trigger`: has the sandbox deliver a transaction's notification to the configured
//! receiver (usually `sika listen`), `--times` times, one after the other or all at once, to
//! test idempotent fulfilment. The transaction is delivered for as it is (seeded, charged or
//! set by a test): only when the sandbox has none with the reference is one created, from
//! `--amount`, `--currency` and `--status`. Nothing is stored before a receiver is known.

use clap::{Args, ValueEnum};
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::Method;
use serde_json::{Value, json};

use crate::Global;
use crate::control::Control;
use crate::exit::{self, Failure};
use crate::output::{Cell, escaped, print_json, print_table};
use crate::service::base_url;

#[derive(Args)]
pub struct TriggerArgs {
    /// The event to deliver.
    event: Event,
    /// The transaction's reference.
    #[arg(long)]
    reference: String,
    /// The amount of a transaction trigger creates (one the sandbox has is kept as it is) [default: 10.00].
    #[arg(long)]
    amount: Option<String>,
    /// The currency of a transaction trigger creates [default: GHS].
    #[arg(long)]
    currency: Option<String>,
    /// The status of a transaction trigger creates (any text: also an undocumented one) [default: successful].
    #[arg(long)]
    status: Option<String>,
    /// How many times to deliver the notification (1 to 100).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    times: u32,
    /// Deliver all of them at once rather than one after the other.
    #[arg(long)]
    concurrent: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Event {
    #[value(name = "charge.success")]
    ChargeSuccess,
}

impl Event {
    fn name(self) -> &'static str {
        match self {
            Self::ChargeSuccess => sika_core::CHARGE_SUCCESS,
        }
    }
}

pub async fn run(global: &Global, args: &TriggerArgs) -> Result<u8, Failure> {
    // Checked here, with the SDK's own parser, so a typo is a usage error and nothing is sent.
    let amount: Option<sika_core::Amount> =
        args.amount.as_deref().map(str::parse).transpose().map_err(sika_core::SikaError::from)?;
    let control = Control::new(&base_url(global)?, global.timeout_ms)?;
    // No receiver: nothing to deliver to, so nothing is stored either.
    let settings = control.call(Method::GET, "/__sandbox/settings", None, 200).await?;
    if settings["webhook_url"].is_null() {
        return Err(no_receiver());
    }
    let path = format!("/__sandbox/transactions/{}", utf8_percent_encode(&args.reference, NON_ALPHANUMERIC));
    if control.find(&path).await?.is_some() {
        let flags = [("--amount", &args.amount), ("--currency", &args.currency), ("--status", &args.status)];
        let given: Vec<&str> = flags.iter().filter(|(_, value)| value.is_some()).map(|(flag, _)| *flag).collect();
        if !given.is_empty() {
            eprintln!(
                "sika: the sandbox has {} already: delivering for it as it is ({} only shape a transaction trigger creates)",
                escaped(&args.reference),
                given.join(", ")
            );
        }
    } else {
        let amount = amount.map_or_else(|| "10.00".to_owned(), |amount| amount.to_string());
        control.call(Method::POST, "/__sandbox/transactions", Some(transaction(args, &amount)), 201).await?;
    }
    let send = json!({
        "reference": args.reference,
        "event": args.event.name(),
        "times": args.times,
        "concurrent": args.concurrent,
    });
    let attempts = match control.call(Method::POST, "/__sandbox/webhooks/send", Some(send.to_string()), 200).await {
        Err(failure) if failure.message.contains("No webhook URL configured") => return Err(no_receiver()),
        other => other?,
    };
    let attempts = attempts.as_array().cloned().unwrap_or_default();
    let all_delivered = attempts.iter().all(|attempt| attempt["delivered"] == true);
    if global.json {
        print_json(&Value::Array(attempts).to_string());
    } else {
        let rows: Vec<Vec<Cell>> = attempts.iter().map(row).collect();
        print_table(&["DELIVERY", "EVENT", "REFERENCE", "ANSWER", "TIME"], &rows);
    }
    Ok(if all_delivered { exit::OK } else { exit::SANDBOX })
}

fn no_receiver() -> Failure {
    Failure::sandbox("the sandbox has no webhook receiver: run `sika listen --forward-to URL` first")
}

fn row(attempt: &Value) -> Vec<Cell> {
    let answer = match (attempt["http_status"].as_u64(), attempt["error"].as_str()) {
        (Some(status), _) => status.to_string(),
        (None, Some(error)) => format!("no answer: {error}"),
        (None, None) => "no answer".to_owned(),
    };
    vec![
        attempt["delivery_id"].to_string().into(),
        attempt["event"].as_str().unwrap_or_default().into(),
        attempt["reference"].as_str().unwrap_or_default().into(),
        answer.into(),
        format!("{} ms", attempt["duration_ms"]).into(),
    ]
}

/// A transaction as the service reports one, as JSON text with the amount's text kept exactly
/// (`25.50` stays `25.50`; the SDK's parser accepted it, so it is a JSON number).
fn transaction(args: &TriggerArgs, amount: &str) -> String {
    let text = |value: &str| Value::String(value.to_owned()).to_string();
    format!(
        r#"{{"tx_ref":{},"amount":{amount},"currency":{},"status":{},"payment_type":"mobile_money","description":"created by sika trigger"}}"#,
        text(&args.reference),
        text(args.currency.as_deref().unwrap_or("GHS")),
        text(args.status.as_deref().unwrap_or("successful")),
    )
}
