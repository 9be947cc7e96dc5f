//! Python: the typed declarations of the generated module, for type checkers (ADR 0016).
//!
//! UniFFI's Python module is runtime code that checkers cannot follow: error variants are
//! nested in a second class that is then rebound to the first name, enum variants are
//! re-created with `type(...)`, record fields are set in `__init__` without annotations. So
//! next to it this step writes `sika_ffi_types.py`: every class, field, method and function
//! of the module, with their Python names, types and docstrings, inside
//! `if typing.TYPE_CHECKING:` (read by checkers, never run); at run time the module only
//! re-exports the generated one. It is generated from the same metadata as the bindings, on
//! every build, so it cannot drift from the library. Members Sika's runtime adds are declared
//! from `python::added`; `tests/test_typing.py` checks
//! every declaration against the runtime classes.
//!
//! Why a `.py` and not a `.pyi`: maturin packs only the `.py` files of the bindgen's output
//! directory, and it packs the package's own sources before it runs the bindgen, so a stub
//! written here would never reach the wheel, and one kept in the sources would be written by
//! hand (or stale).
//!
//! The interface is UniFFI's own "general" pipeline IR (the Python one is private to
//! uniffi_bindgen); `python` below maps its names and types the way UniFFI's Python
//! generator does.

use std::collections::BTreeMap;
use std::path::Path;

use camino::Utf8Path;
use uniffi_bindgen::pipeline::general::{
    self, Callable, CallableKind, CallbackInterface, Enum, Field, FieldsKind, Interface, Literal, Method, Namespace,
    ObjectImpl, Record, Type, TypeDefinition, UniffiTraitMethods,
};
use uniffi_bindgen::{BindgenLoader, GlobalConfig};

use crate::python::{Added, match_args};

/// The declarations module, next to the generated `sika_ffi.py`.
pub const FILE_NAME: &str = "sika_ffi_types.py";

/// The library's one UniFFI component, through UniFFI's own loader and pipeline, with the
/// repository's `uniffi.toml` (generate.rs), as `uniffi-bindgen generate` reads it, and the
/// renames and exclusions of `[bindings.python]`.
pub fn interface(library: &Path) -> Result<Namespace, String> {
    load(library, "python").map(|(namespace, _)| namespace)
}

/// [`interface`] as UniFFI's generator of `language` declares it: with `[bindings.<language>]`'s
/// renames and exclusions, and the functions in that generator's order. The pipeline lists the
/// functions by name; the generators (UniFFI's `ComponentInterface`) by module, then name, and a
/// file that repeats the generated functions (Kotlin's `Sika.kt`) keeps their order.
pub fn declared_interface(library: &Path, language: &str) -> Result<Namespace, String> {
    let (mut namespace, declared) = load(library, language)?;
    let mut order = Vec::with_capacity(namespace.functions.len());
    for function in &namespace.functions {
        let symbol = &function.callable.ffi_func.0;
        let position = declared.iter().position(|declared| declared == symbol);
        order.push(position.ok_or_else(|| format!("the function `{symbol}` is not in the library's metadata"))?);
    }
    let mut numbered: Vec<_> = order.into_iter().zip(namespace.functions).collect();
    numbered.sort_by_key(|(position, _)| *position);
    namespace.functions = numbered.into_iter().map(|(_, function)| function).collect();
    Ok(namespace)
}

/// The namespace, through the pipeline of `language`, and the library's functions' symbols in
/// the metadata's order (by module, then name).
fn load(library: &Path, language: &str) -> Result<(Namespace, Vec<String>), String> {
    let library = Utf8Path::from_path(library).ok_or("the library path is not UTF-8")?;
    let mut paths = crate::generate::paths();
    paths.add_cargo_metadata_layer(false).map_err(|e| format!("running cargo metadata: {e}"))?;
    let loader = BindgenLoader::new(paths, GlobalConfig::default());
    let metadata = loader.load_metadata(library).map_err(|e| format!("reading the library's metadata: {e}"))?;
    let functions = metadata
        .values()
        .flat_map(|group| &group.items)
        .filter_map(|item| match item {
            uniffi_meta::Metadata::Func(function) => Some(function.ffi_symbol_name()),
            _ => None,
        })
        .collect();
    let initial =
        loader.load_pipeline_initial_root(library, metadata).map_err(|e| format!("loading the interface: {e}"))?;
    let root = general::pipeline(language).execute(initial).map_err(|e| format!("UniFFI's pipeline: {e}"))?;
    let mut namespaces = root.namespaces.into_values();
    match (namespaces.next(), namespaces.next()) {
        (Some(namespace), None) => Ok((namespace, functions)),
        _ => Err("expected one UniFFI component in the library".to_owned()),
    }
}

