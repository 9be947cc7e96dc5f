import Foundation
import Sika
import XCTest

/// B76: `withOptions` gives a view of a client with its own per-call budget over the same
/// connections (ADR 0039): its timeout applies on the sandbox's slow-answer fault, while the
/// client's own budget still gets the answer.
final class ConnectionsTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    override func tearDown() {
        sandbox?.stop()
    }

    private func slowAnswers() async throws {
        try await sandbox.seedTransaction(try transactionObject(reference: "B76-SEEDED", status: "successful", amount: "100.10"))
        try await sandbox.addFault("/transaction/verify", kind: "delay", count: 2, options: ["delay_ms": 1_500])
    }

    func testB76WithOptionsAppliesItsOwnTimeoutOnTheAsyncClient() async throws {
        let client = try sandbox.client()
        let quick = try client.withOptions(timeoutMs: 300, maxRetries: 0)
        try await slowAnswers()
        let started = ContinuousClock.now
        let error = await sikaError { try await quick.verifyTransaction(reference: "B76-SEEDED") }
        XCTAssertEqual(error?.kind, "Timeout")
        XCTAssertLessThan(started.duration(to: .now), .milliseconds(1_400))
        let answered = try await client.verifyTransaction(reference: "B76-SEEDED")
        XCTAssertEqual(answered.txRef, "B76-SEEDED", "the client's own 10 s budget")
    }

    func testB76WithOptionsAppliesItsOwnTimeoutOnTheBlockingClient() async throws {
        let client = try sandbox.blockingClient()
        let quick = try client.withOptions(timeoutMs: 300, maxRetries: nil)
        try await slowAnswers()
        let started = ContinuousClock.now
        let outcome = await onNewThread { try quick.verifyTransaction(reference: "B76-SEEDED") }
        XCTAssertEqual(outcomeKind(outcome), "Timeout")
        XCTAssertLessThan(started.duration(to: .now), .milliseconds(1_400))
        let answered = await onNewThread { try client.verifyTransaction(reference: "B76-SEEDED").txRef }
        XCTAssertEqual(try answered.get(), "B76-SEEDED")
        XCTAssertThrowsError(try client.withOptions(timeoutMs: -1, maxRetries: nil)) { error in
            guard case SikaError.InvalidInput(let field, _)? = error as? SikaError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(field, "timeout_ms")
        }
    }
}
