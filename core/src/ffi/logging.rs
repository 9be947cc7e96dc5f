//! The core's logs in the host's logging (ADR 0014). One `log::Log` serves the whole process
//! (the bridge, installed on first use); every record of a `sika` target goes to two outputs,
//! each with its own level:
//! - the host's sink ([`set_log_sink`]): Python's `logging`, SLF4J, swift-log. The core keeps
//!   the most detailed level the host's `sika` loggers accept: it asks the sink
//!   ([`LogSink::level`]) when installed and then at most once a second, on the SDK's next call
//!   ([`follow_host_level`]), and a host that knows when its levels change tells it at once
//!   ([`set_log_sink_level`]). So a record no host logger wants costs one atomic load in
//!   `log`'s macros: no record is built and the host is never called;
//! - a console on standard error ([`enable_logging`], or `SIKA_LOG` when a client is made and
//!   no sink is installed), for hosts that have no logging of their own to bridge.
//!
//! A record's logger is `sika.<module>` (`sika.transport`, `sika.client`), a child of `sika`.
//! The core never logs the key, headers, bodies or full phone numbers (the log sites decide
//! that; this module only carries their records).

use std::borrow::Cow;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Once, OnceLock};
use std::time::{Duration, Instant};

use log::{Level, LevelFilter, Log, Metadata, Record};

use in_flight::InFlight;
use queue::LogQueue;

mod in_flight;
mod queue;

/// How much the SDK logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum LogLevel {
    /// Errors only.
    Error,
    /// Also each retry of a read, with its cause.
    Warn,
    /// Also each charge sent (phone number masked).
    Info,
    /// Also one line per request: method, path, outcome, time.
    Debug,
    /// Everything the SDK logs.
    Trace,
}

impl From<LogLevel> for LevelFilter {
    fn from(level: LogLevel) -> Self {
        match level {
            LogLevel::Error => Self::Error,
            LogLevel::Warn => Self::Warn,
            LogLevel::Info => Self::Info,
            LogLevel::Debug => Self::Debug,
            LogLevel::Trace => Self::Trace,
        }
    }
}

impl From<Level> for LogLevel {
    fn from(level: Level) -> Self {
        match level {
            Level::Error => Self::Error,
            Level::Warn => Self::Warn,
            Level::Info => Self::Info,
            Level::Debug => Self::Debug,
            Level::Trace => Self::Trace,
        }
    }
}

/// One record of the SDK's logs, as the host's sink receives it: the message, and the same
/// facts as fields of their own (ADR 0044), so a JSON logger gets them without parsing the text.
/// Numbers are signed, as every number of the foreign interface (Java has no unsigned types).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct LogRecord {
    /// Its level.
    pub level: LogLevel,
    /// The logger it belongs to: `sika`, or a child named after the part of the SDK that wrote
    /// it (`sika.transport` for requests and retries, `sika.client` for charges).
    pub target: String,
    /// The message, complete (never the key, a header, a body or a full phone number).
    pub message: String,
    /// The SDK operation it is about (`verify_transaction`, `initiate_charge`, `list_banks`,
    /// `list_mobile_money_providers`, `handle_webhook`).
    #[uniffi(default = None)]
    pub operation: Option<String>,
    /// The transaction reference it is about.
    #[uniffi(default = None)]
    pub reference: Option<String>,
    /// The service's HTTP status, when an answer came.
    #[uniffi(default = None)]
    pub http_status: Option<i32>,
    /// Which attempt of the request (1 is the first; retries of reads count up).
    #[uniffi(default = None)]
    pub attempt: Option<i32>,
    /// How long the request took, in milliseconds.
    #[uniffi(default = None)]
    pub duration_ms: Option<i64>,
    /// The `X-Request-Id` Sika sent with the attempt (`sika_<call>_<attempt>`; ADR 0053), on
    /// the records of requests and retries.
    #[uniffi(default = None)]
    pub request_id: Option<String>,
    /// Records dropped before this one because the host's handlers were too slow (the queue
    /// was full): set on the WARN record that reports them.
    #[uniffi(default = None)]
    pub dropped: Option<i64>,
}

