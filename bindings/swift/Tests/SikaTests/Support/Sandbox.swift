import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Sika
import XCTest

/// The project's sandbox (`$SIKA_SANDBOX_BIN`) on a free loopback port, one per test.
/// Its stdin stays a pipe: if the test process dies, the sandbox sees end of input and exits.
final class Sandbox {
    let url: String
    /// tests/fixtures/sandbox_control.json's operations by name.
    private let controlOperations: [String: ControlOperation]
    private let process: Process
    private let stdin: Pipe
    private let stdout: Pipe

    init(confirmAfterMs: Int = 150) throws {
        let binary = try XCTUnwrap(
            ProcessInfo.processInfo.environment["SIKA_SANDBOX_BIN"],
            "SIKA_SANDBOX_BIN must name the sandbox binary (scripts/test-swift sets it)")
        let table = try Data(contentsOf: fixturesDirectory.appendingPathComponent("sandbox_control.json"))
        controlOperations = try JSONDecoder().decode(ControlTable.self, from: table).operations
        (process, stdin, stdout) = (Process(), Pipe(), Pipe())
        process.executableURL = URL(fileURLWithPath: binary)
        // The key goes through the environment, not the command line (B62).
        process.arguments = [
            "--port", "0", "--exit-on-stdin-eof", "--confirm-after-ms", String(confirmAfterMs),
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["SIKA_SANDBOX_SECRET_KEY"] = canaryKey
        process.environment = environment
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = Self.firstLine(of: stdout.fileHandleForReading)
        let prefix = "listening on "
        guard line.hasPrefix(prefix + "http://127.0.0.1:") else {
            Self.shutDown(process, stdin)
            throw SandboxError.didNotStart(firstLine: line)
        }
        url = String(line.dropFirst(prefix.count))
    }

    /// Closes stdin and terminates the process; safe to call twice.
    func stop() {
        Self.shutDown(process, stdin)
    }

    private static func shutDown(_ process: Process, _ stdin: Pipe) {
        try? stdin.fileHandleForWriting.close()
        if process.isRunning {
            process.terminate()
        }
        process.waitUntilExit()
    }

    /// A configuration for this sandbox with the canary key.
    func config(key: String = canaryKey) -> ClientConfig {
        ClientConfig(secretKey: SecretKey(key: key), baseUrl: url, timeoutMs: 10_000)
    }

    func client() throws -> Client { try Client(config: config()) }

    func blockingClient() throws -> BlockingClient { try BlockingClient(config: config()) }

    // MARK: control API

    /// Stores a transaction object; the text is served byte for byte, so it is sent as text.
    func seedTransaction(_ objectJSON: String) async throws {
        try await control("seed_transaction", body: objectJSON)
    }

    /// The API requests the sandbox received, oldest first.
    func requests() async throws -> [LoggedRequest] {
        try await control("requests", answer: [LoggedRequest].self)
    }

    /// The request ids of the API requests received, oldest first: the `X-Request-Id` sent
    /// (nil when none) and the one the sandbox answered with (B201).
    func requestIds() async throws -> [LoggedRequestIds] {
        try await control("requests", answer: [LoggedRequestIds].self)
    }

    func clearRequests() async throws {
        try await control("clear_requests")
    }

    /// Makes the next `count` requests whose path starts with `path` misbehave as `kind`
    /// (sandbox/README.md, "Faults"); `options` are the kind's own fields, e.g.
    /// `addFault("/charge", kind: "after_processing", options: ["then": "status", "status": 502])`.
    func addFault(_ path: String, kind: String, count: Int = 1, options: [String: any Sendable] = [:]) async throws {
        var fault: [String: Any] = options
        (fault["path"], fault["kind"], fault["count"]) = (path, kind, count)
        try await addFault(json: jsonText(fault))
    }

    /// Adds a fault given as a whole JSON object (`path`, `kind`, `count` and the kind's options),
    /// e.g. one of tests/fixtures/faults.json, where an option may be `null`.
    func addFault(json fault: String) async throws {
        try await control("add_fault", body: fault)
    }

    /// Forgets transactions, requests and faults (settings are kept).
    func reset() async throws {
        try await control("reset")
    }

    /// TCP connections open now (this control request's own included) and accepted so far.
    func connections() async throws -> (open: Int, accepted: Int) {
        let counts = try await control("connections", answer: ConnectionCounts.self)
        return (counts.open, counts.accepted)
    }

    /// Calls one operation of the control API as tests/fixtures/sandbox_control.json lists it
    /// (the table every language's suite reads): its method and path, and the status a
    /// successful call answers; any other status fails the test with the sandbox's body.
    /// Returns the body. (No operation this suite calls has a `{reference}` in its path.)
    @discardableResult
    private func control(_ operation: String, body: String? = nil) async throws -> Data {
        guard let spec = controlOperations[operation] else {
            throw SandboxError.unknownControlOperation(operation)
        }
        var request = URLRequest(url: try XCTUnwrap(URL(string: url + spec.path), spec.path))
        request.httpMethod = spec.method
        // One connection per control call, closed after it: URLSession.shared otherwise keeps a
        // pool of its own (one or two connections, as it pleases), and the connection counts
        // that the leak tests compare (B32) would include them.
        request.setValue("close", forHTTPHeaderField: "Connection")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
        }
        // The completion-handler API wrapped by hand: it exists in every Foundation on Linux.
        let (data, status): (Data, Int) = try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                    continuation.resume(returning: (data ?? Data(), status))
                }
            }.resume()
        }
        guard status == spec.expect else {
            throw SandboxError.controlCallFailed(
                "\(operation) (\(spec.method) \(spec.path)): HTTP \(status), expected \(spec.expect): "
                    + String(decoding: data, as: UTF8.self))
        }
        return data
    }

    /// The `data` of a control operation's answer (the sandbox's `{"data": ...}` envelope).
    private func control<Answer: Decodable>(_ operation: String, answer: Answer.Type) async throws -> Answer {
        try JSONDecoder().decode(Envelope<Answer>.self, from: await control(operation)).data
    }

    /// Reads up to the first newline (the sandbox's address line) without buffering past it.
    private static func firstLine(of handle: FileHandle) -> String {
        var bytes = Data()
        while let byte = try? handle.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// One entry of `GET /__sandbox/requests`: the path as on the wire (percent-encoded).
struct LoggedRequestIds: Decodable {
    let sent: String?
    let answered: String

    enum CodingKeys: String, CodingKey {
        case sent = "request_id"
        case answered = "answered_request_id"
    }
}

struct LoggedRequest: Decodable, Equatable {
    let method: String
    let path: String
    let query: String?
    let authorized: Bool
    /// The W3C trace context the request carried (B208).
    let traceparent: String?
    let tracestate: String?
}

private struct ControlTable: Decodable {
    let operations: [String: ControlOperation]
}

/// One control API operation: how to call it and the status a successful call answers.
private struct ControlOperation: Decodable {
    let method: String
    let path: String
    let expect: Int
}

/// The sandbox's answers carry their content in `data`.
private struct Envelope<Content: Decodable>: Decodable {
    let data: Content
}

private struct ConnectionCounts: Decodable {
    let open: Int
    let accepted: Int
}

enum SandboxError: Error {
    case didNotStart(firstLine: String)
    case unknownControlOperation(String)
    case controlCallFailed(String)
}
