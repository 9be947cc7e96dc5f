"""The SDK's own threads keep one Python thread state each, for their life (ADR 0054, 0062).

ctypes gives a thread Python did not start a new thread state for each callback and deletes it
after. Making one takes CPython's runtime lock without the GIL, and CPython 3.11 and older take
that lock again in a forked child before they reset it: a fork at that moment leaves the child
waiting for ever (B84). The SDK's threads call into Python all the time: the logging thread
(`sika-log`) with each record, the runtime's workers (`sika-runtime`) with each completion that
wakes an event loop or a blocking wait. One more `PyGILState_Ensure` on such a thread, never
released, keeps its state: it is made at the thread's first callback, not at each one (B189).

Only for the SDK's threads, which live as long as their process's runtime: the callers below
run on them by construction. A forked child has none of them; its own threads keep their own.
No callback reaches Python once the interpreter exits (the wake gate and the log sink are
closed at exit, ADR 0013 and 0044), so a kept state is never used after finalization.
"""

from __future__ import annotations

import ctypes
import threading

# `kept` is set on a thread once its state is kept: the value lives in that state, so it is
# found again only if the state was kept.
_this_thread = threading.local()


def keep_this_threads_state() -> None:
    """Keeps the calling thread's Python thread state until the thread ends. Called on the SDK's
    own threads only, inside a callback (so with the GIL)."""
    if not getattr(_this_thread, "kept", False):
        ctypes.pythonapi.PyGILState_Ensure()
        _this_thread.kept = True
