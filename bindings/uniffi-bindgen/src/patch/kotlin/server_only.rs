//! Kotlin: the JVM reports what it is as the native library loads, so that on Android every
//! client constructor throws `SikaException.Configuration` (ADR 0027). The core decides and
//! words the error; `bindings/kotlin/src/main/kotlin/dev/sika/ServerOnly.kt` only reads the
//! JVM's properties. Placed with the callback registrations, before anything can build a client.

use crate::patch::replace_exactly;

pub fn patch(text: String) -> Result<String, String> {
    replace_exactly(
        &text,
        "        uniffiCallbackInterfaceLogSink.register(this)\n",
        "        uniffiCallbackInterfaceLogSink.register(this)\n        \
         // Sika: Android is refused (bindings/uniffi-bindgen/src/patch/kotlin/server_only.rs).\n        \
         dev.sika.ServerOnly.report()\n",
        1,
        "the registration of the `LogSink` callback interface as the library loads",
    )
}
