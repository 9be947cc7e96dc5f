//! Kotlin: JNA finds a constructor for a `RustBuffer` returned by value (ADR 0031).
//!
//! For a structure returned by value, JNA's direct mapping asks `Structure.newInstance(type,
//! pointer)` for an instance over the returned bytes: it looks up a public `(Pointer)`
//! constructor, and without one (UniFFI's `RustBuffer.ByValue` has none) catches the
//! `NoSuchMethodException` (a stack trace filled in on every call), then builds the structure
//! and copies the returned bytes into its memory (a by-value structure owns its memory). Every
//! Rust call returning a record, a string or a list does this. The constructor does the same
//! copy, found at once. It must copy: JNA's `Structure(Pointer)` would alias the returned
//! bytes, which live on the native call's stack (the JVM crashed when tried).

use crate::patch::replace_exactly;

pub fn patch(text: String) -> Result<String, String> {
    replace_exactly(
        &text,
        "    class ByValue: RustBuffer(), Structure.ByValue\n",
        "    class ByValue(): RustBuffer(), Structure.ByValue {\n        \
         // Sika: the constructor JNA looks for first when Rust returns a buffer by value; like its\n        \
         // fallback, it copies the bytes into memory of its own (JNA's aliasing constructor would\n        \
         // keep the call's stack). bindings/uniffi-bindgen/src/patch/kotlin/returned_buffers.rs\n        \
         constructor(pointer: Pointer) : this() {\n            \
         if (Pointer.nativeValue(pointer) != 0L) useMemory(pointer)\n        \
         }\n    \
         }\n",
        1,
        "`RustBuffer.ByValue`",
    )
}

#[cfg(test)]
mod tests {
    use super::patch;

    #[test]
    fn b176_the_by_value_buffer_gets_a_pointer_constructor() {
        let generated = "open class RustBuffer : Structure() {\n    class ByValue: RustBuffer(), Structure.ByValue\n";
        let patched = patch(generated.to_owned()).unwrap();
        assert!(patched.contains("        constructor(pointer: Pointer) : this() {\n"));
        assert!(patch("open class RustBuffer : Structure() {\n".to_owned()).is_err());
    }
}
