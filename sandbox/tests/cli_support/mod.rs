//! The harness of the `sika` command's tests: a sandbox started through `sika sandbox` itself
//! (with a canary key from the environment, never an argument), and the commands run with
//! their output captured. Only 127.0.0.1 is contacted.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ChildStdout, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A canary: `scripts/test` fails if any output holds a key starting `sk_test_canary`.
pub const KEY: &str = "sk_test_canary_cli_9f27c1d8e4";

pub const SIKA: &str = env!("CARGO_BIN_EXE_sika");

pub fn seed_file() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/seed.json").to_owned()
}

/// A sandbox run by `sika sandbox --port 0`; stopped (and reaped) when dropped.
pub struct CliSandbox {
    pub child: Child,
    _stdout: BufReader<ChildStdout>,
    pub url: String,
}

impl Drop for CliSandbox {
    fn drop(&mut self) {
        // SIGTERM would leave the sandbox to notice our closed pipe; SIGKILL of `sika` closes
        // it at once (the sandbox runs with --exit-on-stdin-eof).
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl CliSandbox {
    pub fn start(extra: &[&str]) -> Self {
        let mut child = Command::new(SIKA)
            .args(["sandbox", "--port", "0", "--confirm-after-ms", "100", "--seed", &seed_file()])
            .args(extra)
            .env("SIKA_SECRET_KEY", KEY)
            .env_remove("SIKA_BASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(if std::env::var_os("SIKA_SANDBOX_TEST_LOG").is_some() { Stdio::inherit() } else { Stdio::null() })
            .spawn()
            .expect("spawn sika sandbox");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("first line of sika sandbox");
        let url = line
            .trim_end()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        Self { child, _stdout: stdout, url }
    }

    /// `sika ARGS` against this sandbox, with the key in the environment.
    pub fn sika(&self, args: &[&str]) -> Command {
        let mut command = Command::new(SIKA);
        command.args(args).env("SIKA_BASE_URL", &self.url).env("SIKA_SECRET_KEY", KEY).env("NO_COLOR", "1");
        command
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.sika(args).stdin(Stdio::null()).output().expect("run sika")
    }
}

/// Text of an output stream.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Sends a signal with the system's `kill` (the test crate has no libc binding).
pub fn signal(child: &Child, name: &str) {
    let status = Command::new("kill").args([&format!("-{name}"), &child.id().to_string()]).status().expect("kill");
    assert!(status.success(), "kill -{name}");
}

/// Waits for the child to exit, failing after `limit`.
pub fn wait_with_limit(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        assert!(start.elapsed() < limit, "the command did not exit within {limit:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Reads a pipe until a line containing `needle`, on a thread, failing after 10 s; returns
/// everything read so far, and the pipe for reading more.
pub fn read_until<R: Read + Send + 'static>(
    pipe: R,
    needle: &'static str,
) -> (String, std::sync::mpsc::Receiver<String>) {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = String::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = receiver.recv_timeout(left).unwrap_or_else(|_| panic!("no line with {needle:?} in: {seen}"));
        seen.push_str(&line);
        seen.push('\n');
        if line.contains(needle) {
            return (seen, receiver);
        }
    }
}

/// One call of the sandbox (its control API, `/__sandbox/...`, or with [`KEY`] its service API)
/// over a plain socket: the status and the body of the answer.
pub fn control(url: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    use std::io::Write;
    let address = url.strip_prefix("http://").expect("an http:// sandbox URL").trim_end_matches('/');
    let mut stream = std::net::TcpStream::connect(address).expect("connect to the sandbox");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("read timeout");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {KEY}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("send to the sandbox");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read the sandbox's answer");
    let status = answer.split(' ').nth(1).and_then(|code| code.parse().ok()).expect("a status line");
    let body = answer.split_once("\r\n\r\n").map(|(_, body)| body.to_owned()).unwrap_or_default();
    (status, body)
}

/// Runs `command` to its end within `limit` (killed and failed after it), with its output.
pub fn output_within(command: &mut Command, limit: Duration) -> Output {
    let mut child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let (mut stdout, mut stderr) = (child.stdout.take().expect("stdout"), child.stderr.take().expect("stderr"));
    let out = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        bytes
    });
    let err = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stderr.read_to_end(&mut bytes);
        bytes
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the command did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output { status, stdout: out.join().expect("stdout"), stderr: err.join().expect("stderr") }
}
