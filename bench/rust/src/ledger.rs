//! The payments ledger (issue 28, ADR 0046) on SQLite (a file in a temporary directory) or
//! PostgreSQL (`SIKA_BENCH_PG_URL`: the throwaway loopback cluster scripts/bench starts), against
//! the release sandbox. Each round, interleaved in one process:
//!   - the time one webhook decision takes, `CALLS` times in a row: `ledger.handle_webhook(body)`
//!     on a new expected reference (read the record, verify, record the decision and the claim)
//!     and `client.handle_webhook(body, expected)` (parse, verify, decide: no database), one of
//!     each per step, in alternating order; the round's median and p90 of each, and what the
//!     ledger adds (the ledger's median or p90 minus the client's);
//!   - claims per second: `CALLS` decisions on distinct new references with 32 in flight
//!     (`Fulfil` with a claim each), and the same number of `client.handle_webhook` with 32 in
//!     flight (the same verify, no ledger), one after the other.
//!
//! The references are seeded in the sandbox (the fixture's transaction, every field) and
//! expected in the ledger before the timed part. Prints `RESULT` lines (bench/README.md).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use sika_core::ledger::{Ledger, LedgerDecision, PostgresOptions, SqliteOptions};
use sika_core::{Client, ClientConfig, ExpectedPayment, SecretUrl, WebhookDecision};

const IN_FLIGHT: usize = 32;
const WARM_UP: usize = 20;
const FIXTURE: &str = "tests/fixtures/responses/verify_successful.json";

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}

pub fn run(backend: Backend, base_url: &str, key: &str, calls: usize, rounds: usize) {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    // The seeding client is reqwest without a default crypto provider (as in `raw`).
    let _ = rustls::crypto::ring::default_provider().install_default();
    runtime.block_on(bench(backend, base_url, key, calls, rounds));
}

struct Setup {
    client: Arc<Client>,
    ledger: Arc<Ledger>,
    expected: ExpectedPayment,
    transaction: serde_json::Value,
    http: reqwest::Client,
    base_url: String,
    prefix: String,
    next: AtomicUsize,
}

impl Setup {
    /// `count` new references, seeded as paid in the sandbox and expected by the ledger.
    async fn references(self: &Arc<Self>, count: usize) -> Vec<String> {
        let first = self.next.fetch_add(count, Ordering::Relaxed);
        let references: Vec<String> = (first..first + count).map(|i| format!("{}-{i:06}", self.prefix)).collect();
        for chunk in references.chunks(IN_FLIGHT) {
            let mut tasks = tokio::task::JoinSet::new();
            for reference in chunk {
                let (setup, reference) = (Arc::clone(self), reference.clone());
                tasks.spawn(async move { setup.seed_and_expect(&reference).await });
            }
            while let Some(done) = tasks.join_next().await {
                done.unwrap();
            }
        }
        references
    }

    async fn seed_and_expect(&self, reference: &str) {
        let mut transaction = self.transaction.clone();
        transaction["tx_ref"] = serde_json::Value::from(reference);
        let response = self
            .http
            .post(format!("{}/__sandbox/transactions", self.base_url))
            .header("content-type", "application/json")
            .body(transaction.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 201, "seeding {reference}");
        self.ledger.expect(reference, &self.expected).await.unwrap();
    }

    async fn with_ledger(&self, reference: &str) {
        match self.ledger.handle_webhook(&self.client, &notification(reference)).await.unwrap() {
            LedgerDecision::Fulfil { .. } => {}
            other => panic!("{reference}: expected Fulfil, got {other:?}"),
        }
    }

    async fn without_ledger(&self, reference: &str) {
        match self.client.handle_webhook(&notification(reference), &self.expected).await.unwrap() {
            WebhookDecision::Fulfil { .. } => {}
            other => panic!("{reference}: expected Fulfil, got {other:?}"),
        }
    }
}

