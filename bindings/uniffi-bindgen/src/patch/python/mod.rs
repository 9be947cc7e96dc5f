//! Python's patches, applied in this order; each module's doc says what it changes and why.
//! The interface (records, enums, objects, functions) is read once from the library's
//! metadata, by UniFFI's own loader, for the patches that need it.

mod asyncio_wakes;
mod call;
mod docs;
mod enum_writes;
mod errors;
mod gil_held;
mod lifecycle;
pub mod match_args;
mod objects;
mod prebound;
mod readers;
mod records;

use std::path::Path;

use camino::Utf8Path;
use uniffi_bindgen::pipeline::general::Namespace;
use uniffi_bindgen::{BindgenLoader, BindgenPaths, ComponentInterface, GlobalConfig};

pub fn patch(text: String, library: Option<&Path>) -> Result<String, String> {
    let library = library.ok_or("--library is needed to read the interface's metadata")?;
    let interfaces = load_interfaces(library)?;
    let text = call::patch(text)?;
    let text = errors::patch(text)?;
    let text = lifecycle::patch(text)?;
    let text = asyncio_wakes::patch(text)?;
    let text = gil_held::patch(text, &interfaces)?;
    // After gil_held: the functions bound are the ones it chose.
    let text = prebound::patch(text)?;
    let text = docs::patch(text, &interfaces)?;
    let text = records::patch(text, &interfaces)?;
    let text = objects::patch(text, &interfaces)?;
    // After the patches that change the variants' `type(...)` calls (records).
    let text = match_args::patch(text, library)?;
    // Appended last: the readers and the enum writes use the classes the patches above shaped.
    let namespace = crate::python_stub::interface(library)?;
    let text = readers::patch(text, &namespace)?;
    enum_writes::patch(text, &namespace)
}

/// The component interfaces of the library, from the metadata UniFFI's generator read too.
fn load_interfaces(library: &Path) -> Result<Vec<ComponentInterface>, String> {
    let library = Utf8Path::from_path(library).ok_or("the library path is not UTF-8")?;
    let loader = BindgenLoader::new(BindgenPaths::default(), GlobalConfig::default());
    let metadata = loader.load_metadata(library).map_err(|e| format!("reading the library's metadata: {e}"))?;
    loader.load_cis(metadata).map_err(|e| format!("loading the interface: {e}"))
}

/// What a patch adds to a generated class, as the typed declarations declare it (ADR 0016).
/// `class` is the class's path in the module: `SikaError`, `PaymentCheck.MISMATCH`.
pub enum Added {
    /// A base class (`str`).
    Base { class: String, base: String },
    /// A member, declared at the class body's indentation.
    Member { class: String, declaration: String },
}

impl Added {
    pub fn class(&self) -> &str {
        match self {
            Added::Base { class, .. } | Added::Member { class, .. } => class,
        }
    }
}

/// What the patches add to the classes of this interface, each list next to its patch.
/// (`__match_args__` of enum variants is declared from the interface, as `match_args` adds it.)
pub fn added(namespace: &Namespace) -> Vec<Added> {
    let mut added = errors::added();
    added.extend(lifecycle::added());
    added.extend(records::added(namespace));
    added
}

/// The body of the generated converter class `_UniffiFfiConverter<converter>`, which must be
/// UniFFI's buffer converter, defined exactly once (for the patches that replace its methods).
fn converter_body<'a>(text: &'a str, converter: &str) -> Result<&'a str, String> {
    let header = format!("\nclass _UniffiFfiConverter{converter}(_UniffiConverterRustBuffer):\n");
    let start = match text.matches(&header).count() {
        1 => text.find(&header).expect("counted") + header.len(),
        found => return Err(format!("expected one `{}`, found {found}", header.trim())),
    };
    let end = text[start..].find("\nclass ").map_or(text.len(), |end| start + end);
    Ok(&text[start..end])
}
