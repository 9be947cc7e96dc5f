//! Kotlin: `Sika.kt`, the package's functions on an object named `Sika`, for Java (issue 26
//! item 4, ADR 0067). A file of its own beside the generated one.
//!
//! Kotlin compiles the generated file's top-level functions into the class `Sika_ffiKt`, beside
//! UniFFI's own statics (`uniffiEnsureInitialized`, `UNIFFI_CALL_ERROR`, ...). Java callers get
//! `Sika.parseWebhookEvent(body)` instead: each function, `@JvmStatic`, with its documentation,
//! parameters, defaults (`@JvmOverloads`) and `@Throws`, calling the generated function. Kotlin
//! keeps calling the top-level functions.
//!
//! The functions are the ones whose body calls one of the library's `..._fn_func_...` symbols,
//! UniFFI's name for a free function (methods are `_fn_method_`, constructors
//! `_fn_constructor_`), so a new function joins without a list kept by hand.

use super::blocking_forms::thrown_type;
use super::completable_futures::SuspendMethod;

/// The file's name, beside `sika_ffi.kt`.
pub const FILE_NAME: &str = "Sika.kt";

/// `Sika.kt` for the generated `sika_ffi.kt` in `text`.
pub fn generate(text: &str) -> Result<String, String> {
    let mut members = String::new();
    let mut names = Vec::new();
    for (call, _) in text.match_indices("UniffiLib.uniffi_") {
        let symbol = &text[call + "UniffiLib.".len()..];
        let symbol = &symbol[..symbol.find('(').ok_or("a library call without `(`")?];
        if !symbol.contains("_fn_func_") {
            continue;
        }
        let at = text[..call].rfind("fun `").ok_or_else(|| format!("no `fun` calls `{symbol}`"))?;
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let prefix = &text[line_start..at];
        if prefix.contains("suspend") || prefix.contains("override") || prefix.contains("private") {
            return Err(format!("`{symbol}` is not called by a plain top-level function: `{prefix}fun`"));
        }
        let line = &text[at + "fun ".len()..];
        let line = line[..line.find('\n').unwrap_or(line.len())].trim_end();
        let declaration = line.strip_suffix(" {").unwrap_or(line);
        let function = SuspendMethod::parse(declaration)?;
        let throws = match prefix.trim() {
            annotated if annotated.starts_with("@Throws(") => {
                format!("    @Throws({}::class)\n", thrown_type(annotated, function.name)?)
            }
            "" | "*/" => String::new(),
            _ => return Err(format!("`{}` has an unexpected prefix `{prefix}`", function.name)),
        };
        names.push(function.name);
        let doc = doc_before(text, line_start, prefix)
            .unwrap_or_else(|| format!("    /** [dev.sika.{}]. */\n", function.name));
        let overloads = if function.parameters.contains(" = ") { "    @JvmOverloads\n" } else { "" };
        let arguments: Vec<String> = function.names.iter().map(|n| format!("`{n}`")).collect();
        members.push_str(&format!(
            "{doc}    @JvmStatic\n{throws}{overloads}    public fun `{name}`({parameters}): {result} =\n        dev.sika.`{name}`({arguments})\n\n",
            name = function.name,
            parameters = function.parameters,
            result = function.result,
            arguments = arguments.join(", "),
        ));
    }
    if names.is_empty() {
        return Err("no top-level function calls a `_fn_func_` symbol".to_owned());
    }
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.len() != names.len() {
        return Err("a top-level function was found twice".to_owned());
    }
    Ok(format!("{HEAD}{}\n}}\n", members.trim_end_matches('\n')))
}

/// The documentation comment that ends right before the declaration whose line starts at
/// `line_start` with `prefix` (on that line, as `*/ fun`, or on the line before), re-indented for
/// a member of the object.
fn doc_before(text: &str, line_start: usize, prefix: &str) -> Option<String> {
    let head = match prefix.find("*/") {
        Some(end) => &text[..line_start + end + 2],
        None => text[..line_start].trim_end(),
    };
    if !head.ends_with("*/") {
        return None;
    }
    let start = head.rfind("/**")?;
    let lines: Vec<String> = head[start..]
        .lines()
        .map(|l| {
            let l = l.trim();
            if l.starts_with("/**") { format!("    {l}") } else { format!("     {l}") }
        })
        .collect();
    Some(lines.join("\n") + "\n")
}

