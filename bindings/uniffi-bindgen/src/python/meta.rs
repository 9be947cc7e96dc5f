//! `sika_ffi_meta.py`: the lists Sika's Python runtime (`sika/_runtime/`) works through,
//! derived from the library's metadata on every build: a new function, object, record or
//! enum joins them without an edit (ADR 0033). Pure data: names of the generated module.

use uniffi_bindgen::pipeline::general::{
    Callable, Enum, FfiDefinition, FfiFunctionKind, Method, Namespace, Type, TypeDefinition, UniffiTraitMethods,
};

use super::{added, match_args, string, tuple};
use crate::python_stub::python;

pub const FILE_NAME: &str = "sika_ffi_meta.py";

pub fn module(namespace: &Namespace) -> Result<String, String> {
    let mut errors = Vec::new();
    let mut error_defaults = Vec::new();
    let mut objects = Vec::new();
    let mut records = Vec::new();
    let mut object_fields = Vec::new();
    let mut field_docs = Vec::new();
    let mut data_enums = Vec::new();
    let mut text_enums = Vec::new();
    let mut match_args = Vec::new();
    let mut enum_writes = Vec::new();
    for definition in &namespace.type_definitions {
        match definition {
            TypeDefinition::Interface(interface) => objects.push(python::type_name(&interface.name)),
            TypeDefinition::Record(record) if !record.fields.is_empty() => {
                let class = python::type_name(&record.name);
                let to_json = record.methods.iter().any(|method| method.callable.name == "to_json");
                records.push(format!("    ({}, {}),\n", string(&class)?, if to_json { "True" } else { "False" }));
                let objects: Vec<String> = record
                    .fields
                    .iter()
                    .filter_map(|field| Some((field, object_of(&field.ty.ty)?)))
                    .map(|(field, (object, optional))| {
                        Ok(format!(
                            "({}, {}, {})",
                            string(&python::var_name(&field.name))?,
                            string(&python::type_name(object))?,
                            if optional { "True" } else { "False" }
                        ))
                    })
                    .collect::<Result<_, String>>()?;
                if !objects.is_empty() {
                    object_fields.push(format!("    {}: ({},),\n", string(&class)?, objects.join(", ")));
                }
                let documented: Vec<String> = record
                    .fields
                    .iter()
                    .filter_map(|field| Some((python::var_name(&field.name), field.docstring.as_deref()?.trim())))
                    .map(|(name, doc)| Ok(format!("({}, {})", string(&name)?, string(doc)?)))
                    .collect::<Result<_, String>>()?;
                if record.docstring.is_some() && !documented.is_empty() {
                    field_docs.push(format!("    {}: ({},),\n", string(&class)?, documented.join(", ")));
                }
            }
            TypeDefinition::Enum(enumeration) if enumeration.self_type.is_used_as_error => {
                errors.push(python::type_name(&enumeration.name));
                error_defaults.extend(defaulted_error_fields(enumeration)?);
            }
            TypeDefinition::Enum(enumeration) => {
                let class = python::type_name(&enumeration.name);
                let variants: Vec<String> =
                    enumeration.variants.iter().map(|variant| python::variant_name(&variant.name)).collect();
                if let Some(parser) = added::text_parser(namespace, &enumeration.name) {
                    if enumeration.is_flat || enumeration.uniffi_trait_methods.display_fmt.is_none() {
                        return Err(format!("`{class}` has `{parser}` but is flat or does not export Display"));
                    }
                    let parser = string(&python::var_name(&parser))?;
                    text_enums.push(format!("    {}: ({parser}, {}),\n", string(&class)?, tuple(&variants)?));
                } else if !enumeration.is_flat {
                    data_enums.push(format!("    {}: {},\n", string(&class)?, tuple(&variants)?));
                }
                for (variant, fields) in match_args::of_variants(enumeration) {
                    match_args.push(format!(
                        "    ({}, {}): {},\n",
                        string(&class)?,
                        string(&variant)?,
                        tuple(&fields)?
                    ));
                }
                let fieldless: Vec<String> = enumeration
                    .variants
                    .iter()
                    .filter(|variant| variant.fields.is_empty())
                    .map(|variant| python::variant_name(&variant.name))
                    .collect();
                if !fieldless.is_empty() {
                    enum_writes.push(format!(
                        "    ({}, {}, {}, {}),\n",
                        string(&enumeration.self_type.canonical_name)?,
                        string(&class)?,
                        if enumeration.is_flat { "True" } else { "False" },
                        tuple(&fieldless)?
                    ));
                }
            }
            _ => {}
        }
    }
    let gil: Vec<String> =
        functions_keeping_the_gil(namespace)?.iter().map(|name| format!("    \"{name}\",\n")).collect();
    Ok(format!(
        r#""""The lists Sika's runtime (sika/_runtime) works through, derived from the library's metadata.

Generated with the bindings by the project's uniffi-bindgen (bindings/uniffi-bindgen/src/python/meta.rs);
not edited by hand (ADR 0033).
"""

# The library functions called with the GIL held (sika/_runtime/gil.py), by the rule of ADR 0033.
FUNCTIONS_KEEPING_THE_GIL = (
{gil})

# The error classes (errors.py) and the objects (objects.py, lifecycle.py).
ERRORS = {errors}
OBJECTS = {objects}

# The last fields of error variants that are optional (`request_id`, ...): the constructor
# defaults them to None, `(error, variant): (field, ...)` (errors.py).
ERROR_DEFAULTS = {{
{error_defaults}}}

# The records with fields, and whether each has the core's `to_json()` (records.py).
RECORDS = (
{records})

# The fields of records that hold an object (a `SecretUrl`, a `SecretKey`, a `Cancellation`):
# `(field, object class, whether None is allowed)` (records.py refuses anything else at once).
OBJECT_FIELDS = {{
{object_fields}}}

# The documented fields of each documented record, `(name, doc)` in declaration order.
FIELD_DOCS = {{
{field_docs}}}

# The enums with data whose values are not text: their variants, made dataclasses.
DATA_ENUMS = {{
{data_enums}}}

# The enums whose values are the service's text: the core's parser of the text, the variants.
TEXT_ENUMS = {{
{text_enums}}}

# The fields of each variant with named fields, for positional `match` patterns.
MATCH_ARGS = {{
{match_args}}}

# The enums with fieldless variants, whose bytes are encoded once (enum_writes.py):
# (converter, class, whether it is a flat `enum.Enum`, the fieldless variants).
ENUM_WRITES = (
{enum_writes})
"#,
        gil = gil.concat(),
        errors = tuple(&errors)?,
        error_defaults = error_defaults.concat(),
        objects = tuple(&objects)?,
        records = records.concat(),
        object_fields = object_fields.concat(),
        field_docs = field_docs.concat(),
        data_enums = data_enums.concat(),
        text_enums = text_enums.concat(),
        match_args = match_args.concat(),
        enum_writes = enum_writes.concat(),
    ))
}

/// The object a field holds (its class's name), and whether it is optional: `Arc<T>` or
/// `Option<Arc<T>>` of an exported object `T`.
fn object_of(ty: &Type) -> Option<(&str, bool)> {
    match ty {
        Type::Interface { name, .. } => Some((name, false)),
        Type::Optional { inner_type } => match inner_type.as_ref() {
            Type::Interface { name, .. } => Some((name, true)),
            _ => None,
        },
        _ => None,
    }
}

/// The `ERROR_DEFAULTS` lines of an error: its variants' defaulted fields
/// (`crate::error_defaults`), which the constructor then defaults to None.
fn defaulted_error_fields(error: &Enum) -> Result<Vec<String>, String> {
    crate::error_defaults::of_error(error)
        .iter()
        .map(|defaulted| {
            let fields: Vec<String> = defaulted.fields.iter().map(|field| python::var_name(field)).collect();
            Ok(format!(
                "    ({}, {}): {},\n",
                string(&python::type_name(defaulted.error))?,
                string(&python::type_name(defaulted.variant))?,
                tuple(&fields)?
            ))
        })
        .collect()
}

/// The functions that never wait, so they keep the GIL (ADR 0032, 0033), by this rule:
/// - UniFFI's scaffolding of the futures (`rust_future_{poll,cancel,complete,free}_*`) and of
///   the buffers (`rustbuffer_*`);
/// - the async methods of objects: they only make the call's future (its work runs on the
///   SDK's threads);
/// - the methods of records and enums (`is_final`, `to_json`, `Display`): they compute from
///   the value;
/// - the free functions that take at least one argument, none of them an object or a callback
///   interface, and return a value: parsers, decoders and lookups, which compute from their
///   arguments. I/O belongs to the clients (objects), whose sync methods, constructors and
///   frees release the GIL; so do the functions that set or read process-wide state (they take
///   no argument or return nothing: the logging setup, whose close waits for sink calls that
///   need the GIL, the host runtime's report) and whatever takes a callback.
fn functions_keeping_the_gil(namespace: &Namespace) -> Result<Vec<String>, String> {
    let mut keep: Vec<&Callable> = Vec::new();
    let trait_methods = |methods: &UniffiTraitMethods| -> Vec<Method> {
        [&methods.debug_fmt, &methods.display_fmt, &methods.eq_eq, &methods.eq_ne, &methods.hash_hash, &methods.ord_cmp]
            .into_iter()
            .flatten()
            .cloned()
            .collect()
    };
    let mut value_methods = Vec::new();
    for definition in &namespace.type_definitions {
        match definition {
            TypeDefinition::Interface(interface) => {
                keep.extend(interface.methods.iter().map(|m| &m.callable).filter(|c| c.async_data.is_some()));
            }
            TypeDefinition::Record(record) => {
                value_methods.extend(record.methods.iter().cloned());
                value_methods.extend(trait_methods(&record.uniffi_trait_methods));
            }
            TypeDefinition::Enum(enumeration) => {
                value_methods.extend(enumeration.methods.iter().cloned());
                value_methods.extend(trait_methods(&enumeration.uniffi_trait_methods));
            }
            _ => {}
        }
    }
    keep.extend(value_methods.iter().map(|m| &m.callable).filter(|c| c.async_data.is_none()));
    keep.extend(namespace.functions.iter().map(|f| &f.callable).filter(|c| computes(c)));
    let mut names: Vec<String> = keep.iter().map(|callable| callable.ffi_func.0.clone()).collect();
    let mut scaffolding = 0;
    for definition in &namespace.ffi_definitions {
        let FfiDefinition::RustFunction(function) = definition else { continue };
        use FfiFunctionKind::*;
        if matches!(
            function.kind,
            RustFuturePoll
                | RustFutureComplete
                | RustFutureCancel
                | RustFutureFree
                | RustBufferFromBytes
                | RustBufferFree
                | RustBufferAlloc
                | RustBufferReserve
        ) {
            names.push(function.name.0.clone());
            scaffolding += 1;
        }
    }
    if scaffolding == 0 || !keep.iter().any(|callable| callable.async_data.is_some()) {
        return Err("expected the futures' scaffolding and async methods in the interface".to_owned());
    }
    names.sort();
    names.dedup();
    Ok(names)
}

/// A free function that computes a value from plain arguments (see above).
fn computes(callable: &Callable) -> bool {
    callable.async_data.is_none()
        && !callable.arguments.is_empty()
        && callable.arguments.iter().all(|argument| plain(&argument.ty.ty))
        && callable.return_type.ty.as_ref().is_some_and(|ty| plain(&ty.ty))
}

/// A value that is no object and no callback interface, nor holds one directly.
fn plain(ty: &Type) -> bool {
    match ty {
        Type::Interface { .. } | Type::CallbackInterface { .. } => false,
        Type::Optional { inner_type }
        | Type::Sequence { inner_type }
        | Type::Box { inner_type }
        | Type::Set { inner_type } => plain(inner_type),
        Type::Map { key_type, value_type } => plain(key_type) && plain(value_type),
        _ => true,
    }
}
