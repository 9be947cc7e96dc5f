"""B96: every `SikaError` variant's `args` are its fields in constructor order, so
`type(e)(*e.args)` rebuilds it, also after a JSON round trip of `args` (Celery's default result
serializer does exactly that: B98 in test_deployments.py). B97: `message()` is a method on every
variant, the core's text; the service's own message of `Api` is `service_message`
(issue 27, ADR 0043)."""

from __future__ import annotations

import inspect
import json

import pytest

import sika

import error_samples
from support import charge

def variants() -> list[type]:
    return error_samples.variants()


def sample(variant: type) -> sika.SikaError:
    """The kind's sample of tests/fixtures/errors.json."""
    (error,) = [error for error in error_samples.errors() if type(error) is variant]
    return error


def fields(error: BaseException) -> dict:
    return {name: getattr(error, name) for name in inspect.signature(type(error)).parameters}


@pytest.mark.parametrize("variant", variants(), ids=lambda v: v.__name__)
def test_b96_args_are_the_fields_and_rebuild_the_error(variant):
    error = sample(variant)
    assert error.args == tuple(fields(error).values())
    rebuilt = type(error)(*error.args)
    assert type(rebuilt) is variant and fields(rebuilt) == fields(error) and str(rebuilt) == str(error)
    through_json = type(error)(*json.loads(json.dumps(error.args)))
    assert type(through_json) is variant and fields(through_json) == fields(error)
    assert str(through_json) == str(error) and rebuilt.args == error.args


async def test_b96_errors_from_real_calls_rebuild_from_their_args(sandbox, make_client):
    client = make_client()
    caught = []
    for call in (
        lambda: client.verify_transaction("B96-UNKNOWN"),
        lambda: client.verify_transaction("bad ref!"),
        lambda: client.list_banks("ZZ"),
    ):
        with pytest.raises(sika.SikaError) as raised:
            await call()
        caught.append(raised.value)
    await client.initiate_charge(charge("B96-DUP"))
    with pytest.raises(sika.SikaError.Api) as duplicate:
        await client.initiate_charge(charge("B96-DUP"))
    caught.append(duplicate.value)
    for error in caught:
        rebuilt = type(error)(*json.loads(json.dumps(error.args)))
        assert type(rebuilt) is type(error) and fields(rebuilt) == fields(error) and str(rebuilt) == str(error)


@pytest.mark.parametrize("variant", variants(), ids=lambda v: v.__name__)
def test_b97_message_is_a_method_on_every_variant(variant):
    assert inspect.isfunction(inspect.getattr_static(variant, "message")), variant
    error = sample(variant)
    assert error.message() == str(error) and error.message()


def test_b97_the_services_message_of_api_is_service_message():
    error = sika.SikaError.Api(409, "Duplicate reference", None)
    assert error.service_message == "Duplicate reference" and error.http_status == 409
    assert "Duplicate reference" in error.message() and "409" in error.message()
    assert list(inspect.signature(sika.SikaError.Api).parameters) == ["http_status", "service_message", "request_id"]
