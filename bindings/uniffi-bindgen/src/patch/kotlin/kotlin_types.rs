//! Kotlin's spelling of the library's metadata, as UniFFI 0.32's Kotlin generator writes it: the
//! names, types, defaults, `@Throws` errors and documentation comments of its declarations.
//! The files Sika writes beside `sika_ffi.kt` (`BlockingClient.kt`, `BlockingLedger.kt`,
//! `Sika.kt`) repeat those declarations from the metadata (UniFFI's "general" pipeline for
//! Kotlin, so `[bindings.kotlin]`'s renames and exclusions apply), not from the generated text,
//! so that they cannot drift from the metadata and need no parser of Kotlin. What they write must
//! still be what `sika_ffi.kt` declares, byte for byte, or the calls into it do not compile: each
//! rule below follows UniFFI's `bindings/kotlin/gen_kotlin` (`type_label`, `default`,
//! `class_name`, the `docstring` filter). A type or default it has no rule for is refused, with
//! its name, never guessed.

use std::collections::BTreeSet;

use heck::{ToLowerCamelCase, ToShoutySnakeCase, ToUpperCamelCase};
use uniffi_bindgen::pipeline::general::{
    Argument, Callable, DefaultValue, Literal, Namespace, Radix, Type, TypeDefinition,
};

/// The named types of one namespace, as Kotlin calls them.
pub struct KotlinTypes {
    /// The names the namespace defines (records, enums, objects, callback interfaces, custom
    /// types): a named type outside them (another crate's) has no rule here.
    defined: BTreeSet<String>,
    /// The types used as errors: Kotlin names them `...Exception` instead of `...Error`.
    errors: BTreeSet<String>,
}

impl KotlinTypes {
    pub fn of_namespace(namespace: &Namespace) -> Self {
        let mut defined = BTreeSet::new();
        let mut errors = BTreeSet::new();
        for definition in &namespace.type_definitions {
            let (name, used_as_error) = match definition {
                TypeDefinition::Record(record) => (&record.name, record.self_type.is_used_as_error),
                TypeDefinition::Enum(enumeration) => (&enumeration.name, enumeration.self_type.is_used_as_error),
                TypeDefinition::Interface(interface) => (&interface.name, interface.self_type.is_used_as_error),
                TypeDefinition::CallbackInterface(callback) => (&callback.name, false),
                TypeDefinition::Custom(custom) => (&custom.name, false),
                _ => continue,
            };
            defined.insert(name.clone());
            if used_as_error {
                errors.insert(name.clone());
            }
        }
        Self { defined, errors }
    }

    /// The Kotlin type of `ty` (`kotlin.String`, `List<Bank>`, `SikaException`, `Transaction?`).
    pub fn type_label(&self, ty: &Type) -> Result<String, String> {
        Ok(match ty {
            Type::UInt8 => "kotlin.UByte".to_owned(),
            Type::Int8 => "kotlin.Byte".to_owned(),
            Type::UInt16 => "kotlin.UShort".to_owned(),
            Type::Int16 => "kotlin.Short".to_owned(),
            Type::UInt32 => "kotlin.UInt".to_owned(),
            Type::Int32 => "kotlin.Int".to_owned(),
            Type::UInt64 => "kotlin.ULong".to_owned(),
            Type::Int64 => "kotlin.Long".to_owned(),
            Type::Float32 => "kotlin.Float".to_owned(),
            Type::Float64 => "kotlin.Double".to_owned(),
            Type::Boolean => "kotlin.Boolean".to_owned(),
            Type::String => "kotlin.String".to_owned(),
            Type::Bytes => "kotlin.ByteArray".to_owned(),
            Type::Timestamp => "java.time.Instant".to_owned(),
            Type::Duration => "java.time.Duration".to_owned(),
            Type::Optional { inner_type } => format!("{}?", self.type_label(inner_type)?),
            Type::Sequence { inner_type } => format!("List<{}>", self.type_label(inner_type)?),
            Type::Set { inner_type } => format!("Set<{}>", self.type_label(inner_type)?),
            Type::Map { key_type, value_type } => {
                format!("Map<{}, {}>", self.type_label(key_type)?, self.type_label(value_type)?)
            }
            Type::Box { inner_type } => self.type_label(inner_type)?,
            // A custom type is its `typealias` (or, with a configured `type_name`, that name's
            // alias): the generated code names it as declared.
            Type::Record { name, .. }
            | Type::Enum { name, .. }
            | Type::Interface { name, .. }
            | Type::CallbackInterface { name, .. }
            | Type::Custom { name, .. } => self.class_name(name)?,
        })
    }

