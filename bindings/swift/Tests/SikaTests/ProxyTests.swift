import Foundation
import Sika
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// B47: no proxy for loopback targets, environment proxies ignored, an explicit `proxy` checked
/// (ADR 0021). The environment variables are faults.json's `environment_proxies`.
final class ProxyTests: XCTestCase {
    var sandbox: Sandbox!
    var proxy: FakeProxy!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        proxy = try FakeProxy()
    }

    override func tearDown() {
        proxy?.stop()
        sandbox?.stop()
    }

    private func names(_ setup: [String: Any], _ field: String) throws -> [String] {
        try XCTUnwrap(setup[field] as? [String], "environment_proxies: \(field)")
    }

    /// Runs `body` with `variables` set to the proxy's URL and the scenario's cleared ones unset,
    /// then unsets them all again. The SDK reads the environment when a client is built, so the
    /// client is built inside `body`; the sandbox's control requests (URLSession, which honours
    /// these variables) stay outside it.
    private func withProxyEnvironment<T>(
        _ setup: [String: Any], _ variables: [String], _ body: () async throws -> T
    ) async throws -> T {
        for name in try names(setup, "cleared_variables") {
            unsetenv(name)
        }
        for name in variables {
            setenv(name, proxy.url, 1)
        }
        defer {
            for name in variables {
                unsetenv(name)
            }
        }
        return try await body()
    }

    func testB47EnvironmentProxiesAreNotUsedForLoopback() async throws {
        let setup = try scenario("environment_proxies")
        let sets = try XCTUnwrap(setup["loopback_variable_sets"] as? [[String]])
        XCTAssertFalse(sets.isEmpty)
        try await sandbox.seedTransaction(transactionObject(reference: "B47-SW", status: "successful", amount: "5"))
        for variables in sets {
            let config = sandbox.config()
            let verified = try await withProxyEnvironment(setup, variables) {
                try await Client(config: config).verifyTransaction(reference: "B47-SW").txRef
            }
            XCTAssertEqual(verified, "B47-SW", "\(variables)")
            let blocking = try await withProxyEnvironment(setup, variables) {
                let client = try BlockingClient(config: config)
                return await onNewThread { try client.verifyTransaction(reference: "B47-SW").txRef }
            }
            XCTAssertEqual(try blocking.get(), "B47-SW", "\(variables)")
            XCTAssertEqual(proxy.seen, [], "\(variables): the proxy saw the loopback call and its key")
        }
        let requests = try await sandbox.requests()
        XCTAssertEqual(requests.count, 2 * sets.count, "each call went directly to the sandbox")
    }

    func testB47HttpsProxyEnvironmentIsIgnoredForHttpsTargets() async throws {
        let setup = try scenario("environment_proxies")
        // `.invalid` never resolves: ignoring the environment, the call fails before any traffic.
        let config = ClientConfig(
            secretKey: SecretKey(key: canaryKey), baseUrl: "https://sika-proxy-test.invalid", timeoutMs: 5_000,
            maxRetries: 0)
        let error = try await withProxyEnvironment(setup, try names(setup, "https_variables")) {
            await sikaError { try await Client(config: config).verifyTransaction(reference: "B47-HTTPS") }
        }
        XCTAssertEqual(error?.kind, "Network", "\(String(describing: error))")
        XCTAssertEqual(proxy.seen, [], "an environment proxy was used without the merchant's setting")
    }

    func testB47AnExplicitProxyIsNotUsedForLoopback() async throws {
        try await sandbox.seedTransaction(transactionObject(reference: "B47-SW-EXPLICIT", status: "successful", amount: "5"))
        var config = sandbox.config()
        config.proxy = SecretUrl(url: proxy.url)
        let transaction = try await Client(config: config).verifyTransaction(reference: "B47-SW-EXPLICIT")
        XCTAssertEqual(transaction.txRef, "B47-SW-EXPLICIT")
        XCTAssertEqual(proxy.seen, [])
    }

    func testB47ABadProxyIsInvalidInputAndNothingIsSent() async throws {
        for bad in ["not a url", "ftp://127.0.0.1:21", "http://127.0.0.1:1/?x=1", "socks5://127.0.0.1:1"] {
            var config = sandbox.config()
            config.proxy = SecretUrl(url: bad)
            XCTAssertEqual(invalidField(sikaError(blocking: { try BlockingClient(config: config) })), "proxy", bad)
        }
        let requests = try await sandbox.requests()
        XCTAssertEqual(requests, [])
    }

    /// B81: the proxy is a `SecretUrl` object; no printed form of a configuration shows its password.
    func testB81TheProxyPasswordIsInNoPrintedForm() throws {
        let password = "pa55word_canary_B81"
        var config = ClientConfig(
            secretKey: SecretKey(key: canaryKey), baseUrl: "https://api.example.com",
            proxy: SecretUrl(url: "http://merchant:\(password)@proxy.internal:3128"))
        var dumped = ""
        dump(config, to: &dumped)
        let forms = [
            "\(config)", String(describing: config), String(reflecting: config), dumped,
            String(describing: config.proxy as Any),
        ]
        for form in forms {
            XCTAssertFalse(form.contains(password) || form.contains("merchant:"), form)
        }
        // The object still carries the URL: a client made with it checks it, printing nothing of it.
        config.proxy = SecretUrl(url: "ftp://u:\(password)@x:1")
        let error = sikaError(blocking: { try BlockingClient(config: config) })
        XCTAssertEqual(invalidField(error), "proxy")
        XCTAssertFalse(String(describing: error as Any).contains(password))
    }

    /// B81: a `baseUrl` with credentials (refused when a client is made) prints them as
    /// `[REDACTED]`: `description` is the core's printing, and `dump` shows that, not the fields.
    func testB81ABaseUrlWithCredentialsPrintsNoneOfThem() throws {
        let password = "pa55word_canary_B81"
        let config = ClientConfig(
            secretKey: SecretKey(key: canaryKey), baseUrl: "https://merchant:\(password)@api.example.com/v1",
            timeoutMs: 5_000)
        var dumped = ""
        dump(config, to: &dumped)
        for form in ["\(config)", String(describing: config), String(reflecting: config), dumped] {
            XCTAssertFalse(form.contains(password) || form.contains("merchant:"), form)
            XCTAssertTrue(form.contains("https://[REDACTED]@api.example.com/v1"), form)
        }
        let error = sikaError(blocking: { try BlockingClient(config: config) })
        XCTAssertFalse(String(describing: error as Any).contains(password))
    }
}

