//! Swift: an error's optional last fields default to `nil` (`crate::error_defaults`), so a
//! merchant's test double is one line: `throw SikaError.ChargeOutcomeUnknown(reference: "R",
//! reason: "x")` (issue 47, ADR 0092). UniFFI writes no default for an associated value, and a
//! default has to sit in the generated enum's own case, so this is a patch.

use crate::error_defaults::Defaulted;
use crate::patch::{VariantDeclaration, default_fields};
use heck::ToLowerCamelCase;

pub fn patch(text: String, defaulted: &[Defaulted]) -> Result<String, String> {
    if defaulted.is_empty() {
        return Err("no error variant with an optional last field".to_owned());
    }
    defaulted.iter().try_fold(text, |text, variant| {
        let declaration = VariantDeclaration {
            error: format!("enum {}: Swift.Error", variant.error),
            start: format!("\n    case {}(\n", variant.variant),
            end: "\n    )",
        };
        let fields: Vec<String> = variant.fields.iter().map(|field| field.to_lower_camel_case()).collect();
        default_fields(&text, &declaration, &fields, |field| format!("{field}: "), " = nil")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GENERATED: &str = "public enum SikaError: Swift.Error, Equatable {\n    case Timeout(\n        /**\n         * The id.\n         \
        */requestId: String?\n    )\n    case RateLimited(\n        retryAfterSeconds: Int64?, \n        requestId: String?\n    )\n}\n";

    #[test]
    fn b253_optional_last_associated_values_default_to_nil() {
        let defaulted = vec![
            Defaulted { error: "SikaError", variant: "Timeout", fields: vec!["request_id"] },
            Defaulted { error: "SikaError", variant: "RateLimited", fields: vec!["retry_after_seconds", "request_id"] },
        ];
        let patched = patch(GENERATED.to_owned(), &defaulted).expect("patched");
        assert!(patched.contains("*/requestId: String? = nil\n    )\n    case RateLimited"), "{patched}");
        assert!(
            patched.contains("retryAfterSeconds: Int64? = nil, \n        requestId: String? = nil\n    )\n}"),
            "{patched}"
        );
        let missing = vec![Defaulted { error: "SikaError", variant: "Network", fields: vec!["request_id"] }];
        assert!(patch(GENERATED.to_owned(), &missing).unwrap_err().contains("no `case Network(`"));
    }
}
