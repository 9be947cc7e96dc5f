import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Sika

/// The merchant's test kit (ADR 0051): the shipped sandbox (`sika-sandbox`) for an integration's
/// own tests, with the same handle as Python's `sika.testing` and the JVM's `dev.sika:sika-testing`.
///
/// `SikaSandbox()` runs the binary of `SIKA_SANDBOX_BIN`, else `sika-sandbox` on `PATH`, on a
/// free loopback port with a fresh random key passed in its environment (never its command line).
/// Each control method sends the request that `sandbox_control.json` (the repository's
/// `tests/fixtures`, one description for every language) lists, and throws
/// `SikaSandboxError.controlCallFailed` when the sandbox answers anything but its success.
///
/// `Sendable`: one sandbox can serve a whole test class (`static let sandbox = try! SikaSandbox()`,
/// as Python's per-session fixture) and the tasks of a task group. Its answers are `Sendable`
/// too: JSON objects as `[String: any Sendable]` (a `null` member left out), with `String`,
/// `Bool`, `Int`, `Double`, arrays and objects as values.
// `@unchecked`: every stored property is a constant, and the one thing that changes, the child
// process, is stopped under `stopping`; corelibs Foundation does not declare `Process` and `Pipe`
// `Sendable`.
public final class SikaSandbox: @unchecked Sendable {
    /// How long the simulated customer takes to answer a charge, unless changed.
    public static let defaultConfirmAfterMs = 200

    /// The sandbox's base URL, `http://127.0.0.1:PORT`.
    public let baseUrl: String
    /// The key this sandbox accepts (random per sandbox; give it to the code under test).
    public let secretKey: String
    private let operations: [String: ControlOperation]
    private let process: Process
    private let stdin: Pipe
    private let stopping = NSLock()

