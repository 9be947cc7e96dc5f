// The merchant's code: charge a mobile money number for an order, wait for the customer's USSD
// answer and ship only on a confirmation, keeping a record of the payment as JSON.
import Foundation
import Sika

/// An order as the shop stores it: its own Codable type holding Sika's records.
public struct PaidOrder: Codable, Sendable {
    public let reference: String
    public let amount: Amount
    public let status: TransactionStatus
    public let transaction: Transaction
}

public struct Checkout: Sendable {
    private let client: Client

    public init(client: Client) {
        self.client = client
    }

    /// Charges `amount` GHS to `phoneNumber` as the customer typed it; returns the paid order,
    /// or nil if the payment was not confirmed.
    public func pay(reference: String, amount: Amount, phoneNumber: String) async throws -> PaidOrder? {
        let phone = try normalizePhoneNumber(input: phoneNumber, country: "GH")
        let providers = try await client.listMobileMoneyProviders(country: "GH")
        guard let provider = providers.first(where: \.active) else { return nil }
        let order = ExpectedPayment(amount: amount, currency: "GHS")
        _ = try await client.initiateCharge(request: ChargeRequest(
            amount: amount, email: "ama@example.com", phoneNumber: phone, reference: reference,
            currency: "GHS", provider: provider.code))
        let options = AwaitOptions(initialDelayMs: 100, intervalMs: 100, maxIntervalMs: 500, timeoutMs: 20_000)
        _ = try await client.awaitFinalStatus(reference: reference, options: options)
        guard case .confirmed(let transaction) = try await client.confirmPayment(reference: reference, expected: order)
        else { return nil }
        return PaidOrder(reference: transaction.txRef, amount: amount, status: transaction.status, transaction: transaction)
    }
}
