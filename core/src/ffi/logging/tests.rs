//! The bridge on its own (a `Bridge` of the test's, not the process's): what reaches the sink.

use std::sync::{Arc, Mutex};

use super::*;

/// A sink that keeps what it receives.
#[derive(Clone, Default)]
struct Recording(Arc<Mutex<Vec<LogRecord>>>);

impl Recording {
    fn taken(&self) -> Vec<LogRecord> {
        std::mem::take(&mut *self.0.lock().expect("not poisoned"))
    }
}

impl LogSink for Recording {
    fn log(&self, record: LogRecord) {
        self.0.lock().expect("not poisoned").push(record);
    }

    fn level(&self) -> Option<LogLevel> {
        Some(LogLevel::Trace)
    }
}

/// A bridge of its own (not the process's), with `sink` installed at `level`.
fn bridge_with(sink: impl LogSink + 'static, level: LevelFilter) -> Bridge {
    let bridge = Bridge::new();
    assert!(bridge.sink.set(Box::new(sink)).is_ok());
    bridge.sink_level.store(level as usize, Ordering::SeqCst);
    bridge
}

/// Logs one line at `level` from `module` with `target`, through `bridge`, as `log!` does.
fn emit(bridge: &Bridge, level: Level, target: &str, module: Option<&str>, message: &str) {
    bridge.log(
        &Record::builder().level(level).target(target).module_path(module).args(format_args!("{message}")).build(),
    );
}

fn levels_of(records: &[LogRecord]) -> Vec<LogLevel> {
    records.iter().map(|record| record.level).collect()
}

#[test]
fn b41_the_sink_receives_records_at_its_level_and_above_only() {
    let sink = Recording::default();
    let bridge = bridge_with(sink.clone(), LevelFilter::Warn);
    for level in [Level::Trace, Level::Debug, Level::Info, Level::Warn, Level::Error] {
        emit(&bridge, level, "sika", Some("sika_core::transport"), "a line");
    }
    assert_eq!(levels_of(&sink.taken()), [LogLevel::Warn, LogLevel::Error]);
    assert!(!bridge.enabled(&Metadata::builder().level(Level::Info).target("sika").build()));
    assert!(bridge.enabled(&Metadata::builder().level(Level::Warn).target("sika").build()));
}

#[test]
fn b41_a_level_change_takes_effect_on_the_next_record() {
    let sink = Recording::default();
    let bridge = bridge_with(sink.clone(), LevelFilter::Warn);
    emit(&bridge, Level::Debug, "sika", None, "before");
    bridge.sink_level.store(LevelFilter::Debug as usize, Ordering::SeqCst);
    emit(&bridge, Level::Debug, "sika", None, "while debug");
    bridge.sink_level.store(LevelFilter::Off as usize, Ordering::SeqCst);
    emit(&bridge, Level::Error, "sika", None, "after");
    let messages: Vec<_> = sink.taken().into_iter().map(|record| record.message).collect();
    assert_eq!(messages, ["while debug"]);
}

#[test]
fn b41_records_carry_level_child_logger_and_the_whole_message() {
    let sink = Recording::default();
    let bridge = bridge_with(sink.clone(), LevelFilter::Trace);
    emit(&bridge, Level::Info, "sika", Some("sika_core::client"), "charge R-1: 12.50 GHS");
    emit(&bridge, Level::Debug, "sika", Some("sika_core::safety::await_status"), "poll");
    emit(&bridge, Level::Warn, "sika", None, "no module");
    emit(&bridge, Level::Warn, "sika.webhooks", Some("sika_core::safety::webhook"), "explicit");
    let expected = [
        (LogLevel::Info, "sika.client", "charge R-1: 12.50 GHS"),
        (LogLevel::Debug, "sika.safety.await_status", "poll"),
        (LogLevel::Warn, "sika", "no module"),
        (LogLevel::Warn, "sika.webhooks", "explicit"),
    ]
    .map(|(level, target, message)| LogRecord {
        level,
        target: target.into(),
        message: message.into(),
        ..LogRecord::default()
    });
    assert_eq!(sink.taken(), expected);
}

#[test]
fn b41_other_crates_records_never_reach_the_sink() {
    let sink = Recording::default();
    let bridge = bridge_with(sink.clone(), LevelFilter::Trace);
    for target in ["rustls::client::hs", "reqwest::connect", "sikaware", "hyper_util"] {
        emit(&bridge, Level::Error, target, Some("rustls::client"), "not ours");
        assert!(!bridge.enabled(&Metadata::builder().level(Level::Error).target(target).build()), "{target}");
    }
    assert_eq!(sink.taken(), []);
}

