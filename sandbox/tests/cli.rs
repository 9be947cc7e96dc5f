//! The `sika` command (B86, B90, B92): every subcommand, its help and its exit codes as
//! snapshots (trycmd, tests/cli/*.trycmd|*.toml) against a sandbox started by `sika sandbox`;
//! the key from the environment or an owner-only file, never an argument or an output; a
//! wait that Ctrl-C stops at once.

mod cli_support;

use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

use cli_support::{CliSandbox, KEY, SIKA, control, output_within, read_until, signal, text, wait_with_limit};

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

/// No key anywhere: exit 23, saying how to give one, with nothing sent and nothing on stdout.
/// (These were trycmd cases whose own environment the suite's `SIKA_SECRET_KEY` overrode, so
/// they ran with the good key and snapshotted a success: tests of nothing.)
#[test]
fn b86_no_key_anywhere_exits_23_saying_how_to_give_one() {
    let sandbox = CliSandbox::start(&[]);
    let output = sandbox.sika(&["banks"]).env_remove("SIKA_SECRET_KEY").output().expect("run sika");
    assert_eq!(output.status.code(), Some(23), "{}", text(&output.stderr));
    assert_eq!(text(&output.stderr), "sika: no secret key: set SIKA_SECRET_KEY or pass --key-file FILE (mode 0600)\n");
    assert!(output.stdout.is_empty(), "{}", text(&output.stdout));
}

/// A wrong key: exit 10 (the service's `Unauthorized`), and neither the wrong key nor the
/// sandbox's own is printed.
#[test]
fn b86_a_wrong_key_exits_10_and_prints_neither_key() {
    let sandbox = CliSandbox::start(&[]);
    let wrong = "sk_test_canary_wrong_key_0000";
    let output = sandbox.sika(&["providers"]).env("SIKA_SECRET_KEY", wrong).output().expect("run sika");
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(10), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    for key in [wrong, KEY] {
        assert!(!stdout.contains(key) && !stderr.contains(key), "a key was printed: {stderr}");
    }
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

/// A directory of its own under the build's temporary directory, owner-only, removed when dropped.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("mkdir");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        Self(path)
    }

    /// An owner-only file holding `bytes`.
    fn file(&self, name: &str, bytes: &[u8]) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        path.to_str().expect("utf-8 path").to_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `--key-file` reads a regular file of at most 4 KiB only: a FIFO is refused at once (it used
/// to wait forever for a writer), a directory and a device are refused as such, and a larger
/// file is refused without being read whole (a 512 MiB one was read and sent as the header);
/// each with exit 23 and nothing on stdout. A file of exactly 4096 bytes is read.
#[test]
fn b240_a_key_file_is_a_regular_file_of_at_most_4_kib() {
    let sandbox = CliSandbox::start(&[]);
    let dir = TempDir::new("b240");
    let fifo = dir.0.join("fifo");
    let made = std::process::Command::new("mkfifo").args(["-m", "600"]).arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let sub = dir.0.join("dir");
    std::fs::create_dir(&sub).expect("mkdir");
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let big = dir.file("big", &vec![b'k'; 1 << 20]);
    let cases = [
        (fifo.to_str().expect("path").to_owned(), "is a FIFO (named pipe), not a regular file"),
        (sub.to_str().expect("path").to_owned(), "is a directory, not a regular file"),
        ("/dev/null".to_owned(), "is a device, not a regular file"),
        (big, "is longer than 4096 bytes"),
    ];
    for (path, says) in &cases {
        let mut command = sandbox.sika(&["verify", "PAID-1", "--key-file", path]);
        command.env_remove("SIKA_SECRET_KEY");
        let output = output_within(&mut command, Duration::from_secs(5));
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(23), "{path}: {stderr}");
        assert!(stderr.contains(says), "{path}: {stderr}");
        assert!(output.stdout.is_empty(), "{path}");
    }
    // The bound is the file's, newline included: 4095 bytes of key and a newline are read (and
    // sent: the sandbox refuses that key, exit 10, not 23).
    let mut at_bound = vec![b'k'; 4095];
    at_bound.push(b'\n');
    let at_bound = dir.file("at-bound", &at_bound);
    let mut command = sandbox.sika(&["verify", "PAID-1", "--key-file", &at_bound]);
    command.env_remove("SIKA_SECRET_KEY");
    let output = output_within(&mut command, Duration::from_secs(10));
    assert_eq!(output.status.code(), Some(10), "{}", text(&output.stderr));
}

