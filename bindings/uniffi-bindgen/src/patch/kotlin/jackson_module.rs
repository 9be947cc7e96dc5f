//! Kotlin: `SikaJacksonModule.kt`, Jackson's serializers of the records, decisions and text enums
//! as a Jackson `Module` (ADR 0079, which supersedes ADR 0017's annotations). A file of its own
//! beside the generated one.
//!
//! The records carry no Jackson annotation: `@JsonSerialize(using = ...)` on a generated class made
//! javac warn (`-Xlint:classfile`, "Cannot find annotation method 'using()'") in every Java project
//! without Jackson on its classpath. The module lists each type that serialises through the core
//! (`crate::serialized`, from the library's metadata, the same list as kotlinx's serializers), and
//! the jar names it in `META-INF/services/com.fasterxml.jackson.databind.Module`, so
//! `ObjectMapper.findAndRegisterModules()` finds it as it finds jackson-datatype modules. The
//! serializers themselves are hand-written (`dev/sika/serialization/JacksonSerializers.kt`).

use crate::serialized::SerializedTypes;

/// The file's name, beside `sika_ffi.kt`.
pub const FILE_NAME: &str = "SikaJacksonModule.kt";

/// `SikaJacksonModule.kt` for the serialised `types` of the interface.
pub fn generate(types: &SerializedTypes) -> String {
    let mut entries = String::new();
    for json in types.json() {
        entries.push_str(&format!(
            "        coreJson(dev.sika.{name}::class.java, dev.sika.{name}::toJson) {{ dev.sika.{reader}(it) }},\n",
            name = json.name,
            reader = json.reader,
        ));
    }
    for text in &types.text_enums {
        entries.push_str(&format!(
            "        serviceText(dev.sika.{name}::class.java) {{ dev.sika.{reader}(it) }},\n",
            name = text.name,
            reader = text.reader,
        ));
    }
    format!("{HEAD}{entries}{TAIL}")
}

const HEAD: &str = "\
// Written by Sika's uniffi-bindgen from the library's metadata
// (bindings/uniffi-bindgen/src/patch/kotlin/jackson_module.rs, ADR 0079). Do not edit.
@file:Suppress(\"RedundantVisibilityModifier\")

package dev.sika.serialization

/**
 * Jackson's serializers of Sika's records, decisions and text enums, through the core's JSON
 * (`toJson()` and the `*FromJson` readers: `\"amount\":\"100.10\"`, `\"status\":\"successful\"`,
 * a decision's kind under `outcome`) and the service's texts.
 *
 * The jar lists it for `ServiceLoader` (`META-INF/services/com.fasterxml.jackson.databind.Module`),
 * so `ObjectMapper().findAndRegisterModules()` (and `jacksonObjectMapper().findAndRegisterModules()`,
 * Ktor's `jackson { findAndRegisterModules() }`) registers it; `registerModule(SikaJacksonModule())`
 * does the same by name, and a Spring Boot application declares it as a bean (Spring Boot
 * registers every `Module` bean, not those of `ServiceLoader`). A mapper without it has no
 * serializer of Sika's types: it refuses a record (its times need jsr310) and writes a status on
 * its own as a bean of its own making.
 */
public class SikaJacksonModule : com.fasterxml.jackson.databind.Module() {
    private val types: List<JacksonType<*>> = listOf(
";

const TAIL: &str = "    )

    /** Registered once per mapper however often it is found: Jackson keeps one module per type id (its class). */
    override fun getModuleName(): String = \"Sika\"

    override fun version(): com.fasterxml.jackson.core.Version = com.fasterxml.jackson.core.Version.unknownVersion()

    override fun setupModule(context: SetupContext) {
        setUpSikaTypes(context, types)
    }
}
";

#[cfg(test)]
mod tests {
    use super::generate;

    #[test]
    fn b260_the_module_lists_every_serialised_type_with_the_cores_reader() {
        let file = generate(&crate::serialized::sample());
        assert!(file.contains("package dev.sika.serialization\n"));
        assert!(file.contains("public class SikaJacksonModule : com.fasterxml.jackson.databind.Module() {\n"));
        assert!(file.contains(
            "        coreJson(dev.sika.Bank::class.java, dev.sika.Bank::toJson) { dev.sika.bankFromJson(it) },\n"
        ));
        assert!(file.contains(
            "        coreJson(dev.sika.PaymentCheck::class.java, dev.sika.PaymentCheck::toJson) { dev.sika.paymentCheckFromJson(it) },\n"
        ));
        assert!(file.contains(
            "        serviceText(dev.sika.BankAccountType::class.java) { dev.sika.bankAccountTypeFromText(it) },\n"
        ));
        assert!(file.ends_with("        setUpSikaTypes(context, types)\n    }\n}\n"));
    }
}
