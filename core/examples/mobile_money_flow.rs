//! The main job of a merchant server, end to end: pick a provider, charge a mobile money
//! number, wait for the customer's USSD answer, verify, and act on the status.
//!
//! Run it against the sandbox with `scripts/quickstart`, or by hand:
//! `SIKA_BASE_URL=http://127.0.0.1:PORT SIKA_SECRET_KEY=... cargo run -p sika-core --example mobile_money_flow`

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use sika_core::{Amount, ChargeRequest, Client, MerchantAction, Result};

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
        phone_number: "+233244120000".into(),
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
    let started = Instant::now();
    let transaction = loop {
        let transaction = client.verify_transaction(&reference).await?;
        if transaction.status.is_final() || started.elapsed() > Duration::from_secs(60) {
            break transaction;
        }
        println!("   status: {} (checking again shortly)", transaction.status);
        tokio::time::sleep(Duration::from_millis(500)).await;
    };

    println!("4. Verified: status {}, amount {} {}", transaction.status, transaction.amount, transaction.currency);
    let action = transaction.status.merchant_action();
    println!("5. Merchant action: {action:?}");
    if action == MerchantAction::FulfilOrder && transaction.amount == request.amount && transaction.tx_ref == reference
    {
        println!("   paid in full: ship the order");
    }
    Ok(())
}
