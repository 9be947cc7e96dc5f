//! `sika-sandbox`: a local, stateful stand-in of the payment service, for the SDK's tests in
//! every language and for merchants' own integration tests.
//!
//! ```text
//! SIKA_SANDBOX_SECRET_KEY=KEY sika-sandbox --port 0 [--host 127.0.0.1] [--webhook-url URL]
//!              [--confirm-after-ms N] [--webhook-repeat N] [--exit-on-stdin-eof]
//! ```
//!
//! The key may also come from `--secret-key-file PATH` (owner-only, mode 0600) or, readable by
//! every local user, `--secret-key KEY` (`key.rs`).
//!
//! The first line of standard output is `listening on http://HOST:PORT` (the port actually
//! bound), so a harness can start it on port 0 and read its address. Everything else goes
//! to standard error.

mod api;
mod app;
mod charge;
mod control;
mod envelope;
mod fault;
mod key;
mod listener;
mod paced;
mod raw_object;
mod request_id;
mod seed;
mod state;
mod store;
mod time;
mod ussd;
mod validate;
mod webhook;

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use tokio::sync::{oneshot, watch};

use crate::listener::{AbortableListener, PeerInfo};
use crate::state::{Settings, Shared};
use crate::webhook::WebhookTarget;

/// A webhook retry schedule as clap parses it (a bare `Vec` would mean a repeated flag).
type RetrySchedule = Vec<Duration>;

/// The most deliveries of one notification that can be asked for (CLI and control API).
pub const MAX_WEBHOOK_REPEAT: u32 = 100;

/// How long open connections get to finish once shutdown has been asked for.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

#[derive(Parser)]
#[command(name = "sika-sandbox", version, about = "A local, stateful stand-in of the Sika payment service, for tests")]
struct Cli {
    /// Port to listen on; 0 picks a free one (read it from the first line of stdout).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// The secret key clients must send as `Authorization: Bearer <KEY>`. Prefer the
    /// environment variable SIKA_SANDBOX_SECRET_KEY or --secret-key-file: every local user can
    /// read a command line.
    #[arg(long)]
    secret_key: Option<String>,
    /// A file holding the secret key (one line), readable by its owner only (mode 0600).
    #[arg(long, conflicts_with = "secret_key")]
    secret_key_file: Option<std::path::PathBuf>,
    /// Address to bind. The control API only answers loopback peers whatever this is.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Where to POST `charge.success` notifications.
    #[arg(long)]
    webhook_url: Option<String>,
    /// How long the simulated customer takes to answer the USSD prompt.
    #[arg(long, default_value_t = 3000)]
    confirm_after_ms: u64,
    /// How many times each `charge.success` notification is delivered (0 to 100), to
    /// simulate repeated deliveries.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_WEBHOOK_REPEAT)))]
    webhook_repeat: u32,
    /// Waits in milliseconds before each retry of a webhook delivery that was answered
    /// non-2xx or timed out, comma-separated (`1000,5000`); empty (the default): no retries.
    #[arg(long, default_value = "", value_parser = webhook::parse_retry_schedule)]
    webhook_retry_ms: RetrySchedule,
    /// Also exit when standard input reaches end of file, so a harness that dies (and so
    /// closes the pipe) never leaves the sandbox running.
    #[arg(long)]
    exit_on_stdin_eof: bool,
}