const HEAD: &str = "\
// Written by Sika's uniffi-bindgen from the generated code
// (bindings/uniffi-bindgen/src/patch/kotlin/functions_object.rs, ADR 0067). Do not edit.
@file:Suppress(\"RemoveRedundantBackticks\", \"RedundantVisibilityModifier\")

package dev.sika

/**
 * Sika's functions, for Java: `Sika.parseWebhookEvent(body)`, `Sika.transactionFromJson(json)`,
 * `Sika.setLogSink(sink)`. Each calls the package's function of the same name, which Kotlin
 * calls directly.
 */
public object Sika {
";

#[cfg(test)]
mod tests {
    use super::generate;

    const GENERATED: &str = "\
open class Client: Disposable, AutoCloseable, ClientInterface
{
    override fun `withOptions`(`timeoutMs`: kotlin.Long?): Client {
    UniffiLib.uniffi_sika_core_fn_method_client_with_options(
    }
}


        /**
         * Every country of the service, in the spec's order.
         */ fun `countries`(): List<CountryInfo> {
            return FfiConverterSequenceTypeCountryInfo.lift(
    uniffiRustCall() { _status ->
    UniffiLib.uniffi_sika_core_fn_func_countries(

        _status)
}
    )
    }


        /**
         * Reads the notification.
         */
    @Throws(SikaException::class) fun `parseWebhookEvent`(`body`: kotlin.ByteArray): WebhookEvent {
            return FfiConverterTypeWebhookEvent.lift(
    uniffiRustCallWithError(SikaException) { _status ->
    UniffiLib.uniffi_sika_core_fn_func_parse_webhook_event(

        FfiConverterByteArray.lower(`body`),_status)
}
    )
    }

    @Throws(SikaException::class) fun `checkHostRuntime`(`vmName`: kotlin.String, `vmVendor`: kotlin.String? = null)
        =
    uniffiRustCallWithError(SikaException) { _status ->
    UniffiLib.uniffi_sika_core_fn_func_check_host_runtime(

        _status)
}
";

    #[test]
    fn b194_the_functions_are_on_an_object_named_sika() {
        let file = generate(GENERATED).unwrap();
        assert!(file.contains("public object Sika {\n"), "{file}");
        assert!(file.contains("    /**\n     * Every country of the service, in the spec's order.\n     */\n    @JvmStatic\n    public fun `countries`(): List<CountryInfo> =\n        dev.sika.`countries`()\n"), "{file}");
        assert!(file.contains("    /**\n     * Reads the notification.\n     */\n    @JvmStatic\n    @Throws(SikaException::class)\n    public fun `parseWebhookEvent`(`body`: kotlin.ByteArray): WebhookEvent =\n        dev.sika.`parseWebhookEvent`(`body`)\n"), "{file}");
        // No documentation of its own: a link; no result: Unit; a default: overloads.
        assert!(file.contains("    /** [dev.sika.checkHostRuntime]. */\n    @JvmStatic\n    @Throws(SikaException::class)\n    @JvmOverloads\n    public fun `checkHostRuntime`(`vmName`: kotlin.String, `vmVendor`: kotlin.String? = null): Unit =\n        dev.sika.`checkHostRuntime`(`vmName`, `vmVendor`)\n"), "{file}");
        // A method is not a function.
        assert!(!file.contains("withOptions"), "{file}");
        assert!(file.ends_with("    }\n}\n") || file.ends_with(")\n}\n"), "{file}");
    }

    #[test]
    fn b194_the_shape_is_checked() {
        assert!(generate(GENERATED).is_ok());
        for (from, to) in [
            ("_fn_func_", "_fn_free_"),
            (" fun `countries`", " suspend fun `countries`"),
            (
                "@Throws(SikaException::class) fun `parseWebhookEvent`",
                "@Throws(Sika<E>::class) fun `parseWebhookEvent`",
            ),
            ("fun `parseWebhookEvent`(`body`", "fun parseWebhookEvent(`body`"),
        ] {
            assert!(generate(&GENERATED.replace(from, to)).is_err(), "{from} -> {to}");
        }
    }
}
