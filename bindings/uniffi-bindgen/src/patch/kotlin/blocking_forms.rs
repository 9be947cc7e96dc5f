//! Kotlin: `BlockingClient.kt` and `BlockingLedger.kt`, files of their own written beside the
//! generated one (ADR 0036, ADR 0066).
//!
//! The core's `BlockingClient` and `BlockingLedger` wait inside Rust, so a JNA call into them
//! pins a virtual thread's carrier and ignores `Thread.interrupt()`. Kotlin's blocking forms are
//! therefore not those objects (the root `uniffi.toml` excludes them from the Kotlin
//! bindings) but classes over the async `Client` and `Ledger`: each method runs the async
//! object's `suspend` function and parks the calling thread until it ends
//! (`bindings/kotlin/src/main/kotlin/dev/sika/Parking.kt`). Every member is read from the
//! library's metadata (UniFFI's pipeline for Kotlin, `kotlin_types`), not from the generated
//! text, so a new operation, constructor or factory cannot lack its blocking form, and an
//! upgrade of UniFFI's Kotlin text breaks no parser:
//! - each method of the object (each `async` one parks, any other is a plain call);
//! - its primary constructor (`constructor(...)` in Kotlin);
//! - each of its named constructors (functions of its companion in Kotlin).
//!
//! Each is declared as `sika_ffi.kt` declares it: names, Kotlin types, defaults and `@Throws`.
//!
//! A parameter or result whose type is an object with a blocking form takes or gives that
//! form: `BlockingLedger.settle` takes a `BlockingClient`, `BlockingClient.withOptions` gives
//! one.

use super::kotlin_types::{KotlinTypes, Parameter, Signature};
use crate::charges::Charges;
use uniffi_bindgen::pipeline::general::{Namespace, TypeDefinition};

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

/// Each blocking form's file, for the library's Kotlin `namespace`; `charges`: the charging
/// methods, from the same metadata (`crate::charges`).
pub fn generate(namespace: &Namespace, charges: &Charges) -> Result<Vec<(String, String)>, String> {
    let forms = forms()?;
    let types = KotlinTypes::of_namespace(namespace);
    let objects = forms.iter().map(|form| form.object_of(namespace, &types)).collect::<Result<Vec<_>, String>>()?;
    generate_forms(&forms, &objects, charges)
}

/// Each form's file, with `objects[i]` the members of `forms[i]`'s object.
fn generate_forms(forms: &[Form], objects: &[Object], charges: &Charges) -> Result<Vec<(String, String)>, String> {
    forms.iter().zip(objects).map(|(form, object)| Ok((form.file(), form.generate(object, forms, charges)?))).collect()
}

/// An object's members, each as `sika_ffi.kt` declares it.
struct Object {
    /// The methods of its interface, in their order.
    methods: Vec<Signature>,
    /// Its primary constructor, if it has one.
    constructors: Vec<Signature>,
    /// Its named constructors, functions of its companion.
    factories: Vec<Signature>,
}

/// A member of the blocking form: a method of the interface, a constructor or a factory.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Method,
    Constructor,
    Factory,
}

impl Form {
    fn blocking(&self) -> String {
        format!("Blocking{}", self.object)
    }

    fn file(&self) -> String {
        format!("{}.kt", self.blocking())
    }

    /// The form's object in the metadata: its methods, its primary constructor (UniFFI's
    /// `constructor(...)`) and its other constructors (the companion's functions).
    fn object_of(&self, namespace: &Namespace, types: &KotlinTypes) -> Result<Object, String> {
        let name = self.object.as_str();
        let interface = namespace
            .type_definitions
            .iter()
            .find_map(|definition| match definition {
                TypeDefinition::Interface(interface) if interface.name == name => Some(interface),
                _ => None,
            })
            .ok_or_else(|| format!("the library has no object `{name}` for `{}`", self.blocking()))?;
        let signature = |callable| types.signature(callable).map_err(|e| format!("`{name}`: {e}"));
        let methods = interface.methods.iter().map(|method| signature(&method.callable)).collect::<Result<_, _>>()?;
        let (mut constructors, mut factories) = (Vec::new(), Vec::new());
        for constructor in &interface.constructors {
            let made = signature(&constructor.callable)?;
            if made.result != name {
                return Err(format!(
                    "`{name}.{}` gives `{}`, not `{name}`: no blocking form for that",
                    made.name, made.result
                ));
            }
            if constructor.callable.is_primary_constructor() { constructors.push(made) } else { factories.push(made) }
        }
        Ok(Object { methods, constructors, factories })
    }

