import Foundation
import Sika
import XCTest

/// B282 (issue 46, ADR 0075, ADR 0082): a `Task` cancelled in `initiateCharge` (plain and
/// `Ledger.initiateCharge`) after the sandbox logged `POST /charge` (a `hang` fault: its answer
/// never comes) throws `SikaError.ChargeOutcomeUnknown` with the reference and the request id the
/// sandbox received, not `CancellationError`, and through the ledger the reference stays
/// expected; cancelled while it waits for a socket (none connected), `CancellationError`, nothing
/// sent, nothing kept. B283: a call on a client shut down (`shutdown()`), plain or through a
/// ledger, throws `SikaError.Configuration` and sends nothing. B312: a `Task` cancelled as its
/// charge's answer arrives (before it resumed to take it) throws `ChargeOutcomeUnknown` too.
final class CancelledChargesTests: XCTestCase {
    var sandbox: Sandbox!
    var directory: URL!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sika-cancelled-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        sandbox?.stop()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// The request ids (as sent) of the charges the sandbox received.
    private func chargesReceived() async throws -> [String] {
        let requests = try await sandbox.requests()
        let ids = try await sandbox.requestIds()
        return zip(requests, ids).filter { $0.0.path == "/charge" }.compactMap { $0.1.sent }
    }

    private func cancelledAfterSending(throughLedger: Bool) async throws {
        let client = try sandbox.client()
        let reference = "B282-\(throughLedger ? "LEDGER" : "CLIENT")-\(UUID().uuidString.prefix(8))"
        let ledger = throughLedger ? try Ledger.sqlite(path: directory.appendingPathComponent("ledger.db").path) : nil
        try await sandbox.addFault("/charge", kind: "hang")
        let request = chargeRequest(reference: reference, phone: "+233244123333")
        let task = Task { () -> Result<ChargeResponse, Error> in
            do {
                if let ledger { return .success(try await ledger.initiateCharge(client: client, request: request)) }
                return .success(try await client.initiateCharge(request: request))
            } catch {
                return .failure(error)
            }
        }
        let received = try await chargeReceived()
        task.cancel()
        let outcome = await task.value
        assertOutcomeUnknown(outcome, reference: reference, requestId: received.first, reasonContains: "cancelled")
        if let ledger {
            let record = try await ledger.payment(reference: reference)
            XCTAssertNotNil(record, "still expected: reconcile settles it")
        }
    }

    /// The request ids of the charges the sandbox received, once it has one.
    private func chargeReceived() async throws -> [String] {
        var received: [String] = []
        let reached = try await eventually {
            received = try await self.chargesReceived()
            return !received.isEmpty
        }
        XCTAssertTrue(reached, "the charge reached the sandbox")
        return received
    }

    /// `outcome` is the charge's `ChargeOutcomeUnknown` (its reference, the request id the sandbox
    /// received, a reason saying why), thrown and so no longer kept by the core.
    private func assertOutcomeUnknown(
        _ outcome: Result<ChargeResponse, Error>, reference: String, requestId: String?, reasonContains: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        guard case .failure(SikaError.ChargeOutcomeUnknown(let unknownReference, let reason, let unknownRequestId)) = outcome else {
            return XCTFail("not outcome-unknown: \(outcome)", file: file, line: line)
        }
        XCTAssertEqual(unknownReference, reference, file: file, line: line)
        XCTAssertEqual(unknownRequestId, requestId, "the request id the sandbox received", file: file, line: line)
        XCTAssertTrue(reason.contains(reasonContains), reason, file: file, line: line)
        XCTAssertNil(takeCancelledCharge(reference: reference), "thrown, so taken", file: file, line: line)
    }

    func testB282ATaskCancelledAfterTheChargeWasSentThrowsOutcomeUnknown() async throws {
        try await cancelledAfterSending(throughLedger: false)
    }

    func testB282ALedgerChargeCancelledAfterItWasSentThrowsOutcomeUnknownAndStaysExpected() async throws {
        try await cancelledAfterSending(throughLedger: true)
    }

