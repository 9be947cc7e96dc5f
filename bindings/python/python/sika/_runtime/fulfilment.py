"""Fulfilment blocks: exactly once against time, as the short path (issue 43, ADR 0071).

`BlockingLedger.fulfilment(claim)` is a context manager, and `Ledger.fulfilment(claim)` an
async one, over the core's `renew`, `mark_fulfilled` and `release` (UniFFI cannot export a
context manager):

- entering the block renews the claim first: a claim that lapsed and was offered to another
  caller meanwhile (a reconcile run's later payments, while the earlier ones shipped) is
  `ClaimLost` before the block runs, never shipped twice;
- while the block runs, the claim is renewed every `renew_interval_ms()` (a third of the
  lease), so a short lease is safe for a shipment of any length and a dead worker's claim
  ends quickly;
- when the block ends normally the claim is marked fulfilled;
- when it raises an `Exception` the claim is given back (`release`, with the exception's type
  and text as the reason), so the next delivery, settle or reconcile is offered the order at
  once, and the exception goes on;
- when it is interrupted by a `BaseException` that is not an `Exception` (`KeyboardInterrupt`,
  `SystemExit`, `asyncio.CancelledError`) the claim is kept as it is: the shipment may have
  gone out, so the order is offered again only after the lease, with a WARN line naming it;
- a renewal that finds the claim lost (the core logs it at WARN) is raised as `ClaimLost`
  when the block ends, and the claim is neither marked nor released: another caller holds it.
  The block itself is never stopped half-way: use the claim's `offer` as the fencing token of
  the systems it calls.

A renewal that fails for another reason (the database briefly down) is logged and retried at
the next interval: two failures in a row still leave a third of the lease.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import types
import typing

from . import _shape

_log = logging.getLogger("sika")


def _reason(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _interval_seconds(ledger: typing.Any) -> float:
    return typing.cast(int, ledger.renew_interval_ms()) / 1000.0


class _BlockingFulfilment:
    """`with ledger.fulfilment(claim) as claim:` on a `BlockingLedger`: a thread renews."""

    def __init__(self, ledger: typing.Any, claim: typing.Any, claim_lost: type) -> None:
        self._ledger = ledger
        self._claim = claim
        self._claim_lost = claim_lost
        self._lost: BaseException | None = None
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    def _renew_until_stopped(self) -> None:
        interval = _interval_seconds(self._ledger)
        while not self._stop.wait(interval):
            try:
                self._claim = self._ledger.renew(self._claim)
            except Exception as error:  # noqa: BLE001 (each failure is sorted below)
                if isinstance(error, self._claim_lost):
                    self._lost = error
                    return
                _log.warning(
                    "renewing the claim of %r failed (tried again in %.1f s): %s",
                    self._claim.reference,
                    interval,
                    error,
                )

    def __enter__(self) -> typing.Any:
        self._claim = self._ledger.renew(self._claim)
        # In a copy of the caller's context: its renewals are spans of the caller's trace.
        context = contextvars.copy_context()
        self._renewer = threading.Thread(
            target=context.run,
            args=(self._renew_until_stopped,),
            name=f"sika-renew-{self._claim.reference}",
            daemon=True,
        )
        self._renewer.start()
        return self._claim

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, _tb: object) -> None:
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join()
        _conclude(self._ledger.mark_fulfilled, self._ledger.release, self._claim, self._lost, error)


class _AsyncFulfilment:
    """`async with ledger.fulfilment(claim) as claim:` on a `Ledger`: a task renews."""

    def __init__(self, ledger: typing.Any, claim: typing.Any, claim_lost: type) -> None:
        self._ledger = ledger
        self._claim = claim
        self._claim_lost = claim_lost
        self._lost: BaseException | None = None
        self._renewer: asyncio.Task[None] | None = None

    async def _renew_forever(self) -> None:
        interval = _interval_seconds(self._ledger)
        while True:
            await asyncio.sleep(interval)
            try:
                self._claim = await self._ledger.renew(self._claim)
            except Exception as error:  # noqa: BLE001 (each failure is sorted below)
                if isinstance(error, self._claim_lost):
                    self._lost = error
                    return
                _log.warning(
                    "renewing the claim of %r failed (tried again in %.1f s): %s",
                    self._claim.reference,
                    interval,
                    error,
                )

    async def __aenter__(self) -> typing.Any:
        self._claim = await self._ledger.renew(self._claim)
        self._renewer = asyncio.get_running_loop().create_task(self._renew_forever())
        return self._claim

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None, _tb: object) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            try:
                await self._renewer
            except asyncio.CancelledError:
                pass
        await _conclude_async(self._ledger, self._claim, self._lost, error)


def _conclude(
    mark: typing.Callable[[typing.Any], None],
    release: typing.Callable[[typing.Any, str], None],
    claim: typing.Any,
    lost: BaseException | None,
    error: BaseException | None,
) -> None:
    """Marks, releases or keeps the claim for how the block ended (see the module's text)."""
    if lost is not None:
        if error is None:
            raise lost
        return  # the block's own exception goes on
    if error is None:
        mark(claim)
    elif isinstance(error, Exception):
        try:
            release(claim, _reason(error))
        except Exception as release_error:  # noqa: BLE001 (the block's own error goes on)
            _log.warning("giving back the claim of %r failed: %s", claim.reference, release_error)
    else:
        _kept(claim, error)


async def _conclude_async(
    ledger: typing.Any, claim: typing.Any, lost: BaseException | None, error: BaseException | None
) -> None:
    if lost is not None:
        if error is None:
            raise lost
        return  # the block's own exception goes on
    if error is None:
        await ledger.mark_fulfilled(claim)
    elif isinstance(error, Exception):
        try:
            await ledger.release(claim, _reason(error))
        except Exception as release_error:  # noqa: BLE001 (the block's own error goes on)
            _log.warning("giving back the claim of %r failed: %s", claim.reference, release_error)
    else:
        _kept(claim, error)


def _kept(claim: typing.Any, error: BaseException) -> None:
    _log.warning(
        "the fulfilment of %r was interrupted (%s): its claim is kept, so the order is offered again "
        "only after the lease; if the shipment went out, fulfil idempotently on offer %d",
        claim.reference,
        type(error).__name__,
        claim.offer,
    )


def install(ffi: types.ModuleType) -> None:
    claim_class = _shape.class_(ffi, "Claim")
    claim_lost = _shape.attribute(_shape.class_(ffi, "SikaError"), "ClaimLost")
    blocking = _shape.class_(ffi, "BlockingLedger")
    ledger = _shape.class_(ffi, "Ledger")
    for cls in (blocking, ledger):
        for method, parameters in (
            ("renew", ["self", "claim"]),
            ("release", ["self", "claim", "reason"]),
            ("mark_fulfilled", ["self", "claim"]),
            ("renew_interval_ms", ["self"]),
        ):
            _shape.function(cls, method, parameters)

    def _checked(claim: object) -> None:
        if not isinstance(claim, claim_class):
            raise TypeError(
                f"fulfilment() takes the Claim of a Fulfil decision (decision.claim), not {type(claim).__name__}"
            )

    # One text for both forms (`help()` of a blocking method is its async twin's, B102).
    doc = """Fulfils the claim's order in a `with` block (`async with` on `Ledger`): renews the
        claim on entry and every `renew_interval_ms()` while the block runs, marks it fulfilled
        when the block ends, gives it back (`release`) when the block raises an error.

        Parameters:
        - `claim`: the claim of a `Fulfil` decision (`decision.claim`).

        Returns: a context manager whose value is the claim.

        Errors: `ClaimLost` on entry (the claim went to another caller meanwhile: the block does
        not run) or at the block's end (a renewal found it lost: neither marked nor released);
        `Storage` when the database fails; `TypeError` for anything but a `Claim`."""

    def blocking_fulfilment(self: typing.Any, claim: typing.Any) -> _BlockingFulfilment:
        _checked(claim)
        return _BlockingFulfilment(self, claim, claim_lost)

    def async_fulfilment(self: typing.Any, claim: typing.Any) -> _AsyncFulfilment:
        _checked(claim)
        return _AsyncFulfilment(self, claim, claim_lost)

    blocking_fulfilment.__doc__ = async_fulfilment.__doc__ = doc
    blocking.fulfilment = blocking_fulfilment  # type: ignore[attr-defined]
    ledger.fulfilment = async_fulfilment  # type: ignore[attr-defined]
