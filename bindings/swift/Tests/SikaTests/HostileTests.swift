import Foundation
import Sika
import XCTest

/// B29: a broken or hostile service. Every fault of tests/fixtures/faults.json, injected on
/// /transaction/verify, ends in its typed error within the call's deadline: never a crash, a
/// hang or a wrong "paid". Mirrors core/tests/hostile.rs.
final class HostileTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    override func tearDown() {
        sandbox?.stop()
    }

    /// The shared fault list and its settings.
    private struct Faults {
        let budgetMs: Int64
        let slackMs: Int64
        let maxRetries: Int32
        let count: Int
        /// B64: the most characters of an error's message, whatever the service sent.
        let maxMessageChars: Int
        /// (id, kind, options, expected error kind); `error` is nil for `"outcome": "confirmed"`,
        /// a fault the SDK must survive: verify and confirm still succeed.
        let cases: [(id: String, kind: String, options: [String: Any], error: String?)]

        init() throws {
            let object = try fixtureObject("faults.json")
            budgetMs = try XCTUnwrap(object["budget_ms"] as? Int64)
            slackMs = try XCTUnwrap(object["slack_ms"] as? Int64)
            maxRetries = try XCTUnwrap(object["max_retries"] as? Int32)
            count = try XCTUnwrap(object["count"] as? Int)
            maxMessageChars = try XCTUnwrap(object["max_message_chars"] as? Int)
            let list = try XCTUnwrap(object["cases"] as? [[String: Any]])
            cases = try list.map { item in
                let error = item["error"] as? String
                let confirmed = item["outcome"] as? String == "confirmed"
                XCTAssertTrue((error != nil) != confirmed, "\(item): an error or \"outcome\": \"confirmed\"")
                return (try XCTUnwrap(item["id"] as? String), try XCTUnwrap(item["kind"] as? String),
                        try XCTUnwrap(item["options"] as? [String: Any]), error)
            }
        }

        var limit: Duration { .milliseconds(budgetMs + slackMs) }

        func config(_ sandbox: Sandbox) -> ClientConfig {
            var config = sandbox.config()
            config.timeoutMs = budgetMs
            config.maxRetries = maxRetries
            return config
        }

        /// The fault object for POST /__sandbox/faults: the case's options plus path, kind, count.
        func fault(kind: String, options: [String: Any]) throws -> String {
            var fault = options
            (fault["path"], fault["kind"], fault["count"]) = ("/transaction/verify", kind, count)
            return try jsonText(fault)
        }
    }

    /// A clean sandbox with one seeded successful transaction and the case's fault in place.
    private func prepare(_ faults: Faults, kind: String, options: [String: Any]) async throws {
        try await sandbox.reset()
        try await sandbox.seedTransaction(transactionObject(reference: "HOSTILE-1", status: "successful", amount: "10"))
        try await sandbox.addFault(json: faults.fault(kind: kind, options: options))
    }

    // MARK: B50 a service that echoes the key, whole or cut, or forges log lines

    private func assertFitToLeave(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let key = Array(canaryKey)
        let leaked = (0...(key.count - 8)).map { String(key[$0..<($0 + 8)]) }.filter { text.contains($0) }
        XCTAssertTrue(leaked.isEmpty, "\(what): fragments of the key \(leaked) in \(text)", file: file, line: line)
        let breaks: [Character] = ["\n", "\r", "\r\n", "\u{2028}", "\u{2029}", "\u{85}"]
        XCTAssertFalse(text.contains(where: { breaks.contains($0) }), "\(what): a raw line break in \(text)", file: file, line: line)
    }

    func testB50EchoedKeyFragmentsAndLineBreaksNeverLeaveInAnError() async throws {
        let faults = try Faults()
        let echoes = faults.cases.filter { $0.kind == "echo_key" }
        XCTAssertGreaterThanOrEqual(echoes.count, 3, "the echoed-key faults are missing from faults.json")
        for item in echoes {
            try await prepare(faults, kind: item.kind, options: item.options)
            let client = try Client(config: faults.config(sandbox))
            do {
                _ = try await client.verifyTransaction(reference: "HOSTILE-1")
                XCTFail("\(item.id): no error")
            } catch {
                assertFitToLeave("\(error)", item.id)
                assertFitToLeave(String(describing: error), item.id)
                XCTAssertTrue("\(error)".contains("[REDACTED]"), "\(item.id): the echo was not there to remove: \(error)")
            }
        }
    }

    func testB50AKeyEchoedAsTheStatusNeverLeavesInADecisionReason() async throws {
        let faults = try Faults()
        let body = Data(#"{"event":"charge.success","data":{"reference":"ECHO-1"}}"#.utf8)
        for status in [canaryKey, String(canaryKey.dropFirst(3)) + "\nERROR forged"] {
            try await sandbox.reset()
            try await sandbox.seedTransaction(transactionObject(reference: "ECHO-1", status: status, amount: "10"))
            let client = try Client(config: faults.config(sandbox))
            let decision = try await client.handleWebhook(body: body, expected: ExpectedPayment(amount: Amount("10"), currency: "GHS"))
            let reason: String
            switch decision {
            case .investigate(_, let text), .ignore(let text), .retryLater(let text), .reject(let text): reason = text
            case .fulfil: return XCTFail("an unknown status fulfilled: \(decision)")
            }
            assertFitToLeave(reason, "decision reason")
            XCTAssertTrue(reason.contains("[REDACTED]"), "the echo was not there to remove: \(reason)")
        }
    }

    /// The seeded transaction, as a merchant expects it.
    private let paid = ExpectedPayment(amount: Amount("10"), currency: "GHS")

    func testB29AFaultTheSdkSurvivesStillConfirmsThePayment() async throws {
        let faults = try Faults()
        let survived = faults.cases.filter { $0.error == nil }
        XCTAssertFalse(survived.isEmpty, "the faults the SDK must survive left faults.json")
        for item in survived {
            try await prepare(faults, kind: item.kind, options: item.options)
            let client = try Client(config: faults.config(sandbox))
            var started = ContinuousClock.now
            let transaction = try await client.verifyTransaction(reference: "HOSTILE-1")
            XCTAssertLessThan(started.duration(to: .now), faults.limit, "\(item.id): verify")
            XCTAssertEqual(transaction.status, .successful, item.id)
            // The same client again, the fault still in place (`count` answers).
            started = ContinuousClock.now
            let check = try await client.confirmPayment(reference: "HOSTILE-1", expected: paid)
            XCTAssertLessThan(started.duration(to: .now), faults.limit, "\(item.id): confirm")
            guard case .confirmed = check else { return XCTFail("\(item.id): \(check)") }

            try await prepare(faults, kind: item.kind, options: item.options)
            let blocking = try BlockingClient(config: faults.config(sandbox))
            let viaBlocking = await onNewThread { () throws -> String in
                let status = try blocking.verifyTransaction(reference: "HOSTILE-1").status
                let expected = ExpectedPayment(amount: Amount("10"), currency: "GHS")
                let check = try blocking.confirmPayment(reference: "HOSTILE-1", expected: expected)
                if case .confirmed = check, status == .successful { return "confirmed" }
                return "\(status), \(check)"
            }
            XCTAssertEqual(outcomeKind(viaBlocking), "Ok", "\(item.id) (blocking): \(viaBlocking)")
            XCTAssertEqual(try? viaBlocking.get(), "confirmed", "\(item.id) (blocking)")
        }
    }

    func testB29EveryFaultIsATypedErrorWithinTheDeadline() async throws {
        let faults = try Faults()
        XCTAssertGreaterThanOrEqual(faults.cases.count, 18, "the fault list lost cases")
        for item in faults.cases where item.error != nil {
            try await prepare(faults, kind: item.kind, options: item.options)
            let client = try Client(config: faults.config(sandbox))
            let started = ContinuousClock.now
            let result: Result<TransactionStatus, Error>
            do {
                result = .success(try await client.verifyTransaction(reference: "HOSTILE-1").status)
            } catch {
                result = .failure(error)
            }
            let elapsed = started.duration(to: .now)
            XCTAssertEqual(outcomeKind(result), item.error, "\(item.id): \(result)")
            XCTAssertLessThan(elapsed, faults.limit, "\(item.id): took \(elapsed)")
            if case .failure(let error) = result {
                XCTAssertFalse("\(error)".contains(canaryKey), "\(item.id): the key in the error text")
                let message = (error as? SikaError)?.message() ?? "\(error)"
                XCTAssertLessThanOrEqual(message.count, faults.maxMessageChars, "\(item.id): the message's length")
                XCTAssertLessThanOrEqual("\(error)".count, 2 * faults.maxMessageChars, "\(item.id): the error's length")
            }
        }
    }

    /// A few of the faults through the blocking client, each call on a thread of its own.
    func testB29FaultsThroughTheBlockingClient() async throws {
        let faults = try Faults()
        let chosen = ["status_503_html", "status_429_retry_after", "reset", "hang", "drip", "huge_chunked",
                      "deep_json", "non_utf8"]
        let cases = faults.cases.filter { chosen.contains($0.id) && $0.error != nil }
        XCTAssertEqual(cases.count, chosen.count, "a chosen case left faults.json")
        for item in cases {
            try await prepare(faults, kind: item.kind, options: item.options)
            let client = try BlockingClient(config: faults.config(sandbox))
            let started = ContinuousClock.now
            let result = await onNewThread { try client.verifyTransaction(reference: "HOSTILE-1").status }
            let elapsed = started.duration(to: .now)
            XCTAssertEqual(outcomeKind(result), item.error, "\(item.id) (blocking): \(result)")
            XCTAssertLessThan(elapsed, faults.limit, "\(item.id) (blocking): took \(elapsed)")
        }
    }

    func testB29ADuplicatedStatusNeverReadsAsPaid() async throws {
        let faults = try Faults()
        // The stored transaction is failed; the duplicated key's last value says successful.
        try await sandbox.seedTransaction(transactionObject(reference: "DUP-1", status: "failed", amount: "10"))
        // count 3: one answer each for the three calls below.
        try await sandbox.addFault(json: faults.fault(kind: "duplicate_keys", options: ["first": "failed", "second": "successful"]))
        let client = try Client(config: faults.config(sandbox))
        let error = await sikaError { try await client.verifyTransaction(reference: "DUP-1") }
        guard case .UnexpectedResponse? = error else {
            return XCTFail("expected UnexpectedResponse, got \(String(describing: error))")
        }
        // Nor does the payment check built on it ever say Confirmed.
        let check = await sikaError {
            try await client.confirmPayment(reference: "DUP-1", expected: ExpectedPayment(amount: 10, currency: "GHS"))
        }
        XCTAssertEqual(check?.kind, "UnexpectedResponse")
        let blocking = try BlockingClient(config: faults.config(sandbox))
        let viaBlocking = await onNewThread { try blocking.verifyTransaction(reference: "DUP-1").status }
        XCTAssertEqual(outcomeKind(viaBlocking), "UnexpectedResponse")
        // The three faulted answers used up, the honest answer reads failed.
        let honest = try await client.verifyTransaction(reference: "DUP-1")
        XCTAssertEqual(honest.status, .failed)
    }

    func testB29AFaultOnOneEndpointLeavesTheOthersAlone() async throws {
        let faults = try Faults()
        try await sandbox.addFault("/transaction/verify", kind: "hang")
        let client = try Client(config: faults.config(sandbox))
        let providers = try await client.listMobileMoneyProviders()
        XCTAssertEqual(providers.count, 3)
    }
}
