import Foundation
import Sika
import XCTest

/// B200-B206: every request carries `X-Request-Id` (one call id, the attempt's number), and every
/// error that follows a request carries the id to quote to support (`requestId`): the service's,
/// else Sika's. The cases are tests/fixtures/request_ids.json, as in core/tests/request_ids.rs.
final class RequestIdsTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    override func tearDown() {
        sandbox?.stop()
    }

    /// The call id and attempt number of an id Sika sent.
    private func parts(_ id: String?, _ label: String) -> (call: String, attempt: Int)? {
        guard let id, let cut = id.lastIndex(of: "_") else {
            XCTFail("\(label): not a Sika request id: \(String(describing: id))")
            return nil
        }
        let call = String(id[..<cut])
        let hex = call.dropFirst("sika_".count)
        XCTAssertTrue(call.hasPrefix("sika_") && hex.count == 32 && hex.allSatisfy { "0123456789abcdef".contains($0) },
                      "\(label): \(id)")
        guard let attempt = Int(id[id.index(after: cut)...]) else {
            XCTFail("\(label): \(id)")
            return nil
        }
        return (call, attempt)
    }

    private func call(_ client: Client, _ item: [String: Any]) async throws {
        switch item["call"] as? String {
        case "verify": _ = try await client.verifyTransaction(reference: item["reference"] as! String)
        case "providers": _ = try await client.listMobileMoneyProviders(country: item["country"] as? String)
        case "charge":
            let charge = chargeRequest(reference: item["reference"] as! String, phone: "+233241234567", amount: "10")
            _ = try await client.initiateCharge(request: charge)
        default: XCTFail("unknown call \(item)")
        }
    }

    func testB200B206EveryErrorAfterARequestCarriesItsRequestId() async throws {
        let file = try fixtureObject("request_ids.json")
        let cases = try XCTUnwrap(file["cases"] as? [[String: Any]])
        for item in cases {
            let id = try XCTUnwrap(item["id"] as? String)
            try await sandbox.reset()
            if var fault = item["fault"] as? [String: Any] {
                let options = try XCTUnwrap(fault.removeValue(forKey: "options") as? [String: Any])
                try await sandbox.addFault(json: jsonText(fault.merging(options) { first, _ in first }))
            }
            var config = sandbox.config(key: item["secret_key"] as? String ?? canaryKey)
            config.timeoutMs = try XCTUnwrap(file["budget_ms"] as? Int64)
            config.maxRetries = try XCTUnwrap(file["max_retries"] as? Int32)
            let client = try Client(config: config)
            let error = await sikaError { try await self.call(client, item) }
            XCTAssertEqual(error?.kind, item["error"] as? String, "\(id): \(String(describing: error))")

            let requests = try await sandbox.requestIds()
            XCTAssertEqual(requests.count, item["attempts"] as? Int, "\(id): \(requests)")
            let sent = requests.compactMap { parts($0.sent, id) }
            XCTAssertEqual(sent.map(\.attempt), Array(1...max(1, requests.count)), id)
            XCTAssertEqual(Set(sent.map(\.call)).count, 1, "\(id): one call id")
            guard let quoted = error?.requestId, let last = requests.last else {
                XCTFail("\(id): no request id in \(String(describing: error))")
                continue
            }
            switch item["quote"] as? String {
            case "service": XCTAssertEqual(quoted, last.answered, id)
            case "sika": XCTAssertEqual(quoted, last.sent, id)
            default:
                XCTAssertLessThanOrEqual(quoted.count, try XCTUnwrap(file["max_request_id_chars"] as? Int), id)
                XCTAssertFalse(quoted.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "\u{2028}" },
                               "\(id): \(quoted)")
                XCTAssertFalse(quoted.contains(canaryKey) || quoted.contains(String(canaryKey.dropFirst(8))), "\(id): \(quoted)")
                XCTAssertTrue(quoted.hasPrefix(try XCTUnwrap(item["starts_with"] as? String)), "\(id): \(quoted)")
            }
            XCTAssertTrue("\(error!)".contains("(request id \(quoted))"), "\(id): \(error!)")
        }
    }

    func testB205ErrorsBeforeSendingCarryNoRequestId() async throws {
        let client = try sandbox.client()
        let error = await sikaError { try await client.verifyTransaction(reference: "") }
        XCTAssertEqual(error?.kind, "InvalidInput")
        XCTAssertNil(error?.requestId)
        let sent = try await sandbox.requestIds()
        XCTAssertTrue(sent.isEmpty)
    }
}