/// The declarations module's text.
pub fn declarations(namespace: &Namespace, added: &[Added]) -> Result<String, String> {
    let custom_types = python::custom_types(namespace)?;
    let unions = variant_unions(namespace);
    let method_docs = method_docs(namespace);
    let mut out = Stub {
        text: String::new(),
        namespace: &namespace.name,
        added,
        placed: vec![false; added.len()],
        unions: &unions,
        method_docs: &method_docs,
    };
    let mut exported = vec!["InternalError".to_owned()];
    out.line(0, &format!("\"\"\"Typed declarations of `{}`, for type checkers (ADR 0016).", namespace.name));
    out.line(0, "");
    out.line(0, "Generated with the bindings by the project's uniffi-bindgen, from the same metadata. Checkers");
    out.line(0, "read the `TYPE_CHECKING` block; at run time this module re-exports the generated one.");
    out.line(0, "\"\"\"");
    out.line(0, "");
    out.line(0, "from __future__ import annotations");
    out.line(0, "");
    out.line(0, "import typing");
    out.line(0, "");
    out.line(0, "if typing.TYPE_CHECKING:");
    let mut imports = vec!["datetime".to_owned(), "enum".to_owned()];
    // The modules the custom types' Python types name (a relative import, such as the
    // runtime's epoch module, names no type).
    imports.extend(
        custom_types
            .values()
            .flat_map(|custom| custom.imports.iter().filter(|import| !import.starts_with('.')).cloned()),
    );
    imports.sort();
    imports.dedup();
    for import in &imports {
        out.line(1, &format!("import {import}"));
    }
    out.line(0, "");
    out.line(1, "from typing_extensions import Self, TypeAlias");
    out.line(0, "");
    out.line(1, "class InternalError(Exception): ...");
    for definition in &namespace.type_definitions {
        match definition {
            TypeDefinition::Record(record) => {
                exported.push(python::type_name(&record.name));
                out.record(record)?;
            }
            TypeDefinition::Enum(enumeration) => {
                exported.push(python::type_name(&enumeration.name));
                if enumeration.self_type.is_used_as_error {
                    out.error(enumeration)?;
                } else {
                    out.enumeration(enumeration)?;
                }
            }
            TypeDefinition::Interface(interface) => {
                exported.push(python::type_name(&interface.name));
                out.interface(interface)?;
            }
            TypeDefinition::Custom(custom) => {
                let name = python::type_name(&custom.name);
                let type_name = match custom_types.get(&custom.orig_name) {
                    Some(config) => config.type_name.clone(),
                    None => out.type_name(&custom.builtin.ty)?,
                };
                // A custom type named as its builtin (`Timestamp`) is that builtin's alias.
                if type_name != name {
                    out.alias(&name, &type_name);
                }
            }
            TypeDefinition::Simple(node) => match node.ty {
                Type::Timestamp => out.alias("Timestamp", "datetime.datetime"),
                Type::Duration => out.alias("Duration", "datetime.timedelta"),
                _ => {}
            },
            TypeDefinition::CallbackInterface(callback) => {
                exported.push(python::type_name(&callback.name));
                out.callback_interface(callback)?;
            }
            TypeDefinition::External(external) => {
                return Err(format!("external type {}: not declared yet", external.name));
            }
            TypeDefinition::Box(_)
            | TypeDefinition::Optional(_)
            | TypeDefinition::Sequence(_)
            | TypeDefinition::Map(_)
            | TypeDefinition::Set(_) => {}
        }
    }
    // What a call returns, and what a returned record or variant holds, is one of the enum's
    // variants: declared as their union, so that a `match` over every variant is exhaustive for
    // checkers (pyright strict refused one over all four `LedgerDecision` variants: a class is
    // open to other subclasses, a union of them is not). What the SDK takes stays the class.
    for (name, variants) in &unions {
        out.line(0, "");
        let members: Vec<String> = variants.iter().map(|variant| variant_class(name, variant)).collect();
        out.line(1, &format!("{}: TypeAlias = typing.Union[{}]", union_alias(name), members.join(", ")));
    }
    for function in &namespace.functions {
        exported.push(python::var_name(&function.callable.name));
        out.line(0, "");
        out.callable(1, &function.callable, &function.docstring, None)?;
    }
    if let Some(index) = out.placed.iter().position(|placed| !placed) {
        let class = added[index].class();
        return Err(format!("the runtime declares a member of `{class}`, which the module does not have"));
    }
    out.line(0, "");
    out.line(0, "else:");
    // By name, not `*`: Jedi (IPython, Jupyter, editors) then takes the declarations above, with
    // their constructors' parameters, over the generated records, whose `@dataclass` with its own
    // `__init__` and no annotated fields it reads as taking none (B115).
    out.line(1, &format!("from .{} import (", namespace.name));
    for name in &exported {
        out.line(2, &format!("{name},"));
    }
    out.line(1, ")");
    out.line(0, "");
    out.line(0, "# The generated module's names, but its `...Protocol` twins of the objects.");
    out.line(0, "__all__ = [");
    for name in exported {
        out.line(1, &format!("\"{name}\","));
    }
    out.line(0, "]");
    Ok(out.text)
}

