//! Kotlin: records and the text enums serialise with Jackson, with no adapter written by the
//! merchant (ADR 0017; kotlinx.serialization's serializers are a file of their own, ADR 0069).
//!
//! UniFFI writes plain data classes and sealed classes: Jackson sees a status as a bean with no
//! properties (`"status":{}`). Each record with the core's reader `<record>FromJson(json)` gets
//! `@JsonSerialize` and `@JsonDeserialize` naming small classes appended here, which go through
//! the core's `toJson()` and that reader; each enum with `<enum>FromText(text)` gets the same
//! through its printed text (the core's `Display`) and that parser. The annotations must sit on
//! the generated class, so this stays a patch (ADR 0009). The bases of those classes are
//! hand-written (`bindings/kotlin/src/main/kotlin/dev/sika/serialization/`); no field is mapped
//! in Kotlin. Jackson is an optional dependency: the JVM ignores an annotation whose class is
//! missing, so merchants without it are unaffected.

use super::super::replace_exactly;

const RECORD_READER: &str = "FromJson`(`json`: kotlin.String): ";
const ENUM_PARSER: &str = "FromText`(`text`: kotlin.String): ";
const TO_JSON: &str = "fun `toJson`(): kotlin.String";

/// The records and text enums of the generated `text` that serialise through the core: the types
/// of its `<record>FromJson(json)` readers and `<enum>FromText(text)` parsers, checked against the
/// records that have `toJson()`.
pub fn serialized_types(text: &str) -> Result<(Vec<String>, Vec<String>), String> {
    let records = readers(text, RECORD_READER)?;
    let enums = readers(text, ENUM_PARSER)?;
    if records.is_empty() || enums.is_empty() {
        return Err(format!(
            "found {} record readers and {} enum parsers, expected some of each",
            records.len(),
            enums.len()
        ));
    }
    // Every record with the core's `to_json()` must have its reader, or it would silently keep
    // Jackson's empty beans: the reader is added in the core (`from_json_functions!`).
    let writers = text.matches(TO_JSON).count();
    if writers != records.len() {
        return Err(format!(
            "{writers} records have toJson() but {} have a *FromJson reader ({}): add the missing ones to \
             from_json_functions! in core/src/models/json.rs",
            records.len(),
            records.join(", ")
        ));
    }
    Ok((records, enums))
}

pub fn patch(text: String) -> Result<String, String> {
    let (records, enums) = serialized_types(&text)?;
    let mut patched = text;
    let mut serializers = String::from(
        "\n// Jackson of the records and text enums, through the core's JSON and texts (ADR 0017; added\n\
         // by bindings/uniffi-bindgen's records_as_data patch).\n",
    );
    for record in &records {
        let declaration = format!("\ndata class {record} (\n");
        patched = replace_exactly(
            &patched,
            &declaration,
            &format!("\n{}{declaration}", annotations(record)),
            1,
            &declaration,
        )?;
        let reader = format!("::{}FromJson", lower_first(record));
        serializers.push_str(&format!(
            "internal class {record}JacksonSerializer : dev.sika.serialization.RecordJacksonSerializer<{record}>({record}::class.java, {record}::toJson)\n\
             internal class {record}JacksonDeserializer : dev.sika.serialization.RecordJacksonDeserializer<{record}>({record}::class.java, {reader})\n"
        ));
    }
    for name in &enums {
        let declaration = format!("\nsealed class {name} {{\n");
        patched =
            replace_exactly(&patched, &declaration, &format!("\n{}{declaration}", annotations(name)), 1, &declaration)?;
        let parser = format!("::{}FromText", lower_first(name));
        serializers.push_str(&format!(
            "internal class {name}JacksonSerializer : dev.sika.serialization.TextJacksonSerializer<{name}>({name}::class.java)\n\
             internal class {name}JacksonDeserializer : dev.sika.serialization.TextJacksonDeserializer<{name}>({name}::class.java, {parser})\n"
        ));
    }
    patched.push_str(&serializers);
    Ok(patched)
}

/// The types of the exported functions `<type>FromJson(json)` (or `FromText(text)`), checked to
/// be named after the type they return.
fn readers(text: &str, signature: &str) -> Result<Vec<String>, String> {
    let mut types = Vec::new();
    for (at, _) in text.match_indices(signature) {
        let function = text[..at].rsplit('`').next().unwrap_or_default();
        let rest = &text[at + signature.len()..];
        let name = rest.split(" {").next().unwrap_or_default();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) || function != lower_first(name) {
            return Err(format!("unexpected reader `{function}…{signature}{name}`"));
        }
        types.push(name.to_owned());
    }
    Ok(types)
}

fn annotations(name: &str) -> String {
    format!(
        "@com.fasterxml.jackson.databind.annotation.JsonSerialize(using = {name}JacksonSerializer::class)\n\
         @com.fasterxml.jackson.databind.annotation.JsonDeserialize(using = {name}JacksonDeserializer::class)"
    )
}

pub fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map(|first| first.to_ascii_lowercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// A record with its reader and a text enum with its parser, as UniFFI writes them: the input of
/// this patch's tests and of `kotlinx_serializers`'.
#[cfg(test)]
pub(super) mod tests_sample {
    pub const GENERATED: &str = "\ndata class Bank (\n    var `id`: kotlin.Long\n){\n    fun `toJson`(): kotlin.String {\n    }\n}\n\
        \nsealed class BankAccountType {\n}\n\
        \n         */ fun `bankFromJson`(`json`: kotlin.String): Bank {\n    }\n\
        \n         */ fun `bankAccountTypeFromText`(`text`: kotlin.String): BankAccountType {\n    }\n";
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::tests_sample::GENERATED;

    #[test]
    fn b176_annotates_records_and_enums_and_appends_their_serializers() {
        let patched = patch(GENERATED.to_owned()).expect("patches");
        assert!(patched.contains("(using = BankJacksonDeserializer::class)\ndata class Bank (\n"));
        assert!(
            patched.contains("(using = BankAccountTypeJacksonDeserializer::class)\nsealed class BankAccountType {\n")
        );
        assert!(patched.contains("RecordJacksonDeserializer<Bank>(Bank::class.java, ::bankFromJson)"));
        assert!(patched.contains(
            "TextJacksonDeserializer<BankAccountType>(BankAccountType::class.java, ::bankAccountTypeFromText)"
        ));
        // ADR 0069: no kotlinx annotation on a generated class, so javac never looks for kotlinx.
        assert!(!patched.contains("kotlinx"));
    }

    #[test]
    fn b176_a_record_without_its_reader_fails_the_build() {
        let without_reader = GENERATED.replace("fun `bankFromJson`(`json`: kotlin.String): Bank {", "");
        let extra_writer = format!("{GENERATED}\ndata class Other (\n){{\n    fun `toJson`(): kotlin.String {{\n}}\n");
        for text in [without_reader, extra_writer] {
            assert!(patch(text).is_err());
        }
        let renamed = GENERATED.replace("data class Bank (", "data class Bank(");
        assert!(patch(renamed).unwrap_err().contains("data class Bank ("));
    }
}
