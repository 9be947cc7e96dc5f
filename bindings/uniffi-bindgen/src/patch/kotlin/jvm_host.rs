//! Kotlin: the core learns, as the library loads, that its host is a JVM (B54, ADR 0013).
//!
//! Before each wake of a coroutine, the core then asks the VM whether it still exists
//! (`core/src/ffi/jvm_host.rs`), so that an answer coming after `DestroyJavaVM` (the end of
//! `main` with calls in flight) is dropped instead of making JNA print that it cannot attach
//! its thread. The function is the core's own C symbol, not part of the UniFFI interface (it
//! would be public in Python and Swift), declared here beside the generated ones and called
//! right after they are registered, before any call can start.

use crate::patch::replace_exactly;

const REGISTER: &str =
    "    init {\n        Native.register(UniffiLib::class.java, findLibraryName(componentName = \"sika_ffi\"))\n";

pub fn patch(text: String) -> Result<String, String> {
    replace_exactly(
        &text,
        REGISTER,
        &format!(
            "    // Sika: the host is a JVM (bindings/uniffi-bindgen/src/patch/kotlin/jvm_host.rs).\n    \
             external fun sika_ffi_host_is_jvm(): Unit\n\n\
             {REGISTER}        \
             sika_ffi_host_is_jvm()\n"
        ),
        1,
        "the registration of the library's functions in `UniffiLib`'s `init`",
    )
}
