import Foundation
import Sika
import XCTest

/// B19: the blocking client offers the same operations as plain (non-async) calls.
extension ClientTests {
    func testB19TheBlockingClientListsVerifiesAndCharges() async throws {
        let blocking = try sandbox.blockingClient()
        XCTAssertEqual(try blocking.listMobileMoneyProviders().count, 3)
        XCTAssertEqual(try blocking.listMobileMoneyProviders(country: "ke").map(\.currency), ["KES", "KES"])
        XCTAssertTrue(try blocking.listBanks().allSatisfy { $0.accountType == .nuban })
        XCTAssertFalse(try blocking.listBanks(country: "UG").isEmpty)

        let response = try blocking.initiateCharge(
            request: chargeRequest(reference: "BLOCKING-1", phone: "+233244120000", amount: "25.50"))
        XCTAssertEqual(response.httpStatus, 200)
        let transaction = try blocking.verifyTransaction(reference: "BLOCKING-1")
        XCTAssertEqual(transaction.txRef, "BLOCKING-1")
        XCTAssertEqual(transaction.amount, Amount("25.50"))

        let queries = try await sandbox.requests().map(\.query)
        XCTAssertEqual(queries, [nil, "country=KE", nil, "country=UG", nil, nil])
    }

    func testB19TheBlockingClientThrowsTheSameTypedErrors() throws {
        let blocking = try sandbox.blockingClient()
        XCTAssertEqual(sikaError(blocking: { try blocking.listMobileMoneyProviders(country: "NG") })?.kind, "NoProvidersFound")
        XCTAssertEqual(sikaError(blocking: { try blocking.listBanks(country: "ZZ") })?.kind, "InvalidCountryCode")
        XCTAssertEqual(sikaError(blocking: { try blocking.verifyTransaction(reference: "NO-SUCH") })?.kind, "TransactionNotFound")
        let invalid = sikaError(blocking: { try blocking.verifyTransaction(reference: "..") })
        XCTAssertEqual(invalidField(invalid), "reference")
        let wrong = try BlockingClient(config: sandbox.config(key: "sk_test_canary_wrong_key"))
        XCTAssertEqual(sikaError(blocking: { try wrong.listBanks() })?.kind, "Unauthorized")
    }
}
