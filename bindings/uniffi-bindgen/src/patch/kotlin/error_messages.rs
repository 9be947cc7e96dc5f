//! Kotlin: an error's `message` is the core's text, and it prints as `ClassName: message`.
//!
//! UniFFI builds `message` of a Kotlin exception from its field names (`field=amount,
//! reason=...`, and "" for variants without fields), and makes `toString()` the exported
//! `Display`. Kotlin and Java code, and loggers, read `message`, so it returns the core's text
//! (the exported `message()`, which is `Display`); `toString()` is then what every JVM
//! exception prints, `dev.sika.SikaException$InvalidInput: invalid amount: ...` (ADR 0018),
//! so a log line or `println(e)` names the kind of error.

/// The error's `Display`, as UniFFI writes it in the error class.
const DISPLAY: &str =
    "    // The local Rust `Display`/`Debug` implementation.\n    override fun toString(): String {\n";

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
        patched.push_str("        override val message: String\n            get() = message()");
        rest = &rest[line_end..];
    }
    patched.push_str(rest);
    throwable_to_string(patched)
}

/// Replaces each error class's `Display` `toString()` (the first after its `sealed class`
/// line) with the JVM's `ClassName: message`.
fn throwable_to_string(text: String) -> Result<String, String> {
    let error_class = ": kotlin.Exception() {\n";
    let mut patched = String::with_capacity(text.len());
    let mut rest = text.as_str();
    let mut replaced = 0;
    while let Some(class) = rest.find(error_class) {
        let display = class + rest[class..].find(DISPLAY).ok_or("an error class without an exported `Display`")?;
        let body_end = display + rest[display..].find("\n    }\n").ok_or("an unterminated `toString()`")?;
        let body = &rest[display..body_end];
        if !body.contains("_uniffi_trait_display(") {
            return Err("an error class's `toString()` is not its `Display`".to_owned());
        }
        patched.push_str(&rest[..display]);
        patched.push_str(
            "    // Like every JVM exception: its class, then `message` (the core's `Display`).\n    \
             override fun toString(): String = \"${javaClass.name}: $message\"",
        );
        rest = &rest[body_end + "\n    }".len()..];
        replaced += 1;
    }
    patched.push_str(rest);
    if replaced == 0 {
        return Err("no error class (`sealed class ...: kotlin.Exception()`)".to_owned());
    }
    if !patched.contains("fun `message`(): kotlin.String") {
        return Err("the errors no longer export `message()`".to_owned());
    }
    Ok(patched)
}
