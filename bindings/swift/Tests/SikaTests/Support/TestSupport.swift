import Foundation
import Sika
import XCTest

/// The sandbox's key in every test: it must never show up in any text the SDK produces.
let canaryKey = "sk_test_canary_swift_5e7d21"

/// `tests/fixtures` of the repo: `$SIKA_FIXTURES_DIR` (set by scripts/test-swift), else found
/// from this file's path for a hand-run `swift test`.
let fixturesDirectory: URL = {
    if let dir = ProcessInfo.processInfo.environment["SIKA_FIXTURES_DIR"] {
        return URL(fileURLWithPath: dir)
    }
    return URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("../../../../../tests/fixtures").standardized
}()

/// An exact decimal from its text (never through a binary float).
func decimal(_ text: String) -> Decimal? {
    Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
}

/// A valid GHS mobile money charge; tests change one field at a time.
func chargeRequest(reference: String, phone: String = "+233244125678", amount: String = "20") -> ChargeRequest {
    ChargeRequest(
        amount: decimal(amount)!, email: "ama@example.com", phoneNumber: phone, reference: reference,
        currency: "GHS", provider: "MTN", callbackUrl: "https://shop.example.com/return")
}

/// A complete transaction object as the service sends it, as JSON text (the amount is
/// written as given, so `100.10` stays `100.10` on the wire). `created_at` has milliseconds.
func transactionObject(reference: String, status: String, amount: String, gatewayRefField: String = "gw_ref") -> String {
    """
    {"id":7,"domain":"test","amount":\(amount),"currency":"GHS","due_date":null,"has_invoice":false,\
    "invoice_number":null,"description":null,"tx_ref":\(jsonString(reference)),"\(gatewayRefField)":"GW-SEED",\
    "status":"\(status)","payment_type":"mobile_money","created_at":"2024-05-01T12:00:00.123Z",\
    "updated_at":"2024-05-01T12:30:00.000Z","customer":{"id":1,"name":"Ama","phone_number":"+233244123456",\
    "email":"ama@example.com","created_at":"2024-04-01T09:00:00.000Z","updated_at":"2024-04-01T09:00:00.000Z"},\
    "meta":{"custom_fields":[]}}
    """
}

/// `created_at` of `transactionObject` (2024-05-01T12:00:00.123Z) in epoch milliseconds.
let seededCreatedAtMs: Int64 = 1_714_564_800_123

/// A string as a JSON string literal.
func jsonString(_ text: String) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .withoutEscapingSlashes
    return String(decoding: try! encoder.encode(text), as: UTF8.self)
}

/// Milliseconds since the epoch, rounded: UniFFI carries seconds and nanoseconds into a Date.
func epochMs(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1000).rounded())
}

/// Verifies until `done(status)` or `limit` passes; returns the last transaction.
func verifyUntil(
    _ client: Client, _ reference: String, limit: Duration = .seconds(5),
    _ done: (TransactionStatus) -> Bool
) async throws -> Transaction {
    let deadline = ContinuousClock.now + limit
    while true {
        let transaction = try await client.verifyTransaction(reference: reference)
        if done(transaction.status) || ContinuousClock.now > deadline {
            return transaction
        }
        try await Task.sleep(for: .milliseconds(50))
    }
}

/// The SikaError an async call throws; records a failure if it returns or throws another type.
func sikaError<T>(
    _ call: () async throws -> T, file: StaticString = #filePath, line: UInt = #line
) async -> SikaError? {
    do {
        let value = try await call()
        XCTFail("expected a SikaError, got \(value)", file: file, line: line)
    } catch let error as SikaError {
        return error
    } catch {
        XCTFail("expected a SikaError, got \(error)", file: file, line: line)
    }
    return nil
}

/// The SikaError a blocking call throws; records a failure otherwise.
func sikaError<T>(
    blocking call: () throws -> T, file: StaticString = #filePath, line: UInt = #line
) -> SikaError? {
    do {
        let value = try call()
        XCTFail("expected a SikaError, got \(value)", file: file, line: line)
    } catch let error as SikaError {
        return error
    } catch {
        XCTFail("expected a SikaError, got \(error)", file: file, line: line)
    }
    return nil
}

/// The field an InvalidInput names, or nil for any other error.
func invalidField(_ error: SikaError?) -> String? {
    if case .InvalidInput(let field, _) = error { return field }
    return nil
}

/// A value several threads append to, for the concurrency tests.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func mutate(_ change: (inout Value) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        change(&value)
    }

    var current: Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
