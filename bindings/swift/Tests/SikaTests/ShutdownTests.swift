import Foundation
import XCTest

/// B54 in Swift: a process that ends while async calls are in flight (some hanging, others
/// answered all through the exit, so an answer wakes a task from one of the SDK's threads as
/// the process goes down) exits 0, with no crash signal and nothing on its output but its own
/// line. Each end is checked: `exit(0)` and the end of the top-level code. The child is the
/// package's `ShutdownChild` executable, built beside this test bundle.
final class ShutdownTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUp() async throws {
        sandbox = try Sandbox()
        try await sandbox.addFault("/transaction/verify/HANG-", kind: "hang", count: 100_000)
        try await sandbox.addFault("/transaction/verify/LATE-", kind: "delay", count: 100_000, options: ["delay_ms": 60])
    }

    override func tearDown() {
        sandbox?.stop()
    }

    /// Children per way of ending, run side by side: the exit race is a matter of timing.
    private let children = 5

    func testB54AProcessExitingWithAsyncCallsInFlightExitsClean() throws {
        try endsClean(by: "exit")
    }

    func testB54AProcessReturningFromItsTopLevelCodeWithAsyncCallsInFlightExitsClean() throws {
        try endsClean(by: "return")
    }

    private func endsClean(by end: String) throws {
        let child = productsDirectory.appendingPathComponent("ShutdownChild")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: child.path), "not built: \(child.path)")
        let running = try (0..<children).map { _ in try start(child, end) }
        for (process, output) in running {
            process.waitUntilExit()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertEqual(process.terminationReason, .exit, "\(end): a signal ended the child: \(text)")
            XCTAssertEqual(process.terminationStatus, 0, "\(end): \(text)")
            XCTAssertEqual(text, "answers before the exit: yes\n", "\(end): output beyond the child's own line")
        }
    }

    /// Starts the child, its standard output and error in one pipe.
    private func start(_ child: URL, _ end: String) throws -> (Process, Pipe) {
        let (process, output) = (Process(), Pipe())
        process.executableURL = child
        process.arguments = [sandbox.url, canaryKey, end]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return (process, output)
    }
}
