import Foundation
import Sika
import XCTest

/// B16 and B17: errors read as the core's message in every Swift way of printing them, and
/// neither errors nor configurations ever show the secret key.
final class ErrorsTests: XCTestCase {
    private let wrongKey = "sk_test_canary_wrong_key_9c4e"

    func testB16ErrorsCarryTheCoresMessageAndNeverTheKey() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.stop() }
        let client = try sandbox.client()
        let wrong = try Client(config: sandbox.config(key: wrongKey))
        let duplicate = chargeRequest(reference: "ORDER-B16")
        _ = try await client.initiateCharge(request: duplicate)
        var errors = [
            await sikaError { try await wrong.listBanks() },
            await sikaError { try await client.listMobileMoneyProviders(country: "G1") },
            await sikaError { try await client.verifyTransaction(reference: "NO-SUCH-ORDER") },
            await sikaError { try await client.initiateCharge(request: duplicate) },
        ]
        // A closed port: the sandbox's own, once it has stopped.
        sandbox.stop()
        let unreachable = ClientConfig(secretKey: SecretKey(key: canaryKey), baseUrl: sandbox.url, maxRetries: 0)
        errors.append(await sikaError { try await Client(config: unreachable).listBanks(country: "GH") })

        XCTAssertEqual(errors.count, 5)
        for case let error? in errors {
            let message = error.message()
            XCTAssertFalse(message.isEmpty, "\(error)")
            XCTAssertEqual(error.description, message)
            XCTAssertEqual("\(error)", message)
            XCTAssertEqual(error.localizedDescription, message)
            XCTAssertEqual(String(reflecting: error), message)
            for shown in [message, error.localizedDescription, dumped(error)] {
                XCTAssertFalse(shown.contains(canaryKey), shown)
                XCTAssertFalse(shown.contains(wrongKey), shown)
            }
        }
        guard case .InvalidInput(let field, _) = errors[1], case .Api(let status, let text, _) = errors[3] else {
            return XCTFail("unexpected kinds: \(errors)")
        }
        XCTAssertTrue(errors[1]!.message().contains(field), "names the field")
        XCTAssertTrue(errors[3]!.message().contains(String(status)) && errors[3]!.message().contains(text))
        guard case .Network = errors[4] else { return XCTFail("expected Network, got \(String(describing: errors[4]))") }
    }

    func testB17PlainHttpToARemoteHostFailsAtConstruction() {
        let config = ClientConfig(secretKey: SecretKey(key: canaryKey), baseUrl: "http://api.example.com")
        for error in [sikaError(blocking: { try Client(config: config) }),
                      sikaError(blocking: { try BlockingClient(config: config) })] {
            guard case .Configuration = error else {
                XCTFail("expected Configuration, got \(String(describing: error))")
                continue
            }
            XCTAssertFalse(error!.message().contains(canaryKey))
        }
    }

    func testB17PrintingAConfigurationNeverShowsTheKey() {
        let key = SecretKey(key: canaryKey)
        let config = ClientConfig(secretKey: key, baseUrl: "https://api.example.com", timeoutMs: 5_000)
        for shown in [String(describing: config), String(reflecting: config), dumped(config),
                      String(describing: key), dumped(key)] {
            XCTAssertFalse(shown.contains(canaryKey), shown)
        }
        XCTAssertTrue(String(describing: config).contains("https://api.example.com"), "other fields still print")
    }

    private func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