    fn generate(&self, members: &Object, forms: &[Form], charges: &Charges) -> Result<String, String> {
        let object = self.object.as_str();
        if !members.methods.iter().any(|m| m.suspends) {
            return Err(format!("no async method of `{object}`: the blocking form parks on them"));
        }
        if members.constructors.is_empty() && members.factories.is_empty() {
            return Err(format!("no constructor of `{object}`"));
        }
        let blocking = self.blocking();
        let mut file = format!(
            "{HEAD}/**\n * The blocking [{object}]: its operations as plain calls, for threads, servlet containers and\n * Java.{doc}\n *\n{PARKS} */\npublic class {blocking} private constructor(\n    /** The async [{object}] this one calls. */\n    @get:JvmSynthetic internal val async: {object},\n) : AutoCloseable {{\n",
            doc = self.doc
        );
        for constructor in &members.constructors {
            file.push_str(&self.render(constructor, Kind::Constructor, forms, charges));
        }
        if !members.factories.is_empty() {
            file.push_str("    public companion object {\n");
            for factory in &members.factories {
                file.push_str(&indent(&self.render(factory, Kind::Factory, forms, charges)));
            }
            file.push_str("    }\n\n");
        }
        for method in &members.methods {
            file.push_str(&self.render(method, Kind::Method, forms, charges));
        }
        file.push_str(&format!(
            "    /** Frees the {what}: its {connections} close once the calls in flight have ended. */\n    override fun close(): Unit = async.close()\n}}\n",
            what = object.to_lowercase(),
            connections = self.connections,
        ));
        Ok(file)
    }

    /// One member of the blocking form, calling `m` of the async object.
    fn render(&self, m: &Signature, kind: Kind, forms: &[Form], charges: &Charges) -> String {
        // Parameters whose type has a blocking form take it, and pass its async object on.
        let mut parameters = Vec::new();
        let mut arguments = Vec::new();
        // A call that makes a charge tells the parking of it: interrupted after sending, it
        // throws the charge's `ChargeOutcomeUnknown` (ADR 0075).
        let charge = match kind {
            Kind::Method => charges.get(&m.name).map(|request| format!("`{request}`")),
            Kind::Constructor | Kind::Factory => None,
        };
        for parameter in &m.parameters {
            let name = &parameter.name;
            match blocking_form_of(&parameter.ty, forms) {
                Some(blocking) => {
                    parameters.push(Parameter { ty: blocking, ..parameter.clone() }.declared());
                    arguments.push(format!("`{name}`.async"));
                }
                None => {
                    parameters.push(parameter.declared());
                    arguments.push(format!("`{name}`"));
                }
            }
        }
        let (parameters, arguments) = (parameters.join(", "), arguments.join(", "));
        let object = &self.object;
        let throws = m.throws.as_ref().map(|e| format!("    @Throws({e}::class)\n")).unwrap_or_default();
        let overloads = if m.has_defaults() { "    @JvmOverloads\n" } else { "" };
        if kind == Kind::Constructor {
            return format!(
                "    /** [{object}]'s constructor, giving the blocking form. */\n{throws}{overloads}    public constructor({parameters}) : this({object}({arguments}))\n\n"
            );
        }
        let name = &m.name;
        let doc = format!("[{object}.{name}]");
        let call = match kind {
            Kind::Factory => format!("{object}.`{name}`({arguments})"),
            _ => format!("async.`{name}`({arguments})"),
        };
        let (result, call) = match blocking_form_of(&m.result, forms) {
            Some(blocking) => (blocking.clone(), format!("{blocking}({call})")),
            None => (m.result.clone(), call),
        };
        let (body, doc) = match kind {
            Kind::Method if m.suspends => (
                match &charge {
                    Some(charge) => format!("parkUntilDone({charge}) {{ {call} }}"),
                    None => format!("parkUntilDone {{ {call} }}"),
                },
                format!("{doc}, waiting for its result: the calling thread parks."),
            ),
            Kind::Factory => (call, format!("{doc}, giving the blocking form.")),
            _ => (call, format!("{doc}.")),
        };
        let statics = if kind == Kind::Factory { "    @JvmStatic\n" } else { "" };
        format!(
            "    /** {doc} */\n{statics}{throws}{overloads}    public fun `{name}`({parameters}): {result} =\n        {body}\n\n"
        )
    }
}

