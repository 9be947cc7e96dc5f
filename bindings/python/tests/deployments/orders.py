"""The merchant's order book, shared by every worker process of a deployment: an SQLite file
(each call opens its own connection, so nothing is carried across a fork).

`fulfil_once` counts every call (one per delivery the handler fulfilled) and ships an order the
first time only: deliveries repeat, and the workers that receive them race.

`ship` is what the ledger's handlers call: it is not idempotent (each call is one more shipment,
with the pid of the worker that shipped), so an order fulfilled twice shows as two shipments. A
test can make an order's first shipment fail (`fail_first_shipment`): `ship` then raises
`ShipmentFailed` once, as a carrier's outage would, with nothing shipped."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from dataclasses import dataclass
from decimal import Decimal

SCHEMA = """
CREATE TABLE IF NOT EXISTS orders (
    reference TEXT PRIMARY KEY,
    amount TEXT NOT NULL,
    currency TEXT NOT NULL,
    fulfil_calls INTEGER NOT NULL DEFAULT 0,
    shipped_by_pid INTEGER
)
"""

SHIPMENTS = """
CREATE TABLE IF NOT EXISTS shipments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    reference TEXT NOT NULL,
    shipped_by_pid INTEGER NOT NULL
)
"""


SHIPMENT_FAILURES = """
CREATE TABLE IF NOT EXISTS shipment_failures (reference TEXT PRIMARY KEY)
"""


class ShipmentFailed(RuntimeError):
    """The carrier refused the shipment (a test's `fail_first_shipment`)."""


@dataclass(frozen=True)
class Order:
    reference: str
    amount: Decimal
    currency: str


@dataclass(frozen=True)
class Fulfilment:
    fulfil_calls: int
    shipped_by_pid: int | None


class Orders:
    def __init__(self, path: str) -> None:
        self._path = path

    @contextlib.contextmanager
    def _transaction(self):
        # A generous busy timeout: several workers write at once.
        connection = sqlite3.connect(self._path, timeout=10)
        # In WAL mode (set by `create_schema`), a commit need not wait for the disk: a
        # shipment costs well under a millisecond instead of an fsync (about 19 ms here).
        connection.execute("PRAGMA synchronous=NORMAL")
        try:
            with connection:  # commits, or rolls back on an exception
                yield connection
        finally:
            connection.close()

    def create_schema(self) -> None:
        with self._transaction() as db:
            db.execute(SCHEMA)
            db.execute(SHIPMENTS)
            db.execute(SHIPMENT_FAILURES)
        with contextlib.closing(sqlite3.connect(self._path)) as db:
            db.execute("PRAGMA journal_mode=WAL")  # persistent: every later connection uses it

    def add(self, reference: str, amount: str, currency: str = "GHS") -> None:
        with self._transaction() as db:
            db.execute(
                "INSERT INTO orders (reference, amount, currency) VALUES (?, ?, ?)", (reference, amount, currency)
            )

    def get(self, reference: str) -> Order | None:
        with self._transaction() as db:
            row = db.execute("SELECT amount, currency FROM orders WHERE reference = ?", (reference,)).fetchone()
        return None if row is None else Order(reference, Decimal(row[0]), row[1])

    def fulfil_once(self, reference: str) -> None:
        with self._transaction() as db:
            db.execute("UPDATE orders SET fulfil_calls = fulfil_calls + 1 WHERE reference = ?", (reference,))
            db.execute(
                "UPDATE orders SET shipped_by_pid = ? WHERE reference = ? AND shipped_by_pid IS NULL",
                (os.getpid(), reference),
            )

    def fail_first_shipment(self, reference: str) -> None:
        with self._transaction() as db:
            db.execute("INSERT INTO shipment_failures (reference) VALUES (?)", (reference,))

    def ship(self, reference: str) -> None:
        with self._transaction() as db:
            failing = db.execute("DELETE FROM shipment_failures WHERE reference = ?", (reference,)).rowcount
            if not failing:
                db.execute("INSERT INTO shipments (reference, shipped_by_pid) VALUES (?, ?)", (reference, os.getpid()))
        if failing:  # raised once the delete is committed: the next try ships
            raise ShipmentFailed(f"the carrier refused {reference}")

    def shipments(self) -> dict[str, list[int]]:
        """The pids that shipped each reference, one per shipment."""
        with self._transaction() as db:
            rows = db.execute("SELECT reference, shipped_by_pid FROM shipments ORDER BY id").fetchall()
        shipped: dict[str, list[int]] = {}
        for reference, pid in rows:
            shipped.setdefault(reference, []).append(pid)
        return shipped

    def fulfilments(self) -> dict[str, Fulfilment]:
        with self._transaction() as db:
            rows = db.execute("SELECT reference, fulfil_calls, shipped_by_pid FROM orders").fetchall()
        return {reference: Fulfilment(calls, pid) for reference, calls, pid in rows}


class AsyncOrders:
    """The same book for async handlers: SQLite's blocking calls run off the event loop."""

    def __init__(self, path: str) -> None:
        self._orders = Orders(path)

    async def get(self, reference: str) -> Order | None:
        return await asyncio.to_thread(self._orders.get, reference)

    async def fulfil_once(self, reference: str) -> None:
        await asyncio.to_thread(self._orders.fulfil_once, reference)

    async def ship(self, reference: str) -> None:
        await asyncio.to_thread(self._orders.ship, reference)
