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
//! cause. Derived from the generated methods, so a new charging method cannot lack it; the
//! call itself stays as generated.

use super::completable_futures::split_top_level;
use crate::patch::closing_paren;

const METHOD: &str = "override suspend fun `";
const CALL: &str = "return uniffiRustCallAsync(";

pub fn patch(text: String) -> Result<String, String> {
    let mut patched = String::with_capacity(text.len() + 512);
    let mut rest = text.as_str();
    let mut wrapped = 0;
    while let Some(at) = rest.find(METHOD) {
        let (before, method) = rest.split_at(at);
        patched.push_str(before);
        let line_end = method.find('\n').ok_or("an unterminated suspend method")?;
        let (header, body) = method.split_at(line_end);
        patched.push_str(header);
        rest = body;
        let Some(charge) = charge_parameter(header)? else { continue };
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
        wrapped += 1;
    }
    patched.push_str(rest);
    if wrapped == 0 {
        return Err("no `suspend` method takes a `ChargeRequest`".to_owned());
    }
    Ok(patched)
}

/// The name of the `ChargeRequest` parameter of the method declared by `header`, if it has one.
fn charge_parameter(header: &str) -> Result<Option<&str>, String> {
    let shape = || format!("unexpected suspend method `{header}`");
    let open = header.find('(').ok_or_else(shape)?;
    let close = closing_paren(header, open).ok_or_else(shape)?;
    for parameter in split_top_level(&header[open + 1..close]) {
        let (name, declared) =
            parameter.trim().strip_prefix('`').and_then(|p| p.split_once("`: ")).ok_or_else(shape)?;
        let kind = declared.split_once(" = ").map_or(declared, |(kind, _)| kind);
        if kind == "ChargeRequest" {
            return Ok(Some(name));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::patch;

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
        assert!(patch(other).is_err(), "no charging method");
        let changed =
            method("initiateCharge", "`request`: ChargeRequest").replace("return uniffiRustCallAsync(", "return run(");
        assert!(patch(changed).is_err(), "a charge that does not return the generated call");
        let unclosed = method("initiateCharge", "`request`: ChargeRequest").replace("    )\n    }\n", "");
        assert!(patch(unclosed).is_err(), "an unclosed call");
    }
}