impl Default for LogRecord {
    fn default() -> Self {
        Self {
            level: LogLevel::Warn,
            target: "sika".into(),
            message: String::new(),
            operation: None,
            reference: None,
            http_status: None,
            attempt: None,
            duration_ms: None,
            request_id: None,
            dropped: None,
        }
    }
}

/// Where the host receives the SDK's records: its own logging (Python's `logging`, SLF4J,
/// swift-log). `log` is called on the SDK's logging thread (`sika-log`, one per process), in
/// the order the records were made, never on a thread that makes a call (ADR 0044): a slow
/// handler delays records, not calls. It must not throw; the core ignores a failure.
#[uniffi::export(callback_interface)]
pub trait LogSink: Send + Sync {
    /// Hands one record to the host's logger named `record.target`.
    fn log(&self, record: LogRecord);

    /// The most detailed level the host's `sika` loggers (`sika`, `sika.transport`,
    /// `sika.client`) accept now; none: they want nothing. Asked when the sink is installed,
    /// then at most once a second, on the SDK's next call (never per record), so a change of
    /// the host's levels is followed within a second of it. Never less detailed than the
    /// host's loggers: records more detailed than this are never built.
    fn level(&self) -> Option<LogLevel>;
}

/// Installs the host's sink for the rest of the process and sets its level to what the sink's
/// `level()` answers. Returns false when a sink was already installed: the first one stays.
#[uniffi::export]
pub fn set_log_sink(sink: Box<dyn LogSink>) -> bool {
    let bridge = installed();
    let fresh = bridge.sink.set(sink).is_ok();
    if fresh {
        bridge.ask_sink_level(now_ms());
    }
    fresh
}

/// The most detailed level the host's `sika` loggers accept now (none: the host wants nothing).
/// A host that knows when its configuration changes (Python) calls it then, so the change is
/// followed at once rather than within a second (`LogSink::level`); records more detailed than
/// this are never built and never reach the sink, so it must never be less detailed than the
/// host's levels. A record it lets through that the host then discards costs one call.
#[uniffi::export]
pub fn set_log_sink_level(level: Option<LogLevel>) {
    installed().set_sink_level(level.map_or(LevelFilter::Off, Into::into));
}

/// Stops the sink for good, and waits (a second at most) until no call to it is under way. A
/// host calls it as it shuts down, before its runtime can no longer take calls: Python at exit,
/// before the interpreter finalizes.
#[uniffi::export]
pub fn close_log_sink() {
    installed().close(CLOSE_WAIT);
}

/// Waits (at most `timeout_ms`) until every record logged so far has been handed to the host's
/// sink (a negative time: not at all): records travel to it on the SDK's logging thread, after
/// the call that made them has returned. For tests that read what was logged, and for a host
/// about to exit (Python calls it at exit, before `close_log_sink`).
#[uniffi::export]
pub fn flush_log_records(timeout_ms: i64) {
    let _ = QUEUE.flush(Duration::from_millis(u64::try_from(timeout_ms).unwrap_or(0)));
}

/// How long `close_log_sink` waits for calls under way: a sink call takes microseconds once its
/// host lets it run; one stuck in a host's handler must not hold the host's exit for ever.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// Sends the SDK's records at `level` and above to standard error, beside any sink; call again
/// to change the level.
#[uniffi::export]
pub fn enable_logging(level: LogLevel) {
    installed().set_console_level(level.into());
}

/// The level the environment variable `SIKA_LOG` names (error, warn, info, debug, trace; any
/// case), or none. A host with a sink turns it into its own console at that level.
#[uniffi::export]
pub fn log_level_from_env() -> Option<LogLevel> {
    match std::env::var("SIKA_LOG").unwrap_or_default().to_ascii_lowercase().as_str() {
        "error" => Some(LogLevel::Error),
        "warn" => Some(LogLevel::Warn),
        "info" => Some(LogLevel::Info),
        "debug" => Some(LogLevel::Debug),
        "trace" => Some(LogLevel::Trace),
        _ => None,
    }
}

