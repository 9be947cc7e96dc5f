//! Kotlin: records with default values can be built from Java without passing every field
//! (issue 26, ADR 0061). A record whose constructor has a parameter with a default (a Rust field
//! marked `#[uniffi(default = ...)]`, like `ClientConfig`'s optional settings) gets
//! `@JvmOverloads` on its primary constructor: Java writes `new ClientConfig(key, url)` and sets
//! the rest with the setters, rather than passing eight `null`s. The annotation has to sit on the
//! generated class's own constructor, so this is a patch (the last resort of ADR 0033).
//! Applied last: the other patches find the records by `data class NAME (`.

pub fn patch(text: String) -> Result<String, String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut patched = String::with_capacity(text.len() + 1024);
    let mut overloaded = 0;
    for (index, line) in lines.iter().enumerate() {
        if let Some(name) = line.strip_prefix("data class ").and_then(|rest| rest.strip_suffix(" (\n")) {
            // The parameters end at the first line that starts with `)`.
            let parameters = lines[index + 1..].iter().take_while(|l| !l.starts_with(')'));
            if parameters.filter(|l| l.starts_with("    var `")).any(|l| l.contains(" = ")) {
                patched.push_str(&format!("data class {name} @JvmOverloads constructor (\n"));
                overloaded += 1;
                continue;
            }
        }
        patched.push_str(line);
    }
    if overloaded == 0 {
        return Err("no record with a default value found (`data class NAME (` then `var ... = ...`)".into());
    }
    Ok(patched)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GENERATED: &str = "data class Plain (\n    var `id`: kotlin.Long\n) {\n}\n\
        data class Settings (\n    var `key`: kotlin.String\n    , \n    var `timeoutMs`: kotlin.Long? = null \n    \n): Disposable{\n}\n";

    #[test]
    fn b186_only_records_with_a_default_get_jvm_overloads() {
        let patched = patch(GENERATED.to_owned()).expect("patched");
        assert!(patched.contains("data class Settings @JvmOverloads constructor (\n"));
        assert!(patched.contains("data class Plain (\n"));
    }

    #[test]
    fn b186_no_record_with_a_default_is_an_error() {
        let text = GENERATED.replace(" = null", "");
        assert!(patch(text).unwrap_err().contains("no record with a default"));
    }
}
