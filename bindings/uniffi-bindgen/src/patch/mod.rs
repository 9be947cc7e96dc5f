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
    let written = if language == "kotlin" { kotlin::own_files(library) } else { Ok(Vec::new()) };
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

/// Where a generated error variant's declaration is: it starts at `start` (the first after the
/// error's own declaration, `error`) and its fields end at the first `end` after that.
struct VariantDeclaration {
    error: String,
    start: String,
    end: &'static str,
}

/// Gives each of `fields` the default `default` after its optional type (`T?`, the last of
/// the declaration's text `prefix(field)` starts) in the variant's generated declaration.
/// Each field's declaration must be there exactly once and optional: the shape check.
fn default_fields(
    text: &str,
    declaration: &VariantDeclaration,
    fields: &[String],
    prefix: impl Fn(&str) -> String,
    default: &str,
) -> Result<String, String> {
    let what = &declaration.start.trim();
    let error = text.find(&declaration.error).ok_or_else(|| format!("no `{}`", declaration.error.trim()))?;
    let start = error + text[error..].find(&declaration.start).ok_or_else(|| format!("no `{what}`"))?;
    let end = start + text[start..].find(declaration.end).ok_or_else(|| format!("`{what}` does not end"))?;
    let mut insertions = Vec::new();
    for field in fields {
        let prefix = prefix(field);
        let span = &text[start..end];
        let found: Vec<usize> = span
            .match_indices(&prefix)
            .map(|(at, _)| at)
            .filter(|&at| !span[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
            .collect();
        let [at] = found.as_slice() else {
            return Err(format!("expected one `{prefix}` in `{what}`, found {}", found.len()));
        };
        let type_start = start + at + prefix.len();
        let type_end = type_start + text[type_start..end].find([',', '\n']).unwrap_or(end - type_start);
        let type_text = text[type_start..type_end].trim_end();
        if !type_text.ends_with('?') {
            return Err(format!("`{prefix}` in `{what}` is `{type_text}`, not optional"));
        }
        insertions.push(type_start + type_text.len());
    }
    let mut patched = text.to_owned();
    insertions.sort_unstable();
    for at in insertions.into_iter().rev() {
        patched.insert_str(at, default);
    }
    Ok(patched)
}