    /// UniFFI's `class_name`: upper camel case, and an error's `Error` suffix as `Exception`.
    fn class_name(&self, name: &str) -> Result<String, String> {
        if !self.defined.contains(name) {
            return Err(format!(
                "the type `{name}` is not defined by this library (another crate's?): no Kotlin name for it here"
            ));
        }
        let class = name.to_upper_camel_case();
        Ok(match class.strip_suffix("Error") {
            Some(stem) if self.errors.contains(name) => format!("{stem}Exception"),
            _ => class,
        })
    }

    /// The Kotlin literal of `default` for a parameter of type `ty` (`null`, `listOf()`, `3L`,
    /// `ClientOptions()`).
    pub fn default_value(&self, ty: &Type, default: &DefaultValue) -> Result<String, String> {
        let refused =
            || format!("no Kotlin default for `{default:?}` of `{}`", self.type_label(ty).unwrap_or_default());
        // The type's own default, or the literal of that kind (`None`, `[]`, `{}`).
        let own = |empty: &Literal| match default {
            DefaultValue::Default(_) => true,
            DefaultValue::Literal(literal) => std::mem::discriminant(literal) == std::mem::discriminant(empty),
        };
        match ty {
            Type::Box { inner_type } => self.default_value(inner_type, default),
            Type::Custom { builtin, .. } => self.default_value(builtin, default),
            Type::Optional { inner_type } => match default {
                DefaultValue::Literal(Literal::Some { inner }) => self.default_value(inner_type, inner),
                _ if own(&Literal::None) => Ok("null".to_owned()),
                _ => Err(refused()),
            },
            Type::Sequence { .. } if own(&Literal::EmptySequence) => Ok("listOf()".to_owned()),
            Type::Map { .. } if own(&Literal::EmptyMap) => Ok("mapOf()".to_owned()),
            Type::Set { .. } if own(&Literal::EmptySet) => Ok("setOf()".to_owned()),
            Type::Sequence { .. } | Type::Map { .. } | Type::Set { .. } => Err(refused()),
            // An enum's default names its variant; it has no default of its own.
            Type::Enum { .. } => match default {
                DefaultValue::Literal(Literal::Enum(variant, _)) => {
                    Ok(format!("{}.{}", self.type_label(ty)?, variant.to_shouty_snake_case()))
                }
                _ => Err(refused()),
            },
            // Any other named type's default is its constructor with no arguments.
            Type::Record { .. } | Type::Interface { .. } | Type::CallbackInterface { .. } => match default {
                DefaultValue::Default(_) => Ok(format!("{}()", self.type_label(ty)?)),
                DefaultValue::Literal(_) => Err(refused()),
            },
            Type::Timestamp | Type::Duration => Err(refused()),
            _ => match default {
                DefaultValue::Default(_) => primitive_default(ty).map(str::to_owned).ok_or_else(refused),
                DefaultValue::Literal(literal) => literal_value(literal).ok_or_else(refused),
            },
        }
    }

    /// The callable's declaration in `sika_ffi.kt`, in Kotlin's words.
    pub fn signature(&self, callable: &Callable) -> Result<Signature, String> {
        let name = member_name(&callable.name);
        let within = |error: String| format!("`{name}`: {error}");
        let parameters = callable
            .arguments
            .iter()
            .map(|argument| self.parameter(argument))
            .collect::<Result<_, _>>()
            .map_err(within)?;
        let result = match &callable.return_type.ty {
            Some(ty) => self.type_label(&ty.ty).map_err(within)?,
            None => "Unit".to_owned(),
        };
        let throws = callable.throws_type.ty.as_ref().map(|ty| self.type_label(&ty.ty)).transpose().map_err(within)?;
        Ok(Signature { name, parameters, result, throws, suspends: callable.async_data.is_some() })
    }

