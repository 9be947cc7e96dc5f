//! The fulfilment block for Rust callers (issue 43 item 1, ADR 0071): [`Ledger::fulfil`] renews
//! the claim while the merchant's work runs, marks it fulfilled when the work succeeds and gives
//! it back when the work fails, so a shipment of any length keeps its claim and a failed one is
//! offered to the next delivery at once. Python, Kotlin, Swift and Java have the same block in
//! their own idiom (a closure cannot cross UniFFI), over the same `renew`, `mark_fulfilled` and
//! `release`.

use std::convert::Infallible;
use std::fmt::Display;
use std::future::Future;

use super::{Claim, Ledger};
use crate::error::SikaError;

impl Ledger {
    /// Fulfils `claim`'s order in `work`: renews the claim first (`ClaimLost` when it was
    /// offered to another caller meanwhile: `work` does not run) and every
    /// [`renew_interval`](Ledger::renew_interval) while `work` runs, marks it fulfilled when
    /// `work` gives `Ok`, and gives it back ([`release`](Ledger::release), with the error as the
    /// reason) when `work` gives `Err`, so the next delivery is offered it at once.
    ///
    /// A renewal that found the claim lost is `ClaimLost` when `work` ends (logged at WARN as it
    /// happens); `work` itself is never stopped half-way, and a lost claim is neither marked nor
    /// released. A renewal that fails otherwise (the database briefly away) is logged and tried
    /// again at the next interval. Dropping the returned future (a cancelled task) or a panic in
    /// `work` keeps the claim: the shipment may have gone out, so the order is offered again only
    /// after the lease (logged at WARN then); fulfil idempotently on the claim's `offer`.
    ///
    /// `E` is the work's error type: any that a [`SikaError`] converts into (`SikaError`
    /// itself, `anyhow::Error`, `Box<dyn Error>`, an error of your own with a `From`).
    ///
    /// ```rust,no_run
    /// # async fn example(ledger: sika_core::ledger::Ledger, claim: sika_core::ledger::Claim) -> Result<(), Box<dyn std::error::Error>> {
    /// # async fn ship(_reference: &str) -> Result<(), Box<dyn std::error::Error>> { Ok(()) }
    /// // Renewed while it ships, marked fulfilled after, given back if shipping fails.
    /// ledger.fulfil(&claim, |held| async move { ship(&held.reference).await }).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn fulfil<T, E, W, F>(&self, claim: &Claim, work: W) -> Result<T, E>
    where
        W: FnOnce(Claim) -> F,
        F: Future<Output = Result<T, E>>,
        E: From<SikaError> + Display,
    {
        let held = self.renew(claim).await?;
        let mut lost = None;
        let outcome = {
            // Both polled at once: the work goes on while a renewal waits for the database.
            let renewing = self.keep_renewed(&held, &mut lost);
            let working = work(held.clone());
            tokio::pin!(renewing, working);
            tokio::select! {
                biased;
                outcome = &mut working => outcome,
                never = &mut renewing => match never {},
            }
        };
        match (outcome, lost) {
            (Ok(_), Some(lost)) => Err(lost.into()),
            (Ok(value), None) => {
                self.mark_fulfilled(&held).await?;
                Ok(value)
            }
            (Err(error), None) => {
                if let Err(release_error) = self.release(&held, &error.to_string()).await {
                    log::warn!(
                        target: "sika",
                        reference = held.reference.as_str();
                        "giving back the claim of `{}` failed: {release_error}", held.reference
                    );
                }
                Err(error)
            }
            // Another caller holds it now: the work's own error goes on, nothing is released.
            (Err(error), Some(_)) => Err(error),
        }
    }

    /// Renews `held` every renewal interval until it is lost (then `lost` holds `ClaimLost` and
    /// the future waits forever); never ends by itself.
    async fn keep_renewed(&self, held: &Claim, lost: &mut Option<SikaError>) -> Infallible {
        let mut current = held.clone();
        loop {
            tokio::time::sleep(self.renew_interval()).await;
            match self.renew(&current).await {
                Ok(renewed) => current = renewed,
                Err(claim_lost @ SikaError::ClaimLost { .. }) => {
                    *lost = Some(claim_lost);
                    return std::future::pending().await;
                }
                Err(failure) => log::warn!(
                    target: "sika",
                    reference = current.reference.as_str();
                    "renewing the claim of `{}` failed (tried again at the next interval): {failure}", current.reference
                ),
            }
        }
    }
}