/// Honours `SIKA_LOG` once per process (when the first client is made) with the console,
/// unless a host sink is installed: that host reads `SIKA_LOG` itself and shows the records
/// through its own logging, so they are not printed twice.
pub(crate) fn enable_from_env() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| match log_level_from_env() {
        Some(level) if BRIDGE.sink.get().is_none() => enable_logging(level),
        _ => {}
    });
}

/// Asks the host's sink for its level if a second has passed since it was last asked: called
/// at the start of each call of the SDK's clients (`clients.rs`). Without a sink (or once it is
/// closed) one atomic load; with one, a clock read too, and a call to the host once a second.
pub(crate) fn follow_host_level() {
    if BRIDGE.asking() {
        BRIDGE.follow_level(now_ms());
    }
}

/// How often the core asks the host's sink for its level (at most; only when the SDK is used).
const ASK_EVERY_MS: u64 = 1_000;

/// `Bridge::ask_at` when there is no sink to ask, or it is closed.
const NEVER: u64 = u64::MAX;

/// Milliseconds on a monotonic clock, from the first time it is read.
fn now_ms() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    u64::try_from(START.get_or_init(Instant::now).elapsed().as_millis()).unwrap_or(NEVER - 1)
}

/// The process's bridge. A `static` (not boxed at install) so that a record's path holds no
/// lock: the sink is read with an atomic load, and a fork can never inherit a lock held here.
/// Its records reach the sink through the process's queue, on the logging thread.
static BRIDGE: Bridge = Bridge::queued(&QUEUE);

/// The records on their way to the process's sink (ADR 0044).
static QUEUE: LogQueue = LogQueue::new(queue::CAPACITY);

/// What the logging thread does with each record.
fn to_process_sink(record: LogRecord) {
    BRIDGE.to_sink(record);
}

/// The bridge, installed as the process's logger on first use.
fn installed() -> &'static Bridge {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // Fails only if the process already has another logger (a Rust host's own): then that
        // logger receives the records and the levels below only gate them.
        let _ = log::set_logger(&BRIDGE);
    });
    &BRIDGE
}

/// The two outputs and their levels (`LevelFilter as usize`: 0 is off, 5 is trace).
struct Bridge {
    console: AtomicUsize,
    sink_level: AtomicUsize,
    sink: OnceLock<Box<dyn LogSink>>,
    /// When (`now_ms`) the sink's level is next due to be asked; `NEVER` without a sink.
    ask_at: AtomicU64,
    /// Set by `close_log_sink`: the sink is never called again.
    closed: AtomicBool,
    in_flight: InFlight,
    /// The queue to the logging thread; none: records are handed over on the thread that logs
    /// (a test's bridge).
    queue: Option<&'static LogQueue>,
}

impl Bridge {
    #[cfg(test)]
    const fn new() -> Self {
        Self::with_queue(None)
    }

    const fn queued(queue: &'static LogQueue) -> Self {
        Self::with_queue(Some(queue))
    }

    const fn with_queue(queue: Option<&'static LogQueue>) -> Self {
        Self {
            queue,
            console: AtomicUsize::new(LevelFilter::Off as usize),
            sink_level: AtomicUsize::new(LevelFilter::Off as usize),
            sink: OnceLock::new(),
            ask_at: AtomicU64::new(NEVER),
            closed: AtomicBool::new(false),
            in_flight: InFlight::new(),
        }
    }

    fn console_level(&self) -> LevelFilter {
        level_filter(self.console.load(Ordering::Relaxed))
    }

    fn sink_level(&self) -> LevelFilter {
        level_filter(self.sink_level.load(Ordering::Relaxed))
    }

