//! Kotlin: what Java callers need from the objects' constructors and factories (ADR 0018).
//!
//! - A constructor that can fail (`Client(config)`, `BlockingClient(config)`) gets
//!   `@Throws(SikaException::class)`: without it javac refuses `catch (SikaException e)` around
//!   `new Client(config)`, since Kotlin declares no checked exceptions. UniFFI already annotates
//!   methods, factories and functions, not constructors.
//! - A companion factory (`Client.fromEnv()`) gets `@JvmStatic`, so Java calls
//!   `Client.fromEnv()` rather than `Client.Companion.fromEnv()`.

/// The line each fallible constructor's body calls through; its argument is the error type.
const THROWING_CALL: &str = "    uniffiRustCallWithError(";

pub fn patch(text: String) -> Result<String, String> {
    let text = throwing_constructors(&text)?;
    companion_factories(&text)
}

/// `@Throws(E::class)` above each constructor whose body calls `uniffiRustCallWithError(E)`.
fn throwing_constructors(text: &str) -> Result<String, String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut patched = String::with_capacity(text.len() + 256);
    let mut annotated = 0;
    for (index, line) in lines.iter().enumerate() {
        if line.starts_with("    constructor(`") || line.starts_with("    constructor() :") {
            // The body ends at the first line that is only `    )`.
            let body = lines[index + 1..].iter().take_while(|l| l.trim_end() != "    )");
            if let Some(call) = body.filter_map(|l| l.strip_prefix(THROWING_CALL)).next() {
                let error = call.split(')').next().unwrap_or_default();
                if error.is_empty() || !error.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    return Err(format!("a constructor throws an unexpected error type `{error}`"));
                }
                patched.push_str(&format!("    @Throws({error}::class)\n"));
                annotated += 1;
            }
        }
        patched.push_str(line);
    }
    let expected = text.matches(&format!("this(UniffiWithHandle, \n{THROWING_CALL}")).count();
    if annotated == 0 || annotated != expected {
        return Err(format!(
            "annotated {annotated} throwing constructors, but {expected} call `uniffiRustCallWithError`"
        ));
    }
    Ok(patched)
}

/// `@JvmStatic` on every function of the objects' `companion object { ... }` blocks.
fn companion_factories(text: &str) -> Result<String, String> {
    let opening = "    companion object {\n";
    let mut patched = String::with_capacity(text.len() + 256);
    let mut rest = text;
    let mut annotated = 0;
    while let Some(start) = rest.find(opening) {
        let body_start = start + opening.len();
        let body_len = companion_body_len(&rest[body_start..]).ok_or("an unterminated `companion object {`")?;
        patched.push_str(&rest[..body_start]);
        for line in rest[body_start..body_start + body_len].split_inclusive('\n') {
            let declaration =
                line.strip_prefix("    @Throws(").map_or(line, |l| l.split_once(") ").map_or(l, |(_, d)| d));
            if declaration.trim_start().starts_with("fun `") {
                patched.push_str("    @JvmStatic\n");
                annotated += 1;
            }
            patched.push_str(line);
        }
        rest = &rest[body_start + body_len..];
    }
    patched.push_str(rest);
    if annotated == 0 {
        return Err("no factory in a `companion object { ... }` (e.g. `Client.fromEnv`)".to_owned());
    }
    Ok(patched)
}

/// The length of a companion object's body: up to its closing `    }`, the one the class's own
/// closing `}` follows (the template ends the class with it). Each factory's body also ends
/// with a `    }` line, so the first one closes only the first factory.
fn companion_body_len(body: &str) -> Option<usize> {
    let closing = "\n    }\n";
    let mut from = 0;
    while let Some(found) = body[from..].find(closing) {
        let end = from + found;
        if body[end + closing.len()..].trim_start_matches([' ', '\n']).starts_with('}') {
            return Some(end);
        }
        from = end + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::patch;

    const GENERATED: &str = "open class Client {\n    constructor(`config`: ClientConfig) :\n        this(UniffiWithHandle, \n    uniffiRustCallWithError(SikaException) { _status ->\n}\n    )\n    constructor() :\n        this(UniffiWithHandle, \n    uniffiRustCall() { _status ->\n}\n    )\n    companion object {\n    @Throws(SikaException::class) fun `fromEnv`(): Client {\n    }\n    }\n}\n";

    #[test]
    fn b176_throwing_constructors_and_factories_are_annotated() {
        let patched = patch(GENERATED.to_owned()).unwrap();
        assert!(patched.contains("    @Throws(SikaException::class)\n    constructor(`config`"));
        assert!(patched.contains("    )\n    constructor() :"), "a constructor that cannot fail is left alone");
        assert!(patched.contains("    @JvmStatic\n    @Throws(SikaException::class) fun `fromEnv`"));
        // Every factory of a companion with several (`Ledger.postgres` and `Ledger.sqlite`).
        let two = GENERATED.replace(
            "    companion object {\n    @Throws(SikaException::class) fun `fromEnv`(): Client {\n    }\n",
            "    companion object {\n    @Throws(SikaException::class) fun `fromEnv`(): Client {\n    }\n    \n    @Throws(SikaException::class) fun `fromFile`(): Client {\n    }\n",
        );
        let patched = patch(two).unwrap();
        assert!(patched.contains("    @JvmStatic\n    @Throws(SikaException::class) fun `fromFile`"), "{patched}");
        assert_eq!(patched.matches("@JvmStatic").count(), 2, "{patched}");
        // No factory, or no throwing constructor: the build fails.
        assert!(patch(GENERATED.replace("fun `fromEnv`", "val x")).is_err());
        assert!(patch(GENERATED.replace("uniffiRustCallWithError(SikaException)", "uniffiRustCall()")).is_err());
    }
}
