//! Python's patches, applied in this order; each module's doc says what it changes and why.

mod docs;
mod errors;
mod lifecycle;

use std::path::Path;

pub fn patch(text: String, library: Option<&Path>) -> Result<String, String> {
    let library = library.ok_or("--library is needed to read the interface's metadata")?;
    let text = errors::patch(text)?;
    let text = lifecycle::patch(text)?;
    docs::patch(text, library)
}
