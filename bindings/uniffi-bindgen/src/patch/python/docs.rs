//! Python: a record's docstring lists its fields.
//!
//! UniFFI's Python records carry the type's doc but drop each field's (Kotlin and Swift keep
//! them). The docstring gets an `Attributes:` section (the layout `help()`, IDEs and Sphinx
//! read) with each field's doc from the library's own metadata, so the core's field docs
//! reach Python too.

use std::collections::BTreeMap;

use uniffi_bindgen::ComponentInterface;

/// Adds each documented record's field docs to its docstring.
pub fn patch(text: String, interfaces: &[ComponentInterface]) -> Result<String, String> {
    record_field_docs(text, &field_docs(interfaces))
}

/// Each record's documented fields, `(name, doc)` in declaration order, by record name.
type FieldDocs = BTreeMap<String, Vec<(String, String)>>;

fn field_docs(interfaces: &[ComponentInterface]) -> FieldDocs {
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
    docs
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
