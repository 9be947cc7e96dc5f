//! Swift: a charge whose `Task` is cancelled after it may have been sent throws
//! `SikaError.ChargeOutcomeUnknown`, not `CancellationError` (issue 46, ADR 0075, ADR 0082).
//!
//! A cancelled call throws `CancellationError` (`task_cancellation.rs`), which carries nothing:
//! for a charge it would read as "not charged". Each async method that makes a charge (one that
//! takes a `ChargeRequest`: `Client.initiateCharge`, `Ledger.initiateCharge`) therefore runs its
//! generated call inside `sikaCharge` (`bindings/swift/Sources/Sika/CancelledCharges.swift`),
//! which throws the charge's `ChargeOutcomeUnknown` (reference, request id), kept by the core as
//! the call freed the Rust future, in its place; a charge cancelled before any socket connected
//! still throws `CancellationError`. The charging methods come from the library's metadata
//! (`crate::charges`), so a new one cannot lack it; the call itself stays as generated.

use crate::charges::Charges;
use crate::patch::closing_paren;

const CALL: &str = "uniffiRustCallAsync(";

pub fn patch(text: String, charges: &Charges) -> Result<String, String> {
    let mut patched = String::with_capacity(text.len() + 512);
    let mut rest = text.as_str();
    let mut wrapped = std::collections::BTreeSet::new();
    while let Some(at) = rest.find("func ") {
        let (before, method) = rest.split_at(at);
        patched.push_str(before);
        let line_end = method.find('\n').unwrap_or(method.len());
        let (header, body) = method.split_at(line_end);
        patched.push_str(header);
        rest = body;
        // A method with a body (a protocol's declaration has none) that is async.
        let is_async = header.contains(")async throws") || header.contains(") async throws");
        if !is_async || !header.trim_end().ends_with('{') {
            continue;
        }
        let name = header["func ".len()..].split_once('(').map_or("", |(name, _)| name);
        let Some(charge) = charges.get(name) else { continue };
        if !header.contains(&format!("{charge}: ChargeRequest")) {
            return Err(format!(
                "`{}` does not take `{charge}` as its `ChargeRequest`, as the metadata says",
                header.trim()
            ));
        }
        let shape = || format!("`{}` does not return `try await uniffiRustCallAsync(...)`", header.trim());
        let call = body.find(CALL).ok_or_else(shape)?;
        let returned = body[..call].trim_start().strip_prefix("return").ok_or_else(shape)?;
        let expression = returned.split_whitespace().collect::<Vec<_>>();
        if expression != ["try", "await"] {
            return Err(shape());
        }
        let close = closing_paren(body, call + CALL.len() - 1).ok_or_else(shape)?;
        let start = body.find("return").ok_or_else(shape)? + "return".len();
        patched.push_str(&body[..start]);
        patched
            .push_str(&format!(" try await sikaCharge(reference: {charge}.reference) {{{} }}", &body[start..=close]));
        rest = &body[close + 1..];
        wrapped.insert(name);
    }
    patched.push_str(rest);
    if let Some(missing) = charges.keys().find(|name| !wrapped.contains(name.as_str())) {
        return Err(format!("the charging method `{missing}` is not a generated async method"));
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

    fn method(signature: &str) -> String {
        format!(
            "open func {signature}async throws  -> ChargeResponse  {{\n    return\n        try  await uniffiRustCallAsync(\n            rustFutureFunc: {{\n                uniffi_f(\n                    self.uniffiCloneHandle(),\n                    FfiConverterTypeChargeRequest_lower(request)\n                )\n            }},\n            liftFunc: FfiConverterTypeChargeResponse_lift,\n            errorHandler: FfiConverterTypeSikaError_lift\n        )\n}}\n"
        )
    }

    #[test]
    fn b282_an_async_charge_runs_its_generated_call_inside_sika_charge() {
        let charge = method("initiateCharge(request: ChargeRequest)");
        let ledger = method("initiateCharge(client: Client, request: ChargeRequest)");
        let other = method("verifyTransaction(reference: String)");
        let blocking = "open func initiateCharge(request: ChargeRequest)throws  -> ChargeResponse  {\n    return try  FfiConverterTypeChargeResponse_lift(x(request))\n}\n";
        let declared = "public protocol ClientProtocol: AnyObject, Sendable {\n    func initiateCharge(request: ChargeRequest) async throws  -> ChargeResponse\n}\n";
        let patched = patch(format!("{declared}{charge}{other}{ledger}{blocking}")).unwrap();
        assert!(patched.contains(declared), "a protocol's declaration stays as generated");
        assert_eq!(
            patched.matches("    return try await sikaCharge(reference: request.reference) {\n        try  await uniffiRustCallAsync(\n").count(),
            2,
            "{patched}"
        );
        assert_eq!(
            patched.matches("            errorHandler: FfiConverterTypeSikaError_lift\n        ) }\n}\n").count(),
            2,
            "{patched}"
        );
        assert!(patched.contains(&other), "a call that makes no charge stays as generated");
        assert!(patched.contains(blocking), "a blocking charge stays as generated (its host cannot cancel it)");
    }

    #[test]
    fn b282_charge_cancellations_the_shape_is_checked() {
        let absent = patch(method("verifyTransaction(reference: String)")).unwrap_err();
        assert!(absent.contains("`initiateCharge` is not a generated async method"), "{absent}");
        assert!(
            patch(method("initiateCharge(charge: ChargeRequest)")).is_err(),
            "a parameter other than the metadata's"
        );
        let changed = method("initiateCharge(request: ChargeRequest)")
            .replace("try  await uniffiRustCallAsync(", "try await other(uniffiRustCallAsync(");
        assert!(patch(changed).is_err(), "a charge that does not return the generated call");
    }
}
