//! Kotlin: a call on a closed object throws `SikaException.Configuration`, not
//! `IllegalStateException` (issue 46, B233).
//!
//! UniFFI's objects are `AutoCloseable`: `close()` frees the Rust object, and every later call
//! throws `IllegalStateException("... object has already been destroyed")`, which a
//! `catch (SikaException e)` around the calls of a shutting-down service misses. Every other
//! language (and Rust) answers a call on a client that is shut down with `Configuration`, so
//! Kotlin does too: the generated check of each object's call counter throws it instead, with a
//! "closed" reason. The check that the counter would overflow stays as generated (a bug, not a
//! state of the object).

const DESTROYED: &str =
    "throw IllegalStateException(\"${this.javaClass.simpleName} object has already been destroyed\")";
const CLOSED: &str = "throw SikaException.Configuration(\"the ${this.javaClass.simpleName} has been closed\")";

pub fn patch(text: String) -> Result<String, String> {
    let objects = text.matches(": Disposable, AutoCloseable, ").count();
    let checks = text.matches(DESTROYED).count();
    if objects == 0 || checks != objects {
        return Err(format!("expected one destroyed-object check per object ({objects}), found {checks}"));
    }
    if !text.contains("class Configuration(") {
        return Err("no `SikaException.Configuration` in the generated code".to_owned());
    }
    Ok(text.replace(DESTROYED, CLOSED))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OBJECT: &str = "open class Client: Disposable, AutoCloseable, ClientInterface\n{\n            if (c == 0L) {\n                throw IllegalStateException(\"${this.javaClass.simpleName} object has already been destroyed\")\n            }\n            if (c == Long.MAX_VALUE) {\n                throw IllegalStateException(\"${this.javaClass.simpleName} call counter would overflow\")\n            }\n}\n";
    const ERROR: &str = "    class Configuration(\n        val `reason`: kotlin.String\n    ) : SikaException() {\n";

    #[test]
    fn b233_a_closed_object_throws_configuration() {
        let patched = patch(format!("{OBJECT}{OBJECT}{ERROR}")).unwrap();
        assert_eq!(patched.matches(CLOSED).count(), 2, "{patched}");
        assert!(!patched.contains("already been destroyed"));
        assert!(patched.contains("call counter would overflow"), "the overflow check stays");
    }

    #[test]
    fn b233_closed_objects_the_shape_is_checked() {
        assert!(patch(format!("{OBJECT}{OBJECT}{ERROR}").replacen("already been destroyed", "gone", 1)).is_err());
        assert!(patch(OBJECT.to_owned()).is_err(), "no Configuration variant");
        assert!(patch(ERROR.to_owned()).is_err(), "no object");
    }
}
