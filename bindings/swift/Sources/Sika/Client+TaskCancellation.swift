// Idiom only: waiting for a final status that stops when the Swift Task running it is
// cancelled. The wait itself (delays, checks, timeout, what counts as final) is the Rust core's.

extension Client {
    /// Waits until `reference` has a final status, like the generated
    /// `awaitFinalStatus(reference:options:)`, and also stops when the calling `Task` is
    /// cancelled: it then throws `CancellationError()` and no further check is sent.
    ///
    /// Task cancellation reaches the generated async methods too (they then throw
    /// `CancellationError`); this one also cancels the `Cancellation` handle of `options`, so
    /// every other wait sharing that handle stops with it, and it sends nothing at all when the
    /// task is already cancelled.
    ///
    /// - Parameters:
    ///   - reference: your reference of the charge.
    ///   - options: delays and budget (unset values: the core's defaults). When it carries a
    ///     `cancellation` handle, that handle is used and is cancelled if the task is: every
    ///     other wait sharing it stops too. Without one, a fresh handle is used for this call.
    /// - Throws: `CancellationError` when the task was cancelled; `SikaError.Cancelled` when
    ///   your own handle was cancelled (and the task was not); `SikaError.Timeout` at
    ///   `timeoutMs`; any other `SikaError` that ends the wait.
    public func awaitFinalStatus(_ reference: String, options: AwaitOptions? = nil) async throws -> Transaction {
        // Already cancelled: send nothing.
        try Task.checkCancellation()
        var options = options ?? AwaitOptions()
        let cancellation = options.cancellation ?? Cancellation()
        options.cancellation = cancellation
        do {
            return try await withTaskCancellationHandler {
                try await self.awaitFinalStatus(reference: reference, options: options)
            } onCancel: {
                cancellation.cancel()
            }
        } catch SikaError.Cancelled where Task.isCancelled {
            throw CancellationError()
        }
    }
}
