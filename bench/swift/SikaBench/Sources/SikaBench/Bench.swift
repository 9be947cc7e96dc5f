// Prints `RESULT<TAB>group<TAB>contender<TAB>unit<TAB>value` lines; every comparison is
// interleaved (A, B, C, A, B, C, ...). The key comes from SIKA_BENCH_KEY and is never printed.
//   SikaBench URL REFERENCE ROUNDS CALLS RUST_BENCH_BINARY
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Sika

let key = ProcessInfo.processInfo.environment["SIKA_BENCH_KEY"]!

func emit(_ group: String, _ contender: String, _ unit: String, _ value: Double) {
    let line = "RESULT\t\(group)\t\(contender)\t\(unit)\t\(String(format: "%.6g", value))\n"
    FileHandle.standardOutput.write(line.data(using: .utf8)!)
}

func note(_ text: String) {
    FileHandle.standardError.write((text + "\n").data(using: .utf8)!)
}

/// What a merchant writes today: URLSession plus Codable, the same work as verify.
struct Envelope: Decodable {
    struct Data: Decodable {
        let status: String
        let tx_ref: String
        let amount: Decimal
    }
    let status: Bool
    let data: Data?
}

final class URLSessionVerifier: Sendable {
    let session: URLSession
    let baseUrl: String

    init(baseUrl: String) {
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 100
        session = URLSession(configuration: configuration)
        self.baseUrl = baseUrl
    }

    func verify(_ reference: String) async throws -> (String, Decimal) {
        let escaped = reference.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        var request = URLRequest(url: URL(string: "\(baseUrl)/transaction/verify/\(escaped)")!)
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.timeoutInterval = 30
        let (body, response) = try await session.data(for: request)
        let envelope = try JSONDecoder().decode(Envelope.self, from: body)
        guard (response as! HTTPURLResponse).statusCode == 200, envelope.status, let data = envelope.data,
              data.tx_ref == reference else { throw URLError(.badServerResponse) }
        return (data.status, data.amount)
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Synchronous calls timed in a plain loop: an `async` closure per call would add an
/// executor hop to every call and measure Swift concurrency instead of the call.
func syncRate(_ calls: Int, _ call: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let started = clock.now
    for _ in 0..<calls { try call() }
    return Double(calls) / seconds(clock.now - started)
}

func rate(_ calls: Int, _ call: () async throws -> Void) async throws -> Double {
    let clock = ContinuousClock()
    let started = clock.now
    for _ in 0..<calls { try await call() }
    return Double(calls) / seconds(clock.now - started)
}

func concurrentRate(_ calls: Int, _ inFlight: Int, _ call: @escaping @Sendable () async throws -> Void) async throws -> Double {
    let perWorker = calls / inFlight
    let clock = ContinuousClock()
    let started = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<inFlight {
            group.addTask { for _ in 0..<perWorker { try await call() } }
        }
        try await group.waitForAll()
    }
    return Double(perWorker * inFlight) / seconds(clock.now - started)
}

func rustRate(_ binary: String, _ url: String, _ reference: String, _ calls: Int) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = ["raw", url, reference, String(calls), "1"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let out = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw URLError(.unknown) }
    return Double(String(decoding: out, as: UTF8.self).split(separator: "\n").last!)!
}

@main
struct Bench {
    static func main() async throws {
        let args = CommandLine.arguments
        let (url, reference, rounds, calls, rustBinary) = (args[1], args[2], Int(args[3])!, Int(args[4])!, args[5])
        let config = ClientConfig(secretKey: SecretKey(key: key), baseUrl: url)

        let blocking = try BlockingClient(config: config)
        let byURLSession = URLSessionVerifier(baseUrl: url)
        // The SDK's blocking call in a plain loop; URLSession the way Swift code calls it (async).
        let sikaVerify = {
            let transaction = try blocking.verifyTransaction(reference: reference)
            precondition(transaction.status == .successful && transaction.txRef == reference)
        }
        let urlSessionVerify: () async throws -> Void = { _ = try await byURLSession.verify(reference) }
        _ = try syncRate(200, sikaVerify)
        _ = try await rate(200, urlSessionVerify)
        note("swift: sequential verify, \(rounds) rounds of \(calls) calls")
        for _ in 0..<rounds {
            emit("swift_verify_sequential", "sika BlockingClient", "calls/s", try syncRate(calls, sikaVerify))
            emit("swift_verify_sequential", "URLSession + JSONDecoder", "calls/s", try await rate(calls, urlSessionVerify))
            emit("swift_verify_sequential", "rust reqwest+serde (raw)", "calls/s", try rustRate(rustBinary, url, reference, calls))
        }

        let client = try Client(config: config)
        let concurrent: [(String, @Sendable () async throws -> Void)] = [
            ("sika Client (async)", {
                let transaction = try await client.verifyTransaction(reference: reference)
                precondition(transaction.status == .successful)
            }),
            ("URLSession async + JSONDecoder", { _ = try await byURLSession.verify(reference) }),
        ]
        for (_, call) in concurrent { _ = try await concurrentRate(400, 100, call) }
        note("swift: 100 in flight, \(rounds) rounds of \(calls * 4) calls")
        for _ in 0..<rounds {
            for (name, call) in concurrent {
                emit("swift_verify_100_in_flight", name, "calls/s", try await concurrentRate(calls * 4, 100, call))
            }
        }

        note("swift: FFI calls without I/O")
        var finals = 0
        for _ in 0..<rounds {
            let perSecond = syncRate(200_000) { if TransactionStatus.pending.isFinal() { finals += 1 } }
            emit("swift_ffi_call", "isFinal (FFI)", "us/call", 1e6 / perSecond)
        }
        precondition(finals == 0)
    }
}
