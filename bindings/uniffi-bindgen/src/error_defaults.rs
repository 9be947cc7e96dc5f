//! The fields an error's constructor defaults, in every language: each variant's last fields
//! that are optional (`Option<T>`: `request_id`, `retry_after_seconds`), so that a merchant's
//! test double of an error is one line (issue 47, ADR 0092). UniFFI 0.32 refuses
//! `#[uniffi(default = ...)]` on an error's fields ("attribute arguments are not currently
//! recognized in this position"), so the rule is the type's: optional and at the end, where
//! Python's defaults and Java's `@JvmOverloads` constructors can leave them out.

use uniffi_bindgen::pipeline::general::{Enum, Field, Namespace, Type, TypeDefinition};

/// One variant of an error and its defaulted fields, in Rust's names.
pub struct Defaulted<'a> {
    pub error: &'a str,
    pub variant: &'a str,
    pub fields: Vec<&'a str>,
}

/// The defaulted fields of every error the namespace exports.
pub fn of_namespace(namespace: &Namespace) -> Vec<Defaulted<'_>> {
    namespace
        .type_definitions
        .iter()
        .filter_map(|definition| match definition {
            TypeDefinition::Enum(enumeration) if enumeration.self_type.is_used_as_error => Some(of_error(enumeration)),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The variants of `error` whose last fields are optional, with those fields.
pub fn of_error(error: &Enum) -> Vec<Defaulted<'_>> {
    error
        .variants
        .iter()
        .filter_map(|variant| {
            let fields: Vec<&str> = variant.fields[variant.fields.len() - trailing_optional(&variant.fields)..]
                .iter()
                .map(|field| field.name.as_str())
                .collect();
            (!fields.is_empty()).then_some(Defaulted { error: &error.name, variant: &variant.name, fields })
        })
        .collect()
}

/// How many of a variant's last fields are optional (`Option<T>`).
pub fn trailing_optional(fields: &[Field]) -> usize {
    fields.iter().rev().take_while(|field| matches!(field.ty.ty, Type::Optional { .. })).count()
}
