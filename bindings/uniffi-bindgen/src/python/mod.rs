//! Python: the modules the project's generator writes next to UniFFI's untouched `sika_ffi.py`
//! (ADR 0033), each derived from the library's metadata, so a new function, record or field
//! changes them without an edit:
//! - `sika_ffi_meta.py` (meta.rs): the lists Sika's runtime (`sika/_runtime/`) works through;
//! - `sika_ffi_readers.py` (readers.rs): the flat readers of returned buffers (ADR 0028);
//! - `sika_ffi_types.py` (python_stub.rs): the typed declarations (ADR 0016), with what the
//!   runtime adds (added.rs).

pub mod added;
pub mod match_args;
pub mod meta;
pub mod readers;

use std::fs;
use std::path::Path;

pub use added::{Added, added};

/// The modules this step writes into the generated package, by file name.
const MODULES: [&str; 3] = [crate::python_stub::FILE_NAME, meta::FILE_NAME, readers::FILE_NAME];

/// Writes the derived modules of the library's interface into `out_dir`.
pub fn write(out_dir: &Path, library: &Path) -> Result<(), String> {
    let namespace = crate::python_stub::interface(library)?;
    for (file, text) in [
        (crate::python_stub::FILE_NAME, crate::python_stub::declarations(&namespace, &added(&namespace))?),
        (meta::FILE_NAME, meta::module(&namespace)?),
        (readers::FILE_NAME, readers::module(&namespace)?),
    ] {
        let file = out_dir.join(file);
        fs::write(&file, text).map_err(|e| format!("writing {}: {e}", file.display()))?;
    }
    Ok(())
}

/// Removes the modules of an earlier run, so the out dir holds UniFFI's output and this run's.
pub fn remove_stale(out_dir: &Path) -> Result<(), String> {
    for name in MODULES {
        let file = out_dir.join(name);
        match fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!("removing {}: {e}", file.display()));
            }
            _ => {}
        }
    }
    Ok(())
}

/// A Python string literal of `text` (double-quoted; the escapes Python and Rust share).
pub fn string(text: &str) -> Result<String, String> {
    let mut literal = String::from("\"");
    for c in text.chars() {
        match c {
            '\\' => literal.push_str("\\\\"),
            '"' => literal.push_str("\\\""),
            '\n' => literal.push_str("\\n"),
            '\t' => literal.push_str("\\t"),
            '\r' => literal.push_str("\\r"),
            c if c.is_control() => return Err(format!("a control character in {text:?}")),
            c => literal.push(c),
        }
    }
    literal.push('"');
    Ok(literal)
}

/// A Python tuple of string literals: `()`, `("a",)`, `("a", "b")`.
pub fn tuple(items: &[String]) -> Result<String, String> {
    let quoted = items.iter().map(|item| string(item)).collect::<Result<Vec<_>, _>>()?;
    Ok(match quoted.as_slice() {
        [] => "()".to_owned(),
        [one] => format!("({one},)"),
        many => format!("({})", many.join(", ")),
    })
}

#[cfg(test)]
mod tests {
    use super::{string, tuple};

    #[test]
    fn b176_python_literals_are_quoted_exactly() {
        assert_eq!(string("a \"b\"\\\n\tẹ").unwrap(), r#""a \"b\"\\\n\tẹ""#);
        assert!(string("bell \u{7}").is_err());
        assert_eq!(tuple(&[]).unwrap(), "()");
        assert_eq!(tuple(&["a".to_owned()]).unwrap(), r#"("a",)"#);
        assert_eq!(tuple(&["a".to_owned(), "b".to_owned()]).unwrap(), r#"("a", "b")"#);
    }
}
