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
                  argument.\nExit codes: 0 ok (confirm: Confirmed; await: final), 1 not paid, 2 usage, 3 not yet, \
                  4 mismatch, 10-23 and 25-26 the SDK's error kinds, 24 sandbox control refused, 130 interrupted, \
                  141 output closed, 143 terminated (docs/cli.md)."
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
    /// Print JSON for machines (the SDK's JSON of each record) instead of tables; errors too.
    #[arg(long, global = true)]
    pub json: bool,
    /// The longest to wait for the service, in milliseconds: each call, retries included
    /// (default 20000); `await`: the whole wait (default 120000); `listen`: each forward (default 10000).
    #[arg(long, global = true, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub timeout_ms: Option<u64>,
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
    #[command(after_help = "Exit codes without --amount/--currency: 0 final and successful (NOT \"paid\": the amount \
                            and currency were not checked), 1 not paid (failed, abandoned, reversed), 3 still pending at \
                            the deadline. With --amount and --currency, confirm's: 0 Confirmed (ship), 1 not paid, 3 not \
                            yet, 4 mismatch. Either way 13 the service does not know the reference, 130 interrupted, 143 \
                            terminated, 10-23 errors (docs/cli.md).")]
    Await {
        /// The transaction's reference.
        reference: String,
        /// The order's amount: decide as `confirm` does once the status is final (with --currency).
        #[arg(long, requires = "currency")]
        amount: Option<String>,
        /// The order's currency (with --amount).
        #[arg(long, requires = "amount")]
        currency: Option<String>,
        /// How long "not found" may mean "not visible yet", in milliseconds, from the wait's first
        /// "not found" (0: not found ends the wait at once); at the deadline one last check decides.
        #[arg(long, value_name = "MS", default_value_t = 30_000,
              value_parser = clap::value_parser!(u64).range(0..=86_400_000))]
        not_found_grace_ms: u64,
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

/// The shells whose generated completions are offered: the ones the tests run the scripts in
/// (B245). clap_complete also writes PowerShell and Elvish scripts, which are not offered: no
/// test runs them in their shell.
#[derive(Clone, Copy, ValueEnum)]
enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

/// The command line, or the usage error as `--json` prints errors when it was asked for
/// (clap's own text and exit code 2 otherwise; help and version print as usual).
fn parse() -> Result<Cli, Failure> {
    match Cli::try_parse() {
        Ok(cli) => Ok(cli),
        Err(error) => {
            use clap::error::ErrorKind;
            let asked_for_json = std::env::args_os().take_while(|arg| arg != "--").any(|arg| arg == "--json");
            let informational = matches!(error.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion);
            if !asked_for_json || informational {
                error.exit();
            }
            // clap's text is `error: WHAT\n\nUsage: ...`: the first paragraph, without `error: `.
            let text = error.render().to_string();
            let first = text.split("\n\n").next().unwrap_or_default();
            Err(Failure::usage(first.strip_prefix("error: ").unwrap_or(first).trim_end()))
        }
    }
}

fn main() -> ExitCode {
    // reqwest (control API, forwarding) and sika-core both use rustls on ring.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let cli = match parse() {
        Ok(cli) => cli,
        Err(failure) => return fail(&failure, true),
    };
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
        Err(failure) => fail(&failure, cli.global.json),
    }
}

/// Reports why the command stopped: `sika: MESSAGE` on stderr, or with `--json` the error's
/// JSON object on stdout (where the result would have been); the message escaped either way.
fn fail(failure: &Failure, json: bool) -> ExitCode {
    if json {
        output::print_json(&failure.to_json());
    } else {
        eprintln!("sika: {}", output::escaped(&failure.message));
    }
    ExitCode::from(failure.code)
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
            let expected = service::expected_payment(&amount, &currency)?;
            service::confirm(global, &reference, &expected).await
        }
        Command::Await { reference, amount, currency, not_found_grace_ms, initial_delay_ms, interval_ms } => {
            // Checked before the wait, as confirm checks them: a typo costs no wait.
            let expected = match (amount, currency) {
                (Some(amount), Some(currency)) => Some(service::expected_payment(&amount, &currency)?),
                _ => None,
            };
            let options = sika_core::AwaitOptions {
                initial_delay_ms,
                interval_ms,
                max_interval_ms: interval_ms.max(10_000),
                timeout_ms: global.timeout_ms.unwrap_or(120_000),
                cancellation: None,
            };
            let request = service::AwaitRequest { options, expected, not_found_grace_ms };
            service::await_final(global, &reference, request).await
        }
        Command::Listen(args) => listen::run(global, &args).await,
        Command::Trigger(args) => trigger::run(global, &args).await,
        Command::Sandbox(_) | Command::Completions { .. } => unreachable!("handled without a runtime"),
    }
}
