//! The `sika` command (B86, B90, B92): every subcommand, its help and its exit codes as
//! snapshots (trycmd, tests/cli/*.trycmd|*.toml) against a sandbox started by `sika sandbox`;
//! the key from the environment or an owner-only file, never an argument or an output; a
//! wait that Ctrl-C stops at once.

mod cli_support;

use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

use cli_support::{CliSandbox, KEY, SIKA, read_until, signal, text, wait_with_limit};

#[test]
fn b86_every_subcommand_its_help_and_its_exit_codes() {
    let sandbox = CliSandbox::start(&[]);
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("sika", std::path::PathBuf::from(SIKA))
        .env("SIKA_BASE_URL", &sandbox.url)
        .env("SIKA_SECRET_KEY", KEY)
        .env("NO_COLOR", "1")
        .case("tests/cli/*.trycmd")
        .case("tests/cli/*.toml");
    // Run now, while the sandbox is up (a TestCases otherwise runs when dropped).
    cases.run();
}

#[test]
fn b90_the_key_is_read_from_an_owner_only_file_and_never_shown() {
    let sandbox = CliSandbox::start(&[]);
    let dir = std::env::temp_dir().join(format!("sika-cli-key-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("key");
    std::fs::write(&file, format!("{KEY}\n")).expect("write key file");
    let path = file.to_str().expect("utf-8 path");

    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let refused = sandbox.sika(&["verify", "PAID-1", "--key-file", path]).env_remove("SIKA_SECRET_KEY").output();
    let refused = refused.expect("run sika");
    assert_eq!(refused.status.code(), Some(23), "{}", text(&refused.stderr));
    assert!(text(&refused.stderr).contains("mode 0644"), "{}", text(&refused.stderr));
    assert!(refused.stdout.is_empty());

    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let used = sandbox.sika(&["verify", "PAID-1", "--key-file", path]).env_remove("SIKA_SECRET_KEY").output();
    let used = used.expect("run sika");
    assert_eq!(used.status.code(), Some(0), "{}", text(&used.stderr));
    assert!(text(&used.stdout).contains("successful"));
    let _ = std::fs::remove_dir_all(&dir);

    // No flag takes the key itself.
    let flag = sandbox.run(&["verify", "PAID-1", "--secret-key", "sk_test_canary_argument"]);
    assert_eq!(flag.status.code(), Some(2));
    assert!(!text(&flag.stderr).contains("sk_test_canary_argument"), "{}", text(&flag.stderr));
}

/// The sandbox `sika sandbox` runs gets the key through its environment: its command line
/// (readable by every local user in /proc) does not hold it.
#[test]
fn b90_sika_sandbox_passes_the_key_outside_the_command_line() {
    let sandbox = CliSandbox::start(&[]);
    let parent = sandbox.child.id().to_string();
    let mut children = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc") {
        let Ok(entry) = entry else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // `pid (comm) state ppid ...`; comm may hold spaces, so split after the last ')'.
        let fields: Vec<&str> =
            stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
        if fields.get(1) == Some(&parent.as_str()) {
            children.push(std::fs::read(entry.path().join("cmdline")).unwrap_or_default());
        }
    }
    assert_eq!(children.len(), 1, "one sika-sandbox under sika sandbox");
    let cmdline = text(&children[0]).replace('\0', " ");
    assert!(cmdline.contains("sika-sandbox") && cmdline.contains("--port"), "{cmdline}");
    assert!(!cmdline.contains(KEY), "the key is on the sandbox's command line");
}

#[test]
fn b92_ctrl_c_stops_a_wait_at_once() {
    let sandbox = CliSandbox::start(&[]);
    let mut child = sandbox
        .sika(&["await", "PENDING-1", "--initial-delay-ms", "0", "--interval-ms", "100", "--timeout-ms", "60000"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sika await");
    // Not a terminal: one plain line says what it waits for.
    let (seen, _rest) = read_until(child.stderr.take().expect("stderr"), "waiting for PENDING-1");
    assert!(seen.contains("up to 60 s"), "{seen}");
    std::thread::sleep(Duration::from_millis(200));
    let asked = Instant::now();
    signal(&child, "INT");
    let status = wait_with_limit(&mut child, Duration::from_secs(5));
    assert_eq!(status.code(), Some(130));
    // Generous for a loaded 2-core machine; a wait that ignored Ctrl-C would run 60 s.
    assert!(asked.elapsed() < Duration::from_secs(3), "took {:?}", asked.elapsed());
}

/// A reader that closes the pipe early (`sika providers | head -1`, `grep -q`) ends the command
/// quietly with 141 (as a shell reports SIGPIPE): no panic, nothing on stderr. Its stdout is a
/// socket whose peer is closed before the command starts, so its first write meets EPIPE.
#[test]
fn b150_a_closed_stdout_ends_the_command_quietly() {
    let sandbox = CliSandbox::start(&[]);
    for args in [&["providers"][..], &["verify", "PAID-1", "--json"], &["completions", "bash"]] {
        let (reader, writer) = std::os::unix::net::UnixStream::pair().expect("socket pair");
        drop(reader);
        let writer = Stdio::from(std::os::fd::OwnedFd::from(writer));
        let output = sandbox.sika(args).stdin(Stdio::null()).stdout(writer).stderr(Stdio::piped()).output();
        let output = output.expect("run sika");
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(141), "sika {args:?}: {stderr}");
        assert!(stderr.is_empty(), "sika {args:?} wrote to stderr: {stderr}");
    }
}