    fn parameter(&self, argument: &Argument) -> Result<Parameter, String> {
        // A borrowed `&[u8]` is lowered from the one Kotlin type JNA can point into.
        let ty = if argument.is_borrowed_bytes() {
            "java.nio.ByteBuffer".to_owned()
        } else {
            self.type_label(&argument.ty.ty)?
        };
        let default = argument.default.as_ref().map(|d| self.default_value(&argument.ty.ty, d)).transpose()?;
        Ok(Parameter { name: member_name(&argument.name), ty, default })
    }
}

/// A function's, method's or constructor's declaration, as `sika_ffi.kt` writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    /// Lower camel case, without backticks.
    pub name: String,
    pub parameters: Vec<Parameter>,
    /// `Unit` when it returns nothing.
    pub result: String,
    /// The error class of its `@Throws`.
    pub throws: Option<String>,
    pub suspends: bool,
}

impl Signature {
    /// A test's signature as the metadata gives it: `(name, Kotlin type, default)` parameters;
    /// it throws `SikaException` when `throws`.
    #[cfg(test)]
    pub fn of(
        name: &str,
        parameters: &[(&str, &str, Option<&str>)],
        result: &str,
        throws: bool,
        suspends: bool,
    ) -> Self {
        Self {
            name: name.to_owned(),
            parameters: parameters
                .iter()
                .map(|(name, ty, default)| Parameter {
                    name: (*name).to_owned(),
                    ty: (*ty).to_owned(),
                    default: default.map(str::to_owned),
                })
                .collect(),
            result: result.to_owned(),
            throws: throws.then(|| "SikaException".to_owned()),
            suspends,
        }
    }
}

/// One parameter: its name (lower camel case, without backticks), Kotlin type and default.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub ty: String,
    pub default: Option<String>,
}

impl Parameter {
    /// `` `name`: Type `` with ` = default` when it has one.
    pub fn declared(&self) -> String {
        let default = self.default.as_ref().map(|d| format!(" = {d}")).unwrap_or_default();
        format!("`{}`: {}{default}", self.name, self.ty)
    }
}

impl Signature {
    /// The parameter list, as declared: `` `a`: A, `b`: B? = null ``.
    pub fn parameters(&self) -> String {
        self.parameters.iter().map(Parameter::declared).collect::<Vec<_>>().join(", ")
    }

    /// The parameters passed on by name: `` `a`, `b` ``.
    pub fn arguments(&self) -> String {
        self.parameters.iter().map(|p| format!("`{}`", p.name)).collect::<Vec<_>>().join(", ")
    }

    /// Whether a Java caller needs `@JvmOverloads`: a parameter has a default.
    pub fn has_defaults(&self) -> bool {
        self.parameters.iter().any(|p| p.default.is_some())
    }
}

/// A function's, method's or parameter's Kotlin name, without its backticks.
fn member_name(name: &str) -> String {
    name.to_lower_camel_case()
}

/// The documentation comment of a member of an object, indented by four spaces: UniFFI's
/// (the docstring dedented, each line after ` * `), without trailing spaces.
pub fn doc_comment(docstring: &str) -> String {
    let mut comment = "    /**\n".to_owned();
    for line in textwrap::dedent(docstring).split_terminator('\n') {
        comment.push_str(&format!("     {}\n", format!("* {line}").trim_end()));
    }
    comment.push_str("     */\n");
    comment
}

/// A builtin type's own default.
fn primitive_default(ty: &Type) -> Option<&'static str> {
    Some(match ty {
        Type::Boolean => "false",
        Type::String => "\"\"",
        Type::Bytes => "byteArrayOf()",
        Type::Int8 => "0.toByte()",
        Type::Int16 | Type::Int32 => "0",
        Type::Int64 => "0L",
        Type::UInt8 | Type::UInt16 | Type::UInt32 => "0U",
        Type::UInt64 => "0UL",
        Type::Float32 => "0.0f",
        Type::Float64 => "0.0",
        _ => return None,
    })
}

