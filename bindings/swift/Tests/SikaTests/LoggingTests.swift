import Foundation
import Sika
import XCTest

/// The host's side of the log bridge as a merchant writes it (README, "Logging"; there it hands
/// records to swift-log, which cannot be fetched here): keeps the records and answers the level
/// the test sets. Installed once per process, as the bridge allows.
final class RecordingLogSink: LogSink {
    let records = Locked<[LogRecord]>([])
    let wanted = Locked<LogLevel?>(nil)
    let timesAsked = Locked(0)

    static let shared: RecordingLogSink = {
        let sink = RecordingLogSink()
        _ = setLogSink(sink: sink)
        return sink
    }()

    func log(record: LogRecord) {
        records.mutate { $0.append(record) }
    }

    func level() -> LogLevel? {
        timesAsked.mutate { $0 += 1 }
        return wanted.current
    }

    /// Sets the level the sink answers and tells the core at once (not what the test of
    /// following is about).
    func want(_ level: LogLevel?) {
        wanted.mutate { $0 = level }
        setLogSinkLevel(level: level)
    }

    /// What the sink received, once every record logged so far has been delivered: records
    /// reach it on the SDK's logging thread, after the call that made them (ADR 0044).
    func taken() -> [LogRecord] {
        flushLogRecords(timeoutMs: 10_000)
        var taken: [LogRecord] = []
        records.mutate { swap(&taken, &$0) }
        return taken
    }
}

/// B41 in Swift: the core's records reach the generated `LogSink` protocol's implementation.
final class LoggingTests: XCTestCase {
    var sandbox: Sandbox!
    let sink = RecordingLogSink.shared

    override func setUp() async throws {
        sandbox = try Sandbox()
        _ = sink.taken()
    }

    override func tearDown() {
        sink.want(nil)
        sandbox?.stop()
    }

    func testB41RecordsOfRealCallsArriveWithTargetLevelAndMessageAndNothingSecret() async throws {
        sink.want(.trace)
        try await sandbox.seedTransaction(transactionObject(reference: "LOG-SW-1", status: "successful", amount: "5"))
        try await sandbox.addFault("/transaction/verify", kind: "status", options: ["status": 503])
        _ = try sandbox.blockingClient().verifyTransaction(reference: "LOG-SW-1")
        let client = try sandbox.client()
        _ = try await client.verifyTransaction(reference: "LOG-SW-1") // logged on the SDK's runtime thread
        _ = try await client.initiateCharge(request: chargeRequest(reference: "LOG-SW-CHARGE", phone: "+233244129876"))

        let records = sink.taken()
        let warnings = records.filter { $0.level == .warn }
        XCTAssertEqual(warnings.map(\.target), ["sika.transport"], "\(records)")
        XCTAssertTrue(
            warnings.first?.message.hasPrefix("GET /transaction/verify/LOG-SW-1 failed (HTTP 503); retry 1 in ") ?? false,
            "\(records)")
        let debug = records.filter { $0.level == .debug && $0.target == "sika.transport" }.map(\.message)
        XCTAssertEqual(debug.filter { $0.hasPrefix("GET /transaction/verify/LOG-SW-1 -> HTTP 200 in ") }.count, 2, "\(records)")
        XCTAssertTrue(debug.contains { $0.hasPrefix("POST /charge -> HTTP 200 in ") }, "\(records)")
        let info = records.filter { $0.level == .info }
        XCTAssertEqual(info.map(\.target), ["sika.client"])
        XCTAssertEqual(info.first?.message, "charge LOG-SW-CHARGE: 20 GHS to +233*******76 via MTN")
        for record in records {
            for secret in [canaryKey, "+233244129876", "233244129876", "244129876"] {
                XCTAssertFalse(record.message.contains(secret), "\(secret) in \(record)")
            }
        }
    }

    func testB41TheHostsLevelIsFollowedWithinASecondAndNothingMoreDetailedIsBuilt() async throws {
        sink.want(.warn)
        try await sandbox.seedTransaction(transactionObject(reference: "LOG-SW-2", status: "successful", amount: "5"))
        let blocking = try sandbox.blockingClient()
        _ = try blocking.verifyTransaction(reference: "LOG-SW-2")
        XCTAssertEqual(sink.taken(), [], "no record below WARN reaches the sink")

        // The host's level changes without telling the core: asked on the first call a second later.
        let askedBefore = sink.timesAsked.current
        sink.wanted.mutate { $0 = .debug }
        try await Task.sleep(nanoseconds: 1_100_000_000)
        _ = try blocking.verifyTransaction(reference: "LOG-SW-2")
        XCTAssertEqual(sink.taken().map { [$0.target, "\($0.level)"] }, [["sika.transport", "debug"]])
        XCTAssertEqual(sink.timesAsked.current, askedBefore + 1)

        sink.wanted.mutate { $0 = nil }
        try await Task.sleep(nanoseconds: 1_100_000_000)
        _ = try blocking.verifyTransaction(reference: "LOG-SW-2")
        _ = try blocking.verifyTransaction(reference: "LOG-SW-2")
        XCTAssertEqual(sink.taken(), [], "the host wants nothing again")
        XCTAssertEqual(sink.timesAsked.current, askedBefore + 2, "asked once a second at most, not per call")
    }

    /// B85: a record carries its facts as fields (swift-log metadata in the README's handler).
    func testB85RecordsCarryOperationReferenceStatusAttemptAndDuration() async throws {
        sink.want(.debug)
        try await sandbox.seedTransaction(transactionObject(reference: "LOG-SW-B85", status: "successful", amount: "5"))
        _ = try await sandbox.client().verifyTransaction(reference: "LOG-SW-B85")
        let lines = sink.taken().filter { $0.message.hasPrefix("GET /transaction/verify/LOG-SW-B85 ") }
        XCTAssertEqual(lines.count, 1, "\(lines)")
        let line = try XCTUnwrap(lines.first)
        XCTAssertEqual(line.operation, "verify_transaction")
        XCTAssertEqual(line.reference, "LOG-SW-B85")
        XCTAssertEqual(line.httpStatus, 200)
        XCTAssertEqual(line.attempt, 1)
        let duration = try XCTUnwrap(line.durationMs)
        XCTAssertTrue(line.message.hasSuffix(" in \(duration) ms"), line.message)
        XCTAssertNil(line.dropped)
    }
}