/// Control characters and escape sequences in what the service, the sandbox or an argument
/// says are printed escaped, as error texts are (the SDK's `escape_controls`): a bank's name
/// (`banks`, table and `--json`), a transaction's status, currency and gateway ref (`verify`),
/// a path in an error message, and the reference in `trigger`'s table.
#[test]
fn b242_outside_text_is_printed_with_its_control_characters_escaped() {
    let sandbox = CliSandbox::start(&["--webhook-url", "http://127.0.0.1:9/", "--webhook-retry-ms", ""]);
    let raw = |output: &std::process::Output| {
        let all = [&output.stdout[..], &output.stderr[..]].concat();
        let all = text(&all);
        assert!(!all.contains(['\u{1b}', '\u{9b}', '\u{7}']), "a control character printed raw: {all:?}");
        all
    };

    // A bank list whose name carries a screen clear and a C1 CSI.
    let (status, banks) = control(&sandbox.url, "GET", "/bank?country=GH", "");
    assert_eq!(status, 200, "{banks}");
    let mut envelope: serde_json::Value = serde_json::from_str(&banks).expect("JSON");
    envelope["data"][0]["name"] = "Evil\u{1b}[2J\u{9b}31mBank".into();
    let fault = serde_json::json!({ "path": "/bank", "kind": "body", "count": 2, "body": envelope.to_string() });
    assert_eq!(control(&sandbox.url, "POST", "/__sandbox/faults", &fault.to_string()).0, 201);
    let table = sandbox.run(&["banks", "--country", "GH"]);
    assert_eq!(table.status.code(), Some(0), "{}", text(&table.stderr));
    assert!(raw(&table).contains("Evil\\u{001b}[2J\\u{009b}31mBank"), "{}", text(&table.stdout));
    let json = sandbox.run(&["banks", "--country", "GH", "--json"]);
    assert!(raw(&json).contains(r"Evil\u001b[2J\u009b31mBank"), "{}", text(&json.stdout));
    let parsed: serde_json::Value = serde_json::from_slice(&json.stdout).expect("still JSON");
    assert_eq!(parsed[0]["name"], "Evil\u{1b}[2J\u{9b}31mBank", "the same data");

    // A transaction whose texts carry a terminal title change and colours.
    let seeded = serde_json::json!({
        "tx_ref": "ESC-1", "amount": 1.00, "currency": "G\u{1b}[31mHS", "status": "paid\u{1b}]0;owned\u{7}",
        "payment_type": "mobile_money", "gw_ref": "GW\u{9b}2J",
    });
    assert_eq!(control(&sandbox.url, "POST", "/__sandbox/transactions", &seeded.to_string()).0, 201);
    let verify = sandbox.run(&["verify", "ESC-1"]);
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));
    let shown = raw(&verify);
    for escaped in ["paid\\u{001b}]0;owned\\u{0007}", "G\\u{001b}[31mHS", "GW\\u{009b}2J"] {
        assert!(shown.contains(escaped), "{escaped}: {shown}");
    }
    assert!(raw(&sandbox.run(&["verify", "ESC-1", "--json"])).contains(r"GW\u009b2J"));
    assert_eq!(sandbox.run(&["confirm", "ESC-1", "--amount", "1", "--currency", "GHS"]).status.code(), Some(1));

    // An argument echoed in an error.
    let error = sandbox.run(&["verify", "PAID-1", "--key-file", "/nonexistent/\u{1b}[2Jkey"]);
    assert_eq!(error.status.code(), Some(23));
    assert!(raw(&error).contains("--key-file /nonexistent/\\u{001b}[2Jkey"), "{}", text(&error.stderr));

    // The sandbox's answers in trigger's table (its delivery fails: nothing listens on port 9).
    let trigger = sandbox.run(&["trigger", "charge.success", "--reference", "ESC-1"]);
    assert_eq!(trigger.status.code(), Some(24), "{}", text(&trigger.stderr));
    assert!(raw(&trigger).contains("charge.success  ESC-1"), "{}", text(&trigger.stdout));
}

