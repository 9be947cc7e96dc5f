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

/// Where SwiftPM put this package's executables (the test children `ShutdownChild` and
/// `KilledWorkerChild`): beside the test bundle.
var productsDirectory: URL {
    #if os(macOS)
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        return bundle.bundleURL.deletingLastPathComponent()
    }
    fatalError("no .xctest bundle")
    #else
    return Bundle.main.bundleURL
    #endif
}

/// A valid GHS mobile money charge; tests change one field at a time.
func chargeRequest(reference: String, phone: String = "+233244125678", amount: String = "20") -> ChargeRequest {
    ChargeRequest(
        amount: Amount(amount), email: "ama@example.com", phoneNumber: phone, reference: reference,
        currency: "GHS", provider: "MTN", callbackUrl: "https://shop.example.com/return")
}

/// The seeded transaction every suite uses (tests/fixtures/seeded_transaction.json) as JSON
/// text: the file's `object` with its placeholders replaced. The amount goes in as raw number
/// text, so `100.10` stays `100.10` on the wire. `gatewayRefField` renames the `gw_ref` key,
/// as the service does when it brands it (`xyz_ref`).
func transactionObject(
    reference: String, status: String, amount: String, gatewayRefField: String = "gw_ref"
) throws -> String {
    let seeded = try SeededTransaction()
    // The key first: a reference may itself read "gw_ref".
    return seeded.objectText
        .replacingOccurrences(of: jsonString("gw_ref"), with: jsonString(gatewayRefField))
        .replacingOccurrences(of: seeded.placeholders.reference, with: jsonString(reference))
        .replacingOccurrences(of: seeded.placeholders.status, with: jsonString(status))
        .replacingOccurrences(of: seeded.placeholders.amount, with: amount)
}

/// tests/fixtures/seeded_transaction.json: the object's text and what it decodes to.
struct SeededTransaction {
    struct Placeholders: Decodable {
        let reference, status, amount: String
    }

    /// What the seeded object decodes to, as the file states it.
    struct Expected: Decodable {
        let createdAtEpochMs, updatedAtEpochMs: Int64
        let gatewayRef, customerPhoneNumber, customerEmail: String
    }

    private struct Described: Decodable {
        let placeholders: Placeholders
        let expected: Expected
    }

    /// `object` as compact JSON text, placeholders still in it.
    let objectText: String
    let placeholders: Placeholders
    let expected: Expected

    init() throws {
        let name = "seeded_transaction.json"
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let described = try decoder.decode(
            Described.self, from: Data(contentsOf: fixturesDirectory.appendingPathComponent(name)))
        (placeholders, expected) = (described.placeholders, described.expected)
        let object = try XCTUnwrap(fixtureObject(name)["object"] as? [String: Any], "\(name): object")
        objectText = try jsonText(object)
    }
}

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

/// Epoch milliseconds of a time the service may leave out (B51, B52); nil when absent.
func epochMs(_ date: Date?) -> Int64? {
    date.map { epochMs($0) }
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
