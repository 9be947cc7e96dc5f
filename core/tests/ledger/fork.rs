//! B164: a ledger opened before `fork` (gunicorn `--preload`, Celery's prefork pool) works in
//! the forked worker, on connections of its own (ADR 0055). The parent closes its ledger while
//! the child still holds the inherited one, then the child writes and exits; a new ledger must
//! find the child's record, and SQLite's file must be intact. On the inherited connections the
//! child's SQLite writes went to the WAL file the parent's close had deleted (lost), and its
//! PostgreSQL queries waited for the parent's runtime, which has no threads in the child (hung).

use std::time::{Duration, Instant};

use sika_core::ledger::Ledger;

use super::support::forking::{fork_child, wait_for_child};
use super::{Backend, Db, LONG_LEASE_MS, order, rusqlite_open};

/// Well past the PostgreSQL connect timeout and SQLite's busy timeout: a child still running
/// then is hung.
const CHILD_DEADLINE: Duration = Duration::from_secs(30);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime")
}

fn a_ledger_opened_before_a_fork_works_in_the_child(backend: Backend) {
    let db = Db::new(backend);
    let parent_runtime = runtime();
    let ledger: Ledger = parent_runtime.block_on(db.open(LONG_LEASE_MS));
    // Used before the fork: SQLite's connection is open, a PostgreSQL connection is pooled.
    parent_runtime.block_on(ledger.expect("B164-PARENT", &order("10.00"))).expect("the parent's expect");

    let (read_end, write_end) = pipe();
    let child = fork_child(|| {
        wait_for_byte(read_end);
        // The child's own runtime: the parent's has no threads here.
        let child_runtime = runtime();
        child_runtime.block_on(async {
            ledger.expect("B164-CHILD", &order("20.00")).await.map_err(|e| format!("expect: {e}"))?;
            match ledger.payment("B164-PARENT").await.map_err(|e| format!("payment: {e}"))? {
                Some(record) if record.expected == order("10.00") => Ok(()),
                other => Err(format!("the parent's record, read in the child: {other:?}")),
            }
        })
    });
    // The parent closes its ledger (SQLite checkpoints and deletes the WAL: it holds the only
    // lock, since locks are not inherited), then lets the child write.
    drop(ledger);
    send_byte(write_end);
    wait_for_child(child, Instant::now() + CHILD_DEADLINE).expect("the child used the ledger");

    let reopened = parent_runtime.block_on(db.open(LONG_LEASE_MS));
    let record = parent_runtime.block_on(reopened.payment("B164-CHILD")).expect("payment");
    assert_eq!(record.map(|r| r.expected), Some(order("20.00")), "the child's write is in the database");
    if backend == Backend::Sqlite {
        let check: String = rusqlite_open(&db.dir.join("ledger.db"))
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))
            .expect("integrity check");
        assert_eq!(check, "ok");
    }
}

#[test]
fn b164_a_ledger_opened_before_a_fork_works_in_the_child_sqlite() {
    a_ledger_opened_before_a_fork_works_in_the_child(Backend::Sqlite);
}

#[test]
fn b164_a_ledger_opened_before_a_fork_works_in_the_child_postgres() {
    a_ledger_opened_before_a_fork_works_in_the_child(Backend::Postgres);
}

fn pipe() -> (libc::c_int, libc::c_int) {
    let mut fds = [0; 2];
    // SAFETY: `fds` is a valid array of two descriptors for pipe(2) to fill.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe: {}", std::io::Error::last_os_error());
    (fds[0], fds[1])
}

fn wait_for_byte(fd: libc::c_int) {
    let mut byte = 0u8;
    // SAFETY: reads one byte into a valid buffer from a descriptor this process owns.
    let _ = unsafe { libc::read(fd, (&raw mut byte).cast(), 1) };
}

fn send_byte(fd: libc::c_int) {
    // SAFETY: writes one byte from a valid buffer to a descriptor this process owns.
    let written = unsafe { libc::write(fd, [1u8].as_ptr().cast(), 1) };
    assert_eq!(written, 1, "write: {}", std::io::Error::last_os_error());
}
