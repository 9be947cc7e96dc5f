"""Driving a deployed shop over HTTP from many threads at once, every call within its
deadline; each call returns what was wrong with its answer (a problem) or None."""

from __future__ import annotations

import concurrent.futures
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx

from deployments.servers import Server
from support import CONTROL_OPERATIONS, Sandbox

# Calls in flight at once: more than any shape's workers (or threads) can take, so every
# worker serves some.
CONCURRENCY = 12
# A call's bound: past the shop's 5 s SDK timeout, so a call stuck in a broken worker shows as
# its typed error when the SDK gives up, and as "no answer" only when the worker never does.
CALL_DEADLINE_S = 15.0
# A batch's bound, all its calls together.
BATCH_DEADLINE_S = 45.0


@dataclass(frozen=True)
class Seeded:
    """A transaction seeded in the sandbox: its reference and amount (as text)."""

    reference: str
    amount: str


def run_at_once(jobs) -> list[str]:
    """Runs the jobs `CONCURRENCY` at a time; each returns a problem (or None). A job that
    raises, or is still running at the batch's deadline, is a problem too."""
    problems = []
    pool = ThreadPoolExecutor(max_workers=CONCURRENCY)
    try:
        futures = {pool.submit(job): job for job in jobs}
        done, late = concurrent.futures.wait(futures, timeout=BATCH_DEADLINE_S)
        for future in done:
            try:
                problems.append(future.result())
            except Exception as error:  # noqa: BLE001  (any failure of a job is reported)
                problems.append(f"{futures[future].__name__}: {error!r}")
        problems += [f"{futures[future].__name__}: still running after {BATCH_DEADLINE_S} s" for future in late]
    finally:
        # Every call has its own deadline, so the threads end by themselves.
        pool.shutdown(wait=False, cancel_futures=True)
    return sorted(problem for problem in problems if problem)


def named(name: str):
    def rename(job):
        job.__name__ = name
        return job

    return rename


class Shop:
    """The HTTP side of a deployed shop: each call returns a problem or None, and notes the
    worker process (pid) that answered."""

    def __init__(self, server: Server, http: httpx.Client) -> None:
        self.server = server
        self.http = http
        self.pids: set[int] = set()

    def _call(self, label: str, method: str, path: str, **request) -> tuple[int, dict] | str:
        try:
            answer = self.http.request(method, self.server.route(path), **request)
        except httpx.HTTPError as error:
            return f"{label}: no answer ({type(error).__name__}: {error})"
        try:
            body = answer.json()
        except ValueError:
            return f"{label}: HTTP {answer.status_code}, not JSON: {answer.text[:200]!r}"
        if "pid" in body:
            self.pids.add(body["pid"])
        return answer.status_code, body

    def verify(self, seeded: Seeded):
        @named(f"verify {seeded.reference}")
        def job():
            answer = self._call(job.__name__, "GET", f"/verify/{seeded.reference}")
            expected = {"reference": seeded.reference, "tx_ref": seeded.reference, "amount": seeded.amount}
            return mismatch(job.__name__, answer, 200, expected)

        return job

    def verify_unknown(self, reference: str):
        @named(f"verify unknown {reference}")
        def job():
            answer = self._call(job.__name__, "GET", f"/verify/{reference}")
            return mismatch(job.__name__, answer, 404, {"reference": reference, "error": "TransactionNotFound"})

        return job

    def charge(self, reference: str, phone_number: str):
        @named(f"charge {reference}")
        def job():
            answer = self._call(
                job.__name__, "POST", "/charge", json={"reference": reference, "phone_number": phone_number}
            )
            expected = {"reference": reference, "tx_ref": reference, "http_status": 200}
            return mismatch(job.__name__, answer, 200, expected)

        return job

    def confirm(self, reference: str, amount: str, expected_check: str):
        @named(f"confirm {reference}")
        def job():
            answer = self._call(
                job.__name__, "GET", f"/confirm/{reference}", params={"amount": amount, "currency": "GHS"}
            )
            expected = {"reference": reference, "check": expected_check, "tx_ref": reference}
            return mismatch(job.__name__, answer, 200, expected)

        return job


def mismatch(label: str, answer: tuple[int, dict] | str, status: int, expected: dict) -> str | None:
    """None when the answer has `status` and the expected fields, else what was wrong."""
    if isinstance(answer, str):
        return answer
    got_status, body = answer
    got = {key: body.get(key) for key in expected}
    if (got_status, got) != (status, expected):
        return f"{label}: HTTP {got_status} {body}, expected HTTP {status} {expected}"
    return None


def no_problems(problems: list[str]) -> str:
    return f"{len(problems)} problems:\n" + "\n".join(problems)


def send_webhook(
    sandbox: Sandbox,
    reference: str,
    times: int,
    body: str | None = None,
    url: str | None = None,
    at_once: bool = False,
    http: httpx.Client | None = None,
):
    """Asks the sandbox to deliver a notification `times` times now, one after the other or
    all at once (it answers once all were made, each within the sandbox's 5 s delivery
    time-out), to its webhook URL or to `url`; through `http` when given (a client made per
    call costs tens of milliseconds of CPU: its TLS context)."""
    spec = CONTROL_OPERATIONS["send_webhook"]
    request: dict = {"reference": reference, "times": times, "concurrent": at_once}
    if body is not None:
        request["body"] = body
    if url is not None:
        request["url"] = url

    @named(f"send webhook {reference}")
    def job():
        try:
            if http is None:
                answer = httpx.request(
                    spec["method"], sandbox.url + spec["path"], json=request, timeout=5.0 * times + 10, trust_env=False
                )
            else:
                answer = http.request(
                    spec["method"], sandbox.url + spec["path"], json=request, timeout=5.0 * times + 10
                )
        except httpx.HTTPError as error:
            return f"{job.__name__}: the sandbox did not answer ({error!r})"
        if answer.status_code != spec["expect"]:
            return f"{job.__name__}: HTTP {answer.status_code} {answer.text}"
        return None

    return job


def answers_by_reference(sandbox: Sandbox, url: str) -> dict[str, list]:
    """The receiver's HTTP status of each delivery to `url` (None: no answer), per reference."""
    answers: dict[str, list] = {}
    for attempt in sandbox.webhooks():
        if attempt["url"] == url:
            answers.setdefault(attempt["reference"], []).append(attempt["http_status"])
    return answers
