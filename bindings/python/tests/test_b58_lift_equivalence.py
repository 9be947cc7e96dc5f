"""B58: the flat readers of returned buffers (ADR 0028) lift exactly what UniFFI's generated
readers lift: every fixture of tests/fixtures/ that decodes without I/O, and a value of every
record and enum variant the readers know, lifted both ways and compared field by field (type and
value, recursively)."""

import datetime
import decimal
import enum
import json
import typing

import pytest

import sika
from sika._ffi import sika_ffi as ffi
from sika._runtime import readers
from support import FIXTURES_DIR

DECODERS = {
    "verify_transaction": sika.decode_transaction_response,
    "initiate_charge": sika.decode_charge_response,
    "list_banks": sika.decode_banks_response,
    "list_mobile_money_providers": sika.decode_providers_response,
}
CASES = json.loads((FIXTURES_DIR / "cases.json").read_text())["cases"]
RESPONSES = sorted((FIXTURES_DIR / "responses").iterdir())


def generated(lift: typing.Callable[[], typing.Any]) -> typing.Any:
    """`lift()` with UniFFI's generated readers back in place."""
    readers.use_flat_readers(False)
    try:
        return lift()
    finally:
        readers.use_flat_readers(True)


def outcome(call: typing.Callable[[], typing.Any]) -> typing.Any:
    """The value, or the error (its class and text) a decode ends in."""
    try:
        return call()
    except sika.SikaError as error:
        return (type(error), str(error))


def assert_same(flat: typing.Any, lifted: typing.Any, path: str = "value") -> None:
    """The same classes and values all the way down; amounts keep their exponent, times their
    zone."""
    assert type(flat) is type(lifted), f"{path}: {type(flat)} != {type(lifted)}"
    if isinstance(flat, (list, tuple)):
        assert len(flat) == len(lifted), f"{path}: {len(flat)} items != {len(lifted)}"
        for index, (a, b) in enumerate(zip(flat, lifted)):
            assert_same(a, b, f"{path}[{index}]")
    elif isinstance(flat, dict):
        assert list(flat) == list(lifted), f"{path}: keys {list(flat)} != {list(lifted)}"
        for key in flat:
            assert_same(flat[key], lifted[key], f"{path}[{key!r}]")
    elif isinstance(flat, enum.Enum):
        assert flat is lifted, f"{path}: {flat} is not {lifted}"
    elif isinstance(flat, decimal.Decimal):
        assert flat.as_tuple() == lifted.as_tuple(), f"{path}: {flat!r} != {lifted!r}"
    elif isinstance(flat, datetime.datetime):
        assert (flat, flat.tzinfo) == (lifted, lifted.tzinfo), f"{path}: {flat!r} != {lifted!r}"
    elif hasattr(flat, "__dict__") and type(flat).__module__ == ffi.__name__:
        # A record, or a variant with or without fields (a text variant is also its `str`).
        if isinstance(flat, str):
            assert str.__eq__(flat, lifted), f"{path}: text {flat!r} != {lifted!r}"
        assert list(vars(flat)) == list(vars(lifted)), f"{path}: fields {vars(flat)} != {vars(lifted)}"
        for name in vars(flat):
            assert_same(getattr(flat, name), getattr(lifted, name), f"{path}.{name}")
    else:
        assert flat == lifted, f"{path}: {flat!r} != {lifted!r}"


def records_in(value: typing.Any, found: set) -> set:
    """The classes of the module's records and variants inside `value`."""
    if isinstance(value, (list, tuple)):
        for item in value:
            records_in(item, found)
    elif hasattr(value, "__dict__") and type(value).__module__ == ffi.__name__:
        found.add(type(value).__qualname__)
        for item in vars(value).values():
            records_in(item, found)
    return found


def test_b58_the_flat_readers_are_the_converters_lift_and_read():
    # Otherwise both sides of every comparison below would be the same code.
    wired = {converter.__name__: flat for converter, flat, _ in readers.WIRED}
    for name in ["TypeTransaction", "SequenceTypeBank", "TypePaymentCheck", "OptionalTypeCustomer"]:
        converter = getattr(ffi, f"_UniffiFfiConverter{name}")
        read, lift = wired[converter.__name__]
        assert converter.__dict__["read"] is read and converter.__dict__["lift"] is lift
        assert generated(lambda: "lift" not in converter.__dict__ and converter.__dict__["read"] is not read)
    # Every buffer converter but the error's and the top-level bytes' has its reader.
    buffers = {
        name for name, value in vars(ffi).items()
        if name.startswith("_UniffiFfiConverter") and isinstance(value, type)
        and issubclass(value, ffi._UniffiConverterRustBuffer)
    }  # fmt: skip
    assert buffers - set(wired) == {"_UniffiFfiConverterTypeSikaError", "_UniffiFfiConverterBytes"}


@pytest.mark.parametrize("path", RESPONSES, ids=lambda path: path.name)
def test_b58_every_recorded_response_lifts_the_same_through_every_decoder(path):
    body = path.read_bytes()
    for status in (200, 400):
        for decode in DECODERS.values():
            flat = outcome(lambda: decode(status, body))
            assert_same(flat, generated(lambda: outcome(lambda: decode(status, body))), f"{decode.__name__}")


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["name"])
def test_b58_every_case_lifts_the_same(case):
    body = (FIXTURES_DIR / case["body_file"]).read_bytes()
    decode = DECODERS[case["operation"]]
    flat = outcome(lambda: decode(case["http_status"], body))
    assert_same(flat, generated(lambda: outcome(lambda: decode(case["http_status"], body))))


