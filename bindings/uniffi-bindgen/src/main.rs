//! The one post-generation step (ADR 0009): `uniffi-bindgen generate ...` runs UniFFI's own
//! generator, of exactly the version the library is built with, then applies Sika's checked
//! patches to the files it wrote. Every caller gets patched bindings: `scripts/build-ffi`
//! (Kotlin, Swift) and maturin (Python), which runs a workspace binary named `uniffi-bindgen`
//! when there is one.
//!
//!     cargo run -p uniffi-bindgen -- generate --library LIB --language LANG --out-dir DIR
//!
//! Each patch checks the shape of the code it changes and fails the build when UniFFI no
//! longer generates that shape: an upgrade is looked at, never half-patched.

mod patch;
mod python_stub;
mod swift_codable;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    // Generation itself: UniFFI's command line, unchanged (it exits on its own errors).
    uniffi::uniffi_bindgen_main();
    if arguments.first().map(String::as_str) != Some("generate") {
        return ExitCode::SUCCESS;
    }
    let value_of =
        |flag: &str| arguments.iter().position(|argument| argument == flag).and_then(|index| arguments.get(index + 1));
    let Some(out_dir) = value_of("--out-dir").map(PathBuf::from) else {
        eprintln!("uniffi-bindgen: `generate` needs --out-dir for Sika's patches");
        return ExitCode::FAILURE;
    };
    let languages = match value_of("--language") {
        Some(language) => vec![language.as_str()],
        None => vec!["python", "kotlin", "swift"],
    };
    let library = value_of("--library").map(PathBuf::from);
    for language in languages {
        if let Err(error) = generate(language, &out_dir, library.as_deref()) {
            eprintln!("uniffi-bindgen: {error}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// Sika's steps after UniFFI's generator: the patches, then for Python the typed declarations
/// (ADR 0016) and for Swift the `Codable` conformances (ADR 0035), both from the metadata.
fn generate(language: &str, out_dir: &std::path::Path, library: Option<&std::path::Path>) -> Result<(), String> {
    if language == "swift" {
        let library = library.ok_or("--library is needed to read the interface's metadata")?;
        patch::apply(language, out_dir, Some(library))?;
        return swift_codable::write(out_dir, library);
    }
    if language != "python" {
        return patch::apply(language, out_dir, library);
    }
    let library = library.ok_or("--library is needed to read the interface's metadata")?;
    python_stub::remove_stale(out_dir)?;
    patch::apply(language, out_dir, Some(library))?;
    python_stub::write(out_dir, library)
}
