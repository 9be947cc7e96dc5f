"""A charge cancelled after its request may have reached the service (ADR 0075, B231).

asyncio's contract is that a cancelled task raises `CancelledError`; the SDK keeps it. But a
charge cancelled after it may have been sent may still be made, and a bare `CancelledError`
reads as "not charged". The core decides, as the call is dropped, whether its charge may have
been sent; when it may, it logs a WARN record with the reference and the request id and keeps a
`ChargeOutcomeUnknown` for `take_cancelled_charge(reference)`. Here `Client.initiate_charge`
and `Ledger.initiate_charge` take it when they are cancelled, and raise the `CancelledError`
with it as its `__cause__` (the task's awaiter gets that same exception). A charge cancelled
before anything was sent raises the bare `CancelledError`, as before.

Python 3.9 and 3.10 hand a cancelled task's awaiter a fresh `CancelledError` (3.11 re-raises the
task's own), so there a cause could not reach the caller: the error is left for
`take_cancelled_charge(reference)`, with the WARN record, instead of being taken for nothing.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import sys
import types
import typing

from . import _shape

_CAUSE_REACHES_THE_AWAITER = sys.version_info >= (3, 11)


def install(ffi: types.ModuleType) -> None:
    take: typing.Any = _shape.attribute(ffi, "take_cancelled_charge")
    request_type: typing.Any = _shape.class_(ffi, "ChargeRequest")

    def with_cause(owner: str, generated: typing.Any) -> typing.Any:
        if not inspect.iscoroutinefunction(generated):
            raise _shape.mismatch(f"`{owner}.initiate_charge` is not a coroutine function")
        parameters = inspect.signature(generated).parameters
        if "request" not in parameters:
            raise _shape.mismatch(f"`{owner}.initiate_charge` takes no `request`")
        bind = inspect.signature(generated).bind

        @functools.wraps(generated)
        async def initiate_charge(*args: typing.Any, **kwargs: typing.Any) -> typing.Any:
            try:
                return await generated(*args, **kwargs)
            except asyncio.CancelledError as cancelled:
                request: typing.Any = bind(*args, **kwargs).arguments.get("request")
                if _CAUSE_REACHES_THE_AWAITER and isinstance(request, request_type):
                    unknown = take(request.reference)
                    if unknown is not None:
                        raise cancelled from unknown
                raise

        return initiate_charge

    for owner in ("Client", "Ledger"):
        cls: typing.Any = _shape.class_(ffi, owner)
        cls.initiate_charge = with_cause(owner, _shape.attribute(cls, "initiate_charge"))
