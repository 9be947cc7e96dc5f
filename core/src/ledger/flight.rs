//! One verification in flight per reference (ADR 0085): deliveries of one notification that
//! arrive together share the request the first of them sent, so a flood of deliveries is one
//! request to the service, not one each.
//!
//! Only deliveries that arrive while that request is in flight share it: once it has answered,
//! the next delivery verifies afresh (a "pending" that was true a second ago must never hide a
//! payment made since). A caller that joined shares an answer at most one request old; a
//! "pending" it gets is `RetryLater` (503), so the service delivers again and that delivery
//! verifies again.
//!
//! Each caller drives its own work: the first caller's task sends the request, the others
//! wait for its answer. A first caller cancelled (or timed out) before the answer leaves its
//! followers to verify themselves, one of them first again; no follower ever drives another
//! caller's request, whose connection may belong to another runtime (a blocking client's).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::watch;

use crate::error::Result;
use crate::models::Transaction;

type Answer = Option<Result<Transaction>>;
/// Each reference's request in flight: its caller's id and the answer's receiver.
type InFlight = Arc<Mutex<HashMap<String, (u64, watch::Receiver<Answer>)>>>;

/// The verifications in flight, by the service's address and the reference.
#[derive(Default)]
pub(super) struct Flights {
    in_flight: InFlight,
    next_id: std::sync::atomic::AtomicU64,
}

impl Flights {
    /// `verify()`'s answer for `key`, shared with every caller that asks while it is in flight.
    pub(super) async fn verify<F>(&self, key: String, verify: impl FnOnce() -> F) -> Result<Transaction>
    where
        F: Future<Output = Result<Transaction>>,
    {
        let mut verify = Some(verify);
        loop {
            let joined = {
                let mut in_flight = self.in_flight.lock().unwrap_or_else(PoisonError::into_inner);
                match in_flight.get(&key) {
                    Some((_, answer)) => Err(answer.clone()),
                    None => {
                        let id = self.next_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let (sender, receiver) = watch::channel(None);
                        in_flight.insert(key.clone(), (id, receiver));
                        Ok(First { flights: Arc::clone(&self.in_flight), key: key.clone(), id, sender })
                    }
                }
            };
            match joined {
                Ok(first) => {
                    let verify = verify.take().expect("a caller sends its own request once");
                    let answer = verify().await;
                    first.answer(answer.clone());
                    return answer;
                }
                Err(mut answer) => {
                    if let Ok(answered) = answer.wait_for(Option::is_some).await {
                        if let Some(answer) = answered.as_ref() {
                            return answer.clone();
                        }
                    }
                    // The first caller went away without an answer: ask again.
                }
            }
        }
    }

    /// How many references have a verification in flight (tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.in_flight.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

/// The caller whose request the others wait for. Dropped (answered, cancelled or timed out), it
/// leaves the map, so the next caller verifies afresh.
struct First {
    flights: InFlight,
    key: String,
    id: u64,
    sender: watch::Sender<Answer>,
}

impl First {
    fn answer(self, answer: Result<Transaction>) {
        self.sender.send_replace(Some(answer));
    }
}

impl Drop for First {
    fn drop(&mut self) {
        let mut in_flight = self.flights.lock().unwrap_or_else(PoisonError::into_inner);
        if in_flight.get(&self.key).is_some_and(|(id, _)| *id == self.id) {
            in_flight.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::error::SikaError;

    fn failed() -> Result<Transaction> {
        Err(SikaError::Timeout { request_id: None })
    }

    /// B302: callers that ask while a verification is in flight share it; a caller after it
    /// answered verifies afresh; a first caller cancelled leaves its followers to verify.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn b302_callers_in_flight_share_one_verification_and_later_ones_verify_afresh() {
        let flights = Arc::new(Flights::default());
        let sent = Arc::new(AtomicU32::new(0));
        let ask = |flights: Arc<Flights>, sent: Arc<AtomicU32>| async move {
            flights
                .verify("R".to_owned(), || async {
                    sent.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    failed()
                })
                .await
        };
        let together: Vec<_> = (0..8).map(|_| tokio::spawn(ask(Arc::clone(&flights), Arc::clone(&sent)))).collect();
        for caller in together {
            assert!(matches!(caller.await.expect("joins"), Err(SikaError::Timeout { .. })));
        }
        assert_eq!(sent.load(Ordering::SeqCst), 1, "one request for eight callers in flight");
        assert_eq!(flights.len(), 0, "nothing left in flight");
        ask(Arc::clone(&flights), Arc::clone(&sent)).await.expect_err("fails");
        assert_eq!(sent.load(Ordering::SeqCst), 2, "a later caller verifies afresh");

        // The first caller cancelled mid-flight: its follower verifies itself.
        let first = tokio::spawn(ask(Arc::clone(&flights), Arc::clone(&sent)));
        tokio::time::sleep(Duration::from_millis(50)).await;
        let follower = tokio::spawn(ask(Arc::clone(&flights), Arc::clone(&sent)));
        tokio::time::sleep(Duration::from_millis(50)).await;
        first.abort();
        follower.await.expect("joins").expect_err("fails");
        assert_eq!(sent.load(Ordering::SeqCst), 4, "the follower sent its own request");
        assert_eq!(flights.len(), 0);
    }
}