#[test]
fn b41_the_max_level_is_the_more_detailed_of_console_and_sink() {
    let bridge = Bridge::new();
    assert_eq!(bridge.max_level(), LevelFilter::Off, "nothing is logged until asked for");
    bridge.console.store(LevelFilter::Info as usize, Ordering::SeqCst);
    bridge.sink_level.store(LevelFilter::Warn as usize, Ordering::SeqCst);
    assert_eq!(bridge.max_level(), LevelFilter::Info);
    bridge.sink_level.store(LevelFilter::Trace as usize, Ordering::SeqCst);
    assert_eq!(bridge.max_level(), LevelFilter::Trace);
    bridge.sink_level.store(LevelFilter::Off as usize, Ordering::SeqCst);
    bridge.console.store(LevelFilter::Off as usize, Ordering::SeqCst);
    assert_eq!(bridge.max_level(), LevelFilter::Off);
}

#[test]
fn b41_a_console_record_is_not_sent_to_a_sink_that_does_not_want_it() {
    let sink = Recording::default();
    let bridge = bridge_with(sink.clone(), LevelFilter::Error);
    bridge.console.store(LevelFilter::Debug as usize, Ordering::SeqCst);
    emit(&bridge, Level::Debug, "sika", None, "console only");
    assert_eq!(sink.taken(), []);
}

#[test]
fn b41_a_failing_sink_never_reaches_the_call_that_logged() {
    struct Failing;
    impl LogSink for Failing {
        fn log(&self, _: LogRecord) {
            panic!("Callback interface failure: an exception in a handler");
        }

        fn level(&self) -> Option<LogLevel> {
            panic!("Callback interface failure: an exception in a handler");
        }
    }
    let bridge = bridge_with(Failing, LevelFilter::Trace);
    emit(&bridge, Level::Warn, "sika", None, "retry 1");
    emit(&bridge, Level::Warn, "sika", None, "retry 2");
    bridge.ask_sink_level(0);
    assert_eq!(bridge.sink_level(), LevelFilter::Trace, "a sink that fails to answer keeps its level");
}

#[test]
fn b41_a_console_line_names_time_level_and_logger() {
    let line = console_line(Level::Warn, "sika.transport", "GET /x failed; retry 1 in 100 ms");
    assert!(line.starts_with('['), "{line}");
    assert!(line.ends_with(" WARN  sika.transport] GET /x failed; retry 1 in 100 ms\n"), "{line}");
}

#[test]
fn b41_level_numbers_round_trip() {
    for level in LevelFilter::iter() {
        assert_eq!(level_filter(level as usize), level);
    }
    assert_eq!(level_filter(99), LevelFilter::Off);
}

#[test]
fn b41_closing_waits_for_the_call_under_way_and_ends_the_sink() {
    /// A sink that, once the bridge is closing, takes a while longer, then notes that it ended.
    struct Slow(Arc<Bridge>, Arc<Mutex<Vec<&'static str>>>);
    impl LogSink for Slow {
        fn log(&self, _: LogRecord) {
            while !self.0.closed.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
            self.1.lock().expect("not poisoned").push("the sink call ended");
        }

        fn level(&self) -> Option<LogLevel> {
            self.1.lock().expect("not poisoned").push("level asked");
            Some(LogLevel::Trace)
        }
    }
    let events = Arc::new(Mutex::new(Vec::new()));
    let bridge = Arc::new(Bridge::new());
    assert!(bridge.sink.set(Box::new(Slow(bridge.clone(), events.clone()))).is_ok());
    bridge.set_sink_level(LevelFilter::Debug);
    let logging = {
        let bridge = bridge.clone();
        std::thread::spawn(move || emit(&bridge, Level::Warn, "sika", None, "retry 1"))
    };
    while bridge.in_flight.count() == 0 {
        std::thread::yield_now();
    }
    bridge.close(std::time::Duration::from_secs(10));
    events.lock().expect("not poisoned").push("closed");
    logging.join().expect("the logging thread");
    assert_eq!(*events.lock().expect("not poisoned"), ["the sink call ended", "closed"]);

    // Closed for good: no level brings the sink back.
    bridge.set_sink_level(LevelFilter::Trace);
    assert_eq!(bridge.sink_level(), LevelFilter::Off);
    bridge.sink_level.store(LevelFilter::Trace as usize, Ordering::SeqCst);
    emit(&bridge, Level::Error, "sika", None, "after the close");
    bridge.ask_sink_level(0);
    bridge.follow_level(u64::MAX - 1);
    assert!(!bridge.asking());
    assert_eq!(events.lock().expect("not poisoned").len(), 2, "the sink was called after the close");
}

/// A sink whose level the test changes, counting how often it is asked.
#[derive(Default)]
struct Asked {
    level: Mutex<Option<LogLevel>>,
    asked: AtomicUsize,
}

impl LogSink for Arc<Asked> {
    fn log(&self, _: LogRecord) {}

    fn level(&self) -> Option<LogLevel> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        *self.level.lock().expect("not poisoned")
    }
}

