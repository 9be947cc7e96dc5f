//! Kotlin: the JVM host's set-up as the native library loads (`JvmHost.loaded()`, in
//! `bindings/kotlin/src/main/kotlin/dev/sika/JvmHost.kt`). Placed with the callback
//! registrations, before anything can build a client or make a call:
//! - the JVM reports what it is, so that on Android every client constructor throws
//!   `SikaException.Configuration` (ADR 0027). The core decides and words the error;
//!   `ServerOnly.kt` only reads the JVM's properties;
//! - the threads that wake coroutines stay attached to the VM once attached (ADR 0068).

use crate::patch::replace_exactly;

pub fn patch(text: String) -> Result<String, String> {
    replace_exactly(
        &text,
        "        uniffiCallbackInterfaceLogSink.register(this)\n",
        "        uniffiCallbackInterfaceLogSink.register(this)\n        \
         // Sika: Android is refused; waking threads stay attached (bindings/uniffi-bindgen/src/patch/kotlin/server_only.rs).\n        \
         dev.sika.JvmHost.loaded()\n",
        1,
        "the registration of the `LogSink` callback interface as the library loads",
    )
}
