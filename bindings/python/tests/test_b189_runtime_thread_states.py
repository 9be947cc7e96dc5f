"""B189: the threads of the SDK's runtime keep one Python thread state each (ADR 0062).

ctypes gives a thread Python did not start a new thread state for each callback, made under
CPython's runtime lock without the GIL: the window in which a fork leaves a 3.11 child waiting
for ever (ADR 0054, B84). The runtime's workers call into Python with every completion that
wakes an event loop. Each now keeps the state it made at its first completion. Seen from outside, through CPython's public C API, in a fresh interpreter: the
interpreter's thread states include the workers' between calls, and they are the same states
(by id) after hundreds more calls."""

from __future__ import annotations

from support import THREAD_STATE_IDS, run_fresh_interpreter

# Run in a fresh interpreter, so no earlier test's calls made the states already.
CHILD = THREAD_STATE_IDS + r"""
import asyncio, json, sys
import sika

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
    states = run_fresh_interpreter(sandbox, CHILD, "B189-1")
    # Made per completion and deleted after it, the workers' states were gone between calls.
    assert states["first"], "no thread of the SDK's runtime kept its Python thread state"
    # Two runtime workers (core/src/ffi/runtime.rs), and the logging thread if it logged.
    assert len(states["first"]) <= 3, states
    # 600 more completions kept those very states. Main-thread blocking calls no longer complete
    # on the runtime's threads (ADR 0070), so a worker may make its first completion, and its
    # one state, only in the later burst: never more than a state per thread.
    assert set(states["first"]) <= set(states["later"]), states
    assert len(states["later"]) <= 3, states
