//! What Sika's Python runtime (`sika/_runtime/`) adds to the generated classes, as the typed
//! declarations declare it (ADR 0016); `tests/test_typing.py` checks each declaration against
//! the runtime classes. (Hooks of the interpreter and of libraries, `__del__`, `__reduce__`,
//! `__copy__`, pydantic's, are theirs, not the application's, and are not declared.)

use uniffi_bindgen::pipeline::general::{Namespace, TypeDefinition};

use super::match_args;
use crate::python_stub::python;

/// A declaration the runtime's additions need. `class` is the class's path in the module:
/// `SikaError`, `PaymentCheck.MISMATCH`.
pub enum Added {
    /// A base class (`str`).
    Base { class: String, base: String },
    /// A member, declared at the class body's indentation.
    Member { class: String, declaration: String },
}

impl Added {
    pub fn class(&self) -> &str {
        match self {
            Added::Base { class, .. } | Added::Member { class, .. } => class,
        }
    }

    fn member(class: &str, declaration: &str) -> Added {
        Added::Member { class: class.to_owned(), declaration: declaration.to_owned() }
    }
}

/// What the runtime adds to the classes of this interface: errors' `str()` (errors.py), the
/// clients' `close()` and context managers (lifecycle.py), the records' dataclass fields and
/// `to_dict()`, and the text enums' `str` base (records.py).
pub fn added(namespace: &Namespace) -> Vec<Added> {
    let mut added = Vec::new();
    for definition in &namespace.type_definitions {
        if let TypeDefinition::Enum(enumeration) = definition
            && enumeration.self_type.is_used_as_error
        {
            added.push(Added::member(&python::type_name(&enumeration.name), "def __str__(self) -> str: ..."));
        }
    }
    let close = "def close(self) -> None:\n    \"\"\"Shuts the client down (`shutdown()`); calling it again does nothing.\"\"\"\n    ...";
    added.push(Added::member("BlockingClient", close));
    added.push(Added::member("BlockingClient", "def __enter__(self) -> BlockingClient: ..."));
    added.push(Added::member("BlockingClient", "def __exit__(self, *exc_info: object) -> None: ..."));
    added.push(Added::member("Client", close));
    added.push(Added::member("Client", "async def __aenter__(self) -> Client: ..."));
    added.push(Added::member("Client", "async def __aexit__(self, *exc_info: object) -> None: ..."));
    // The ledgers' fulfilment blocks (fulfilment.py, ADR 0071).
    let fulfilment = "def fulfilment(self, claim: Claim) -> typing.ContextManager[Claim]:\n    \"\"\"Fulfils the claim's order in a `with` block: renews the claim while it runs, marks it fulfilled when it ends, gives it back when it raises.\"\"\"\n    ...";
    added.push(Added::member("BlockingLedger", fulfilment));
    let fulfilment = "def fulfilment(self, claim: Claim) -> typing.AsyncContextManager[Claim]:\n    \"\"\"Fulfils the claim's order in an `async with` block: renews the claim while it runs, marks it fulfilled when it ends, gives it back when it raises.\"\"\"\n    ...";
    added.push(Added::member("Ledger", fulfilment));
    for definition in &namespace.type_definitions {
        match definition {
            TypeDefinition::Record(record) if !record.fields.is_empty() => {
                let class = python::type_name(&record.name);
                let fields: Vec<String> = record.fields.iter().map(|field| python::var_name(&field.name)).collect();
                added.push(Added::member(&class, &format!("__match_args__ = {}", match_args::tuple(&fields))));
                if record.methods.iter().any(|method| method.callable.name == "to_json") {
                    added.push(Added::member(&class, "def to_dict(self) -> typing.Dict[str, typing.Any]: ..."));
                }
            }
            TypeDefinition::Enum(enumeration) if text_parser(namespace, &enumeration.name).is_some() => {
                let class = python::type_name(&enumeration.name);
                added.push(Added::Base { class: class.clone(), base: "str".to_owned() });
                added.push(Added::member(
                    &class,
                    "def __new__(cls, *args: typing.Any, **kwargs: typing.Any) -> Self: ...",
                ));
                added.push(Added::member(&class, "def __hash__(self) -> int: ..."));
                added.push(Added::member(
                    &class,
                    &format!("@classmethod\ndef from_text(cls, text: str) -> {class}: ..."),
                ));
            }
            _ => {}
        }
    }
    added
}

/// The core's parser of an enum's service text, `<snake name>_from_text`, when the interface
/// has one: the enum's values are then text (records.py).
pub fn text_parser(namespace: &Namespace, enum_name: &str) -> Option<String> {
    let parser = format!("{}_from_text", python::var_name(enum_name));
    namespace.functions.iter().any(|function| function.callable.name == parser).then_some(parser)
}
