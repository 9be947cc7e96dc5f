//! Python: `str(error)` is the core's message, and a record's docstring lists its fields.
//!
//! - UniFFI's Python errors ignore the exported `Display` (their `str()` is a dump of the
//!   fields, or empty), and Python code, loggers and frameworks read `str(error)`. The base class
//!   gets a `__str__` that returns the exported `message()`, the core's text.
//! - UniFFI's Python records carry the type's doc but drop each field's (Kotlin and Swift keep
//!   them). The docstring gets an `Attributes:` section (the layout `help()`, IDEs and Sphinx
//!   read) with each field's doc from the library's own metadata, so the core's field docs
//!   reach Python too.

use std::collections::BTreeMap;
use std::path::Path;

use camino::Utf8Path;
use uniffi_bindgen::{BindgenLoader, BindgenPaths, GlobalConfig};

use super::replace_exactly;

pub fn patch(text: String, library: Option<&Path>) -> Result<String, String> {
    let text = error_text(text)?;
    let library = library.ok_or("--library is needed to read the records' field docs")?;
    record_field_docs(text, &field_docs(library)?)
}

fn error_text(text: String) -> Result<String, String> {
    // The generated base class: its docstring (the core's) and a `pass`, then the alias UniFFI
    // uses to build the variant classes.
    let start = text.find("\nclass SikaError(Exception):\n").ok_or("no `class SikaError(Exception)`")?;
    let end = start + text[start..].find("\n_UniffiTempSikaError = SikaError\n").ok_or("no `_UniffiTempSikaError`")?;
    let base_class = &text[start..end];
    let patched_class = replace_exactly(
        base_class,
        "\n    pass\n",
        "\n    def __str__(self) -> str:\n\
         \x20       # Sika: the core's message. `message` is looked up on the class, because the\n\
         \x20       # Api variant's `message` field hides the method on instances.\n\
         \x20       message = getattr(type(self), \"message\", None)\n\
         \x20       return message(self) if message is not None else super().__str__()\n",
        1,
        "`pass` in the SikaError base class",
    )?;
    Ok(format!("{}{}{}", &text[..start], patched_class, &text[end..]))
}

/// Each record's documented fields, `(name, doc)` in declaration order, by record name.
type FieldDocs = BTreeMap<String, Vec<(String, String)>>;

fn field_docs(library: &Path) -> Result<FieldDocs, String> {
    let library = Utf8Path::from_path(library).ok_or("the library path is not UTF-8")?;
    let loader = BindgenLoader::new(BindgenPaths::default(), GlobalConfig::default());
    let metadata = loader.load_metadata(library).map_err(|e| format!("reading the library's metadata: {e}"))?;
    let interfaces = loader.load_cis(metadata).map_err(|e| format!("loading the interface: {e}"))?;
    let mut docs = FieldDocs::new();
    for record in interfaces.iter().flat_map(|ci| ci.record_definitions()) {
        let fields: Vec<_> = record
            .fields()
            .iter()
            .filter_map(|field| Some((field.name().to_owned(), field.docstring()?.trim().to_owned())))
            .collect();
        if record.docstring().is_some() && !fields.is_empty() {
            docs.insert(record.name().to_owned(), fields);
        }
    }
    Ok(docs)
}

fn record_field_docs(mut text: String, docs: &FieldDocs) -> Result<String, String> {
    for (record, fields) in docs {
        // A documented record's class: its docstring opens on the next line and closes at the
        // start of a line (UniFFI's docstring filter).
        let class = format!("\n@dataclass\nclass {record}:\n    \"\"\"\n");
        let start = match text.matches(&class).count() {
            1 => text.find(&class).expect("counted") + class.len(),
            found => return Err(format!("expected one documented `class {record}`, found {found}")),
        };
        let end = start + text[start..].find("\n\"\"\"\n").ok_or_else(|| format!("unclosed docstring of {record}"))?;
        let mut section = String::from("\n\n    Attributes:");
        for (name, doc) in fields {
            let mut lines = doc.lines();
            section.push_str(&format!("\n        {name}: {}", lines.next().unwrap_or_default()));
            for line in lines {
                section.push_str(&format!("\n            {line}"));
            }
        }
        text.insert_str(end, &section);
    }
    Ok(text)
}
