//! The main job of a merchant server, end to end: pick a provider, charge a mobile money
//! number, wait for the customer's USSD answer, and confirm the payment against the order.
//!
//! Run it against the sandbox with `scripts/quickstart`, or by hand:
//! `SIKA_BASE_URL=http://127.0.0.1:PORT SIKA_SECRET_KEY=... cargo run -p sika-core --example mobile_money_flow`

use std::time::{SystemTime, UNIX_EPOCH};

use sika_core::{Amount, AwaitOptions, ChargeRequest, Client, ExpectedPayment, PaymentCheck, Result};

#[tokio::main]
async fn main() {
    if let Err(error) = run().await {
        eprintln!("error: {error}");
        std::process::exit(1);
    }
}

async fn run() -> Result<()> {
    let client = Client::from_env()?;

    println!("1. Mobile money providers in Ghana:");
    let providers = client.list_mobile_money_providers(Some("GH")).await?;
    for provider in &providers {
        println!(
            "   - {} (code {}, {})",
            provider.name,
            provider.code,
            if provider.active { "active" } else { "inactive" }
        );
    }
    let Some(provider) = providers.iter().find(|provider| provider.active) else {
        println!("   no active provider: nothing to charge");
        return Ok(());
    };

    let unique = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or_default();
    let reference = format!("ORDER-{unique}");
    let request = ChargeRequest {
        amount: "25.50".parse::<Amount>()?,
        email: "ama@example.com".into(),
        // The sandbox answers by the last four digits: 0000 is a successful payment.
        phone_number: sika_core::normalize_phone_number("024 412 0000", "GH")?,
        reference: reference.clone(),
        currency: "GHS".into(),
        provider: provider.code.clone(),
        callback_url: Some("https://shop.example.com/orders/return".into()),
    };
    println!(
        "2. Charging {} GHS to {} with {} (reference {reference})",
        request.amount, request.phone_number, provider.name
    );
    let response = client.initiate_charge(&request).await?;
    println!("   service said: {}", response.message.as_deref().unwrap_or("(no message)"));

    println!("3. Waiting for the customer to answer the USSD prompt...");
    let options =
        AwaitOptions { initial_delay_ms: 1000, interval_ms: 500, max_interval_ms: 2000, ..AwaitOptions::default() };
    let transaction = client.await_final_status(&reference, &options).await?;
    println!("   final status: {}", transaction.status);

    println!("4. Confirming the payment against the order:");
    let order = ExpectedPayment { amount: request.amount, currency: request.currency.clone() };
    match client.confirm_payment(&reference, &order).await? {
        PaymentCheck::Confirmed { transaction } => {
            println!("   confirmed: {} {} paid: ship the order", transaction.amount, transaction.currency)
        }
        other => println!("   not confirmed ({other:?}): do not ship"),
    }
    println!("   merchant action: {:?}", transaction.status.merchant_action());
    Ok(())
}
