import Foundation
import Sika
import XCTest

/// B48: concurrent callers of one bank list during an outage share one fetch (one request reaches
/// the service) and its outcome, failure included, and each returns within its own `timeoutMs`,
/// never after the callers before it have each used theirs. Every parameter comes from
/// faults.json's `concurrent_bank_fetch_during_outage`.
final class BankFlightTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    override func tearDown() {
        sandbox?.stop()
    }

    /// The scenario's parameters.
    private struct Outage {
        let setup: [String: Any]
        let callers: Int
        let country: String
        let path: String
        /// Queued callers would take `callers × timeout`; sharing takes one. The bound (in
        /// timeouts) leaves room for a loaded machine and still fails the queue.
        let bound: Duration
        let config: ClientConfig

        init(_ sandbox: Sandbox) throws {
            setup = try scenario("concurrent_bank_fetch_during_outage")
            callers = try XCTUnwrap(setup["callers"] as? Int)
            country = try XCTUnwrap(setup["country"] as? String)
            path = try XCTUnwrap(setup["path"] as? String)
            let timeoutMs = try XCTUnwrap(setup["timeout_ms"] as? Int64)
            bound = .milliseconds(try XCTUnwrap(setup["bound_in_timeouts"] as? Int64) * timeoutMs)
            var config = sandbox.config()
            config.timeoutMs = timeoutMs
            config.maxRetries = try XCTUnwrap(setup["max_retries"] as? Int32)
            self.config = config
        }

        /// Puts the fault `name` (`hang`, `slow_503`) in place; returns the error kind every
        /// caller must get and, for a status, the status.
        func fault(_ name: String, _ sandbox: Sandbox) async throws -> (error: String, httpStatus: Int32?) {
            let faults = try XCTUnwrap(setup["faults"] as? [String: Any])
            let fault = try XCTUnwrap(faults[name] as? [String: Any], name)
            var object = try XCTUnwrap(fault["options"] as? [String: Any])
            (object["path"], object["kind"], object["count"]) = (path, fault["kind"], fault["count"])
            try await sandbox.addFault(json: jsonText(object))
            return (try XCTUnwrap(fault["error"] as? String), fault["http_status"] as? Int32)
        }
    }

    private func bankRequests(_ outage: Outage) async throws -> Int {
        try await sandbox.requests().filter { $0.path.hasPrefix(outage.path) }.count
    }

    /// Each outcome is the fault's error (for a status, the same status and text for all), and
    /// all came back within the bound.
    private func assertShared(
        _ outage: Outage, _ expected: (error: String, httpStatus: Int32?), _ outcomes: [Result<Int, Error>],
        took: Duration, file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        XCTAssertEqual(outcomes.map(outcomeKind), Array(repeating: expected.error, count: outage.callers), "\(outcomes)",
                       file: file, line: line)
        if let status = expected.httpStatus {
            let answers = outcomes.map { outcome -> String in
                guard case .failure(let error as SikaError) = outcome, case .Api(let httpStatus, let message, _) = error else {
                    return "\(outcome)"
                }
                return "\(httpStatus) \(message)"
            }
            XCTAssertEqual(Set(answers).count, 1, "\(answers)", file: file, line: line)
            XCTAssertTrue(answers[0].hasPrefix("\(status) "), "\(answers)", file: file, line: line)
        }
        XCTAssertLessThan(took, outage.bound, "\(outage.callers) callers took \(took)", file: file, line: line)
        let requests = try await bankRequests(outage)
        XCTAssertEqual(requests, 1, "one flight, one request", file: file, line: line)
    }

    private func asyncCalls(_ outage: Outage, _ client: Client) async -> ([Result<Int, Error>], Duration) {
        let started = ContinuousClock.now
        let country = outage.country
        let outcomes = await withTaskGroup(of: Result<Int, Error>.self) { group in
            for _ in 0..<outage.callers {
                group.addTask {
                    do {
                        return .success(try await client.listBanks(country: country).count)
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        return (outcomes, started.duration(to: .now))
    }

    /// The blocking client, each caller on a thread of its own.
    private func blockingCalls(_ outage: Outage, _ client: BlockingClient) async -> ([Result<Int, Error>], Duration) {
        let started = ContinuousClock.now
        let country = outage.country
        let outcomes = await withTaskGroup(of: Result<Int, Error>.self) { group in
            for _ in 0..<outage.callers {
                group.addTask { await onNewThread { try client.listBanks(country: country).count } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        return (outcomes, started.duration(to: .now))
    }

    func testB48AsyncCallersDuringAHangShareOneFetchAndTimeOutTogether() async throws {
        let outage = try Outage(sandbox)
        let client = try Client(config: outage.config)
        let expected = try await outage.fault("hang", sandbox)
        let (outcomes, took) = await asyncCalls(outage, client)
        try await assertShared(outage, expected, outcomes, took: took)

        try await sandbox.reset()
        let banks = try await client.listBanks(country: outage.country)
        XCTAssertFalse(banks.isEmpty, "the call after the failure fetches again")
        let requests = try await bankRequests(outage)
        XCTAssertEqual(requests, 1, "a new request after the reset")
    }

    func testB48AsyncCallersShareOneFetchAndIts5xx() async throws {
        let outage = try Outage(sandbox)
        let client = try Client(config: outage.config)
        let expected = try await outage.fault("slow_503", sandbox)
        let (outcomes, took) = await asyncCalls(outage, client)
        try await assertShared(outage, expected, outcomes, took: took)
    }

    func testB48BlockingCallersDuringAHangShareOneFetchAndTimeOutTogether() async throws {
        let outage = try Outage(sandbox)
        let client = try BlockingClient(config: outage.config)
        let expected = try await outage.fault("hang", sandbox)
        let (outcomes, took) = await blockingCalls(outage, client)
        try await assertShared(outage, expected, outcomes, took: took)

        try await sandbox.reset()
        let country = outage.country
        let banks = await onNewThread { try client.listBanks(country: country).count }
        XCTAssertGreaterThan(try banks.get(), 0, "the call after the failure fetches again")
        let requests = try await bankRequests(outage)
        XCTAssertEqual(requests, 1, "a new request after the reset")
    }

    func testB48BlockingCallersShareOneFetchAndIts5xx() async throws {
        let outage = try Outage(sandbox)
        let client = try BlockingClient(config: outage.config)
        let expected = try await outage.fault("slow_503", sandbox)
        let (outcomes, took) = await blockingCalls(outage, client)
        try await assertShared(outage, expected, outcomes, took: took)
    }
}
