//! Python: a flat reader per returned type (ADR 0028).
//!
//! UniFFI's Python lifts a returned buffer one value at a time through converter classes: each
//! field is a method call, each integer a `struct.unpack` of a fresh slice of a ctypes pointer,
//! each string two reads; a full `Transaction` costs several times the constructors it ends in.
//! Here every record, enum (not errors), optional, sequence and map of the interface gets a
//! reader function generated from the interface's metadata (so a new field changes its reader):
//! it takes the buffer's bytes (one copy of the `RustBuffer`) and an offset, and returns the
//! value and the offset after it. Runs of fixed-size fields are one precompiled `struct.Struct`,
//! strings and optionals are read inline, so are enums whose fields are numbers and text, custom
//! types apply their `lift` expression from `uniffi.toml` inline, and the objects are built by
//! the same calls UniFFI's `read` makes, with the same arguments, except records: a record
//! that holds no object is the instance UniFFI's `__init__` makes (each field set in order),
//! made without calling it (`object.__new__`, then its fields' dict in one update: the
//! `__init__` and the runtime's float check around it were a fifth of a `Transaction`'s lift,
//! issue 45, ADR 0087); a record holding an object is built by its constructor, which checks
//! what it is given (sika/_runtime/records.py). Each such converter's `lift`
//! and `read` become the reader's (`sika/_runtime/readers.py` wires them, into a module of
//! their own, `sika_ffi_readers.py`, ADR 0033); UniFFI's `read` is kept, and
//! `sika._runtime.readers.use_flat_readers(False)` puts it back (the B58 test compares both on
//! every fixture). Types the readers do not know (objects, callback interfaces, builtin times and
//! durations, errors) are read by their generated converter.

use std::collections::{BTreeMap, BTreeSet};

use uniffi_bindgen::pipeline::general::{Enum, Field, Namespace, Type, TypeDefinition};

use crate::python_stub::python;

pub const FILE_NAME: &str = "sika_ffi_readers.py";

/// The readers module's text: a reader per type, and `READERS`, which `sika/_runtime/readers.py`
/// wires into the converters (checking each converter's shape there).
pub fn module(namespace: &Namespace) -> Result<String, String> {
    let errors = namespace.type_definitions.iter().filter_map(|definition| match definition {
        TypeDefinition::Enum(enumeration) if enumeration.self_type.is_used_as_error => Some(enumeration.name.clone()),
        _ => None,
    });
    let inline_enums = namespace.type_definitions.iter().filter_map(|definition| match definition {
        TypeDefinition::Enum(enumeration)
            if !enumeration.self_type.is_used_as_error
                && enumeration
                    .variants
                    .iter()
                    .flat_map(|variant| &variant.fields)
                    .all(|field| simple(&field.ty.ty)) =>
        {
            Some((enumeration.name.clone(), enumeration.clone()))
        }
        _ => None,
    });
    let mut generator = Generator {
        lifts: custom_lifts(namespace)?,
        errors: errors.collect(),
        inline_enums: inline_enums.collect(),
        ..Generator::default()
    };
    for definition in &namespace.type_definitions {
        generator.definition(definition)?;
    }
    let mut text = String::from(HEADER);
    let mut imports: Vec<String> =
        python::custom_types(namespace)?.values().flat_map(|custom| custom.imports.iter().cloned()).collect();
    imports.sort();
    imports.dedup();
    for import in imports {
        text.push_str(&format!("{}\n", python::import_statement(&import)));
    }
    text.push_str("\nfrom .._runtime.readers import read_generated as _uniffi_sika_read_generated\n");
    text.push_str("_uniffi_sika_new = object.__new__\n");
    text.push_str("from .sika_ffi import (\n    InternalError,\n");
    for name in &generator.names {
        text.push_str(&format!("    {name},\n"));
    }
    text.push_str(")\n\n");
    for format in &generator.structs {
        let name = struct_name(format);
        text.push_str(&format!("{name} = struct.Struct(\">{format}\")\n"));
    }
    text.push_str(&generator.code);
    text.push_str("\n\n# Each converter whose `lift` and `read` become the reader's.\nREADERS = (\n");
    for converter in &generator.wired {
        text.push_str(&format!("    (\"{converter}\", _uniffi_sika_read_{converter}),\n"));
    }
    text.push_str(")\n");
    Ok(text)
}

