//! A throwaway PostgreSQL cluster for one test: `initdb` and `pg_ctl` from
//! `/usr/lib/postgresql/*/bin` (or `SIKA_PG_BIN`), in a temporary directory, on a free loopback
//! port, with a password (SCRAM), run as the unprivileged user `sika-pg` that `scripts/setup`
//! creates (PostgreSQL refuses root). Stopped and removed when dropped. Nothing is skipped: a
//! cluster that cannot start fails the test with the reason.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

/// The password of the clusters' superuser `sika`: the tests check it is never printed.
pub const PASSWORD: &str = "pg_canary_pw_7f3a";

pub struct Cluster {
    dir: PathBuf,
    bin: PathBuf,
    user: Option<String>,
    pub port: u16,
}

impl Cluster {
    pub fn start() -> Self {
        let bin = binaries();
        let user = run_as();
        static COUNT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "sika-pg-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let password_file = dir.join("password");
        std::fs::write(&password_file, PASSWORD).expect("password file");
        if let Some(user) = &user {
            chown(&dir, user);
            chown(&password_file, user);
        }
        let mut cluster = Self { dir, bin, user, port: 0 };
        let data = cluster.data();
        cluster.run_ok(
            "initdb",
            &[
                "-D",
                path_str(&data),
                "-U",
                "sika",
                "--pwfile",
                path_str(&password_file),
                "-A",
                "scram-sha-256",
                "-E",
                "UTF8",
                "--locale",
                "C",
                "--no-sync",
                "--no-instructions",
            ],
        );
        cluster.port = free_port();
        cluster.start_server();
        cluster
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// `postgresql://sika:PASSWORD@127.0.0.1:PORT/postgres`
    pub fn url(&self) -> String {
        format!("postgresql://sika:{PASSWORD}@127.0.0.1:{}/postgres", self.port)
    }

    /// Starts the server (again, after [`Cluster::stop`]), on the same port.
    pub fn start_server(&self) {
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} -c fsync=off \
             -c max_connections=200",
            self.port,
            path_str(&self.dir)
        );
        let log = self.dir.join("log");
        let data = self.data();
        self.run_ok(
            "pg_ctl",
            &["-D", path_str(&data), "-l", path_str(&log), "-w", "-t", "60", "-o", &options, "start"],
        );
    }

    /// Stops the server at once (`immediate`: like a crash, open connections are cut; committed
    /// transactions survive, `synchronous_commit` being on).
    pub fn stop(&self) {
        let data = self.data();
        self.run_ok("pg_ctl", &["-D", path_str(&data), "-m", "immediate", "-w", "stop"]);
    }

    /// Freezes the server and every backend (SIGSTOP), a stand-in for a partition or a stalled
    /// machine: connections stay open and nothing answers.
    pub fn freeze(&self) {
        self.signal_all(libc::SIGSTOP);
    }

    /// Lets a frozen server go on (SIGCONT).
    pub fn thaw(&self) {
        self.signal_all(libc::SIGCONT);
    }

    fn signal_all(&self, signal: libc::c_int) {
        let pid_file = std::fs::read_to_string(self.data().join("postmaster.pid")).expect("postmaster.pid");
        let postmaster: libc::pid_t =
            pid_file.lines().next().and_then(|line| line.trim().parse().ok()).expect("the postmaster's pid");
        // The backends first, then the postmaster (which would start no new one while stopped).
        let mut pids = children_of(postmaster);
        pids.push(postmaster);
        for pid in pids {
            // SAFETY: kill(2) takes plain integers and touches no memory of ours.
            let sent = unsafe { libc::kill(pid, signal) };
            assert_eq!(sent, 0, "kill({pid}, {signal}): {}", std::io::Error::last_os_error());
        }
    }

    fn command(&self, program: &str) -> Command {
        let program = self.bin.join(program);
        match &self.user {
            Some(user) => {
                let mut command = Command::new("runuser");
                command.args(["-u", user, "--"]).arg(program);
                command
            }
            None => Command::new(program),
        }
    }

    fn run(&self, program: &str, args: &[&str]) -> Output {
        self.command(program)
            .args(args)
            .current_dir(&self.dir)
            .output()
            .unwrap_or_else(|e| panic!("PostgreSQL's {program} did not run: {e}"))
    }

    fn run_ok(&self, program: &str, args: &[&str]) {
        let output = self.run(program, args);
        if !output.status.success() {
            let log = std::fs::read_to_string(self.dir.join("log")).unwrap_or_default();
            panic!(
                "PostgreSQL's {program} failed ({}): {}{}\nserver log:\n{log}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.data();
        let _ = self.run("pg_ctl", &["-D", path_str(&data), "-m", "immediate", "-w", "stop"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temporary path")
}

/// The newest `/usr/lib/postgresql/N/bin`, or `SIKA_PG_BIN`, or the directory of `initdb` on PATH.
fn binaries() -> PathBuf {
    if let Some(dir) = std::env::var_os("SIKA_PG_BIN") {
        return PathBuf::from(dir);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return bin;
    }
    let found = Command::new("sh").args(["-c", "command -v initdb"]).output().expect("sh runs");
    let path = String::from_utf8_lossy(&found.stdout).trim().to_owned();
    assert!(
        !path.is_empty(),
        "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb, no initdb on PATH): run scripts/setup"
    );
    Path::new(&path).parent().expect("initdb's directory").to_owned()
}

/// As root, the clusters run as `sika-pg` (or `SIKA_PG_USER`); otherwise as the current user.
fn run_as() -> Option<String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return None;
    }
    let user = std::env::var("SIKA_PG_USER").unwrap_or_else(|_| "sika-pg".to_owned());
    let known = Command::new("id").arg(&user).output().is_ok_and(|o| o.status.success());
    assert!(known, "user `{user}` does not exist: run scripts/setup (PostgreSQL refuses to run as root)");
    Some(user)
}

fn chown(path: &Path, user: &str) {
    let id = |flag: &str| -> u32 {
        let output = Command::new("id").args([flag, user]).output().expect("id runs");
        String::from_utf8_lossy(&output.stdout).trim().parse().expect("numeric id")
    };
    std::os::unix::fs::chown(path, Some(id("-u")), Some(id("-g"))).expect("chown to the cluster's user");
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("address").port()
}

/// The processes whose parent is `parent`, read from /proc (procps's `pgrep` and `kill` are not
/// on every machine: the installed-package suites' PATH has neither).
fn children_of(parent: libc::pid_t) -> Vec<libc::pid_t> {
    let mut children = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<libc::pid_t>() else { continue };
        // A process may end while we look; its command name may hold spaces and parentheses,
        // so its parent is the second field after the name's last `)`.
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let parent_of = stat.rsplit_once(')').and_then(|(_, fields)| fields.split_whitespace().nth(1)?.parse().ok());
        if parent_of == Some(parent) {
            children.push(pid);
        }
    }
    children
}
