//! Sika's patches of the generated Kotlin and Swift bindings, one module per language, listed in
//! ADR 0009 (Python has none: ADR 0033).
//! They change presentation and plumbing only; every behaviour stays in the Rust core.

mod kotlin;
mod swift;

use std::fs;
use std::path::{Path, PathBuf};

/// A language's patches: the generated file's text and the library it was generated from in,
/// the patched text or why not out.
type Patch = fn(String, Option<&Path>) -> Result<String, String>;

/// Patches the one file UniFFI generated for `language` under `out_dir`.
pub fn apply(language: &str, out_dir: &Path, library: Option<&Path>) -> Result<(), String> {
    let (extension, patch): (&str, Patch) = match language {
        "kotlin" => ("kt", kotlin::patch),
        "swift" => ("swift", swift::patch),
        other => return Err(format!("no patches for language `{other}`")),
    };
    let mut files = Vec::new();
    find_files(out_dir, extension, &mut files).map_err(|e| format!("reading {}: {e}", out_dir.display()))?;
    // Files Sika writes beside the generated one (from an earlier run into the same directory).
    let own = match language {
        "kotlin" => kotlin::own_file_names().map_err(|e| format!("kotlin files beside the generated one: {e}"))?,
        "swift" => vec![crate::swift_codable::FILE_NAME.to_owned()],
        _ => Vec::new(),
    };
    files.retain(|file| !file.file_name().is_some_and(|name| own.iter().any(|own| name == own.as_str())));
    let [file] = files.as_slice() else {
        return Err(format!(
            "expected one generated .{extension} file in {}, found {}",
            out_dir.display(),
            files.len()
        ));
    };
    let text = fs::read_to_string(file).map_err(|e| format!("reading {}: {e}", file.display()))?;
    let written = if language == "kotlin" { kotlin::own_files(&text, library) } else { Ok(Vec::new()) };
    let written = written.map_err(|e| format!("{language} files beside {}: {e}", file.display()))?;
    let patched = patch(text, library).map_err(|e| format!("{language} patch of {}: {e}", file.display()))?;
    fs::write(file, patched).map_err(|e| format!("writing {}: {e}", file.display()))?;
    for (name, content) in written {
        let path = file.with_file_name(name);
        fs::write(&path, content).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    Ok(())
}

fn find_files(dir: &Path, extension: &str, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            find_files(&path, extension, found)?;
        } else if path.extension().is_some_and(|e| e == extension) {
            found.push(path);
        }
    }
    Ok(())
}

/// Replaces `old` with `new`, which must occur exactly `expected` times: the shape check.
fn replace_exactly(text: &str, old: &str, new: &str, expected: usize, what: &str) -> Result<String, String> {
    match text.matches(old).count() {
        found if found == expected => Ok(text.replace(old, new)),
        found => Err(format!("expected {expected} of {what} in the generated code, found {found}")),
    }
}

/// Where the `)` closing the `(` at `open` is in `text`: generated code, whose strings and
/// comments around the calls this reads hold no parenthesis.
fn closing_paren(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (at, c) in text[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(open + at);
                }
            }
            _ => {}
        }
    }
    None
}
