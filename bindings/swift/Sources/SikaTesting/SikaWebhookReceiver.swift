import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The merchant's webhook endpoint for a test (as Python's `sika_webhook_receiver`): an HTTP
/// server on a free loopback port that answers each delivery with what `handler` returns for
/// its body, and records it. Give `url` to the sandbox (`setWebhookUrl`) or to the code under
/// test; a delivery is recorded before it is answered, so once `SikaSandbox.trigger` returned,
/// `deliveries` holds its deliveries. A handler that throws is answered 500, with the error in
/// the delivery's `error`. Deliveries are served at once, each on a thread of its own, as a
/// merchant's server would serve them. `stop()` (or releasing the receiver) closes it.
///
/// The server is the least that reads one HTTP/1.1 request with a `Content-Length` body per
/// connection (what the sandbox sends) and answers it with `Connection: close`: Foundation has
/// no HTTP server on Linux, and SwiftNIO is not a dependency a test kit should force on a
/// merchant (ADR 0091).
public final class SikaWebhookReceiver: Sendable {
    /// What `handler` gets: a delivery's body; it returns the HTTP status to answer.
    public typealias Handler = @Sendable (Data) async throws -> Int

    /// One delivery as received, with the status it was answered.
    public struct Delivery: Sendable {
        public let path: String
        /// Header names in lower case.
        public let headers: [String: String]
        public let body: Data
        public let status: Int
        /// What the handler threw (answered 500), else nil.
        public let error: String?
    }

    /// `http://127.0.0.1:PORT/webhooks/sika`.
    public let url: String
    private let state: ReceiverState

    /// Starts listening on a free loopback port; each delivery is answered `handler(body)`.
    public init(handler: @escaping Handler = { _ in 200 }) throws {
        let listener = try Self.openListener()
        state = ReceiverState(listener: listener.socket, handler: handler)
        url = "http://127.0.0.1:\(listener.port)/webhooks/sika"
        let state = self.state
        Thread { state.acceptConnections() }.start()
    }

    deinit {
        state.stopListening()
    }

    /// The handler of the deliveries to come.
    public var handler: Handler {
        get { state.locked { $0.handler } }
        set { state.locked { $0.handler = newValue } }
    }

    /// What it received so far, in the order answered.
    public var deliveries: [Delivery] { state.locked { $0.deliveries } }

    /// Stops listening; a delivery being served is still answered. Safe to call twice.
    public func stop() {
        state.stopListening()
    }

    private static func openListener() throws -> (socket: Int32, port: UInt16) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SikaSandboxError.didNotStart("the webhook receiver: socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else {
            let error = errno
            _ = close(fd)
            throw SikaSandboxError.didNotStart("the webhook receiver: bind or listen: errno \(error)")
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}

/// The receiver's listening socket and what it recorded, shared with its threads (which never
/// hold the receiver itself, so releasing it closes the socket).
private final class ReceiverState: @unchecked Sendable {
    struct Recorded {
        var handler: SikaWebhookReceiver.Handler
        var deliveries: [SikaWebhookReceiver.Delivery] = []
        var listener: Int32
    }

    // `@unchecked`: everything that changes is behind `lock`.
    private let lock = NSLock()
    private var recorded: Recorded

    /// The most of a request's head and of its body that is read.
    private static let headLimit = 64 * 1024
    private static let bodyLimit = 10 * 1024 * 1024

    init(listener: Int32, handler: @escaping SikaWebhookReceiver.Handler) {
        recorded = Recorded(handler: handler, listener: listener)
    }

    func locked<T>(_ body: (inout Recorded) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&recorded)
    }

    func stopListening() {
        let listener = locked { (recorded: inout Recorded) -> Int32 in
            defer { recorded.listener = -1 }
            return recorded.listener
        }
        guard listener >= 0 else { return }
        // shutdown first: it wakes the thread blocked in accept on Linux, which close does not.
        _ = shutdown(listener, Int32(SHUT_RDWR))
        _ = close(listener)
    }

    func acceptConnections() {
        while true {
            let listener = locked { $0.listener }
            guard listener >= 0 else { return }
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return  // closed
            }
            Thread { self.serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { _ = close(connection) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if !canImport(Glibc)
        var on: Int32 = 1
        _ = setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        guard let request = read(connection) else {
            answer(connection, status: 400)
            return
        }
        let handler = locked { $0.handler }
        let outcome = Outcome()
        Task {
            do {
                outcome.set(status: try await handler(request.body), error: nil)
            } catch {
                outcome.set(status: 500, error: "\(type(of: error)): \(error)")
            }
        }
        // This thread is not one of the cooperative pool's, so it may wait for the handler's task.
        let (status, error) = outcome.wait()
        locked {
            $0.deliveries.append(.init(
                path: request.path, headers: request.headers, body: request.body, status: status, error: error))
        }
        answer(connection, status: status)
    }

    private struct Request {
        let path: String
        let headers: [String: String]
        let body: Data
    }

    /// One request: its head up to the blank line, then `Content-Length` bytes of body.
    private func read(_ connection: Int32) -> Request? {
        var received = Data()
        let separator = Data("\r\n\r\n".utf8)
        var headEnd: Range<Data.Index>?
        while headEnd == nil {
            guard received.count < Self.headLimit, let chunk = receive(connection) else { return nil }
            received.append(chunk)
            headEnd = received.range(of: separator)
        }
        guard let headEnd else { return nil }
        let head = String(decoding: received[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = head.first?.split(separator: " ") ?? []
        guard requestLine.count == 3 else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard headers["transfer-encoding"] == nil, let length = Int(headers["content-length"] ?? "0"),
            (0...Self.bodyLimit).contains(length)
        else { return nil }
        var body = Data(received[headEnd.upperBound...])
        while body.count < length {
            guard let chunk = receive(connection) else { return nil }
            body.append(chunk)
        }
        return Request(path: String(requestLine[1]), headers: headers, body: body.prefix(length))
    }

    private func receive(_ connection: Int32) -> Data? {
        let capacity = 16 * 1024
        var buffer = [UInt8](repeating: 0, count: capacity)
        let count = recv(connection, &buffer, capacity, 0)
        return count > 0 ? Data(buffer[..<count]) : nil
    }

    private func answer(_ connection: Int32, status: Int) {
        let head = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        var bytes = Array(head.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Self.noSignal) }
            guard sent > 0 else { return }
            bytes = bytes.dropFirst(sent)
        }
    }

    /// A client gone is an error of `send`, not a SIGPIPE that ends the tests.
    #if canImport(Glibc)
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
    private static let noSignal: Int32 = 0  // Darwin: SO_NOSIGPIPE is set on the socket instead
    #endif

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }
}

/// The handler's answer, handed from its task to the connection's thread.
private final class Outcome: @unchecked Sendable {
    // `@unchecked`: written once and read under `condition`.
    private let condition = NSCondition()
    private var answered: (status: Int, error: String?)?

    func set(status: Int, error: String?) {
        condition.lock()
        defer { condition.unlock() }
        answered = (status, error)
        condition.signal()
    }

    /// Waits until the handler answered.
    func wait() -> (Int, String?) {
        condition.lock()
        defer { condition.unlock() }
        while answered == nil { condition.wait() }
        return answered!
    }
}
