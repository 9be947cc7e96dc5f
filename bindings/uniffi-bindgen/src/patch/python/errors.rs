//! Python: `str(error)` is the core's message, and an error crosses a process boundary whole.
//!
//! UniFFI's Python errors ignore the exported `Display` (their `str()` is a dump of the
//! fields, or empty), and Python code, loggers and frameworks read `str(error)`. The base class
//! gets a `__str__` that returns the exported `message()`, the core's text, and falls back to
//! the field dump when the core cannot take the error (a variant built by hand with a field of
//! the wrong type): `str()` and `repr()` never raise.
//!
//! A variant's `__init__` takes its fields, but its `args` holds one dump of them, so pickle
//! (which rebuilds an exception from `args`) failed: multiprocessing, `concurrent.futures`,
//! Celery and RQ lost the error, or broke the process pool. The base class gets a
//! `__reduce__` that rebuilds the variant from its fields, read by the names of its
//! generated `__init__`'s parameters.

use crate::patch::replace_exactly;

pub fn patch(text: String) -> Result<String, String> {
    // The generated base class: its docstring (the core's) and a `pass`, then the alias UniFFI
    // uses to build the variant classes.
    let start = text.find("\nclass SikaError(Exception):\n").ok_or("no `class SikaError(Exception)`")?;
    let end = start + text[start..].find("\n_UniffiTempSikaError = SikaError\n").ok_or("no `_UniffiTempSikaError`")?;
    let base_class = &text[start..end];
    let patched_class =
        replace_exactly(base_class, "\n    pass\n", BASE_CLASS_BODY, 1, "`pass` in the SikaError base class")?;
    Ok(format!("{}{}{}", &text[..start], patched_class, &text[end..]))
}

const BASE_CLASS_BODY: &str = r#"
    def __str__(self) -> str:
        # Sika: the core's message. `message` is looked up on the class, because the
        # Api variant's `message` field hides the method on instances.
        message = getattr(type(self), "message", None)
        if message is not None:
            try:
                return message(self)
            except Exception:
                # Built by hand with a field the core cannot take: the fields, as UniFFI
                # prints them. str() and repr() of an error never raise.
                pass
        return super().__str__()

    def __reduce__(self):
        # Sika: pickled as its class and fields, so it crosses a process boundary whole
        # (multiprocessing, concurrent.futures, Celery). `args` holds a dump of the fields,
        # which the variant's `__init__` cannot take back.
        code = getattr(type(self).__init__, "__code__", None)
        if code is None:  # the base class itself, built like any exception
            return super().__reduce__()
        names = code.co_varnames[1 : code.co_argcount]
        return (type(self), tuple(getattr(self, name) for name in names), self.__dict__ or None)
"#;
