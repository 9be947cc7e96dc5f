//! Kotlin: the JVM host's set-up as the native library loads (`JvmHost.loaded()`, in
//! `bindings/kotlin/src/main/kotlin/dev/sika/JvmHost.kt`). Placed right after the library is
//! bound and before the callback registrations, so before anything can build a client or make a
//! call:
//! - the JVM reports what it is, so that on Android every client constructor throws
//!   `SikaException.Configuration` (ADR 0027). The core decides and words the error;
//!   `ServerOnly.kt` only reads the JVM's properties;
//! - the threads that wake coroutines, and the logging thread, stay attached to the VM once
//!   attached (ADR 0068). JNA reads a callback's thread initializer when it makes the
//!   callback's native pointer, which `register` does for the log sink: so this comes first.

use crate::patch::replace_exactly;

/// The loader's first statement: the library bound to `UniffiLib`'s `external fun`s.
const BOUND: &str = "        Native.register(UniffiLib::class.java, findLibraryName(componentName = \"sika_ffi\"))\n";

pub fn patch(text: String) -> Result<String, String> {
    replace_exactly(
        &text,
        BOUND,
        &format!(
            "{BOUND}        \
             // Sika: Android is refused; the SDK's threads stay attached (bindings/uniffi-bindgen/src/patch/kotlin/server_only.rs).\n        \
             dev.sika.JvmHost.loaded()\n"
        ),
        1,
        "the binding of the native library as it loads, before the callback registrations",
    )
}
