"""Sika: mobile money and bank payments for Ghana, Kenya, Uganda, Tanzania and Nigeria.

Everything comes from the Rust core through the bindings UniFFI generates into
``sika._ffi``; this module re-exports every name they export. The core's doc comments are
the docstrings, and ``str(error)`` of every ``SikaError`` is the core's message (a checked
patch of the generated code, applied by the project's ``uniffi-bindgen``).

``Client`` methods are coroutines; ``BlockingClient`` has the same methods as plain calls
that release the GIL while they wait. Amounts are ``decimal.Decimal``, timestamps are
timezone-aware ``datetime`` objects in UTC.

The core's logs go to the ``sika`` logger of ``logging`` (``sika._logging``, set up on import):
configure it as any other; ``enable_logging(LogLevel.DEBUG)`` is a shortcut to standard error.
"""

from importlib.metadata import version as _version

from ._ffi import sika_ffi as _generated
from ._ffi.sika_ffi import *  # noqa: F403  (the exported names; __all__ below lists them)
from ._logging import enable_logging  # noqa: F401  (Python's own: a handler on the `sika` logger)

# The log bridge's plumbing, which `sika._logging` connects on import: not for merchants.
_LOG_BRIDGE = {"LogSink", "LogRecord", "set_log_sink", "set_log_sink_level", "close_log_sink", "log_level_from_env"}

# Every exported name but the generated `...Protocol` twins of the objects (an implementation
# detail) and the bridge's plumbing, so names the core adds later appear here without an edit.
__all__ = [name for name in _generated.__all__ if not name.endswith("Protocol") and name not in _LOG_BRIDGE]
__version__ = _version("sika")
