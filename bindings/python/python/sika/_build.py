"""Which CPython builds the package runs on: the default build, with the GIL (issue 47).

Sika's runtime relies on the GIL: the calls that keep it while they read or write Python
objects (ADR 0032, 0033), the states of the threads that call into Python (ADR 0030, 0054,
0062), and the lists and flags of `sika._runtime` shared between threads without a lock. The
free-threaded build (CPython 3.13t and later, `Py_GIL_DISABLED`) runs them with no GIL, which
nothing here was shown to survive. The wheel (`py3-none`) installs there all the same, so
`import sika` refuses that build, naming it, before the library is loaded; the README's
"Install" says which builds are supported.
"""

from __future__ import annotations

import sys
import sysconfig


def free_threaded() -> str | None:
    """What makes this interpreter free-threaded, or `None` for a build with the GIL."""
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        return "the free-threaded build (Py_GIL_DISABLED)"
    is_gil_enabled = getattr(sys, "_is_gil_enabled", None)
    if is_gil_enabled is not None and not is_gil_enabled():
        return "an interpreter running without the GIL (sys._is_gil_enabled() is False)"
    return None


def refuse_free_threaded() -> None:
    """Raises `ImportError` on a free-threaded interpreter."""
    build = free_threaded()
    if build is not None:
        version = ".".join(str(part) for part in sys.version_info[:2])
        raise ImportError(
            f"sika does not run on {build} of CPython {version} ({sys.executable}): its runtime relies on "
            "the GIL (ADR 0030, 0032). Use CPython's default build, with the GIL (python3, not python3t)."
        )
