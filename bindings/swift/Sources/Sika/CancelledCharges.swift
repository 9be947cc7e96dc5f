// Idiom only: what a charge's cancelled `Task` throws (ADR 0075, ADR 0082).

/// Runs `call`, the generated body of an async method that makes a charge of `reference`
/// (`Client` and `Ledger`'s `initiateCharge`; the patch `charge_cancellations.rs` of
/// `bindings/uniffi-bindgen` puts it there). Its `Task` cancelled after the charge's request may
/// have reached the service, it throws the charge's `SikaError.ChargeOutcomeUnknown` (reference,
/// request id) instead of `CancellationError`, which carries nothing: the core kept that outcome,
/// and logged it at WARN, as the generated call freed the Rust future. Cancelled before any
/// socket connected, `CancellationError`: nothing was sent.
func sikaCharge<T>(reference: String, _ call: () async throws -> T) async throws -> T {
    do {
        return try await call()
    } catch is CancellationError {
        if let unknown = takeCancelledCharge(reference: reference) {
            throw unknown
        }
        throw CancellationError()
    }
}
