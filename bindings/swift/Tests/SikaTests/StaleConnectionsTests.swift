import Foundation
import Sika
import XCTest

/// B46: the blocking client never sends a call on a pooled connection the server closed while
/// idle (a proxy's keep-alive timeout): every charge reaches the service, none comes back as
/// `ChargeOutcomeUnknown` for a request the service never received. Its parameters are
/// faults.json's `stale_pooled_connection`.
final class StaleConnectionsTests: XCTestCase {
    func testB46BlockingChargeAfterTheServerClosedThePooledConnectionReachesTheServer() async throws {
        let setup = try scenario("stale_pooled_connection")
        let path = try XCTUnwrap(setup["path"] as? String)
        let kind = try XCTUnwrap(setup["kind"] as? String)
        // Enough rounds that a client reusing the closed connection fails (before the fix, one
        // of the first ten did).
        let rounds = try XCTUnwrap(setup["rounds"] as? Int)
        let sandbox = try Sandbox()
        defer { sandbox.stop() }
        var config = sandbox.config()
        // No retries: a charge sent on the dead connection must show, not be hidden by a retry.
        config.maxRetries = try XCTUnwrap(setup["max_retries"] as? Int32)
        let client = try BlockingClient(config: config)
        try await sandbox.addFault(path, kind: kind, count: rounds)
        for round in 0..<rounds {
            let result = await onNewThread {
                try client.initiateCharge(request: chargeRequest(reference: "B46-SW-\(round)")).status
            }
            guard case .success(.some(true)) = result else {
                return XCTFail("round \(round): \(result)")
            }
            // The sandbox closed the charge's connection (only the poll's own request stays
            // open), so its FIN is at the client's socket before the next call starts.
            let settled = try await eventually { try await sandbox.connections().open <= 1 }
            XCTAssertTrue(settled, "round \(round): the sandbox kept the connection open")
        }
        let charges = try await sandbox.requests().filter { $0.path == path }.count
        XCTAssertEqual(charges, rounds, "each charge reached the service once")
    }
}
