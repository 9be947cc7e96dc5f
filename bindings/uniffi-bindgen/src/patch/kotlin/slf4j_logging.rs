//! Kotlin: the core's logs reach SLF4J without the merchant doing anything (ADR 0014).
//!
//! The SLF4J sink (`bindings/kotlin/src/main/kotlin/dev/sika/Slf4jLogging.kt`) is installed as
//! the generated code loads the native library: the first use of anything in the package
//! (a client, a key, a decode function), as Python's `import sika` installs its sink. It runs
//! after the callback interfaces are registered, so the library can call the sink at once.

use crate::patch::replace_exactly;

pub fn patch(text: String) -> Result<String, String> {
    replace_exactly(
        &text,
        "        uniffiCallbackInterfaceLogSink.register(this)\n",
        "        uniffiCallbackInterfaceLogSink.register(this)\n        \
         // Sika: the core's logs in SLF4J (bindings/uniffi-bindgen/src/patch/kotlin/slf4j_logging.rs).\n        \
         // Without slf4j-api on the class path the sink cannot load: the core's console stays.\n        \
         try { dev.sika.Slf4jLogging.install() } catch (_: LinkageError) {}\n",
        1,
        "the registration of the `LogSink` callback interface as the library loads",
    )
}