/// `[bindings.python.custom_types.NAME] lift` of `uniffi.toml`: the expression UniFFI's
/// converter applies to the builtin value (`{}`); none means the builtin value itself.
fn custom_lifts(namespace: &Namespace) -> Result<BTreeMap<String, String>, String> {
    let mut lifts = BTreeMap::new();
    let Some(config) = namespace.config_toml.as_deref() else { return Ok(lifts) };
    let config: toml::Table = toml::from_str(config).map_err(|e| format!("reading uniffi.toml: {e}"))?;
    let custom_types = ["bindings", "python", "custom_types"]
        .iter()
        .try_fold(&config, |table, key| table.get(*key).and_then(toml::Value::as_table));
    for (name, custom) in custom_types.into_iter().flatten() {
        if let Some(lift) = custom.get("lift").and_then(toml::Value::as_str) {
            lifts.insert(name.clone(), lift.to_owned());
        }
    }
    Ok(lifts)
}

#[derive(Default)]
struct Generator {
    lifts: BTreeMap<String, String>,
    /// The converters (canonical names) whose `lift`/`read` become a reader, in order.
    wired: Vec<String>,
    /// Struct formats used (without the `>`), each one module constant.
    structs: BTreeSet<String>,
    /// The enums whose errors keep their generated reader.
    errors: BTreeSet<String>,
    /// The enums read inline where they occur (their fields are strings and numbers).
    inline_enums: BTreeMap<String, Enum>,
    /// Locals numbered across the module, so inlined reads never reuse a name.
    locals: usize,
    code: String,
    /// The generated module's names the readers use (classes, converters), imported from it.
    names: BTreeSet<String>,
}

/// The module constant of a `struct` format (`?`, a boolean, is `X` in the name).
fn struct_name(format: &str) -> String {
    format!("_uniffi_sika_struct_{}", format.replace('?', "X"))
}

/// UniFFI's unique name of a type, which names its converter (`_UniffiFfiConverter<name>`).
fn canonical_name(ty: &Type) -> String {
    match ty {
        Type::UInt8 => "UInt8".to_owned(),
        Type::Int8 => "Int8".to_owned(),
        Type::UInt16 => "UInt16".to_owned(),
        Type::Int16 => "Int16".to_owned(),
        Type::UInt32 => "UInt32".to_owned(),
        Type::Int32 => "Int32".to_owned(),
        Type::UInt64 => "UInt64".to_owned(),
        Type::Int64 => "Int64".to_owned(),
        Type::Float32 => "Float32".to_owned(),
        Type::Float64 => "Float64".to_owned(),
        Type::Boolean => "Boolean".to_owned(),
        Type::String => "String".to_owned(),
        Type::Bytes => "Bytes".to_owned(),
        Type::Timestamp => "Timestamp".to_owned(),
        Type::Duration => "Duration".to_owned(),
        Type::Interface { name, .. }
        | Type::CallbackInterface { name, .. }
        | Type::Record { name, .. }
        | Type::Enum { name, .. }
        | Type::Custom { name, .. } => format!("Type{name}"),
        Type::Optional { inner_type } => format!("Optional{}", canonical_name(inner_type)),
        Type::Sequence { inner_type } => format!("Sequence{}", canonical_name(inner_type)),
        Type::Map { key_type, value_type } => format!("Map{}{}", canonical_name(key_type), canonical_name(value_type)),
        Type::Box { inner_type } => format!("Box{}", canonical_name(inner_type)),
        Type::Set { inner_type } => format!("Set{}", canonical_name(inner_type)),
    }
}

/// The big-endian `struct` code and size of a fixed-size type, as UniFFI writes it (a boolean
/// is a byte; `?` reads it as `!= 0`, as UniFFI's `lift` does).
fn fixed(ty: &Type) -> Option<(char, usize)> {
    Some(match ty {
        Type::Int8 => ('b', 1),
        Type::UInt8 => ('B', 1),
        Type::Int16 => ('h', 2),
        Type::UInt16 => ('H', 2),
        Type::Int32 => ('i', 4),
        Type::UInt32 => ('I', 4),
        Type::Int64 => ('q', 8),
        Type::UInt64 => ('Q', 8),
        Type::Float32 => ('f', 4),
        Type::Float64 => ('d', 8),
        Type::Boolean => ('?', 1),
        Type::Custom { builtin, .. } => return fixed(builtin),
        _ => return None,
    })
}

