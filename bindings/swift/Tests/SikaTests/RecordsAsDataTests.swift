import Foundation
import Sika
import XCTest

/// B40 in Swift: records and their enums are Codable in the core's JSON shape, through the
/// core's writer and readers (ADR 0019), and amounts keep their scale.
final class RecordsAsDataTests: XCTestCase {
    /// The successful verification of tests/fixtures: amount 100.10, with a customer and a field.
    private func verifiedTransaction() throws -> Transaction {
        let body = try Data(contentsOf: fixturesDirectory.appendingPathComponent("responses/verify_successful.json"))
        return try decodeTransactionResponse(httpStatus: 200, body: body)
    }

    func testB40JSONEncoderWritesTheCoresJSON() throws {
        let transaction = try verifiedTransaction()
        let encoded = try jsonObject(JSONEncoder().encode(transaction))
        XCTAssertEqual(encoded as NSDictionary, try jsonObject(Data(transaction.toJson().utf8)) as NSDictionary)
        XCTAssertEqual(encoded["amount"] as? String, "100.10")
        XCTAssertEqual(encoded["status"] as? String, "successful")
        XCTAssertEqual(encoded["payment_type"] as? String, "mobile_money")
        XCTAssertEqual(encoded["created_at"] as? String, "2024-05-01T12:00:00.000Z")
        XCTAssertEqual(encoded["updated_at"] as? String, "2024-05-01T12:01:30.500Z")
        // The encoder's own date strategy does not apply: the core wrote the times as text.
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let withStrategy = try jsonObject(encoder.encode(transaction))
        XCTAssertEqual(withStrategy["created_at"] as? String, "2024-05-01T12:00:00.000Z")
    }

