import Foundation
import Sika
import XCTest

/// The async client against the sandbox (B02-B10, B12-B15); B19 (the blocking client) is in
/// ClientTests+Blocking.swift. Each test gets its own sandbox, so request logs start empty.
final class ClientTests: XCTestCase {
    var sandbox: Sandbox!
    var client: Client!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        client = try sandbox.client()
    }

    override func tearDown() {
        sandbox?.stop()
    }

    func testB02ProvidersWithoutCountryAreGhanasThreeAndSendNoCountry() async throws {
        let providers = try await client.listMobileMoneyProviders()
        XCTAssertEqual(providers.count, 3)
        XCTAssertEqual(Set(providers.map(\.code)), ["MTN", "VODAFONE", "AIRTELTIGO"])
        XCTAssertTrue(providers.allSatisfy { $0.country == "Ghana" && $0.currency == "GHS" })
        let log = try await sandbox.requests()
        XCTAssertEqual(log.map(\.path), ["/mobile-money-providers"])
        XCTAssertEqual(log.first?.query, nil, "no country parameter is sent")
    }

    func testB03ProvidersPerCountryAcceptLowerCaseAndAreSentUpperCase() async throws {
        let countries = [("ke", "KES", 2), ("Ug", "UGX", 2), ("TZ", "TZS", 2), ("gh", "GHS", 3)]
        for (code, currency, count) in countries {
            let providers = try await client.listMobileMoneyProviders(country: code)
            XCTAssertEqual(providers.count, count, code)
            XCTAssertTrue(providers.allSatisfy { $0.currency == currency }, code)
        }
        let queries = try await sandbox.requests().map(\.query)
        XCTAssertEqual(queries, ["country=KE", "country=UG", "country=TZ", "country=GH"])
    }

    func testB04ProvidersForNigeriaAndAnUnknownCountryAreTypedErrors() async throws {
        let nigeria = await sikaError { try await self.client.listMobileMoneyProviders(country: "NG") }
        XCTAssertEqual(nigeria, .NoProvidersFound)
        let unknown = await sikaError { try await self.client.listMobileMoneyProviders(country: "ZZ") }
        XCTAssertEqual(unknown, .InvalidCountryCode)
    }

    func testB05BanksDefaultToNigeriaAllNubanAndGhanaBanksAreAccountNumbers() async throws {
        let nigeria = try await client.listBanks()
        XCTAssertFalse(nigeria.isEmpty)
        XCTAssertTrue(nigeria.allSatisfy { $0.country == "Nigeria" && $0.accountType == .nuban })
        let ghana = try await client.listBanks(country: "GH")
        XCTAssertFalse(ghana.isEmpty)
        XCTAssertTrue(ghana.allSatisfy { $0.country == "Ghana" && $0.accountType == .accountNumber })
        let log = try await sandbox.requests()
        XCTAssertEqual(log.map(\.query), [nil, "country=GH"], "no country parameter by default")
    }

    func testB06BanksForAnUnknownCountryAreInvalidCountryCode() async throws {
        let error = await sikaError { try await self.client.listBanks(country: "ZZ") }
        XCTAssertEqual(error, .InvalidCountryCode)
    }

    func testB07AWrongKeyIsUnauthorizedForEveryOperation() async throws {
        let wrong = try Client(config: sandbox.config(key: "sk_test_canary_wrong_key"))
        let errors = [
            await sikaError { try await wrong.listMobileMoneyProviders() },
            await sikaError { try await wrong.listBanks() },
            await sikaError { try await wrong.verifyTransaction(reference: "ORDER-1") },
            await sikaError { try await wrong.initiateCharge(request: chargeRequest(reference: "ORDER-1")) },
        ]
        XCTAssertEqual(errors, Array(repeating: .Unauthorized, count: 4))
        let log = try await sandbox.requests()
        XCTAssertEqual(log.count, 4)
        XCTAssertFalse(log.contains { $0.authorized })
    }

    func testB08UnknownAndMalformedReferencesAreTypedErrors() async throws {
        let unknown = await sikaError { try await self.client.verifyTransaction(reference: "NO-SUCH-ORDER") }
        XCTAssertEqual(unknown, .TransactionNotFound)
        let malformed = await sikaError { try await self.client.verifyTransaction(reference: "bad ref!") }
        XCTAssertEqual(malformed, .InvalidReference)
    }

    func testB09ASeededTransactionDecodesExactly() async throws {
        let object = try transactionObject(
            reference: "ORDER-EXACT", status: "successful", amount: "100.10", gatewayRefField: "xyz_ref")
        XCTAssertFalse(object.contains("gw_ref"), "the gateway reference is only under the branded key")
        try await sandbox.seedTransaction(object)
        let transaction = try await client.verifyTransaction(reference: "ORDER-EXACT")
        let expected = try SeededTransaction().expected
        XCTAssertEqual(transaction.amount.text, "100.10", "the scale is kept")
        XCTAssertEqual(epochMs(transaction.createdAt), expected.createdAtEpochMs)
        XCTAssertEqual(epochMs(transaction.updatedAt), expected.updatedAtEpochMs)
        XCTAssertEqual(transaction.gatewayRef, expected.gatewayRef, "read from the brand-prefixed xyz_ref")
        XCTAssertEqual(transaction.status, .successful)
        XCTAssertEqual(transaction.paymentType, .mobileMoney)
        XCTAssertEqual(transaction.customer?.phoneNumber, expected.customerPhoneNumber)
        XCTAssertEqual(transaction.customer?.email, expected.customerEmail)
        XCTAssertTrue(transaction.rawJson.contains("\"amount\":100.10"), "raw JSON keeps the number text")
        let raw = try JSONSerialization.jsonObject(with: Data(transaction.rawJson.utf8)) as? NSDictionary
        let sent = try JSONSerialization.jsonObject(with: Data(object.utf8)) as? NSDictionary
        XCTAssertEqual(raw, sent, "raw_json is the object the service sent")
    }

    func testB10StatusSuccessIsUnknownToInvestigateAndNotFinal() async throws {
        try await sandbox.seedTransaction(transactionObject(reference: "ORDER-WORD", status: "success", amount: "10"))
        let transaction = try await client.verifyTransaction(reference: "ORDER-WORD")
        XCTAssertEqual(transaction.status, .unknown(value: "success"))
        XCTAssertEqual(transaction.status.merchantAction(), .investigate)
        XCTAssertFalse(transaction.status.isFinal())
    }

    func testB12RejectedInputSendsNothing() async throws {
        for country in ["", "G", "GHA", " GH", "G1"] {
            let providers = await sikaError { try await self.client.listMobileMoneyProviders(country: country) }
            XCTAssertEqual(invalidField(providers), "country", "providers \(country.debugDescription)")
            let banks = await sikaError { try await self.client.listBanks(country: country) }
            XCTAssertEqual(invalidField(banks), "country", "banks \(country.debugDescription)")
        }
        for reference in ["", ".", "..", "a\u{0}b", "tab\there", String(repeating: "x", count: 257)] {
            let error = await sikaError { try await self.client.verifyTransaction(reference: reference) }
            XCTAssertEqual(invalidField(error), "reference", reference.debugDescription)
        }
        let good = chargeRequest(reference: "ORDER-V", amount: "10.50")
        var badCharges: [(String, ChargeRequest)] = []
        for amount in [Amount(Decimal(0)), Amount("-1"), Amount("1.001"), Amount(Decimal.nan)] {
            var request = good
            request.amount = amount
            badCharges.append(("amount", request))
        }
        func with(_ field: String, _ change: (inout ChargeRequest) -> Void) {
            var request = good
            change(&request)
            badCharges.append((field, request))
        }
        with("email") { $0.email = "not-an-email" }
        with("phone_number") { $0.phoneNumber = "0244123456" }
        with("reference") { $0.reference = "" }
        with("currency") { $0.currency = "NGN" }
        with("provider") { $0.provider = "" }
        with("callback_url") { $0.callbackUrl = "javascript:alert(1)" }
        for (field, request) in badCharges {
            let error = await sikaError { try await self.client.initiateCharge(request: request) }
            XCTAssertEqual(invalidField(error), field, "\(request)")
        }
        let log = try await sandbox.requests()
        XCTAssertEqual(log, [], "rejected input reached the service")
    }

    func testB13AReferenceIsAlwaysOnePathSegment() async throws {
        for testCase in try scenarioCases("b13_reference_path.json") {
            let reference = try XCTUnwrap(testCase["reference"] as? String)
            let sentPath = try XCTUnwrap(testCase["sent_path"] as? String)
            try await sandbox.seedTransaction(transactionObject(reference: reference, status: "pending", amount: "5"))
            try await sandbox.clearRequests()
            let transaction = try await client.verifyTransaction(reference: reference)
            XCTAssertEqual(transaction.txRef, reference)
            let log = try await sandbox.requests()
            XCTAssertEqual(log.map(\.path), [sentPath], reference)
            XCTAssertEqual(log.first?.query, nil, reference)
        }
    }

    func testB14TheUssdFlowEndsAsEachTestNumberSays() async throws {
        // A slower customer than the usual 150 ms, so the check right after each charge sees
        // `pending` even on a loaded machine.
        sandbox.stop()
        sandbox = try Sandbox(confirmAfterMs: 600)
        client = try sandbox.client()
        let numbers: [(String, TransactionStatus)] = [
            ("0000", .successful), ("1111", .failed), ("2222", .abandoned), ("5678", .successful),
        ]
        for (suffix, _) in numbers + [("3333", .pending)] {
            let response = try await client.initiateCharge(
                request: chargeRequest(reference: "USSD-\(suffix)", phone: "+23324412\(suffix)"))
            XCTAssertEqual(response.status, true, suffix)
            let fresh = try await client.verifyTransaction(reference: "USSD-\(suffix)")
            XCTAssertEqual(fresh.status, .pending, "\(suffix): a new charge waits for the customer")
        }
        for (suffix, want) in numbers {
            let transaction = try await verifyUntil(client, "USSD-\(suffix)") { $0.isFinal() }
            XCTAssertEqual(transaction.status, want, suffix)
        }
        // By now every other number has been answered; 3333 never is.
        let waiting = try await client.verifyTransaction(reference: "USSD-3333")
        XCTAssertEqual(waiting.status, .pending)
    }

    func testB15ADuplicateChargeReferenceIsApi409() async throws {
        let request = chargeRequest(reference: "ORDER-DUP", phone: "+233244123333", amount: "100.10")
        let first = try await client.initiateCharge(request: request)
        XCTAssertEqual(first.httpStatus, 200)
        let charged = try await client.verifyTransaction(reference: "ORDER-DUP")
        XCTAssertEqual(charged.amount, Amount("100.10"))
        XCTAssertEqual(charged.status, .pending)
        let duplicate = await sikaError { try await self.client.initiateCharge(request: request) }
        guard case .Api(let status, let message) = duplicate else {
            return XCTFail("expected Api, got \(String(describing: duplicate))")
        }
        XCTAssertEqual(status, 409)
        XCTAssertFalse(message.isEmpty)
    }
}