def bank_list(count: int) -> bytes:
    # As bench/python/bench.py builds it, with absent, odd and out-of-range times mixed in.
    times = ["2024-01-15T10:30:00.123456Z", None, "10000-01-01T00:00:00Z", "1969-12-31T23:59:59.5Z"]
    kinds = ["nuban", "account_number", "ghipss", "mobile_money"]
    banks = [
        {
            "id": 100_000 + i, "name": f"Bank {i} \u00e9\u20ac", "code": f"{i:06d}", "active": i % 7 != 0,
            "country": "Nigeria", "currency": "NGN", "type": kinds[i % 4],
            "createdAt": times[i % 4], "updatedAt": times[(i + 1) % 4],
        }  # fmt: skip
        for i in range(count)
    ]
    return json.dumps({"status": True, "message": "Banks", "data": banks}).encode()


def test_b58_a_5000_bank_list_lifts_the_same():
    body = bank_list(5000)
    flat = sika.decode_banks_response(200, body)
    assert len(flat) == 5000
    assert_same(flat, generated(lambda: sika.decode_banks_response(200, body)))


def test_b58_webhook_events_and_countries_lift_the_same():
    bodies = [
        b'{"event":"charge.success","data":{"reference":"ORDER-1001","amount":1234.56}}',
        b'{"event":"charge.failed","data":{}}',
        b'{"event":"transfer","data":{"reference":"R-\xc3\xa9"}}',
        b"{",
    ]
    for body in bodies:
        flat = outcome(lambda: sika.parse_webhook_event(body))
        assert_same(flat, generated(lambda: outcome(lambda: sika.parse_webhook_event(body))))
    assert_same(sika.countries(), generated(sika.countries))


def transactions() -> list:
    found = []
    for path in RESPONSES:
        decoded = outcome(lambda: sika.decode_transaction_response(200, path.read_bytes()))
        if isinstance(decoded, sika.Transaction):
            found.append(decoded)
    return found


def values_no_fixture_decodes_to(transaction: typing.Any) -> list:
    """(converter, value): a payment check, a webhook decision, a log record, the requests."""
    text = "text \u00e9\U0001f600"
    values = [
        (ffi.PaymentCheck, ffi.PaymentCheck.CONFIRMED(transaction)),
        (ffi.PaymentCheck, ffi.PaymentCheck.NOT_YET(transaction)),
        (ffi.PaymentCheck, ffi.PaymentCheck.MISMATCH(transaction, "", text, "100.10 GHS")),
        (ffi.WebhookDecision, ffi.WebhookDecision.FULFIL(transaction)),
        (ffi.WebhookDecision, ffi.WebhookDecision.INVESTIGATE(transaction, text)),
        (ffi.WebhookDecision, ffi.WebhookDecision.IGNORE(text)),
        (ffi.WebhookDecision, ffi.WebhookDecision.RETRY_LATER("")),
        (ffi.WebhookDecision, ffi.WebhookDecision.REJECT(text)),
        (ffi.ExpectedPayment, ffi.ExpectedPayment(amount=decimal.Decimal("1E+2"), currency="GHS")),
        (ffi.AwaitOptions, ffi.AwaitOptions(initial_delay_ms=None, interval_ms=None, max_interval_ms=None, timeout_ms=None, cancellation=None)),
        (ffi.AwaitOptions, ffi.AwaitOptions(initial_delay_ms=0, interval_ms=2**31 - 1, max_interval_ms=1, timeout_ms=2**63 - 1, cancellation=None)),
    ]  # fmt: skip
    values += [(ffi.PaymentCheck, ffi.PaymentCheck.NOT_PAID(transaction, action)) for action in ffi.MerchantAction]
    values += [(ffi.LogRecord, ffi.LogRecord(level=level, target="sika", message=text)) for level in ffi.LogLevel]
    for callback_url in (None, "https://shop.example/paid"):
        request = ffi.ChargeRequest(
            amount=decimal.Decimal("0.10"), email="a@example.com", phone_number="+233244125678",
            reference="R-1", currency="GHS", provider="mtn", callback_url=callback_url,
        )  # fmt: skip
        values.append((ffi.ChargeRequest, request))
    return values


def test_b58_every_record_and_variant_round_trips_the_same():
    # Written by UniFFI's writer, lifted both ways; with the transaction of every fixture.
    lifted_classes: set = set()
    for transaction in transactions():
        for cls, value in [(ffi.Transaction, transaction), *values_no_fixture_decodes_to(transaction)]:
            converter = getattr(ffi, f"_UniffiFfiConverterType{cls.__name__}")
            flat = converter.lift(converter.lower(value))
            assert_same(flat, generated(lambda: converter.lift(converter.lower(value))), cls.__name__)
            records_in(flat, lifted_classes)
    every_variant = {f"{cls.__name__}.{name}" for cls in (ffi.PaymentCheck, ffi.WebhookDecision) for name in vars(cls) if name.isupper()}
    assert every_variant | {"Transaction", "Customer", "CustomField", "LogRecord", "ChargeRequest"} <= lifted_classes


def test_b58_a_wrong_reader_is_caught():
    # The comparison itself: one field read differently fails it.
    body = (FIXTURES_DIR / "responses" / "verify_successful.json").read_bytes()
    flat = sika.decode_transaction_response(200, body)
    other = sika.decode_transaction_response(200, body)
    other.customer.created_at += datetime.timedelta(microseconds=1)
    with pytest.raises(AssertionError, match="customer.created_at"):
        assert_same(flat, other)
    other = sika.decode_transaction_response(200, body)
    other.amount = decimal.Decimal("100.1")
    with pytest.raises(AssertionError, match="amount"):
        assert_same(flat, other)
