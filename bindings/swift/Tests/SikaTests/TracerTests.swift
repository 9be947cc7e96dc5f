import Foundation
import Sika
import XCTest

/// B208: a Swift app's tracer (ADR 0058), the protocol swift-distributed-tracing plugs into,
/// sees each call start and end, the call's requests carry the W3C context it answered with,
/// and the call's end lists each attempt with the HTTP client attributes. The tracer is the
/// process's one: it traces only this test's references.
final class TracerTests: XCTestCase {
    static let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    final class Recording: Tracer, @unchecked Sendable {
        private let lock = NSLock()
        private(set) var started: [CallStart] = []
        private(set) var ended: [CallEnd] = []

        func callStarted(call: CallStart) -> TracedCall? {
            guard call.reference?.hasPrefix("B208-") == true else { return nil }
            return lock.withLock {
                started.append(call)
                return TracedCall(id: Int64(started.count), traceparent: TracerTests.parent, tracestate: "sika=swift")
            }
        }

        func callEnded(end: CallEnd) {
            lock.withLock { ended.append(end) }
        }
    }

    static let recording: Recording = {
        let recording = Recording()
        precondition(setTracer(tracer: recording), "another tracer was installed first")
        return recording
    }()

    func testB208ACallRetriedTwiceIsTracedWithThreeAttempts() async throws {
        let tracer = Self.recording
        let sandbox = try Sandbox()
        defer { sandbox.stop() }
        try await sandbox.seedTransaction(try transactionObject(reference: "B208-SW", status: "successful", amount: "100.10"))
        try await sandbox.addFault("/transaction/verify", kind: "status", count: 2, options: ["status": 503])
        try await sandbox.clearRequests()
        var config = sandbox.config()
        config.maxRetries = 3
        let client = try Client(config: config)
        let transaction = try await client.verifyTransaction(reference: "B208-SW")
        XCTAssertEqual(transaction.txRef, "B208-SW")
        let sent = try await sandbox.requests()
        XCTAssertEqual(sent.map(\.traceparent), Array(repeating: Self.parent, count: 3))
        XCTAssertEqual(sent.map(\.tracestate), Array(repeating: "sika=swift", count: 3))
        XCTAssertEqual(tracer.started.map(\.operation), ["verify_transaction"])
        XCTAssertEqual(tracer.started.first?.serverAddress, "127.0.0.1")
        let end = try XCTUnwrap(tracer.ended.first)
        XCTAssertNil(end.errorType)
        XCTAssertEqual(end.attempts.map(\.resendCount), [0, 1, 2])
        XCTAssertEqual(end.attempts.map(\.statusCode), [503, 503, 200])
        XCTAssertEqual(end.attempts.map(\.errorType), ["503", "503", nil])
        XCTAssertEqual(Set(end.attempts.map { "\($0.method) \($0.urlTemplate)" }), ["GET /transaction/verify/{reference}"])
        XCTAssertNil(end.decision, "a verification is no decision")
        // A decision's kind is in its call's end (`sika.decision`).
        let check = try await client.confirmPayment(
            reference: "B208-SW", expected: ExpectedPayment(amount: Amount("100.10"), currency: "GHS"))
        XCTAssertEqual(check.kind, "confirmed")
        XCTAssertEqual(tracer.ended.map(\.decision), [nil, "confirmed"])
    }

    /// B305 in Swift: the ledger's operations reach the app's tracer as calls of their own
    /// (`ledger.settle`, then the fulfilment block's `ledger.renew` and `ledger.mark_fulfilled`),
    /// the settle's verification is an attempt of its call and carries the context the tracer
    /// answered, and the settle's end names its decision.
    func testB305TheLedgersOperationsAreTracedCallsWithTheirVerificationsAsAttempts() async throws {
        let tracer = Self.recording
        let sandbox = try Sandbox()
        defer { sandbox.stop() }
        let reference = "B208-LEDGER"
        try await sandbox.seedTransaction(try transactionObject(reference: reference, status: "successful", amount: "100.10"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sika-b305-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = try Ledger.sqlite(path: directory.appendingPathComponent("ledger.db").path)
        try await ledger.expect(reference: reference, expected: ExpectedPayment(amount: Amount("100.10"), currency: "GHS"))
        try await sandbox.clearRequests()
        let before = tracer.ended.count
        guard case .fulfil(let claim, _) = try await ledger.settle(client: try sandbox.client(), reference: reference) else {
            return XCTFail("the paid order was not offered")
        }
        try await ledger.fulfil(claim) { _ in }
        let sent = try await sandbox.requests()
        XCTAssertEqual(sent.map(\.traceparent), [Self.parent], "the verification carries the tracer's context")
        // Each end with its start (the tracer's ids count its starts from 1).
        let calls = tracer.ended.dropFirst(before).map { (tracer.started[Int($0.id) - 1], $0) }
            .filter { $0.0.reference == reference }
        XCTAssertEqual(calls.map(\.0.operation), ["ledger.settle", "ledger.renew", "ledger.mark_fulfilled"])
        let settle = try XCTUnwrap(calls.first?.1)
        XCTAssertEqual(settle.decision, "fulfil")
        XCTAssertEqual(settle.attempts.map { "\($0.method) \($0.urlTemplate)" }, ["GET /transaction/verify/{reference}"])
        XCTAssertNil(settle.errorType)
    }
}
