//! The project's `uniffi-bindgen`: UniFFI's own generator, of exactly the version the library
//! is built with, then Sika's steps for each language. Every caller gets the same bindings:
//! `scripts/build-ffi` (Kotlin, Swift) and maturin (Python), which runs a workspace binary named
//! `uniffi-bindgen` when there is one.
//!
//!     cargo run -p uniffi-bindgen -- generate --library LIB --language LANG --out-dir DIR
//!
//! - The configuration is the repository's `uniffi.toml` (generate.rs).
//! - Python (ADR 0033): UniFFI's `sika_ffi.py` stays exactly as generated; this step writes the
//!   modules derived from the same metadata next to it (`python/`, `python_stub.rs`), and
//!   Sika's runtime, ordinary Python in the package (`sika/_runtime/`), rebinds the generated
//!   module on import. `uniffi-bindgen generate-stock ...` (same arguments) runs UniFFI's
//!   generator alone, none of Sika's steps, for the check that the shipped module is UniFFI's
//!   own (`scripts/test-python`).
//! - Kotlin and Swift (ADR 0009): checked patches of the generated file (`patch/`). Each
//!   checks the shape of the code it changes and fails the build when UniFFI no longer
//!   generates that shape: an upgrade is looked at, never half-patched. The files written beside
//!   it (Kotlin's blocking forms, `Sika.kt` and serializers, Swift's `Codable` conformances)
//!   come from the metadata, not from the generated text.

mod charges;
mod error_defaults;
mod generate;
mod patch;
mod python;
mod python_stub;
mod serialized;
mod swift_codable;

use std::process::ExitCode;

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let result = match arguments.first().map(String::as_str) {
        Some("generate") => run(&arguments[1..]),
        Some("generate-stock") => generate::parse(&arguments[1..]).and_then(|(options, _)| generate::stock(options)),
        _ => {
            // UniFFI's command line, unchanged, for everything else.
            uniffi::uniffi_bindgen_main();
            return ExitCode::SUCCESS;
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("uniffi-bindgen: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(arguments: &[String]) -> Result<(), String> {
    let (options, languages) = generate::parse(arguments)?;
    let out_dir = options.out_dir.clone().into_std_path_buf();
    let library = options.source.clone().into_std_path_buf();
    if languages.iter().any(|language| language == "python") {
        python::remove_stale(&out_dir)?;
    }
    generate::stock(options)?;
    for language in &languages {
        // Sika's steps after UniFFI's generator: for Python the derived modules, for Kotlin and
        // Swift the patches (and Swift's generated conformances).
        if language == "python" {
            python::write(&out_dir, &library)?;
        } else {
            patch::apply(language, &out_dir, Some(&library))?;
        }
        if language == "swift" {
            // The `Codable` conformances, from the metadata too (ADR 0035).
            swift_codable::write(&out_dir, &library)?;
        }
    }
    Ok(())
}