/// Whether a field of this type holds an exported object (`Arc<T>`, `Option<Arc<T>>`).
fn holds_object(ty: &Type) -> bool {
    match ty {
        Type::Interface { .. } => true,
        Type::Optional { inner_type } => holds_object(inner_type),
        _ => false,
    }
}

/// A type read without another reader: numbers, text, their optionals.
fn simple(ty: &Type) -> bool {
    match ty {
        Type::String | Type::Bytes => true,
        Type::Custom { builtin, .. } | Type::Optional { inner_type: builtin } => simple(builtin),
        _ => fixed(ty).is_some(),
    }
}

impl Generator {
    fn definition(&mut self, definition: &TypeDefinition) -> Result<(), String> {
        match definition {
            TypeDefinition::Record(record) => {
                let class = python::type_name(&record.name);
                self.names.insert(class.clone());
                let mut body = Vec::new();
                let arguments = self.fields(&mut body, &record.fields, |field| python::var_name(&field.name))?;
                if record.fields.iter().any(|field| holds_object(&field.ty.ty)) {
                    // A record holding an object checks what it is given whenever a field is
                    // set (sika/_runtime/records.py): built by its constructor.
                    body.push(format!("return {class}({}), o", arguments.join(", ")));
                } else {
                    // The instance UniFFI's `__init__` makes (each field set in order, nothing
                    // else), without the call: its fields' dict in one step (issue 45).
                    let items: Vec<String> = arguments
                        .iter()
                        .map(|argument| {
                            let (name, local) = argument.split_once('=').expect("a keyword argument");
                            format!("\"{name}\": {local}")
                        })
                        .collect();
                    body.push(format!("value = _uniffi_sika_new({class})"));
                    body.push(format!("value.__dict__.update({{{}}})", items.join(", ")));
                    body.push("return value, o".to_owned());
                }
                self.function(&record.self_type.canonical_name, &body);
            }
            TypeDefinition::Enum(enumeration) if enumeration.self_type.is_used_as_error => {}
            TypeDefinition::Enum(enumeration) => self.enumeration(enumeration)?,
            TypeDefinition::Optional(optional) => {
                let mut body = Vec::new();
                self.value(&mut body, "", &optional.self_type.ty, "value")?;
                body.push("return value, o".to_owned());
                self.function(&optional.self_type.canonical_name, &body);
            }
            TypeDefinition::Sequence(sequence) => {
                let mut body = Vec::new();
                self.count(&mut body, "", "sequence");
                body.push("items = []".to_owned());
                body.push("append = items.append".to_owned());
                body.push("for _ in range(count):".to_owned());
                self.value(&mut body, "    ", &sequence.inner.ty, "item")?;
                body.push("    append(item)".to_owned());
                body.push("return items, o".to_owned());
                self.function(&sequence.self_type.canonical_name, &body);
            }
            TypeDefinition::Map(map) => {
                let mut body = Vec::new();
                self.count(&mut body, "", "map");
                body.push("items = {}".to_owned());
                body.push("for _ in range(count):".to_owned());
                self.value(&mut body, "    ", &map.key.ty, "key")?;
                self.value(&mut body, "    ", &map.value.ty, "item")?;
                body.push("    items[key] = item".to_owned());
                body.push("return items, o".to_owned());
                self.function(&map.self_type.canonical_name, &body);
            }
            _ => {}
        }
        Ok(())
    }

    fn enumeration(&mut self, enumeration: &Enum) -> Result<(), String> {
        let converter = enumeration.self_type.canonical_name.clone();
        if enumeration.is_flat {
            // UniFFI's `enum.Enum` members, by their 1-based position.
            let class = python::type_name(&enumeration.name);
            self.names.insert(class.clone());
            let members: Vec<String> = enumeration
                .variants
                .iter()
                .map(|variant| format!("{class}.{}", python::variant_name(&variant.name)))
                .collect();
            self.code.push_str(&format!("_uniffi_sika_members_{converter} = (None, {},)\n", members.join(", ")));
        }
        let mut body = Vec::new();
        self.enum_value(&mut body, "", enumeration, "value")?;
        body.push("return value, o".to_owned());
        self.function(&converter, &body);
        Ok(())
    }

