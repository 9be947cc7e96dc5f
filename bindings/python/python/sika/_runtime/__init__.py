"""Sika's Python runtime over UniFFI's generated module, as ordinary Python (ADR 0033).

`sika/_ffi/sika_ffi.py` is exactly what UniFFI's Python generator writes. Next to it the
project's generator writes modules derived from the same metadata: `sika_ffi_meta.py` (the
lists this runtime works through: the functions that keep the GIL, the objects, the records,
the enums) and `sika_ffi_readers.py` (the flat readers), and `sika_ffi_types.py` (the typed
declarations). On import, before `sika` exports a name, the modules of this package rebind the
generated module's functions, converter methods and class attributes; each first checks that
the names it replaces exist with the shape it was written for (`_shape`), so a UniFFI upgrade
that changes one fails the import, naming the version this runtime was written for.

The order matters: the call path first (the others call through it), the records' classes
before the enum writes and the readers, which build and read their values.
"""

from __future__ import annotations

import importlib

from . import (
    _shape,
    amounts,
    asyncio_wakes,
    blocking,
    byte_strings,
    calls,
    cancelled_charges,
    decisions,
    defaults,
    enum_writes,
    errors,
    fulfilment,
    gil,
    lifecycle,
    objects,
    readers,
    records,
    texts,
)

_ffi = importlib.import_module("sika._ffi.sika_ffi")
_meta = importlib.import_module("sika._ffi.sika_ffi_meta")

defaults.install(_ffi)
calls.install(_ffi)
byte_strings.install(_ffi)
gil.install(_ffi, _meta.FUNCTIONS_KEEPING_THE_GIL)
asyncio_wakes.install(_ffi)
errors.install(_ffi, _meta.ERRORS, _meta.ERROR_DEFAULTS)
texts.install(_ffi)
objects.install(_ffi, _meta.OBJECTS)
lifecycle.install(_ffi, _meta.OBJECTS)
blocking.install(_ffi)
fulfilment.install(_ffi)
cancelled_charges.install(_ffi)
records.install(_ffi, _meta)
decisions.install(_ffi, _meta.DATA_ENUMS)
amounts.install(_ffi, _meta.RECORDS)
enum_writes.install(_ffi, _meta.ENUM_WRITES)
readers.install(_ffi, importlib.import_module("sika._ffi.sika_ffi_readers"))

__all__ = ["_shape"]