fn main() -> ExitCode {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let cli = Cli::parse();
    let variable = std::env::var(key::KEY_VARIABLE).ok();
    let secret_key = match key::secret_key(cli.secret_key.clone(), cli.secret_key_file.as_deref(), variable) {
        Ok(key) => key,
        Err(reason) => {
            eprintln!("sika-sandbox: {reason}");
            return ExitCode::from(2);
        }
    };
    let webhook = match cli.webhook_url.as_deref().map(WebhookTarget::new).transpose() {
        Ok(webhook) => webhook,
        Err(reason) => {
            eprintln!("sika-sandbox: {reason}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("sika-sandbox: could not start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let settings = Settings {
        confirm_after: Duration::from_millis(cli.confirm_after_ms),
        webhook,
        webhook_repeat: cli.webhook_repeat,
        webhook_retry: cli.webhook_retry_ms.clone(),
    };
    let state = Arc::new(Shared::new(&secret_key, settings));
    let code = runtime.block_on(run(&cli, state));
    // Do not wait on blocking work still in flight (a DNS lookup for a webhook, say).
    runtime.shutdown_timeout(Duration::from_millis(200));
    code
}

async fn run(cli: &Cli, state: state::AppState) -> ExitCode {
    let listener = match tokio::net::TcpListener::bind((cli.host.as_str(), cli.port)).await {
        Ok(listener) => listener,
        Err(err) => {
            eprintln!("sika-sandbox: could not bind {}:{}: {err}", cli.host, cli.port);
            return ExitCode::FAILURE;
        }
    };
    let address = match listener.local_addr() {
        Ok(address) => address,
        Err(err) => {
            eprintln!("sika-sandbox: could not read the bound address: {err}");
            return ExitCode::FAILURE;
        }
    };
    // Signal handlers go in before the address is announced: a harness may signal as soon as
    // it has read the line.
    let shutdown = match Shutdown::install(cli.exit_on_stdin_eof) {
        Ok(shutdown) => shutdown,
        Err(err) => {
            eprintln!("sika-sandbox: could not install signal handlers: {err}");
            return ExitCode::FAILURE;
        }
    };
    announce(address);
    eprintln!(
        "sika-sandbox: serving on http://{address} (USSD answer after {} ms, webhook {}, webhook repeat {})",
        cli.confirm_after_ms,
        cli.webhook_url.as_deref().unwrap_or("off"),
        cli.webhook_repeat
    );

    let (stop_tx, mut stop_rx) = watch::channel(false);
    // Each connection can be aborted from a handler (the `reset` fault).
    let listener = AbortableListener::new(listener, state.connections.clone());
    let server = axum::serve(listener, app::router(state).into_make_service_with_connect_info::<PeerInfo>())
        .with_graceful_shutdown(async move {
            let _ = stop_rx.wait_for(|stop| *stop).await;
        });
    let mut server = std::pin::pin!(server.into_future());
    let reason = tokio::select! {
        result = &mut server => {
            return match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("sika-sandbox: server error: {err}");
                    ExitCode::FAILURE
                }
            };
        }
        reason = shutdown.wait() => reason,
    };
    eprintln!("sika-sandbox: {reason}, shutting down");
    let _ = stop_tx.send(true);
    if tokio::time::timeout(SHUTDOWN_GRACE, server).await.is_err() {
        eprintln!("sika-sandbox: connections still open after the grace period; exiting");
    }
    ExitCode::SUCCESS
}

/// Prints the one line of stdout harnesses wait for, flushed at once. A closed stdout is
/// not fatal: the sandbox keeps serving (its address is also on stderr).
fn announce(address: SocketAddr) {
    let mut stdout = std::io::stdout().lock();
    let written = writeln!(stdout, "listening on http://{address}").and_then(|()| stdout.flush());
    if let Err(err) = written {
        eprintln!("sika-sandbox: could not write the address to stdout: {err}");
    }
}

/// The ways to ask the sandbox to stop: SIGINT, SIGTERM, and (opt-in) end of stdin.
struct Shutdown {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    stdin_eof: Option<oneshot::Receiver<()>>,
}

impl Shutdown {
    fn install(watch_stdin: bool) -> std::io::Result<Self> {
        #[cfg(unix)]
        let (interrupt, terminate) = {
            use tokio::signal::unix::{SignalKind, signal};
            (signal(SignalKind::interrupt())?, signal(SignalKind::terminate())?)
        };
        let stdin_eof = if watch_stdin { Some(watch_stdin_eof()?) } else { None };
        Ok(Self {
            #[cfg(unix)]
            interrupt,
            #[cfg(unix)]
            terminate,
            stdin_eof,
        })
    }

    /// Resolves with the reason once any of the configured events happens.
    async fn wait(mut self) -> &'static str {
        let stdin_eof = async {
            match self.stdin_eof.take() {
                // A dropped sender (the reader thread ended some other way) counts as EOF too.
                Some(receiver) => {
                    let _ = receiver.await;
                }
                None => std::future::pending().await,
            }
        };
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.interrupt.recv() => "SIGINT",
                _ = self.terminate.recv() => "SIGTERM",
                () = stdin_eof => "end of stdin",
            }
        }
        #[cfg(not(unix))]
        {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => "Ctrl-C",
                () = stdin_eof => "end of stdin",
            }
        }
    }
}

/// Reads (and discards) stdin on a plain thread until EOF. Not `tokio::io::stdin`: its
/// blocking read cannot be cancelled and would hold up runtime shutdown on a signal.
fn watch_stdin_eof() -> std::io::Result<oneshot::Receiver<()>> {
    let (sender, receiver) = oneshot::channel();
    std::thread::Builder::new().name("stdin-eof".to_owned()).spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buffer = [0_u8; 1024];
        loop {
            match stdin.read(&mut buffer) {
                Ok(0) => break,
                Ok(_) => {}
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = sender.send(());
    })?;
    Ok(receiver)
}
