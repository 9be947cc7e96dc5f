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
    private let process: Process
    private let stdin: Pipe
    private let stdout: Pipe

    init(confirmAfterMs: Int = 150) throws {
        let binary = try XCTUnwrap(
            ProcessInfo.processInfo.environment["SIKA_SANDBOX_BIN"],
            "SIKA_SANDBOX_BIN must name the sandbox binary (scripts/test-swift sets it)")
        (process, stdin, stdout) = (Process(), Pipe(), Pipe())
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "--port", "0", "--secret-key", canaryKey, "--exit-on-stdin-eof",
            "--confirm-after-ms", String(confirmAfterMs),
        ]
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
        _ = try await call("POST", "/__sandbox/transactions", body: objectJSON)
    }

    /// The API requests the sandbox received, oldest first.
    func requests() async throws -> [LoggedRequest] {
        let data = try await call("GET", "/__sandbox/requests")
        return try JSONDecoder().decode(RequestLog.self, from: data).data
    }

    func clearRequests() async throws {
        _ = try await call("DELETE", "/__sandbox/requests")
    }

    /// Makes the next `count` requests whose path starts with `path` misbehave as `kind`
    /// (tests/sandbox/README.md, "Faults"); `options` are the kind's own fields, e.g.
    /// `addFault("/charge", kind: "after_processing", options: ["then": "status", "status": 502])`.
    func addFault(_ path: String, kind: String, count: Int = 1, options: [String: any Sendable] = [:]) async throws {
        var fault: [String: Any] = options
        (fault["path"], fault["kind"], fault["count"]) = (path, kind, count)
        let body = try JSONSerialization.data(withJSONObject: fault, options: [.sortedKeys])
        _ = try await call("POST", "/__sandbox/faults", body: String(decoding: body, as: UTF8.self))
    }

    /// Adds a fault given as a whole JSON object (`path`, `kind`, `count` and the kind's options),
    /// e.g. one of tests/fixtures/faults.json, where an option may be `null`.
    func addFault(json fault: String) async throws {
        _ = try await call("POST", "/__sandbox/faults", body: fault)
    }

    /// Forgets transactions, requests and faults (settings are kept).
    func reset() async throws {
        _ = try await call("POST", "/__sandbox/reset")
    }

    /// TCP connections open now (this control request's own included) and accepted so far.
    func connections() async throws -> (open: Int, accepted: Int) {
        let data = try await call("GET", "/__sandbox/connections")
        let counts = try JSONDecoder().decode(ConnectionsAnswer.self, from: data).data
        return (counts.open, counts.accepted)
    }

    private func call(_ method: String, _ path: String, body: String? = nil) async throws -> Data {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url + path)))
        request.httpMethod = method
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
        guard (200..<300).contains(status) else {
            throw SandboxError.controlCallFailed("\(method) \(path): HTTP \(status)")
        }
        return data
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
struct LoggedRequest: Decodable, Equatable {
    let method: String
    let path: String
    let query: String?
    let authorized: Bool
}

private struct ConnectionsAnswer: Decodable {
    struct Counts: Decodable {
        let open: Int
        let accepted: Int
    }
    let data: Counts
}

private struct RequestLog: Decodable {
    let data: [LoggedRequest]
}

enum SandboxError: Error {
    case didNotStart(firstLine: String)
    case controlCallFailed(String)
}