    /// B312 (ADR 0089): the charge's answer arrives (a 500 ms `delay` fault) while every thread of
    /// the cooperative pool is held, so the task cannot resume to take it, and the task is
    /// cancelled then: the runtime frees the finished call untaken, and the caller must still
    /// learn that the charge's outcome is unknown, not get a bare `CancellationError`.
    func testB312ATaskCancelledAsItsChargesAnswerArrivesThrowsOutcomeUnknown() async throws {
        let client = try sandbox.client()
        let reference = "B312-\(UUID().uuidString.prefix(8))"
        try await sandbox.addFault("/charge", kind: "delay", options: ["delay_ms": 500])
        let request = chargeRequest(reference: reference, phone: "+233244123333")
        // Detached: on the cooperative pool, not the test's own executor (XCTest runs an async
        // test on the main actor, which the held pool would not block).
        let task = Task.detached { () -> Result<ChargeResponse, Error> in
            do { return .success(try await client.initiateCharge(request: request)) }
            catch { return .failure(error) }
        }
        let received = try await chargeReceived()
        // A thread of its own cancels the task 1 s on, while the pool's threads sleep 1.5 s: the
        // answer comes at 0.5 s and its resumption waits for a thread.
        let canceller = Thread { usleep(1_000_000); task.cancel() }
        canceller.start()
        let holders = (0..<(2 * ProcessInfo.processInfo.activeProcessorCount)).map { _ in
            Task.detached { _ = usleep(1_500_000) }
        }
        for holder in holders { await holder.value }
        let outcome = await task.value
        assertOutcomeUnknown(outcome, reference: reference, requestId: received.first, reasonContains: "answer arrived")
    }

    func testB282ATaskCancelledBeforeAnySocketConnectedThrowsCancellationError() async throws {
        // One socket in all, held by a verify that hangs: the charge waits for it, unconnected.
        var config = sandbox.config()
        config.maxConnectionsPerHost = 1
        config.timeoutMs = 30_000
        config.maxRetries = 0
        let client = try Client(config: config)
        try await sandbox.seedTransaction(try transactionObject(reference: "B282-HOLD", status: "pending", amount: "1"))
        try await sandbox.addFault("/transaction/verify", kind: "hang")
        let holder = Task { _ = try? await client.verifyTransaction(reference: "B282-HOLD") }
        defer { holder.cancel() }
        let holding = try await eventually {
            try await self.sandbox.requests().contains { $0.path == "/transaction/verify/B282-HOLD" }
        }
        XCTAssertTrue(holding, "the holding verify reached the sandbox")
        let task = Task { () -> Result<ChargeResponse, Error> in
            do { return .success(try await client.initiateCharge(request: chargeRequest(reference: "B282-UNSENT"))) }
            catch { return .failure(error) }
        }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let outcome = await task.value
        XCTAssertEqual(outcomeKind(outcome), "CancellationError")
        let charges = try await chargesReceived()
        XCTAssertEqual(charges, [], "nothing sent")
        XCTAssertNil(takeCancelledCharge(reference: "B282-UNSENT"))
    }

    func testB283ACallOnAShutDownClientThrowsConfiguration() async throws {
        let client = try sandbox.client()
        client.shutdown()
        do {
            _ = try await client.initiateCharge(request: chargeRequest(reference: "B283-1"))
            XCTFail("a shut-down client charged")
        } catch SikaError.Configuration(let reason) {
            XCTAssertTrue(reason.contains("shut down"), reason)
        }
        let ledger = try Ledger.sqlite(path: directory.appendingPathComponent("b283.db").path)
        do {
            _ = try await ledger.initiateCharge(client: client, request: chargeRequest(reference: "B283-2"))
            XCTFail("a ledger charged with a shut-down client")
        } catch SikaError.Configuration(let reason) {
            XCTAssertTrue(reason.contains("shut down"), reason)
        }
        let blocking = try sandbox.blockingClient()
        blocking.shutdown()
        XCTAssertThrowsError(try blocking.verifyTransaction(reference: "B283-3")) { error in
            guard case SikaError.Configuration = error else { return XCTFail("\(error)") }
        }
        let requests = try await sandbox.requests()
        XCTAssertEqual(requests, [], "nothing sent")
    }
}