    /// Statements reading a value of `enumeration` into `target`: the variant's 1-based
    /// position, then its fields, as UniFFI's `read` does.
    fn enum_value(
        &mut self,
        body: &mut Vec<String>,
        indent: &str,
        enumeration: &Enum,
        target: &str,
    ) -> Result<(), String> {
        let class = python::type_name(&enumeration.name);
        self.names.insert(class.clone());
        body.push(format!("{indent}index, = {}.unpack_from(b, o)", self.struct_name("i")));
        body.push(format!("{indent}o += 4"));
        let unknown = format!("{indent}    raise InternalError(\"Raw enum value doesn't match any cases\")");
        if enumeration.is_flat {
            body.push(format!("{indent}if not 0 < index < {}:", enumeration.variants.len() + 1));
            body.push(unknown);
            let converter = &enumeration.self_type.canonical_name;
            body.push(format!("{indent}{target} = _uniffi_sika_members_{converter}[index]"));
            return Ok(());
        }
        for (position, variant) in enumeration.variants.iter().enumerate() {
            let keyword = if position == 0 { "if" } else { "elif" };
            body.push(format!("{indent}{keyword} index == {}:", position + 1));
            let mut branch = Vec::new();
            let arguments = self.fields(&mut branch, &variant.fields, |_| String::new())?;
            body.extend(branch.into_iter().map(|line| format!("{indent}    {line}")));
            let variant = python::variant_name(&variant.name);
            body.push(format!("{indent}    {target} = {class}.{variant}({})", arguments.join(", ")));
        }
        body.push(format!("{indent}else:"));
        body.push(unknown);
        Ok(())
    }

    /// Reads `fields` into locals `f0`, `f1`, ... (runs of fixed-size fields in one `struct`
    /// read) and returns the constructor's arguments: `name=fN`, or `fN` when `keyword` is empty.
    fn fields(
        &mut self,
        body: &mut Vec<String>,
        fields: &[Field],
        keyword: impl Fn(&Field) -> String,
    ) -> Result<Vec<String>, String> {
        let mut arguments = Vec::new();
        let mut run: Vec<(String, &Type)> = Vec::new();
        for field in fields {
            self.locals += 1;
            let local = format!("f{}", self.locals);
            let name = keyword(field);
            arguments.push(if name.is_empty() { local.clone() } else { format!("{name}={local}") });
            if fixed(&field.ty.ty).is_some() {
                run.push((local, &field.ty.ty));
                continue;
            }
            self.run(body, &mut run)?;
            self.value(body, "", &field.ty.ty, &local)?;
        }
        self.run(body, &mut run)?;
        Ok(arguments)
    }

    /// One `struct` read of consecutive fixed-size fields, then their custom lifts.
    fn run(&mut self, body: &mut Vec<String>, run: &mut Vec<(String, &Type)>) -> Result<(), String> {
        if run.is_empty() {
            return Ok(());
        }
        let (format, size) = run.iter().fold((String::new(), 0), |(format, size), (_, ty)| {
            let (code, bytes) = fixed(ty).expect("a fixed-size type");
            (format!("{format}{code}"), size + bytes)
        });
        let locals: Vec<&str> = run.iter().map(|(local, _)| local.as_str()).collect();
        body.push(format!("{}, = {}.unpack_from(b, o)", locals.join(", "), self.struct_name(&format)));
        body.push(format!("o += {size}"));
        for (local, ty) in run.drain(..) {
            self.custom_lift(body, "", ty, &local)?;
        }
        Ok(())
    }

