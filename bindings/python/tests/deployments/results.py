"""Waiting for the results of work run in other processes (Celery tasks, pool jobs), each
within a deadline, and judging them: what was wrong (a problem) or None."""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import multiprocessing
import time
from decimal import Decimal

import celery.exceptions

import sika
from deployments.driving import Seeded


def outcome(result, label: str, deadline: float):
    """A task's (or an async result's) value or raised error, or a problem string when no
    answer came before `deadline` (time.monotonic())."""
    try:
        return result.get(timeout=max(0.1, deadline - time.monotonic()))
    except (concurrent.futures.TimeoutError, multiprocessing.TimeoutError, celery.exceptions.TimeoutError) as error:
        return f"{label}: no answer in time ({type(error).__name__})"
    except Exception as error:  # noqa: BLE001  (the caller judges the error it got)
        return error


def judge_records(label: str, value, check) -> str | None:
    """None when `value` (an outcome) is a record that passes `check`, else what it was."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseException) or not check(value):
        return f"{label}: got {value!r}"
    return None


def verified(seeded: Seeded):
    return lambda value: (
        isinstance(value, sika.Transaction)
        and value.tx_ref == seeded.reference
        and value.amount == Decimal(seeded.amount)
        and str(value.amount) == seeded.amount
    )


def confirmed(reference: str):
    return lambda value: isinstance(value, sika.PaymentCheck.CONFIRMED) and value.transaction.tx_ref == reference


def charged(reference: str):
    return lambda value: (
        isinstance(value, sika.ChargeResponse)
        and value.http_status == 200
        and json.loads(value.data_json or "{}").get("tx_ref") == reference
    )


def judge_pool_answers(answers) -> tuple[list[str], set[int]]:
    """Problems of (label, value or problem, check) answers whose values are (pid, record)."""
    problems, pids = [], set()
    for label, value, check in answers:
        if isinstance(value, tuple):
            pid, value = value
            pids.add(pid)
        problem = judge_records(label, value, check)
        if problem:
            problems.append(problem)
    return problems, pids


def crashed_workers(workers) -> list[str]:
    """Pool processes no longer alive (a crashed worker is replaced by the pool, silently)."""
    ended = [worker for worker in workers if worker.exitcode is not None]
    return [f"pool process {worker.pid} ended with {worker.exitcode}" for worker in ended]


class FutureResult:
    """A `concurrent.futures.Future` in the shape `outcome` reads (`get(timeout=...)`)."""

    def __init__(self, future: concurrent.futures.Future) -> None:
        self._future = future

    def get(self, timeout: float):
        return self._future.result(timeout=timeout)


def new_children(before) -> list:
    """The processes this one started since `before` (an earlier `active_children()`): a
    pool's workers."""
    return [child for child in multiprocessing.active_children() if child not in before]


def stop_pool(pool, workers) -> None:
    """Ends a `multiprocessing.Pool` whose workers may be stuck or whose result thread died."""
    # terminate() asserts that the pool's result thread is alive, after it stopped the pool's
    # other threads: that thread dies when a result pickles but cannot be rebuilt (its call then
    # never answers, which the test reports). Its workers are then left to us.
    with contextlib.suppress(AssertionError):
        pool.terminate()
    for worker in workers:
        if worker.exitcode is None:
            worker.kill()
        worker.join()


def shut_down(executor: concurrent.futures.ProcessPoolExecutor, workers) -> None:
    """Ends the executor without waiting on a worker that may be stuck: its `workers` get a
    few seconds to exit, and are killed after that."""
    executor.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.join(timeout=5)
        if worker.exitcode is None:
            worker.kill()
            worker.join()
