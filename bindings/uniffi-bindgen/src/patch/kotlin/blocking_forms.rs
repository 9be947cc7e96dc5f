//! Kotlin: `BlockingClient.kt` and `BlockingLedger.kt`, files of their own written beside the
//! generated one (ADR 0036, ADR 0066).
//!
//! The core's `BlockingClient` and `BlockingLedger` wait inside Rust, so a JNA call into them
//! pins a virtual thread's carrier and ignores `Thread.interrupt()`. Kotlin's blocking forms are
//! therefore not those objects (the root `uniffi.toml` excludes them from the Kotlin
//! bindings) but classes over the async `Client` and `Ledger`: each method runs the async
//! object's `suspend` function and parks the calling thread until it ends
//! (`bindings/kotlin/src/main/kotlin/dev/sika/Parking.kt`). Everything is derived from the
//! generated code, so a new operation, constructor or factory cannot lack its blocking form:
//! - each method of the object's `...Interface`;
//! - each public constructor of the class (the handle constructors left out);
//! - each function of its companion that returns the object.
//!
//! A parameter or result whose type is an object with a blocking form takes or gives that
//! form: `BlockingLedger.settle` takes a `BlockingClient`, `BlockingClient.withOptions` gives
//! one.

use super::completable_futures::{SuspendMethod, split_top_level};
use crate::charges::Charges;

/// One object with a blocking form, in a file of its own.
struct Form {
    object: String,
    /// The class's documentation, after its first line.
    doc: &'static str,
    /// What closing it closes.
    connections: &'static str,
}

/// The objects with a blocking form: those whose core blocking form (`Blocking{object}`) the
/// root `uniffi.toml` excludes from the Kotlin bindings, as that exclusion is why Kotlin needs
/// one of its own. So a new pair in the core cannot be left without one.
fn forms() -> Result<Vec<Form>, String> {
    let path = crate::generate::config_file();
    let config = std::fs::read_to_string(&path).map_err(|e| format!("reading {path}: {e}"))?;
    forms_in(&config)
}

fn forms_in(config: &str) -> Result<Vec<Form>, String> {
    let config: toml::Table = toml::from_str(config).map_err(|e| format!("reading uniffi.toml: {e}"))?;
    let excluded = config
        .get("bindings")
        .and_then(|bindings| bindings.get("kotlin"))
        .and_then(|kotlin| kotlin.get("exclude"))
        .and_then(toml::Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    excluded
        .iter()
        .map(|name| {
            let name = name.as_str().ok_or("`[bindings.kotlin] exclude` lists a name that is not a string")?;
            let object = name.strip_prefix("Blocking").filter(|object| !object.is_empty()).ok_or_else(|| {
                format!("`{name}` is excluded from the Kotlin bindings, which replace only the core's blocking forms (`Blocking...`)")
            })?;
            let (doc, connections) = usage(object)?;
            Ok(Form { object: object.to_owned(), doc, connections })
        })
        .collect()
}

/// How the blocking form of `object` is shared, and what closing it closes: text for its
/// documentation that nothing generated says.
fn usage(object: &str) -> Result<(&'static str, &'static str), String> {
    match object {
        "Client" => Ok((CLIENT_DOC, "connections")),
        "Ledger" => Ok((LEDGER_DOC, "database connections")),
        other => Err(format!(
            "`Blocking{other}` has no Kotlin documentation yet: say how one is shared and what closing it closes in `usage` (blocking_forms.rs)"
        )),
    }
}

/// The files' names, beside `sika_ffi.kt`.
pub fn file_names() -> Result<Vec<String>, String> {
    Ok(forms()?.iter().map(Form::file).collect())
}

/// Each blocking form's file, for the generated `sika_ffi.kt` in `text`; `charges`: the charging
/// methods, from the library's metadata (`crate::charges`).
pub fn generate(text: &str, charges: &Charges) -> Result<Vec<(String, String)>, String> {
    generate_forms(text, &forms()?, charges)
}

fn generate_forms(text: &str, forms: &[Form], charges: &Charges) -> Result<Vec<(String, String)>, String> {
    forms.iter().map(|form| Ok((form.file(), form.generate(text, forms, charges)?))).collect()
}

/// A member of the blocking form: a method of the interface, a constructor or a factory.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Method { suspends: bool },
    Constructor,
    Factory,
}

/// One member: its parsed signature, what it is, what it throws.
struct Member<'a> {
    signature: SuspendMethod<'a>,
    kind: Kind,
    throws: Option<&'a str>,
}