/// The blocking form of the type `name`, when it has one.
fn blocking_form_of(name: &str, forms: &[Form]) -> Option<String> {
    forms.iter().find(|form| form.object == name).map(Form::blocking)
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
    use super::{Object, forms_in, generate_forms};
    use crate::charges::Charges;
    use crate::patch::kotlin::kotlin_types::Signature;

    /// The root `uniffi.toml`'s exclusion, as it is.
    const CONFIG: &str = "[bindings.kotlin]\nexclude = [\"BlockingClient\", \"BlockingLedger\"]\n";

    fn client() -> Object {
        Object {
            methods: vec![
                Signature::of("verify", &[("reference", "kotlin.String", None)], "Transaction", true, true),
                Signature::of("list", &[("country", "kotlin.String?", Some("null"))], "List<Bank>", true, true),
                Signature::of("withOptions", &[("timeoutMs", "kotlin.Long?", Some("null"))], "Client", true, false),
                Signature::of("shutdown", &[], "Unit", false, false),
            ],
            constructors: vec![Signature::of(
                "constructor",
                &[("config", "ClientConfig", None)],
                "Client",
                true,
                false,
            )],
            factories: vec![Signature::of("fromEnv", &[], "Client", true, false)],
        }
    }

    fn ledger() -> Object {
        Object {
            methods: vec![
                Signature::of(
                    "settle",
                    &[("client", "Client", None), ("reference", "kotlin.String", None)],
                    "LedgerDecision",
                    true,
                    true,
                ),
                Signature::of(
                    "reconcile",
                    &[("client", "Client", None), ("options", "ReconcileOptions?", Some("null"))],
                    "ReconcileReport",
                    true,
                    true,
                ),
                Signature::of("markFulfilled", &[("claim", "Claim", None)], "Unit", false, true),
            ],
            constructors: vec![],
            factories: vec![Signature::of(
                "sqlite",
                &[("path", "kotlin.String", None), ("options", "LedgerOptions?", Some("null"))],
                "Ledger",
                true,
                false,
            )],
        }
    }

    fn files(objects: &[Object]) -> Result<Vec<(String, String)>, String> {
        generate_forms(&forms_in(CONFIG).unwrap(), objects, &Charges::new())
    }

    #[test]
    fn b176_blocking_client_every_operation_parks_on_the_async_client() {
        let all = files(&[client(), ledger()]).unwrap();
        let (name, file) = &all[0];
        assert_eq!(name, "BlockingClient.kt");
        assert!(file.contains("    @Throws(SikaException::class)\n    public fun `verify`(`reference`: kotlin.String): Transaction =\n        parkUntilDone { async.`verify`(`reference`) }\n"), "{file}");
        assert!(file.contains("    @Throws(SikaException::class)\n    @JvmOverloads\n    public fun `list`(`country`: kotlin.String? = null): List<Bank> =\n        parkUntilDone { async.`list`(`country`) }\n"), "{file}");
        // A view of the client is a blocking client over the view.
        assert!(file.contains("    @Throws(SikaException::class)\n    @JvmOverloads\n    public fun `withOptions`(`timeoutMs`: kotlin.Long? = null): BlockingClient =\n        BlockingClient(async.`withOptions`(`timeoutMs`))\n"), "{file}");
        // A plain method is a plain call, throwing nothing.
        assert!(file.contains("    public fun `shutdown`(): Unit =\n        async.`shutdown`()\n"), "{file}");
        // The constructor and the factory.
        assert!(file.contains("    @Throws(SikaException::class)\n    public constructor(`config`: ClientConfig) : this(Client(`config`))\n"), "{file}");
        assert_eq!(file.matches("constructor(").count(), 2, "{file}");
        assert!(file.contains("        @JvmStatic\n        @Throws(SikaException::class)\n        public fun `fromEnv`(): BlockingClient =\n            BlockingClient(Client.`fromEnv`())\n"), "{file}");
        assert!(file.starts_with("// Written by Sika's uniffi-bindgen"));
    }

    #[test]
    fn b232_a_blocking_charge_tells_the_parking_of_its_request() {
        let mut charging = client();
        charging.methods[0] = Signature::of("verify", &[("request", "ChargeRequest", None)], "Transaction", true, true);
        // The metadata names the charging methods and their `ChargeRequest` parameter.
        let charges = [("verify".to_owned(), "request".to_owned())].into();
        let all = generate_forms(&forms_in(CONFIG).unwrap(), &[charging, ledger()], &charges).unwrap();
        let file = &all[0].1;
        assert!(file.contains("        parkUntilDone(`request`) { async.`verify`(`request`) }\n"), "{file}");
        // Any other call parks with no charge.
        assert!(file.contains("        parkUntilDone { async.`list`(`country`) }\n"), "{file}");
    }

    #[test]
    fn b193_blocking_ledger_takes_the_blocking_client() {
        let all = files(&[client(), ledger()]).unwrap();
        let (name, file) = &all[1];
        assert_eq!(name, "BlockingLedger.kt");
        assert!(file.contains("public class BlockingLedger private constructor(\n    /** The async [Ledger] this one calls. */\n    @get:JvmSynthetic internal val async: Ledger,\n"), "{file}");
        assert!(file.contains("    @Throws(SikaException::class)\n    public fun `settle`(`client`: BlockingClient, `reference`: kotlin.String): LedgerDecision =\n        parkUntilDone { async.`settle`(`client`.async, `reference`) }\n"), "{file}");
        assert!(file.contains("    @JvmOverloads\n    public fun `reconcile`(`client`: BlockingClient, `options`: ReconcileOptions? = null): ReconcileReport =\n        parkUntilDone { async.`reconcile`(`client`.async, `options`) }\n"), "{file}");
        assert!(file.contains("    public fun `markFulfilled`(`claim`: Claim): Unit =\n        parkUntilDone { async.`markFulfilled`(`claim`) }\n"), "{file}");
        assert!(file.contains("        @JvmStatic\n        @Throws(SikaException::class)\n        @JvmOverloads\n        public fun `sqlite`(`path`: kotlin.String, `options`: LedgerOptions? = null): BlockingLedger =\n            BlockingLedger(Ledger.`sqlite`(`path`, `options`))\n"), "{file}");
        assert!(!file.contains("constructor(`"), "{file}");
    }

    #[test]
    fn b176_blocking_forms_need_an_async_method_and_a_way_to_make_one() {
        assert!(files(&[client(), ledger()]).is_ok());
        // No async method: nothing to park on.
        let mut synchronous = client();
        synchronous.methods.retain(|m| !m.suspends);
        assert!(files(&[synchronous, ledger()]).unwrap_err().contains("no async method of `Client`"));
        // Neither a constructor nor a factory: nothing makes the blocking form.
        let mut unmade = ledger();
        unmade.factories.clear();
        assert!(files(&[client(), unmade]).unwrap_err().contains("no constructor of `Ledger`"));
    }

    #[test]
    fn b197_the_blocking_forms_are_the_core_forms_the_config_excludes() {
        // The root file itself, as the bindgen reads it.
        let names: Vec<String> = super::forms().unwrap().iter().map(super::Form::file).collect();
        assert_eq!(names, ["BlockingClient.kt", "BlockingLedger.kt"]);
        // The client's form alone: no ledger file.
        let client_only = generate_forms(
            &forms_in("[bindings.kotlin]\nexclude = [\"BlockingClient\"]\n").unwrap(),
            &[client()],
            &Charges::new(),
        )
        .unwrap();
        assert_eq!(client_only.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(), ["BlockingClient.kt"]);
        // Without the client's form the ledger's takes the async `Client`.
        let ledger_only = generate_forms(
            &forms_in("[bindings.kotlin]\nexclude = [\"BlockingLedger\"]\n").unwrap(),
            &[ledger()],
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
