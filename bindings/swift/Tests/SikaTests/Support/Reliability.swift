import Foundation
import Sika
import XCTest

// Helpers of the reliability tests (B29-B32): error kinds by name, shared JSON fixtures,
// polling the sandbox, and blocking work on threads of its own.

extension SikaError {
    /// The case name, as the fixtures spell error kinds (`Api`, `Timeout`, ...).
    var kind: String {
        switch self {
        case .Unauthorized: "Unauthorized"
        case .InvalidCountryCode: "InvalidCountryCode"
        case .NoProvidersFound: "NoProvidersFound"
        case .TransactionNotFound: "TransactionNotFound"
        case .InvalidReference: "InvalidReference"
        case .InvalidInput: "InvalidInput"
        case .Api: "Api"
        case .RateLimited: "RateLimited"
        case .Timeout: "Timeout"
        case .Network: "Network"
        case .UnexpectedResponse: "UnexpectedResponse"
        case .ChargeOutcomeUnknown: "ChargeOutcomeUnknown"
        case .Cancelled: "Cancelled"
        case .Configuration: "Configuration"
        case .Storage: "Storage"
        case .ClaimLost: "ClaimLost"
        }
    }
}

/// The outcome of a call as one word: `Ok`, a SikaError case name, or the foreign error's type.
func outcomeKind<T>(_ result: Result<T, Error>) -> String {
    switch result {
    case .success: "Ok"
    case .failure(let error as SikaError): error.kind
    case .failure(let error): "\(type(of: error))"
    }
}

/// A JSON object of tests/fixtures, parsed with JSONSerialization (so `null` stays NSNull).
func fixtureObject(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
    let data = try Data(contentsOf: fixturesDirectory.appendingPathComponent(name))
    return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any], name, file: file, line: line)
}

/// The cases of a behaviour's scenario file, tests/fixtures/scenarios/NAME (ADR 0037): every
/// language's test of that behaviour runs each of them, so a new case is one row there.
func scenarioCases(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
    let cases = try XCTUnwrap(fixtureObject("scenarios/\(name)")["cases"] as? [[String: Any]], name, file: file, line: line)
    XCTAssertFalse(cases.isEmpty, "scenarios/\(name) has no cases", file: file, line: line)
    return cases
}

/// The `setup` of one scenario of tests/fixtures/faults.json (faults that are not one verify
/// call): every language's test of that behaviour takes its parameters from there.
func scenario(_ id: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
    let scenarios = try XCTUnwrap(fixtureObject("faults.json")["scenarios"] as? [[String: Any]], "scenarios")
    let found = try XCTUnwrap(scenarios.first { $0["id"] as? String == id }, "faults.json: no scenario \(id)", file: file, line: line)
    return try XCTUnwrap(found["setup"] as? [String: Any], "\(id): setup", file: file, line: line)
}

/// A JSON object as compact text.
func jsonText(_ object: [String: Any]) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
}

/// Polls `check` every 50 ms until it holds or `limit` passes; returns whether it held.
/// (A condition, never a fixed sleep, decides the tests' outcome.)
func eventually(
    within limit: Duration = .seconds(5), _ check: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while true {
        if try await check() { return true }
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(50))
    }
}

/// Runs blocking `work` on a thread of its own (never on Swift's cooperative pool) and returns
/// its result to the awaiting task.
func onNewThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async -> Result<T, Error> {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: Result { try work() })
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