impl Form {
    fn blocking(&self) -> String {
        format!("Blocking{}", self.object)
    }

    fn file(&self) -> String {
        format!("{}.kt", self.blocking())
    }

    fn generate(&self, text: &str, forms: &[Form], charges: &Charges) -> Result<String, String> {
        let object = self.object.as_str();
        let header = format!("\npublic interface {object}Interface {{\n");
        let start =
            text.find(&header).ok_or_else(|| format!("no `public interface {object}Interface`"))? + header.len();
        let body = &text[start..start + text[start..].find("\n}\n").ok_or("an unterminated interface")?];
        let opening = format!("\nopen class {object}: Disposable, AutoCloseable, {object}Interface\n");
        let class_start =
            text.find(&opening).ok_or_else(|| format!("`open class {object}` is not in the generated code"))?;
        // The class ends where the next top-level declaration begins: its bodies close braces
        // at the line's start too, so the end is the next line that starts with a name, an
        // annotation or a comment.
        let after = class_start + opening.len();
        let class_end = text[after..]
            .match_indices('\n')
            .map(|(at, _)| after + at + 1)
            .find(|&line| text[line..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '@'))
            .unwrap_or(text.len());
        let class = &text[class_start..class_end];

        let mut members = Vec::new();
        for line in body.lines() {
            let (declaration, suspends) = match (line.strip_prefix("    suspend fun "), line.strip_prefix("    fun ")) {
                (Some(declaration), _) => (declaration, true),
                (None, Some(declaration)) => (declaration, false),
                (None, None) => continue,
            };
            let signature = SuspendMethod::parse(declaration)?;
            let implementation =
                format!("override {}fun `{}`(", if suspends { "suspend " } else { "" }, signature.name);
            let at = class
                .find(&implementation)
                .ok_or_else(|| format!("`{object}` does not implement `{}`", signature.name))?;
            members.push(Member {
                throws: throws_before(class, at, signature.name)?,
                signature,
                kind: Kind::Method { suspends },
            });
        }
        if !members.iter().any(|m| m.kind == Kind::Method { suspends: true }) {
            return Err(format!("no `suspend fun` in `{object}Interface`"));
        }
        for (at, _) in class.match_indices("\n    constructor(") {
            let declaration = &class[at + "\n    constructor".len()..];
            let declaration = &declaration[..declaration.find('\n').unwrap_or(declaration.len())];
            // The handle constructors are plumbing (ADR 0048), not a way to make the object.
            if declaration.starts_with("(withHandle: ") || declaration.starts_with("(noHandle: ") {
                continue;
            }
            let declaration =
                declaration.strip_suffix(" :").ok_or_else(|| format!("unexpected constructor `{declaration}`"))?;
            let signature = declaration.strip_prefix('(').and_then(|d| SuspendMethod::named("constructor", d).ok());
            let signature = signature.ok_or_else(|| format!("unexpected constructor `{declaration}`"))?;
            members.push(Member {
                throws: throws_before(class, at + 1, "constructor")?,
                signature,
                kind: Kind::Constructor,
            });
        }
        let companion = class.find("\n    companion object {\n").map(|at| &class[at..]).unwrap_or_default();
        for (at, _) in companion.match_indices(" fun `") {
            let declaration = &companion[at + " fun ".len()..];
            let declaration = declaration[..declaration.find('\n').unwrap_or(declaration.len())].trim_end();
            let declaration =
                declaration.strip_suffix(" {").ok_or_else(|| format!("unexpected factory `{declaration}`"))?;
            let signature = SuspendMethod::parse(declaration)?;
            if signature.result != object {
                continue;
            }
            members.push(Member {
                throws: throws_before(companion, at, signature.name)?,
                signature,
                kind: Kind::Factory,
            });
        }
        if !members.iter().any(|m| matches!(m.kind, Kind::Constructor | Kind::Factory)) {
            return Err(format!("no constructor or factory of `{object}`"));
        }
        let blocking = self.blocking();
        let mut file = format!(
            "{HEAD}/**\n * The blocking [{object}]: its operations as plain calls, for threads, servlet containers and\n * Java.{doc}\n *\n{PARKS} */\npublic class {blocking} private constructor(\n    /** The async [{object}] this one calls. */\n    @get:JvmSynthetic internal val async: {object},\n) : AutoCloseable {{\n",
            doc = self.doc
        );
        let constructors = members.iter().filter(|m| m.kind == Kind::Constructor);
        let factories: Vec<&Member> = members.iter().filter(|m| m.kind == Kind::Factory).collect();
        let methods = members.iter().filter(|m| matches!(m.kind, Kind::Method { .. }));
        for member in constructors {
            file.push_str(&member.render(self, forms, charges));
        }
        if !factories.is_empty() {
            file.push_str("    public companion object {\n");
            for member in factories {
                file.push_str(&indent(&member.render(self, forms, charges)));
            }
            file.push_str("    }\n\n");
        }
        for member in methods {
            file.push_str(&member.render(self, forms, charges));
        }
        file.push_str(&format!(
            "    /** Frees the {what}: its {connections} close once the calls in flight have ended. */\n    override fun close(): Unit = async.close()\n}}\n",
            what = object.to_lowercase(),
            connections = self.connections,
        ));
        Ok(file)
    }
}