/// A proxy on loopback that records the first line of every request it receives and answers each
/// with a forged "successful" body, as a hostile proxy would.
final class FakeProxy: @unchecked Sendable {
    let url: String
    private let listener: Int32
    private let lines = Locked<[String]>([])

    init() throws {
        let (descriptor, port) = try listenOnLoopback()
        listener = descriptor
        url = "http://127.0.0.1:\(port)"
        let lines = self.lines
        let thread = Thread { Self.serve(descriptor, lines) }
        thread.start()
    }

    /// The first lines of the requests received so far.
    var seen: [String] { lines.current }

    /// Stops accepting (shutdown wakes the thread blocked in accept).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func serve(_ listener: Int32, _ lines: Locked<[String]>) {
        let forged = #"{"status":"success","data":{"status":"successful"}}"#
        let reply = Array(
            ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(forged.utf8.count)\r\n"
                + "Connection: close\r\n\r\n\(forged)").utf8)
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 { return }
            var head: [UInt8] = []
            var byte: UInt8 = 0
            while head.count < 16_384, head.suffix(4) != [13, 10, 13, 10], read(connection, &byte, 1) == 1 {
                head.append(byte)
            }
            let text = String(decoding: head, as: UTF8.self)
            lines.mutate { $0.append(text.components(separatedBy: "\r\n").first ?? "") }
            _ = reply.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            close(connection)
        }
    }
}

/// A socket listening on a free loopback port (the kernel accepts its connections; nobody
/// answers until the caller does), and the port.
func listenOnLoopback() throws -> (Int32, UInt16) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let listening = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(descriptor, socketAddress, length) == 0 && listen(descriptor, 16) == 0
                && getsockname(descriptor, socketAddress, &length) == 0
        }
    }
    guard descriptor >= 0, listening else {
        close(descriptor)
        throw FakeProxyError.cannotListen
    }
    return (descriptor, UInt16(bigEndian: address.sin_port))
}

enum FakeProxyError: Error {
    case cannotListen
}
