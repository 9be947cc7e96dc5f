import Foundation
import Sika
import XCTest

/// The async client against the sandbox (B02-B10, B12-B15, B20; B02-B08, B10, B12, B15 and B20 from
/// the shared scenario files, by Support/Calls.swift); B19 (the blocking client) is in
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

    /// Every row of a scenario file of client calls, by the shared runner (Support/Calls.swift).
    private func checkRows(_ name: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        try await checkScenarioRows(sandbox, name, file: file, line: line)
    }

    func testB02ProvidersWithoutCountryAreGhanasThreeAndSendNoCountry() async throws {
        try await checkRows("b02_providers_default.json")
    }

    func testB20TheCountryTableHasFiveCountriesAndNigeriaBanksOnly() async throws {
        try await checkRows("b20_countries.json")
    }

    /// A key outside the vocabulary (a typo) is reported, and `checkCallRow` fails such a row
    /// before any call rather than pass it unchecked.
    func testB170TheScenarioRunnerRefusesAnUnknownKey() throws {
        func row(_ text: String) throws -> [String: Any] {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }
        XCTAssertEqual(unknownKeys(try row(#"{"operation":"countries","input":{},"expect":{"count":5,"sent":[]},"note":"ok"}"#)), [])
        XCTAssertEqual(unknownKeys(try row(#"{"operation":"countries","input":{},"expect":{"count":5,"sentt":[]}}"#)), ["sentt in expect"])
        XCTAssertEqual(unknownKeys(try row(#"{"operation":"countries","input":{"refrence":"R"},"expect":{"sent":[]}}"#)), ["refrence in input"])
        XCTAssertEqual(unknownKeys(try row(#"{"operation":"countries","input":{},"expect":{"sent":[]},"notes":"x"}"#)), ["notes in the row"])
    }

    func testB03ProvidersPerCountryAcceptLowerCaseAndAreSentUpperCase() async throws {
        try await checkRows("b03_providers_per_country.json")
    }

    func testB04ProvidersForNigeriaAndAnUnknownCountryAreTypedErrors() async throws {
        try await checkRows("b04_provider_errors.json")
    }

    func testB05BanksDefaultToNigeriaAllNubanAndOthersAreAccountNumbers() async throws {
        try await checkRows("b05_banks_default.json")
    }

    func testB06BanksForAnUnknownCountryAreInvalidCountryCode() async throws {
        try await checkRows("b06_banks_unknown_country.json")
    }

    func testB07AWrongKeyIsUnauthorizedForEveryOperation() async throws {
        try await checkRows("b07_wrong_key.json")
    }

    func testB08UnknownAndMalformedReferencesAreTypedErrors() async throws {
        try await checkRows("b08_verification_errors.json")
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
        try await checkRows("b10_success_is_unknown.json")
    }

    func testB160AReferenceSharingTextWithTheKeyVerifiesAsItself() async throws {
        try await checkRows("b160_reference_shares_key_text.json")
    }

    /// B12 runs the `invalid_input` rows of the shared bad-input matrix (B30 runs all of it).
    func testB12RejectedInputSendsNothing() async throws {
        let rows = try XCTUnwrap(fixtureObject("bad_inputs.json")["cases"] as? [[String: Any]])
            .filter { ($0["expect"] as? [String: Any])?["invalid_input"] != nil }
        XCTAssertGreaterThanOrEqual(rows.count, 40, "bad_inputs.json's invalid_input rows shrank")
        for (index, row) in rows.enumerated() {
            try await checkCallRow(sandbox, row, "bad_inputs #\(index) (\(row["note"] ?? ""))")
        }
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

    func testB09AChargedAmountVerifiesExactly() async throws {
        let request = chargeRequest(reference: "ORDER-DUP", phone: "+233244123333", amount: "100.10")
        let first = try await client.initiateCharge(request: request)
        XCTAssertEqual(first.httpStatus, 200)
        let charged = try await client.verifyTransaction(reference: "ORDER-DUP")
        XCTAssertEqual(charged.amount, Amount("100.10"))
        XCTAssertEqual(charged.status, .pending)
    }

    func testB15ADuplicateChargeReferenceIsApi409() async throws {
        try await checkRows("b15_duplicate_charge.json")
    }
}
