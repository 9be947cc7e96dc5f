//! The records on their way to the host's sink, off the request path (ADR 0044, issue 25).
//!
//! A record logged by a call (on a runtime thread, or the caller's for the blocking client) is
//! put in a bounded queue and the call goes on; one thread per process, `sika-log`, takes the
//! records in order and hands each to the sink. A slow host handler (200 ms a record) so delays
//! only the records, never a call. When the queue is full the record is dropped and counted, and
//! the count is handed to the sink as a WARN record of its own before the next record delivered.
//!
//! State per process (`PerProcess`, ADR 0013): a forked child never touches its parent's
//! channel (whose lock a parent thread may have held at the fork) nor waits for the parent's
//! thread, which does not exist in the child; it starts its own on its first record.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::time::{Duration, Instant};

use super::{LogLevel, LogRecord};
use crate::error::SikaError;
use crate::process::PerProcess;

/// The records a queue holds before it drops: about a second of a busy service's DEBUG lines
/// (one per request) with a handler that keeps up, so only a stalled or very slow handler loses
/// any.
pub(crate) const CAPACITY: usize = 1_024;

/// Where the logging thread hands each record: the process's bridge, or a test's recorder.
pub(super) type Deliver = fn(LogRecord);

pub(super) struct LogQueue {
    lane: PerProcess<Lane>,
    capacity: usize,
}

/// One process's queue and the counts its logging thread shares.
struct Lane {
    sender: SyncSender<LogRecord>,
    counts: Arc<Counts>,
}

#[derive(Default)]
struct Counts {
    /// Records dropped since the last report (the queue was full).
    dropped: AtomicU64,
    /// Records queued and not yet handed to the sink (the one being handed included).
    pending: AtomicU64,
}

impl LogQueue {
    pub(super) const fn new(capacity: usize) -> Self {
        Self { lane: PerProcess::empty(), capacity }
    }

    /// Queues `record` for `deliver` on this process's logging thread (started on the first
    /// record); drops and counts it when the queue is full. Never waits. `Err(record)` only if
    /// no thread could be started: the caller then hands it over itself (the record given
    /// back whole, not boxed: this is the rare path, and the common one allocates nothing).
    #[allow(clippy::result_large_err)]
    pub(super) fn push(&self, record: LogRecord, deliver: Deliver) -> Result<(), LogRecord> {
        let Ok(lane) = self.lane.get(|| Lane::start(self.capacity, deliver)) else { return Err(record) };
        lane.counts.pending.fetch_add(1, Ordering::SeqCst);
        match lane.sender.try_send(record) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_)) => {
                lane.counts.pending.fetch_sub(1, Ordering::SeqCst);
                lane.counts.dropped.fetch_add(1, Ordering::SeqCst);
                Ok(())
            }
            Err(TrySendError::Disconnected(record)) => {
                lane.counts.pending.fetch_sub(1, Ordering::SeqCst);
                Err(record)
            }
        }
    }

    /// Waits (at most `wait`) until every record this process queued so far has been handed to
    /// the sink. False if some were still pending at the end.
    pub(super) fn flush(&self, wait: Duration) -> bool {
        let Some(lane) = self.lane.current() else { return true };
        let deadline = Instant::now() + wait;
        loop {
            if lane.counts.pending.load(Ordering::SeqCst) == 0 {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

impl Lane {
    fn start(capacity: usize, deliver: Deliver) -> crate::error::Result<Self> {
        let (sender, receiver) = sync_channel(capacity);
        let counts = Arc::new(Counts::default());
        let shared = counts.clone();
        std::thread::Builder::new()
            .name("sika-log".into())
            .spawn(move || run(&receiver, &shared, deliver))
            .map_err(|_| SikaError::configuration("cannot start the SDK's logging thread"))?;
        Ok(Self { sender, counts })
    }
}

/// The logging thread: every record in order, each preceded by the count of records dropped
/// since the last one it delivered, if any. Runs as long as the process (the sender is held by
/// the process's static queue).
fn run(receiver: &Receiver<LogRecord>, counts: &Counts, deliver: Deliver) {
    while let Ok(record) = receiver.recv() {
        let dropped = counts.dropped.swap(0, Ordering::SeqCst);
        if dropped > 0 {
            deliver(dropped_report(dropped));
        }
        deliver(record);
        counts.pending.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The record that reports `dropped` records lost to a full queue.
pub(super) fn dropped_report(dropped: u64) -> LogRecord {
    LogRecord {
        level: LogLevel::Warn,
        target: "sika".into(),
        message: format!(
            "{dropped} log records of the SDK were dropped: the log handlers were slower than the records \
             came (a queue of {CAPACITY})"
        ),
        dropped: Some(i64::try_from(dropped).unwrap_or(i64::MAX)),
        ..LogRecord::default()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::AtomicBool;

    use super::*;

    static RECEIVED: Mutex<Vec<LogRecord>> = Mutex::new(Vec::new());
    static HOLD: AtomicBool = AtomicBool::new(false);
    static ENTERED: AtomicBool = AtomicBool::new(false);

    /// A sink that waits while `HOLD` is set (a stalled handler), then keeps the record.
    fn recorder(record: LogRecord) {
        ENTERED.store(true, Ordering::SeqCst);
        while HOLD.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(1));
        }
        RECEIVED.lock().expect("not poisoned").push(record);
    }

    fn record(message: &str) -> LogRecord {
        LogRecord {
            level: LogLevel::Debug,
            target: "sika.transport".into(),
            message: message.into(),
            ..LogRecord::default()
        }
    }

    #[test]
    fn b83_a_full_queue_drops_and_reports_the_count_in_a_later_record_and_never_waits() {
        static QUEUE: LogQueue = LogQueue::new(4);
        HOLD.store(true, Ordering::SeqCst);
        // One taken by the thread and held in the sink, four queued, the other sixteen dropped.
        QUEUE.push(record("first"), recorder).expect("queued");
        while !ENTERED.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(1)); // until the thread has taken "first"
        }
        for index in 0..20 {
            QUEUE.push(record(&format!("r{index}")), recorder).expect("never refused");
        }
        // Had a push waited for the held sink, the test would never get past the loop above.
        HOLD.store(false, Ordering::SeqCst);
        assert!(QUEUE.flush(Duration::from_secs(10)));
        let received = std::mem::take(&mut *RECEIVED.lock().expect("not poisoned"));
        let messages: Vec<_> = received.iter().map(|record| record.message.as_str()).collect();
        assert_eq!(received.len(), 6, "{messages:?}");
        assert_eq!(
            [messages[0], messages[2], messages[3], messages[4], messages[5]],
            ["first", "r0", "r1", "r2", "r3"]
        );
        assert_eq!((received[1].level, received[1].dropped), (LogLevel::Warn, Some(16)), "{messages:?}");
        assert!(received[1].message.starts_with("16 log records of the SDK were dropped"), "{messages:?}");

        // Reported once: the next record comes alone.
        QUEUE.push(record("after"), recorder).expect("queued");
        assert!(QUEUE.flush(Duration::from_secs(10)));
        let after = std::mem::take(&mut *RECEIVED.lock().expect("not poisoned"));
        assert_eq!(after.iter().map(|record| record.message.as_str()).collect::<Vec<_>>(), ["after"]);
    }
}
