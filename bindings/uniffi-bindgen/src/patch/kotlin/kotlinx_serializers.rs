//! Kotlin: `SikaSerializers.kt`, kotlinx.serialization's serializers of the records and text
//! enums, named for merchants to use (ADR 0069). A file of its own beside the generated one.
//!
//! The records carry no kotlinx annotation: `@Serializable(with = ...)` on a generated class made
//! javac warn (`-Xlint:classfile`) in every Java project without kotlinx on its classpath. Each
//! type that serialises through the core (`records_as_data::serialized_types`, so a new record
//! joins without a list kept by hand) gets a public `<Type>Serializer` object over the core's
//! JSON or text, and `SikaSerializers.module` holds them all as contextual serializers. The
//! objects' bases are hand-written (`dev/sika/serialization/KotlinxSerializers.kt`).

use super::records_as_data::{lower_first, serialized_types};

/// The file's name, beside `sika_ffi.kt`.
pub const FILE_NAME: &str = "SikaSerializers.kt";

/// `SikaSerializers.kt` for the generated `sika_ffi.kt` in `text`.
pub fn generate(text: &str) -> Result<String, String> {
    let (records, enums) = serialized_types(text)?;
    let mut objects = String::new();
    let mut contextual = String::new();
    for record in &records {
        objects.push_str(&format!(
            "/** [dev.sika.{record}] as the core's JSON: its `toJson()`, read back by `{reader}`. */\n\
             public object {record}Serializer : RecordSerializer<dev.sika.{record}>(\n    \
             \"dev.sika.{record}\",\n    dev.sika.{record}::toJson,\n    {{ dev.sika.{reader}(it) }},\n)\n\n",
            reader = format!("{}FromJson", lower_first(record)),
        ));
    }
    for name in &enums {
        objects.push_str(&format!(
            "/** [dev.sika.{name}] as the service's text, read back by `{parser}`. */\n\
             public object {name}Serializer : TextSerializer<dev.sika.{name}>(\"dev.sika.{name}\", {{ dev.sika.{parser}(it) }})\n\n",
            parser = format!("{}FromText", lower_first(name)),
        ));
    }
    for name in records.iter().chain(&enums) {
        contextual.push_str(&format!("        contextual(dev.sika.{name}::class, {name}Serializer)\n"));
    }
    Ok(format!("{HEAD}{objects}{MODULE_DOC}{contextual}    }}\n}}\n"))
}

const HEAD: &str = "\
// Written by Sika's uniffi-bindgen from the generated code
// (bindings/uniffi-bindgen/src/patch/kotlin/kotlinx_serializers.rs, ADR 0069). Do not edit.
@file:Suppress(\"RedundantVisibilityModifier\")

package dev.sika.serialization

import kotlinx.serialization.modules.SerializersModule

";

const MODULE_DOC: &str = "\
/**
 * The serializers above, for a `Json` that finds them by type:
 * `Json { serializersModule = SikaSerializers.module }` encodes a record on its own
 * (`json.encodeToString(transaction)`, Ktor's `call.respond(transaction)`) and a merchant's
 * `@Contextual` field. `@file:UseSerializers(TransactionSerializer::class)` needs no module.
 */
public object SikaSerializers {
    /** Every record and text enum of the SDK, each with its serializer as a contextual one. */
    public val module: SerializersModule = SerializersModule {
";

#[cfg(test)]
mod tests {
    use super::generate;

    use super::super::records_as_data::tests_sample::GENERATED;

    #[test]
    fn b198_each_serialised_type_has_a_public_serializer_in_the_module() {
        let file = generate(GENERATED).expect("generates");
        assert!(file.contains("package dev.sika.serialization\n"));
        assert!(file.contains(
            "public object BankSerializer : RecordSerializer<dev.sika.Bank>(\n    \"dev.sika.Bank\",\n    \
             dev.sika.Bank::toJson,\n    { dev.sika.bankFromJson(it) },\n)\n"
        ));
        assert!(file.contains(
            "public object BankAccountTypeSerializer : TextSerializer<dev.sika.BankAccountType>(\"dev.sika.BankAccountType\", \
             { dev.sika.bankAccountTypeFromText(it) })\n"
        ));
        assert!(file.contains("        contextual(dev.sika.Bank::class, BankSerializer)\n"));
        assert!(file.contains("        contextual(dev.sika.BankAccountType::class, BankAccountTypeSerializer)\n"));
    }

    #[test]
    fn b198_a_record_without_its_reader_fails_the_build() {
        let without_reader = GENERATED.replace("fun `bankFromJson`(`json`: kotlin.String): Bank {", "");
        assert!(generate(&without_reader).is_err());
    }
}
