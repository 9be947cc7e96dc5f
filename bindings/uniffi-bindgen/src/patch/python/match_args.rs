//! Python: enum variants with fields take positional `match` patterns.
//!
//! UniFFI's variant classes are dataclasses without annotated fields, so their
//! `__match_args__` is empty and `case PaymentCheck.MISMATCH(transaction, field, expected,
//! actual)` raises `TypeError` (keyword patterns work). Each variant class with named fields
//! gets `__match_args__`, its fields in declaration order, in the class dict of the
//! `type(...)` call that makes it a subclass of its enum: the class users see. (Applied after
//! the patches that change that call; it adds to the dict, whatever is in it.) The declarations (`python_stub.rs`) declare
//! the same tuples, from the same function.

use std::path::Path;

use uniffi_bindgen::pipeline::general::{Enum, FieldsKind, TypeDefinition};

use crate::python_stub::{self, python};

pub fn patch(mut text: String, library: &Path) -> Result<String, String> {
    let module = python_stub::interface(library)?;
    for definition in &module.type_definitions {
        let TypeDefinition::Enum(enumeration) = definition else { continue };
        let name = python::type_name(&enumeration.name);
        for (variant, fields) in of_variants(enumeration) {
            add(&mut text, &name, &variant, &fields)?;
        }
    }
    Ok(text)
}

/// Puts `__match_args__` into the class dict of the `type(...)` call that makes `name.variant`,
/// whatever other patches put there.
fn add(text: &mut String, name: &str, variant: &str, fields: &[String]) -> Result<(), String> {
    let subclass = format!("{name}.{variant} = type(\"{name}.{variant}\", ({name}.{variant}, {name},), {{");
    let at = match text.matches(&subclass).count() {
        1 => text.find(&subclass).expect("counted") + subclass.len(),
        found => return Err(format!("expected one subclass of {name}.{variant}, found {found}")),
    };
    let separator = if text[at..].starts_with('}') { "" } else { ", " };
    text.insert_str(at, &format!("\"__match_args__\": {}{separator}", tuple(fields)));
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::add;

    #[test]
    fn match_args_join_the_class_dict_whatever_it_holds() {
        let fields = ["value".to_owned()];
        let generated = r#"E.V = type("E.V", (E.V, E,), {})  # type: ignore"#;
        let mut empty = generated.to_owned();
        add(&mut empty, "E", "V", &fields).unwrap();
        assert_eq!(empty, r#"E.V = type("E.V", (E.V, E,), {"__match_args__": ("value",)})  # type: ignore"#);
        let mut hashed = r#"E.V = type("E.V", (E.V, E,), {"__hash__": h})"#.to_owned();
        add(&mut hashed, "E", "V", &fields).unwrap();
        assert_eq!(hashed, r#"E.V = type("E.V", (E.V, E,), {"__match_args__": ("value",), "__hash__": h})"#);
        // The shape is checked: no such call, or two, fails the build.
        assert!(add(&mut "E.V = E".to_owned(), "E", "V", &fields).is_err());
        assert!(add(&mut format!("{generated}\n{generated}"), "E", "V", &fields).is_err());
    }
}
