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

    /// B314: the receiver records each delivery (path, headers, body, status) before answering
    /// it, answers a handler that throws 500 with the error recorded, and its count catches a
    /// handler that is not idempotent (three deliveries, three shipments); the control answers
    /// are `Sendable` (`[String: any Sendable]`) and a `nil` setting is JSON's `null`.
    func testB314TheReceiverRecordsEachDeliveryAndCountsShipments() async throws {
        let sandbox = try SikaSandbox()
        defer { sandbox.stop() }
        let client = try sandbox.client()
        let shipments = Shipments()
        let order = ExpectedPayment(amount: "25.50", currency: "GHS")
        // Not idempotent: the plain client decides each delivery on its own.
        let receiver = try SikaWebhookReceiver { body in
            let decision = try await client.handleWebhook(body: body, expected: order)
            if case .fulfil(let transaction) = decision { await shipments.ship(transaction.txRef) }
            return Int(decision.httpStatus())
        }
        defer { receiver.stop() }
        try await sandbox.setWebhookUrl(receiver.url)
        try await sandbox.seedTransaction("ORDER-31", amount: "25.50", currency: "GHS")
        let answered: [[String: any Sendable]] = try await sandbox.trigger("ORDER-31", times: 3, concurrent: true)
        XCTAssertEqual(answered.compactMap { $0["http_status"] as? Int }, [200, 200, 200])
        let shipped = await shipments.references
        XCTAssertEqual(shipped, ["ORDER-31", "ORDER-31", "ORDER-31"], "the count catches it")
        XCTAssertEqual(receiver.deliveries.count, 3)
        for delivery in receiver.deliveries {
            XCTAssertEqual(delivery.path, "/webhooks/sika")
            XCTAssertEqual(delivery.status, 200)
            XCTAssertNil(delivery.error)
            XCTAssertEqual(delivery.headers["content-type"], "application/json")
            XCTAssertTrue(String(decoding: delivery.body, as: UTF8.self).contains("ORDER-31"))
        }

        receiver.handler = { _ in throw CocoaError(.fileNoSuchFile) }
        let failed = try await sandbox.trigger("ORDER-31")
        XCTAssertEqual(failed.first?["http_status"] as? Int, 500)
        let last = try XCTUnwrap(receiver.deliveries.last)
        XCTAssertEqual(last.status, 500)
        XCTAssertTrue(last.error?.contains("CocoaError") ?? false, "\(String(describing: last.error))")

        let settings = try await sandbox.changeSettings(["webhook_url": String?.none, "webhook_repeat": 2])
        XCTAssertNil(settings["webhook_url"], "null: left out")
        XCTAssertEqual(settings["webhook_repeat"] as? Int, 2)
        do {
            try await sandbox.trigger("ORDER-31")
            XCTFail("delivered with no webhook URL")
        } catch SikaSandboxError.controlCallFailed {
        }
    }
}
