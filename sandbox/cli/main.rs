//! `sika`: the merchant's command line for the Sika service and its sandbox (ADR 0041).
//!
//! Service commands (`providers`, `banks`, `verify`, `confirm`, `await`) go through the SDK's
//! own Rust API (sika-core), so they decide exactly as an integration does. Sandbox commands
//! (`sandbox`, `listen`, `trigger`) drive the shipped `sika-sandbox` and its control API.
//! The key comes from `SIKA_SECRET_KEY` or `--key-file`, never from an argument (every local
//! user can read a command line). Exit codes: [`exit`].

mod control;
mod exit;
mod key;
mod listen;
mod output;
mod sandbox;
mod service;
mod trigger;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::exit::Failure;

#[derive(Parser)]
#[command(
    name = "sika",
    version,
    about = "The Sika command line: check payments, run the sandbox, forward and trigger webhooks",
    after_help = "The secret key is read from SIKA_SECRET_KEY or from --key-file (mode 0600), never from an \
                  argument.\nExit codes: 0 ok (confirm: Confirmed), 1 not paid, 2 usage, 3 not yet, 4 mismatch, \
                  10-23 the SDK's error kinds, 24 sandbox control refused, 130 interrupted, 141 output closed (docs/cli.md)."
)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

/// Options every subcommand takes.
#[derive(Args)]
pub struct Global {
    /// The service's base URL (for sandbox commands: the sandbox's, e.g. http://127.0.0.1:8080).
    #[arg(long, env = "SIKA_BASE_URL", hide_env_values = true, global = true, value_name = "URL")]
    pub base_url: Option<String>,
    /// A file holding the secret key, readable by its owner only (mode 0600). Without it the
    /// key comes from the environment variable SIKA_SECRET_KEY.
    #[arg(long, global = true, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
    /// Print JSON for machines (the SDK's JSON of each record) instead of tables.
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Subcommand)]
enum Command {
    /// List the mobile money providers of a country.
    Providers {
        /// Two-letter country code (the service's default: GH).
        #[arg(long)]
        country: Option<String>,
    },
    /// List the banks of a country.
    Banks {
        /// Two-letter country code (the service's default: NG).
        #[arg(long)]
        country: Option<String>,
    },
    /// Show a transaction as the service reports it (exit 0 whatever its status).
    Verify {
        /// The transaction's reference.
        reference: String,
    },
    /// Check that an order is paid: exit 0 only when the payment is Confirmed.
    #[command(after_help = "Exit codes: 0 Confirmed (ship), 1 not paid, 3 not yet (pending), 4 mismatch (reference, \
                            currency or amount differ: investigate), 10-23 errors (docs/cli.md).")]
    Confirm {
        /// The order's reference.
        reference: String,
        /// The order's amount, e.g. 25.50 (compared as a decimal).
        #[arg(long)]
        amount: String,
        /// The order's currency, e.g. GHS.
        #[arg(long)]
        currency: String,
    },
    /// Wait until a transaction's status is final; Ctrl-C stops at once.
    #[command(after_help = "Exit codes: 0 successful, 1 not paid (failed, abandoned, reversed), 3 still pending at \
                            the deadline, 130 interrupted, 10-23 errors (docs/cli.md).")]
    Await {
        /// The transaction's reference.
        reference: String,
        /// Give up after this long, in milliseconds.
        #[arg(long, default_value_t = 120_000)]
        timeout_ms: u64,
        /// Wait before the first check, in milliseconds.
        #[arg(long, default_value_t = 3000)]
        initial_delay_ms: u64,
        /// Wait between checks, in milliseconds (doubled after each, up to 10 s).
        #[arg(long, default_value_t = 2000)]
        interval_ms: u64,
    },
    /// Start the sandbox (the shipped sika-sandbox) with the key of SIKA_SECRET_KEY or --key-file.
    Sandbox(sandbox::SandboxArgs),
    /// Become the sandbox's webhook receiver and forward every delivery to your local server.
    Listen(listen::ListenArgs),
    /// Create a transaction in the sandbox and deliver its notification (to `sika listen`).
    Trigger(trigger::TriggerArgs),
    /// Print a shell completion script.
    Completions {
        /// The shell.
        shell: CompletionShell,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

fn main() -> ExitCode {
    // reqwest (control API, forwarding) and sika-core both use rustls on ring.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Completions { shell } => {
            let shell = match shell {
                CompletionShell::Bash => clap_complete::Shell::Bash,
                CompletionShell::Zsh => clap_complete::Shell::Zsh,
                CompletionShell::Fish => clap_complete::Shell::Fish,
            };
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "sika", &mut script);
            output::out!("{}", String::from_utf8_lossy(&script));
            Ok(exit::OK)
        }
        Command::Sandbox(args) => sandbox::run(&cli.global, &args),
        command => runtime().and_then(|runtime| runtime.block_on(dispatch(&cli.global, command))),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(failure) => {
            eprintln!("sika: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|err| Failure::setup(format!("could not start the async runtime: {err}")))
}

async fn dispatch(global: &Global, command: Command) -> Result<u8, Failure> {
    match command {
        Command::Providers { country } => service::providers(global, country.as_deref()).await,
        Command::Banks { country } => service::banks(global, country.as_deref()).await,
        Command::Verify { reference } => service::verify(global, &reference).await,
        Command::Confirm { reference, amount, currency } => {
            service::confirm(global, &reference, &amount, &currency).await
        }
        Command::Await { reference, timeout_ms, initial_delay_ms, interval_ms } => {
            let options = sika_core::AwaitOptions {
                initial_delay_ms,
                interval_ms,
                max_interval_ms: interval_ms.max(10_000),
                timeout_ms,
                cancellation: None,
            };
            service::await_final(global, &reference, options).await
        }
        Command::Listen(args) => listen::run(global, &args).await,
        Command::Trigger(args) => trigger::run(global, &args).await,
        Command::Sandbox(_) | Command::Completions { .. } => unreachable!("handled without a runtime"),
    }
}
