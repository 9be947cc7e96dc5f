import Foundation
import Sika
import SikaTesting
import XCTest

/// B156: a merchant's package uses the `SikaTesting` product as a test kit: the sandbox of
/// `SIKA_SANDBOX_BIN` with a fresh key, its clients, seeding, a fault, the deliveries of a
/// triggered notification and a reset.
final class SikaTestingTests: XCTestCase {
    func testB156TheKitGivesASandboxItsClientsAndItsControlAPI() async throws {
        let sandbox = try SikaSandbox()
        defer { sandbox.stop() }
        XCTAssertTrue(sandbox.baseUrl.hasPrefix("http://127.0.0.1:"), sandbox.baseUrl)
        XCTAssertTrue(sandbox.secretKey.hasPrefix("sk_test_"))
        XCTAssertFalse(String(describing: sandbox).contains(sandbox.secretKey))

        try await sandbox.seedTransaction("ORDER-17", amount: "25.50", currency: "GHS", status: "successful")
        let client = try sandbox.client()
        let check = try await client.confirmPayment(
            reference: "ORDER-17", expected: ExpectedPayment(amount: "25.50", currency: "GHS"))
        guard case .confirmed = check else { return XCTFail("\(check)") }
        let paths = try await sandbox.requests().compactMap { $0["path"] as? String }
        XCTAssertEqual(paths, ["/transaction/verify/ORDER-17"])

        try await sandbox.addFault("/mobile-money-providers", kind: "status", options: ["status": 401])
        do {
            _ = try await client.listMobileMoneyProviders(country: "GH")
            XCTFail("the fault did not apply")
        } catch SikaError.Api {
        }
        let providers = try await client.listMobileMoneyProviders(country: "GH")
        XCTAssertFalse(providers.isEmpty)

        // No webhook URL: a refused control call, with the sandbox's answer.
        do {
            try await sandbox.trigger("ORDER-17")
            XCTFail("a trigger with no webhook URL was accepted")
        } catch SikaSandboxError.controlCallFailed(let answer) {
            XCTAssertTrue(answer.contains("No webhook URL configured"), answer)
        }
        do {
            try await sandbox.seedTransaction("ORDER-1", amount: "25,50")
            XCTFail("a bad amount was sent")
        } catch SikaSandboxError.invalidInput {
        }

        try await sandbox.reset()
        let afterReset = try await sandbox.requests()
        XCTAssertTrue(afterReset.isEmpty)
        let deliveries = try await sandbox.deliveries()
        XCTAssertTrue(deliveries.isEmpty)
        do {
            _ = try await client.verifyTransaction(reference: "ORDER-17")
            XCTFail("the reset kept the transaction")
        } catch SikaError.TransactionNotFound {
        }
    }
}
