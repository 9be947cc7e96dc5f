//! Kotlin: `SikaSerializers.kt`, kotlinx.serialization's serializers of the records and text
//! enums, named for merchants to use (ADR 0069). A file of its own beside the generated one.
//!
//! The records carry no kotlinx annotation: `@Serializable(with = ...)` on a generated class made
//! javac warn (`-Xlint:classfile`) in every Java project without kotlinx on its classpath. Each
//! type that serialises through the core (`crate::serialized`, from the library's metadata, so a
//! new record or decision joins without a list kept by hand) gets a public `<Type>Serializer`
//! object over the core's JSON or text, and `SikaSerializers.module` holds them all as contextual
//! serializers. The objects' bases are hand-written (`dev/sika/serialization/KotlinxSerializers.kt`).

use crate::serialized::SerializedTypes;

/// The file's name, beside `sika_ffi.kt`.
pub const FILE_NAME: &str = "SikaSerializers.kt";

/// `SikaSerializers.kt` for the serialised `types` of the interface.
pub fn generate(types: &SerializedTypes) -> String {
    let mut objects = String::new();
    let mut contextual = String::new();
    // A record or decision: the core's JSON (a decision's kind under `outcome`, ADR 0080).
    for record in types.json() {
        objects.push_str(&format!(
            "/** [dev.sika.{name}] as the core's JSON: its `toJson()`, read back by `{reader}`. */\n\
             public object {name}Serializer : RecordSerializer<dev.sika.{name}>(\n    \
             \"dev.sika.{name}\",\n    dev.sika.{name}::toJson,\n    {{ dev.sika.{reader}(it) }},\n)\n\n",
            name = record.name,
            reader = record.reader,
        ));
    }
    for text in &types.text_enums {
        objects.push_str(&format!(
            "/** [dev.sika.{name}] as the service's text, read back by `{parser}`. */\n\
             public object {name}Serializer : TextSerializer<dev.sika.{name}>(\"dev.sika.{name}\", {{ dev.sika.{parser}(it) }})\n\n",
            name = text.name,
            parser = text.reader,
        ));
    }
    for serialized in types.json().chain(&types.text_enums) {
        contextual.push_str(&format!(
            "        contextual(dev.sika.{name}::class, {name}Serializer)\n",
            name = serialized.name
        ));
    }
    format!("{HEAD}{objects}{MODULE_DOC}{contextual}    }}\n}}\n")
}

const HEAD: &str = "\
// Written by Sika's uniffi-bindgen from the library's metadata
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

    #[test]
    fn b198_each_serialised_type_has_a_public_serializer_in_the_module() {
        let file = generate(&crate::serialized::sample());
        assert!(file.contains("package dev.sika.serialization\n"));
        assert!(file.contains(
            "public object BankSerializer : RecordSerializer<dev.sika.Bank>(\n    \"dev.sika.Bank\",\n    \
             dev.sika.Bank::toJson,\n    { dev.sika.bankFromJson(it) },\n)\n"
        ));
        // B261: a decision is the core's JSON too, its kind kept.
        assert!(file.contains(
            "public object PaymentCheckSerializer : RecordSerializer<dev.sika.PaymentCheck>(\n    \"dev.sika.PaymentCheck\",\n    \
             dev.sika.PaymentCheck::toJson,\n    { dev.sika.paymentCheckFromJson(it) },\n)\n"
        ));
        assert!(file.contains(
            "public object BankAccountTypeSerializer : TextSerializer<dev.sika.BankAccountType>(\"dev.sika.BankAccountType\", \
             { dev.sika.bankAccountTypeFromText(it) })\n"
        ));
        for name in ["Bank", "PaymentCheck", "BankAccountType"] {
            assert!(
                file.contains(&format!("        contextual(dev.sika.{name}::class, {name}Serializer)\n")),
                "{name}"
            );
        }
    }
}
