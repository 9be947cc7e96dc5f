//! Swift's `Codable` conformances, generated from the library's metadata next to `Sika.swift`
//! (ADR 0035), so that a record or enum the core adds needs no hand edit in Swift.
//!
//! The rule is the core's own pairing of functions (`crate::serialized`): a record or decision
//! `R` with an exported `r_from_json` is `CoreJSONCodable` (written by its `to_json()`, read by
//! that function); an enum `E` with `e_from_text` is `ServiceTextCodable` (its service text both
//! ways). The protocols and their default implementations are ordinary Swift in
//! `bindings/swift/Sources/Sika/Records+Codable.swift`; only the list is generated.

use std::fs;
use std::path::Path;

use uniffi_bindgen::pipeline::general::Namespace;

use crate::serialized::Serialized;

/// The conformances file, next to the generated `Sika.swift`.
pub const FILE_NAME: &str = "Sika+Codable.swift";

/// Writes the conformances of the interface of `library` into `out_dir`.
pub fn write(out_dir: &Path, library: &Path) -> Result<(), String> {
    let namespace = crate::python_stub::interface(library)?;
    let text = conformances(&namespace)?;
    let file = out_dir.join(FILE_NAME);
    fs::write(&file, text).map_err(|e| format!("writing {}: {e}", file.display()))
}

/// The conformances file's text: one extension per record, decision and text enum the core pairs
/// with a reader (`crate::serialized`, the rule Kotlin's serializers follow too).
pub fn conformances(namespace: &Namespace) -> Result<String, String> {
    let types = crate::serialized::serialized_types(namespace)?;
    let mut out = String::from(
        "// Generated with the bindings by the project's uniffi-bindgen from the library's metadata\n\
         // (bindings/uniffi-bindgen/src/swift_codable.rs, ADR 0035): every record and decision the core\n\
         // reads back from JSON, and every enum it reads from the service's text. Never edited by hand.\n\n",
    );
    // A decision (an enum with data, ADR 0080) is written and read as a record is: its `toJson()`.
    for Serialized { name, reader } in types.json() {
        out.push_str(&format!(
            "extension {name}: CoreJSONCodable {{\n    public static func fromJson(_ json: String) throws -> {name} {{\n        try {reader}(json: json)\n    }}\n}}\n\n"
        ));
    }
    for Serialized { name, reader } in &types.text_enums {
        out.push_str(&format!(
            "extension {name}: ServiceTextCodable {{\n    public static func fromServiceText(_ text: String) -> {name} {{\n        {reader}(text: text)\n    }}\n}}\n\n"
        ));
    }
    Ok(out.trim_end().to_owned() + "\n")
}
