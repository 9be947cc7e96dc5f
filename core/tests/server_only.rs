//! B57: sika-core refuses to build for a mobile app or a browser (ADR 0027). Only the host's
//! target is installed here, so each test compiles the guard's own file (`src/server_only.rs`,
//! the one the crate includes) alone with `rustc`, a forbidden target's cfg forced by `--cfg`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Every cfg the guard must refuse, as `--cfg` spells it.
const APP_TARGETS: [&str; 6] = [
    r#"target_os="android""#,
    r#"target_os="ios""#,
    r#"target_os="tvos""#,
    r#"target_os="watchos""#,
    r#"target_os="visionos""#,
    r#"target_family="wasm""#,
];

fn guard_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/server_only.rs")
}

/// Compiles the guard alone (metadata only: cheap), with `forced` cfgs added to the host's.
fn compile_guard(forced: &[&str]) -> Output {
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("server_only");
    std::fs::create_dir_all(&out_dir).expect("out dir");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut command = Command::new(rustc);
    command.args(["--edition", "2024", "--crate-type", "lib", "--crate-name", "server_only", "--emit=metadata"]);
    // A built-in cfg set by hand is denied by default; here it stands in for the real target.
    command.args(["-A", "explicit-builtin-cfgs-in-flags", "--out-dir"]).arg(&out_dir);
    for cfg in forced {
        command.args(["--cfg", cfg]);
    }
    command.arg(guard_file()).output().expect("rustc runs")
}

#[test]
fn b57_the_guard_builds_for_a_server() {
    let output = compile_guard(&[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn b57_every_app_and_browser_target_fails_to_build_saying_why() {
    for target in APP_TARGETS {
        let output = compile_guard(&[target]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{target} built");
        assert!(stderr.contains("sika-core is server-only"), "{target}: {stderr}");
        assert!(stderr.contains("anyone can unpack"), "{target}: {stderr}");
        assert!(stderr.contains(r#"section "Where Sika runs""#), "{target}: {stderr}");
    }
}

#[test]
fn b57_the_crate_includes_the_guard() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).expect("lib.rs");
    assert!(lib.lines().any(|line| line.trim() == "mod server_only;"), "lib.rs no longer includes the guard");
}
