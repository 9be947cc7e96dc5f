//! `sika-bench MODE BASE_URL REFERENCE CALLS ROUNDS`: sequential verifications, one line per
//! round on stdout: `calls_per_second`. The key comes from `SIKA_BENCH_KEY` (never printed).
//!   raw: reqwest + serde by hand (GET, parse the envelope, read status, amount as Decimal),
//!        on a current-thread runtime (everything on the calling thread: the fastest shape)
//!   raw-mt: the same loop on a multi-thread runtime driven by `block_on` (`#[tokio::main]`)
//!   sdk: sika_core::BlockingClient::verify_transaction (the full typed Transaction)
//!   sdk-async-ct: the async sika_core::Client on a current-thread runtime (the SDK's own cost
//!        over `raw`, with no thread hand-off)
//!   sdk-threads: 32 threads sharing one BlockingClient, CALLS in all per round
//!   sdk-cached: BlockingClient::list_banks("NG") from the cache (a call's fixed cost, no I/O)
//! The last three measured the runtime choice of docs/adr/0010-blocking-client-runs-on-the-caller.md.
//!   ledger-sqlite, ledger-postgres: the payments ledger (issue 28), REFERENCE unused; prints
//!        `RESULT` lines itself (see `ledger`); PostgreSQL's URL comes from `SIKA_BENCH_PG_URL`.
//! A few calls before each timed round open the connection and warm the caches.

mod ledger;

use std::str::FromStr;
use std::time::Instant;

use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::value::RawValue;

#[derive(Deserialize)]
struct Envelope<'a> {
    status: bool,
    #[serde(borrow)]
    data: Option<Data<'a>>,
}

#[derive(Deserialize)]
struct Data<'a> {
    status: String,
    tx_ref: String,
    #[serde(borrow)]
    amount: &'a RawValue,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, mode, base_url, reference, calls, rounds] = &args[..] else {
        eprintln!(
            "usage: sika-bench raw|raw-mt|sdk|sdk-async-ct|sdk-threads|sdk-cached|ledger-sqlite|ledger-postgres BASE_URL REFERENCE CALLS ROUNDS"
        );
        std::process::exit(2);
    };
    let calls: usize = calls.parse().expect("CALLS");
    let rounds: usize = rounds.parse().expect("ROUNDS");
    let key = std::env::var("SIKA_BENCH_KEY").expect("SIKA_BENCH_KEY");
    match mode.as_str() {
        "raw" => raw(base_url, reference, &key, calls, rounds, false),
        "raw-mt" => raw(base_url, reference, &key, calls, rounds, true),
        "sdk" => sdk(base_url, reference, &key, calls, rounds),
        "sdk-async-ct" => sdk_async_ct(base_url, reference, &key, calls, rounds),
        "sdk-cached" => sdk_cached(base_url, &key, calls, rounds),
        "sdk-threads" => sdk_threads(base_url, reference, &key, calls, rounds),
        "ledger-sqlite" => ledger::run(ledger::Backend::Sqlite, base_url, &key, calls, rounds),
        "ledger-postgres" => ledger::run(ledger::Backend::Postgres, base_url, &key, calls, rounds),
        _ => panic!("unknown mode"),
    }
}

fn raw(base_url: &str, reference: &str, key: &str, calls: usize, rounds: usize, multi_thread: bool) {
    // `raw`: the fastest shape for one caller in a loop, a current-thread runtime.
    // `raw-mt`: what `#[tokio::main]` gives, a multi-thread runtime driven by `block_on`.
    let runtime = if multi_thread {
        tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap()
    } else {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    };
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder().tcp_nodelay(true).build().unwrap();
    let url = format!("{base_url}/transaction/verify/{reference}");
    let auth = format!("Bearer {key}");
    let one = || async {
        let response =
            http.get(&url).header("authorization", &auth).header("accept", "application/json").send().await.unwrap();
        let status = response.status();
        let body = response.bytes().await.unwrap();
        let envelope: Envelope<'_> = serde_json::from_slice(&body).unwrap();
        assert!(status.is_success() && envelope.status);
        let data = envelope.data.unwrap();
        let amount = Decimal::from_str(data.amount.get()).unwrap();
        assert!(data.status == "successful" && data.tx_ref == reference && !amount.is_zero());
    };
    runtime.block_on(async {
        for _ in 0..rounds {
            for _ in 0..20 {
                one().await;
            }
            let started = Instant::now();
            for _ in 0..calls {
                one().await;
            }
            println!("{:.1}", calls as f64 / started.elapsed().as_secs_f64());
        }
    });
}

fn sdk(base_url: &str, reference: &str, key: &str, calls: usize, rounds: usize) {
    let client = blocking_client(key, base_url);
    timed_rounds(rounds, calls, || {
        let transaction = client.verify_transaction(reference).unwrap();
        assert!(transaction.status == sika_core::TransactionStatus::Successful);
    });
}

fn blocking_client(key: &str, base_url: &str) -> sika_core::BlockingClient {
    sika_core::BlockingClient::new(sika_core::ClientConfig::new(key, base_url)).unwrap()
}

/// Prints the rate of `calls` sequential calls, once per round, each after 20 warm-up calls.
fn timed_rounds(rounds: usize, calls: usize, mut call: impl FnMut()) {
    for _ in 0..rounds {
        for _ in 0..20 {
            call();
        }
        let started = Instant::now();
        for _ in 0..calls {
            call();
        }
        println!("{:.1}", calls as f64 / started.elapsed().as_secs_f64());
    }
}

fn sdk_async_ct(base_url: &str, reference: &str, key: &str, calls: usize, rounds: usize) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let client = sika_core::Client::new(sika_core::ClientConfig::new(key, base_url)).unwrap();
        for _ in 0..rounds {
            for _ in 0..20 {
                client.verify_transaction(reference).await.unwrap();
            }
            let started = Instant::now();
            for _ in 0..calls {
                let transaction = client.verify_transaction(reference).await.unwrap();
                assert!(transaction.status == sika_core::TransactionStatus::Successful);
            }
            println!("{:.1}", calls as f64 / started.elapsed().as_secs_f64());
        }
    });
}

fn sdk_cached(base_url: &str, key: &str, calls: usize, rounds: usize) {
    let client = blocking_client(key, base_url);
    timed_rounds(rounds, calls, || {
        client.list_banks(Some("NG")).unwrap();
    });
}

fn sdk_threads(base_url: &str, reference: &str, key: &str, calls: usize, rounds: usize) {
    const THREADS: usize = 32;
    let client = blocking_client(key, base_url);
    for _ in 0..rounds {
        let started = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..THREADS {
                let client = &client;
                scope.spawn(move || {
                    for _ in 0..calls / THREADS {
                        client.verify_transaction(reference).unwrap();
                    }
                });
            }
        });
        println!("{:.1}", (calls / THREADS * THREADS) as f64 / started.elapsed().as_secs_f64());
    }
}
