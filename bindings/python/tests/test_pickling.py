"""B38: copying never duplicates a Rust handle, objects refuse pickling with what to do
instead, and records and errors cross a process boundary whole (multiprocessing,
concurrent.futures, Celery and RQ all pickle)."""

import concurrent.futures
import copy
import gc
import multiprocessing
import pickle
import subprocess
import sys

import pytest

import sika
from sika import AwaitOptions, Cancellation, SecretKey, SecretUrl, SikaError

import error_samples as error_samples_of_the_fixture
from support import FIXTURES_DIR, KEY, blocking_client, charge, transaction_object

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)


@pytest.fixture
def objects(sandbox):
    """One of every generated object class (`sika.__all__` has no other object kind)."""
    made = [SecretKey(KEY), SecretUrl("http://u:p@127.0.0.1:9"), Cancellation(), sandbox.client(), sandbox.blocking_client()]
    assert {type(value).__name__ for value in made} == {"SecretKey", "SecretUrl", "Cancellation", "Client", "BlockingClient"}
    return made


def test_b38_a_copy_of_an_object_is_the_object_itself(objects):
    for value in objects:
        assert copy.copy(value) is value
        assert copy.deepcopy(value) is value


def test_b38_pickling_an_object_is_refused_with_what_to_do(objects):
    for value in objects:
        for protocol in PROTOCOLS:
            with pytest.raises(TypeError) as refused:
                pickle.dumps(value, protocol)
            message = str(refused.value)
            assert type(value).__name__ in message and "from_env()" in message, message
            assert KEY not in message


def test_b38_records_holding_objects_copy_and_refuse_pickling(sandbox):
    config = sandbox.config()
    copied = copy.deepcopy(config)
    assert copied == config and copied.secret_key is config.secret_key
    cancellation = Cancellation()
    options = copy.deepcopy(AwaitOptions(timeout_ms=5, cancellation=cancellation))
    assert options.cancellation is cancellation
    options.cancellation.cancel()
    assert cancellation.is_cancelled(), "a copied cancellation is the same handle"
    for record in [config, options]:
        with pytest.raises(TypeError, match="cannot pickle"):
            pickle.dumps(record)


def test_b38_a_copied_config_outlives_its_original(sandbox):
    sandbox.seed_transaction(transaction_object("PICKLE-KEY", "successful", "5"))
    config = sandbox.config()
    copies = [copy.copy(config), copy.deepcopy(config)]
    del config
    gc.collect()
    for copied in copies:
        # The same key, still alive: a wrong or freed one would be Unauthorized or a crash.
        assert sika.BlockingClient(copied).verify_transaction("PICKLE-KEY").tx_ref == "PICKLE-KEY"


def test_b38_copies_freed_in_any_order_leave_a_clean_exit():
    script = """
import copy, gc, sika
config = sika.ClientConfig(secret_key=sika.SecretKey("sk_test_copy"), base_url="http://127.0.0.1:9")
copies = [copy.deepcopy(config), copy.copy(config), copy.deepcopy(config.secret_key)]
client = sika.BlockingClient(copies[0])
twins = [copy.deepcopy(client), copy.copy(sika.Cancellation())]
del config, client
gc.collect()
"""
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (finished.returncode, finished.stderr) == (0, "")


def error_samples():
    """Every variant of SikaError (tests/fixtures/errors.json), and the base class built by hand."""
    return error_samples_of_the_fixture.errors() + [SikaError.RateLimited(None, None), SikaError("a bare error")]


def fields_of(error) -> dict:
    return {name: value for name, value in vars(error).items()}


@pytest.mark.parametrize("error", error_samples(), ids=lambda error: type(error).__qualname__)
def test_b38_every_error_pickles_to_the_same_error(error):
    for protocol in PROTOCOLS:
        back = pickle.loads(pickle.dumps(error, protocol))
        assert type(back) is type(error)
        assert fields_of(back) == fields_of(error)
        assert str(back) == str(error) and repr(back) == repr(error)
    if type(error) is not SikaError:
        assert str(error) == type(error).message(error), "the core's message"


def test_b38_errors_from_the_core_pickle(sandbox):
    body = (FIXTURES_DIR / "responses" / "error_transaction_not_found.json").read_bytes()
    with pytest.raises(SikaError) as raised:
        sika.decode_transaction_response(404, body)
    client = sandbox.blocking_client()
    with pytest.raises(SikaError.InvalidInput) as invalid:
        client.verify_transaction("")
    for error in [raised.value, invalid.value]:
        back = pickle.loads(pickle.dumps(error))
        assert (type(back), fields_of(back), str(back)) == (type(error), fields_of(error), str(error))


def test_b38_printing_an_error_never_raises():
    odd = [
        SikaError("x"),
        SikaError(),
        SikaError.Api("not a number", None, 3),
        SikaError.InvalidInput(None, 3),
        SikaError.RateLimited("soon", None),
    ]
    for error in odd:
        assert isinstance(str(error), str) and isinstance(repr(error), str)
    assert str(SikaError("x")) == "x"


def test_b38_records_pickle_whole(sandbox):
    sandbox.seed_transaction(transaction_object("PICKLE-TX", "success", "100.10"))
    transaction = sandbox.blocking_client().verify_transaction("PICKLE-TX")
    request = charge("PICKLE-CHARGE")
    check = sika.PaymentCheck.NOT_PAID(transaction=transaction, action=sika.MerchantAction.INVESTIGATE)
    for record in [transaction, transaction.customer, request, sika.countries()[0], check, transaction.status]:
        back = pickle.loads(pickle.dumps(record))
        assert back == record and type(back) is type(record)
    back = pickle.loads(pickle.dumps(transaction))
    assert back.status.is_unknown() and back.status == "success"
    assert str(back.amount) == "100.10"


# The tasks below run in worker processes (spawn: a fresh interpreter that imports this module).


def charge_in_worker(base_url: str, reference: str):
    """Charges with a client built in the worker; the sandbox loses the answer."""
    return blocking_client(base_url).initiate_charge(charge(reference))


def verify_in_worker(base_url: str, reference: str):
    return blocking_client(base_url).verify_transaction(reference)


def test_b38_a_process_pool_gets_the_workers_errors_and_records(sandbox):
    sandbox.seed_transaction(transaction_object("POOL-TX", "successful", "100.10"))
    sandbox.fault("/charge", "after_processing", then="status", status=502)
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        lost = pool.submit(charge_in_worker, sandbox.url, "POOL-LOST")
        verified = pool.submit(verify_in_worker, sandbox.url, "POOL-TX")
        with pytest.raises(SikaError.ChargeOutcomeUnknown) as raised:
            lost.result(timeout=60)
        transaction = verified.result(timeout=60)
    assert raised.value.reference == "POOL-LOST"
    assert "POOL-LOST" in str(raised.value)
    assert transaction == sandbox.blocking_client().verify_transaction("POOL-TX")
    assert transaction.status.is_successful() and str(transaction.amount) == "100.10"