/// `await` with `--amount` and `--currency` decides as `confirm` does (an underpaid or
/// wrong-currency payment exits 4, not 0), checks them before it waits, and says "not yet" at
/// its deadline; a reference the service does not know ends with 13 (at its deadline, or once
/// its grace is over), never "still pending" and 3.
#[test]
fn b244_await_decides_as_confirm_and_ends_not_found_with_13() {
    let sandbox = CliSandbox::start(&[]);
    let wait = |args: &[&str]| {
        let mut all = vec!["await", "--initial-delay-ms", "0", "--interval-ms", "50"];
        all.extend_from_slice(args);
        output_within(&mut sandbox.sika(&all), Duration::from_secs(15))
    };
    let cases: [(&[&str], i32, &str); 6] = [
        (&["PAID-1", "--amount", "25.00", "--currency", "GHS"], 4, "mismatch: amount is 25.50, the order says 25.00"),
        (&["PAID-1", "--amount", "25.50", "--currency", "KES"], 4, "mismatch: currency is GHS, the order says KES"),
        (&["PAID-1", "--amount", "25.5", "--currency", "ghs"], 0, "PAID-1: confirmed: paid in full, ship the order"),
        (&["FAILED-1", "--amount", "25.50", "--currency", "GHS"], 1, "not paid: the transaction is failed"),
        (&["REVERSED-1", "--amount", "100.10", "--currency", "KES"], 1, "not paid: the transaction is reversed"),
        (
            &["PENDING-1", "--amount", "25.50", "--currency", "GHS", "--timeout-ms", "300"],
            3,
            "PENDING-1: not yet: still pending",
        ),
    ];
    for (args, code, says) in cases {
        let output = wait(args);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {}", text(&output.stderr));
        assert!(text(&output.stdout).contains(says), "{args:?}: {}", text(&output.stdout));
    }
    // Without an expected payment a successful status is 0 whatever the amount: "final".
    assert_eq!(wait(&["PAID-1"]).status.code(), Some(0));
    let json = wait(&["PAID-1", "--amount", "25.50", "--currency", "KES", "--json"]);
    let document: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!((document["outcome"].as_str(), document["field"].as_str()), (Some("mismatch"), Some("currency")));

    // The expectation is checked before the wait (whose first check would be 3 s away).
    let started = Instant::now();
    let bad = output_within(
        &mut sandbox.sika(&["await", "PAID-1", "--amount", "25.50", "--currency", "CEDI"]),
        Duration::from_secs(10),
    );
    assert_eq!(bad.status.code(), Some(15), "{}", text(&bad.stderr));
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert_eq!(wait(&["PAID-1", "--amount", "25.50"]).status.code(), Some(2), "--amount needs --currency");

    // Not found: at the deadline (within the grace), and once the grace is over.
    for args in [&["NOPE-1", "--timeout-ms", "300"][..], &["NOPE-1", "--not-found-grace-ms", "0"]] {
        let output = wait(args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(13), "{args:?}: {stderr}");
        assert!(stderr.contains("transaction not found") && !stderr.contains("still pending"), "{stderr}");
    }
}