fn notification(reference: &str) -> Vec<u8> {
    format!(r#"{{"event":"charge.success","data":{{"reference":"{reference}"}}}}"#).into_bytes()
}

async fn open(backend: Backend, dir: &std::path::Path) -> Ledger {
    match backend {
        Backend::Sqlite => Ledger::sqlite_with(dir.join("ledger.db"), SqliteOptions::default()).await.unwrap(),
        Backend::Postgres => {
            let url = std::env::var("SIKA_BENCH_PG_URL").expect("SIKA_BENCH_PG_URL");
            let options = PostgresOptions { max_connections: IN_FLIGHT as u32, ..PostgresOptions::default() };
            Ledger::postgres(SecretUrl::from(url), options).await.unwrap()
        }
    }
}

async fn bench(backend: Backend, base_url: &str, key: &str, calls: usize, rounds: usize) {
    let dir = std::env::temp_dir().join(format!("sika-bench-ledger-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fixture: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(FIXTURE).unwrap()).unwrap();
    let transaction = fixture["data"].clone();
    let expected = ExpectedPayment {
        amount: transaction["amount"].to_string().parse().unwrap(),
        currency: transaction["currency"].as_str().unwrap().to_owned(),
    };
    let setup = Arc::new(Setup {
        client: Arc::new(Client::new(ClientConfig::new(key, base_url)).unwrap()),
        ledger: Arc::new(open(backend, &dir).await),
        expected,
        transaction,
        http: reqwest::Client::builder().no_proxy().build().unwrap(),
        base_url: base_url.to_owned(),
        prefix: format!("BENCH-LEDGER-{}-{}", backend.name(), std::process::id()),
        next: AtomicUsize::new(0),
    });
    let plain = setup.references(1).await.remove(0);
    let name = backend.name();
    let label = match backend {
        Backend::Sqlite => "SQLite",
        Backend::Postgres => "PostgreSQL",
    };
    for _ in 0..rounds {
        // The time of one decision, sequential, the two kinds alternating.
        let references = setup.references(calls + WARM_UP).await;
        let (mut with, mut without) = (Vec::with_capacity(calls), Vec::with_capacity(calls));
        for (step, reference) in references.iter().enumerate() {
            let ledger_first = step % 2 == 0;
            let mut timings = [Duration::ZERO; 2];
            for kind in [ledger_first, !ledger_first] {
                let started = Instant::now();
                if kind {
                    setup.with_ledger(reference).await;
                    timings[0] = started.elapsed();
                } else {
                    setup.without_ledger(&plain).await;
                    timings[1] = started.elapsed();
                }
            }
            if step >= WARM_UP {
                with.push(timings[0].as_secs_f64() * 1e3);
                without.push(timings[1].as_secs_f64() * 1e3);
            }
        }
        let (with_median, with_p90) = (percentile(&mut with, 0.5), percentile(&mut with, 0.9));
        let (without_median, without_p90) = (percentile(&mut without, 0.5), percentile(&mut without, 0.9));
        let group = format!("ledger_decision_{name}");
        result(&group, &format!("ledger.handle_webhook ({label}), median"), "ms", with_median);
        result(&group, &format!("ledger.handle_webhook ({label}), p90"), "ms", with_p90);
        result(&group, "client.handle_webhook(body, expected), median", "ms", without_median);
        result(&group, "client.handle_webhook(body, expected), p90", "ms", without_p90);
        result(&group, "added by the ledger, median", "ms", with_median - without_median);
        result(&group, "added by the ledger, p90", "ms", with_p90 - without_p90);

        // Claims per second, 32 in flight, then the same decisions without the ledger.
        let references = Arc::new(setup.references(calls).await);
        let group = format!("ledger_claims_{name}");
        let rate = in_flight(&setup, &references, true).await;
        result(&group, &format!("ledger.handle_webhook ({label}), {IN_FLIGHT} in flight"), "claims/s", rate);
        let rate = in_flight(&setup, &references, false).await;
        result(&group, &format!("client.handle_webhook (no ledger), {IN_FLIGHT} in flight"), "decisions/s", rate);
    }
    drop(setup);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Decisions per second over `references`, `IN_FLIGHT` at once: with the ledger (each one a
/// claim) or the client alone on the same references.
async fn in_flight(setup: &Arc<Setup>, references: &Arc<Vec<String>>, ledger: bool) -> f64 {
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..IN_FLIGHT {
        let (setup, references, next) = (Arc::clone(setup), Arc::clone(references), Arc::clone(&next));
        tasks.spawn(async move {
            while let Some(reference) = references.get(next.fetch_add(1, Ordering::Relaxed)) {
                if ledger {
                    setup.with_ledger(reference).await;
                } else {
                    setup.without_ledger(reference).await;
                }
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    references.len() as f64 / started.elapsed().as_secs_f64()
}

/// The `q` quantile (nearest rank) of `values`.
fn percentile(values: &mut [f64], q: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let rank = ((values.len() as f64 * q).ceil() as usize).clamp(1, values.len());
    values[rank - 1]
}

fn result(group: &str, contender: &str, unit: &str, value: f64) {
    println!("RESULT\t{group}\t{contender}\t{unit}\t{value:.4}");
}
