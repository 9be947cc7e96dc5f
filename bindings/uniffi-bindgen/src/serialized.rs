//! The types that serialise through the core, read from the library's metadata: one rule for
//! every language's serializers (Swift's `Codable` conformances, ADR 0035; Kotlin's Jackson module
//! and kotlinx.serialization serializers, ADR 0069 and 0079), so a type the core adds joins them all
//! with no list kept by hand.
//!
//! The rule is the core's own pairing of functions: a record or an enum with data `T` that has an
//! exported `t_from_json` is written by its `to_json()` and read by that function (the records, and
//! the decisions, ADR 0080); an enum `E` with `e_from_text` is the service's text both ways.

use heck::{ToLowerCamelCase, ToSnakeCase};
use uniffi_bindgen::pipeline::general::{Method, Namespace, TypeDefinition};

/// A type and the name (lower camel case, as Kotlin and Swift call it) of its core reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Serialized {
    /// The type's name (`Transaction`).
    pub name: String,
    /// Its reader: `transactionFromJson`, or `transactionStatusFromText` for a text enum.
    pub reader: String,
}

impl Serialized {
    /// `name` with the reader the naming rule gives it (`suffix`: `FromJson` or `FromText`).
    #[cfg(test)]
    pub fn new(name: &str, suffix: &str) -> Self {
        Self { name: name.to_owned(), reader: format!("{}{suffix}", name.to_lower_camel_case()) }
    }
}

/// The types of the interface that serialise through the core, in the metadata's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SerializedTypes {
    /// Records written by `to_json()` and read by `<record>_from_json`.
    pub records: Vec<Serialized>,
    /// Enums with data written by `to_json()` and read by `<enum>_from_json`: the decisions
    /// (`PaymentCheck`, `WebhookDecision`, `LedgerDecision`), their kind under `outcome`.
    pub json_enums: Vec<Serialized>,
    /// Enums written as the service's text (their `Display`) and read by `<enum>_from_text`.
    pub text_enums: Vec<Serialized>,
}

impl SerializedTypes {
    /// The records and the JSON enums: every type written by its `to_json()`.
    pub fn json(&self) -> impl Iterator<Item = &Serialized> {
        self.records.iter().chain(&self.json_enums)
    }
}

/// The serialised types of `namespace`. A type with `to_json()` but no reader (or a reader but no
/// `to_json()`) fails the build: it would be written by no serializer, or by a second mapping.
pub fn serialized_types(namespace: &Namespace) -> Result<SerializedTypes, String> {
    let functions: Vec<&str> =
        namespace.functions.iter().map(|function| function.callable.orig_name.as_str()).collect();
    let reader = |name: &str, suffix: &str| {
        let function = format!("{}_{suffix}", name.to_snake_case());
        functions
            .contains(&function.as_str())
            .then(|| Serialized { name: name.to_owned(), reader: function.to_lower_camel_case() })
    };
    // `to_json_methods!` exports the Rust `foreign_to_json` under the name `to_json`.
    let writes_json = |methods: &[Method]| methods.iter().any(|method| method.callable.name == "to_json");
    let mut types = SerializedTypes::default();
    for definition in &namespace.type_definitions {
        let (name, methods, is_enum) = match definition {
            TypeDefinition::Record(record) => (&record.orig_name, &record.methods, false),
            TypeDefinition::Enum(enumeration) => (&enumeration.orig_name, &enumeration.methods, true),
            _ => continue,
        };
        let json = reader(name, "from_json");
        if json.is_some() != writes_json(methods) {
            return Err(format!(
                "{name} has {} but {}: the core pairs each `to_json()` with a `*_from_json` reader \
                 (from_json_functions! beside to_json_methods!)",
                if json.is_some() { "a `*_from_json` reader" } else { "`to_json()`" },
                if json.is_some() { "no `to_json()`" } else { "no reader" },
            ));
        }
        match (json, is_enum) {
            (Some(json), false) => types.records.push(json),
            (Some(json), true) => types.json_enums.push(json),
            (None, true) => types.text_enums.extend(reader(name, "from_text")),
            (None, false) => {}
        }
    }
    // The shape check: the core has always paired records, decisions and text enums with readers;
    // none found means the naming rule no longer matches the metadata, not that nothing is data.
    if types.records.is_empty() || types.json_enums.is_empty() || types.text_enums.is_empty() {
        return Err(format!(
            "found {} records and {} enums with `*_from_json` and {} enums with `*_from_text`, expected some of each",
            types.records.len(),
            types.json_enums.len(),
            types.text_enums.len()
        ));
    }
    Ok(types)
}

/// A sample of the three kinds, as the metadata of the core gives them: the input of the
/// generators' tests.
#[cfg(test)]
pub fn sample() -> SerializedTypes {
    SerializedTypes {
        records: vec![Serialized::new("Bank", "FromJson")],
        json_enums: vec![Serialized::new("PaymentCheck", "FromJson")],
        text_enums: vec![Serialized::new("BankAccountType", "FromText")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b176_the_reader_is_named_by_the_cores_rule() {
        let sample = sample();
        assert_eq!(sample.records[0].reader, "bankFromJson");
        assert_eq!(sample.json_enums[0].reader, "paymentCheckFromJson");
        assert_eq!(sample.text_enums[0].reader, "bankAccountTypeFromText");
        assert_eq!(sample.json().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["Bank", "PaymentCheck"]);
    }
}
