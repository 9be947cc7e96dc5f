"""B102: every `BlockingClient` and `BlockingLedger` method's `help()` gives its own documentation (the async
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


def test_b102_the_documentation_carries_parameters_returns_and_errors():
    # Before (issue 47): `help(BlockingClient.verify_transaction)` was one line of 78 characters.
    checked = 0
    for cls, twin in ((sika.BlockingClient, sika.Client), (sika.BlockingLedger, sika.Ledger)):
        for name in public_methods(cls):
            if name in ("shutdown", "close", "async_ledger"):
                continue
            doc = getattr(cls, name).__doc__ or ""
            assert doc == getattr(twin, name).__doc__, f"{cls.__name__}.{name}"
            parameters = [p for p in inspect.signature(getattr(cls, name)).parameters if p != "self"]
            assert "Errors:" in doc, f"{cls.__name__}.{name}: {doc}"
            if parameters:
                assert "Parameters:" in doc, f"{cls.__name__}.{name}"
                for parameter in parameters:
                    assert f"`{parameter}`" in doc, f"{cls.__name__}.{name} documents {parameter}"
            checked += 1
    assert checked >= 16, checked
    documented = pydoc.render_doc(sika.BlockingClient.verify_transaction)
    assert "Returns:" in documented and "TransactionNotFound" in documented and len(documented.splitlines()) > 8


def test_b102_the_typed_declarations_carry_the_same_documentation():
    import ast
    from pathlib import Path

    from sika._ffi import sika_ffi_types

    tree = ast.parse(Path(sika_ffi_types.__file__).read_text())
    classes = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}

    def docs(name: str) -> dict[str, str | None]:
        return {
            node.name: ast.get_docstring(node)
            for node in classes[name].body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        }

    blocking, client = docs("BlockingClient"), docs("Client")
    assert blocking["verify_transaction"] == client["verify_transaction"]
    assert "Errors:" in (blocking["verify_transaction"] or "")
    assert not [name for name, doc in blocking.items() if doc and doc.startswith("See `Client.")], blocking
    ledger = docs("BlockingLedger")
    assert ledger["handle_webhook"] == docs("Ledger")["handle_webhook"]
