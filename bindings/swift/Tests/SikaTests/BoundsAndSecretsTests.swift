import Foundation
import Sika
import XCTest

/// Issue 25 in Swift: no input reaches an internal error (B63), texts from the service are
/// bounded (B64), and a key the service echoes into a record's fields is in no record, printed form, decision or log record (B66).
final class BoundsAndSecretsTests: XCTestCase {
    var sandbox: Sandbox!
    let sink = RecordingLogSink.shared

    override func setUp() async throws {
        sandbox = try Sandbox()
        _ = sink.taken()
    }

    override func tearDown() {
        sink.want(nil)
        sandbox?.stop()
    }

    private func config() -> ClientConfig {
        var config = sandbox.config()
        config.maxRetries = 0
        return config
    }

    private func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    // ---- B63 ----------------------------------------------------------------------------------

    func testB63ToJsonOfAnAmountTheCoreCannotHoldIsInvalidInput() throws {
        for amount in ["1e40", "123456789012345678901234567890", "-1E+29"] {
            let expected = ExpectedPayment(amount: ExactAmount(amount), currency: "GHS")
            XCTAssertEqual(invalidField(sikaError(blocking: { try expected.toJson() })), "amount", amount)
            let request = chargeRequest(reference: "B63-SW", amount: amount)
            XCTAssertEqual(invalidField(sikaError(blocking: { try request.toJson() })), "amount", amount)
            // Codable goes through the same text: a typed error, never a crash.
            XCTAssertThrowsError(try JSONEncoder().encode(expected), amount)
        }
        XCTAssertTrue(try ExpectedPayment(amount: ExactAmount("10.50"), currency: "GHS").toJson().contains("\"10.50\""))
    }

    // ---- B64 ----------------------------------------------------------------------------------

    func testB64ASevenMegabyteServiceMessageGivesAnExceptionOfBoundedSize() async throws {
        let faults = try fixtureObject("faults.json")
        let maxChars = try XCTUnwrap(faults["max_message_chars"] as? Int)
        let cases = try XCTUnwrap(faults["cases"] as? [[String: Any]])
        let oversized = try XCTUnwrap(cases.first { $0["id"] as? String == "oversized_message" })
        var fault = try XCTUnwrap(oversized["options"] as? [String: Any])
        (fault["path"], fault["kind"], fault["count"]) = ("/transaction/verify", oversized["kind"], 1)
        try await sandbox.addFault(json: jsonText(fault))
        let client = try Client(config: config())
        let failure = await sikaError { try await client.verifyTransaction(reference: "B64-SW-1") }
        let error = try XCTUnwrap(failure)
        guard case .Api = error else { return XCTFail("expected Api, got \(error)") }
        XCTAssertLessThanOrEqual(error.message().count, maxChars)
        XCTAssertLessThanOrEqual(String(describing: error).count, 2 * maxChars)
        XCTAssertLessThanOrEqual(String(reflecting: error).count, 2 * maxChars)
        XCTAssertTrue(error.message().contains("[cut: 7000000 characters in all]"), String(error.message().suffix(80)))
    }

    // ---- B66 ----------------------------------------------------------------------------------

    private func echoFault(_ echo: [String: Any], _ which: String) async throws {
        let setup = try XCTUnwrap(echo[which] as? [String: Any])
        try await sandbox.addFault(
            try XCTUnwrap(setup["path"] as? String), kind: try XCTUnwrap(echo["fault_kind"] as? String),
            count: try XCTUnwrap(echo["count"] as? Int), options: ["body": try XCTUnwrap(setup["body"] as? String)])
    }

    private func assertNoKey(_ texts: [String], _ what: String, fragment: Int, line: UInt = #line) {
        let key = Array(canaryKey)
        let fragments = (0...(key.count - fragment)).map { String(key[$0..<($0 + fragment)]) }
        for text in texts {
            let leaked = fragments.filter { text.contains($0) }
            XCTAssertTrue(leaked.isEmpty, "\(what): fragments of the key \(leaked) in \(text.prefix(300))", line: line)
        }
    }

    private func logged() -> [String] {
        sink.taken().flatMap { [$0.message, String(describing: $0)] }
    }

    func testB66AKeyEchoedIntoTheStatusIsInNoRecordDecisionOrLog() async throws {
        let echo = try scenario("echoed_key_in_fields")
        let fragment = try XCTUnwrap(echo["fragment_chars"] as? Int)
        let reference = try XCTUnwrap(echo["reference"] as? String)
        let order = ExpectedPayment(amount: 10, currency: "GHS")
        sink.want(.trace)
        let client = try Client(config: config())

        try await echoFault(echo, "status_echo")
        let transaction = try await client.verifyTransaction(reference: reference)
        XCTAssertEqual(transaction.status, .unknown(value: try XCTUnwrap(echo["marker"] as? String)))
        let codable = String(decoding: try JSONEncoder().encode(transaction), as: UTF8.self)
        assertNoKey([String(describing: transaction), String(reflecting: transaction), dumped(transaction),
                     try transaction.toJson(), transaction.rawJson, codable], "transaction", fragment: fragment)

        try await echoFault(echo, "status_echo")
        let check = try await client.confirmPayment(reference: reference, expected: order)
        if case .confirmed = check { XCTFail("\(check)") }
        assertNoKey([String(describing: check), dumped(check)], "payment check", fragment: fragment)

        try await echoFault(echo, "status_echo")
        let body = Data(#"{"event":"charge.success","data":{"reference":"\#(reference)"}}"#.utf8)
        let decision = try await client.handleWebhook(body: body, expected: order)
        if case .fulfil = decision { XCTFail("\(decision)") }
        assertNoKey([String(describing: decision), dumped(decision)], "decision", fragment: fragment)
        assertNoKey(logged(), "log records", fragment: fragment)
    }

    func testB66AKeyEchoedIntoTheTxRefIsInNoErrorOrLog() async throws {
        let echo = try scenario("echoed_key_in_fields")
        let fragment = try XCTUnwrap(echo["fragment_chars"] as? Int)
        sink.want(.trace)
        try await echoFault(echo, "tx_ref_echo")
        let client = try Client(config: config())
        let reference = try XCTUnwrap(echo["reference"] as? String)
        let failure = await sikaError { try await client.verifyTransaction(reference: reference) }
        let error = try XCTUnwrap(failure)
        guard case .UnexpectedResponse = error else { return XCTFail("expected UnexpectedResponse, got \(error)") }
        assertNoKey([error.message(), String(describing: error), String(reflecting: error)], "error", fragment: fragment)
        let records = logged()
        XCTAssertTrue(records.contains { $0.contains("domain") }, "the mistyped domain is logged: \(records)")
        assertNoKey(records, "log records", fragment: fragment)
    }

    func testB66AKeyEchoedIntoAChargeMessageIsInNoResponse() async throws {
        let echo = try scenario("echoed_key_in_fields")
        let fragment = try XCTUnwrap(echo["fragment_chars"] as? Int)
        sink.want(.trace)
        try await echoFault(echo, "message_echo")
        let response = try await Client(config: config()).initiateCharge(request: chargeRequest(reference: "B66-SW-CHARGE"))
        XCTAssertTrue(response.message?.contains(try XCTUnwrap(echo["marker"] as? String)) ?? false, "\(response)")
        assertNoKey([String(describing: response), dumped(response), try response.toJson(), response.rawJson,
                     response.dataJson ?? ""], "charge response", fragment: fragment)
        assertNoKey(logged(), "log records", fragment: fragment)
    }
}
