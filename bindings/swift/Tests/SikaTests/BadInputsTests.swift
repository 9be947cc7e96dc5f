import Foundation
import Sika
import XCTest

/// B30: the shared bad-input matrix (tests/fixtures/bad_inputs.json). Each input gets its typed
/// error with nothing sent, or exactly the path-safe request and the service's typed answer.
/// Mirrors core/tests/bad_inputs.rs and bindings/python/tests/test_bad_inputs.py, through the
/// async and the blocking client; plus Swift's own Decimal.nan, and negative values of the
/// signed settings of ClientConfig and AwaitOptions.
final class BadInputsTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    override func tearDown() {
        sandbox?.stop()
    }

    /// One row of the matrix, its inputs already turned into Swift values.
    private struct Case: @unchecked Sendable {
        let operation: String
        let input: [String: Any]
        let expect: [String: Any]
        let label: String

        /// A text input: a string, or `{"repeat": unit, "times": n}`.
        func text(_ name: String) throws -> String? {
            switch input[name] {
            case nil: return nil
            case let text as String: return text
            case let spec as [String: Any]:
                let unit = try XCTUnwrap(spec["repeat"] as? String)
                return String(repeating: unit, count: try XCTUnwrap(spec["times"] as? Int))
            case let other?: throw CaseError.notText("\(label): \(name) = \(other)")
            }
        }

        /// The valid charge with this row's field changed.
        func charge() throws -> ChargeRequest {
            let amountText = try text("amount") ?? "10.50"
            // The text as the row has it ("NaN" too): the core checks it.
            let amount = Amount(amountText)
            return ChargeRequest(
                amount: amount,
                email: try text("email") ?? "ama@example.com",
                phoneNumber: try text("phone_number") ?? "+233244125678",
                reference: try text("reference") ?? "BAD-INPUT-CHARGE",
                currency: try text("currency") ?? "GHS",
                provider: try text("provider") ?? "MTN",
                callbackUrl: try text("callback_url") ?? "https://shop.example.com/return")
        }

        /// The sandbox's configuration with this row's key or base URL.
        func config(_ sandbox: Sandbox) throws -> ClientConfig {
            var config = sandbox.config()
            if let key = try text("secret_key") {
                config.secretKey = SecretKey(key: key)
            }
            if let url = try text("base_url") {
                config.baseUrl = url
            }
            return config
        }
    }

    private enum CaseError: Error {
        case notText(String)
        case unknownOperation(String)
    }

    private func matrix() throws -> [Case] {
        let object = try fixtureObject("bad_inputs.json")
        let rows = try XCTUnwrap(object["cases"] as? [[String: Any]])
        return try rows.map { row in
            let operation = try XCTUnwrap(row["operation"] as? String)
            let input = try XCTUnwrap(row["input"] as? [String: Any])
            let shown = String(String(describing: input).prefix(80))
            return Case(operation: operation, input: input, expect: try XCTUnwrap(row["expect"] as? [String: Any]),
                        label: "\(operation) \(shown) (\(row["note"] ?? ""))")
        }
    }

    /// Runs a row through the async client; `new_client` builds both kinds of client.
    private func run(_ row: Case, _ client: Client) async -> Result<Void, Error> {
        do {
            switch row.operation {
            case "verify_transaction":
                _ = try await client.verifyTransaction(reference: try XCTUnwrap(row.text("reference")))
            case "list_mobile_money_providers":
                _ = try await client.listMobileMoneyProviders(country: try row.text("country"))
            case "list_banks":
                _ = try await client.listBanks(country: try row.text("country"))
            case "initiate_charge":
                _ = try await client.initiateCharge(request: try row.charge())
            case "new_client":
                _ = try Client(config: try row.config(sandbox))
                _ = try BlockingClient(config: try row.config(sandbox))
            default:
                throw CaseError.unknownOperation(row.operation)
            }
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// Runs a row through the blocking client, on a thread of its own.
    private func run(_ row: Case, _ client: BlockingClient) async -> Result<Void, Error> {
        let sandbox = self.sandbox!
        let config = Result { try row.config(sandbox) }
        return await onNewThread {
            switch row.operation {
            case "verify_transaction":
                _ = try client.verifyTransaction(reference: try XCTUnwrap(row.text("reference")))
            case "list_mobile_money_providers":
                _ = try client.listMobileMoneyProviders(country: try row.text("country"))
            case "list_banks":
                _ = try client.listBanks(country: try row.text("country"))
            case "initiate_charge":
                _ = try client.initiateCharge(request: try row.charge())
            case "new_client":
                _ = try BlockingClient(config: try config.get())
            default:
                throw CaseError.unknownOperation(row.operation)
            }
        }
    }

    /// Checks one row's outcome against its expectation and the sandbox's request log.
    private func check(_ row: Case, _ result: Result<Void, Error>, via: String) async throws {
        let label = "\(via): \(row.label)"
        let sent = try await sandbox.requests()
        if let field = row.expect["invalid_input"] as? String {
            guard case .failure(SikaError.InvalidInput(let got, let reason)) = result else {
                return XCTFail("\(label): expected InvalidInput, got \(result)")
            }
            XCTAssertEqual(got, field, label)
            XCTAssertFalse(reason.isEmpty, label)
            XCTAssertEqual(sent, [], "\(label): rejected input reached the service")
        } else if row.expect["configuration"] != nil {
            XCTAssertEqual(outcomeKind(result), "Configuration", label)
        } else {
            XCTAssertEqual(sent.count, 1, "\(label): \(sent)")
            XCTAssertEqual(outcomeKind(result), row.expect["error"] as? String ?? "Ok", label)
            guard let request = sent.first else { return }
            if let path = row.expect["sent_path"] as? String {
                XCTAssertEqual(request.path, path, label)
                XCTAssertNil(request.query, label)
            }
            if let query = row.expect["sent_query"] as? String {
                XCTAssertEqual(request.query, query, label)
            }
        }
    }

    func testB30EveryBadInputThroughTheAsyncClient() async throws {
        var config = sandbox.config()
        config.bankCacheTtlSeconds = 0
        let client = try Client(config: config)
        let rows = try matrix()
        XCTAssertGreaterThanOrEqual(rows.count, 60, "the matrix shrank")
        for row in rows {
            try await sandbox.clearRequests()
            let result = await run(row, client)
            try await check(row, result, via: "async")
        }
    }

    func testB30EveryBadInputThroughTheBlockingClient() async throws {
        var config = sandbox.config()
        config.bankCacheTtlSeconds = 0
        let client = try BlockingClient(config: config)
        let rows = try matrix()
        XCTAssertGreaterThanOrEqual(rows.count, 60, "the matrix shrank")
        for row in rows {
            try await sandbox.clearRequests()
            let result = await run(row, client)
            try await check(row, result, via: "blocking")
        }
    }

    /// ClientConfig's integer settings are signed in Swift (as every binding's are: Java has no
    /// unsigned integers); the core checks them once. A negative one is InvalidInput naming the
    /// setting, from both client initialisers.
    func testB30ANegativeClientSettingIsInvalidInputNamingTheSetting() throws {
        var cases: [(label: String, field: String, config: ClientConfig)] = []
        func negative(_ field: String, _ value: some BinaryInteger, _ change: (inout ClientConfig) -> Void) {
            var config = sandbox.config()
            change(&config)
            cases.append(("\(field) = \(value)", field, config))
        }
        for value: Int64 in [-1, .min] {
            negative("timeout_ms", value) { $0.timeoutMs = value }
            negative("connect_timeout_ms", value) { $0.connectTimeoutMs = value }
            negative("bank_cache_ttl_seconds", value) { $0.bankCacheTtlSeconds = value }
            negative("not_found_grace_ms", value) { $0.notFoundGraceMs = value }
            negative("pool_idle_timeout_ms", value) { $0.poolIdleTimeoutMs = value }
        }
        for value: Int32 in [-1, .min] {
            negative("max_retries", value) { $0.maxRetries = value }
            negative("max_connections_per_host", value) { $0.maxConnectionsPerHost = value }
        }
        for (label, field, config) in cases {
            let errors = [
                ("Client", sikaError(blocking: { try Client(config: config) })),
                ("BlockingClient", sikaError(blocking: { try BlockingClient(config: config) })),
            ]
            for (client, error) in errors {
                assertNegative(error, field: field, "\(client), \(label)")
            }
        }
    }

    /// AwaitOptions likewise: a negative field is InvalidInput from awaitFinalStatus, of either
    /// client, before anything is sent.
    func testB30ANegativeAwaitOptionIsInvalidInputAndSendsNothing() async throws {
        // Paid already: a wait that let a negative option through would end at its first check.
        try await sandbox.seedTransaction(transactionObject(reference: "NEGATIVE-WAIT", status: "successful", amount: "10"))
        try await sandbox.clearRequests()
        let valid = AwaitOptions(initialDelayMs: 0, intervalMs: 50, maxIntervalMs: 50, timeoutMs: 5_000)
        var cases: [(label: String, field: String, options: AwaitOptions)] = []
        for value: Int64 in [-1, .min] {
            func negative(_ field: String, _ change: (inout AwaitOptions) -> Void) {
                var options = valid
                change(&options)
                cases.append(("\(field) = \(value)", field, options))
            }
            negative("initial_delay_ms") { $0.initialDelayMs = value }
            negative("interval_ms") { $0.intervalMs = value }
            negative("max_interval_ms") { $0.maxIntervalMs = value }
            negative("timeout_ms") { $0.timeoutMs = value }
        }
        let client = try sandbox.client()
        let blocking = try sandbox.blockingClient()
        for (label, field, options) in cases {
            let viaClient = await sikaError { try await client.awaitFinalStatus(reference: "NEGATIVE-WAIT", options: options) }
            assertNegative(viaClient, field: field, "Client, \(label)")
            let viaBlocking = sikaError(blocking: { try blocking.awaitFinalStatus(reference: "NEGATIVE-WAIT", options: options) })
            assertNegative(viaBlocking, field: field, "BlockingClient, \(label)")
        }
        let sent = try await sandbox.requests()
        XCTAssertEqual(sent, [], "a wait with a negative option reached the service")
        // The same wait with valid options ends at once: the rejections above were the options'.
        let paid = try await client.awaitFinalStatus(reference: "NEGATIVE-WAIT", options: valid)
        XCTAssertEqual(paid.status, .successful)
    }

    /// The core's one answer to a negative setting: InvalidInput on its snake_case name.
    private func assertNegative(
        _ error: SikaError?, field: String, _ label: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        guard case .InvalidInput(let got, let reason)? = error else {
            return XCTFail("\(label): expected InvalidInput, got \(String(describing: error))", file: file, line: line)
        }
        XCTAssertEqual(got, field, label, file: file, line: line)
        XCTAssertEqual(reason, "must not be negative", label, file: file, line: line)
    }

    /// Swift's Decimal can be NaN, and its text is not a number: the FFI gives a typed
    /// InvalidInput on `amount` (never a crash, never a request) wherever an amount goes in.
    /// So does a finite Decimal too large for the core's decimal.
    func testB30DecimalNaNAndOutOfRangeAmountsAreInvalidInputWithNothingSent() async throws {
        try await sandbox.seedTransaction(transactionObject(reference: "NAN-1", status: "successful", amount: "10"))
        try await sandbox.clearRequests()
        let client = try sandbox.client()
        let blocking = try sandbox.blockingClient()
        let webhook = Data(#"{"event":"charge.success","data":{"reference":"NAN-1"}}"#.utf8)
        XCTAssertTrue(Decimal.nan.isNaN)
        for (name, decimal) in [("NaN", Decimal.nan), ("greatestFiniteMagnitude", Decimal.greatestFiniteMagnitude)] {
            let amount = Amount(decimal)
            var request = chargeRequest(reference: "NAN-CHARGE")
            request.amount = amount
            let expected = ExpectedPayment(amount: amount, currency: "GHS")
            let errors: [(String, SikaError?)] = [
                ("charge", await sikaError { try await client.initiateCharge(request: request) }),
                ("confirm", await sikaError { try await client.confirmPayment(reference: "NAN-1", expected: expected) }),
                ("webhook", await sikaError { try await client.handleWebhook(body: webhook, expected: expected) }),
                ("blocking charge", sikaError(blocking: { try blocking.initiateCharge(request: request) })),
                ("blocking confirm",
                 sikaError(blocking: { try blocking.confirmPayment(reference: "NAN-1", expected: expected) })),
            ]
            for (operation, error) in errors {
                XCTAssertEqual(invalidField(error), "amount", "\(name) \(operation): \(String(describing: error))")
            }
        }
        let sent = try await sandbox.requests()
        XCTAssertEqual(sent, [], "an amount that is not a decimal reached the service")
        // The same client still works with a real amount.
        let paid = try await client.confirmPayment(
            reference: "NAN-1", expected: ExpectedPayment(amount: 10, currency: "GHS"))
        XCTAssertEqual(paid.kind, "confirmed")
    }
}
