"""B54: the async client's calls in flight when their host goes away.

- The interpreter exits (`sys.exit`, or the script's end) while a thread's event loop (asyncio
  or uvloop) has calls in flight: some hang for good, others are answered all through the exit
  (a call started every few milliseconds, each answered after a delay), so an answer lands
  while the interpreter finalizes. A Rust thread that entered Python then was killed inside
  Rust and aborted the process ("FATAL: exception not rethrown"); the core stops waking Python
  at `atexit`, before finalization (docs/adr/0013-process-model.md).
- A loop is closed with calls in flight, and they are answered afterwards: waking the closed
  loop printed "Event loop is closed" from the continuation callback, once per call. The
  answers are dropped silently, the abandoned calls are freed, the process exits clean, and
  the client works on a new loop.
- An `atexit` handler that runs after the SDK's own makes an async call: a typed error at once
  (`Configuration`), where it waited for a wake that never came.

Each scenario runs in child interpreters, many times: the exit race is a matter of timing.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from support import KEY

DEADLINE_S = 60
# Runs per scenario, and how many run side by side (the machine has two cores).
RUNS = 20
SIDE_BY_SIDE = 5
# Each refresh of the bank list is answered after this delay: with one started every
# `STAGGER_S` for `EXIT_AFTER_S`, answers keep arriving through the exit.
ANSWER_DELAY_MS = 60
STAGGER_S = 0.004
EXIT_AFTER_S = 0.15

PREAMBLE = """
import asyncio, gc, sys, threading, time, weakref
import sika

def config():
    return sika.ClientConfig(secret_key=sika.SecretKey(sys.argv[2]), base_url=sys.argv[1], timeout_ms=10_000)

def new_loop(kind):
    if kind == "uvloop":
        import uvloop
        return uvloop.new_event_loop()
    return asyncio.new_event_loop()
"""

# A daemon thread's loop: four verifications that hang, and a refresh of the bank list
# started every STAGGER_S, each answered ANSWER_DELAY_MS later, until the process ends.
CALLS_IN_FLIGHT = """
client = sika.Client(config())

async def handled(call):
    # A background task that handles the SDK's errors, as a merchant's does: a call started
    # after the SDK's exit hook fails at once with Configuration (B54), and left unhandled it
    # would be asyncio's own "exception was never retrieved" report, not the SDK's output.
    try:
        await call
    except sika.SikaError:
        pass

def background(call):
    asyncio.ensure_future(handled(call))

async def calls_in_flight():
    for n in range(4):
        background(client.verify_transaction(f"HANG-{{n}}"))
    while True:
        background(client.refresh_banks("GH"))
        await asyncio.sleep({stagger})

def run_loop():
    loop = new_loop(sys.argv[3])
    loop.run_until_complete(calls_in_flight())

threading.Thread(target=run_loop, daemon=True).start()
time.sleep({exit_after})
"""

EXITS = {
    "sys.exit": "sys.exit(0)\n",
    "the script's end": "",
}

# A loop closed with calls in flight; its own exception handler reports anything but asyncio's
# note on the tasks it closed unfinished (asyncio's, for any task, not the SDK's).
CLOSED_LOOP = """
client = sika.Client(config())
loop = new_loop(sys.argv[3])

def report(loop, context):
    if context.get("message") != "Task was destroyed but it is pending!":
        print("loop exception:", context, file=sys.stderr)

loop.set_exception_handler(report)
calls = [loop.create_task(client.refresh_banks("GH")) for _ in range(8)]
calls += [loop.create_task(client.verify_transaction(f"HANG-{{n}}")) for n in range(4)]
loop.run_until_complete(asyncio.sleep(0.05))
assert not any(call.done() for call in calls), "the calls should still be in flight"
loop.close()
answered = [weakref.ref(call) for call in calls[:8]]
del calls
# The refreshes are answered now, after the close: each one wakes the closed loop.
time.sleep({after_answers})
gc.collect()
# Their completions were dropped, so nothing holds them: their coroutines were closed, which
# freed their Rust futures. (The hanging calls are held until their own timeout wakes them.)
assert all(call() is None for call in answered), "an answered call outlived its closed loop"
# The client still works, on another loop.
other = new_loop(sys.argv[3])
banks = other.run_until_complete(client.list_mobile_money_providers("GH"))
other.close()
assert banks, "no providers"
"""

# An `atexit` handler registered before `import sika` runs after the SDK stopped waking Python:
# its async call must fail at once with a typed error, not wait for a wake that never comes
# (it hung until the caller's own timeout); the blocking client still works there.
LATE_EXIT_HANDLER = """
import atexit, asyncio, sys, time

def at_exit():
    started = time.monotonic()
    try:
        asyncio.run(asyncio.wait_for(client.refresh_banks("GH"), 5))
        print("answered")
    except sika.SikaError.Configuration as error:
        print("Configuration", "within 1 s" if time.monotonic() - started < 1 else "too late", error)
    except BaseException as error:
        print("not a typed error:", type(error).__name__)
    print("blocking:", len(blocking.refresh_banks("GH")) > 0)

