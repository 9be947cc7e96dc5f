"""Starting, watching and stopping the deployments' server processes.

Each server gets a listening socket the test bound on 127.0.0.1 (an ephemeral port, so no race
for a free one), inherited as a file descriptor (gunicorn `fd://N`, uvicorn `--fd N`, as
systemd socket activation hands one over). Its output goes to a log file the tests read for
crashed or killed workers. Every wait has a deadline; a server that does not stop in time is
killed with its whole process group."""

from __future__ import annotations

import ctypes
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

TESTS_DIR = Path(__file__).resolve().parents[1]
BIN_DIR = Path(sys.executable).parent

START_DEADLINE_S = 30.0
# What gunicorn's arbiter logs for each worker it forks (a replaced one is booted anew).
WORKER_BOOTED = "Booting worker with pid"
STOP_DEADLINE_S = 15.0
# <linux/prctl.h>
PR_SET_PDEATHSIG = 1

# Lines a server logs when a worker died, was killed or stuck: gunicorn's arbiter ("Worker
# (pid:N) was sent SIGSEGV!", "WORKER TIMEOUT", "exited with code"), Celery's pool ("exited
# with 'signal 11 (SIGSEGV)'", WorkerLostError, "Hard time limit"), uvicorn and Python
# themselves. (Not every traceback: Celery logs one for each task that raised, as some must.)
CRASH = re.compile(
    r"was sent SIG(?!TERM)|WORKER TIMEOUT|exited with code|exited with 'signal|WorkerLostError|Hard time limit"
    r"|Exception in ASGI application|Fatal Python error"
)


@dataclass(frozen=True)
class Shape:
    """One way of serving the shop: the command (given the listening socket's descriptor),
    the URL prefix of its routes and how many gunicorn workers it forks (0: it does not fork)."""

    name: str
    command: Callable[[int], list[str]] | None
    prefix: str = ""
    workers: int = 0


def gunicorn(app: str, worker_class: str, workers: int, *options: str):
    def command(fd: int) -> list[str]:
        return [
            str(BIN_DIR / "gunicorn"),
            "--preload",
            f"--workers={workers}",
            f"--worker-class={worker_class}",
            f"--bind=fd://{fd}",
            # Longer than the shop's 5 s SDK timeout: only a worker stuck past it is killed.
            "--timeout=20",
            "--graceful-timeout=5",
            "--no-control-socket",
            *options,
            app,
        ]

    return command


def uvicorn(app: str, loop: str):
    def command(fd: int) -> list[str]:
        return [str(BIN_DIR / "uvicorn"), f"--fd={fd}", f"--loop={loop}", "--no-access-log", app]

    return command


@dataclass
class Server:
    """A running server; `stop()` ends it (and its workers) within the deadline."""

    shape: Shape
    url: str
    log_path: Path
    process: subprocess.Popen

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def route(self, path: str) -> str:
        return f"{self.url}{self.shape.prefix}{path}"

    def crash_lines(self) -> list[str]:
        return [line for line in self.log().splitlines() if CRASH.search(line)]

    def workers_booted(self) -> int:
        return self.log().count(WORKER_BOOTED)

    def health_problems(self) -> list[str]:
        """What shows that a worker crashed, was killed or replaced, or that the server died."""
        problems = [f"log: {line}" for line in self.crash_lines()]
        if self.process.poll() is not None:
            # Its last words: a CI machine is gone once the run ends.
            last_lines = "\n".join(self.log().splitlines()[-20:])
            problems.append(f"the server exited with {self.process.returncode}; its log ends:\n{last_lines}")
        if self.shape.workers and self.workers_booted() != self.shape.workers:
            problems.append(f"{self.workers_booted()} workers booted for {self.shape.workers}: some were replaced")
        return problems

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_DEADLINE_S)
            except subprocess.TimeoutExpired:
                pass
        # The workers too, whatever the master did (it leads its own process group).
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()


def launch(command: list[str], environment: dict[str, str], log_path: Path, pass_fds=()) -> subprocess.Popen:
    """Runs `command` from the tests' directory (so `deployments` is importable) in its own
    process group, its output to `log_path`. If the test process dies without stopping it, the
    server is sent SIGTERM (Linux's parent-death signal), so no server outlives a killed run."""
    with open(log_path, "wb") as log:
        return subprocess.Popen(
            command,
            cwd=TESTS_DIR,
            env={**os.environ, "PYTHONPATH": str(TESTS_DIR), **environment},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            pass_fds=pass_fds,
            start_new_session=True,
            preexec_fn=terminate_with_parent,
        )


def terminate_with_parent() -> None:
    """In the child, before exec: PR_SET_PDEATHSIG = SIGTERM."""
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")


def start(shape: Shape, environment: dict[str, str], log_path: Path) -> Server:
    """Starts the shape's server on a fresh loopback port and waits until it answers and,
    when it forks, until every worker has booted."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    assert shape.command is not None, f"{shape.name} is not started by a command"
    process = launch(shape.command(listener.fileno()), environment, log_path, pass_fds=(listener.fileno(),))
    # The server has its own copy of the socket now.
    listener.close()
    server = Server(shape, url, log_path, process)
    try:
        wait_until_serving(server)
    except BaseException:
        server.stop()
        raise
    return server


def start_celery_worker(concurrency: int, environment: dict[str, str], log_path: Path) -> Server:
    """A Celery prefork worker of `deployments.celery_app`, once it is ready for tasks."""
    command = [
        str(BIN_DIR / "celery"),
        "--app=deployments.celery_app",
        "worker",
        "--pool=prefork",
        f"--concurrency={concurrency}",
        # As gunicorn's --timeout: a pool process stuck past the shop's 5 s SDK timeout is
        # killed, and says so in the log.
        "--time-limit=20",
        "--loglevel=INFO",
        # The filesystem transport has no broadcast.
        "--without-mingle",
        "--without-gossip",
        "--without-heartbeat",
    ]
    shape = Shape("celery-prefork", command=None)
    server = Server(shape, "", log_path, launch(command, environment, log_path))
    deadline = time.monotonic() + START_DEADLINE_S
    while not re.search(r"celery@\S+ ready", server.log()):
        if server.process.poll() is not None or time.monotonic() > deadline:
            server.stop()
            raise AssertionError(f"the Celery worker did not get ready:\n{server.log()}")
        time.sleep(0.1)
    return server


def wait_until_serving(server: Server) -> None:
    deadline = time.monotonic() + START_DEADLINE_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise AssertionError(f"{server.shape.name} exited with {server.process.returncode}:\n{server.log()}")
        try:
            answered = httpx.get(server.route("/health"), timeout=2, trust_env=False).status_code == 200
        except httpx.HTTPError:
            answered = False
        if answered and (not server.shape.workers or server.workers_booted() >= server.shape.workers):
            return
        time.sleep(0.1)
    raise AssertionError(f"{server.shape.name} did not serve within {START_DEADLINE_S} s:\n{server.log()}")