struct Stub<'a> {
    text: String,
    namespace: &'a str,
    added: &'a [Added],
    placed: Vec<bool>,
    /// Each enum with data (by its Python name) and its variants' classes: what the SDK
    /// returns is declared as their union (`output_type_name`).
    unions: &'a BTreeMap<String, Vec<String>>,
    /// Each object's documented methods, `(object, method)` (the names of the interface):
    /// the documentation of a method that only says "See `Client.NAME`" (a blocking twin).
    method_docs: &'a BTreeMap<(String, String), String>,
}

impl Stub<'_> {
    /// One line at `level` indents of four spaces (none for an empty line).
    fn line(&mut self, level: usize, line: &str) {
        if !line.is_empty() {
            self.text.push_str(&"    ".repeat(level));
        }
        self.text.push_str(line);
        self.text.push('\n');
    }

    fn alias(&mut self, name: &str, type_name: &str) {
        self.line(0, "");
        self.line(1, &format!("{name} = {type_name}"));
    }

    fn type_name(&self, ty: &Type) -> Result<String, String> {
        python::type_name_of(ty, self.namespace)
    }

    /// A type as the SDK gives it (a return value, a field read): an enum with data is the
    /// union of its variants (`Enum_Variants`), also inside an optional, a list or a map.
    fn output_type_name(&self, ty: &Type) -> Result<String, String> {
        Ok(match ty {
            Type::Enum { name, .. } if self.unions.contains_key(&python::type_name(name)) => {
                union_alias(&python::type_name(name))
            }
            Type::Optional { inner_type } => format!("typing.Optional[{}]", self.output_type_name(inner_type)?),
            Type::Sequence { inner_type } => format!("typing.List[{}]", self.output_type_name(inner_type)?),
            Type::Map { key_type, value_type } => {
                format!("typing.Dict[{}, {}]", self.type_name(key_type)?, self.output_type_name(value_type)?)
            }
            Type::Box { inner_type } => self.output_type_name(inner_type)?,
            other => self.type_name(other)?,
        })
    }

    fn docstring(&mut self, level: usize, docstring: &Option<String>) {
        let Some(docstring) = docstring.as_deref() else { return };
        // Literal text: no escapes, and no triple quotes ending it early.
        let escaped = docstring.trim().replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
        self.line(level, "\"\"\"");
        for line in escaped.lines() {
            self.line(level, line.trim_end());
        }
        self.line(level, "\"\"\"");
    }

    /// The members the runtime adds to `class` (its dotted path in the module).
    fn added(&mut self, level: usize, class: &str) {
        for (index, added) in self.added.iter().enumerate() {
            if let Added::Member { class: of, declaration } = added
                && of == class
            {
                self.placed[index] = true;
                for line in declaration.lines() {
                    self.line(level, line);
                }
            }
        }
    }

    /// `class NAME(BASES):`, with the bases the runtime adds.
    fn class_line(&mut self, level: usize, name: &str, path: &str, bases: &[&str]) {
        let mut all: Vec<String> = bases.iter().map(|base| base.to_string()).collect();
        for (index, added) in self.added.iter().enumerate() {
            if let Added::Base { class, base } = added
                && class == path
            {
                self.placed[index] = true;
                all.push(base.clone());
            }
        }
        if all.is_empty() {
            self.line(level, &format!("class {name}:"));
        } else {
            self.line(level, &format!("class {name}({}):", all.join(", ")));
        }
    }

    /// The fields as attributes: what they hold, as read (`output_type_name`).
    fn fields(&mut self, level: usize, fields: &[Field]) -> Result<(), String> {
        for field in fields {
            let line = format!("{}: {}", python::var_name(&field.name), self.output_type_name(&field.ty.ty)?);
            self.line(level, &line);
            self.docstring(level, &field.docstring);
        }
        Ok(())
    }

    /// `, name: type[ = ...]` for each field.
    fn parameters(&self, fields: &[Field]) -> Result<String, String> {
        let mut parameters = String::new();
        for field in fields {
            let default = if field.default.is_some() { " = ..." } else { "" };
            parameters.push_str(&format!(
                ", {}: {}{default}",
                python::var_name(&field.name),
                self.type_name(&field.ty.ty)?
            ));
        }
        Ok(parameters)
    }

    fn record(&mut self, record: &Record) -> Result<(), String> {
        let name = python::type_name(&record.name);
        if matches!(record.fields_kind, FieldsKind::Unnamed) {
            return Err(format!("{name}: records with unnamed fields are not declared yet"));
        }
        self.line(0, "");
        self.class_line(1, &name, &name, &[]);
        self.docstring(2, &record.docstring);
        self.fields(2, &record.fields)?;
        // The generated `__init__` takes every field by keyword.
        match self.parameters(&record.fields)? {
            parameters if parameters.is_empty() => self.line(2, "def __init__(self) -> None: ..."),
            parameters => self.line(2, &format!("def __init__(self, *{parameters}) -> None: ...")),
        }
        self.methods(2, &record.methods)?;
        // The templates write `__str__` and `__eq__` when the traits are not exported.
        self.trait_methods(2, &record.uniffi_trait_methods, true);
        self.added(2, &name);
        Ok(())
    }

    /// A flat enum is an `enum.Enum`; one with data is a class whose variants are subclasses.
    fn enumeration(&mut self, enumeration: &Enum) -> Result<(), String> {
        let name = python::type_name(&enumeration.name);
        self.line(0, "");
        if enumeration.is_flat {
            self.line(1, &format!("class {name}(enum.Enum):"));
            self.docstring(2, &enumeration.docstring);
            for variant in &enumeration.variants {
                let value = python::literal(&variant.discr)?;
                self.line(2, &format!("{} = {value}", python::variant_name(&variant.name)));
                self.docstring(2, &variant.docstring);
            }
            self.methods(2, &enumeration.methods)?;
            self.added(2, &name);
            return Ok(());
        }
        let variants: Vec<String> =
            enumeration.variants.iter().map(|variant| python::variant_name(&variant.name)).collect();
        self.class_line(1, &name, &name, &[]);
        self.docstring(2, &enumeration.docstring);
        self.variant_aliases(&name, &variants);
        // A field every variant has (the same name and type: `PaymentCheck.transaction`) is
        // declared on the enum too, so a value narrowed to some variants, or to none, reads it.
        let common: Vec<Field> = match enumeration.variants.split_first() {
            Some((first, rest)) => first
                .fields
                .iter()
                .filter(|field| {
                    rest.iter().all(|variant| {
                        variant.fields.iter().any(|other| other.name == field.name && other.ty.ty == field.ty.ty)
                    })
                })
                .cloned()
                .collect(),
            None => Vec::new(),
        };
        self.fields(2, &common)?;
        // The generated `is_NAME` and `is_name` of each variant: methods of the text enums
        // (their values are `str`), properties of the decisions (sika/_runtime/decisions.py,
        // ADR 0042: forgetting the parentheses cannot pass silently).
        let text = self
            .added
            .iter()
            .any(|added| matches!(added, Added::Base { class, base } if *class == name && base == "str"));
        for variant in &variants {
            let mut spellings = vec![variant.clone()];
            if variant.to_lowercase() != *variant {
                spellings.push(variant.to_lowercase());
            }
            for spelling in spellings {
                if !text {
                    self.line(2, "@property");
                }
                self.line(2, &format!("def is_{spelling}(self) -> bool: ..."));
            }
        }
        self.methods(2, &enumeration.methods)?;
        self.trait_methods(2, &enumeration.uniffi_trait_methods, true);
        self.added(2, &name);
        let match_args = match_args::of_variants(enumeration);
        for (variant, variant_name) in enumeration.variants.iter().zip(&variants) {
            if matches!(variant.fields_kind, FieldsKind::Unnamed) {
                return Err(format!("{name}.{variant_name}: variants with unnamed fields are not declared yet"));
            }
            self.line(0, "");
            let path = format!("{name}.{variant_name}");
            self.class_line(1, &variant_class(&name, variant_name), &path, &[&name]);
            self.docstring(2, &variant.docstring);
            if let Some((_, fields)) = match_args.iter().find(|(python_name, _)| python_name == variant_name) {
                self.line(2, &format!("__match_args__ = {}", match_args::tuple(fields)));
            }
            self.fields(2, &variant.fields)?;
            let parameters = self.parameters(&variant.fields)?;
            self.line(2, &format!("def __init__(self{parameters}) -> None: ..."));
            self.added(2, &path);
        }
        Ok(())
    }

    /// `NAME: TypeAlias = "Enum_NAME"` for each variant: `Enum.NAME` is that class for checkers.
    /// (A nested class cannot subclass the class it is nested in outside a stub: pyright gives
    /// it an unknown base.)
    fn variant_aliases(&mut self, name: &str, variants: &[String]) {
        for variant in variants {
            self.line(2, &format!("{variant}: TypeAlias = \"{}\"", variant_class(name, variant)));
        }
    }

    /// An error: a base exception whose variants are subclasses, as the generated code ends up.
    fn error(&mut self, error: &Enum) -> Result<(), String> {
        let name = python::type_name(&error.name);
        // Error variants keep their Rust names (UpperCamelCase).
        let variants: Vec<String> = error.variants.iter().map(|variant| python::type_name(&variant.name)).collect();
        self.line(0, "");
        self.line(1, &format!("class {name}(Exception):"));
        self.docstring(2, &error.docstring);
        self.variant_aliases(&name, &variants);
        self.added(2, &name);
        for (variant, variant_name) in error.variants.iter().zip(&variants) {
            self.line(0, "");
            self.line(1, &format!("class {}({name}):", variant_class(&name, variant_name)));
            self.docstring(2, &variant.docstring);
            if error.is_flat {
                self.line(2, "...");
                self.added(2, &format!("{name}.{variant_name}"));
                continue;
            }
            if matches!(variant.fields_kind, FieldsKind::Unnamed) {
                return Err(format!("{name}.{variant_name}: variants with unnamed fields are not declared yet"));
            }
            self.fields(2, &variant.fields)?;
            // Positional or keyword, as generated; the last optional ones default to None
            // (sika/_runtime/errors.py, from `ERROR_DEFAULTS`).
            let defaulted = crate::error_defaults::trailing_optional(&variant.fields);
            let mut parameters = String::new();
            for (index, field) in variant.fields.iter().enumerate() {
                let default = if index >= variant.fields.len() - defaulted { " = ..." } else { "" };
                parameters.push_str(&format!(
                    ", {}: {}{default}",
                    python::var_name(&field.name),
                    self.type_name(&field.ty.ty)?
                ));
            }
            self.line(2, &format!("def __init__(self{parameters}) -> None: ..."));
            // The methods are generated into every variant; a field of the same name (the Api
            // variant's `message`) hides one on instances, as at run time.
            let methods: Vec<Method> = error
                .methods
                .iter()
                .filter(|method| {
                    let method_name = python::var_name(&method.callable.name);
                    variant.fields.iter().all(|field| python::var_name(&field.name) != method_name)
                })
                .cloned()
                .collect();
            self.methods(2, &methods)?;
            self.added(2, &format!("{name}.{variant_name}"));
        }
        Ok(())
    }

    fn interface(&mut self, interface: &Interface) -> Result<(), String> {
        let name = python::type_name(&interface.name);
        if !matches!(interface.imp, ObjectImpl::Struct) || !interface.trait_impls.is_empty() {
            return Err(format!("{name}: trait interfaces are not declared yet"));
        }
        // The `...Protocol` twin, the generated base class, is left out, as from the package.
        self.line(0, "");
        if interface.self_type.is_used_as_error {
            self.line(1, &format!("class {name}(Exception):"));
        } else {
            self.line(1, &format!("class {name}:"));
        }
        self.docstring(2, &interface.docstring);
        for constructor in &interface.constructors {
            self.callable(2, &constructor.callable, &constructor.docstring, Some(&name))?;
        }
        self.methods(2, &interface.methods)?;
        self.trait_methods(2, &interface.uniffi_trait_methods, false);
        self.added(2, &name);
        Ok(())
    }

    /// What the host implements (a `typing.Protocol`, subclassed by the implementation).
    fn callback_interface(&mut self, callback: &CallbackInterface) -> Result<(), String> {
        let name = python::type_name(&callback.name);
        self.line(0, "");
        self.line(1, &format!("class {name}(typing.Protocol):"));
        self.docstring(2, &callback.docstring);
        self.methods(2, &callback.methods)?;
        self.added(2, &name);
        Ok(())
    }

    fn methods(&mut self, level: usize, methods: &[Method]) -> Result<(), String> {
        for method in methods {
            // A blocking twin's "See `Client.NAME`" is that method's documentation, as the
            // runtime gives it (sika/_runtime/blocking.py): parameters, returns and errors.
            let docstring =
                twin_doc(method.docstring.as_deref(), self.method_docs).or_else(|| method.docstring.clone());
            self.callable(level, &method.callable, &docstring, None)?;
        }
        Ok(())
    }

    /// A function, method or constructor (of `class`: the primary one is `__init__`, the
    /// others class methods).
    fn callable(
        &mut self,
        level: usize,
        callable: &Callable,
        docstring: &Option<String>,
        class: Option<&str>,
    ) -> Result<(), String> {
        let mut parameters = Vec::new();
        match &callable.kind {
            CallableKind::Constructor { primary: true, .. }
            | CallableKind::Method { .. }
            | CallableKind::VTableMethod { .. } => parameters.push("self".to_owned()),
            CallableKind::Constructor { primary: false, .. } => parameters.push("cls".to_owned()),
            CallableKind::Function => {}
        }
        for argument in &callable.arguments {
            let default = if argument.default.is_some() { " = ..." } else { "" };
            parameters.push(format!(
                "{}: {}{default}",
                python::var_name(&argument.name),
                self.type_name(&argument.ty.ty)?
            ));
        }
        let returns = match &callable.return_type.ty {
            Some(node) => self.output_type_name(&node.ty)?,
            None => "None".to_owned(),
        };
        let asynchronous = if callable.async_data.is_some() { "async " } else { "" };
        let signature = match &callable.kind {
            CallableKind::Constructor { primary: true, .. } => {
                format!("def __init__({}) -> None:", parameters.join(", "))
            }
            CallableKind::Constructor { primary: false, .. } => {
                self.line(level, "@classmethod");
                let class = class.ok_or("a constructor outside a class")?;
                format!("{asynchronous}def {}({}) -> {class}:", python::var_name(&callable.name), parameters.join(", "))
            }
            _ => format!(
                "{asynchronous}def {}({}) -> {returns}:",
                python::var_name(&callable.name),
                parameters.join(", ")
            ),
        };
        if docstring.is_some() {
            self.line(level, &signature);
            self.docstring(level + 1, docstring);
            self.line(level + 1, "...");
        } else {
            self.line(level, &format!("{signature} ..."));
        }
        Ok(())
    }

    /// The Rust traits UniFFI exports as Python's special methods; `generic`: also the ones the
    /// record and enum templates write when a trait is not exported.
    fn trait_methods(&mut self, level: usize, methods: &UniffiTraitMethods, generic: bool) {
        if methods.debug_fmt.is_some() {
            self.line(level, "def __repr__(self) -> str: ...");
        }
        if methods.display_fmt.is_some() || generic {
            self.line(level, "def __str__(self) -> str: ...");
        }
        if methods.eq_eq.is_some() || generic {
            self.line(level, "def __eq__(self, other: object) -> bool: ...");
        }
        if methods.eq_ne.is_some() {
            self.line(level, "def __ne__(self, other: object) -> bool: ...");
        }
        if methods.hash_hash.is_some() {
            self.line(level, "def __hash__(self) -> int: ...");
        }
        if methods.ord_cmp.is_some() {
            for operator in ["__lt__", "__le__", "__gt__", "__ge__"] {
                self.line(level, &format!("def {operator}(self, other: object) -> bool: ..."));
            }
        }
    }
}

