//! Swift's `Codable` conformances, generated from the library's metadata next to `Sika.swift`
//! (ADR 0035), so that a record or enum the core adds needs no hand edit in Swift.
//!
//! The rule is the core's own pairing of functions: a record `R` with an exported
//! `r_from_json` is `CoreJSONCodable` (written by its `to_json()`, read by that function); an
//! enum `E` with `e_from_text` is `ServiceTextCodable` (its service text both ways). The
//! protocols and their default implementations are ordinary Swift in
//! `bindings/swift/Sources/Sika/Records+Codable.swift`; only the list is generated.

use std::fs;
use std::path::Path;

use heck::{ToLowerCamelCase, ToSnakeCase};
use uniffi_bindgen::pipeline::general::{Namespace, TypeDefinition};

/// The conformances file, next to the generated `Sika.swift`.
pub const FILE_NAME: &str = "Sika+Codable.swift";

/// Writes the conformances of the interface of `library` into `out_dir`.
pub fn write(out_dir: &Path, library: &Path) -> Result<(), String> {
    let namespace = crate::python_stub::interface(library)?;
    let text = conformances(&namespace)?;
    let file = out_dir.join(FILE_NAME);
    fs::write(&file, text).map_err(|e| format!("writing {}: {e}", file.display()))
}

/// The conformances file's text: one extension per record and enum the core pairs with a reader.
pub fn conformances(namespace: &Namespace) -> Result<String, String> {
    let functions: Vec<&str> =
        namespace.functions.iter().map(|function| function.callable.orig_name.as_str()).collect();
    let reader = |name: &str, suffix: &str| {
        let function = format!("{}_{suffix}", name.to_snake_case());
        functions.contains(&function.as_str()).then(|| function.to_lower_camel_case())
    };
    let mut out = String::from(
        "// Generated with the bindings by the project's uniffi-bindgen from the library's metadata\n\
         // (bindings/uniffi-bindgen/src/swift_codable.rs, ADR 0035): every record the core reads back\n\
         // from JSON, and every enum it reads from the service's text. Never edited by hand.\n\n",
    );
    let (mut records, mut enums) = (0, 0);
    for definition in &namespace.type_definitions {
        match definition {
            TypeDefinition::Record(record) => {
                if let Some(function) = reader(&record.orig_name, "from_json") {
                    let name = &record.orig_name;
                    out.push_str(&format!(
                        "extension {name}: CoreJSONCodable {{\n    public static func fromJson(_ json: String) throws -> {name} {{\n        try {function}(json: json)\n    }}\n}}\n\n"
                    ));
                    records += 1;
                }
            }
            TypeDefinition::Enum(enumeration) => {
                if let Some(function) = reader(&enumeration.orig_name, "from_text") {
                    let name = &enumeration.orig_name;
                    out.push_str(&format!(
                        "extension {name}: ServiceTextCodable {{\n    public static func fromServiceText(_ text: String) -> {name} {{\n        {function}(text: text)\n    }}\n}}\n\n"
                    ));
                    enums += 1;
                }
            }
            _ => {}
        }
    }
    // The shape check: the core has always paired records and enums with readers; none found
    // means the naming rule no longer matches the metadata, not that nothing is data.
    if records == 0 || enums == 0 {
        return Err(format!("found {records} records with `*_from_json` and {enums} enums with `*_from_text`"));
    }
    Ok(out.trim_end().to_owned() + "\n")
}