    /// A Date is a Double: the service's milliseconds must survive the trip back to Rust
    /// (`toJson()`, Codable) exactly, not as `.789999961`.
    func testB40TimesKeepTheirMillisecondsThroughSwift() throws {
        for time in ["2024-05-01T12:00:00.123Z", "2026-11-23T15:12:05.790Z", "2026-11-23T15:12:05.942Z"] {
            let object = try transactionObject(reference: "TIME-1", status: "successful", amount: "1.00")
                .replacingOccurrences(of: "2024-05-01T12:00:00.123Z", with: time)
            let body = Data(#"{"status":true,"message":"ok","data":\#(object)}"#.utf8)
            let transaction = try decodeTransactionResponse(httpStatus: 200, body: body)
            XCTAssertEqual(try jsonObject(Data(transaction.toJson().utf8))["created_at"] as? String, time)
            XCTAssertEqual(try jsonObject(JSONEncoder().encode(transaction))["created_at"] as? String, time)
            XCTAssertEqual(try JSONDecoder().decode(Transaction.self, from: JSONEncoder().encode(transaction)), transaction, time)
        }
    }

    func testB40AmountsKeepTheirScale() throws {
        let transaction = try verifiedTransaction()
        XCTAssertEqual(transaction.amount.text, "100.10")
        XCTAssertEqual("\(transaction.amount)", "100.10")
        XCTAssertEqual(transaction.amount.decimal, Decimal(string: "100.1"))
        // Equal (and hashed) by value, as Decimal was; the text tells the scales apart.
        let written: Amount = "100.1"
        XCTAssertEqual(transaction.amount, written)
        XCTAssertEqual(Set([transaction.amount, written]).count, 1)
        XCTAssertNotEqual(transaction.amount.text, written.text)
        XCTAssertLessThan(written, Amount("100.11"))
        // The scale crosses to the core and back: what is sent is what was written.
        let request = chargeRequest(reference: "ORDER-SCALE", amount: "25.50")
        XCTAssertEqual(try jsonObject(Data(request.toJson().utf8))["amount"] as? String, "25.50")
        let order = ExpectedPayment(amount: Amount("7.50"), currency: "GHS")
        XCTAssertEqual(try jsonObject(JSONEncoder().encode(order))["amount"] as? String, "7.50")
        XCTAssertEqual(Amount(Decimal(string: "25.50")!).text, "25.5", "a Decimal has no scale to keep")
        XCTAssertEqual(try JSONDecoder().decode([Amount].self, from: Data(#"["0.10"]"#.utf8)).first?.text, "0.10")
    }

    func testB40AnAmountDecodesOnlyFromDecimalText() throws {
        XCTAssertEqual(try JSONDecoder().decode([Amount].self, from: Data(#"["25.50", "-1", "100"]"#.utf8)).map(\.text), ["25.50", "-1", "100"])
        for text in ["NaN", "ten", "", "1.2.3", "25,50", " 25.50", "Infinity", "0x10"] {
            let json = try JSONEncoder().encode([text])
            XCTAssertThrowsError(try JSONDecoder().decode([Amount].self, from: json), text) { error in
                guard case DecodingError.dataCorrupted = error else { return XCTFail("\(text): \(error)") }
            }
        }
    }

    func testB40StatusesAndPaymentTypesAreTheServiceTextBothWays() throws {
        let statuses: [TransactionStatus] = [.successful, .pending, .failed, .abandoned, .reversed, .unknown(value: "success")]
        let statusTexts = try JSONDecoder().decode([String].self, from: JSONEncoder().encode(statuses))
        XCTAssertEqual(statusTexts, ["successful", "pending", "failed", "abandoned", "reversed", "success"])
        XCTAssertEqual(try JSONDecoder().decode([TransactionStatus].self, from: JSONEncoder().encode(statuses)), statuses)
        let types: [PaymentType] = [.mobileMoney, .card, .other(value: "ussd_bank")]
        XCTAssertEqual(
            try JSONDecoder().decode([String].self, from: JSONEncoder().encode(types)), ["mobile_money", "card", "ussd_bank"])
        XCTAssertEqual(try JSONDecoder().decode([PaymentType].self, from: JSONEncoder().encode(types)), types)
        let accounts: [BankAccountType] = [.nuban, .accountNumber, .other(value: "iban")]
        XCTAssertEqual(
            try JSONDecoder().decode([String].self, from: JSONEncoder().encode(accounts)), ["nuban", "account_number", "iban"])
        XCTAssertEqual(try JSONDecoder().decode([BankAccountType].self, from: JSONEncoder().encode(accounts)), accounts)
    }

    /// A merchant's own Codable type (a Vapor `Content`, a cache entry) holds a transaction,
    /// and reads it back equal, amount scale included.
    func testB40AMerchantsCodableTypeHoldsATransactionAndReadsItBack() throws {
        struct Order: Codable, Equatable {
            let id: String
            let status: TransactionStatus
            let payment: Transaction
        }
        let transaction = try verifiedTransaction()
        let order = try jsonObject(JSONEncoder().encode(Order(id: "1001", status: transaction.status, payment: transaction)))
        XCTAssertEqual(order["id"] as? String, "1001")
        XCTAssertEqual(order["status"] as? String, "successful")
        let payment = try XCTUnwrap(order["payment"] as? [String: Any])
        XCTAssertEqual(payment as NSDictionary, try jsonObject(Data(transaction.toJson().utf8)) as NSDictionary)
        let original = Order(id: "1001", status: transaction.status, payment: transaction)
        let back = try JSONDecoder().decode(Order.self, from: JSONEncoder().encode(original))
        XCTAssertEqual(back, original)
        XCTAssertEqual(back.payment.amount.text, "100.10")
        XCTAssertEqual(back.payment.createdAt, transaction.createdAt)
        XCTAssertEqual(back.payment.rawJson, transaction.rawJson)
    }

    /// Text that is not a record's JSON is a DecodingError carrying the core's InvalidInput.
    func testB40DecodingSomethingElseIsADecodingErrorFromTheCore() throws {
        for text in [#"{"id":"seven"}"#, #"[1,2]"#, #""successful""#] {
            XCTAssertThrowsError(try JSONDecoder().decode(Transaction.self, from: Data(text.utf8)), text) { error in
                guard case DecodingError.dataCorrupted(let context) = error,
                      case SikaError.InvalidInput(let field, _)? = context.underlyingError as? SikaError else {
                    return XCTFail("\(text): \(error)")
                }
                XCTAssertEqual(field, "json", text)
            }
        }
    }

    /// Every record and enum the core exports is Encodable in the core's shape, except those
    /// holding a Rust object or only steering a call. A record added to the core without a
    /// conformance here fails this test (the list is read from the generated Sika.swift).
    func testB40EveryExportedRecordAndEnumIsEncodable() throws {
        let transaction = try verifiedTransaction()
        let banks = try decodeBanksResponse(httpStatus: 200, body: fixtureData("responses/banks_ng.json"))
        let providers = try decodeProvidersResponse(httpStatus: 200, body: fixtureData("responses/providers_gh.json"))
        let charge = try decodeChargeResponse(httpStatus: 200, body: fixtureData("responses/charge_accepted.json"))
        let event = try parseWebhookEvent(body: Data(#"{"event":"charge.success","data":{"reference":"R-1"}}"#.utf8))
        let records: [any CoreJSONCodable & Equatable] = [
            try XCTUnwrap(banks.first), chargeRequest(reference: "ORDER-1"), charge, try XCTUnwrap(countries().first),
            try XCTUnwrap(transaction.customFields.first), try XCTUnwrap(transaction.customer),
            ExpectedPayment(amount: "10.50", currency: "GHS"), try XCTUnwrap(providers.first), transaction, event,
            ReadyPayment(reference: transaction.txRef, transaction: transaction),
        ] + ledgerRecords() + decisions(transaction)
        for record in records {
            let encoded = try jsonObject(JSONEncoder().encode(record))
            XCTAssertEqual(encoded as NSDictionary, try jsonObject(Data(record.toJson().utf8)) as NSDictionary, "\(type(of: record))")
            XCTAssertTrue(try readsBackEqual(record), "\(type(of: record))")
        }
        let texts: [any ServiceTextCodable] = [TransactionStatus.successful, PaymentType.mobileMoney, BankAccountType.nuban]
        let encodable = Set((records.map { type(of: $0) as Any.Type } + texts.map { type(of: $0) as Any.Type })
            .map { String(describing: $0) })
        // Not data: they hold a Rust object (SecretKey, Cancellation) or steer the logging bridge.
        // The decisions are data since ADR 0080 (B261: their kind under `outcome`). The ledger's EventSource and EventKind are written as their stored texts inside
        // PaymentEvent's JSON; on their own they have no core parser (`*_from_text`) yet. A
        // reconcile run's report and its entries are its answer to the job (holding
        // LedgerDecisions), not stored values. The tracer's records are its arguments and answer
        // (ADR 0058), like LogRecord.
        let notData: Set = [
            "ClientConfig", "AwaitOptions", "LogRecord", "LogLevel", "MerchantAction",
            "EventSource", "EventKind", "ReconcileReport", "ReconciledPayment", "ReconcileFailure",
            "CallStart", "TracedCall", "CallEnd", "AttemptSpan", "EndedCall",
        ]
        let exported = try exportedRecordsAndEnums()
        XCTAssertFalse(exported.isEmpty)
        XCTAssertEqual(exported.subtracting(notData), encodable, "exported records and enums without Codable (or gone)")
    }

    /// B261: decisions of each kind (ADR 0080), `Codable` through the core's JSON, their kind kept.
    private func decisions(_ transaction: Transaction) -> [any CoreJSONCodable & Equatable] {
        let at = Date(timeIntervalSinceReferenceDate: 736_257_600)
        return [
            PaymentCheck.confirmed(transaction: transaction),
            PaymentCheck.notYet(transaction: transaction),
            PaymentCheck.notPaid(transaction: transaction, action: .investigate),
            PaymentCheck.mismatch(transaction: transaction, field: "amount", expected: "100", actual: "100.10"),
            WebhookDecision.retryLater(reason: "pending"),
            LedgerDecision.alreadyFulfilled(reference: "ORDER-1", fulfilledAt: at),
            LedgerDecision.decided(decision: .reject(reason: "no reference")),
        ]
    }

    /// The ledger's records (ADR 0050), at whole seconds so that a `Date` holds them exactly.
    private func ledgerRecords() -> [any CoreJSONCodable & Equatable] {
        let at = Date(timeIntervalSinceReferenceDate: 736_257_600)
        let event = PaymentEvent(at: at, source: .webhook, kind: .fulfil, status: "successful", detail: "claim 1")
        return [
            Claim(reference: "ORDER-1", token: "token-1", offer: 2, leaseExpiresAt: at.addingTimeInterval(300)),
            event,
            PaymentRecord(
                reference: "ORDER-1", expected: ExpectedPayment(amount: "100.10", currency: "GHS"), createdAt: at,
                lastStatus: "successful", lastStatusAt: at, claimsOffered: 1, claimExpiresAt: at.addingTimeInterval(300),
                fulfilledAt: nil, events: [event]),
            LedgerOptions(leaseMs: 60_000, schema: "shop"),
            ReconcileOptions(olderThanMs: 300_000, limit: 500),
        ]
    }

    /// The names of the generated `public struct` and `public enum` declarations of the core's
    /// types (not UniFFI's own converters) in Sources/Sika/Sika.swift.
    private func exportedRecordsAndEnums() throws -> Set<String> {
        let generated = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().appendingPathComponent("../../Sources/Sika/Sika.swift").standardized
        let source = try String(contentsOf: generated, encoding: .utf8)
        var names: Set<String> = []
        for line in source.split(separator: "\n") {
            for prefix in ["public struct ", "public enum "] where line.hasPrefix(prefix) {
                let name = line.dropFirst(prefix.count).prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                if !name.hasPrefix("FfiConverter") && !name.hasPrefix("Uniffi") && name != "RustBuffer" && name != "ForeignBytes" {
                    names.insert(String(name))
                }
            }
        }
        return names
    }

    private func readsBackEqual<Record: CoreJSONCodable & Equatable>(_ record: Record) throws -> Bool {
        try JSONDecoder().decode(Record.self, from: JSONEncoder().encode(record)) == record
    }

    private func fixtureData(_ name: String) throws -> Data {
        try Data(contentsOf: fixturesDirectory.appendingPathComponent(name))
    }

    /// B186: a merchant's own test builds a transaction from the fields every transaction has.
    func testB186ATestDoubleTransactionNeedsOnlyTheFieldsEveryTransactionHas() throws {
        let transaction = Transaction(
            amount: Amount("25.50"), currency: "GHS", txRef: "SW-DOUBLE-1", status: .successful, rawJson: "{}")
        XCTAssertEqual(transaction.status.merchantAction(), .fulfilOrder)
        XCTAssertNil(transaction.id)
        XCTAssertNil(transaction.customer)
        XCTAssertNil(transaction.createdAt)
        XCTAssertEqual(transaction.customFields, [])
    }

    private func jsonObject(_ data: Data, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any], file: file, line: line)
    }
}
