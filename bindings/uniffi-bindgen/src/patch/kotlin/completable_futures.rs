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
//! Each `suspend fun` (the interface's declaration and the class's override) gets
//! `@JvmSynthetic`: Kotlin callers keep it, and Java, which could only call it with a
//! `Continuation` of its own, sees the twin alone (issue 26 item 4, ADR 0048).

use super::super::replace_exactly;
use crate::charges::Charges;

/// `charges`: the charging methods, from the library's metadata (`crate::charges`).
pub fn patch(text: String, charges: &Charges) -> Result<String, String> {
    let mut patched = text.clone();
    let mut twins = 0;
    let mut hidden = Vec::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("\npublic interface ") {
        let header = &rest[start + 1..];
        let name_end = header.find(" {\n").ok_or("an interface without a body")?;
        let interface = &header["public interface ".len()..name_end];
        let body_len = header.find("\n}\n").ok_or("an unterminated interface")?;
        let body = &header[..body_len];
        rest = &header[body_len..];
        let methods = body
            .lines()
            .filter_map(|line| line.strip_prefix("    suspend fun "))
            .map(SuspendMethod::parse)
            .collect::<Result<Vec<_>, _>>()?;
        if methods.is_empty() {
            continue;
        }
        let class = interface.strip_suffix("Interface").ok_or("a suspend interface not named `...Interface`")?;
        let opening = format!("open class {class}: Disposable, AutoCloseable, {interface}\n{{\n");
        let members: String = methods.iter().map(|method| method.twin(charges.contains_key(method.name))).collect();
        if let Some(missing) =
            methods.iter().find(|m| !patched.contains(&format!("override suspend fun `{}`(", m.name)))
        {
            return Err(format!("{class} does not implement `suspend fun {}`", missing.name));
        }
        patched =
            replace_exactly(&patched, &opening, &format!("{opening}{members}"), 1, &format!("`open class {class}`"))?;
        twins += methods.len();
        hidden.extend(methods.iter().map(|m| m.name.to_owned()));
    }
    // Two objects may share a method's name (`AsyncClient` and `Ledger` both `handleWebhook`):
    // each name is hidden once per interface that declares it.
    let mut declared_by = std::collections::BTreeMap::<&str, usize>::new();
    for name in &hidden {
        *declared_by.entry(name.as_str()).or_default() += 1;
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
    if twins == 0 {
        return Err("no `suspend fun` in any object's interface".to_owned());
    }
    Ok(patched)
}

/// One `suspend fun` line of an interface: `` `name`(`a`: A, `b`: B? = null): R ``.
pub(super) struct SuspendMethod<'a> {
    pub(super) name: &'a str,
    pub(super) parameters: &'a str,
    pub(super) names: Vec<&'a str>,
    pub(super) result: &'a str,
}

impl<'a> SuspendMethod<'a> {
    pub(super) fn parse(line: &'a str) -> Result<Self, String> {
        let shape = || format!("unexpected suspend method `{line}`");
        let line = line.strip_prefix('`').ok_or_else(shape)?;
        let (name, signature) = line.split_once("`(").ok_or_else(shape)?;
        Self::named(name, signature).map_err(|()| shape())
    }

