//! Python: enum variants with fields take positional `match` patterns.
//!
//! UniFFI's variant classes are dataclasses without annotated fields, so their
//! `__match_args__` is empty and `case PaymentCheck.MISMATCH(transaction, field, expected,
//! actual)` raises `TypeError` (keyword patterns work). Each variant class with named fields
//! gets `__match_args__`, its fields in declaration order: `sika_ffi_meta.MATCH_ARGS` lists
//! them (meta.rs), `sika/_runtime/records.py` sets them on the classes users see, and the
//! declarations (`python_stub.rs`) declare the same tuples, from the same function.

use uniffi_bindgen::pipeline::general::{Enum, FieldsKind};

use crate::python_stub::python;

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