    /// The most detailed level either output wants: `log`'s own filter, checked by its macros
    /// before a record is built.
    fn max_level(&self) -> LevelFilter {
        self.console_level().max(self.sink_level())
    }

    fn set_console_level(&self, level: LevelFilter) {
        self.console.store(level as usize, Ordering::SeqCst);
        self.publish_max_level();
    }

    fn set_sink_level(&self, level: LevelFilter) {
        let level = if self.closed.load(Ordering::SeqCst) { LevelFilter::Off } else { level };
        self.sink_level.store(level as usize, Ordering::SeqCst);
        if self.closed.load(Ordering::SeqCst) {
            // Closed meanwhile: `close` may have stored Off before this store.
            self.sink_level.store(LevelFilter::Off as usize, Ordering::SeqCst);
        }
        self.publish_max_level();
    }

    /// Whether there is a sink to ask for its level (one atomic load).
    fn asking(&self) -> bool {
        self.ask_at.load(Ordering::Relaxed) != NEVER
    }

    /// Asks the sink for its level if it is due at `now` (ms); of the threads that find it due
    /// at once, one asks.
    fn follow_level(&self, now: u64) {
        let due = self.ask_at.load(Ordering::SeqCst);
        if now >= due
            && self.ask_at.compare_exchange(due, now + ASK_EVERY_MS, Ordering::SeqCst, Ordering::SeqCst).is_ok()
        {
            self.ask_sink_level(now);
        }
    }

    /// Sets the sink's level to what it answers now (`now`, in ms: when it is next due), unless
    /// it is closed. A sink that fails to answer keeps the level it had.
    fn ask_sink_level(&self, now: u64) {
        // Counted as a sink call: `close` waits for it, as for `to_sink`.
        let _call = self.in_flight.enter();
        if self.closed.load(Ordering::SeqCst) || host_is_gone() {
            return;
        }
        let Some(sink) = self.sink.get() else { return };
        let _ = self.ask_at.compare_exchange(NEVER, now + ASK_EVERY_MS, Ordering::SeqCst, Ordering::SeqCst);
        if let Ok(level) = catch_unwind(AssertUnwindSafe(|| sink.level())) {
            self.set_sink_level(level.map_or(LevelFilter::Off, Into::into));
        }
        if self.closed.load(Ordering::SeqCst) {
            self.ask_at.store(NEVER, Ordering::SeqCst);
        }
    }

    /// Sets `log`'s filter to `max_level`, and again until it holds what both levels say now:
    /// two threads changing the two levels at once could otherwise leave the value one of them
    /// computed before the other's change (too quiet: records lost). The last thread to set it
    /// reads both levels after every change, so it ends right, with no lock.
    fn publish_max_level(&self) {
        loop {
            let level = self.max_level();
            log::set_max_level(level);
            if self.max_level() == level {
                return;
            }
        }
    }

