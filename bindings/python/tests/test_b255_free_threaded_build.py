"""B255: a free-threaded CPython is refused at `import sika`, naming the build, before the
library is loaded; the wheel's metadata says which builds are supported. No free-threaded
interpreter can be had here, so a child interpreter is given the flags the check reads: the
build's `Py_GIL_DISABLED` (sysconfig), or `sys._is_gil_enabled()` answering False."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import pytest

PATCHES = {
    "build flag": (
        "import sysconfig\n"
        "real = sysconfig.get_config_var\n"
        "sysconfig.get_config_var = lambda name: 1 if name == 'Py_GIL_DISABLED' else real(name)\n"
    ),
    "no GIL at run time": "import sys\nsys._is_gil_enabled = lambda: False\n",
}

PROBE = """
try:
    import sika
except ImportError as error:
    print("refused:", error)
else:
    print("imported")
import sys
print("library loaded:", "sika._ffi.sika_ffi" in sys.modules)
"""


def run(patch: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", patch + PROBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("patch", PATCHES.values(), ids=PATCHES.keys())
def test_b255_a_free_threaded_interpreter_is_refused_before_the_library_loads(patch):
    refused, loaded = run(patch)
    assert refused.startswith("refused: sika does not run on "), refused
    assert ("free-threaded build (Py_GIL_DISABLED)" in refused) or ("sys._is_gil_enabled() is False" in refused)
    assert "relies on the GIL" in refused and sys.executable in refused
    assert loaded == "library loaded: False"


def test_b255_the_default_build_imports():
    assert run("") == ["imported", "library loaded: True"]


def test_b255_the_wheels_metadata_says_which_builds_it_supports():
    metadata = importlib.metadata.metadata("sika")
    classifiers = metadata.get_all("Classifier") or []
    assert "Programming Language :: Python :: Implementation :: CPython" in classifiers
    assert not [c for c in classifiers if "Free Threading" in c], classifiers
    # The README is the wheel's description: METADATA's body (or, older, its Description).
    description = metadata["Description"] or metadata.get_payload()
    assert "its default build (with the GIL)" in description
    assert "free-threaded build (3.13t, 3.14t) is not supported" in description