#[test]
fn b41_the_sinks_level_is_asked_at_install_then_at_most_once_a_second() {
    let sink = Arc::new(Asked::default());
    *sink.level.lock().expect("not poisoned") = Some(LogLevel::Warn);
    let bridge = Bridge::new();
    assert!(!bridge.asking(), "no sink: nothing to ask");
    bridge.follow_level(5_000);
    assert!(bridge.sink.set(Box::new(sink.clone())).is_ok());
    bridge.ask_sink_level(10_000);
    assert_eq!((sink.asked.load(Ordering::SeqCst), bridge.sink_level()), (1, LevelFilter::Warn));
    assert!(bridge.asking());

    *sink.level.lock().expect("not poisoned") = Some(LogLevel::Debug);
    bridge.follow_level(10_999);
    assert_eq!((sink.asked.load(Ordering::SeqCst), bridge.sink_level()), (1, LevelFilter::Warn), "not due yet");
    bridge.follow_level(11_000);
    assert_eq!((sink.asked.load(Ordering::SeqCst), bridge.sink_level()), (2, LevelFilter::Debug), "due");
    bridge.follow_level(11_500);
    assert_eq!(sink.asked.load(Ordering::SeqCst), 2, "asked again only a second later");

    *sink.level.lock().expect("not poisoned") = None;
    bridge.follow_level(12_000);
    assert_eq!(
        (sink.asked.load(Ordering::SeqCst), bridge.sink_level()),
        (3, LevelFilter::Off),
        "the host wants nothing"
    );
}

#[test]
fn b41_threads_that_find_the_level_due_at_once_ask_once() {
    let sink = Arc::new(Asked::default());
    let bridge = Arc::new(Bridge::new());
    assert!(bridge.sink.set(Box::new(sink.clone())).is_ok());
    bridge.ask_sink_level(0);
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let bridge = bridge.clone();
            std::thread::spawn(move || bridge.follow_level(1_000))
        })
        .collect();
    for thread in threads {
        thread.join().expect("a following thread");
    }
    assert_eq!(sink.asked.load(Ordering::SeqCst), 2);
}

#[test]
fn b85_a_log_sites_fields_reach_the_record() {
    let sink = Recording::default();
    let bridge = bridge_with(sink.clone(), LevelFilter::Trace);
    bridge.log(
        &Record::builder()
            .level(Level::Debug)
            .target("sika")
            .module_path(Some("sika_core::transport"))
            .key_values(&[
                ("operation", log::kv::Value::from("verify_transaction")),
                ("reference", log::kv::Value::from("R-85")),
                ("http_status", log::kv::Value::from(503u16)),
                ("attempt", log::kv::Value::from(2u32)),
                ("duration_ms", log::kv::Value::from(12u64)),
                ("unknown", log::kv::Value::from("ignored")),
            ])
            .args(format_args!("GET /transaction/verify/R-85 -> HTTP 503 in 12 ms"))
            .build(),
    );
    let [record] = <[LogRecord; 1]>::try_from(sink.taken()).expect("one record");
    assert_eq!(
        (
            record.operation.as_deref(),
            record.reference.as_deref(),
            record.http_status,
            record.attempt,
            record.duration_ms
        ),
        (Some("verify_transaction"), Some("R-85"), Some(503), Some(2), Some(12))
    );
    assert_eq!(record.dropped, None);
}

#[test]
fn b64_a_log_records_message_is_cut_at_its_bound() {
    let sink = Recording::default();
    let bridge = bridge_with(sink.clone(), LevelFilter::Trace);
    let long = "x".repeat(10_000);
    emit(&bridge, Level::Warn, "sika", None, &long);
    let [record] = <[LogRecord; 1]>::try_from(sink.taken()).expect("one record");
    assert!(record.message.chars().count() <= crate::scrub::MAX_LOG_MESSAGE_CHARS + 40, "{}", record.message.len());
    assert!(record.message.ends_with("[cut: 10000 characters in all]"), "{}", &record.message[3_900..]);
}