/// The error type of the `@Throws` annotation between the previous member's end and the
/// member at `at` of `text`, if any.
fn throws_before<'a>(text: &'a str, at: usize, name: &str) -> Result<Option<&'a str>, String> {
    let annotations = &text[text[..at].rfind("\n    }").unwrap_or(0)..at];
    match annotations.rfind("@Throws(") {
        Some(index) => thrown_type(&annotations[index..], name).map(Some),
        None => Ok(None),
    }
}

/// The error type of the `@Throws(E::class)` that `annotation` starts with: a plain name.
pub(super) fn thrown_type<'a>(annotation: &'a str, name: &str) -> Result<&'a str, String> {
    let error = annotation.strip_prefix("@Throws(").and_then(|a| a.split("::class)").next()).unwrap_or_default();
    if error.is_empty() || !error.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(format!("`{name}` throws an unexpected error type `{error}`"));
    }
    Ok(error)
}

/// The blocking form of the type `name`, when it has one.
fn blocking_form_of(name: &str, forms: &[Form]) -> Option<String> {
    forms.iter().find(|form| form.object == name).map(Form::blocking)
}

impl Member<'_> {
    fn render(&self, form: &Form, forms: &[Form], charges: &Charges) -> String {
        let m = &self.signature;
        // Parameters whose type has a blocking form take it, and pass its async object on.
        let mut parameters = Vec::new();
        let mut arguments = Vec::new();
        // A call that makes a charge tells the parking of it: interrupted after sending, it
        // throws the charge's `ChargeOutcomeUnknown` (ADR 0075).
        let charge = match self.kind {
            Kind::Method { .. } => charges.get(m.name).map(|request| format!("`{request}`")),
            Kind::Constructor | Kind::Factory => None,
        };
        for (parameter, name) in split_top_level(m.parameters).into_iter().zip(&m.names) {
            let parameter = parameter.trim();
            let declared = parameter.split_once("`: ").map(|(_, t)| t).unwrap_or_default();
            let (kind, default) = declared.split_once(" = ").map_or((declared, None), |(t, d)| (t, Some(d)));
            match blocking_form_of(kind, forms) {
                Some(blocking) => {
                    let default = default.map(|d| format!(" = {d}")).unwrap_or_default();
                    parameters.push(format!("`{name}`: {blocking}{default}"));
                    arguments.push(format!("`{name}`.async"));
                }
                None => {
                    parameters.push(parameter.to_owned());
                    arguments.push(format!("`{name}`"));
                }
            }
        }
        let (parameters, arguments) = (parameters.join(", "), arguments.join(", "));
        let object = &form.object;
        let throws = self.throws.map(|e| format!("    @Throws({e}::class)\n")).unwrap_or_default();
        let overloads = if m.parameters.contains(" = ") { "    @JvmOverloads\n" } else { "" };
        if self.kind == Kind::Constructor {
            return format!(
                "    /** [{object}]'s constructor, giving the blocking form. */\n{throws}{overloads}    public constructor({parameters}) : this({object}({arguments}))\n\n"
            );
        }
        let doc = format!("[{object}.{}]", m.name);
        let call = match self.kind {
            Kind::Factory => format!("{object}.`{}`({arguments})", m.name),
            _ => format!("async.`{}`({arguments})", m.name),
        };
        let (result, call) = match blocking_form_of(m.result, forms) {
            Some(blocking) => (blocking.clone(), format!("{blocking}({call})")),
            None => (m.result.to_owned(), call),
        };
        let (body, doc) = match self.kind {
            Kind::Method { suspends: true } => (
                match &charge {
                    Some(charge) => format!("parkUntilDone({charge}) {{ {call} }}"),
                    None => format!("parkUntilDone {{ {call} }}"),
                },
                format!("{doc}, waiting for its result: the calling thread parks."),
            ),
            Kind::Factory => (call, format!("{doc}, giving the blocking form.")),
            _ => (call, format!("{doc}.")),
        };
        let statics = if self.kind == Kind::Factory { "    @JvmStatic\n" } else { "" };
        format!(
            "    /** {doc} */\n{statics}{throws}{overloads}    public fun `{name}`({parameters}): {result} =\n        {body}\n\n",
            name = m.name,
        )
    }
}

