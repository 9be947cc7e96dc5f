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
    # A call checks its text before it lowers it: `InvalidInput`, not `UnicodeEncodeError` (B252).
    with pytest.raises(sika.SikaError.InvalidInput):
        sika.TransactionStatus.from_text("a\ud800b")


@pytest.mark.parametrize("status", STATUSES, ids=repr)
def test_b59_enum_lowering_matches_uniffi(status):
    # The fieldless variants' bytes encoded once (sika/_runtime/enum_writes.py) against UniFFI's
    # own `write`, kept on the converter, into UniFFI's own builder.
    converter = ffi._UniffiFfiConverterTypeTransactionStatus
    lowered = taken(converter.lower(status))
    assert lowered == uniffi_builder_lowering(lambda b: converter.generated_write(status, b))
    assert lowered == uniffi_builder_lowering(lambda b: converter.write(status, b))
    converter.check_lower(status)
    assert status.is_final() == is_final_variant(status)


ENUM_VALUES = [
    *[("LogLevel", level) for level in sika.LogLevel],
    *[("PaymentType", sika.PaymentType.from_text(text)) for text in ["card", "mobile_money", "bank_transfer", "ussd ẹ"]],
]


@pytest.mark.parametrize(("name", "value"), ENUM_VALUES, ids=repr)
def test_b59_every_enum_lowering_matches_uniffi(name, value):
    converter = getattr(ffi, f"_UniffiFfiConverterType{name}")
    converter.check_lower(value)
    assert taken(converter.lower(value)) == uniffi_builder_lowering(
        lambda b: converter.generated_write(value, b)
    )


@pytest.mark.parametrize("name", ["TransactionStatus", "LogLevel", "PaymentType"])
@pytest.mark.parametrize("wrong", ["pending", 1, None, object()], ids=repr)
def test_b59_a_wrong_value_is_refused_as_uniffi_refuses_it(name, wrong):
    converter = getattr(ffi, f"_UniffiFfiConverterType{name}")
    outcomes = []
    for check in (converter.check_lower, converter.generated_check_lower):
        try:
            check(wrong)
            outcomes.append(None)
        except Exception as error:  # noqa: BLE001 (compared below)
            outcomes.append((type(error), str(error)))
    assert outcomes[0] == outcomes[1]


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


def gil_kept(name) -> bool:
    import ctypes

    return bool(type(getattr(ffi._UniffiLib, name))._flags_ & ctypes._FUNCFLAG_PYTHONAPI)  # type: ignore[attr-defined]  # ctypes' own flag, not in typeshed


def test_b59_functions_that_never_wait_keep_the_gil_and_the_others_release_it():
    # sika/_runtime/gil.py: a release and retake of the GIL per call is saved where the
    # function never waits; everything that can wait (I/O, a client's shutdown or free, the
    # logging setup, whose close waits for sink calls that need the GIL) still releases it.
    for name in [
        "ffi_sika_core_rustbuffer_from_bytes",
        "ffi_sika_core_rust_future_poll_rust_buffer",
        "uniffi_sika_core_fn_method_transactionstatus_is_final",
        "uniffi_sika_core_fn_method_transaction_to_json",
        "uniffi_sika_core_fn_method_client_verify_transaction",
        "uniffi_sika_core_fn_func_decode_banks_response",
        "uniffi_sika_core_fn_func_normalize_phone_number",
    ]:
        assert gil_kept(name), name
    for name in [
        "uniffi_sika_core_fn_method_blockingclient_verify_transaction",
        "uniffi_sika_core_fn_method_blockingclient_shutdown",
        "uniffi_sika_core_fn_method_client_shutdown",
        "uniffi_sika_core_fn_constructor_client_new",
        "uniffi_sika_core_fn_free_client",
        "uniffi_sika_core_fn_func_close_log_sink",
        "uniffi_sika_core_fn_func_set_log_sink",
    ]:
        assert not gil_kept(name), name


def test_b59_a_blocking_call_lets_other_threads_run(sandbox):
    # A blocking call that kept the GIL would stop every other thread of the process for as
    # long as the service takes: here a 300 ms answer, during which a ticking thread must tick.
    sandbox.fault("/transaction/verify", "delay", count=1, delay_ms=300)
    client = sandbox.blocking_client()
    reference = "b59-gil-ticks"
    client.initiate_charge(charge(reference))
    ticks, done = [0], threading.Event()

    def tick():
        while not done.is_set():
            ticks[0] += 1
            done.wait(0.005)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        before = ticks[0]
        client.verify_transaction(reference)
        during = ticks[0] - before
    finally:
        done.set()
        ticker.join()
    assert during >= 10, f"the other thread ticked {during} times in a 300 ms call"
