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
//! - In a forked child, the awaited calls' state is made new by `asyncio_wakes.rs`, which
//!   keeps it without a lock (the generated handle map, with its lock, is off the async path).
//! - A call that ends after its event loop was closed, and a continuation called back on the
//!   loop's own thread, are handled by the continuation callback, which `asyncio_wakes.rs`
//!   replaces (B54, B60; docs/adr/0013-process-model.md, docs/adr/0030-asyncio-wake-ups.md).

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
         atexit.register(_UniffiLib.sika_ffi_close_host_wakes)\n",
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