/// `text` indented by four more spaces, blank lines left blank.
fn indent(text: &str) -> String {
    text.lines().map(|line| if line.is_empty() { "\n".to_owned() } else { format!("    {line}\n") }).collect()
}

const HEAD: &str = "\
// Written by Sika's uniffi-bindgen from the generated code
// (bindings/uniffi-bindgen/src/patch/kotlin/blocking_forms.rs, ADR 0036, ADR 0066). Do not edit.
@file:Suppress(\"RemoveRedundantBackticks\", \"RedundantVisibilityModifier\")

package dev.sika

";

const CLIENT_DOC: &str = " Share one per process; close it when done ([close], or `use {}` /\n * try-with-resources).";

const LEDGER_DOC: &str = " Open one per process, with its [BlockingClient]; close it when done ([close], or\n * `use {}` / try-with-resources).";

/// What every blocking form's documentation says of its calls.
const PARKS: &str = " * Each call runs the async object's call and parks the calling thread until it ends (ADR 0036):
 * - a virtual thread unmounts from its carrier while it waits, as with `CompletableFuture.join()`;
 * - [Thread.interrupt] ends the call at once with [SikaException.Cancelled], sets the thread's
 *   interrupt flag again, and cancels the call in Rust: its connection is closed and nothing
 *   more is sent. A thread already interrupted when it calls gets the same, and nothing is sent.
 *   A charge interrupted after its request may have reached the service throws
 *   [SikaException.ChargeOutcomeUnknown] instead (its reference and request id: verify it
 *   before charging again; ADR 0075).
";

#[cfg(test)]
mod tests {
    use super::{forms_in, generate_forms};
    use crate::charges::Charges;

    /// The root `uniffi.toml`'s exclusion, as it is.
    const CONFIG: &str = "[bindings.kotlin]\nexclude = [\"BlockingClient\", \"BlockingLedger\"]\n";

    const CLIENT: &str = "\npublic interface ClientInterface {\n    \n    /**\n     * Verifies.\n     */\n    suspend fun `verify`(`reference`: kotlin.String): Transaction\n    \n    suspend fun `list`(`country`: kotlin.String? = null): List<Bank>\n    \n    fun `withOptions`(`timeoutMs`: kotlin.Long? = null): Client\n    \n    fun `shutdown`()\n    \n    companion object\n}\n\nopen class Client: Disposable, AutoCloseable, ClientInterface\n{\n    constructor(withHandle: UniffiWithHandle, handle: Long) {\n    }\n    constructor(noHandle: NoHandle) {\n    }\n    @Throws(SikaException::class)\n    constructor(`config`: ClientConfig) :\n        this(UniffiWithHandle, \n    uniffiRustCallWithError(SikaException) { _status ->\n}\n    )\n    @Throws(SikaException::class)\n    @Suppress(\"ASSIGNED_BUT_NEVER_ACCESSED_VARIABLE\")\n    override suspend fun `verify`(`reference`: kotlin.String) : Transaction {\n    }\n\n    @Throws(SikaException::class)\n    @Suppress(\"ASSIGNED_BUT_NEVER_ACCESSED_VARIABLE\")\n    override suspend fun `list`(`country`: kotlin.String?) : List<Bank> {\n    }\n    @Throws(SikaException::class)override fun `withOptions`(`timeoutMs`: kotlin.Long?): Client {\n    }\n    override fun `shutdown`()\n        = callWithHandle {\n    }\n    companion object {\n        \n    @Throws(SikaException::class) fun `fromEnv`(): Client {\n            return FfiConverterTypeClient.lift(\n    uniffiRustCallWithError(SikaException) { _status ->\n}\n    )\n    }\n    }\n}\n\npublic object FfiConverterTypeClient: FfiConverter<Client, Long> {\n    override fun `frozen`(): Client {\n}\n";

    const LEDGER: &str = "\npublic interface LedgerInterface {\n    \n    suspend fun `settle`(`client`: Client, `reference`: kotlin.String): LedgerDecision\n    \n    suspend fun `reconcile`(`client`: Client, `options`: ReconcileOptions? = null): ReconcileReport\n    \n    suspend fun `markFulfilled`(`claim`: Claim)\n    \n    companion object\n}\n\nopen class Ledger: Disposable, AutoCloseable, LedgerInterface\n{\n    constructor(withHandle: UniffiWithHandle, handle: Long) {\n    }\n    @Throws(SikaException::class)\n    @Suppress(\"ASSIGNED_BUT_NEVER_ACCESSED_VARIABLE\")\n    override suspend fun `settle`(`client`: Client, `reference`: kotlin.String) : LedgerDecision {\n    }\n\n    @Throws(SikaException::class)\n    @Suppress(\"ASSIGNED_BUT_NEVER_ACCESSED_VARIABLE\")\n    override suspend fun `reconcile`(`client`: Client, `options`: ReconcileOptions?) : ReconcileReport {\n    }\n\n    @Throws(SikaException::class)\n    @Suppress(\"ASSIGNED_BUT_NEVER_ACCESSED_VARIABLE\")\n    override suspend fun `markFulfilled`(`claim`: Claim) {\n    }\n\n    companion object {\n        \n    @Throws(SikaException::class) fun `sqlite`(`path`: kotlin.String, `options`: LedgerOptions? = null): Ledger {\n            return FfiConverterTypeLedger.lift(\n    }\n    \n    fun `helper`(): kotlin.String {\n    }\n    }\n}\n";

    fn files(text: &str) -> Result<Vec<(String, String)>, String> {
        generate_forms(text, &forms_in(CONFIG).unwrap(), &Charges::new())
    }

    #[test]
    fn b176_blocking_client_every_operation_parks_on_the_async_client() {
        let all = files(&format!("{CLIENT}{LEDGER}")).unwrap();
        let (name, file) = &all[0];
        assert_eq!(name, "BlockingClient.kt");
        assert!(file.contains("    @Throws(SikaException::class)\n    public fun `verify`(`reference`: kotlin.String): Transaction =\n        parkUntilDone { async.`verify`(`reference`) }\n"), "{file}");
        assert!(file.contains("    @Throws(SikaException::class)\n    @JvmOverloads\n    public fun `list`(`country`: kotlin.String? = null): List<Bank> =\n        parkUntilDone { async.`list`(`country`) }\n"), "{file}");
        // A view of the client is a blocking client over the view.
        assert!(file.contains("    @Throws(SikaException::class)\n    @JvmOverloads\n    public fun `withOptions`(`timeoutMs`: kotlin.Long? = null): BlockingClient =\n        BlockingClient(async.`withOptions`(`timeoutMs`))\n"), "{file}");
        // A plain method is a plain call, throwing nothing.
        assert!(file.contains("    public fun `shutdown`(): Unit =\n        async.`shutdown`()\n"), "{file}");
        // The constructor (not the handle ones) and the factory.
        assert!(file.contains("    @Throws(SikaException::class)\n    public constructor(`config`: ClientConfig) : this(Client(`config`))\n"), "{file}");
        assert_eq!(file.matches("constructor(").count(), 2, "{file}");
        assert!(file.contains("        @JvmStatic\n        @Throws(SikaException::class)\n        public fun `fromEnv`(): BlockingClient =\n            BlockingClient(Client.`fromEnv`())\n"), "{file}");
        assert!(file.starts_with("// Written by Sika's uniffi-bindgen"));
    }

    #[test]
    fn b232_a_blocking_charge_tells_the_parking_of_its_request() {
        let both = format!("{CLIENT}{LEDGER}")
            .replace("`verify`(`reference`: kotlin.String)", "`verify`(`request`: ChargeRequest)");
        // The metadata names the charging methods and their `ChargeRequest` parameter.
        let charges = [("verify".to_owned(), "request".to_owned())].into();
        let all = generate_forms(&both, &forms_in(CONFIG).unwrap(), &charges).unwrap();
        let file = &all[0].1;
        assert!(file.contains("        parkUntilDone(`request`) { async.`verify`(`request`) }\n"), "{file}");
        // Any other call parks with no charge.
        assert!(file.contains("        parkUntilDone { async.`list`(`country`) }\n"), "{file}");
    }

    #[test]
    fn b193_blocking_ledger_takes_the_blocking_client() {
        let all = files(&format!("{CLIENT}{LEDGER}")).unwrap();
        let (name, file) = &all[1];
        assert_eq!(name, "BlockingLedger.kt");
        assert!(file.contains("public class BlockingLedger private constructor(\n    /** The async [Ledger] this one calls. */\n    @get:JvmSynthetic internal val async: Ledger,\n"), "{file}");
        assert!(file.contains("    @Throws(SikaException::class)\n    public fun `settle`(`client`: BlockingClient, `reference`: kotlin.String): LedgerDecision =\n        parkUntilDone { async.`settle`(`client`.async, `reference`) }\n"), "{file}");
        assert!(file.contains("    @JvmOverloads\n    public fun `reconcile`(`client`: BlockingClient, `options`: ReconcileOptions? = null): ReconcileReport =\n        parkUntilDone { async.`reconcile`(`client`.async, `options`) }\n"), "{file}");
        assert!(file.contains("    public fun `markFulfilled`(`claim`: Claim): Unit =\n        parkUntilDone { async.`markFulfilled`(`claim`) }\n"), "{file}");
        // The factory gives the blocking ledger; a companion function of another type is not one.
        assert!(file.contains("        @JvmStatic\n        @Throws(SikaException::class)\n        @JvmOverloads\n        public fun `sqlite`(`path`: kotlin.String, `options`: LedgerOptions? = null): BlockingLedger =\n            BlockingLedger(Ledger.`sqlite`(`path`, `options`))\n"), "{file}");
        assert!(!file.contains("helper"), "{file}");
        assert!(!file.contains("constructor(`"), "{file}");
    }

    #[test]
    fn b176_blocking_forms_the_shape_is_checked() {
        let both = format!("{CLIENT}{LEDGER}");
        assert!(files(&both).is_ok());
        for (from, to) in [
            ("interface ClientInterface", "interface AsyncClient"),
            ("interface LedgerInterface", "interface AsyncLedger"),
            ("suspend fun `verify`", "fun `verify`"),
            ("fun `fromEnv`(): Client {", "fun `fromEnv`(): Client ="),
            ("@Throws(SikaException::class)", "@Throws(Sika<X>::class)"),
            ("override fun `shutdown`", "override fun `stop`"),
            ("constructor(`config`: ClientConfig) :", "constructor(`config`: ClientConfig) {"),
        ] {
            assert!(files(&both.replacen(from, to, 1)).is_err(), "{from} -> {to}");
        }
        // Neither a constructor nor a factory: nothing makes the blocking form.
        let no_factory = both.replace(
            "fun `sqlite`(`path`: kotlin.String, `options`: LedgerOptions? = null): Ledger {",
            "fun `sqlite`(): kotlin.String {",
        );
        assert!(files(&no_factory).is_err());
    }

    #[test]
    fn b197_the_blocking_forms_are_the_core_forms_the_config_excludes() {
        let both = format!("{CLIENT}{LEDGER}");
        // The root file itself, as the bindgen reads it.
        let names: Vec<String> = super::forms().unwrap().iter().map(super::Form::file).collect();
        assert_eq!(names, ["BlockingClient.kt", "BlockingLedger.kt"]);
        // The client's form alone: no ledger file, and nothing else takes a blocking ledger.
        let client_only = generate_forms(
            &both,
            &forms_in("[bindings.kotlin]\nexclude = [\"BlockingClient\"]\n").unwrap(),
            &Charges::new(),
        )
        .unwrap();
        assert_eq!(client_only.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(), ["BlockingClient.kt"]);
        // Without the client's form the ledger's takes the async `Client`.
        let ledger_only = generate_forms(
            &both,
            &forms_in("[bindings.kotlin]\nexclude = [\"BlockingLedger\"]\n").unwrap(),
            &Charges::new(),
        )
        .unwrap();
        assert!(ledger_only[0].1.contains("public fun `settle`(`client`: Client, "), "{}", ledger_only[0].1);
        assert!(forms_in("").unwrap().is_empty());
        // A new blocking form in the core needs its documentation; anything else excluded has no
        // Kotlin replacement.
        let new_form =
            forms_in("[bindings.kotlin]\nexclude = [\"BlockingClient\", \"BlockingRefunds\"]\n").err().unwrap();
        assert!(new_form.contains("`BlockingRefunds` has no Kotlin documentation yet"), "{new_form}");
        for excluded in ["\"Refunds\"", "\"Blocking\"", "3"] {
            assert!(forms_in(&format!("[bindings.kotlin]\nexclude = [{excluded}]\n")).is_err(), "{excluded}");
        }
    }
}
