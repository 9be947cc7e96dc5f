//! `sika listen` in front of a merchant's server, then `sika trigger --times 3 --concurrent`
//! (B87): what arrived, what listen printed, what trigger printed, and that listen puts the
//! sandbox's previous webhook target back when stopped.

mod cli_support;

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use cli_support::{CliSandbox, read_until, signal, text, wait_with_limit};

/// A merchant's server on a plain socket: for each request (read whole), `answer` writes the
/// answer on the stream, from a thread of its own. The requests' heads are kept.
fn raw_merchant(answer: fn(&mut std::net::TcpStream)) -> (u16, Arc<Mutex<Vec<String>>>) {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let heads = Arc::new(Mutex::new(Vec::new()));
    let kept = heads.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let heads = kept.clone();
            std::thread::spawn(move || {
                let mut request = Vec::new();
                let mut buffer = [0u8; 4096];
                // Up to the end of the head, then its Content-Length of body.
                while let Ok(read @ 1..) = stream.read(&mut buffer) {
                    request.extend_from_slice(&buffer[..read]);
                    let text = String::from_utf8_lossy(&request).into_owned();
                    if let Some((head, body)) = text.split_once("\r\n\r\n") {
                        let length = head
                            .lines()
                            .find_map(|line| {
                                line.to_ascii_lowercase().strip_prefix("content-length: ").map(str::to_owned)
                            })
                            .and_then(|value| value.trim().parse::<usize>().ok())
                            .unwrap_or(0);
                        if body.len() >= length {
                            heads.lock().expect("lock").push(head.to_owned());
                            break;
                        }
                    }
                }
                answer(&mut stream);
            });
        }
    });
    (port, heads)
}

/// `sika listen ARGS` started and ready (its "Ready!" line read), with what that line said.
fn start_listen(sandbox: &CliSandbox, args: &[&str]) -> (std::process::Child, String) {
    let mut all = vec!["listen"];
    all.extend_from_slice(args);
    let mut listen = sandbox
        .sika(&all)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sika listen");
    let (ready, _stderr) = read_until(listen.stderr.take().expect("stderr"), "Ready!");
    (listen, ready)
}

/// Stops `listen` with SIGTERM; what it printed.
fn stop_listen(mut listen: std::process::Child) -> String {
    signal(&listen, "TERM");
    let status = wait_with_limit(&mut listen, Duration::from_secs(10));
    assert_eq!(status.code(), Some(0));
    let mut printed = String::new();
    std::io::Read::read_to_string(&mut listen.stdout.take().expect("stdout"), &mut printed).expect("read stdout");
    printed
}

/// The most memory the process has held (VmHWM), in bytes.
fn peak_memory(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let line = status.lines().find(|line| line.starts_with("VmHWM:")).expect("VmHWM");
    line.split_whitespace().nth(1).and_then(|kb| kb.parse::<u64>().ok()).expect("a number") * 1024
}

/// What the merchant's server received.
#[derive(Default)]
struct Merchant {
    bodies: Mutex<Vec<String>>,
}

/// A merchant's webhook endpoint that answers only once three deliveries are in flight at the
/// same time (a barrier): deliveries made one after the other would each time out instead.
fn start_merchant() -> (String, Arc<Merchant>, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("rt");
    let merchant = Arc::new(Merchant::default());
    let barrier = Arc::new(tokio::sync::Barrier::new(3));
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("bind merchant");
    let address = listener.local_addr().expect("address");
    let state = (merchant.clone(), barrier);
    let app = Router::new()
        .fallback(
            |State((merchant, barrier)): State<(Arc<Merchant>, Arc<tokio::sync::Barrier>)>, body: String| async move {
                merchant.bodies.lock().expect("lock").push(body);
                match tokio::time::timeout(Duration::from_secs(3), barrier.wait()).await {
                    Ok(_) => StatusCode::OK,
                    Err(_) => StatusCode::SERVICE_UNAVAILABLE,
                }
            },
        )
        .with_state(state);
    runtime.spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{address}/webhooks/sika"), merchant, runtime)
}

