//! `sika trigger`: creates a transaction in the sandbox and has the sandbox deliver its
//! notification to the configured receiver (usually `sika listen`), `--times` times, one
//! after the other or all at once, to test idempotent fulfilment.

use clap::{Args, ValueEnum};
use reqwest::Method;
use serde_json::{Value, json};

use crate::Global;
use crate::control::Control;
use crate::exit::{self, Failure};
use crate::output::outln;
use crate::output::print_table;
use crate::service::base_url;

#[derive(Args)]
pub struct TriggerArgs {
    /// The event to deliver.
    event: Event,
    /// The transaction's reference.
    #[arg(long)]
    reference: String,
    /// The transaction's amount.
    #[arg(long, default_value = "10.00")]
    amount: String,
    /// The transaction's currency.
    #[arg(long, default_value = "GHS")]
    currency: String,
    /// The transaction's status (any text: also an undocumented one).
    #[arg(long, default_value = "successful")]
    status: String,
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
    let amount: sika_core::Amount = args.amount.parse().map_err(sika_core::SikaError::from)?;
    let control = Control::new(&base_url(global)?)?;
    control.call(Method::POST, "/__sandbox/transactions", Some(transaction(args, &amount.to_string())), 201).await?;
    let send = json!({
        "reference": args.reference,
        "event": args.event.name(),
        "times": args.times,
        "concurrent": args.concurrent,
    });
    let attempts = match control.call(Method::POST, "/__sandbox/webhooks/send", Some(send.to_string()), 200).await {
        Err(failure) if failure.message.contains("No webhook URL configured") => {
            return Err(Failure::sandbox(
                "the sandbox has no webhook receiver: run `sika listen --forward-to URL` first",
            ));
        }
        other => other?,
    };
    let attempts = attempts.as_array().cloned().unwrap_or_default();
    let all_delivered = attempts.iter().all(|attempt| attempt["delivered"] == true);
    if global.json {
        outln!("{}", Value::Array(attempts));
    } else {
        let rows: Vec<Vec<String>> = attempts.iter().map(row).collect();
        print_table(&["DELIVERY", "EVENT", "REFERENCE", "ANSWER", "TIME"], &rows);
    }
    Ok(if all_delivered { exit::OK } else { exit::SANDBOX })
}

fn row(attempt: &Value) -> Vec<String> {
    let answer = match (attempt["http_status"].as_u64(), attempt["error"].as_str()) {
        (Some(status), _) => status.to_string(),
        (None, Some(error)) => format!("no answer: {error}"),
        (None, None) => "no answer".to_owned(),
    };
    vec![
        attempt["delivery_id"].to_string(),
        attempt["event"].as_str().unwrap_or_default().to_owned(),
        attempt["reference"].as_str().unwrap_or_default().to_owned(),
        answer,
        format!("{} ms", attempt["duration_ms"]),
    ]
}

/// A transaction as the service reports one, as JSON text with the amount's text kept exactly
/// (`25.50` stays `25.50`; the SDK's parser accepted it, so it is a JSON number).
fn transaction(args: &TriggerArgs, amount: &str) -> String {
    let text = |value: &str| Value::String(value.to_owned()).to_string();
    format!(
        r#"{{"tx_ref":{},"amount":{amount},"currency":{},"status":{},"payment_type":"mobile_money","description":"created by sika trigger"}}"#,
        text(&args.reference),
        text(&args.currency),
        text(&args.status),
    )
}
