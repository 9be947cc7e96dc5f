//! B62: where the sandbox takes its secret key from. The environment variable
//! `SIKA_SANDBOX_SECRET_KEY` and an owner-only `--secret-key-file` keep the key off the command
//! line, which every local user can read (`ps`, `/proc/PID/cmdline`); `--secret-key` still works.

mod support;

use std::process::{Command, Stdio};

use support::*;

fn sandbox_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sika-sandbox"));
    command.env_remove("SIKA_SANDBOX_SECRET_KEY").args(["--port", "0", "--exit-on-stdin-eof"]);
    command
}

/// Whether the key opens the API (a provider list is 200 with it, 401 without).
async fn accepts_the_key(sandbox: &Sandbox) -> bool {
    sandbox.get("/mobile-money-providers?country=GH").await.status == 200
}

fn key_file(name: &str, mode: u32) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    std::fs::write(&path, format!("{KEY}\n")).expect("write the key file");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod the key file");
    path
}

#[tokio::test]
async fn b62_the_key_comes_from_the_environment_and_stays_off_the_command_line() {
    let mut command = sandbox_command();
    command.env("SIKA_SANDBOX_SECRET_KEY", KEY);
    let sandbox = Sandbox::spawn(command);
    assert!(accepts_the_key(&sandbox).await);
    let command_line = std::fs::read(format!("/proc/{}/cmdline", sandbox.child.id())).expect("read the command line");
    assert!(!command_line.windows(KEY.len()).any(|window| window == KEY.as_bytes()), "the key is on the command line");
}

#[tokio::test]
async fn b62_an_owner_only_key_file_is_read() {
    let path = key_file("owner-only-key", 0o600);
    let mut command = sandbox_command();
    command.arg("--secret-key-file").arg(&path);
    let sandbox = Sandbox::spawn(command);
    assert!(accepts_the_key(&sandbox).await);
    let _ = std::fs::remove_file(path);
}

#[test]
fn b62_a_key_file_others_can_read_is_refused() {
    let path = key_file("shared-key", 0o644);
    let output =
        sandbox_command().arg("--secret-key-file").arg(&path).stdin(Stdio::null()).output().expect("run sika-sandbox");
    let _ = std::fs::remove_file(path);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "nothing may be announced");
    assert!(String::from_utf8_lossy(&output.stderr).contains("mode 0644"), "the reason names the mode");
}

#[test]
fn b62_no_key_from_any_source_is_refused() {
    let output = sandbox_command().stdin(Stdio::null()).output().expect("run sika-sandbox");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("SIKA_SANDBOX_SECRET_KEY"));
}

#[tokio::test]
async fn b62_the_command_line_flag_still_works() {
    let mut command = sandbox_command();
    command.args(["--secret-key", KEY]);
    let sandbox = Sandbox::spawn(command);
    assert!(accepts_the_key(&sandbox).await);
}
