// The main job of a merchant server, end to end: pick a provider, charge a mobile money
// number, wait for the customer's USSD answer, verify, and act on the status.
//
// Run it against the sandbox with `scripts/quickstart`, or with `scripts/example-swift`
// given SIKA_BASE_URL and SIKA_SECRET_KEY.
import Foundation
import Sika

func run() async throws {
    let client = try Client.fromEnv()

    print("1. Mobile money providers in Ghana:")
    let providers = try await client.listMobileMoneyProviders(country: "GH")
    for provider in providers {
        print("   - \(provider.name) (code \(provider.code), \(provider.active ? "active" : "inactive"))")
    }
    guard let provider = providers.first(where: \.active) else {
        print("   no active provider: nothing to charge")
        return
    }

    let reference = "ORDER-\(Int64(Date().timeIntervalSince1970 * 1000))"
    let request = ChargeRequest(
        amount: Decimal(string: "25.50")!,
        email: "ama@example.com",
        // The sandbox answers by the last four digits: 0000 is a successful payment.
        phoneNumber: "+233244120000",
        reference: reference,
        currency: "GHS",
        provider: provider.code,
        callbackUrl: "https://shop.example.com/orders/return")
    print("2. Charging \(request.amount) GHS to \(request.phoneNumber) with \(provider.name) (reference \(reference))")
    let response = try await client.initiateCharge(request: request)
    print("   service said: \(response.message ?? "(no message)")")

    print("3. Waiting for the customer to answer the USSD prompt...")
    let deadline = ContinuousClock.now + .seconds(60)
    var transaction = try await client.verifyTransaction(reference: reference)
    while !transaction.status.isFinal && ContinuousClock.now < deadline {
        print("   status: \(transaction.status) (checking again in 500 ms)")
        try await Task.sleep(for: .milliseconds(500))
        transaction = try await client.verifyTransaction(reference: reference)
    }

    print("4. Verified: status \(transaction.status), amount \(transaction.amount) \(transaction.currency)")
    let action = transaction.status.merchantAction
    print("5. Merchant action: \(action)")
    if action == .fulfilOrder && transaction.amount == request.amount && transaction.txRef == reference {
        print("   paid in full: ship the order")
    }
}

do {
    try await run()
} catch {
    // A SikaError prints as the core's message, which never contains the secret key.
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
