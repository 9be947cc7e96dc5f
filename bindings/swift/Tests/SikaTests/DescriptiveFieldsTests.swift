import Foundation
import Sika
import XCTest

/// B51: descriptive fields (all but txRef, status, amount and currency) missing, null or of
/// another type read as nil and the decision proceeds. B52: times no language holds (year 0,
/// year 10000, a leap second) read as nil through verify, confirm, webhook, await and a cached
/// bank list; half a second before the epoch crosses exactly, both ways. Cases from
/// tests/fixtures/faults.json.
final class DescriptiveFieldsTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    override func tearDown() {
        sandbox?.stop()
    }

    private let order = ExpectedPayment(amount: 10, currency: "GHS")
    private let fast = AwaitOptions(initialDelayMs: 50, intervalMs: 50, maxIntervalMs: 200, timeoutMs: 5_000)

    /// The fields each confirmed case leaves absent, as the record's JSON names them.
    private let absent: [(String, [String])] = [
        ("descriptive_field_mistyped", ["id", "domain", "has_invoice", "gateway_ref", "payment_type", "created_at", "updated_at"]),
        ("descriptive_fields_missing", ["id", "domain", "has_invoice", "gateway_ref", "payment_type", "created_at", "updated_at", "customer"]),
        ("customer_without_updated_at", []),
        ("timestamp_year_10000", ["created_at", "updated_at"]),
        ("timestamp_leap_second_9999", ["created_at", "updated_at"]),
    ]

    private func notification(_ reference: String) -> Data {
        Data(#"{"event":"charge.success","data":{"reference":\#(jsonString(reference))}}"#.utf8)
    }

    private func recordJSON(_ transaction: Transaction) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(transaction.toJson().utf8)) as? [String: Any])
    }

    func testB51B52ADescriptiveFaultNeverStopsTheDecision() async throws {
        let faults = try fixtureObject("faults.json")
        let cases = try XCTUnwrap(faults["cases"] as? [[String: Any]])
        let client = try sandbox.client()
        for (id, fields) in absent {
            let item = try XCTUnwrap(cases.first { $0["id"] as? String == id }, id)
            XCTAssertEqual(item["outcome"] as? String, "confirmed", id)
            var fault = try XCTUnwrap(item["options"] as? [String: Any])
            (fault["path"], fault["kind"], fault["count"]) = ("/transaction/verify", item["kind"], 4)
            try await sandbox.reset()
            try await sandbox.seedTransaction(transactionObject(reference: "HOSTILE-1", status: "successful", amount: "10"))
            try await sandbox.addFault(json: jsonText(fault))

            let transaction = try await client.verifyTransaction(reference: "HOSTILE-1")
            XCTAssertEqual(transaction.status, .successful, id)
            XCTAssertEqual(transaction.amount, Amount("10"), id)
            let json = try recordJSON(transaction)
            for field in fields {
                XCTAssertTrue(json[field] is NSNull, "\(id): \(field) is \(String(describing: json[field]))")
            }
            if id == "customer_without_updated_at" {
                XCTAssertNil(transaction.customer?.updatedAt)
                XCTAssertNotNil(transaction.customer?.createdAt)
            }
            if id == "descriptive_field_mistyped" {
                let customer = try XCTUnwrap(transaction.customer)
                XCTAssertTrue(customer.id == nil && customer.name == nil && customer.phoneNumber == nil && customer.email == nil)
                XCTAssertNil(transaction.createdAt)
                XCTAssertNil(transaction.hasInvoice)
            }
            XCTAssertEqual(try transactionFromJson(json: transaction.toJson()), transaction, id)
            guard case .confirmed = try await client.confirmPayment(reference: "HOSTILE-1", expected: order) else {
                return XCTFail("\(id): not confirmed")
            }
            guard case .fulfil = try await client.handleWebhook(body: notification("HOSTILE-1"), expected: order) else {
                return XCTFail("\(id): not fulfilled")
            }
            let final = try await client.awaitFinalStatus(reference: "HOSTILE-1", options: fast)
            XCTAssertEqual(final, transaction, id)
        }
    }

    /// The seeded transaction with `created_at` and the customer's `updated_at` set to `text`.
    private func withTimes(_ reference: String, _ text: String) throws -> String {
        let seeded = try transactionObject(reference: reference, status: "successful", amount: "10")
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(seeded.utf8)) as? [String: Any])
        var customer = try XCTUnwrap(object["customer"] as? [String: Any])
        customer["updated_at"] = text
        (object["created_at"], object["customer"]) = (text, customer)
        return try jsonText(object)
    }

    func testB52ATimeNoLanguageHoldsIsAbsentInEveryCall() async throws {
        let faults = try fixtureObject("faults.json")
        let scenarios = try XCTUnwrap(faults["scenarios"] as? [[String: Any]])
        let scenario = try XCTUnwrap(scenarios.first { $0["id"] as? String == "timestamps_out_of_range" })
        let setup = try XCTUnwrap(scenario["setup"] as? [String: Any])
        let exact = try XCTUnwrap(setup["exact"] as? [String: Any])
        let exactText = try XCTUnwrap(exact["text"] as? String)
        let texts: [(String, Int64?)] = try XCTUnwrap(setup["absent"] as? [String]).map { ($0, nil) }
            + [(exactText, try XCTUnwrap(exact["epoch_ms"] as? Int64))]
        let bankListBody = try XCTUnwrap(setup["bank_list_body"] as? String)
        for (text, expectedMs) in texts {
            try await sandbox.reset()
            try await sandbox.seedTransaction(withTimes("B52-1", text))
            let client = try sandbox.client()

            let transaction = try await client.verifyTransaction(reference: "B52-1")
            XCTAssertEqual(epochMs(transaction.createdAt), expectedMs, text)
            XCTAssertEqual(epochMs(transaction.customer?.updatedAt), expectedMs, text)
            XCTAssertNotNil(transaction.updatedAt, text)
            let written = try recordJSON(transaction)["created_at"]
            if expectedMs == nil {
                XCTAssertTrue(written is NSNull, text)
            } else {
                // Back to Rust exactly: the same text, not its mirror image after the epoch.
                XCTAssertEqual(written as? String, text)
            }
            XCTAssertEqual(try transactionFromJson(json: transaction.toJson()), transaction, text)
            guard case .confirmed(let confirmed) = try await client.confirmPayment(reference: "B52-1", expected: order) else {
                return XCTFail("\(text): not confirmed")
            }
            XCTAssertEqual(confirmed, transaction, text)
            guard case .fulfil = try await client.handleWebhook(body: notification("B52-1"), expected: order) else {
                return XCTFail("\(text): not fulfilled")
            }
            let final = try await client.awaitFinalStatus(reference: "B52-1", options: fast)
            XCTAssertEqual(final, transaction, text)

            // A bank list with such a time, then the same list from the cache.
            try await sandbox.addFault("/bank", kind: "body", options: ["body": bankListBody.replacingOccurrences(of: "{time}", with: text)])
            for _ in 0..<2 {
                let banks = try await client.listBanks(country: "NG")
                XCTAssertEqual(banks.map(\.code), ["044"], text)
                XCTAssertEqual(epochMs(banks.first?.createdAt), expectedMs, text)
                XCTAssertNotNil(banks.first?.updatedAt, text)
            }
            let fetched = try await sandbox.requests().filter { $0.path.hasPrefix("/bank") }
            XCTAssertEqual(fetched.count, 1, "\(text): the second list came from the cache")
        }
    }
}
