//! Python: `str(error)` is the core's message.
//!
//! UniFFI's Python errors ignore the exported `Display` (their `str()` is a dump of the
//! fields, or empty), and Python code, loggers and frameworks read `str(error)`. The base class
//! gets a `__str__` that returns the exported `message()`, the core's text.

use crate::patch::replace_exactly;

pub fn patch(text: String) -> Result<String, String> {
    // The generated base class: its docstring (the core's) and a `pass`, then the alias UniFFI
    // uses to build the variant classes.
    let start = text.find("\nclass SikaError(Exception):\n").ok_or("no `class SikaError(Exception)`")?;
    let end = start + text[start..].find("\n_UniffiTempSikaError = SikaError\n").ok_or("no `_UniffiTempSikaError`")?;
    let base_class = &text[start..end];
    let patched_class = replace_exactly(
        base_class,
        "\n    pass\n",
        "\n    def __str__(self) -> str:\n\
         \x20       # Sika: the core's message. `message` is looked up on the class, because the\n\
         \x20       # Api variant's `message` field hides the method on instances.\n\
         \x20       message = getattr(type(self), \"message\", None)\n\
         \x20       return message(self) if message is not None else super().__str__()\n",
        1,
        "`pass` in the SikaError base class",
    )?;
    Ok(format!("{}{}{}", &text[..start], patched_class, &text[end..]))
}

/// What this patch adds, for the typed declarations (ADR 0016).
pub const ADDED: &[crate::patch::python::Member] =
    &[crate::patch::python::Member { class: "SikaError", declaration: "def __str__(self) -> str: ..." }];
