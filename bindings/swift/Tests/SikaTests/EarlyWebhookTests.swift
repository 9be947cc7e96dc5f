import Foundation
import Sika
import XCTest

/// B53: a reference the service does not know yet gets a grace period (ADR 0023), through the
/// async and the blocking client. The parameters come from the `early_webhook` scenario of
/// tests/fixtures/faults.json, as in every language's test of it.
final class EarlyWebhookTests: XCTestCase {
    var sandbox: Sandbox!
    var scenario: [String: Any]!
    var setup: [String: Any]!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        let scenarios = try XCTUnwrap(try fixtureObject("faults.json")["scenarios"] as? [[String: Any]])
        scenario = try XCTUnwrap(scenarios.first { $0["id"] as? String == "early_webhook" })
        setup = try XCTUnwrap(scenario["setup"] as? [String: Any])
    }

    override func tearDown() {
        sandbox?.stop()
    }

    private func text(_ name: String) -> String { setup[name] as! String }

    private var graceMs: Int64 { (setup["not_found_grace_ms"] as! NSNumber).int64Value }

    private var order: ExpectedPayment { ExpectedPayment(amount: Amount(text("amount")), currency: text("currency")) }

    private var waitSetup: [String: Any] { setup["await"] as! [String: Any] }

    private func waitMs(_ name: String) -> Int64 { (waitSetup[name] as! NSNumber).int64Value }

    private var options: AwaitOptions {
        AwaitOptions(initialDelayMs: waitMs("initial_delay_ms"), intervalMs: waitMs("interval_ms"),
                     maxIntervalMs: waitMs("max_interval_ms"), timeoutMs: waitMs("timeout_ms"))
    }

    private func config(graceMs: Int64? = nil) -> ClientConfig {
        ClientConfig(secretKey: SecretKey(key: canaryKey), baseUrl: sandbox.url, timeoutMs: 10_000,
                     notFoundGraceMs: graceMs ?? self.graceMs)
    }

    private func notification(_ reference: String) -> Data {
        Data(#"{"event":"charge.success","data":{"reference":\#(jsonString(reference))}}"#.utf8)
    }

    private func reason(_ decision: WebhookDecision) -> String {
        switch decision {
        case .retryLater(let reason), .reject(let reason), .ignore(let reason), .investigate(_, let reason): reason
        case .fulfil: ""
        }
    }

    func testB53TheScenarioIsThisBehaviour() {
        XCTAssertEqual(scenario["behaviour"] as? String, "B53")
    }

    func testB53AnEarlyWebhookIsRetriedAndFulfilledOnceTheReferenceIsVisible() async throws {
        let client = try Client(config: config())
        let reference = text("reference")
        let early = try await client.handleWebhook(body: notification(reference), expected: order)
        guard case .retryLater = early else { return XCTFail("an early notification must be retryLater: \(early)") }
        XCTAssertEqual(early.httpStatus(), 503)
        XCTAssertFalse(early.acknowledge())
        XCTAssertTrue(reason(early).contains("does not know the reference yet"), reason(early))

        try await sandbox.seedTransaction(transactionObject(reference: reference, status: "successful", amount: text("amount")))
        let redelivered = try await client.handleWebhook(body: notification(reference), expected: order)
        guard case .fulfil(let transaction) = redelivered else { return XCTFail("expected fulfil: \(redelivered)") }
        XCTAssertEqual(transaction.txRef, reference)
    }

    func testB53AnUnknownReferenceIsRetriedWithinTheGraceAndRejectedAfterIt() async throws {
        let client = try Client(config: config())
        let body = notification("EARLY-NEVER-CHARGED")
        let started = ContinuousClock.now
        let first = try await client.handleWebhook(body: body, expected: order)
        XCTAssertEqual(first.httpStatus(), 503)
        let again = try await client.handleWebhook(body: body, expected: order)
        XCTAssertLessThan(ContinuousClock.now - started, .milliseconds(graceMs), "the machine was too slow to check within the grace")
        XCTAssertEqual(again.httpStatus(), 503, "a redelivery within the grace")

        try await Task.sleep(for: .milliseconds(graceMs))
        let late = try await client.handleWebhook(body: body, expected: order)
        guard case .reject(let why) = late else { return XCTFail("after the grace: reject, got \(late)") }
        XCTAssertEqual(late.httpStatus(), 400)
        XCTAssertTrue(why.contains("still does not know"), why)
    }

    func testB53TheBlockingClientHasTheSameGrace() throws {
        let client = try BlockingClient(config: config())
        let body = notification("EARLY-BLOCKING")
        XCTAssertEqual(try client.handleWebhook(body: body, expected: order).httpStatus(), 503)
        Thread.sleep(forTimeInterval: Double(graceMs) / 1000)
        XCTAssertEqual(try client.handleWebhook(body: body, expected: order).httpStatus(), 400)
    }

    func testB53WithoutAGraceAnUnknownReferenceIsRejectedAtOnce() throws {
        let client = try BlockingClient(config: config(graceMs: 0))
        XCTAssertEqual(try client.handleWebhook(body: notification("EARLY-NO-GRACE"), expected: order).httpStatus(), 400)
        let negative = sikaError(blocking: { try BlockingClient(config: self.config(graceMs: -1)) })
        XCTAssertEqual(invalidField(negative), "not_found_grace_ms")
    }

    func testB53AwaitFinalStatusEndsWithNotFoundOnceTheGraceIsOver() async throws {
        let client = try Client(config: config())
        let options = options
        let started = ContinuousClock.now
        let error = await sikaError { try await client.awaitFinalStatus(reference: "AWAIT-NEVER-CHARGED", options: options) }
        let waited = ContinuousClock.now - started
        XCTAssertEqual(error?.kind, "TransactionNotFound")
        XCTAssertGreaterThanOrEqual(waited, .milliseconds(graceMs), "ended before the grace")
        XCTAssertLessThan(waited, .milliseconds(graceMs + waitMs("max_interval_ms") + 2000),
                          "retried past the grace (timeout \(waitMs("timeout_ms")) ms)")
    }

    func testB53AwaitFinalStatusSeesAChargeThatBecomesVisibleDuringTheGrace() async throws {
        let client = try BlockingClient(config: config())
        let (reference, options) = ("AWAIT-EARLY", options)
        // The blocking wait on a thread of its own; the test seeds the charge meanwhile.
        let waiting = Task { await onNewThread { try client.awaitFinalStatus(reference: reference, options: options) } }
        try await Task.sleep(for: .milliseconds(graceMs / 3))
        try await sandbox.seedTransaction(transactionObject(reference: reference, status: "successful", amount: text("amount")))
        let transaction = try await waiting.value.get()
        XCTAssertEqual(transaction.status, .successful)
    }
}
