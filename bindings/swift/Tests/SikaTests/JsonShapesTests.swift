import Foundation
import Sika
import XCTest

/// B114 in Swift: one JSON shape (ADR 0047). The `Transaction` of `tests/fixtures/json_shapes/`
/// is the core's `toJson()` bytes; `Codable` writes its members in the core's order (an encoder
/// that keeps the order of encoded keys writes those bytes exactly); `JSONEncoder` with
/// `.withoutEscapingSlashes` writes the same members with the same bytes each (its own order of
/// keys); everything reads back equal.
final class JsonShapesTests: XCTestCase {
    private let shapes = fixturesDirectory.appendingPathComponent("json_shapes")

    /// The fixture's bytes, without the file's final newline.
    private func expected() throws -> String {
        var text = try String(decoding: Data(contentsOf: shapes.appendingPathComponent("transaction.json")), as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    private func transaction() throws -> Transaction {
        let body = try Data(contentsOf: shapes.appendingPathComponent("transaction_response.json"))
        return try decodeTransactionResponse(httpStatus: 200, body: body)
    }

    /// A merchant's type holding the record.
    private struct PaidOrder: Codable, Equatable {
        let orderId: String
        let transaction: Transaction
    }

    func testB114ToJsonIsTheFixtureBytes() throws {
        XCTAssertEqual(try transaction().toJson(), try expected())
    }

    func testB114CodableWritesTheCoresKeyOrder() throws {
        let transaction = try transaction()
        let expected = try expected()
        XCTAssertEqual(try OrderedJSONEncoder.encode(transaction), expected)
        XCTAssertEqual(
            try OrderedJSONEncoder.encode(PaidOrder(orderId: "A-1", transaction: transaction)),
            #"{"orderId":"A-1","transaction":"# + expected + "}")
        XCTAssertEqual(try OrderedJSONEncoder.encode([transaction]), "[" + expected + "]")
    }

    func testB114JSONEncoderWritesTheFixtureMembersAndReadsBack() throws {
        let transaction = try transaction()
        let expected = try expected()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let data = try encoder.encode(transaction)
        let text = String(decoding: data, as: UTF8.self)
        // Same bytes per member, `/` and non-ASCII as they are: only the order of keys is
        // Foundation's own (its keyed containers are Dictionaries).
        XCTAssertEqual(text.utf8.count, expected.utf8.count)
        XCTAssertFalse(text.contains(#"\/"#))
        XCTAssertTrue(text.contains(#"1/2 price"#))
        XCTAssertTrue(text.contains(#""name":"Ama Ɔsei""#))
        for member in [
            #""id":4521"#, #""amount":"100.10""#, #""due_date":null"#, #""has_invoice":false"#,
            #""gateway_ref":"GW-8F3A2C""#, #""created_at":"2024-05-01T12:00:00.123Z""#,
            #""updated_at":"2024-05-01T12:01:30.000Z""#, #""updated_at":"2024-04-01T09:00:00.000250Z""#,
            #""custom_fields":[{"#,
        ] {
            XCTAssertTrue(text.contains(member), member)
        }
        let rawJSON = try XCTUnwrap(jsonObject(Data(expected.utf8))["raw_json"] as? String)
        XCTAssertEqual(try jsonObject(data)["raw_json"] as? String, rawJSON)
        XCTAssertEqual(try jsonObject(data) as NSDictionary, try jsonObject(Data(expected.utf8)) as NSDictionary)
        XCTAssertEqual(try JSONDecoder().decode(Transaction.self, from: data), transaction)
        XCTAssertEqual(try JSONDecoder().decode(Transaction.self, from: Data(expected.utf8)), transaction)
        // Without the setting, Foundation escapes `/`: not the core's bytes.
        let plain = String(decoding: try JSONEncoder().encode(transaction), as: UTF8.self)
        XCTAssertTrue(plain.contains(#"1\/2 price"#))
        let order = PaidOrder(orderId: "A-1", transaction: transaction)
        XCTAssertEqual(try JSONDecoder().decode(PaidOrder.self, from: encoder.encode(order)), order)
    }

    private func jsonObject(_ data: Data) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}