#[test]
fn b87_listen_forwards_three_concurrent_deliveries_and_prints_each_answer() {
    let sandbox = CliSandbox::start(&["--webhook-retry-ms", ""]);
    let (forward_to, merchant, _runtime) = start_merchant();

    let mut listen = sandbox
        .sika(&["listen", "--forward-to", &forward_to])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sika listen");
    let (ready, _stderr) = read_until(listen.stderr.take().expect("stderr"), "Ready!");
    assert!(ready.contains(&forward_to), "{ready}");

    let trigger = sandbox.run(&[
        "trigger",
        "charge.success",
        "--reference",
        "ORDER-7",
        "--amount",
        "25.50",
        "--times",
        "3",
        "--concurrent",
    ]);
    assert_eq!(trigger.status.code(), Some(0), "{}{}", text(&trigger.stdout), text(&trigger.stderr));
    let table = text(&trigger.stdout);
    assert_eq!(table.lines().count(), 4, "a header and three deliveries: {table}");
    assert!(table.starts_with("DELIVERY  EVENT           REFERENCE  ANSWER  TIME"), "{table}");
    assert_eq!(table.matches("charge.success  ORDER-7    200").count(), 3, "{table}");

    // The merchant got the sandbox's notification three times, all at once (the barrier).
    let bodies = merchant.bodies.lock().expect("lock").clone();
    assert_eq!(bodies, vec![r#"{"event":"charge.success","data":{"reference":"ORDER-7"}}"#; 3]);

    // The transaction trigger created verifies as it said.
    let verify = sandbox.run(&["confirm", "ORDER-7", "--amount", "25.50", "--currency", "GHS"]);
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));

    signal(&listen, "TERM");
    let status = wait_with_limit(&mut listen, Duration::from_secs(10));
    assert_eq!(status.code(), Some(0));
    let mut printed = String::new();
    std::io::Read::read_to_string(&mut listen.stdout.take().expect("stdout"), &mut printed).expect("read stdout");
    assert_eq!(printed.lines().count(), 6, "{printed}");
    assert_eq!(printed.matches("  --> charge.success [ORDER-7]\n").count(), 3, "{printed}");
    let answers = printed.lines().filter(|line| line.contains(&format!("  <-- [200] POST {forward_to} ("))).count();
    assert_eq!(answers, 3, "{printed}");
    assert!(
        printed.lines().all(|line| line.as_bytes().get(2) == Some(&b':')),
        "each line starts with its time: {printed}"
    );

    // Stopped, listen put back the target that was there before it (none).
    let settings = sandbox.run(&["trigger", "charge.success", "--reference", "ORDER-8"]);
    assert_eq!(settings.status.code(), Some(24), "{}", text(&settings.stderr));
}

/// `listen` keeps at most 64 KiB of the merchant's answer: a 256 MiB answer is not read past
/// that (listen's memory stays far below it; it held 1 GiB for a 1 GiB answer), is passed to the
/// sandbox as the 200 it is, and is shown as cut. An answer whose body does not end within the
/// time limit (`--timeout-ms`) is shown as cut off at it, never as a plain `[200]`, and is a
/// failed delivery for the sandbox (504).
#[test]
fn b241_listen_caps_the_answer_it_keeps_and_says_when_it_was_cut() {
    let sandbox = CliSandbox::start(&["--webhook-retry-ms", ""]);
    let (huge, _) = raw_merchant(|stream| {
        use std::io::Write;
        let total: usize = 256 << 20;
        let _ = write!(stream, "HTTP/1.1 200 OK\r\nContent-Length: {total}\r\nConnection: close\r\n\r\n");
        let chunk = vec![b'x'; 64 * 1024];
        let mut sent = 0;
        while sent < total && stream.write_all(&chunk).is_ok() {
            sent += chunk.len();
        }
    });
    let forward_to = format!("http://127.0.0.1:{huge}/webhooks/sika");
    let (listen, _ready) = start_listen(&sandbox, &["--forward-to", &forward_to]);
    let trigger = sandbox.run(&["trigger", "charge.success", "--reference", "PAID-1"]);
    assert_eq!(trigger.status.code(), Some(0), "{}{}", text(&trigger.stdout), text(&trigger.stderr));
    let peak = peak_memory(listen.id());
    assert!(peak < 64 << 20, "listen held {peak} bytes for a 256 MiB answer");
    let printed = stop_listen(listen);
    assert!(printed.contains(&format!("  <-- [200, answer cut at 64 KiB] POST {forward_to} (")), "{printed}");

    let (slow, _) = raw_merchant(|stream| {
        use std::io::Write;
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"ok\":");
        let _ = stream.flush();
        std::thread::sleep(Duration::from_secs(4));
    });
    let forward_to = format!("http://127.0.0.1:{slow}/webhooks/sika");
    let (listen, _ready) = start_listen(&sandbox, &["--forward-to", &forward_to, "--timeout-ms", "1000"]);
    let trigger = sandbox.run(&["trigger", "charge.success", "--reference", "PAID-1", "--json"]);
    assert_eq!(trigger.status.code(), Some(24), "not delivered: {}", text(&trigger.stdout));
    let attempts: serde_json::Value = serde_json::from_slice(&trigger.stdout).expect("JSON");
    assert_eq!(attempts[0]["http_status"], 504, "{attempts}");
    let printed = stop_listen(listen);
    assert!(
        printed.contains(&format!("  <-- [200, answer cut off at the 1 s limit] POST {forward_to} (")),
        "{printed}"
    );
    assert!(!printed.contains("<-- [200] "), "{printed}");
}

