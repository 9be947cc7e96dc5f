"""Sika: mobile money and bank payments for Ghana, Kenya, Uganda, Tanzania and Nigeria.

Everything comes from the Rust core through the bindings UniFFI generates into
``sika._ffi``; this module re-exports every name they export. The core's doc comments are
the docstrings, and ``str(error)`` of every ``SikaError`` is the core's message
(``sika._runtime``: Python that rebinds the untouched generated module on import).

``Client`` methods are coroutines; ``BlockingClient`` has the same methods as plain calls
that release the GIL while they wait. Amounts are ``decimal.Decimal``, timestamps are
timezone-aware ``datetime`` objects in UTC.

The core's logs go to the ``sika`` logger of ``logging`` (``sika._logging``, set up on import):
configure it as any other; ``enable_logging(LogLevel.DEBUG)`` is a shortcut to standard error.

The package is typed (``py.typed``): ``sika._ffi.sika_ffi_types``, generated with the
bindings, declares every name for mypy and pyright and re-exports the generated ones.
"""

import typing as _typing

# First of all: a free-threaded CPython is refused before the library is loaded (issue 47).
from ._build import refuse_free_threaded as _refuse_free_threaded

_refuse_free_threaded()

# Then Sika's runtime rebinds the generated module before any of its names is exported.
from . import _runtime  # noqa: F401, E402
from ._ffi import sika_ffi_types as _declared  # noqa: E402
from ._ffi.sika_ffi_types import *  # noqa: F403, E402  (the exported names; __all__ below lists them)
from ._logging import enable_logging  # noqa: F401, E402  (Python's own: a handler on the `sika` logger)
from . import _tracing  # noqa: F401, E402  (OpenTelemetry, when installed: ADR 0058, 0059)

# Every exported name but the generated `...Protocol` twins of the objects (an implementation
# detail, left out by the declarations) and the log bridge's plumbing, which `sika._logging`
# connects on import: not for merchants. Names the core adds later appear here without an
# edit. (`+=` of a module's `__all__` and `remove` are forms type checkers follow.)
__all__: list[str] = []
__all__ += _declared.__all__
__all__.remove("LogSink")
__all__.remove("LogRecord")
__all__.remove("set_log_sink")
__all__.remove("set_log_sink_level")
__all__.remove("close_log_sink")
__all__.remove("log_level_from_env")
# The tracer bridge's plumbing: `sika._tracing` connects OpenTelemetry on import (ADR 0058, 0059).
__all__.remove("Tracer")
__all__.remove("set_tracer")
__all__.remove("CallStart")
__all__.remove("TracedCall")
__all__.remove("CallEnd")
__all__.remove("AttemptSpan")
__all__.remove("EndedCall")
__all__.remove("trace_next_call")
__all__.remove("take_ended_call")
# A host runtime's report for the server-only check (ADR 0027): only Kotlin reports; not for merchants.
__all__.remove("report_host_runtime")
__all__.remove("check_host_runtime")


def __getattr__(name: str) -> _typing.Any:
    # `__version__`, read from the installed package's metadata when first asked: importing
    # `importlib.metadata` cost 15-26 ms of `import sika` (issue 27: under 30 ms in all).
    if name == "__version__":
        from importlib.metadata import version

        value = version("sika")
        globals()["__version__"] = value
        return value
    raise AttributeError(f"module 'sika' has no attribute {name!r}")
