//! Python: the clients' lifecycle, and the module's at interpreter exit and at fork.
//!
//! - `BlockingClient` gets `close()` and `with`; `Client` gets `close()` and `async with`: all
//!   call the core's exported `shutdown()` (UniFFI has no way to export a context manager).
//! - Every object's `__del__` does nothing once the interpreter is finalizing: this module's
//!   globals can be wiped before the last reference to an object goes (a module still alive at
//!   exit holding a client), so freeing it then printed `Exception ignored in ... __del__`.
//!   The process is ending; the operating system takes the memory and closes the sockets.
//! - At exit (`atexit`, before CPython finalizes) the SDK's threads stop waking Python's event
//!   loops, and the wakes in progress are waited for: a thread entering Python during
//!   finalization is ended mid-call, which aborted the process (core/src/ffi/wake_gate.rs).
//! - In a forked child, the map of awaited futures gets a new lock: a lock another thread held
//!   at the fork would never be released there. (Everything in Rust is made per process by
//!   the core itself; this lock is the generated module's own.)
//! - A call that ends after its event loop was closed (a loop closed with calls in flight) is
//!   dropped: nobody can await it any more, and waking the closed loop raised "Event loop is
//!   closed" from the continuation callback, printed once per call (`Exception ignored on
//!   calling ctypes callback function`). The Rust future is freed with its coroutine, as any
//!   abandoned call's. Caught rather than checked first: the loop may close between a check and
//!   the call, and the usual path stays as generated (B54, docs/adr/0013-process-model.md).
//! - A continuation called back on the event loop's own thread (a call already done when it
//!   was polled: UniFFI calls back inside the poll, past the core's wake gate) schedules with
//!   `call_soon`, not `call_soon_threadsafe`: the latter's self-pipe write releases the GIL, and
//!   a daemon loop thread retaking it while the interpreter finalizes is ended by
//!   `pthread_exit`, whose forced unwind through the Rust poll's frames crashed the process
//!   (SIGSEGV, about 1 exit in 100 on Python 3.13 with answers landing through the exit).

use crate::patch::python::Added;
use crate::patch::replace_exactly;

