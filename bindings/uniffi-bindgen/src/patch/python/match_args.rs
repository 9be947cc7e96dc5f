//! Python: enum variants with fields take positional `match` patterns.
//!
//! UniFFI's variant classes are dataclasses without annotated fields, so their
//! `__match_args__` is empty and `case PaymentCheck.MISMATCH(transaction, field, expected,
//! actual)` raises `TypeError` (keyword patterns work). Each variant class with named fields
//! gets `__match_args__`, its fields in declaration order, in the `type(...)` call that makes
//! it a subclass of its enum: the class users see. The declarations (`python_stub.rs`) declare
//! the same tuples, from the same function.

use std::path::Path;

use uniffi_bindgen::pipeline::general::{Enum, FieldsKind, TypeDefinition};

use crate::patch::replace_exactly;
use crate::python_stub::{self, python};

pub fn patch(mut text: String, library: &Path) -> Result<String, String> {
    let module = python_stub::interface(library)?;
    for definition in &module.type_definitions {
        let TypeDefinition::Enum(enumeration) = definition else { continue };
        let name = &python::type_name(&enumeration.name);
        for (variant, fields) in of_variants(enumeration) {
            let subclass = format!("{name}.{variant} = type(\"{name}.{variant}\", ({name}.{variant}, {name},), ");
            text = replace_exactly(
                &text,
                &format!("{subclass}{{}})"),
                &format!("{subclass}{{\"__match_args__\": {}}})", tuple(&fields)),
                1,
                &format!("the subclass of {name}.{variant}"),
            )?;
        }
    }
    Ok(text)
}

/// The variants that get `__match_args__` (those of enums with data, not errors, with named
/// fields), with their fields' Python names.
pub fn of_variants(enumeration: &Enum) -> Vec<(String, Vec<String>)> {
    if enumeration.is_flat || enumeration.self_type.is_used_as_error {
        return Vec::new();
    }
    enumeration
        .variants
        .iter()
        .filter(|variant| matches!(variant.fields_kind, FieldsKind::Named) && !variant.fields.is_empty())
        .map(|variant| {
            let fields = variant.fields.iter().map(|field| python::var_name(&field.name)).collect();
            (python::variant_name(&variant.name), fields)
        })
        .collect()
}

/// A Python tuple of the names: `("value",)`, `("a", "b")`.
pub fn tuple(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("\"{name}\"")).collect();
    match quoted.as_slice() {
        [one] => format!("({one},)"),
        many => format!("({})", many.join(", ")),
    }
}
