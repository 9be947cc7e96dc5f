//! Python's patches, applied in this order; each module's doc says what it changes and why.
//! The interface (records, enums, objects, functions) is read once from the library's
//! metadata, by UniFFI's own loader, for the patches that need it.

mod docs;
mod errors;
mod lifecycle;
mod objects;
mod records;

use std::path::Path;

use camino::Utf8Path;
use uniffi_bindgen::{BindgenLoader, BindgenPaths, ComponentInterface, GlobalConfig};

pub fn patch(text: String, library: Option<&Path>) -> Result<String, String> {
    let library = library.ok_or("--library is needed to read the interface's metadata")?;
    let interfaces = load_interfaces(library)?;
    let text = errors::patch(text)?;
    let text = lifecycle::patch(text)?;
    let text = docs::patch(text, &interfaces)?;
    let text = records::patch(text, &interfaces)?;
    objects::patch(text, &interfaces)
}

/// The component interfaces of the library, from the metadata UniFFI's generator read too.
fn load_interfaces(library: &Path) -> Result<Vec<ComponentInterface>, String> {
    let library = Utf8Path::from_path(library).ok_or("the library path is not UTF-8")?;
    let loader = BindgenLoader::new(BindgenPaths::default(), GlobalConfig::default());
    let metadata = loader.load_metadata(library).map_err(|e| format!("reading the library's metadata: {e}"))?;
    loader.load_cis(metadata).map_err(|e| format!("loading the interface: {e}"))
}