    /// The method `name` whose signature, after its opening `(`, is `signature`.
    pub(super) fn named(name: &'a str, signature: &'a str) -> Result<Self, ()> {
        let shape = || ();
        // The parameter list ends at the `)` that closes the first `(`.
        let mut depth = 1;
        let close = signature
            .char_indices()
            .find(|&(_, c)| {
                depth += match c {
                    '(' => 1,
                    ')' => -1,
                    _ => 0,
                };
                depth == 0
            })
            .ok_or_else(shape)?
            .0;
        let parameters = &signature[..close];
        let result = match signature[close + 1..].trim() {
            "" => "Unit",
            returns => returns.strip_prefix(": ").ok_or_else(shape)?,
        };
        let names = split_top_level(parameters)
            .into_iter()
            .map(|parameter| {
                parameter.trim().strip_prefix('`').and_then(|p| p.split_once("`:")).map(|(n, _)| n).ok_or_else(shape)
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { name, parameters, names, result })
    }

    /// The method's `CompletableFuture` twin; `charge`: whether the method makes a charge.
    fn twin(&self, charge: bool) -> String {
        let arguments: Vec<String> = self.names.iter().map(|n| format!("`{n}`")).collect();
        let call = format!("`{}`({})", self.name, arguments.join(", "));
        // `Unit` would reach Java as `CompletableFuture<kotlin.Unit>`; `Void` is Java's "no value".
        let (result, body) = match self.result {
            "Unit" => ("Void?".to_owned(), format!("{call}; null")),
            result => (result.to_owned(), call),
        };
        let overloads = if self.parameters.contains(" = ") { "    @JvmOverloads\n" } else { "" };
        // A cancelled charge's future waits for its call's end as long as its outcome needs; any
        // other call's, a short grace (Parking.kt, ADR 0094).
        let future = if charge { "sikaFuture(charge = true)" } else { "sikaFuture" };
        format!(
            "    /**\n     * [{name}] for Java: a [java.util.concurrent.CompletableFuture] of its result, failing with\n     * its [SikaException]; cancelling the future cancels the call. The call starts on the calling\n     * thread, whose OpenTelemetry context is its trace parent.\n     */\n{overloads}    fun `{name}Async`({parameters}): java.util.concurrent.CompletableFuture<{result}> =\n        {future} {{ {body} }}\n\n",
            name = self.name,
            parameters = self.parameters,
        )
    }
}

/// `parameters` split at its commas outside `<...>` and `(...)`; none for an empty list.
pub(super) fn split_top_level(parameters: &str) -> Vec<&str> {
    if parameters.trim().is_empty() {
        return Vec::new();
    }
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (index, c) in parameters.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&parameters[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    parts.push(&parameters[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::SuspendMethod;

    /// The patch with no charging method (the twins' charge flag is tested on `twin`).
    fn patch(text: String) -> Result<String, String> {
        super::patch(text, &crate::charges::Charges::new())
    }

    #[test]
    fn b176_future_twins_keep_parameters_defaults_and_results() {
        let method =
            SuspendMethod::parse("`find`(`a`: Map<String, Int>, `b`: kotlin.String? = null): List<Bank>").unwrap();
        assert_eq!(method.names, ["a", "b"]);
        let twin = method.twin(false);
        assert!(twin.contains("    @JvmOverloads\n    fun `findAsync`(`a`: Map<String, Int>, `b`: kotlin.String? = null): java.util.concurrent.CompletableFuture<List<Bank>> =\n        sikaFuture { `find`(`a`, `b`) }\n"), "{twin}");
        // No result: Java's `Void`, not `kotlin.Unit`; no defaults: no overloads.
        let twin = SuspendMethod::parse("`ping`()").unwrap().twin(false);
        assert!(twin.contains("    fun `pingAsync`(): java.util.concurrent.CompletableFuture<Void?> =\n        sikaFuture { `ping`(); null }\n"), "{twin}");
        assert!(!twin.contains("@JvmOverloads"));
        assert!(SuspendMethod::parse("find(a: Int): Int").is_err());
        // A charge's future is told so: its cancellation waits for the charge's outcome.
        let twin =
            SuspendMethod::parse("`initiateCharge`(`request`: ChargeRequest): ChargeResponse").unwrap().twin(true);
        assert!(twin.contains("        sikaFuture(charge = true) { `initiateCharge`(`request`) }\n"), "{twin}");
    }

    #[test]
    fn b176_future_twins_the_shape_is_checked() {
        let generated = "\nimport java.nio.ByteBuffer\n\npublic interface ClientInterface {\n    suspend fun `get`(`id`: kotlin.String): Transaction\n    \n    companion object\n}\n\nopen class Client: Disposable, AutoCloseable, ClientInterface\n{\n    override suspend fun `get`(`id`: kotlin.String) : Transaction {\n    }\n}\n";
        let patched = patch(generated.to_owned()).unwrap();
        assert!(patched.contains("ClientInterface\n{\n    /**"));
        // B263: started on the caller's thread (`sikaFuture`, undispatched), not on a pool's.
        assert!(patched.contains("sikaFuture { `get`(`id`) }"), "{patched}");
        // A method the metadata names as charging gets a charge's future.
        let charges = [("get".to_owned(), "id".to_owned())].into();
        let charging = super::patch(generated.to_owned(), &charges).unwrap();
        assert!(charging.contains("sikaFuture(charge = true) { `get`(`id`) }"), "{charging}");
        // Java sees the twin alone: the suspend declaration and its override are synthetic.
        assert!(patched.contains("    @JvmSynthetic\n    suspend fun `get`("), "{patched}");
        assert!(patched.contains("    @JvmSynthetic\n    override suspend fun `get`("), "{patched}");
        // No implementation to call, no suspend method at all, or a renamed class: the build fails.
        assert!(patch(generated.replace("override suspend fun `get`", "override suspend fun `got`")).is_err());
        assert!(patch(generated.replace("suspend fun", "fun")).is_err());
        assert!(patch(generated.replace("open class Client:", "class Client:")).is_err());
    }

    #[test]
    fn b123_two_objects_sharing_a_method_name_both_hide_it() {
        let object = |name: &str| {
            format!(
                "\npublic interface {name}Interface {{\n    suspend fun `handle`(`body`: kotlin.String): Decision\n    \n    companion object\n}}\n\nopen class {name}: Disposable, AutoCloseable, {name}Interface\n{{\n    override suspend fun `handle`(`body`: kotlin.String) : Decision {{\n    }}\n}}\n"
            )
        };
        let generated = format!("\nimport java.nio.ByteBuffer\n{}{}", object("Client"), object("Ledger"));
        let patched = patch(generated).unwrap();
        assert_eq!(patched.matches("    @JvmSynthetic\n    suspend fun `handle`(").count(), 2, "{patched}");
        assert_eq!(patched.matches("    @JvmSynthetic\n    override suspend fun `handle`(").count(), 2, "{patched}");
        assert_eq!(patched.matches("fun `handleAsync`(").count(), 2, "{patched}");
    }
}
