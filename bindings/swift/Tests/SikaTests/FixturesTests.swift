import Foundation
import Sika
import XCTest

/// B01: every recorded response of tests/fixtures decodes, through the Rust core, to the
/// values cases.json expects (the same cases every language reads; core/tests/fixtures.rs).
final class FixturesTests: XCTestCase {
    func testB01EveryFixtureDecodesToItsExpectedValues() throws {
        let manifest = try Data(contentsOf: fixturesDirectory.appendingPathComponent("cases.json"))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let cases = try decoder.decode(FixtureManifest.self, from: manifest).cases
        XCTAssertGreaterThanOrEqual(cases.count, 30, "the fixture set shrank")
        for fixture in cases {
            let body = try Data(contentsOf: fixturesDirectory.appendingPathComponent(fixture.bodyFile))
            check(fixture, body: body)
        }
    }

    private func check(_ fixture: FixtureCase, body: Data) {
        let name = fixture.name
        let status = fixture.httpStatus
        let expect = fixture.expect
        do {
            switch fixture.operation {
            case "list_mobile_money_providers":
                let providers = try decodeProvidersResponse(httpStatus: status, body: body)
                XCTAssertEqual(providers.map(ExpectedProvider.init), try XCTUnwrap(expect.providers, name), name)
            case "list_banks":
                let banks = try decodeBanksResponse(httpStatus: status, body: body)
                XCTAssertEqual(banks.map(ExpectedBank.init), try XCTUnwrap(expect.banks, name), name)
            case "verify_transaction":
                let transaction = try decodeTransactionResponse(httpStatus: status, body: body)
                XCTAssertNoThrow(
                    try JSONSerialization.jsonObject(with: Data(transaction.rawJson.utf8)), "\(name): raw_json is JSON")
                XCTAssertEqual(ExpectedTransaction(transaction), try XCTUnwrap(expect.transaction, name), name)
            case "initiate_charge":
                let charge = try decodeChargeResponse(httpStatus: status, body: body)
                XCTAssertEqual(Data(charge.rawJson.utf8), body, "\(name): raw_json is the body as sent")
                XCTAssertEqual(ExpectedCharge(charge), try XCTUnwrap(expect.charge, name), name)
            default:
                XCTFail("\(name): unknown operation \(fixture.operation)")
                return
            }
            XCTAssertNil(expect.error, "\(name): decoded a value where an error was expected")
        } catch let error as SikaError {
            guard let expected = expect.error else {
                return XCTFail("\(name): expected a value, got \(error)")
            }
            XCTAssertEqual(ExpectedError(error, comparedWith: expected), expected, name)
        } catch {
            XCTFail("\(name): \(error)")
        }
    }
}