/// The documentation of every method of the objects, by `(object, method)` as the interface
/// names them.
fn method_docs(namespace: &Namespace) -> BTreeMap<(String, String), String> {
    let mut docs = BTreeMap::new();
    for definition in &namespace.type_definitions {
        if let TypeDefinition::Interface(interface) = definition {
            for method in &interface.methods {
                if let Some(doc) = &method.docstring {
                    docs.insert((interface.name.clone(), method.callable.name.clone()), doc.clone());
                }
            }
        }
    }
    docs
}

/// The documentation a method's own only points to: "See `Client.verify_transaction`." (or
/// with more after it, "See `Client.await_final_status`; cancel it ..."), when that method is
/// documented and says more than a pointer itself.
pub fn twin_doc(doc: Option<&str>, docs: &BTreeMap<(String, String), String>) -> Option<String> {
    let named = doc?.trim().strip_prefix("See `")?;
    let (path, _rest) = named.split_once('`')?;
    let (object, method) = path.split_once('.')?;
    let found = docs.get(&(object.to_owned(), method.to_owned()))?;
    (!found.trim().starts_with("See `")).then(|| found.clone())
}

/// The enums with data that are not errors, by Python name, each with its variants' names.
fn variant_unions(namespace: &Namespace) -> BTreeMap<String, Vec<String>> {
    let mut unions = BTreeMap::new();
    for definition in &namespace.type_definitions {
        if let TypeDefinition::Enum(enumeration) = definition
            && !enumeration.is_flat
            && !enumeration.self_type.is_used_as_error
            && !enumeration.variants.is_empty()
        {
            let variants = enumeration.variants.iter().map(|variant| python::variant_name(&variant.name)).collect();
            unions.insert(python::type_name(&enumeration.name), variants);
        }
    }
    unions
}

