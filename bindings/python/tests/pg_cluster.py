"""A throwaway PostgreSQL cluster for one test, as core/tests/ledger/cluster.rs starts it:
`initdb` and `pg_ctl` from the newest /usr/lib/postgresql/*/bin (or `SIKA_PG_BIN`, or PATH), in
a temporary directory, on a free loopback port, with a password (SCRAM), run as the
unprivileged user `sika-pg` that scripts/setup creates when the tests run as root (PostgreSQL
refuses root). `stop()` stops it and removes the directory. A cluster that cannot start fails
the test with the reason: nothing is skipped."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# The superuser's password: the tests check it is never printed.
PASSWORD = "pg_canary_pw_7f3a"


def _binaries() -> Path:
    if os.environ.get("SIKA_PG_BIN"):
        return Path(os.environ["SIKA_PG_BIN"])
    versions = sorted(
        (int(entry.name), entry / "bin")
        for entry in Path("/usr/lib/postgresql").glob("*")
        if entry.name.isdigit() and (entry / "bin" / "initdb").exists()
    )
    if versions:
        return versions[-1][1]
    found = shutil.which("initdb")
    if found is None:
        raise AssertionError("PostgreSQL is not installed (no initdb): run scripts/setup")
    return Path(found).parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    def __init__(self) -> None:
        self._bin = _binaries()
        self._user = os.environ.get("SIKA_PG_USER", "sika-pg") if os.geteuid() == 0 else None
        self._dir = Path(tempfile.mkdtemp(prefix="sika-pg-py-"))
        password_file = self._dir / "password"
        password_file.write_text(PASSWORD)
        if self._user is not None:
            try:
                record = pwd.getpwnam(self._user)
            except KeyError:
                raise AssertionError(f"user `{self._user}` does not exist: run scripts/setup") from None
            for path in (self._dir, password_file):
                os.chown(path, record.pw_uid, record.pw_gid)
        data = str(self._dir / "data")
        self._run(
            "initdb", "-D", data, "-U", "sika", "--pwfile", str(password_file), "-A", "scram-sha-256",
            "-E", "UTF8", "--locale", "C", "--no-sync", "--no-instructions",
        )  # fmt: skip
        self.port = _free_port()
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self._dir} "
            "-c fsync=off -c max_connections=200"
        )
        self._run("pg_ctl", "-D", data, "-l", str(self._dir / "log"), "-w", "-t", "60", "-o", options, "start")

    @property
    def url(self) -> str:
        return f"postgresql://sika:{PASSWORD}@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *args: str) -> None:
        command = [str(self._bin / program), *args]
        if self._user is not None:
            # installed-python runs the suite with a PATH of a few tools: runuser is in sbin.
            runuser = shutil.which("runuser") or shutil.which("runuser", path="/usr/sbin:/sbin") or "runuser"
            command = [runuser, "-u", self._user, "--", *command]
        done = subprocess.run(command, cwd=self._dir, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            log = (self._dir / "log").read_text() if (self._dir / "log").exists() else ""
            raise AssertionError(f"PostgreSQL's {program} failed: {done.stdout}{done.stderr}\nserver log:\n{log}")

    def freeze(self) -> None:
        """Stops every process of the cluster (SIGSTOP): connections stay open, nothing answers."""
        self._signal_all(signal.SIGSTOP)

    def thaw(self) -> None:
        """Lets a frozen cluster go on (SIGCONT)."""
        self._signal_all(signal.SIGCONT)

    def _signal_all(self, number: signal.Signals) -> None:
        postmaster = int((self._dir / "data" / "postmaster.pid").read_text().split()[0])
        # The backends first, then the postmaster (which would start no new one while stopped).
        for pid in [*_children_of(postmaster), postmaster]:
            os.kill(pid, number)

    @contextmanager
    def row_locked(self, table: str, reference: str) -> Iterator[None]:
        """Holds `reference`'s row of `table` locked (`SELECT ... FOR UPDATE` in an open
        transaction of another session, through `psql`) until the block ends."""
        session = subprocess.Popen(
            [str(self._bin / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", self.url],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        assert session.stdin is not None and session.stdout is not None
        try:
            session.stdin.write(
                f"BEGIN;\nSELECT 1 FROM {table} WHERE reference = '{reference}' FOR UPDATE;\n\\echo LOCKED\n"
            )
            session.stdin.flush()
            seen = []
            while (line := session.stdout.readline()) and line.strip() != "LOCKED":
                seen.append(line)
            if not line:
                raise AssertionError(f"psql did not lock the row: {''.join(seen)}")
            yield
        finally:
            session.communicate("ROLLBACK;\n\\q\n", timeout=30)

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self._dir / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self._dir, ignore_errors=True)


def _children_of(parent: int) -> list[int]:
    """The processes whose parent is `parent`, read from /proc (procps's pgrep is not on every machine)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # The command name may hold spaces and parentheses; the fields after its last ")" are plain.
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended while we looked
        if int(fields[1]) == parent:
            children.append(int(stat.parent.name))
    return children