/// A literal default: a boolean, a string or a number with Kotlin's suffix for its type.
fn literal_value(literal: &Literal) -> Option<String> {
    let number = |digits: String, ty: &Type| {
        let ty = match ty {
            Type::Optional { inner_type } => inner_type.as_ref(),
            other => other,
        };
        let suffix = match ty {
            Type::Int8 | Type::Int16 | Type::Int32 | Type::Float64 => "",
            Type::Int64 => "L",
            Type::UInt8 | Type::UInt16 | Type::UInt32 => "u",
            Type::UInt64 => "uL",
            Type::Float32 => "f",
            _ => return None,
        };
        Some(format!("{digits}{suffix}"))
    };
    // UniFFI writes an octal literal in hexadecimal: Kotlin has no octal literals.
    let radix = |decimal: String, hexadecimal: String, radix: &Radix| match radix {
        Radix::Decimal => decimal,
        Radix::Octal | Radix::Hexadecimal => hexadecimal,
    };
    match literal {
        Literal::Boolean(value) => Some(value.to_string()),
        Literal::String(text) => Some(format!("\"{text}\"")),
        Literal::Int(value, base, ty) => number(radix(value.to_string(), format!("{value:#x}"), base), &ty.ty),
        Literal::UInt(value, base, ty) => number(radix(value.to_string(), format!("{value:#x}"), base), &ty.ty),
        Literal::Float(digits, ty) => number(digits.clone(), &ty.ty),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{KotlinTypes, doc_comment};
    use uniffi_bindgen::pipeline::general::{DefaultValue, FfiType, Literal, ObjectImpl, Radix, Type, TypeNode};

    /// A namespace defining `defined` and `errors`, the latter used as errors.
    fn types(defined: &[&str], errors: &[&str]) -> KotlinTypes {
        KotlinTypes {
            defined: defined.iter().chain(errors).map(|name| (*name).to_owned()).collect(),
            errors: errors.iter().map(|name| (*name).to_owned()).collect(),
        }
    }

    fn record(name: &str) -> Type {
        Type::Record { namespace: "sika_core".to_owned(), name: name.to_owned(), orig_name: name.to_owned() }
    }

    fn enumeration(name: &str) -> Type {
        Type::Enum { namespace: "sika_core".to_owned(), name: name.to_owned(), orig_name: name.to_owned() }
    }

    fn boxed(ty: Type) -> Box<Type> {
        Box::new(ty)
    }

    fn node(ty: Type) -> TypeNode {
        TypeNode { canonical_name: String::new(), id: 0, is_used_as_error: false, ffi_type: FfiType::Int8, ty }
    }

    #[test]
    fn b176_kotlin_type_names_are_uniffis() {
        let types = types(&["Transaction", "Client", "Amount", "LogLevel"], &["SikaError"]);
        let cases = [
            (Type::String, "kotlin.String"),
            (Type::UInt64, "kotlin.ULong"),
            (Type::Int32, "kotlin.Int"),
            (Type::Bytes, "kotlin.ByteArray"),
            (Type::Timestamp, "java.time.Instant"),
            (Type::Duration, "java.time.Duration"),
            (Type::Sequence { inner_type: boxed(record("Transaction")) }, "List<Transaction>"),
            (
                Type::Map { key_type: boxed(Type::String), value_type: boxed(Type::String) },
                "Map<kotlin.String, kotlin.String>",
            ),
            (Type::Set { inner_type: boxed(Type::Int64) }, "Set<kotlin.Long>"),
            (Type::Optional { inner_type: boxed(record("Transaction")) }, "Transaction?"),
            (Type::Box { inner_type: boxed(record("Transaction")) }, "Transaction"),
            (
                Type::Interface {
                    namespace: "sika_core".to_owned(),
                    name: "Client".to_owned(),
                    orig_name: "Client".to_owned(),
                    imp: ObjectImpl::Struct,
                },
                "Client",
            ),
            // A custom type is its alias, whatever Kotlin type the configuration maps it to.
            (
                Type::Custom {
                    namespace: "sika_core".to_owned(),
                    name: "Amount".to_owned(),
                    orig_name: "Amount".to_owned(),
                    builtin: boxed(Type::String),
                },
                "Amount",
            ),
            // An error's `Error` is Kotlin's `Exception`; an enum that is no error keeps its name.
            (enumeration("SikaError"), "SikaException"),
            (enumeration("LogLevel"), "LogLevel"),
        ];
        for (ty, kotlin) in cases {
            assert_eq!(types.type_label(&ty).unwrap(), kotlin, "{ty:?}");
        }
    }

    #[test]
    fn b176_a_type_it_does_not_know_is_refused_not_guessed() {
        let types = types(&["Transaction"], &[]);
        // Another crate's record (an external type): no rule says what Kotlin calls it.
        let error = types.type_label(&Type::Optional { inner_type: boxed(record("Refund")) }).unwrap_err();
        assert!(error.contains("the type `Refund` is not defined by this library"), "{error}");
    }

    #[test]
    fn b176_kotlin_defaults_are_uniffis() {
        let types = types(&["ClientOptions", "LogLevel"], &[]);
        let optional = |ty: Type| Type::Optional { inner_type: boxed(ty) };
        let literal = |literal: Literal| DefaultValue::Literal(literal);
        let own = |ty: &Type| DefaultValue::Default(node(ty.clone()));
        let cases = [
            (optional(Type::String), literal(Literal::None), "null"),
            (optional(Type::String), own(&optional(Type::String)), "null"),
            (Type::Sequence { inner_type: boxed(Type::String) }, literal(Literal::EmptySequence), "listOf()"),
            (
                Type::Map { key_type: boxed(Type::String), value_type: boxed(Type::String) },
                literal(Literal::EmptyMap),
                "mapOf()",
            ),
            (Type::UInt64, literal(Literal::UInt(30, Radix::Decimal, node(Type::UInt64))), "30uL"),
            (Type::Int64, literal(Literal::Int(-5, Radix::Decimal, node(Type::Int64))), "-5L"),
            (Type::UInt32, literal(Literal::UInt(255, Radix::Hexadecimal, node(Type::UInt32))), "0xffu"),
            (Type::Float32, literal(Literal::Float("1.5".to_owned(), node(Type::Float32))), "1.5f"),
            (Type::Boolean, literal(Literal::Boolean(true)), "true"),
            (Type::String, literal(Literal::String("ng".to_owned())), "\"ng\""),
            (Type::Int64, own(&Type::Int64), "0L"),
            (
                optional(Type::UInt32),
                literal(Literal::Some {
                    inner: Box::new(literal(Literal::UInt(3, Radix::Decimal, node(Type::UInt32)))),
                }),
                "3u",
            ),
            (record("ClientOptions"), own(&record("ClientOptions")), "ClientOptions()"),
            (
                enumeration("LogLevel"),
                literal(Literal::Enum("Warn".to_owned(), node(enumeration("LogLevel")))),
                "LogLevel.WARN",
            ),
        ];
        for (ty, default, kotlin) in cases {
            assert_eq!(types.default_value(&ty, &default).unwrap(), kotlin, "{ty:?} {default:?}");
        }
        // What UniFFI's Kotlin generator refuses is refused: a list's only default is empty, a
        // time has none, an enum names its variant.
        assert!(
            types
                .default_value(&Type::Sequence { inner_type: boxed(Type::String) }, &literal(Literal::EmptyMap))
                .is_err()
        );
        assert!(types.default_value(&Type::Timestamp, &own(&Type::Timestamp)).is_err());
        assert!(types.default_value(&enumeration("LogLevel"), &own(&enumeration("LogLevel"))).is_err());
        assert!(types.default_value(&optional(Type::UInt32), &literal(Literal::EmptySequence)).is_err());
    }

    #[test]
    fn b176_documentation_is_dedented_as_uniffi_writes_it() {
        let comment = doc_comment(" Decodes a response.\n\n   Indented: `x`.\n Last. ");
        assert_eq!(
            comment,
            "    /**\n     * Decodes a response.\n     *\n     *   Indented: `x`.\n     * Last.\n     */\n"
        );
    }
}
