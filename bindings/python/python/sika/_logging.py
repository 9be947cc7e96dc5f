"""The core's logs in Python's ``logging`` (ADR 0014), set up when ``sika`` is imported.

The Rust core's records reach the ``sika`` logger's children (``sika.transport`` for requests
and retries, ``sika.client`` for charges) at their levels, and follow whatever the application
configures with ``logging``, whenever it does: nothing to call. Like every library, ``sika``
adds only a ``NullHandler``, so nothing is printed until the application configures logging
(or calls ``enable_logging``).

The core builds a record only when a ``sika`` logger would accept it: it keeps the most
detailed level any of them accepts, asks the sink for it (``_Sink.level``) at install and at
most once a second, and this module tells it at once after every level change made through
``logging`` (``setLevel``, ``disable``, ``basicConfig``, ``dictConfig``).

Records reach the handlers on the SDK's logging thread (``sika-log``), never on a thread that
makes a call (ADR 0044): a slow handler delays records, not calls. Each record carries its facts
as attributes too (``operation``, ``reference``, ``http_status``, ``attempt``, ``duration_ms``,
``request_id`` (the ``X-Request-Id`` sent with the attempt),
``dropped``; None when unknown), so a JSON formatter or structlog gets them without parsing the
message. ``os.fork()`` waits until no record is in a handler, so a child never inherits a
handler's lock (or its stream's) held by that thread.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
import traceback

from ._runtime.thread_states import keep_this_threads_state
from ._ffi.sika_ffi_types import (
    LogLevel,
    LogRecord,
    LogSink,
    close_log_sink,
    flush_log_records,
    log_level_from_env,
    set_log_sink,
    set_log_sink_level,
)

__all__ = ["enable_logging"]

_NAME = "sika"
# Python has no TRACE; 5, below DEBUG, is the usual number for it.
_PYTHON_LEVELS = {
    LogLevel.TRACE: 5,
    LogLevel.DEBUG: logging.DEBUG,
    LogLevel.INFO: logging.INFO,
    LogLevel.WARN: logging.WARNING,
    LogLevel.ERROR: logging.ERROR,
}
# Whether every level change reaches `_refresh` (`_follow_level_changes`); if not, the core
# hands over every record and the loggers filter them.
_following = False
# Set at exit: from then on the sink drops what reaches it and the level is never sent again.
_closing = False
# Held while a record is in the handlers; `os.fork()` takes it first (`_before_fork`), so the
# logging thread is never inside a handler (holding its lock, or its stream's) at a fork.
_delivering = threading.RLock()
# How long the exit waits for records still on their way to the handlers.
_EXIT_FLUSH_MS = 1_000
class _Sink(LogSink):
    """Hands each record to its ``sika`` logger. Called by Rust on the SDK's logging thread
    (``sika-log``, ADR 0044), whose Python thread state is kept (``thread_states``); it must
    never raise into Rust."""

    def log(self, record: LogRecord) -> None:
        if _closing or sys.is_finalizing():
            return
        try:
            keep_this_threads_state()
            logger = logging.getLogger(record.target)
            level = _PYTHON_LEVELS[record.level]
            if logger.isEnabledFor(level):
                # makeRecord + handle is what Logger.log does, less the search of the Python
                # stack for a caller: the caller is Rust.
                extra = {
                    "operation": record.operation,
                    "reference": record.reference,
                    "http_status": record.http_status,
                    "attempt": record.attempt,
                    "duration_ms": record.duration_ms,
                    "request_id": record.request_id,
                    "dropped": record.dropped,
                }
                made = logger.makeRecord(
                    logger.name, level, "(sika core)", 0, record.message, (), None, "(sika core)", extra
                )
                with _delivering:
                    logger.handle(made)
        except Exception:
            # A handler that raises: reported as logging reports a failing handler, never
            # raised into the Rust call that logged.
            if logging.raiseExceptions and sys.stderr is not None:
                try:
                    sys.stderr.write("--- Logging error in a handler of the sika logger ---\n")
                    traceback.print_exc(file=sys.stderr)
                except Exception:
                    pass

    def level(self) -> LogLevel | None:
        """What the core asks at install and then at most once a second: the same level
        ``_refresh`` sends at once after each change (TRACE if changes cannot be followed)."""
        if not _following:
            return LogLevel.TRACE
        try:
            return _most_detailed_level()
        except Exception:
            return LogLevel.TRACE


def _most_detailed_level() -> LogLevel | None:
    """The most detailed core level that ``sika`` or a child of it accepts now, or None.

    A logger's ``disabled`` flag is ignored on purpose: ``dictConfig`` sets it without telling
    anyone, so counting it could leave the core quieter than the host after a later
    configuration enables the logger again; a disabled logger then costs only a call per
    record, which it drops."""
    manager = logging.Logger.manager
    loggers = [logging.getLogger(_NAME)]
    loggers += [
        logger
        for name, logger in list(manager.loggerDict.items())
        if name.startswith(_NAME + ".") and isinstance(logger, logging.Logger)
    ]
    threshold = max(min(logger.getEffectiveLevel() for logger in loggers), manager.disable + 1)
    accepted = [level for level, number in _PYTHON_LEVELS.items() if number >= threshold]
    return accepted[0] if accepted else None


def _refresh() -> None:
    """Tells the core the level ``logging`` has now; again if it changed meanwhile (another
    thread), so the last value sent is never older than the last change."""
    if _closing:
        return
    if not _following:
        set_log_sink_level(LogLevel.TRACE)
        return
    level = _most_detailed_level()
    while True:
        set_log_sink_level(level)
        now = _most_detailed_level()
        if now == level:
            return
        level = now


def _follow_level_changes() -> None:
    """Runs ``_refresh`` after every level change. ``logging`` has no public hook for that;
    every change made through its API (``Logger.setLevel``, ``logging.disable``, and so
    ``basicConfig`` and ``dictConfig``) clears the manager's level cache, so the refresh runs
    after that. Without the hook (another Python), the core delivers every record and the
    loggers filter: the same records, at the cost of a call each."""
    global _following
    manager = logging.Logger.manager
    clear_cache = getattr(manager, "_clear_cache", None)
    if clear_cache is None:
        return

    def clear_cache_and_refresh():
        global _following
        clear_cache()
        try:
            _refresh()
        except Exception:
            _following = False
            _refresh()

    manager._clear_cache = clear_cache_and_refresh  # type: ignore[attr-defined]  # CPython 3.12+ only
    _following = True


class _Console(logging.StreamHandler):
    """The handler ``enable_logging`` adds (one at most)."""


def enable_logging(level: LogLevel) -> None:
    """Prints the SDK's records at ``level`` and above on standard error: a ``StreamHandler``
    on the ``sika`` logger, whose level becomes ``level``. Call again to change the level.
    Configuring ``logging.getLogger("sika")`` yourself does the same. ``SIKA_LOG=debug`` in
    the environment calls it when ``sika`` is imported."""
    logger = logging.getLogger(_NAME)
    if not any(isinstance(handler, _Console) for handler in logger.handlers):
        console = _Console(sys.stderr)
        console.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logger.addHandler(console)
    logger.setLevel(_PYTHON_LEVELS[level])


def _at_exit() -> None:
    """Ends the sink before the interpreter finalizes: a Rust thread that entered it then would
    wait for the GIL and be killed inside Rust (an abort). Runs before logging's own exit
    handler closes the handlers (atexit runs handlers in reverse order, and logging's came
    first). The core waits, without the GIL, for calls under way; they return at once."""
    global _closing
    flush_log_records(_EXIT_FLUSH_MS)
    _closing = True
    close_log_sink()


def _before_fork() -> None:
    """Waits (without the GIL: a lock's acquire releases it) until the logging thread is out of
    the handlers, and keeps it out until the fork is done. Registered after ``logging``'s own
    hook, so it runs before it: ``logging`` then takes its module lock, as it always does."""
    _delivering.acquire()


def _after_fork_in_parent() -> None:
    _delivering.release()


def _after_fork_in_child() -> None:
    # The child has one thread, this one: a fresh lock; the core starts the child's own
    # logging thread on its first record (ADR 0013, 0039).
    global _delivering
    _delivering = threading.RLock()


def _install() -> None:
    logging.getLogger(_NAME).addHandler(logging.NullHandler())
    _follow_level_changes()
    set_log_sink(_Sink())
    atexit.register(_at_exit)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(
            before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_after_fork_in_child
        )
    level = log_level_from_env()
    if level is not None:
        enable_logging(level)


_install()