/// The completion scripts offered (bash, zsh, fish) work in their shells: bash completes
/// `sika ver` to `verify` through the script's function, fish through `complete -C`, and zsh
/// reads the script without an error. PowerShell and Elvish, whose scripts no test runs, are
/// not offered (a usage error naming the shells that are).
#[test]
fn b245_the_offered_completions_work_in_their_shells() {
    let script = |shell: &str| {
        let output = std::process::Command::new(SIKA).args(["completions", shell]).output().expect("sika completions");
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
        let path = dir.join(format!("b245-{}.{shell}", std::process::id()));
        std::fs::write(&path, &output.stdout).expect("write script");
        path
    };
    let run = |program: &str, args: &[&str]| {
        let output = std::process::Command::new(program).args(args).stdin(Stdio::null()).output();
        let output = output.unwrap_or_else(|err| panic!("{program} (scripts/setup installs it): {err}"));
        assert!(output.status.success(), "{program}: {}", text(&output.stderr));
        text(&output.stdout)
    };

    let bash = script("bash");
    let completed = run(
        "bash",
        &[
            "-c",
            &format!(
                "source {}; COMP_WORDS=(sika ver); COMP_CWORD=1; COMP_LINE='sika ver'; COMP_POINT=8; _sika sika ver sika; \
                 printf '%s\\n' \"${{COMPREPLY[@]}}\"",
                bash.display()
            ),
        ],
    );
    assert_eq!(completed.trim(), "verify", "{completed}");

    let fish = script("fish");
    let completed = run("fish", &["--no-config", "-c", &format!("source {}; complete -C 'sika ver'", fish.display())]);
    assert!(completed.starts_with("verify\t"), "{completed}");

    let zsh = script("zsh");
    run("zsh", &["-n", zsh.to_str().expect("path")]);
    let defined = run(
        "zsh",
        &["-f", "-c", &format!("autoload -U compinit && compinit -u -D; source {}; whence -w _sika", zsh.display())],
    );
    assert!(defined.contains("_sika: function"), "{defined}");

    for shell in ["powershell", "elvish"] {
        let refused = std::process::Command::new(SIKA).args(["completions", shell]).output().expect("sika");
        assert_eq!(refused.status.code(), Some(2), "{shell}");
        assert!(text(&refused.stderr).contains("[possible values: bash, zsh, fish]"), "{}", text(&refused.stderr));
    }
    for path in [bash, fish, zsh] {
        let _ = std::fs::remove_file(path);
    }
}

/// `--timeout-ms` bounds every command that calls the service: against a service that never
/// answers, `providers`, `banks`, `verify`, `confirm` and `await` end with 18 (Timeout) within
/// their limit, where they took the SDK's 20 s (`await`: its wait, and one last check).
#[test]
fn b246_timeout_ms_bounds_every_service_command() {
    let sandbox = CliSandbox::start(&[]);
    for path in ["/mobile-money-providers", "/bank", "/transaction/verify/"] {
        let fault = serde_json::json!({ "path": path, "kind": "hang", "count": 100 });
        assert_eq!(control(&sandbox.url, "POST", "/__sandbox/faults", &fault.to_string()).0, 201);
    }
    let commands: [&[&str]; 5] = [
        &["providers"],
        &["banks"],
        &["verify", "PAID-1"],
        &["confirm", "PAID-1", "--amount", "25.50", "--currency", "GHS"],
        &["await", "PAID-1", "--initial-delay-ms", "0"],
    ];
    for args in commands {
        let mut all = args.to_vec();
        all.extend(["--timeout-ms", "500"]);
        let started = Instant::now();
        let output = output_within(&mut sandbox.sika(&all), Duration::from_secs(10));
        assert_eq!(output.status.code(), Some(18), "{args:?}: {}", text(&output.stderr));
        assert!(text(&output.stderr).contains("timed out"), "{args:?}: {}", text(&output.stderr));
        // `await`: the wait's 500 ms and its last check's 500 ms, on a loaded machine.
        assert!(started.elapsed() < Duration::from_secs(4), "{args:?} took {:?}", started.elapsed());
    }
    let out_of_range = sandbox.run(&["verify", "PAID-1", "--timeout-ms", "0"]);
    assert_eq!(out_of_range.status.code(), Some(2));
}