/// The `user:password` of `--forward-to` is used (the merchant's server gets it as Basic
/// authorization) but never printed: not in the "Ready!" line, the event lines, `--json`'s
/// lines, nor the error for a URL that is not http(s).
#[test]
fn b243_listen_never_prints_the_credentials_of_forward_to() {
    const PASSWORD: &str = "s3cret-pw-b243";
    let sandbox = CliSandbox::start(&["--webhook-retry-ms", ""]);
    let (port, heads) = raw_merchant(|stream| {
        use std::io::Write;
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
    });
    for json in [false, true] {
        let forward_to = format!("http://merchant:{PASSWORD}@127.0.0.1:{port}/hook");
        let mut args = vec!["--forward-to", forward_to.as_str()];
        if json {
            args.push("--json");
        }
        let (listen, ready) = start_listen(&sandbox, &args);
        assert!(ready.contains(&format!("http://***@127.0.0.1:{port}/hook")), "{ready}");
        let trigger = sandbox.run(&["trigger", "charge.success", "--reference", "PAID-1"]);
        assert_eq!(trigger.status.code(), Some(0), "{}", text(&trigger.stderr));
        let printed = stop_listen(listen);
        assert!(printed.contains(&format!("http://***@127.0.0.1:{port}/hook")), "{printed}");
        assert!(!printed.contains(PASSWORD) && !ready.contains(PASSWORD), "{ready}{printed}");
        if json {
            let line: serde_json::Value = serde_json::from_str(printed.trim()).expect("one JSON line");
            assert_eq!(line["forward_to"], format!("http://***@127.0.0.1:{port}/hook"));
        }
    }
    let heads = heads.lock().expect("lock").clone();
    assert_eq!(heads.len(), 2);
    // base64("merchant:s3cret-pw-b243")
    assert!(heads.iter().all(|head| head.contains("Basic bWVyY2hhbnQ6czNjcmV0LXB3LWIyNDM=")), "{heads:?}");
    let refused = sandbox.run(&["listen", "--forward-to", &format!("ftp://merchant:{PASSWORD}@127.0.0.1/x")]);
    assert_eq!(refused.status.code(), Some(23));
    assert!(!text(&refused.stderr).contains(PASSWORD), "{}", text(&refused.stderr));
    assert!(text(&refused.stderr).contains("ftp://***@127.0.0.1/x"), "{}", text(&refused.stderr));
}

/// An event's texts (its reference) are printed by `listen` with their control characters
/// escaped, in its lines and its `--json` lines.
#[test]
fn b242_listen_escapes_the_events_texts() {
    let sandbox = CliSandbox::start(&["--webhook-retry-ms", ""]);
    let (port, _) = raw_merchant(|stream| {
        use std::io::Write;
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
    });
    let forward_to = format!("http://127.0.0.1:{port}/hook");
    for json in [false, true] {
        let mut args = vec!["--forward-to", forward_to.as_str()];
        if json {
            args.push("--json");
        }
        let (listen, _ready) = start_listen(&sandbox, &args);
        let trigger = sandbox.run(&["trigger", "charge.success", "--reference", "ESC\u{1b}[2J\u{9b}1m-1"]);
        assert_eq!(trigger.status.code(), Some(0), "{}", text(&trigger.stderr));
        assert!(!text(&trigger.stdout).contains(['\u{1b}', '\u{9b}']), "{}", text(&trigger.stdout));
        let printed = stop_listen(listen);
        assert!(!printed.contains(['\u{1b}', '\u{9b}']), "{printed:?}");
        let shown = if json { r"ESC\u001b[2J\u009b1m-1" } else { r"[ESC\u{001b}[2J\u{009b}1m-1]" };
        assert!(printed.contains(shown), "{printed}");
    }
}
