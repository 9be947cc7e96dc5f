import Dispatch
import Foundation
import Sika
import XCTest

/// B32: calls stuck on a `hang` fault, cancelled by the host, end promptly and leak nothing:
/// the sandbox's open connection count returns to its baseline (polled, never a fixed sleep)
/// and the client still works.
///
/// Two ways reach Rust in Swift: a `Cancellation` handle (async and blocking waits), and
/// `Task.cancel()` on any generated async method, which the project's uniffi-bindgen patches
/// to cancel the Rust future (UniFFI 0.32's own Swift does not): the call throws
/// `CancellationError` and Rust drops its request.
final class CancellationTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    override func tearDown() {
        sandbox?.stop()
    }

    private let inFlight = 8

    /// A warm client (one pooled connection) and the open count with it idle.
    private func baseline(_ warmUp: () async throws -> Void) async throws -> Int {
        try await warmUp()
        try await sandbox.seedTransaction(transactionObject(reference: "AFTER-1", status: "successful", amount: "10"))
        return try await sandbox.connections().open
    }

    /// Waits until `calls` verify requests hang at the sandbox (logged, their connections open).
    private func awaitHanging(_ calls: Int, above baseline: Int, file: StaticString = #filePath, line: UInt = #line) async throws {
        let hanging = try await eventually {
            let verifies = try await self.sandbox.requests().filter { $0.path.hasPrefix("/transaction/verify/HANG-") }
            // One of them may have taken the warm pooled connection.
            guard verifies.count >= calls else { return false }
            return try await self.sandbox.connections().open >= baseline + calls - 1
        }
        XCTAssertTrue(hanging, "the calls reached the sandbox and hang there", file: file, line: line)
    }

    /// The open count comes back to the baseline (or under it: the pooled connection may be gone).
    private func assertConnectionsReleased(_ baseline: Int, file: StaticString = #filePath, line: UInt = #line) async throws {
        var open = Int.max
        let released = try await eventually {
            open = try await self.sandbox.connections().open
            return open <= baseline
        }
        XCTAssertTrue(released, "open connections \(open), baseline \(baseline): a cancelled call leaked one",
                      file: file, line: line)
    }

    private func hangVerify(count: Int) async throws {
        try await sandbox.addFault("/transaction/verify", kind: "hang", count: count)
    }

    func testB32CancellingTasksWaitingOnAHangEndsThemAndReleasesTheirConnections() async throws {
        let client = try sandbox.client()
        let base = try await baseline { _ = try await client.listMobileMoneyProviders() }
        try await hangVerify(count: inFlight)
        try await sandbox.clearRequests()
        // Long budgets: only the cancellation can end these waits in time.
        let options = AwaitOptions(initialDelayMs: 0, timeoutMs: 60_000)
        let tasks = (0..<inFlight).map { index in
            Task { try await client.awaitFinalStatus(reference: "HANG-\(index)", options: options) }
        }
        try await awaitHanging(inFlight, above: base)

        let started = ContinuousClock.now
        tasks.forEach { $0.cancel() }
        for task in tasks {
            do {
                let transaction = try await task.value
                XCTFail("expected CancellationError, got \(transaction.status)")
            } catch {
                XCTAssertTrue(error is CancellationError, "\(error)")
            }
        }
        XCTAssertLessThan(started.duration(to: .now), .seconds(2), "ended promptly")
        try await assertConnectionsReleased(base)

        // No check follows, and the client still works.
        let verifies = try await sandbox.requests().count
        XCTAssertEqual(verifies, inFlight, "a cancelled wait kept polling")
        let after = try await client.verifyTransaction(reference: "AFTER-1")
        XCTAssertEqual(after.status, .successful)
        let providers = try await client.listMobileMoneyProviders(country: "GH")
        XCTAssertEqual(providers.count, 3)
    }

    func testB32ACancellationHandleEndsAsyncWaitsOnAHang() async throws {
        let client = try sandbox.client()
        let base = try await baseline { _ = try await client.listBanks() }
        try await hangVerify(count: inFlight)
        try await sandbox.clearRequests()
        let cancellation = Cancellation()
        let options = AwaitOptions(initialDelayMs: 0, timeoutMs: 60_000, cancellation: cancellation)
        let tasks = (0..<inFlight).map { index in
            // The generated method, detached: only the shared handle can stop these.
            Task.detached { try await client.awaitFinalStatus(reference: "HANG-\(index)", options: options) }
        }
        try await awaitHanging(inFlight, above: base)

        let started = ContinuousClock.now
        cancellation.cancel()
        for task in tasks {
            let error = await sikaError { try await task.value }
            XCTAssertEqual(error, .Cancelled)
        }
        XCTAssertLessThan(started.duration(to: .now), .seconds(2), "ended promptly")
        try await assertConnectionsReleased(base)
        let after = try await client.verifyTransaction(reference: "AFTER-1")
        XCTAssertEqual(after.txRef, "AFTER-1")
    }

    func testB32ABlockingWaitOnAHangIsCancelledFromAnotherThread() async throws {
        let client = try sandbox.blockingClient()
        let base = try await baseline { _ = try await onNewThread { try client.listMobileMoneyProviders() }.get() }
        try await hangVerify(count: inFlight)
        try await sandbox.clearRequests()
        let cancellation = Cancellation()
        let options = AwaitOptions(initialDelayMs: 0, timeoutMs: 60_000, cancellation: cancellation)
        // Several blocking waits, each on its own thread, all stuck on the hang.
        let waits = (0..<inFlight).map { index in
            Task { await onNewThread { try client.awaitFinalStatus(reference: "HANG-\(index)", options: options) } }
        }
        try await awaitHanging(inFlight, above: base)

        let started = ContinuousClock.now
        // Cancelled from yet another thread.
        Thread { cancellation.cancel() }.start()
        for wait in waits {
            let result = await wait.value
            XCTAssertEqual(outcomeKind(result), "Cancelled")
        }
        XCTAssertLessThan(started.duration(to: .now), .seconds(2), "ended promptly")
        XCTAssertTrue(cancellation.isCancelled())
        try await assertConnectionsReleased(base)
        let after = await onNewThread { try client.verifyTransaction(reference: "AFTER-1").status }
        XCTAssertEqual(try after.get(), .successful)
    }

    /// `Task.cancel()` on a generated async call (here verifyTransaction) stuck on a hang: the
    /// cancellation reaches Rust (the Swift patch of bindings/uniffi-bindgen), which drops the
    /// request at once: `CancellationError` long before the 30 s budget, and no leaked connection.
    func testB32TaskCancelOnAGeneratedCallEndsItPromptlyAndLeaksNothing() async throws {
        var config = sandbox.config()
        config.timeoutMs = 30_000
        config.maxRetries = 0
        let client = try Client(config: config)
        let base = try await baseline { _ = try await client.listMobileMoneyProviders() }
        try await hangVerify(count: inFlight)
        try await sandbox.clearRequests()
        let started = ContinuousClock.now
        let tasks = (0..<inFlight).map { index in
            Task { () -> Result<Transaction, Error> in
                do { return .success(try await client.verifyTransaction(reference: "HANG-\(index)")) }
                catch { return .failure(error) }
            }
        }
        try await awaitHanging(inFlight, above: base)
        tasks.forEach { $0.cancel() }
        for task in tasks {
            let kind = outcomeKind(await task.value)
            XCTAssertEqual(kind, "CancellationError")
        }
        XCTAssertLessThan(started.duration(to: .now), .seconds(5), "ended by the cancellation, not the 30 s budget")
        try await assertConnectionsReleased(base)
        let after = try await client.verifyTransaction(reference: "AFTER-1")
        XCTAssertEqual(after.status, .successful)
    }
}
