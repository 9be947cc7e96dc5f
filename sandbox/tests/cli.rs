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

/// A copy of `sika` alone in a fresh directory (no `sika-sandbox` beside it), and an empty
/// directory for PATH; both under the build's temporary directory, removed with the value.
struct LoneSika {
    root: std::path::PathBuf,
    sika: std::path::PathBuf,
    empty: std::path::PathBuf,
}

impl LoneSika {
    fn new(name: &str) -> Self {
        let root = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (alone, empty) = (root.join("alone"), root.join("empty"));
        std::fs::create_dir_all(&alone).expect("mkdir alone");
        std::fs::create_dir_all(&empty).expect("mkdir empty");
        // A hard link (the same file system), else a copy: the executable's own path is in
        // `alone`, so nothing is beside it (a symbolic link would resolve to target/debug).
        let sika = alone.join("sika");
        if std::fs::hard_link(SIKA, &sika).is_err() {
            std::fs::copy(SIKA, &sika).expect("copy sika");
        }
        Self { root, sika, empty }
    }
}

impl Drop for LoneSika {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// `sika sandbox` with no `sika-sandbox` beside it runs the one on PATH.
#[test]
fn b162_sika_sandbox_runs_the_sika_sandbox_on_path() {
    let lone = LoneSika::new("b162");
    let on_path = lone.root.join("on-path");
    std::fs::create_dir_all(&on_path).expect("mkdir on-path");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_sika-sandbox"), on_path.join("sika-sandbox")).expect("symlink");
    let path = std::env::join_paths([&lone.empty, &on_path]).expect("PATH");
    let mut child = std::process::Command::new(&lone.sika)
        .args(["sandbox", "--port", "0"])
        .env("SIKA_SECRET_KEY", KEY)
        .env("PATH", &path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the lone sika");
    let (first, _rest) = read_until(child.stdout.take().expect("stdout"), "listening on ");
    let url = first.lines().last().and_then(|line| line.strip_prefix("listening on ")).expect("url").to_owned();
    // It is a working sandbox: the key it was given is accepted.
    let providers = std::process::Command::new(&lone.sika)
        .args(["providers", "--country", "GH"])
        .env("SIKA_BASE_URL", &url)
        .env("SIKA_SECRET_KEY", KEY)
        .stdin(Stdio::null())
        .output()
        .expect("sika providers");
    assert_eq!(providers.status.code(), Some(0), "{}", text(&providers.stderr));
    assert!(text(&providers.stdout).starts_with("CODE"), "{}", text(&providers.stdout));
    let _ = child.kill();
    let _ = child.wait();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr).expect("stderr");
    assert!(!stderr.contains(KEY) && !text(&providers.stdout).contains(KEY));
}

/// `sika sandbox` with `sika-sandbox` neither beside it nor on PATH: exit 24 (docs/cli.md) and a
/// message that says where it looked and what to install; nothing on stdout, no key.
#[test]
fn b163_sika_sandbox_without_sika_sandbox_says_where_it_looked() {
    let lone = LoneSika::new("b163");
    let output = std::process::Command::new(&lone.sika)
        .args(["sandbox", "--port", "0"])
        .env("SIKA_SECRET_KEY", KEY)
        .env("PATH", &lone.empty)
        .stdin(Stdio::null())
        .output()
        .expect("run the lone sika");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(24), "{stderr}");
    assert_eq!(text(&output.stdout), "");
    let alone = lone.sika.parent().expect("dir").display().to_string();
    assert_eq!(
        stderr,
        format!(
            "sika: sika-sandbox was found neither beside sika ({alone}) nor on PATH: install the sandbox's \
             wheel (`pip install sika-sandbox`) or tarball, which ship both\n"
        )
    );
    assert!(!stderr.contains(KEY));
}
