"""B80 (issue 25 item 6): a webhook body given as any bytes-like object is read by its bytes.

UniFFI's generated lowering wrote `len(value)` (items) as the byte count, so a `memoryview` of
4-byte items ended in an `InternalError` with a Rust backtrace. The body is padded with spaces
(JSON allows them) to a multiple of 8 bytes so it fits arrays of 4- and 8-byte items."""

import array
import json
from decimal import Decimal

import pytest

import sika
from support import transaction_object


def body(reference: str) -> bytes:
    text = json.dumps({"event": "charge.success", "data": {"reference": reference}}).encode()
    return text + b" " * (-len(text) % 8)


def views(data: bytes) -> dict[str, object]:
    """The same bytes held in buffers whose items are wider than a byte, or not contiguous."""
    ints = array.array("i")
    ints.frombytes(data)
    doubles = array.array("d")
    doubles.frombytes(data)
    doubled = bytes(byte for pair in zip(data, data) for byte in pair)  # every byte twice
    return {
        "memoryview of 4-byte ints": memoryview(ints),
        "array of 4-byte ints": ints,
        "memoryview of 8-byte doubles": memoryview(doubles),
        "memoryview cast to 2-byte items": memoryview(data).cast("H"),
        "non-contiguous memoryview": memoryview(doubled)[::2],
        "bytearray": bytearray(data),
        "memoryview of bytes": memoryview(data),
    }


@pytest.mark.parametrize("kind", list(views(body("B80-1"))))
def test_b80_a_webhook_body_is_parsed_by_its_bytes_whatever_holds_them(kind):
    data = body("B80-1")
    view = views(data)[kind]
    event = sika.parse_webhook_event(view)
    assert event.reference == "B80-1"
    assert event.raw_json == data.decode()
    assert event == sika.parse_webhook_event(data)


def test_b80_a_bad_body_in_a_wide_buffer_is_a_typed_error_not_an_internal_one():
    data = b'{"event": "charge.success", "dat'  # cut short: not JSON
    data += b" " * (-len(data) % 4)
    ints = array.array("i")
    ints.frombytes(data)
    with pytest.raises(sika.SikaError.InvalidInput) as raised:
        sika.parse_webhook_event(memoryview(ints))
    assert raised.value.field == "webhook", raised.value
    with pytest.raises(TypeError):
        sika.parse_webhook_event("not bytes")  # type: ignore[arg-type]


async def test_b80_handle_webhook_decides_on_a_body_of_4_byte_items(sandbox, make_client):
    reference = "B80-PAID-1"
    sandbox.seed_transaction(transaction_object(reference, "successful", "10"))
    ints = array.array("i")
    ints.frombytes(body(reference))
    decision = await make_client().handle_webhook(
        memoryview(ints), sika.ExpectedPayment(amount=Decimal("10"), currency="GHS")
    )
    assert isinstance(decision, sika.WebhookDecision.FULFIL), decision
