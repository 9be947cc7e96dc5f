//! Kotlin: a `CompletableFuture` twin of every `suspend` method, for Java callers (ADR 0018).
//!
//! Java cannot call a `suspend` function (it sees `Object f(args, Continuation)`). For each
//! `suspend fun name(...)` of an object's interface, the object gets
//! `fun nameAsync(...): CompletableFuture<T>` that runs the suspend call with `sikaFuture`
//! (`kotlinx.coroutines.future.future` in `sikaCalls`, `bindings/kotlin/src/main/kotlin/dev/sika/
//! Parking.kt`, shared with the blocking client): the call starts on the caller's thread (so the
//! caller's OpenTelemetry context is its parent, B263), the future completes with the result or
//! fails with the call's `SikaException`, and cancelling the future cancels the coroutine, which
//! cancels the Rust future as a Kotlin cancellation does. Generated, so a new suspend method
//! cannot lack its twin.
//!
//! Which methods get a twin, and each twin's signature, come from the library's metadata (each
//! async method of an object, declared as `sika_ffi.kt` declares it: `kotlin_types`); the
//! generated text is only where the twins go, inside the object's class, so the patch checks the
//! shape it expects there (ADR 0034): the class's opening line once, an override of each method,
//! and as many `suspend fun` declarations as the metadata has async methods.
//!
//! Each `suspend fun` (the interface's declaration and the class's override) gets
//! `@JvmSynthetic`: Kotlin callers keep it, and Java, which could only call it with a
//! `Continuation` of its own, sees the twin alone (issue 26 item 4, ADR 0048).

use std::collections::BTreeMap;

use uniffi_bindgen::pipeline::general::{Namespace, ObjectImpl, TypeDefinition};

use super::super::replace_exactly;
use super::kotlin_types::{KotlinTypes, Signature};
use crate::charges::Charges;

/// `namespace`: the library's Kotlin metadata; `charges`: its charging methods
/// (`crate::charges`).
pub fn patch(text: String, namespace: &Namespace, charges: &Charges) -> Result<String, String> {
    let types = KotlinTypes::of_namespace(namespace);
    let mut objects = Vec::new();
    for definition in &namespace.type_definitions {
        let TypeDefinition::Interface(interface) = definition else { continue };
        let mut methods = Vec::new();
        for method in &interface.methods {
            let signature = types.signature(&method.callable).map_err(|e| format!("`{}`: {e}", interface.name))?;
            if signature.suspends {
                methods.push(signature);
            }
        }
        if methods.is_empty() {
            continue;
        }
        // A trait's Kotlin class is generated in another shape (and a foreign implementation
        // of it would need the twins too).
        if !matches!(interface.imp, ObjectImpl::Struct) {
            return Err(format!("`{}` is a trait with async methods: its twins have no rule yet", interface.name));
        }
        objects.push((types.type_label(&interface.self_type.ty)?, methods));
    }
    patch_objects(text, &objects, charges)
}

