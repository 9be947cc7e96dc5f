"""B102: every `BlockingClient` method's `help()` gives its own documentation (the async
method's: parameters, return value, errors), not "See `Client...`"; no signature shows
`<object object at ...>`. B103: `import sika` does not import `importlib.metadata` (15-26 ms of
the import); `sika.__version__` is still the installed version (issue 27, ADR 0042)."""

from __future__ import annotations

import inspect
import pydoc
import subprocess
import sys

import sika


def public_methods(cls: type) -> list[str]:
    return [name for name, value in vars(cls).items() if not name.startswith("_") and inspect.isfunction(value)]


def test_b102_every_blocking_method_has_its_own_documentation():
    methods = [name for name in public_methods(sika.BlockingClient) if name not in ("shutdown", "close")]
    # Every operation, and the view with its own options (B76).
    assert {"verify_transaction", "await_final_status", "handle_webhook", "with_options"} <= set(methods), methods
    for name in methods:
        method = getattr(sika.BlockingClient, name)
        documented = pydoc.render_doc(method)
        assert "See `Client." not in documented, documented
        assert method.__doc__ and method.__doc__ == getattr(sika.Client, name).__doc__, name
        # Its own parameters, as the async method's.
        blocking_parameters = list(inspect.signature(method).parameters)
        assert blocking_parameters == list(inspect.signature(getattr(sika.Client, name)).parameters), name


def test_b102_no_signature_shows_an_object_object_default():
    checked = 0
    for name in sika.__all__:
        value = getattr(sika, name)
        owners = [value] if not isinstance(value, type) else [value, *vars(value).values()]
        for owner in owners:
            if isinstance(owner, (staticmethod, classmethod)):
                owner = owner.__func__
            if not callable(owner):
                continue
            try:
                signature = str(inspect.signature(owner))
            except (TypeError, ValueError):
                continue
            assert "object object at" not in signature, f"{name}: {signature}"
            checked += 1
    assert checked > 50, checked
    assert "DEFAULT" in str(inspect.signature(sika.AwaitOptions))
    assert "<object object" not in pydoc.render_doc(sika.BlockingClient)
    # The default still means "the core's default".
    assert sika.AwaitOptions().timeout_ms is None


def test_b103_import_sika_does_not_import_importlib_metadata():
    probe = "import sys, sika; print('importlib.metadata' in sys.modules); print(sika.__version__)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "False", out
    from importlib.metadata import version

    assert out[1] == version("sika") == sika.__version__
