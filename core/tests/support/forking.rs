//! Forking in a test: a child that runs a closure and reports through its exit code, and a
//! wait with a deadline (a hung child is killed and reported).

use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

/// Forks; the child runs `body` and exits with 0 when it returns `Ok` (1 with the reason on
/// stderr, 101 on a panic), never returning here. The parent gets the child's pid.
pub fn fork_child(body: impl FnOnce() -> std::result::Result<(), String>) -> libc::pid_t {
    // SAFETY: fork has no preconditions; the child only runs `body` (what the SDK must
    // survive: a fork of a multi-threaded process) and leaves with `_exit`, so nothing of the
    // parent's (the test harness, its threads' destructors) runs in it.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed: {}", std::io::Error::last_os_error());
    if pid == 0 {
        let code = match std::panic::catch_unwind(AssertUnwindSafe(body)) {
            Ok(Ok(())) => 0,
            Ok(Err(reason)) => {
                eprintln!("child {}: {reason}", std::process::id());
                1
            }
            Err(_panic) => 101,
        };
        // SAFETY: ends the child without running the parent's exit handlers or destructors.
        unsafe { libc::_exit(code) };
    }
    pid
}

/// Waits for `pid` until `deadline`; a child still running then is killed. `Ok` when it exited
/// with 0, else what happened.
pub fn wait_for_child(pid: libc::pid_t, deadline: Instant) -> std::result::Result<(), String> {
    loop {
        let mut status = 0;
        // SAFETY: waits for our own child; `status` is a valid out pointer.
        let waited = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        assert!(waited >= 0, "waitpid: {}", std::io::Error::last_os_error());
        if waited == pid {
            return match (libc::WIFEXITED(status), libc::WEXITSTATUS(status)) {
                (true, 0) => Ok(()),
                (true, code) => Err(format!("child {pid} exited with {code} (its reason is on stderr)")),
                (false, _) => Err(format!("child {pid} was killed by signal {}", libc::WTERMSIG(status))),
            };
        }
        if Instant::now() >= deadline {
            // SAFETY: kills and reaps our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return Err(format!("child {pid} hung: killed at the deadline"));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
