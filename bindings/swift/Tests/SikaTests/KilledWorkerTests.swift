import Foundation
import Sika
import XCTest

/// B220 in Swift: a worker process SIGKILLed inside `Ledger.fulfil`'s block (its renewals die
/// with it) leaves its claim `inProgress` until the short lease lapses; then the next delivery
/// is offered it (offer 2), logged at WARN, and ships it once more, only then. The worker is the package's
/// `KilledWorkerChild` executable, killed as the OOM killer or `kill -9` would end it.
final class KilledWorkerTests: XCTestCase {
    private let leaseMs: Int64 = 1_000
    private let sink = RecordingLogSink.shared

    override func setUp() {
        _ = sink.taken()
        sink.want(.warn)
    }

    override func tearDown() {
        sink.want(nil)
    }

    private func notification(_ reference: String) -> Data {
        Data(#"{"event":"charge.success","data":{"reference":\#(jsonString(reference))}}"#.utf8)
    }

    func testB220AWorkerProcessKilledInsideTheBlockIsOfferedAgainAfterTheLease() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sika-b220-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (reference, path) = ("B220-SWIFT", directory.appendingPathComponent("ledger.db").path)
        try await sandbox.seedTransaction(try transactionObject(reference: reference, status: "successful", amount: "100.10"))
        let ledger = try Ledger.sqlite(path: path, options: LedgerOptions(leaseMs: leaseMs))
        try await ledger.expect(reference: reference, expected: ExpectedPayment(amount: Amount("100.10"), currency: "GHS"))

        let child = productsDirectory.appendingPathComponent("KilledWorkerChild")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: child.path), "not built: \(child.path)")
        let (worker, output) = (Process(), Pipe())
        worker.executableURL = child
        worker.arguments = [path, sandbox.url, canaryKey, reference, String(leaseMs)]
        worker.standardInput = FileHandle.nullDevice
        worker.standardOutput = output
        worker.standardError = output
        try worker.run()
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        var said = ""
        while !said.contains("\n") {  // its first line, or its end
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said += String(decoding: chunk, as: UTF8.self)
        }
        XCTAssertEqual(said, "SHIPPING\n", "the worker took no claim")

        // Held past the lease: the worker's renewals kept the claim its own.
        try await Task.sleep(nanoseconds: UInt64(leaseMs) * 2_000_000)
        let client = try sandbox.client()
        let during = try await ledger.handleWebhook(client: client, body: notification(reference))
        guard case .inProgress = during else { return XCTFail("while the worker ships: \(during)") }
        kill(worker.processIdentifier, SIGKILL)
        worker.waitUntilExit()
        XCTAssertEqual(worker.terminationReason, .uncaughtSignal)
        XCTAssertEqual(worker.terminationStatus, SIGKILL)

        // Its claim lapses with the lease; only then is it offered again, and shipped once more.
        try await Task.sleep(nanoseconds: UInt64(leaseMs + 300) * 1_000_000)
        guard case .fulfil(let claim, _) = try await ledger.handleWebhook(client: client, body: notification(reference)) else {
            return XCTFail("the dead worker's claim was not offered again after its lease")
        }
        XCTAssertEqual(claim.offer, 2)
        let warned = sink.taken().filter { $0.message.contains("`\(reference)` offered again (claim 2)") }
        XCTAssertEqual(warned.map(\.level), [.warn], "the re-offer is logged once, at WARN")
        var shipped: [Int64] = []
        try await ledger.fulfil(claim) { held in shipped.append(held.offer) }
        XCTAssertEqual(shipped, [2])
        let after = try await ledger.handleWebhook(client: client, body: notification(reference))
        guard case .alreadyFulfilled = after else { return XCTFail("\(after)") }
        let record = try await ledger.payment(reference: reference)
        XCTAssertEqual(record?.claimsOffered, 2, "\(String(describing: record))")
    }
}