/// The twins of each `(class, its async methods)` added to the generated `text`.
fn patch_objects(text: String, objects: &[(String, Vec<Signature>)], charges: &Charges) -> Result<String, String> {
    let declared = text.matches("\n    suspend fun `").count();
    let twins: usize = objects.iter().map(|(_, methods)| methods.len()).sum();
    if twins == 0 {
        return Err("no async method of any object".to_owned());
    }
    if declared != twins {
        return Err(format!(
            "the objects' interfaces declare {declared} `suspend fun` in the generated code, the metadata {twins} async methods"
        ));
    }
    let mut patched = text;
    // Two objects may share a method's name (`Client` and `Ledger` both `handleWebhook`): each
    // name is hidden once per interface that declares it.
    let mut declared_by = BTreeMap::<&str, usize>::new();
    for (class, methods) in objects {
        let opening = format!("open class {class}: Disposable, AutoCloseable, {class}Interface\n{{\n");
        if let Some(missing) =
            methods.iter().find(|m| !patched.contains(&format!("override suspend fun `{}`(", m.name)))
        {
            return Err(format!("{class} does not implement `suspend fun {}`", missing.name));
        }
        let members: String = methods.iter().map(|method| twin(method, charges.contains_key(&method.name))).collect();
        patched =
            replace_exactly(&patched, &opening, &format!("{opening}{members}"), 1, &format!("`open class {class}`"))?;
        for method in methods {
            *declared_by.entry(method.name.as_str()).or_default() += 1;
        }
    }
    for (name, interfaces) in declared_by {
        // Java sees the twin only: the declaration in the interface and its override.
        for declaration in [format!("    suspend fun `{name}`("), format!("    override suspend fun `{name}`(")] {
            let what = format!("`{}`", declaration.trim_start());
            patched = replace_exactly(
                &patched,
                &declaration,
                &format!("    @JvmSynthetic\n{declaration}"),
                interfaces,
                &what,
            )?;
        }
    }
    Ok(patched)
}

/// The `CompletableFuture` twin of the async `method`; `charge`: whether it makes a charge.
fn twin(method: &Signature, charge: bool) -> String {
    let call = format!("`{}`({})", method.name, method.arguments());
    // `Unit` would reach Java as `CompletableFuture<kotlin.Unit>`; `Void` is Java's "no value".
    let (result, body) = match method.result.as_str() {
        "Unit" => ("Void?".to_owned(), format!("{call}; null")),
        result => (result.to_owned(), call),
    };
    let overloads = if method.has_defaults() { "    @JvmOverloads\n" } else { "" };
    // A cancelled charge's future waits for its call's end as long as its outcome needs; any
    // other call's, a short grace (Parking.kt, ADR 0094).
    let future = if charge { "sikaFuture(charge = true)" } else { "sikaFuture" };
    format!(
        "    /**\n     * [{name}] for Java: a [java.util.concurrent.CompletableFuture] of its result, failing with\n     * its [SikaException]; cancelling the future cancels the call. The call starts on the calling\n     * thread, whose OpenTelemetry context is its trace parent.\n     */\n{overloads}    fun `{name}Async`({parameters}): java.util.concurrent.CompletableFuture<{result}> =\n        {future} {{ {body} }}\n\n",
        name = method.name,
        parameters = method.parameters(),
    )
}

#[cfg(test)]
mod tests {
    use super::{patch_objects, twin};
    use crate::charges::Charges;
    use crate::patch::kotlin::kotlin_types::Signature;

    fn method(name: &str, parameters: &[(&str, &str, Option<&str>)], result: &str) -> Signature {
        Signature::of(name, parameters, result, true, true)
    }

    /// The patch with no charging method (the twins' charge flag is tested on `twin`).
    fn patch(text: &str, objects: &[(String, Vec<Signature>)]) -> Result<String, String> {
        patch_objects(text.to_owned(), objects, &Charges::new())
    }

    fn client() -> Vec<(String, Vec<Signature>)> {
        vec![("Client".to_owned(), vec![method("get", &[("id", "kotlin.String", None)], "Transaction")])]
    }

    const GENERATED: &str = "\nimport java.nio.ByteBuffer\n\npublic interface ClientInterface {\n    suspend fun `get`(`id`: kotlin.String): Transaction\n    \n    companion object\n}\n\nopen class Client: Disposable, AutoCloseable, ClientInterface\n{\n    override suspend fun `get`(`id`: kotlin.String) : Transaction {\n    }\n}\n";