pub fn patch(text: String) -> Result<String, String> {
    let text = replace_exactly(
        &text,
        "\n    def __del__(self):\n        # In case of partial initialization of instances.\n",
        "\n    def __del__(self, _sika_is_finalizing=sys.is_finalizing):\n\
         \x20       # Sika: at interpreter exit this module's globals may already be gone; the\n\
         \x20       # process is ending, so the object is left to it (patch/python/lifecycle.rs).\n\
         \x20       if _sika_is_finalizing():\n\
         \x20           return\n\
         \x20       # In case of partial initialization of instances.\n",
        4,
        "the objects' `__del__` (Cancellation, SecretKey, BlockingClient, Client)",
    )?;
    let text = replace_exactly(
        &text,
        "_uniffi_rust_call(_UniffiLib.uniffi_sika_core_fn_free_blockingclient, handle)\n",
        "_uniffi_rust_call(_UniffiLib.uniffi_sika_core_fn_free_blockingclient, handle)\n\
         \n\
         \x20   # Sika (patch/python/lifecycle.rs): close() and `with`, over the core's shutdown().\n\
         \x20   def close(self) -> None:\n\
         \x20       \"\"\"Shuts the client down (`shutdown()`); calling it again does nothing.\"\"\"\n\
         \x20       self.shutdown()\n\
         \n\
         \x20   def __enter__(self) -> BlockingClient:\n\
         \x20       return self\n\
         \n\
         \x20   def __exit__(self, *exc_info) -> None:\n\
         \x20       self.shutdown()\n",
        1,
        "the free call of `BlockingClient.__del__`",
    )?;
    let text = replace_exactly(
        &text,
        "_uniffi_rust_call(_UniffiLib.uniffi_sika_core_fn_free_client, handle)\n",
        "_uniffi_rust_call(_UniffiLib.uniffi_sika_core_fn_free_client, handle)\n\
         \n\
         \x20   # Sika (patch/python/lifecycle.rs): close() and `async with`, over the core's shutdown().\n\
         \x20   def close(self) -> None:\n\
         \x20       \"\"\"Shuts the client down (`shutdown()`); calling it again does nothing.\"\"\"\n\
         \x20       self.shutdown()\n\
         \n\
         \x20   async def __aenter__(self) -> Client:\n\
         \x20       return self\n\
         \n\
         \x20   async def __aexit__(self, *exc_info) -> None:\n\
         \x20       self.shutdown()\n",
        1,
        "the free call of `Client.__del__`",
    )?;
    let text = replace_exactly(
        &text,
        "    (eventloop, future) = _UniffiContinuationHandleMap.remove(future_ptr)\n\
         \x20   eventloop.call_soon_threadsafe(_uniffi_set_future_result, future, poll_code)\n",
        "    (eventloop, future) = _UniffiContinuationHandleMap.remove(future_ptr)\n\
         \x20   try:\n\
         \x20       if asyncio._get_running_loop() is eventloop:\n\
         \x20           # Sika (patch/python/lifecycle.rs): called back on the loop's own thread\n\
         \x20           # (the call was ready when polled), inside the Rust poll: call_soon, which\n\
         \x20           # never releases the GIL. The self-pipe write of call_soon_threadsafe does,\n\
         \x20           # and a daemon thread retaking the GIL while the interpreter finalizes is\n\
         \x20           # ended by pthread_exit, whose unwind through the Rust frames crashes.\n\
         \x20           eventloop.call_soon(_uniffi_set_future_result, future, poll_code)\n\
         \x20       else:\n\
         \x20           eventloop.call_soon_threadsafe(_uniffi_set_future_result, future, poll_code)\n\
         \x20   except RuntimeError:\n\
         \x20       # Sika (patch/python/lifecycle.rs): the loop was closed with this call in flight;\n\
         \x20       # nobody can await it now, so its completion is dropped, silently.\n\
         \x20       if not eventloop.is_closed():\n\
         \x20           raise\n",
        1,
        "the continuation callback's wake of the event loop",
    )?;
    replace_exactly(
        &text,
        "\n_UniffiContinuationHandleMap = _UniffiHandleMap()\n",
        "\n_UniffiContinuationHandleMap = _UniffiHandleMap()\n\
         \n\
         # Sika (patch/python/lifecycle.rs): at exit, before finalizing, the SDK's threads stop\n\
         # waking event loops (one entering Python then would abort the process).\n\
         import atexit\n\
         _UniffiLib.sika_ffi_close_host_wakes.argtypes = []\n\
         _UniffiLib.sika_ffi_close_host_wakes.restype = None\n\
         atexit.register(_UniffiLib.sika_ffi_close_host_wakes)\n\
         \n\
         # A forked child has only the forking thread: a lock another thread held at the fork\n\
         # would stay held, and no awaited future of the parent's can complete there.\n\
         def _sika_after_fork_in_child():\n\
         \x20   global _UniffiContinuationHandleMap\n\
         \x20   _UniffiContinuationHandleMap = _UniffiHandleMap()\n\
         \n\
         os.register_at_fork(after_in_child=_sika_after_fork_in_child)\n",
        1,
        "`_UniffiContinuationHandleMap`",
    )
}

/// What this patch adds, for the typed declarations (ADR 0016). (`__del__` and the module's
/// hooks are the interpreter's, not the application's.)
pub fn added() -> Vec<Added> {
    let members = [
        (
            "BlockingClient",
            "def close(self) -> None:\n    \"\"\"Shuts the client down (`shutdown()`); calling it again does nothing.\"\"\"\n    ...",
        ),
        ("BlockingClient", "def __enter__(self) -> BlockingClient: ..."),
        ("BlockingClient", "def __exit__(self, *exc_info: object) -> None: ..."),
        (
            "Client",
            "def close(self) -> None:\n    \"\"\"Shuts the client down (`shutdown()`); calling it again does nothing.\"\"\"\n    ...",
        ),
        ("Client", "async def __aenter__(self) -> Client: ..."),
        ("Client", "async def __aexit__(self, *exc_info: object) -> None: ..."),
    ];
    members
        .into_iter()
        .map(|(class, declaration)| Added::Member { class: class.to_owned(), declaration: declaration.to_owned() })
        .collect()
}