    /// Starts a sandbox; `stop()` (or releasing it) stops it.
    public init() throws {
        let environment = ProcessInfo.processInfo.environment
        let binary = environment["SIKA_SANDBOX_BIN"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.onPath("sika-sandbox")
        guard let binary else {
            throw SikaSandboxError.didNotStart("no sika-sandbox on PATH and SIKA_SANDBOX_BIN is not set")
        }
        guard let table = Bundle.module.url(forResource: "sandbox_control", withExtension: "json") else {
            throw SikaSandboxError.didNotStart("sandbox_control.json is missing from the SikaTesting bundle")
        }
        operations = try JSONDecoder().decode(ControlTable.self, from: Data(contentsOf: table)).operations
        var random = SystemRandomNumberGenerator()
        secretKey = "sk_test_" + (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &random)) }
            .joined()
        let stdout = Pipe()
        (process, stdin) = (Process(), Pipe())
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "--port", "0", "--exit-on-stdin-eof", "--confirm-after-ms", String(Self.defaultConfirmAfterMs),
        ]
        var childEnvironment = environment
        childEnvironment["SIKA_SANDBOX_SECRET_KEY"] = secretKey
        process.environment = childEnvironment
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = Self.firstLine(of: stdout.fileHandleForReading)
        let prefix = "listening on "
        guard line.hasPrefix(prefix) else {
            Self.shutDown(process, stdin)
            throw SikaSandboxError.didNotStart("the sandbox did not start: \(line)")
        }
        baseUrl = String(line.dropFirst(prefix.count))
    }

    deinit {
        Self.shutDown(process, stdin)
    }

    /// Stops the sandbox; safe to call twice, also from two tasks at once.
    public func stop() {
        stopping.lock()
        defer { stopping.unlock() }
        Self.shutDown(process, stdin)
    }

    /// A configuration for this sandbox's URL and key, every other setting the default.
    public func config() -> ClientConfig {
        ClientConfig(secretKey: SecretKey(key: secretKey), baseUrl: baseUrl, timeoutMs: 10_000)
    }

    /// An async client for this sandbox.
    public func client() throws -> Client { try Client(config: config()) }

    /// A blocking client for this sandbox.
    public func blockingClient() throws -> BlockingClient { try BlockingClient(config: config()) }

    /// Stores a transaction as the service would report it, replacing one with the same
    /// reference. `amount` is decimal text (`"25.50"` stays `25.50` on the wire); bad input throws
    /// `SikaSandboxError.invalidInput` and sends nothing.
    @discardableResult
    public func seedTransaction(
        _ reference: String, amount: String = "10.00", currency: String = "GHS", status: String = "successful"
    ) async throws -> [String: any Sendable] {
        guard !reference.isEmpty, !currency.isEmpty, !status.isEmpty else {
            throw SikaSandboxError.invalidInput("reference, currency and status must not be empty")
        }
        guard amount.range(of: #"^(0|[1-9][0-9]*)(\.[0-9]+)?$"#, options: .regularExpression) != nil else {
            throw SikaSandboxError.invalidInput("amount must be decimal text such as 25.50, not \(amount)")
        }
        let fields = try Self.jsonText([
            "tx_ref": reference, "currency": currency, "status": status, "payment_type": "mobile_money",
        ])
        let body = fields.dropLast() + ",\"amount\":\(amount)}"
        return try await object(control("seed_transaction", body: String(body)))
    }

    /// Changes a transaction's status (any text, also one the service never documented).
    public func setStatus(_ reference: String, _ status: String) async throws {
        try await control("set_status", reference: reference, body: Self.jsonText(["status": status]))
    }

    /// Makes the next `count` API requests under `path` fail as `kind` says (the sandbox's
    /// README lists the faults), e.g. `addFault("/transaction/verify", kind: "status", options: ["status": 503])`.
    @discardableResult
    public func addFault(
        _ path: String, kind: String, count: Int = 1, options: [String: any Sendable] = [:]
    ) async throws -> [String: any Sendable] {
        var fault: [String: Any] = options
        (fault["path"], fault["kind"], fault["count"]) = (path, kind, count)
        return try await object(control("add_fault", body: Self.jsonText(fault)))
    }

    /// The API requests the sandbox received, oldest first: `method`, `path` (as on the wire),
    /// `query`, `authorized`, `request_id` (the `X-Request-Id` sent), `answered_request_id`,
    /// `in_flight`, `received_ms`, and the W3C trace context the request carried
    /// (`traceparent`, `tracestate`; left out when it carried none).
    public func requests() async throws -> [[String: any Sendable]] {
        try await list(control("requests"))
    }

    /// Where the sandbox delivers notifications: a loopback URL, or nil for nowhere.
    public func setWebhookUrl(_ url: String?) async throws {
        try await settings(["webhook_url": url.map { $0 as Any } ?? NSNull()])
    }

    /// Changes run-time settings (`webhook_url`, `confirm_after_ms`, `webhook_repeat`,
    /// `webhook_retry_ms`); `reset()` puts the kit's back. A `nil` value (`String?.none`) is
    /// JSON's `null`.
    @discardableResult
    public func changeSettings(_ settings: [String: any Sendable]) async throws -> [String: any Sendable] {
        try await self.settings(settings.mapValues { Self.isNil($0) ? NSNull() as Any : $0 as Any })
    }

    /// Delivers the `charge.success` notification of `reference` `times` times (all at once when
    /// `concurrent`), for the transaction as the sandbox has it; returns once the deliveries
    /// ended, with each delivery's first attempt, the receiver's answer and time.
    @discardableResult
    public func trigger(
        _ reference: String, times: Int = 1, concurrent: Bool = false
    ) async throws -> [[String: any Sendable]] {
        let body: [String: Any] = [
            "reference": reference, "event": "charge.success", "times": times, "concurrent": concurrent,
        ]
        return try await list(control("send_webhook", body: Self.jsonText(body)))
    }

    /// Every webhook delivery attempt, oldest first: reference, event, url, http_status,
    /// delivered, delivery_id, attempt, sent_at, duration_ms.
    public func deliveries() async throws -> [[String: any Sendable]] {
        try await list(control("webhooks"))
    }

    /// Forgets transactions, requests, deliveries and faults, and puts back the kit's settings
    /// (no webhook URL, no retries, one delivery per notification).
    public func reset() async throws {
        try await control("reset")
        try await settings([
            "webhook_url": NSNull(), "confirm_after_ms": Self.defaultConfirmAfterMs, "webhook_repeat": 1,
            "webhook_retry_ms": [Int](),
        ])
    }

    // MARK: the control API, as sandbox_control.json lists it

    @discardableResult
    private func settings(_ settings: [String: Any]) async throws -> [String: any Sendable] {
        try await object(control("change_settings", body: Self.jsonText(settings)))
    }

    @discardableResult
    private func control(_ operation: String, reference: String? = nil, body: String? = nil) async throws -> Data {
        guard let spec = operations[operation] else {
            throw SikaSandboxError.controlCallFailed("no control operation \(operation) in sandbox_control.json")
        }
        var path = spec.path
        if let reference {
            let segment = reference.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? reference
            path = path.replacingOccurrences(of: "{reference}", with: segment)
        }
        guard let url = URL(string: baseUrl + path) else {
            throw SikaSandboxError.controlCallFailed("not a URL: \(baseUrl + path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = spec.method
        request.timeoutInterval = 30
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
            throw SikaSandboxError.controlCallFailed(
                "\(operation) (\(spec.method) \(path)): HTTP \(status): " + String(decoding: data, as: UTF8.self))
        }
        return data
    }

    /// The answer's `data`.
    private func content(_ data: Data) throws -> ControlAnswer? {
        guard case .object(let members) = try JSONDecoder().decode(ControlAnswer.self, from: data) else { return nil }
        return members["data"]
    }

    private func object(_ data: Data) throws -> [String: any Sendable] {
        guard case .object(let members)? = try content(data) else { return [:] }
        return members.compactMapValues { $0.value }
    }

    private func list(_ data: Data) throws -> [[String: any Sendable]] {
        guard case .array(let items)? = try content(data) else { return [] }
        return items.compactMap { item in
            guard case .object(let members) = item else { return nil }
            return members.compactMapValues { $0.value }
        }
    }

    private static func isNil(_ value: any Sendable) -> Bool {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }

    private static func jsonText(_ value: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    private static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        return nil
    }

    private static func shutDown(_ process: Process, _ stdin: Pipe) {
        try? stdin.fileHandleForWriting.close()
        if process.isRunning {
            process.terminate()
        }
        process.waitUntilExit()
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

extension SikaSandbox: CustomStringConvertible {
    /// Never the key: a failing assertion may print the handle.
    public var description: String { "SikaSandbox(\(baseUrl))" }
}

/// Why the kit could not start the sandbox or a control call was refused (the answer included).
public enum SikaSandboxError: Error {
    case didNotStart(String)
    case invalidInput(String)
    case controlCallFailed(String)
}

/// A JSON value of a control answer, read by `JSONDecoder` (which tells `true` from `1`, as
/// `JSONSerialization`'s `NSNumber` does not on every platform).
private enum ControlAnswer: Decodable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([ControlAnswer])
    case object([String: ControlAnswer])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ControlAnswer].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ControlAnswer].self))
        }
    }

    /// As plain Swift values; `nil` for `null` (an object leaves such a member out; in an
    /// array it is `String?.none`).
    var value: (any Sendable)? {
        switch self {
        case .null: nil
        case .bool(let value): value
        case .integer(let value): value
        case .number(let value): value
        case .string(let value): value
        case .array(let items): items.map { $0.value ?? (String?.none as any Sendable) }
        case .object(let members): members.compactMapValues { $0.value }
        }
    }
}

private struct ControlTable: Decodable {
    let operations: [String: ControlOperation]
}

private struct ControlOperation: Decodable {
    let method: String
    let path: String
    let expect: Int
}
