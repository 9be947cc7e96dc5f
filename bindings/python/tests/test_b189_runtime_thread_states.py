"""B189: the threads of the SDK's runtime keep one Python thread state each (ADR 0062).

ctypes gives a thread Python did not start a new thread state for each callback, made under
CPython's runtime lock without the GIL: the window in which a fork leaves a 3.11 child waiting
for ever (ADR 0054, B84). The runtime's workers call into Python with every completion that
wakes an event loop. Each now keeps the state it made at its first completion. Seen from outside, through CPython's public C API, in a fresh interpreter: the
interpreter's thread states include the workers' between calls, and they are the same states
(by id) after hundreds more calls."""

from __future__ import annotations

import json
import subprocess
import sys

from support import KEY, transaction_object

# Run in a fresh interpreter, so no earlier test's calls made the states already.
CHILD = r"""
import asyncio, ctypes, json, sys, time
import sika

api = ctypes.PyDLL(None)  # this interpreter's C API, with argument types of its own
api.PyInterpreterState_Get.restype = ctypes.c_void_p
api.PyInterpreterState_ThreadHead.argtypes = [ctypes.c_void_p]
api.PyInterpreterState_ThreadHead.restype = ctypes.c_void_p
api.PyThreadState_Next.argtypes = [ctypes.c_void_p]
api.PyThreadState_Next.restype = ctypes.c_void_p
api.PyThreadState_GetID.argtypes = [ctypes.c_void_p]
api.PyThreadState_GetID.restype = ctypes.c_uint64


def state_ids():
    # Read with the GIL, once the calls have settled: no thread makes or drops a state now.
    time.sleep(0.3)
    ids, state = set(), api.PyInterpreterState_ThreadHead(api.PyInterpreterState_Get())
    while state:
        ids.add(api.PyThreadState_GetID(state))
        state = api.PyThreadState_Next(state)
    return ids


url, key, reference = sys.argv[1:4]
config = sika.ClientConfig(secret_key=sika.SecretKey(key), base_url=url, timeout_ms=10_000, max_retries=0)
blocking, awaited = sika.BlockingClient(config), sika.Client(config)


def calls(count):
    for _ in range(count):  # on the main thread: the core's own calls, no wake (B210)
        blocking.verify_transaction(reference)

    async def burst():
        await asyncio.gather(*(awaited.verify_transaction(reference) for _ in range(count)))

    asyncio.run(burst())


before = state_ids()
calls(30)
first = state_ids() - before
calls(300)
later = state_ids() - before
print(json.dumps({"first": sorted(first), "later": sorted(later)}))
"""


def test_b189_the_runtime_threads_keep_one_python_thread_state_each(sandbox):
    reference = "B189-1"
    sandbox.seed_transaction(transaction_object(reference, "successful", "5.00"))
    child = subprocess.run(
        [sys.executable, "-c", CHILD, sandbox.url, KEY, reference], capture_output=True, text=True, timeout=120
    )
    assert child.returncode == 0, child.stderr
    states = json.loads(child.stdout.strip().splitlines()[-1])
    # Made per completion and deleted after it, the workers' states were gone between calls.
    assert states["first"], "no thread of the SDK's runtime kept its Python thread state"
    # Two runtime workers (core/src/ffi/runtime.rs), and the logging thread if it logged.
    assert len(states["first"]) <= 3, states
    # 600 more completions made no new state: the same states served them.
    assert states["later"] == states["first"], states
