//! Python: an enum's fieldless variants are written as bytes encoded once (B59, ADR 0029).
//!
//! UniFFI's `write` and `check_lower` of an enum test every variant in turn, with no `elif`
//! (`value.is_SUCCESSFUL()`, `value.is_PENDING()`, ... or `value == LogLevel.ERROR`, ...):
//! six method calls to lower any `TransactionStatus`, about 0.8 us of the 4.6 us of
//! `is_final()`. Here each enum (not errors) with fieldless variants gets, at import, their
//! bytes as UniFFI's own `write` makes them; its `write` then finds a fieldless variant by its
//! class (a flat enum's member by itself) and writes those bytes, and its `check_lower` accepts
//! it at once. Anything else (a variant with fields, a subclass, a wrong type) goes to
//! UniFFI's `write` and `check_lower`, kept on the converter as `_uniffi_sika_generated_write`
//! and `_uniffi_sika_generated_check_lower` for the B59 test, which compares both.

use uniffi_bindgen::pipeline::general::{Namespace, TypeDefinition};

use crate::python_stub::python;

const HELPER: &str = r#"

# Sika (patch/python/enum_writes.rs): fieldless variants written as bytes encoded once.
def _uniffi_sika_encoded_enum_writes(converter, enum_class, flat, values):
    generated_write = converter.write
    generated_check_lower = converter.check_lower
    encoded = {}
    for value in values:
        writer = _UniffiSikaBytesWriter()
        generated_write(value, writer)
        encoded[value if flat else type(value)] = bytes(writer.data)
    get = encoded.get
    if flat:
        def write(value, buf):
            if type(value) is enum_class:
                buf.write(encoded[value])
            else:
                generated_write(value, buf)

        def check_lower(value):
            if type(value) is not enum_class:
                generated_check_lower(value)
    else:
        def write(value, buf):
            data = get(type(value))
            if data is None:
                generated_write(value, buf)
            else:
                buf.write(data)

        def check_lower(value):
            if type(value) not in encoded:
                generated_check_lower(value)

    converter._uniffi_sika_generated_write = staticmethod(generated_write)
    converter._uniffi_sika_generated_check_lower = staticmethod(generated_check_lower)
    converter.write = staticmethod(write)
    converter.check_lower = staticmethod(check_lower)

"#;

pub fn patch(text: String, namespace: &Namespace) -> Result<String, String> {
    let mut appended = String::from(HELPER);
    for definition in &namespace.type_definitions {
        let TypeDefinition::Enum(enumeration) = definition else { continue };
        if enumeration.self_type.is_used_as_error {
            continue;
        }
        let class = python::type_name(&enumeration.name);
        let values: Vec<String> = enumeration
            .variants
            .iter()
            .filter(|variant| variant.fields.is_empty())
            .map(|variant| {
                let variant = python::variant_name(&variant.name);
                if enumeration.is_flat { format!("{class}.{variant}") } else { format!("{class}.{variant}()") }
            })
            .collect();
        if values.is_empty() {
            continue;
        }
        let converter = &enumeration.self_type.canonical_name;
        check_converter(&text, converter)?;
        appended.push_str(&format!(
            "_uniffi_sika_encoded_enum_writes(_UniffiFfiConverter{converter}, {class}, {}, ({},))\n",
            if enumeration.is_flat { "True" } else { "False" },
            values.join(", ")
        ));
    }
    Ok(format!("{text}{appended}"))
}

/// The converter must be UniFFI's, defined once, with one static `write` and `check_lower`.
fn check_converter(text: &str, converter: &str) -> Result<(), String> {
    let body = super::converter_body(text, converter)?;
    for method in ["write(value, buf)", "check_lower(value)"] {
        let found = body.matches(&format!("    @staticmethod\n    def {method}:")).count();
        if found != 1 {
            return Err(format!("expected one static `{method}` in `_UniffiFfiConverter{converter}`, found {found}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONVERTER: &str = "\nclass _UniffiFfiConverterTypeLevel(_UniffiConverterRustBuffer):\n    @staticmethod\n    def check_lower(value):\n        return\n\n    @staticmethod\n    def write(value, buf):\n        buf.write_i32(1)\n";

    #[test]
    fn a_converter_of_the_expected_shape_is_accepted() {
        assert_eq!(check_converter(CONVERTER, "TypeLevel"), Ok(()));
    }

    #[test]
    fn a_changed_converter_fails_the_build() {
        let classmethod = CONVERTER.replace("    @staticmethod\n    def write", "    @classmethod\n    def write");
        assert!(check_converter(&classmethod, "TypeLevel").is_err());
        assert!(check_converter(&format!("{CONVERTER}{CONVERTER}"), "TypeLevel").is_err());
    }
}
