// tests/swiftpm-consumer/Tests/ShopTests/FulfilmentTests.swift
import Foundation
import Sika
import SikaTesting
import XCTest

/// Your app's webhook handler: through the ledger, each paid order ships once.
func sikaWebhook(ledger: Ledger, client: Client, body: Data, ship: @Sendable (String) async -> Void) async throws -> Int {
    let decision = try await ledger.handleWebhook(client: client, body: body)
    if case .fulfil(let claim, _) = decision {
        try await ledger.fulfil(claim) { held in await ship(held.reference) }   // renewed while it runs, marked at its end
    }
    return Int(decision.httpStatus())
}

/// What the test shipped.
actor Shipments {
    private(set) var references: [String] = []
    func ship(_ reference: String) { references.append(reference) }
}

final class FulfilmentTests: XCTestCase {
    static let sandbox = try! SikaSandbox()   // one for the class: SikaSandbox is Sendable

    override func setUp() async throws {
        try await Self.sandbox.reset()
    }

    func testB313FulfilmentIsIdempotent() async throws {
        let sandbox = Self.sandbox
        let client = try sandbox.client()
        let ledger = try Ledger.sqlite(path: NSTemporaryDirectory() + "ledger-\(UUID().uuidString).db")
        let shipments = Shipments()
        let receiver = try SikaWebhookReceiver { body in   // your app's endpoint, on a loopback port
            try await sikaWebhook(ledger: ledger, client: client, body: body) { await shipments.ship($0) }
        }
        defer { receiver.stop() }
        try await sandbox.setWebhookUrl(receiver.url)
        let orders = ["ORDER-18", "ORDER-19", "ORDER-20"]
        for reference in orders {
            try await ledger.expect(reference: reference, expected: ExpectedPayment(amount: "25.50", currency: "GHS"))
            try await sandbox.seedTransaction(reference, amount: "25.50", currency: "GHS")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for reference in orders {   // each notification three times at once, the orders at once
                group.addTask { _ = try await sandbox.trigger(reference, times: 3, concurrent: true) }
            }
            try await group.waitForAll()
        }
        let shipped = await shipments.references
        XCTAssertEqual(shipped.sorted(), orders)   // nine deliveries, one shipment per order
        XCTAssertEqual(receiver.deliveries.count, 9)
        // 200 once fulfilled; 503 while another delivery held the claim (the service delivers again)
        XCTAssertTrue(receiver.deliveries.allSatisfy { [200, 503].contains($0.status) })
    }
}
