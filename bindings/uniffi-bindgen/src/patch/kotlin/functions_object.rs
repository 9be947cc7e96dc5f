//! Kotlin: `Sika.kt`, the package's functions on an object named `Sika`, for Java (issue 26
//! item 4, ADR 0067). A file of its own beside the generated one.
//!
//! Kotlin compiles the generated file's top-level functions into the class `Sika_ffiKt`, beside
//! UniFFI's own statics (`uniffiEnsureInitialized`, `UNIFFI_CALL_ERROR`, ...). Java callers get
//! `Sika.parseWebhookEvent(body)` instead: each function, `@JvmStatic`, with its documentation,
//! parameters, defaults (`@JvmOverloads`) and `@Throws`, calling the generated function. Kotlin
//! keeps calling the top-level functions.
//!
//! The functions are the library's, read from its metadata (the namespace's functions, with
//! `[bindings.kotlin]`'s renames and exclusions), in the order UniFFI generates them, and each is
//! declared as `sika_ffi.kt` declares it (`kotlin_types`): a new function joins without a list
//! kept by hand, and no generated text is parsed.

use super::kotlin_types::{self, KotlinTypes, Signature};
use uniffi_bindgen::pipeline::general::Namespace;

/// The file's name, beside `sika_ffi.kt`.
pub const FILE_NAME: &str = "Sika.kt";

/// `Sika.kt` for the library's Kotlin `namespace`.
pub fn generate(namespace: &Namespace) -> Result<String, String> {
    let types = KotlinTypes::of_namespace(namespace);
    let functions = namespace
        .functions
        .iter()
        .map(|function| Ok((types.signature(&function.callable)?, function.docstring.as_deref())))
        .collect::<Result<Vec<_>, String>>()?;
    render(&functions)
}

/// The file for `functions`, each with its documentation, in their order.
fn render(functions: &[(Signature, Option<&str>)]) -> Result<String, String> {
    let mut members = String::new();
    for (function, docstring) in functions {
        let name = &function.name;
        // A plain member cannot give a suspend function's result: it would need a blocking or a
        // future form of its own.
        if function.suspends {
            return Err(format!("`{name}` is an async function: `Sika` has no form for one yet"));
        }
        let doc = match docstring {
            Some(docstring) => kotlin_types::doc_comment(docstring),
            None => format!("    /** [dev.sika.{name}]. */\n"),
        };
        let throws = function.throws.as_ref().map(|e| format!("    @Throws({e}::class)\n")).unwrap_or_default();
        let overloads = if function.has_defaults() { "    @JvmOverloads\n" } else { "" };
        members.push_str(&format!(
            "{doc}    @JvmStatic\n{throws}{overloads}    public fun `{name}`({parameters}): {result} =\n        dev.sika.`{name}`({arguments})\n\n",
            parameters = function.parameters(),
            result = function.result,
            arguments = function.arguments(),
        ));
    }
    if members.is_empty() {
        return Err("the library has no function".to_owned());
    }
    Ok(format!("{HEAD}{}\n}}\n", members.trim_end_matches('\n')))
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
    use super::render;
    use crate::patch::kotlin::kotlin_types::Signature;

    fn function(name: &str, parameters: &[(&str, &str, Option<&str>)], result: &str, throws: bool) -> Signature {
        Signature::of(name, parameters, result, throws, false)
    }

    #[test]
    fn b194_the_functions_are_on_an_object_named_sika() {
        let functions = [
            (
                function("countries", &[], "List<CountryInfo>", false),
                Some(" Every country of the service, in the spec's order."),
            ),
            (
                function("parseWebhookEvent", &[("body", "kotlin.ByteArray", None)], "WebhookEvent", true),
                Some(" Reads the notification."),
            ),
            (
                function(
                    "checkHostRuntime",
                    &[("vmName", "kotlin.String", None), ("vmVendor", "kotlin.String?", Some("null"))],
                    "Unit",
                    true,
                ),
                None,
            ),
        ];
        let file = render(&functions).unwrap();
        assert!(file.contains("public object Sika {\n"), "{file}");
        assert!(file.contains("    /**\n     * Every country of the service, in the spec's order.\n     */\n    @JvmStatic\n    public fun `countries`(): List<CountryInfo> =\n        dev.sika.`countries`()\n"), "{file}");
        assert!(file.contains("    /**\n     * Reads the notification.\n     */\n    @JvmStatic\n    @Throws(SikaException::class)\n    public fun `parseWebhookEvent`(`body`: kotlin.ByteArray): WebhookEvent =\n        dev.sika.`parseWebhookEvent`(`body`)\n"), "{file}");
        // No documentation of its own: a link; a default: overloads.
        assert!(file.contains("    /** [dev.sika.checkHostRuntime]. */\n    @JvmStatic\n    @Throws(SikaException::class)\n    @JvmOverloads\n    public fun `checkHostRuntime`(`vmName`: kotlin.String, `vmVendor`: kotlin.String? = null): Unit =\n        dev.sika.`checkHostRuntime`(`vmName`, `vmVendor`)\n"), "{file}");
        assert!(file.ends_with(")\n}\n"), "{file}");
        // In the order given: the order UniFFI declares them in.
        assert!(file.find("`countries`").unwrap() < file.find("`checkHostRuntime`").unwrap());
    }

    #[test]
    fn b194_an_async_function_or_none_at_all_is_refused() {
        let mut waits = function("countries", &[], "List<CountryInfo>", false);
        waits.suspends = true;
        assert!(render(&[(waits, None)]).unwrap_err().contains("`countries` is an async function"));
        assert!(render(&[]).is_err());
    }
}
