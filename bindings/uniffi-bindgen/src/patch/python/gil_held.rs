//! Python: the functions that never wait are called with the GIL held (B54, B59;
//! docs/adr/0013-process-model.md, docs/adr/0032-calls-that-keep-the-gil.md).
//!
//! UniFFI loads the library with `ctypes.CDLL`, whose every call releases the GIL and takes it
//! back. Two costs follow:
//! - **A crash at exit.** A poll that finds its call already answered (or failed: every call
//!   started after the exit hook), and a free that cancels a stored continuation, call the
//!   continuation back inline, inside the Rust frames of that call, where ctypes' callback
//!   thunk takes the GIL back. A daemon loop thread doing so once the interpreter has started
//!   finalizing is ended by `pthread_exit`, whose forced unwind through the Rust frames crashed
//!   the process (SIGSEGV, about one exit in 400 on Python 3.13).
//! - **Time.** A release and a retake per call, paid twice by a call with a buffer argument.
//!
//! Called through a `PyDLL` handle of the same library, the functions below keep the GIL:
//! - the async calls' future functions (`rust_future_{poll,cancel,complete,free}_*`): Rust never
//!   calls Python on a thread that released the GIL, and the interpreter cannot start
//!   finalizing while a poll is in progress;
//! - the buffer functions (`rustbuffer_{alloc,from_bytes,free,reserve}`);
//! - the async methods of objects, which only make the call's future (its work runs on the
//!   SDK's threads);
//! - the methods of records and enums (`is_final`, `to_json`, `Display`), and the free
//!   functions in [`COMPUTING_FUNCTIONS`]: they compute from their arguments only.
//!
//! What keeps this deadlock-free: none of them waits. They do no I/O, take no lock that a
//! thread waiting for the GIL can hold (UniFFI 0.32 calls a continuation after releasing its
//! scheduler's lock; the SDK's threads hold no lock of the core while they wake a loop or log),
//! and a callback they make (a continuation, a log record) finds the GIL already held. Every
//! other function (the blocking client's calls, objects' constructors and frees, `shutdown`,
//! the logging setup, whose `close_log_sink` waits for sink calls that need the GIL) still
//! releases it: a function not named here is released by default.

use uniffi_bindgen::ComponentInterface;

use super::prebound::declared_functions;
use crate::patch::replace_exactly;

/// Where every function's argument types are set: the contract check follows them.
const AFTER_THE_DECLARATIONS: &str = "\n_uniffi_check_contract_api_version(_UniffiLib)\n";

/// The prefixes of UniFFI's own functions that keep the GIL.
const SCAFFOLDING_PREFIXES: [&str; 2] = ["ffi_sika_core_rust_future_", "ffi_sika_core_rustbuffer_"];
const METHOD_PREFIX: &str = "uniffi_sika_core_fn_method_";
const FUNCTION_PREFIX: &str = "uniffi_sika_core_fn_func_";

/// The free functions that compute from their arguments only (no I/O, no environment, no
/// process-wide setting): parsers, decoders and lookups. A function missing here releases the
/// GIL, the safe default; one listed here that the interface no longer has fails the build.
const COMPUTING_FUNCTIONS: [&str; 20] = [
    "bank_account_type_from_text",
    "bank_from_json",
    "charge_request_from_json",
    "charge_response_from_json",
    "countries",
    "country_info_from_json",
    "custom_field_from_json",
    "customer_from_json",
    "decode_banks_response",
    "decode_charge_response",
    "decode_providers_response",
    "decode_transaction_response",
    "expected_payment_from_json",
    "mobile_money_provider_from_json",
    "normalize_phone_number",
    "parse_webhook_event",
    "payment_type_from_text",
    "transaction_from_json",
    "transaction_status_from_text",
    "webhook_event_from_json",
];

pub fn patch(text: String, interfaces: &[ComponentInterface]) -> Result<String, String> {
    let names = functions_keeping_the_gil(&text, interfaces)?;
    let listed: String = names.iter().map(|name| format!("    \"{name}\",\n")).collect();
    let block = format!(
        "
# Sika (patch/python/gil_held.rs): these functions never wait, so they keep the GIL: a
# continuation UniFFI calls back inline never takes it back inside Rust (B54), and a call pays
# no release and retake (B59). Every other function releases it, as UniFFI's CDLL does.
_SIKA_FUNCTIONS_KEEPING_THE_GIL = (
{listed})


def _sika_keep_the_gil(lib, names):
    held = ctypes.PyDLL(lib._name, handle=lib._handle)
    for name in names:
        released = getattr(lib, name)
        function = getattr(held, name)
        function.argtypes = released.argtypes
        function.restype = released.restype
        setattr(lib, name, function)


_sika_keep_the_gil(_UniffiLib, _SIKA_FUNCTIONS_KEEPING_THE_GIL)
"
    );
    replace_exactly(
        &text,
        AFTER_THE_DECLARATIONS,
        &format!("{block}{AFTER_THE_DECLARATIONS}"),
        1,
        "the contract version check after the declarations",
    )
}

/// The declared functions that keep the GIL, in declaration order.
fn functions_keeping_the_gil(text: &str, interfaces: &[ComponentInterface]) -> Result<Vec<String>, String> {
    let declared = declared_functions(text);
    let objects: Vec<String> =
        interfaces.iter().flat_map(|ci| ci.object_definitions()).map(|o| o.name().to_lowercase()).collect();
    let async_methods: Vec<String> = interfaces
        .iter()
        .flat_map(|ci| ci.object_definitions())
        .flat_map(|o| o.methods())
        .filter(|m| m.is_async())
        .map(|m| m.ffi_func().name().to_owned())
        .collect();
    if async_methods.is_empty() {
        return Err("expected the objects' async methods in the interface".into());
    }
    for function in COMPUTING_FUNCTIONS {
        let name = format!("{FUNCTION_PREFIX}{function}");
        if !declared.contains(&name.as_str()) {
            return Err(format!("`{name}` keeps the GIL (COMPUTING_FUNCTIONS) but is not declared"));
        }
    }
    let keeps = |name: &str| {
        SCAFFOLDING_PREFIXES.iter().any(|prefix| name.starts_with(prefix))
            || async_methods.iter().any(|method| method == name)
            || name.strip_prefix(METHOD_PREFIX).is_some_and(|method| {
                // A record's or an enum's method: not an object's.
                !objects.iter().any(|object| method.starts_with(&format!("{object}_")))
            })
            || name.strip_prefix(FUNCTION_PREFIX).is_some_and(|function| COMPUTING_FUNCTIONS.contains(&function))
    };
    let names: Vec<String> = declared.into_iter().filter(|name| keeps(name)).map(str::to_owned).collect();
    for prefix in SCAFFOLDING_PREFIXES {
        if !names.iter().any(|name| name.starts_with(prefix)) {
            return Err(format!("expected functions named `{prefix}*` in the generated code"));
        }
    }
    Ok(names)
}