/// With `--json` an error is a JSON object on stdout too, `{"error": {"kind", "message",
/// "exit_code", "request_id"}}`, with the command's exit code: the SDK's errors, the command's
/// own (no key, the sandbox's refusal) and usage errors; nothing on stderr.
#[test]
fn b247_with_json_errors_are_json() {
    let sandbox = CliSandbox::start(&[]);
    let cases: [(&[&str], i32, &str, &str); 6] = [
        (&["verify", "NOPE-1", "--json"], 13, "TransactionNotFound", "transaction not found"),
        (
            &["confirm", "PAID-1", "--amount", "abc", "--currency", "GHS", "--json"],
            15,
            "InvalidInput",
            "invalid amount",
        ),
        (&["--json", "verify", "PAID-1", "--key-file", "/nonexistent/key"], 23, "Configuration", "--key-file"),
        (&["trigger", "charge.success", "--reference", "T-1", "--json"], 24, "Sandbox", "no webhook receiver"),
        (&["verify", "--json"], 2, "Usage", "the following required arguments were not provided"),
        (&["--json", "verify", "PAID-1", "--bogus"], 2, "Usage", "unexpected argument '--bogus'"),
    ];
    for (args, code, kind, says) in cases {
        let output = sandbox.run(args);
        assert_eq!(output.status.code(), Some(code), "{args:?}");
        assert_eq!(text(&output.stderr), "", "{args:?}");
        let document: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|err| panic!("{args:?}: not JSON ({err}): {}", text(&output.stdout)));
        let error = &document["error"];
        assert_eq!(error["kind"], kind, "{document}");
        assert_eq!(error["exit_code"], code, "{document}");
        assert!(error["message"].as_str().is_some_and(|m| m.contains(says)), "{document}");
    }
    let not_found = sandbox.run(&["verify", "NOPE-1", "--json"]);
    let document: serde_json::Value = serde_json::from_slice(&not_found.stdout).expect("JSON");
    assert!(document["error"]["request_id"].as_str().is_some_and(|id| id.starts_with("req_")), "{document}");
    // Help is help, with or without --json.
    let help = sandbox.run(&["verify", "--help", "--json"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(text(&help.stdout).starts_with("Show a transaction"));
}

/// A receiver for the sandbox's deliveries that answers every POST 200 (a plain socket).
fn receiver() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                use std::io::{Read, Write};
                let mut request = Vec::new();
                let mut buffer = [0u8; 4096];
                while let Ok(read @ 1..) = stream.read(&mut buffer) {
                    request.extend_from_slice(&buffer[..read]);
                    if request.windows(4).any(|w| w == b"\r\n\r\n") && request.ends_with(b"}}") {
                        break;
                    }
                }
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
            });
        }
    });
    format!("http://{address}/hook")
}

