//! The SDK's log records, captured in the test's own process: a process has one logger, so a
//! test binary installs this one and reads what the SDK wrote.

use std::sync::{Mutex, Once, PoisonError};

use log::{LevelFilter, Log, Metadata, Record};

static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Capture;

impl Log for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn log(&self, record: &Record<'_>) {
        let line = format!("{} {}", record.target(), record.args());
        LINES.lock().unwrap_or_else(PoisonError::into_inner).push(line);
    }

    fn flush(&self) {}
}

/// Captures every record up to `level` from now on (the logger is installed once per process).
pub fn capture(level: LevelFilter) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| log::set_logger(&Capture).expect("the only logger of this test binary"));
    log::set_max_level(level);
}

/// The records captured so far, as `target message` lines.
pub fn lines() -> Vec<String> {
    LINES.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

/// The records captured so far, removed from the capture.
pub fn take() -> Vec<String> {
    std::mem::take(&mut LINES.lock().unwrap_or_else(PoisonError::into_inner))
}
