//! Python's patches, applied in this order; each module's doc says what it changes and why.

mod docs;
mod errors;
pub mod match_args;

use std::path::Path;

pub fn patch(text: String, library: Option<&Path>) -> Result<String, String> {
    let library = library.ok_or("--library is needed to read the interface's metadata")?;
    let text = errors::patch(text)?;
    let text = match_args::patch(text, library)?;
    docs::patch(text, library)
}

/// A member a patch adds to a generated class, as the typed declarations declare it (ADR 0016).
pub struct Member {
    /// The class, by its path in the module: `SikaError`, `PaymentCheck.MISMATCH`.
    pub class: &'static str,
    /// Its declaration, at the class body's indentation.
    pub declaration: &'static str,
}

/// What the patches add to the classes, each list next to its patch. (`__match_args__` is
/// declared from the interface, as `match_args` adds it.)
pub fn added_members() -> Vec<&'static Member> {
    [errors::ADDED].into_iter().flatten().collect()
}
