// Idiom only: the ledger's fulfilment block over the core's `renew`, `markFulfilled` and
// `release` (issue 43, ADR 0071), since UniFFI cannot take a closure.

extension Ledger {
    /// Fulfils `claim`'s order in `body`: renews the claim first (`SikaError.ClaimLost` when it
    /// was offered to another caller meanwhile: `body` does not run) and every
    /// `renewIntervalMs()` while `body` runs, marks it fulfilled when `body` returns, and gives
    /// it back (`release`, with the error as the reason) when `body` throws, so the next
    /// delivery ships it at once. A cancelled task keeps the claim (the shipment may have gone
    /// out: the order is offered again after the lease, logged at WARN). A renewal that found
    /// the claim lost throws `ClaimLost` when `body` ends; `body` is never stopped half-way.
    public func fulfil<T>(_ claim: Claim, _ body: (Claim) async throws -> T) async throws -> T {
        let held = try await renew(claim: claim)
        let interval = UInt64(max(renewIntervalMs(), 1)) * 1_000_000
        let renewer = Task { [self] () -> SikaError? in
            var current = held
            while true {
                do {
                    try await Task.sleep(nanoseconds: interval)
                } catch {
                    return nil  // cancelled: the block ended
                }
                do {
                    current = try await renew(claim: current)
                } catch let error as SikaError {
                    if case .ClaimLost = error { return error }
                } catch {}
            }
        }
        let result: T
        do {
            result = try await body(held)
        } catch {
            renewer.cancel()
            let lost = await renewer.value
            if lost == nil, !(error is CancellationError), !Task.isCancelled {
                try? await release(claim: held, reason: "\(type(of: error)): \(error)")
            }
            throw error
        }
        renewer.cancel()
        if let lost = await renewer.value { throw lost }
        try await markFulfilled(claim: held)
        return result
    }
}
