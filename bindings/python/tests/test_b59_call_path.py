"""B59: the call path (ADR 0029). An argument lowered in one exact-size buffer holds the same
bytes as UniFFI's own builder writes; a call's error still arrives typed; 32 threads calling at
once each get their own result or error; a forked child still calls correctly."""

import os
import threading

import pytest

import sika
from sika._ffi import sika_ffi as ffi
from support import KEY, charge

STRINGS = [
    "ref_ascii_1234567",
    "",
    "Ẹ̀kọ́ àti Ɔbɔ́ ñ é",
    "astral 𝄞 😀 🇳🇬",
    "x" * 100_000,
    "\x00 nul inside",
]

STATUSES = [
    sika.TransactionStatus.SUCCESSFUL(),
    sika.TransactionStatus.PENDING(),
    sika.TransactionStatus.FAILED(),
    sika.TransactionStatus.ABANDONED(),
    sika.TransactionStatus.REVERSED(),
    sika.TransactionStatus.UNKNOWN("awaiting_ẹ 😀"),
    sika.TransactionStatus.UNKNOWN(""),
]
FINAL = {"SUCCESSFUL", "FAILED", "ABANDONED", "REVERSED"}


def is_final_variant(status) -> bool:
    return type(status).__name__.rsplit(".", 1)[-1] in FINAL


def taken(rbuf) -> bytes:
    try:
        return bytes(rbuf.data[: rbuf.len]) if rbuf.len else b""
    finally:
        rbuf.free()


def uniffi_builder_lowering(write) -> bytes:
    # UniFFI's own lowering, as generated: `_UniffiRustBufferBuilder` (the patch keeps it).
    with ffi._UniffiRustBuffer.alloc_with_builder() as builder:
        write(builder)
        return taken(builder.finalize())


@pytest.mark.parametrize("text", STRINGS, ids=lambda t: f"{len(t)}-chars")
def test_b59_string_lowering_matches_uniffi(text):
    lowered = taken(ffi._UniffiFfiConverterString.lower(text))
    assert lowered == uniffi_builder_lowering(lambda b: b.write(text.encode("utf-8")))
    assert lowered.decode("utf-8") == text
    # And through Rust: an unknown status text comes back holding exactly the text sent.
    if text:
        assert sika.TransactionStatus.from_text(text) == sika.TransactionStatus.UNKNOWN(text)


def test_b59_lone_surrogate_fails_the_same_way():
    with pytest.raises(UnicodeEncodeError):
        uniffi_builder_lowering(lambda b: b.write("a\ud800b".encode("utf-8")))
    with pytest.raises(UnicodeEncodeError):
        ffi._UniffiFfiConverterString.lower("a\ud800b")
    with pytest.raises(UnicodeEncodeError):
        sika.TransactionStatus.from_text("a\ud800b")


@pytest.mark.parametrize("status", STATUSES, ids=repr)
def test_b59_enum_lowering_matches_uniffi(status):
    converter = ffi._UniffiFfiConverterTypeTransactionStatus
    lowered = taken(converter.lower(status))
    assert lowered == uniffi_builder_lowering(lambda b: converter.write(status, b))
    assert status.is_final() == is_final_variant(status)


RECORDS = [
    ("AwaitOptions", sika.AwaitOptions(initial_delay_ms=1, interval_ms=250, max_interval_ms=2**40, timeout_ms=-5)),
    ("AwaitOptions", sika.AwaitOptions()),
    ("ChargeRequest", charge("ref_ẹ_😀_1", amount="12345.678")),
    ("ChargeRequest", charge("r", phone="+2348012345678", amount="0.01", email="ọ@example.com")),
]


@pytest.mark.parametrize(("name", "record"), RECORDS, ids=lambda v: v if isinstance(v, str) else "")
def test_b59_record_lowering_matches_uniffi(name, record):
    converter = getattr(ffi, f"_UniffiFfiConverterType{name}")
    lowered = taken(converter.lower(record))
    assert lowered == uniffi_builder_lowering(lambda b: converter.write(record, b))


def invalid_config_error() -> sika.SikaError.InvalidInput:
    config = sika.ClientConfig(secret_key=sika.SecretKey(KEY), base_url="http://127.0.0.1:9", timeout_ms=-1)
    with pytest.raises(sika.SikaError.InvalidInput) as raised:
        sika.BlockingClient(config)
    return raised.value


def test_b59_errors_arrive_typed():
    assert invalid_config_error().field == "timeout_ms"


def test_b59_32_threads_get_their_own_results():
    start = threading.Barrier(32)
    failures = []

    def work(index):
        start.wait()
        try:
            for round_ in range(200):
                if (index + round_) % 3 == 0:
                    assert invalid_config_error().field == "timeout_ms"
                else:
                    text = f"thread-{index}-round-{round_}-ẹ"
                    assert sika.TransactionStatus.from_text(text) == sika.TransactionStatus.UNKNOWN(text)
                    status = STATUSES[(index + round_) % len(STATUSES)]
                    assert status.is_final() == is_final_variant(status)
        except BaseException as error:  # noqa: BLE001 (reported below, with the thread)
            failures.append((index, repr(error)))

    threads = [threading.Thread(target=work, args=(index,)) for index in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_b59_forked_child_calls_correctly():
    assert sika.TransactionStatus.SUCCESSFUL().is_final()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            ok = sika.TransactionStatus.from_text("child ẹ") == sika.TransactionStatus.UNKNOWN("child ẹ")
            ok = ok and not sika.TransactionStatus.PENDING().is_final()
            ok = ok and invalid_config_error().field == "timeout_ms"
            code = 0 if ok else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
