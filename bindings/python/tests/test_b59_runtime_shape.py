"""B59 (ADR 0033): the shipped `sika_ffi.py` is UniFFI's own, and Sika's runtime (sika/_runtime)
rebinds it on import only where it finds the shape it was written for: a generated name that is
missing or has another shape fails the import, naming the UniFFI version the runtime was written
for, instead of a half-applied runtime."""

import importlib.util
import inspect
import types

import pytest

from sika._ffi import sika_ffi as ffi
from sika._runtime import _shape, asyncio_wakes, calls, errors, records, texts


def module_of(**names) -> types.ModuleType:
    module = types.ModuleType("generated")
    for name, value in names.items():
        setattr(module, name, value)
    return module


def test_b59_the_generated_module_holds_no_name_of_sikas_and_the_runtime_rebound_it():
    assert "_uniffi_sika" not in inspect.getsource(ffi)
    assert ffi._uniffi_rust_call_with_error.__module__ == "sika._runtime.calls"
    # asyncio's coalesced wake-ups (ADR 0030); with OpenTelemetry installed, under the trace
    # bridge's first poll (ADR 0059). Blocking calls are the core's own (ADR 0070).
    traced = importlib.util.find_spec("opentelemetry") is not None
    assert ffi._uniffi_rust_call_async.__module__ == ("sika._tracing" if traced else "sika._runtime.asyncio_wakes")
    assert ffi._UniffiFfiConverterString.lower.__module__ == "sika._runtime.calls"
    assert ffi.SikaError.__str__.__module__ == "sika._runtime.errors"


def test_b59_a_generated_function_of_another_shape_fails_the_import_naming_the_version():
    def _uniffi_rust_call_with_error(error_ffi_converter, fn, status, *args):
        raise AssertionError("never called")

    with pytest.raises(ImportError, match=r"UniFFI 0\.32\.2 .*_uniffi_rust_call_with_error.*takes"):
        calls.install(module_of(_uniffi_rust_call_with_error=_uniffi_rust_call_with_error))
    assert _shape.UNIFFI_VERSION == "0.32.2"


def test_b59_a_missing_generated_name_fails_the_import():
    with pytest.raises(ImportError, match=r"no `_UNIFFI_RUST_FUTURE_CONTINUATION_CALLBACK`"):
        asyncio_wakes.install(module_of())


def test_b59_a_converter_method_of_another_kind_fails_the_import():
    class Converter:
        @classmethod
        def lower(cls, value):
            return value

    with pytest.raises(ImportError, match=r"Converter.lower` is a classmethod, not a staticmethod"):
        _shape.own(Converter, "lower", staticmethod)


def test_b59_an_error_class_that_already_has_its_own_str_is_refused():
    class Shaped(Exception):
        def __str__(self):
            return "own"

    with pytest.raises(ImportError, match="not a bare Exception subclass"):
        errors.install(module_of(Shaped=Shaped), ["Shaped"], {})


def test_b59_error_defaults_for_a_variant_the_module_lacks_are_refused():
    class Shaped(Exception):
        pass

    with pytest.raises(ImportError, match=r"no error variant `Shaped.Missing`"):
        errors.install(module_of(Shaped=Shaped), ["Shaped"], {("Shaped", "Missing"): ("request_id",)})


def test_b59_a_string_converter_of_another_shape_is_refused():
    class _UniffiFfiConverterString:
        @classmethod
        def check_lower(cls, value):
            return value

    class SikaError(Exception):
        class InvalidInput(Exception):
            pass

    with pytest.raises(ImportError, match=r"check_lower` is a classmethod, not a staticmethod|takes \(cls, value\)"):
        texts.install(module_of(_UniffiFfiConverterString=_UniffiFfiConverterString, SikaError=SikaError, __file__="x"))


def test_b59_a_text_enum_that_is_not_uniffis_plain_class_is_refused():
    class Status(str):
        pass

    with pytest.raises(ImportError, match="`Status` is not a plain class"):
        records._as_text(module_of(Status=Status), "Status", "parse", [], ffi.__file__)
