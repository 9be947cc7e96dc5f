//! Kotlin: an error's `message` is the core's text.
//!
//! UniFFI builds `message` of a Kotlin exception from its field names (`field=amount,
//! reason=...`, and "" for variants without fields); only `toString()` uses the exported
//! `Display`. Kotlin and Java code, and loggers, read `message`, so it returns `toString()`.

pub fn patch(text: String) -> Result<String, String> {
    let getter = "        override val message\n            get() = \"";
    let variants = text.matches(getter).count();
    if variants == 0 {
        return Err("no `override val message` getter built from fields".to_owned());
    }
    let mut patched = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(start) = rest.find(getter) {
        patched.push_str(&rest[..start]);
        // The generated getter is one line: a string template ending at the line's end.
        let line_end =
            start + rest[start + getter.len()..].find('\n').ok_or("unterminated message getter")? + getter.len();
        patched.push_str("        override val message: String\n            get() = toString()");
        rest = &rest[line_end..];
    }
    patched.push_str(rest);
    if !patched.contains("override fun toString(): String") {
        return Err("the errors no longer export `Display` as `toString()`".to_owned());
    }
    Ok(patched)
}
