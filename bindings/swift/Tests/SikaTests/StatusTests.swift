import Foundation
import Sika
import XCTest

/// B11: the core's status logic, as Swift sees it (B20, the country table, runs its scenario file
/// in ClientTests).
final class StatusTests: XCTestCase {
    /// The shared rows (tests/fixtures/scenarios/b11_status_actions.json): the service's text read
    /// by the decoder's rule, and what the core's methods say of it.
    func testB11MerchantActionAndIsFinalForEveryStatus() throws {
        for row in try scenarioCases("b11_status_actions.json") {
            let text = try XCTUnwrap(row["text"] as? String)
            let status = transactionStatusFromText(text: text)
            XCTAssertEqual("\(status)", text, "the text is kept")
            XCTAssertEqual(kindText(status).split(separator: ":").first.map(String.init), row["status"] as? String, text)
            XCTAssertEqual(kindText(status.merchantAction()), row["merchant_action"] as? String, text)
            XCTAssertEqual(status.isFinal(), row["is_final"] as? Bool, text)
        }
    }

    /// B40: `toJson()` is the core's text (exact amount string, ISO 8601 UTC, status text), and a
    /// transaction prints with its customer masked.
    func testB40RecordsAreTheCoresJsonAndPrintMasked() throws {
        let body = try Data(contentsOf: fixturesDirectory.appendingPathComponent("responses/verify_successful.json"))
        let transaction = try decodeTransactionResponse(httpStatus: 200, body: body)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(transaction.toJson().utf8)) as? [String: Any])
        // An exact decimal string with its scale: Amount keeps the core's text (ADR 0019).
        XCTAssertEqual(json["amount"] as? String, "100.10")
        XCTAssertEqual(json["status"] as? String, "successful")
        XCTAssertEqual(json["created_at"] as? String, "2024-05-01T12:00:00.000Z")
        XCTAssertEqual(transactionStatusFromText(text: "successful"), .successful)
        let printed = "\(transaction) \(String(reflecting: transaction))"
        let customer = try XCTUnwrap(transaction.customer)
        XCTAssertTrue(printed.hasPrefix("transaction ORDER-1001: successful, 100.10 GHS"), printed)
        XCTAssertFalse(printed.contains(customer.phoneNumber!) || printed.contains(customer.email!), printed)
    }
}