    /// Closes the sink: never called again, and no call under way when this returns (unless
    /// one is still under way after `wait`).
    fn close(&self, wait: Duration) {
        self.closed.store(true, Ordering::SeqCst);
        self.ask_at.store(NEVER, Ordering::SeqCst);
        self.set_sink_level(LevelFilter::Off);
        let deadline = Instant::now() + wait;
        while self.in_flight.count() > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Hands a record to the sink, if one is installed and not closed; a failing sink (a panic
    /// from a foreign exception) never reaches the call that logged.
    fn to_sink(&self, record: LogRecord) {
        // Counted before `closed` is read, and `close_log_sink` sets `closed` before it reads
        // the count: either this call sees it closed, or the close waits for this call.
        let _call = self.in_flight.enter();
        if self.closed.load(Ordering::SeqCst) || host_is_gone() {
            return;
        }
        if let Some(sink) = self.sink.get() {
            let _ = catch_unwind(AssertUnwindSafe(|| sink.log(record)));
        }
    }
}

impl Log for Bridge {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        is_sika(metadata.target()) && metadata.level() <= self.max_level()
    }

    fn log(&self, record: &Record<'_>) {
        let Some(target) = logger_name(record) else { return };
        let level = record.level();
        let (console, sink) = (level <= self.console_level(), level <= self.sink_level());
        if !(console || sink) {
            return;
        }
        // Every record is bounded (ADR 0040), whatever its log site quoted.
        let message = crate::scrub::bounded_to(record.args().to_string(), crate::scrub::MAX_LOG_MESSAGE_CHARS);
        if console {
            // One write per line, so lines from many threads never interleave.
            let line = console_line(level, &target, &message);
            let _ = std::io::stderr().write_all(line.as_bytes());
        }
        if sink {
            let mut made =
                LogRecord { level: level.into(), target: target.into_owned(), message, ..LogRecord::default() };
            let _ = record.key_values().visit(&mut Fields(&mut made));
            match self.queue {
                Some(queue) => {
                    if let Err(record) = queue.push(made, to_process_sink) {
                        self.to_sink(record);
                    }
                }
                None => self.to_sink(made),
            }
        }
    }

    fn flush(&self) {
        let _ = std::io::stderr().flush();
    }
}

/// Reads a log site's structured fields (`log!(operation = "...", reference = ...; "...")`)
/// into a record; unknown keys and empty values are ignored.
struct Fields<'a>(&'a mut LogRecord);

impl<'kvs> log::kv::VisitSource<'kvs> for Fields<'_> {
    fn visit_pair(&mut self, key: log::kv::Key<'kvs>, value: log::kv::Value<'kvs>) -> Result<(), log::kv::Error> {
        let text = || value.to_borrowed_str().map(str::to_owned);
        let number = value.to_i64();
        let record = &mut *self.0;
        match key.as_str() {
            "operation" => record.operation = text(),
            "reference" => record.reference = text(),
            "http_status" => record.http_status = number.and_then(|n| i32::try_from(n).ok()),
            "attempt" => record.attempt = number.and_then(|n| i32::try_from(n).ok()),
            "duration_ms" => record.duration_ms = number,
            "request_id" => record.request_id = text(),
            _ => {}
        }
        Ok(())
    }
}

/// Whether the host's VM is gone (a JVM after `DestroyJavaVM`): its sink can no longer be
/// called, and is skipped rather than closed at shutdown, so the records of calls that end
/// while the application shuts down still reach it (ADR 0036; the wake gate does the same,
/// ADR 0013). One atomic load for any host but a JVM.
fn host_is_gone() -> bool {
    super::jvm_host::host_vm_is_gone()
}

fn level_filter(value: usize) -> LevelFilter {
    LevelFilter::iter().find(|level| *level as usize == value).unwrap_or(LevelFilter::Off)
}

/// Whether a target is the SDK's: `sika` or below it. Other crates' records (rustls, hyper)
/// are not the SDK's to show.
fn is_sika(target: &str) -> bool {
    target == "sika" || target.starts_with("sika.")
}

/// The host logger of a record: a `sika.x` target as it is; the log sites' `sika` target, a
/// child named after the module that wrote it (`sika_core::transport` is `sika.transport`);
/// none for another crate's record.
fn logger_name<'a>(record: &Record<'a>) -> Option<Cow<'a, str>> {
    let target = record.target();
    if target != "sika" {
        return is_sika(target).then(|| Cow::Owned(target.to_owned()));
    }
    let module = record.module_path().and_then(|path| path.strip_prefix("sika_core::"));
    Some(match module {
        Some(module) => Cow::Owned(format!("sika.{}", module.replace("::", "."))),
        None => Cow::Borrowed("sika"),
    })
}

/// A console line: UTC time, level, logger, message.
fn console_line(level: Level, target: &str, message: &str) -> String {
    let now = chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now()).format("%Y-%m-%dT%H:%M:%S%.3fZ");
    format!("[{now} {level:<5} {target}] {message}\n")
}

#[cfg(test)]
mod tests;
