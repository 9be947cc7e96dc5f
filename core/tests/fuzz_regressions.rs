//! Fuzz regressions: every input in `tests/fixtures/fuzz/` (the crashes `scripts/fuzz` saves
//! there as `TARGET-HASH`, and hand-written seeds) is replayed through its fuzz target, with no
//! panic allowed — so a crash found once stays a test.
//!
//! The targets are not copied: their own files (`core/fuzz/fuzz_targets/*.rs`) are compiled in
//! here as modules, with a stand-in for libfuzzer-sys's `fuzz_target!` that turns each target's
//! body into a plain `run(data)`, so the replay calls the very code and assertions the fuzzer
//! runs. `core/fuzz/src/lib.rs` (their helpers) is compiled in the same way.

// The targets name their crates `libfuzzer_sys` and `sika_fuzz`: both resolve to this test crate.
extern crate self as libfuzzer_sys;
extern crate self as sika_fuzz;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use sika_core::TransactionStatus;

#[path = "../fuzz/src/lib.rs"]
mod fuzz_helpers;
pub use fuzz_helpers::{contains, exact_value, is_international_phone, status_and_body};

// Each target file starts with `#![no_main]`, meant for its own crate root.
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/amount.rs"]
mod amount;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/decode_banks.rs"]
mod decode_banks;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/decode_charge.rs"]
mod decode_charge;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/decode_envelope_providers.rs"]
mod decode_envelope_providers;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/decode_transaction.rs"]
mod decode_transaction;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/phone.rs"]
mod phone;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/records_json.rs"]
mod records_json;
#[allow(unused_attributes)]
#[path = "../fuzz/fuzz_targets/webhook.rs"]
mod webhook;

/// A fuzz target: its name (as `scripts/fuzz` gives it: its file name) and its body.
type Target = (&'static str, fn(&[u8]));

/// Every fuzz target.
const TARGETS: [Target; 8] = [
    ("amount", amount::run),
    ("decode_banks", decode_banks::run),
    ("decode_charge", decode_charge::run),
    ("decode_envelope_providers", decode_envelope_providers::run),
    ("decode_transaction", decode_transaction::run),
    ("phone", phone::run),
    ("records_json", records_json::run),
    ("webhook", webhook::run),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The saved inputs: every file of tests/fixtures/fuzz but its README, sorted by name.
fn inputs() -> Vec<PathBuf> {
    let dir = root().join("tests/fixtures/fuzz");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.is_file() && path.file_name().is_some_and(|name| name != "README.md"))
        .collect();
    files.sort();
    files
}

fn target_of(path: &Path) -> &str {
    let name = path.file_name().and_then(|name| name.to_str()).expect("a UTF-8 file name");
    name.split('-').next().unwrap_or_default()
}

/// Runs each input through its target; one line per input that names no target or panics.
fn replay(inputs: &[PathBuf], targets: &[Target]) -> Vec<String> {
    let mut failures = Vec::new();
    for path in inputs {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let Some((_, run)) = targets.iter().find(|(target, _)| *target == target_of(path)) else {
            let known: Vec<_> = targets.iter().map(|(target, _)| *target).collect();
            failures.push(format!("{name}: names no fuzz target (known: {known:?})"));
            continue;
        };
        let data = std::fs::read(path).expect("readable input");
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| run(&data))) {
            let message = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            failures.push(format!("{name}: {message}"));
        }
    }
    failures
}

#[test]
fn b177_every_saved_fuzz_input_replays_without_a_panic() {
    let inputs = inputs();
    assert!(!inputs.is_empty(), "tests/fixtures/fuzz holds no input (its seeds were lost)");
    let failures = replay(&inputs, &TARGETS);
    assert!(failures.is_empty(), "{} of {} fuzz inputs fail:\n{}", failures.len(), inputs.len(), failures.join("\n"));
}

/// The replay itself can fail: a target that panics, or an input naming no target, is reported.
#[test]
fn b177_the_replay_reports_panics_and_unknown_targets() {
    let inputs = inputs();
    let panicking: [Target; 1] = [("decode_transaction", |_| {
        panic!("a planted panic (expected by the_replay_reports_panics_and_unknown_targets)")
    })];
    let failures = replay(&inputs, &panicking);
    assert_eq!(failures.len(), inputs.len(), "{failures:#?}");
    let planted = failures.iter().filter(|f| f.contains("a planted panic")).count();
    assert_eq!(planted, inputs.iter().filter(|p| target_of(p) == "decode_transaction").count());
    assert!(
        planted > 0 && failures.iter().all(|f| f.contains("a planted panic") || f.contains("names no fuzz target"))
    );
}

#[test]
fn b177_the_replay_knows_every_fuzz_target() {
    let dir = root().join("core/fuzz/fuzz_targets");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.strip_suffix(".rs").map(str::to_owned))
        .collect();
    on_disk.sort();
    assert_eq!(on_disk, TARGETS.map(|(target, _)| target), "add a new target to TARGETS (and a `mod` for it)");
}

fn decoded_status(seed: &str) -> Result<TransactionStatus, String> {
    let data = std::fs::read(root().join("tests/fixtures/fuzz").join(seed)).expect("seed");
    let (status, body) = status_and_body(&data);
    sika_core::decode::transaction_response(status, body).map(|t| t.status).map_err(|e| format!("{e:?}"))
}

#[test]
fn b177_the_seeds_decode_as_json_reads_them() {
    // `"successfu\u006c"` is the JSON string "successful": paid.
    assert_eq!(decoded_status("decode_transaction-seed-escaped-successful"), Ok(TransactionStatus::Successful));
    // `"succes\u0073"` is "success", the documented mistake: not paid.
    assert_eq!(
        decoded_status("decode_transaction-seed-escaped-success-word"),
        Ok(TransactionStatus::Unknown { value: "success".into() })
    );
    // `status` twice, once spelt with an escape: a duplicate all the same, never paid.
    let duplicate = decoded_status("decode_transaction-seed-escaped-duplicate-status");
    assert!(duplicate.as_ref().is_err_and(|e| e.starts_with("UnexpectedResponse")), "{duplicate:?}");
}

// Defined last, so the targets reach it by its path (`libfuzzer_sys::fuzz_target`), as they
// import it, and not by textual scope.
/// libfuzzer-sys's `fuzz_target!(|data: &[u8]| { ... })`, as the plain function `run(data)`.
#[macro_export]
macro_rules! fuzz_target {
    (|$data:ident: &[u8]| $body:block) => {
        pub fn run($data: &[u8]) $body
    };
}