atexit.register(at_exit)
import sika

config = sika.ClientConfig(secret_key=sika.SecretKey(sys.argv[2]), base_url=sys.argv[1], timeout_ms=10_000)
client, blocking = sika.Client(config), sika.BlockingClient(config)
asyncio.run(client.refresh_banks("GH"))
"""

LOOPS = ["asyncio", "uvloop"]


def run_children(script, sandbox, loop, runs=RUNS):
    """Runs `script` `runs` times, `SIDE_BY_SIDE` at once; returns each run's (code, out, err)."""
    outcomes = []
    for start in range(0, runs, SIDE_BY_SIDE):
        children = [
            subprocess.Popen(
                [sys.executable, str(script), sandbox.url, KEY, loop],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(min(SIDE_BY_SIDE, runs - start))
        ]
        for child in children:
            stdout, stderr = child.communicate(timeout=DEADLINE_S)
            outcomes.append((child.returncode, stdout, stderr))
    return outcomes


def assert_all_clean(outcomes):
    failed = [outcome for outcome in outcomes if outcome != (0, "", "")]
    assert not failed, f"{len(failed)} of {len(outcomes)} runs not clean; first: {failed[0]}"


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("exit_by", list(EXITS))
def test_b54_interpreter_exit_with_async_calls_in_flight_is_clean(sandbox, tmp_path, exit_by, loop):
    sandbox.fault("/transaction/verify", "hang", count=10_000)
    sandbox.fault("/bank", "delay", count=100_000, delay_ms=ANSWER_DELAY_MS)
    script = tmp_path / "exit_with_calls_in_flight.py"
    body = CALLS_IN_FLIGHT.format(stagger=STAGGER_S, exit_after=EXIT_AFTER_S) + EXITS[exit_by]
    script.write_text(PREAMBLE + textwrap.dedent(body))
    assert_all_clean(run_children(script, sandbox, loop))


@pytest.mark.parametrize("loop", LOOPS)
def test_b54_a_loop_closed_with_calls_in_flight_prints_nothing(sandbox, tmp_path, loop):
    sandbox.fault("/transaction/verify", "hang", count=10_000)
    sandbox.fault("/bank", "delay", count=100_000, delay_ms=300)
    script = tmp_path / "closed_loop.py"
    script.write_text(PREAMBLE + textwrap.dedent(CLOSED_LOOP.format(after_answers=1.0)))
    # Fewer runs: no race here, each run closes the loop before any answer.
    assert_all_clean(run_children(script, sandbox, loop, runs=SIDE_BY_SIDE))


def test_b54_an_async_call_after_the_exit_hook_is_a_typed_error_not_a_hang(sandbox, tmp_path):
    sandbox.fault("/bank", "delay", count=100_000, delay_ms=200)
    script = tmp_path / "late_exit_handler.py"
    script.write_text(textwrap.dedent(LATE_EXIT_HANDLER))
    outcomes = run_children(script, sandbox, "asyncio", runs=1)
    code, stdout, stderr = outcomes[0]
    assert (code, stderr) == (0, ""), outcomes
    lines = stdout.splitlines()
    assert lines[0].startswith("Configuration within 1 s "), stdout
    assert "the interpreter is exiting" in lines[0], stdout
    assert lines[1:] == ["blocking: True"], stdout


def test_b54_the_async_calls_future_functions_keep_the_gil():
    # A poll that finds its call answered (or failed: every call started after the exit hook)
    # calls the continuation back inline, inside Rust; called with the GIL released (ctypes'
    # CDLL), ctypes' thunk took it back there, and a daemon loop thread doing so once the
    # interpreter was finalizing was ended by pthread_exit inside the Rust frames: SIGSEGV at
    # exit, about one exit in 400 on 3.13 (the exit test above, in CI). Each future function the
    # generated module calls must keep the GIL (sika/_runtime/gil.py).
    import ctypes
    import inspect
    import re

    from sika._ffi import sika_ffi

    used = set(re.findall(r"_UniffiLib\.(ffi_\w+_rust_future_(?:poll|cancel|complete|free)_\w+)\b", inspect.getsource(sika_ffi)))
    assert {"ffi_sika_core_rust_future_poll_rust_buffer", "ffi_sika_core_rust_future_free_void"} <= used
    # Each as the library object holds it, where the generated calls look it up.
    functions = [(name, getattr(sika_ffi._UniffiLib, name)) for name in sorted(used)]
    releasing = [name for name, function in functions if not type(function)._flags_ & ctypes._FUNCFLAG_PYTHONAPI]
    assert not releasing, f"{len(releasing)} of {len(used)} release the GIL, first: {releasing[0]}"
