import Foundation
import Shop
import Sika
import XCTest

/// B45: a package outside bindings/swift uses Sika as the README says. scripts/test-swift
/// starts the sandbox and passes SIKA_BASE_URL and SIKA_SECRET_KEY.
final class CheckoutTests: XCTestCase {
    func testB45AConsumerPackageRunsTheMobileMoneyFlow() async throws {
        let checkout = Checkout(client: try Client.fromEnv())
        let reference = "CONSUMER-\(UUID().uuidString.prefix(8))"
        // The sandbox answers by the last four digits: 0000 is a successful payment.
        let paid = try await checkout.pay(reference: reference, amount: "25.50", phoneNumber: "024 412 0000")
        let order = try XCTUnwrap(paid, "the payment was not confirmed")
        XCTAssertEqual(order.reference, reference)
        XCTAssertEqual(order.status, .successful)
        let stored = try JSONEncoder().encode(order)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: stored) as? [String: Any])
        XCTAssertEqual(json["amount"] as? String, "25.50")
        XCTAssertEqual(json["status"] as? String, "successful")
        let decoded = try JSONDecoder().decode(PaidOrder.self, from: stored)
        XCTAssertEqual(decoded.amount.text, "25.50")
        XCTAssertEqual(decoded.status, .successful)
        XCTAssertEqual(decoded.transaction, order.transaction, "read back: \((try? decoded.transaction.toJson()) ?? "(not writable)")")
    }

    /// SwiftPM accepts unsafe flags from a root or path dependency, so building this package
    /// alone would not catch them: Sika's manifest itself must have none, nor an absolute path
    /// (the library comes through sika_ffi.pc, ADR 0020).
    func testB45SikasManifestHasNoUnsafeFlagsOrAbsolutePaths() throws {
        let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../../bindings/swift/Package.swift").standardized
        let text = try String(contentsOf: manifest, encoding: .utf8)
        XCTAssertTrue(text.contains(#"pkgConfig: "sika_ffi""#), "the library is found through pkg-config")
        for forbidden in ["unsafeFlags", "linkerSettings", "Context.packageDirectory", "rpath", "\"/"] {
            XCTAssertFalse(text.contains(forbidden), "\(manifest.path) contains \(forbidden)")
        }
    }

    func testB45AFailedPaymentIsNotConfirmed() async throws {
        let checkout = Checkout(client: try Client.fromEnv())
        // 1111: the customer declines.
        let paid = try await checkout.pay(reference: "CONSUMER-F-\(UUID().uuidString.prefix(8))", amount: "10", phoneNumber: "024 412 1111")
        XCTAssertNil(paid)
    }
}