/// `trigger` delivers for the transaction as it is: a seeded one keeps its amount, currency,
/// status and every other field (it used to be replaced by trigger's 10.00 defaults, so that
/// `confirm` reported a mismatch that was not real), also when the delivery fails or there is
/// no receiver; only a reference the sandbox does not have gets a transaction from the flags.
#[test]
fn b248_trigger_delivers_for_the_transaction_as_it_is() {
    let before_of = |sandbox: &CliSandbox| text(&sandbox.run(&["verify", "PAID-1", "--json"]).stdout);
    let paid = |sandbox: &CliSandbox| sandbox.run(&["confirm", "PAID-1", "--amount", "25.50", "--currency", "GHS"]);

    // No receiver: refused, and nothing stored or changed.
    let sandbox = CliSandbox::start(&["--webhook-retry-ms", ""]);
    let before = before_of(&sandbox);
    let refused = sandbox.run(&["trigger", "charge.success", "--reference", "PAID-1"]);
    assert_eq!(refused.status.code(), Some(24), "{}", text(&refused.stderr));
    assert_eq!(before_of(&sandbox), before);
    assert_eq!(paid(&sandbox).status.code(), Some(0), "{}", text(&paid(&sandbox).stdout));
    let new = sandbox.run(&["trigger", "charge.success", "--reference", "NEW-0"]);
    assert_eq!(new.status.code(), Some(24));
    assert_eq!(sandbox.run(&["verify", "NEW-0"]).status.code(), Some(13), "nothing stored without a receiver");
    drop(sandbox);

    // A delivery that fails (nothing listens on port 9).
    let sandbox = CliSandbox::start(&["--webhook-url", "http://127.0.0.1:9/", "--webhook-retry-ms", ""]);
    let failed = sandbox.run(&["trigger", "charge.success", "--reference", "PAID-1", "--amount", "10.00"]);
    assert_eq!(failed.status.code(), Some(24), "{}", text(&failed.stderr));
    assert!(
        text(&failed.stderr).contains("delivering for it as it is (--amount only shape"),
        "{}",
        text(&failed.stderr)
    );
    assert_eq!(before_of(&sandbox), before);
    assert_eq!(paid(&sandbox).status.code(), Some(0));
    drop(sandbox);

    // A delivery that succeeds; a new reference is made from the flags.
    let sandbox = CliSandbox::start(&["--webhook-url", &receiver(), "--webhook-retry-ms", ""]);
    let delivered = sandbox.run(&["trigger", "charge.success", "--reference", "PENDING-1", "--times", "2"]);
    assert_eq!(delivered.status.code(), Some(0), "{}{}", text(&delivered.stdout), text(&delivered.stderr));
    let pending = sandbox.run(&["confirm", "PENDING-1", "--amount", "25.50", "--currency", "GHS"]);
    assert_eq!(pending.status.code(), Some(3), "still pending: {}", text(&pending.stdout));
    let created =
        sandbox.run(&["trigger", "charge.success", "--reference", "NEW-1", "--amount", "7.25", "--currency", "KES"]);
    assert_eq!(created.status.code(), Some(0), "{}", text(&created.stderr));
    assert_eq!(text(&created.stderr), "");
    let confirmed = sandbox.run(&["confirm", "NEW-1", "--amount", "7.25", "--currency", "KES"]);
    assert_eq!(confirmed.status.code(), Some(0), "{}", text(&confirmed.stdout));
}

/// Every exit code the command can end with has a row in docs/cli.md's table (SIGTERM's 143
/// was missing), and `await` stopped by SIGTERM cancels its wait and exits 143 itself.
#[test]
fn b249_every_exit_code_is_documented_and_sigterm_is_143() {
    let source = include_str!("../cli/exit.rs");
    let mut codes: Vec<u32> = Vec::new();
    for line in source.lines() {
        let line = line.trim();
        let value = if line.starts_with("pub const ") && line.contains(": u8 = ") {
            line.rsplit(' ').next().map(|v| v.trim_end_matches(';'))
        } else if line.starts_with("SikaError::") && line.contains("=> ") {
            line.rsplit("=> ").next().map(|v| v.trim_end_matches(','))
        } else {
            None
        };
        if let Some(code) = value.and_then(|v| v.parse().ok()) {
            codes.push(code);
        }
    }
    codes.extend([23, 24]); // Failure::setup and Failure::sandbox
    assert!(codes.len() > 20, "{codes:?}");
    let docs = include_str!("../../docs/cli.md");
    let table = docs.split("## Exit codes").nth(1).expect("an exit code section");
    for code in codes {
        assert!(table.contains(&format!("\n| {code} |")), "exit code {code} is not in docs/cli.md");
    }

    let sandbox = CliSandbox::start(&[]);
    let mut child = sandbox
        .sika(&["await", "PENDING-1", "--initial-delay-ms", "0", "--interval-ms", "100", "--timeout-ms", "60000"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sika await");
    let (_seen, _rest) = read_until(child.stderr.take().expect("stderr"), "waiting for PENDING-1");
    std::thread::sleep(Duration::from_millis(200));
    let asked = Instant::now();
    signal(&child, "TERM");
    let status = wait_with_limit(&mut child, Duration::from_secs(5));
    assert_eq!(status.code(), Some(143), "{status:?}");
    assert!(asked.elapsed() < Duration::from_secs(3), "took {:?}", asked.elapsed());
}
