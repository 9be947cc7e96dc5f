//! `sika sandbox`: runs the shipped `sika-sandbox` (the binary beside this one, else the one
//! on PATH) with the key of `SIKA_SECRET_KEY` or `--key-file`, passed in its environment
//! (`SIKA_SANDBOX_SECRET_KEY`), never on its command line. Its first line of stdout is the
//! sandbox's own (`listening on http://127.0.0.1:PORT`); `--seed FILE` stores transactions
//! before that line is printed, so whoever reads it finds them there.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use clap::Args;
use reqwest::Method;
use serde_json::Value;

use crate::Global;
use crate::control::Control;
use crate::exit::{self, Failure};
use crate::key::secret_key;
use crate::output::out;

/// The retry schedule of webhook deliveries (ADR 0041): 1 s, 5 s, 25 s, 60 s.
const RETRY_SCHEDULE_MS: &str = "1000,5000,25000,60000";

#[derive(Args)]
pub struct SandboxArgs {
    /// Port to listen on (0: a free one, read from the first line of output).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// A JSON file of transactions to store at start: an array of transaction objects (each
    /// with a string `tx_ref`), or one object.
    #[arg(long, value_name = "FILE")]
    seed: Option<PathBuf>,
    /// How long the simulated customer takes to answer the USSD prompt, in milliseconds.
    #[arg(long, default_value_t = 3000)]
    confirm_after_ms: u64,
    /// Waits before each retry of a webhook delivery answered non-2xx or timed out, in
    /// milliseconds, comma-separated (empty: no retries).
    #[arg(long, default_value = RETRY_SCHEDULE_MS, value_name = "LIST")]
    webhook_retry_ms: String,
    /// Where to deliver webhooks from the start (`sika listen` sets this itself).
    #[arg(long, value_name = "URL")]
    webhook_url: Option<String>,
}

pub fn run(global: &Global, args: &SandboxArgs) -> Result<u8, Failure> {
    let key = secret_key(global)?;
    let seed = args.seed.as_deref().map(read_seed).transpose()?;
    let binary = sandbox_binary()?;
    let mut command = Command::new(&binary);
    command
        .args(["--port", &args.port.to_string(), "--confirm-after-ms", &args.confirm_after_ms.to_string()])
        .args(["--webhook-retry-ms", &args.webhook_retry_ms])
        // Ends with us: our end of its stdin closes when this process does, however it ends.
        .arg("--exit-on-stdin-eof")
        .env("SIKA_SANDBOX_SECRET_KEY", &key)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    if let Some(url) = &args.webhook_url {
        command.args(["--webhook-url", url]);
    }
    let mut child =
        command.spawn().map_err(|err| Failure::sandbox(format!("could not start {}: {err}", binary.display())))?;
    // Held (never written) so that the sandbox sees end of file only when we are gone.
    let _stdin = child.stdin.take();
    let mut stdout = BufReader::new(child.stdout.take().ok_or_else(|| Failure::sandbox("no stdout"))?);
    let mut first = String::new();
    if stdout.read_line(&mut first).unwrap_or(0) == 0 {
        let status = child.wait().map(|s| s.to_string()).unwrap_or_default();
        return Err(Failure::sandbox(format!("the sandbox exited before it listened ({status})")));
    }
    if let Some(transactions) = seed {
        let url = first.trim().strip_prefix("listening on ").unwrap_or_default().to_owned();
        if let Err(failure) = seed_transactions(&url, global.timeout_ms, transactions) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(failure);
        }
    }
    out!("{first}");
    // The sandbox writes nothing else to stdout; keep reading so it never meets a closed pipe.
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut stdout, &mut std::io::sink());
    });
    // Ctrl-C reaches the sandbox too (same process group); it exits 0 and so do we.
    let status = child.wait().map_err(|err| Failure::sandbox(format!("lost the sandbox: {err}")))?;
    Ok(if status.success() { exit::OK } else { exit::SANDBOX })
}

/// `sika-sandbox` beside this executable (both ship together), else the first on PATH; when it
/// is in neither place, a failure (exit 24) that says where it looked.
fn sandbox_binary() -> Result<PathBuf, Failure> {
    let name = format!("sika-sandbox{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe().ok().map(|exe| exe.with_file_name(&name));
    if let Some(path) = beside.as_ref().filter(|path| is_executable(path)) {
        return Ok(path.clone());
    }
    let on_path = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).map(|dir| dir.join(&name)).find(|path| is_executable(path)));
    if let Some(path) = on_path.flatten() {
        return Ok(path);
    }
    let beside = beside.and_then(|path| path.parent().map(|dir| dir.display().to_string())).unwrap_or_default();
    Err(Failure::sandbox(format!(
        "{name} was found neither beside sika ({beside}) nor on PATH: install the sandbox's wheel \
         (`pip install sika-sandbox`) or tarball, which ship both"
    )))
}

/// A file this process may run (on Unix: with an execute bit).
fn is_executable(path: &Path) -> bool {
    let Ok(metadata) = std::fs::metadata(path) else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        metadata.is_file()
    }
}

fn read_seed(path: &Path) -> Result<Vec<String>, Failure> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|err| Failure::setup(format!("--seed {shown}: {err}")))?;
    // Each object is sent as its own text, so amounts keep their scale (`100.10`).
    let raw: Box<serde_json::value::RawValue> =
        serde_json::from_str(&text).map_err(|err| Failure::setup(format!("--seed {shown}: not JSON: {err}")))?;
    let objects: Vec<&serde_json::value::RawValue> = match raw.get().trim_start().as_bytes().first() {
        Some(b'[') => {
            serde_json::from_str(raw.get()).map_err(|err| Failure::setup(format!("--seed {shown}: {err}")))?
        }
        _ => vec![raw.as_ref()],
    };
    let objects: Vec<String> = objects.into_iter().map(|object| object.get().to_owned()).collect();
    for object in &objects {
        let parsed: Value = serde_json::from_str(object).unwrap_or(Value::Null);
        if !parsed["tx_ref"].is_string() {
            return Err(Failure::setup(format!("--seed {shown}: every transaction needs a string tx_ref")));
        }
    }
    Ok(objects)
}

fn seed_transactions(url: &str, timeout_ms: Option<u64>, transactions: Vec<String>) -> Result<(), Failure> {
    let runtime = crate::runtime()?;
    runtime.block_on(async {
        let control = Control::new(url, timeout_ms)?;
        let count = transactions.len();
        for transaction in transactions {
            control.call(Method::POST, "/__sandbox/transactions", Some(transaction), 201).await?;
        }
        eprintln!("sika: seeded {count} transaction(s)");
        Ok(())
    })
}