    /// Statements (at `indent`) reading one value of `ty` at `o` into `target`, advancing `o`.
    fn value(&mut self, body: &mut Vec<String>, indent: &str, ty: &Type, target: &str) -> Result<(), String> {
        if let Some((code, size)) = fixed(ty) {
            body.push(format!("{indent}{target}, = {}.unpack_from(b, o)", self.struct_name(&code.to_string())));
            body.push(format!("{indent}o += {size}"));
            return self.custom_lift(body, indent, ty, target);
        }
        match ty {
            Type::String | Type::Bytes => {
                let (what, decode) = if *ty == Type::String { ("string", ".decode()") } else { ("byte string", "") };
                body.push(format!("{indent}size, = {}.unpack_from(b, o)", self.struct_name("i")));
                body.push(format!("{indent}if size < 0:"));
                body.push(format!("{indent}    raise InternalError(\"Unexpected negative {what} length\")"));
                body.push(format!("{indent}o += 4 + size"));
                body.push(format!("{indent}{target} = b[o - size:o]{decode}"));
            }
            Type::Custom { builtin, .. } => {
                self.value(body, indent, builtin, target)?;
                self.custom_lift(body, indent, ty, target)?;
            }
            Type::Optional { inner_type } => {
                body.push(format!("{indent}flag = b[o]"));
                body.push(format!("{indent}o += 1"));
                body.push(format!("{indent}if flag == 0:"));
                body.push(format!("{indent}    {target} = None"));
                body.push(format!("{indent}elif flag == 1:"));
                self.value(body, &format!("{indent}    "), inner_type, target)?;
                body.push(format!("{indent}else:"));
                body.push(format!("{indent}    raise InternalError(\"Unexpected flag byte for optional type\")"));
            }
            Type::Record { .. } | Type::Sequence { .. } | Type::Map { .. } => {
                body.push(format!("{indent}{target}, o = _uniffi_sika_read_{}(b, o)", canonical_name(ty)));
            }
            Type::Enum { name, .. } if self.inline_enums.contains_key(name) => {
                let enumeration = self.inline_enums[name].clone();
                self.enum_value(body, indent, &enumeration, target)?;
            }
            Type::Enum { name, .. } if !self.errors.contains(name) => {
                body.push(format!("{indent}{target}, o = _uniffi_sika_read_{}(b, o)", canonical_name(ty)));
            }
            // Objects, callback interfaces, builtin times, errors: their generated converter.
            _ => {
                let converter = format!("_UniffiFfiConverter{}", canonical_name(ty));
                body.push(format!("{indent}{target}, o = _uniffi_sika_read_generated({converter}, b, o)"));
                self.names.insert(converter);
            }
        }
        Ok(())
    }

    fn custom_lift(&mut self, body: &mut Vec<String>, indent: &str, ty: &Type, target: &str) -> Result<(), String> {
        if let Type::Custom { name, .. } = ty
            && let Some(lift) = self.lifts.get(name)
        {
            if !lift.contains("{}") {
                return Err(format!("the `lift` of custom type `{name}` in uniffi.toml has no `{{}}`"));
            }
            body.push(format!("{indent}{target} = {}", lift.replace("{}", target)));
        }
        Ok(())
    }

    fn count(&mut self, body: &mut Vec<String>, indent: &str, what: &str) {
        body.push(format!("{indent}count, = {}.unpack_from(b, o)", self.struct_name("i")));
        body.push(format!("{indent}if count < 0:"));
        body.push(format!("{indent}    raise InternalError(\"Unexpected negative {what} length\")"));
        body.push(format!("{indent}o += 4"));
    }

    fn struct_name(&mut self, format: &str) -> String {
        self.structs.insert(format.to_owned());
        struct_name(format)
    }

    /// The reader of `converter`; the `unpack_from` of each `struct` it uses is bound as a
    /// default argument (a local, not a global and an attribute per read).
    fn function(&mut self, converter: &str, body: &[String]) {
        let mut parameters = vec!["b".to_owned(), "o".to_owned()];
        let mut code = String::new();
        for line in body {
            let mut line = line.clone();
            for format in &self.structs {
                let global = format!("{}.unpack_from(", struct_name(format));
                if line.contains(&global) {
                    let local = struct_name(format).replace("_uniffi_sika_struct_", "unpack_");
                    line = line.replace(&global, &format!("{local}("));
                    let parameter = format!("{local}={}.unpack_from", struct_name(format));
                    if !parameters.contains(&parameter) {
                        parameters.push(parameter);
                    }
                }
            }
            code.push_str(&format!("    {line}\n"));
        }
        self.code.push_str(&format!("\n\ndef _uniffi_sika_read_{converter}({}):\n{code}", parameters.join(", ")));
        self.wired.push(converter.to_owned());
    }
}

const HEADER: &str = r#""""Flat readers of the returned buffers (ADR 0028), one per type of the interface.

Generated with the bindings by the project's uniffi-bindgen (bindings/uniffi-bindgen/src/python/readers.rs)
from the library's metadata; not edited by hand. Each reads `b` (the buffer's bytes) from offset
`o` and returns the value and the offset after it; sika/_runtime/readers.py wires them.
"""

# ruff: noqa
import struct
"#;
