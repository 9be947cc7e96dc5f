//! Kotlin: an error's optional last fields default to `null` (`crate::error_defaults`), and its
//! constructor is `@JvmOverloads`, so a merchant's test double is one line in Kotlin
//! (`SikaException.ChargeOutcomeUnknown(reference = "R", reason = "x")`) and in Java
//! (`new SikaException.ChargeOutcomeUnknown("R", "x")`) (issue 47, ADR 0092). UniFFI writes no
//! default for an error's fields, and a default has to sit in the generated class's own
//! constructor, so this is a patch.

use heck::{ToLowerCamelCase, ToUpperCamelCase};

use crate::error_defaults::Defaulted;
use crate::patch::{VariantDeclaration, default_fields, replace_exactly};

pub fn patch(text: String, defaulted: &[Defaulted]) -> Result<String, String> {
    if defaulted.is_empty() {
        return Err("no error variant with an optional last field".to_owned());
    }
    defaulted.iter().try_fold(text, |text, variant| {
        // UniFFI's Kotlin names an error `...Exception`.
        let error =
            variant.error.strip_suffix("Error").map_or(variant.error.to_owned(), |name| format!("{name}Exception"));
        let class = variant.variant.to_upper_camel_case();
        let declaration = VariantDeclaration {
            error: format!("sealed class {error}: kotlin.Exception() {{\n"),
            start: format!("\n    class {class}(\n"),
            end: ") : ",
        };
        let fields: Vec<String> = variant.fields.iter().map(|field| field.to_lower_camel_case()).collect();
        let text = default_fields(&text, &declaration, &fields, |field| format!("val `{field}`: "), " = null")?;
        replace_exactly(
            &text,
            &declaration.start,
            &format!("\n    class {class} @JvmOverloads constructor(\n"),
            1,
            &format!("the class of {error}.{class}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GENERATED: &str = "sealed class SikaException: kotlin.Exception() {\n    \n    class Timeout(\n        \n        \
        /**\n         * The id.\n         */\n        val `requestId`: kotlin.String?\n        ) : SikaException() {\n    }\n    \n    \
        class RateLimited(\n        val `retryAfterSeconds`: kotlin.Long?, \n        val `requestId`: kotlin.String?\n        ) : SikaException() {\n    }\n}\n";

    fn defaulted() -> Vec<Defaulted<'static>> {
        vec![
            Defaulted { error: "SikaError", variant: "Timeout", fields: vec!["request_id"] },
            Defaulted { error: "SikaError", variant: "RateLimited", fields: vec!["retry_after_seconds", "request_id"] },
        ]
    }

    #[test]
    fn b253_optional_last_fields_default_to_null_with_java_overloads() {
        let patched = patch(GENERATED.to_owned(), &defaulted()).expect("patched");
        assert!(patched.contains("    class Timeout @JvmOverloads constructor(\n"), "{patched}");
        assert!(patched.contains("val `requestId`: kotlin.String? = null\n        ) : SikaException()"), "{patched}");
        assert!(patched.contains("val `retryAfterSeconds`: kotlin.Long? = null, \n"), "{patched}");
        assert_eq!(patched.matches(" = null").count(), 3, "{patched}");
    }

    #[test]
    fn b253_a_field_no_longer_optional_or_missing_fails_the_build() {
        let required = GENERATED.replace("kotlin.Long?", "kotlin.Long");
        assert!(patch(required, &defaulted()).unwrap_err().contains("not optional"));
        let renamed = GENERATED.replace(
            "`requestId`: kotlin.String?\n        ) : SikaException() {\n    }\n    \n    class RateLimited",
            "`id`: kotlin.String?\n        ) : SikaException() {\n    }\n    \n    class RateLimited",
        );
        assert!(patch(renamed, &defaulted()).unwrap_err().contains("expected one `val `requestId`: `"));
    }
}
