import Foundation
import Sika
import SikaTesting
import XCTest

/// B156 from the released sources (`sika-swift`): the `SikaTesting` product starts the sandbox
/// of `SIKA_SANDBOX_BIN`, its resource (the control API's description) is in the release, and a
/// seeded transaction is confirmed and gone after a reset.
final class InstalledSikaTestingTests: XCTestCase {
    func testB156TheReleasedKitStartsTheSandboxAndDrivesIt() async throws {
        let sandbox = try SikaSandbox()
        defer { sandbox.stop() }
        try await sandbox.seedTransaction("ORDER-17", amount: "25.50")
        let client = try sandbox.client()
        let check = try await client.confirmPayment(
            reference: "ORDER-17", expected: ExpectedPayment(amount: "25.50", currency: "GHS"))
        guard case .confirmed = check else { return XCTFail("\(check)") }
        try await sandbox.reset()
        let requests = try await sandbox.requests()
        XCTAssertTrue(requests.isEmpty)
        do {
            _ = try await client.verifyTransaction(reference: "ORDER-17")
            XCTFail("the reset kept the transaction")
        } catch SikaError.TransactionNotFound {
        }
    }
}
