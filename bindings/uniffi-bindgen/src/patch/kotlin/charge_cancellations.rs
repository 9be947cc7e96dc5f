//! Kotlin: a charge cancelled after it may have been sent says so in its `CancellationException`
//! (issue 46, ADR 0075, ADR 0082).
//!
//! A coroutine cancelled in a `suspend` call ends with the host's own `CancellationException`,
//! which UniFFI's `uniffiRustCallAsync` rethrows after it has freed the Rust future. For a charge
//! that exception would say nothing, and "cancelled" reads as "not charged". Each `suspend`
//! method that makes a charge (one that takes a `ChargeRequest`: `Client.initiateCharge`,
//! `Ledger.initiateCharge`) therefore runs its generated call inside `sikaCharge`
//! (`bindings/kotlin/src/main/kotlin/dev/sika/CancelledCharges.kt`), which makes the
//! charge's `ChargeOutcomeUnknown`, kept by the core as the future was freed, that exception's
//! cause. The charging methods come from the library's metadata (`crate::charges`), so a new
//! one cannot lack it; the call itself stays as generated.

use crate::charges::Charges;
use crate::patch::closing_paren;

const METHOD: &str = "override suspend fun `";
const CALL: &str = "return uniffiRustCallAsync(";

pub fn patch(text: String, charges: &Charges) -> Result<String, String> {
    let mut patched = String::with_capacity(text.len() + 512);
    let mut rest = text.as_str();
    let mut wrapped = std::collections::BTreeSet::new();
    while let Some(at) = rest.find(METHOD) {
        let (before, method) = rest.split_at(at);
        patched.push_str(before);
        let line_end = method.find('\n').ok_or("an unterminated suspend method")?;
        let (header, body) = method.split_at(line_end);
        patched.push_str(header);
        rest = body;
        let name =
            header[METHOD.len()..].split_once('`').ok_or_else(|| format!("unexpected suspend method `{header}`"))?.0;
        let Some(charge) = charges.get(name) else { continue };
        if !header.contains(&format!("`{charge}`: ChargeRequest")) {
            return Err(format!("`{header}` does not take `{charge}` as its `ChargeRequest`, as the metadata says"));
        }
        let start = body.find(CALL).ok_or_else(|| format!("`{header}` does not return `uniffiRustCallAsync(...)`"))?;
        if !body[..start].trim().is_empty() {
            return Err(format!("`{header}` does more than return `uniffiRustCallAsync(...)`"));
        }
        let close = closing_paren(body, start + CALL.len() - 1)
            .ok_or_else(|| format!("`{header}`: an unclosed `uniffiRustCallAsync(`"))?;
        let call = &body[start + "return ".len()..=close];
        patched.push_str(&body[..start]);
        patched.push_str(&format!("return sikaCharge(`{charge}`) {{ {call} }}"));
        rest = &body[close + 1..];
        wrapped.insert(name);
    }
    patched.push_str(rest);
    if let Some(missing) = charges.keys().find(|name| !wrapped.contains(name.as_str())) {
        return Err(format!("the charging method `{missing}` is not a generated `suspend` method"));
    }
    Ok(patched)
}

#[cfg(test)]
mod tests {
    /// The patch told, as the metadata tells it, that `initiateCharge` charges through `request`.
    fn patch(text: String) -> Result<String, String> {
        let charges = [("initiateCharge".to_owned(), "request".to_owned())].into();
        super::patch(text, &charges)
    }

    fn method(name: &str, parameters: &str) -> String {
        format!(
            "    @Throws(SikaException::class)\n    override suspend fun `{name}`({parameters}) : ChargeResponse {{\n        return uniffiRustCallAsync(\n        callWithHandle {{ uniffiHandle ->\n            UniffiLib.f(\n                uniffiHandle,\n                FfiConverterTypeChargeRequest.lower(`request`),\n            )\n        }},\n        // lift function\n        {{ FfiConverterTypeChargeResponse.lift(it) }},\n        SikaException.ErrorHandler,\n    )\n    }}\n"
        )
    }

    #[test]
    fn b280_a_suspend_charge_runs_its_generated_call_inside_sika_charge() {
        let charge = method("initiateCharge", "`request`: ChargeRequest");
        let ledger = method("initiateCharge", "`client`: Client, `request`: ChargeRequest");
        let other = method("verifyTransaction", "`reference`: kotlin.String");
        let patched = patch(format!("{charge}{other}{ledger}")).unwrap();
        assert_eq!(patched.matches("return sikaCharge(`request`) { uniffiRustCallAsync(\n").count(), 2, "{patched}");
        assert_eq!(patched.matches("        SikaException.ErrorHandler,\n    ) }\n    }\n").count(), 2, "{patched}");
        assert!(patched.contains(&other), "a call that makes no charge stays as generated: {patched}");
    }

    #[test]
    fn b280_charge_cancellations_the_shape_is_checked() {
        let other = method("verifyTransaction", "`reference`: kotlin.String");
        let absent = patch(other).unwrap_err();
        assert!(absent.contains("`initiateCharge` is not a generated `suspend` method"), "{absent}");
        let renamed = method("initiateCharge", "`charge`: ChargeRequest");
        assert!(patch(renamed).is_err(), "a parameter other than the metadata's");
        let changed =
            method("initiateCharge", "`request`: ChargeRequest").replace("return uniffiRustCallAsync(", "return run(");
        assert!(patch(changed).is_err(), "a charge that does not return the generated call");
        let unclosed = method("initiateCharge", "`request`: ChargeRequest").replace("    )\n    }\n", "");
        assert!(patch(unclosed).is_err(), "an unclosed call");
    }
}