/// The name of the union of an enum's variants: `LedgerDecision_Variants` (variant classes are
/// `LedgerDecision_FULFIL`, in capitals, so none can be named so).
pub fn union_alias(name: &str) -> String {
    format!("{name}_Variants")
}

/// The module-level class that `Enum.VARIANT` names for checkers.
fn variant_class(name: &str, variant: &str) -> String {
    format!("{name}_{variant}")
}

/// Python's names and types, as UniFFI's Python generator makes them
/// (uniffi_bindgen's `bindings/python/pipeline/{names,types,default}.rs`).
pub mod python {
    use super::*;
    use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};

    /// Python's keywords: a name that is one gets a leading `_`.
    const KEYWORDS: &[&str] = &[
        "False",
        "None",
        "True",
        "__peg_parser__",
        "and",
        "as",
        "assert",
        "async",
        "await",
        "break",
        "class",
        "continue",
        "def",
        "del",
        "elif",
        "else",
        "except",
        "finally",
        "for",
        "from",
        "global",
        "if",
        "import",
        "in",
        "is",
        "lambda",
        "nonlocal",
        "not",
        "or",
        "pass",
        "raise",
        "return",
        "try",
        "while",
        "with",
        "yield",
    ];

    fn not_a_keyword(name: String) -> String {
        if KEYWORDS.contains(&name.as_str()) { format!("_{name}") } else { name }
    }

    /// Classes (and error variants).
    pub fn type_name(name: &str) -> String {
        not_a_keyword(name.to_upper_camel_case())
    }

    /// Fields, arguments, methods and functions.
    pub fn var_name(name: &str) -> String {
        not_a_keyword(name.to_snake_case())
    }

    /// Variants of enums that are not errors.
    pub fn variant_name(name: &str) -> String {
        not_a_keyword(name.to_shouty_snake_case())
    }

    /// A type as the generated annotations write it.
    pub fn type_name_of(ty: &Type, namespace: &str) -> Result<String, String> {
        Ok(match ty {
            Type::Boolean => "bool".to_owned(),
            Type::String => "str".to_owned(),
            Type::Bytes => "bytes".to_owned(),
            Type::Int8
            | Type::Int16
            | Type::Int32
            | Type::Int64
            | Type::UInt8
            | Type::UInt16
            | Type::UInt32
            | Type::UInt64 => "int".to_owned(),
            Type::Float32 | Type::Float64 => "float".to_owned(),
            Type::Timestamp => "Timestamp".to_owned(),
            Type::Duration => "Duration".to_owned(),
            Type::Interface { namespace: of, name, .. }
            | Type::Record { namespace: of, name, .. }
            | Type::Enum { namespace: of, name, .. }
            | Type::CallbackInterface { namespace: of, name, .. }
            | Type::Custom { namespace: of, name, .. } => {
                if of != namespace {
                    return Err(format!("{name} is from another component ({of}): not declared yet"));
                }
                type_name(name)
            }
            Type::Optional { inner_type } => format!("typing.Optional[{}]", type_name_of(inner_type, namespace)?),
            Type::Sequence { inner_type } => format!("typing.List[{}]", type_name_of(inner_type, namespace)?),
            Type::Set { inner_type } => format!("typing.Set[{}]", type_name_of(inner_type, namespace)?),
            Type::Map { key_type, value_type } => {
                format!("typing.Dict[{}, {}]", type_name_of(key_type, namespace)?, type_name_of(value_type, namespace)?)
            }
            Type::Box { inner_type } => type_name_of(inner_type, namespace)?,
        })
    }

    /// An enum's discriminant.
    pub fn literal(literal: &Literal) -> Result<String, String> {
        match literal {
            Literal::Int(value, ..) => Ok(value.to_string()),
            Literal::UInt(value, ..) => Ok(value.to_string()),
            other => Err(format!("a discriminant that is not an integer: {other:?}")),
        }
    }

    /// The statement UniFFI's Python generator writes for an entry of a custom type's
    /// `imports`: `import decimal`, or for a relative name `from .._runtime import epoch`.
    pub fn import_statement(module: &str) -> String {
        match module.rsplit_once('.') {
            Some((from, name)) if module.starts_with('.') => {
                format!("from {} import {name}", if from.is_empty() { "." } else { from })
            }
            _ => format!("import {module}"),
        }
    }

    /// `[bindings.python.custom_types.NAME]` of the crate's `uniffi.toml`: the Python type and
    /// the modules it needs.
    pub struct CustomType {
        pub type_name: String,
        pub imports: Vec<String>,
    }

    pub fn custom_types(namespace: &Namespace) -> Result<BTreeMap<String, CustomType>, String> {
        let mut custom_types = BTreeMap::new();
        let Some(config) = namespace.config_toml.as_deref() else { return Ok(custom_types) };
        let config: toml::Table = toml::from_str(config).map_err(|e| format!("reading uniffi.toml: {e}"))?;
        let table = |value: Option<&toml::Value>| value.and_then(toml::Value::as_table).cloned().unwrap_or_default();
        let bindings = table(config.get("bindings"));
        let python = table(bindings.get("python"));
        for (name, custom) in table(python.get("custom_types")) {
            let custom = table(Some(&custom));
            let Some(type_name) = custom.get("type_name").and_then(toml::Value::as_str) else { continue };
            let imports = custom
                .get("imports")
                .and_then(toml::Value::as_array)
                .map(|imports| imports.iter().filter_map(toml::Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default();
            custom_types.insert(name, CustomType { type_name: type_name.to_owned(), imports });
        }
        Ok(custom_types)
    }
}

#[cfg(test)]
mod tests {
    use super::python;
    use crate::python::match_args;

    // The names the generated module has (sika_ffi.py), which the declarations must repeat.
    #[test]
    fn b176_stub_names_are_the_generated_modules() {
        assert_eq!(python::variant_name("NotYet"), "NOT_YET");
        assert_eq!(python::variant_name("RetryLater"), "RETRY_LATER");
        assert_eq!(python::type_name("ChargeOutcomeUnknown"), "ChargeOutcomeUnknown");
        assert_eq!(python::var_name("retryAfterSeconds"), "retry_after_seconds");
        assert_eq!(python::var_name("from"), "_from");
        assert_eq!(python::var_name("input"), "input");
    }

    #[test]
    fn b176_a_blocking_twins_pointer_is_its_twins_documentation() {
        let mut docs = std::collections::BTreeMap::new();
        docs.insert(("Client".to_owned(), "verify".to_owned()), "Verifies.\n\nErrors: `Timeout`.".to_owned());
        docs.insert(("Client".to_owned(), "other".to_owned()), "See `Ledger.other`.".to_owned());
        assert_eq!(
            super::twin_doc(Some("See `Client.verify`."), &docs).as_deref(),
            Some("Verifies.\n\nErrors: `Timeout`.")
        );
        assert_eq!(
            super::twin_doc(Some("See `Client.verify`; cancel it."), &docs).as_deref(),
            Some("Verifies.\n\nErrors: `Timeout`.")
        );
        assert_eq!(super::twin_doc(Some("See `Client.missing`."), &docs), None);
        assert_eq!(super::twin_doc(Some("See `Client.other`."), &docs), None, "a pointer to a pointer");
        assert_eq!(super::twin_doc(Some("Verifies."), &docs), None);
        assert_eq!(super::twin_doc(None, &docs), None);
    }

    #[test]
    fn b176_stub_match_args_are_python_tuples() {
        assert_eq!(match_args::tuple(&["value".to_owned()]), r#"("value",)"#);
        assert_eq!(match_args::tuple(&["a".to_owned(), "b".to_owned()]), r#"("a", "b")"#);
    }
}
