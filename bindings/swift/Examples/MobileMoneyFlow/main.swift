// The main job of a merchant server, end to end: pick a provider, charge a mobile money
// number, wait for the customer's USSD answer, and confirm the payment against the order, all
// with Sika's decisions rather than reading statuses by hand.
//
// Run it against the sandbox with `scripts/quickstart --swift`, or with `scripts/example-swift`
// given SIKA_BASE_URL and SIKA_SECRET_KEY.
import Foundation
import Sika

func run() async throws {
    let client = try Client.fromEnv()  // SIKA_SECRET_KEY and SIKA_BASE_URL

    print("1. Mobile money providers in Ghana:")
    let providers = try await client.listMobileMoneyProviders(country: "GH")
    for provider in providers {
        print("   - \(provider.name) (code \(provider.code), \(provider.active ? "active" : "inactive"))")
    }
    guard let provider = providers.first(where: \.active) else {
        print("   no active provider: nothing to charge")
        return
    }

    // As the customer typed it; the service wants +233244120000. The sandbox answers by the
    // last four digits: 0000 is a successful payment.
    let phone = try normalizePhoneNumber(input: "024 412 0000", country: "GH")
    let reference = "ORDER-\(Int64(Date().timeIntervalSince1970 * 1000))"
    // What the order must be paid: the merchant's own record, never the service's answer.
    let order = ExpectedPayment(amount: "25.50", currency: "GHS")
    let request = ChargeRequest(
        amount: order.amount,
        email: "ama@example.com",
        phoneNumber: phone,
        reference: reference,
        currency: order.currency,
        provider: provider.code,
        callbackUrl: "https://shop.example.com/orders/return")
    print("2. Charging \(order.amount) \(order.currency) to \(phone) with \(provider.name) (reference \(reference))")
    do {
        let response = try await client.initiateCharge(request: request)
        print("   service said: \(response.message ?? "(no message)")")
    } catch SikaError.ChargeOutcomeUnknown(let reference, let reason, _) {
        // The charge may have reached the service: never send it again; verifying tells.
        print("   outcome unknown (\(reason)): verifying \(reference) instead of charging again")
    }

    print("3. Waiting for the customer to answer the USSD prompt...")
    // Cancelling the Task running this wait would stop it too (CancellationError).
    let options = AwaitOptions(initialDelayMs: 1000, intervalMs: 500, maxIntervalMs: 2000, timeoutMs: 60_000)
    let transaction = try await client.awaitFinalStatus(reference: reference, options: options)
    print("   final status: \(transaction.status)")

    print("4. Confirming the payment against the order:")
    switch try await client.confirmPayment(reference: reference, expected: order) {
    case .confirmed(let paid):
        print("   confirmed: \(paid.amount) \(paid.currency) paid: ship the order")
    case .notYet:
        print("   not confirmed (still pending): do not ship yet; wait for the webhook or check again")
    case .notPaid(let checked, _):
        print("   not confirmed (not paid, status \(checked.status)): do not ship")
    case .mismatch(_, let field, let expected, let actual):
        print("   not confirmed (\(field) is \(actual), the order says \(expected)): do not ship; investigate")
    }
    print("   merchant action: \(transaction.status.merchantAction())")
}

do {
    try await run()
} catch {
    // A SikaError prints as the core's message, which never contains the secret key.
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