    #[test]
    fn b176_future_twins_keep_parameters_defaults_and_results() {
        let find =
            method("find", &[("a", "Map<String, Int>", None), ("b", "kotlin.String?", Some("null"))], "List<Bank>");
        let twin_of_find = twin(&find, false);
        assert!(twin_of_find.contains("    @JvmOverloads\n    fun `findAsync`(`a`: Map<String, Int>, `b`: kotlin.String? = null): java.util.concurrent.CompletableFuture<List<Bank>> =\n        sikaFuture { `find`(`a`, `b`) }\n"), "{twin_of_find}");
        // No result: Java's `Void`, not `kotlin.Unit`; no defaults: no overloads.
        let ping = twin(&method("ping", &[], "Unit"), false);
        assert!(ping.contains("    fun `pingAsync`(): java.util.concurrent.CompletableFuture<Void?> =\n        sikaFuture { `ping`(); null }\n"), "{ping}");
        assert!(!ping.contains("@JvmOverloads"));
        // A charge's future is told so: its cancellation waits for the charge's outcome.
        let charge = twin(&method("initiateCharge", &[("request", "ChargeRequest", None)], "ChargeResponse"), true);
        assert!(charge.contains("        sikaFuture(charge = true) { `initiateCharge`(`request`) }\n"), "{charge}");
    }

    #[test]
    fn b176_future_twins_the_shape_is_checked() {
        let patched = patch(GENERATED, &client()).unwrap();
        assert!(patched.contains("ClientInterface\n{\n    /**"));
        // B263: started on the caller's thread (`sikaFuture`, undispatched), not on a pool's.
        assert!(patched.contains("sikaFuture { `get`(`id`) }"), "{patched}");
        // A method the metadata names as charging gets a charge's future.
        let charges = [("get".to_owned(), "id".to_owned())].into();
        let charging = patch_objects(GENERATED.to_owned(), &client(), &charges).unwrap();
        assert!(charging.contains("sikaFuture(charge = true) { `get`(`id`) }"), "{charging}");
        // Java sees the twin alone: the suspend declaration and its override are synthetic.
        assert!(patched.contains("    @JvmSynthetic\n    suspend fun `get`("), "{patched}");
        assert!(patched.contains("    @JvmSynthetic\n    override suspend fun `get`("), "{patched}");
        // No implementation to call, a declaration the metadata does not have (or the other way
        // round), or a renamed class: the build fails.
        assert!(
            patch(&GENERATED.replace("override suspend fun `get`", "override suspend fun `got`"), &client()).is_err()
        );
        assert!(patch(&GENERATED.replace("    suspend fun", "    fun"), &client()).is_err());
        let extra = GENERATED.replace("    companion object\n", "    suspend fun `more`()\n    companion object\n");
        assert!(patch(&extra, &client()).unwrap_err().contains("declare 2 `suspend fun`"));
        assert!(patch(&GENERATED.replace("open class Client:", "class Client:"), &client()).is_err());
        assert!(patch(GENERATED, &[]).is_err(), "no async method at all");
    }

    #[test]
    fn b123_two_objects_sharing_a_method_name_both_hide_it() {
        let object = |name: &str| {
            format!(
                "\npublic interface {name}Interface {{\n    suspend fun `handle`(`body`: kotlin.String): Decision\n    \n    companion object\n}}\n\nopen class {name}: Disposable, AutoCloseable, {name}Interface\n{{\n    override suspend fun `handle`(`body`: kotlin.String) : Decision {{\n    }}\n}}\n"
            )
        };
        let generated = format!("\nimport java.nio.ByteBuffer\n{}{}", object("Client"), object("Ledger"));
        let handle = || vec![method("handle", &[("body", "kotlin.String", None)], "Decision")];
        let patched = patch(&generated, &[("Client".to_owned(), handle()), ("Ledger".to_owned(), handle())]).unwrap();
        assert_eq!(patched.matches("    @JvmSynthetic\n    suspend fun `handle`(").count(), 2, "{patched}");
        assert_eq!(patched.matches("    @JvmSynthetic\n    override suspend fun `handle`(").count(), 2, "{patched}");
        assert_eq!(patched.matches("fun `handleAsync`(").count(), 2, "{patched}");
    }
}
