//! The simulated customer on the other end of the USSD prompt.
//!
//! After `--confirm-after-ms` (or the `confirm_after_ms` setting in force when the charge was
//! made), a pending charge is resolved by the last four digits of its
//! phone number, so tests choose the outcome through the number they charge:
//!
//! | ends in | outcome |
//! |---|---|
//! | `0000` | successful |
//! | `1111` | failed |
//! | `2222` | abandoned |
//! | `3333` | stays pending forever |
//! | `4444` | successful, then reversed after the same delay again |
//! | anything else | successful |
//!
//! Each transition to `successful` sends the `charge.success` webhook. A transition only
//! applies while the transaction is still the one this charge created and still in the
//! expected status, so control-API edits and resets win over the simulation.

use crate::state::AppState;
use crate::webhook;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Successful,
    Failed,
    Abandoned,
    StaysPending,
    SuccessfulThenReversed,
}

/// The outcome chosen by the phone number's last four characters.
pub fn outcome_for(phone_number: &str) -> Outcome {
    let tail = phone_number.len().checked_sub(4).and_then(|start| phone_number.get(start..)).unwrap_or_default();
    match tail {
        "1111" => Outcome::Failed,
        "2222" => Outcome::Abandoned,
        "3333" => Outcome::StaysPending,
        "4444" => Outcome::SuccessfulThenReversed,
        _ => Outcome::Successful,
    }
}

/// Starts the timer that resolves the charge stored under `tx_ref` at `version`.
pub fn schedule(state: &AppState, tx_ref: String, version: u64, outcome: Outcome) {
    if outcome == Outcome::StaysPending {
        return;
    }
    // Read now: a later change of the setting applies to later charges only.
    let confirm_after = state.settings().confirm_after;
    let state = state.clone();
    tokio::spawn(async move {
        tokio::time::sleep(confirm_after).await;
        let store = &state.store;
        match outcome {
            Outcome::Failed => {
                store.transition(&tx_ref, version, "pending", "failed");
            }
            Outcome::Abandoned => {
                store.transition(&tx_ref, version, "pending", "abandoned");
            }
            Outcome::Successful => {
                if store.transition(&tx_ref, version, "pending", "successful") {
                    webhook::spawn_charge_success(&state, tx_ref);
                }
            }
            Outcome::SuccessfulThenReversed => {
                if store.transition(&tx_ref, version, "pending", "successful") {
                    webhook::spawn_charge_success(&state, tx_ref.clone());
                    tokio::time::sleep(confirm_after).await;
                    store.transition(&tx_ref, version, "successful", "reversed");
                }
            }
            Outcome::StaysPending => {}
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b171_ussd_outcomes_by_last_four_digits() {
        assert_eq!(outcome_for("+233244120000"), Outcome::Successful);
        assert_eq!(outcome_for("+233244121111"), Outcome::Failed);
        assert_eq!(outcome_for("+233244122222"), Outcome::Abandoned);
        assert_eq!(outcome_for("+233244123333"), Outcome::StaysPending);
        assert_eq!(outcome_for("+233244124444"), Outcome::SuccessfulThenReversed);
        assert_eq!(outcome_for("+233244125678"), Outcome::Successful);
        assert_eq!(outcome_for("+1"), Outcome::Successful);
    }
}
