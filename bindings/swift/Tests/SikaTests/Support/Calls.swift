import Foundation
import Sika
import XCTest

// The one runner of client calls for the scenario files of the behaviours the core decides
// (ADR 0037; the row vocabulary is tests/fixtures/scenarios/README.md). The same runner as
// core/tests/support/calls.rs, Python's `check_call_row` and Kotlin's Calls.kt.

/// An input's text: a string, or `{"repeat": unit, "times": n}`.
private func inputText(_ value: Any?) throws -> String? {
    switch value {
    case nil: return nil
    case let text as String: return text
    case let spec as [String: Any]:
        let unit = try XCTUnwrap(spec["repeat"] as? String)
        return String(repeating: unit, count: try XCTUnwrap(spec["times"] as? Int))
    case let other?: throw CallRowError.notText("\(other)")
    }
}

private enum CallRowError: Error {
    case notText(String)
    case unknownOperation(String)
}

/// A valid charge (the shared defaults of bad_inputs.json) with the row's fields changed; the
/// amount as the row's text ("NaN" too): the core checks it.
private func chargeWith(_ input: [String: Any]) throws -> ChargeRequest {
    ChargeRequest(
        amount: Amount(try inputText(input["amount"]) ?? "10.50"),
        email: try inputText(input["email"]) ?? "ama@example.com",
        phoneNumber: try inputText(input["phone_number"]) ?? "+233244125678",
        reference: try inputText(input["reference"]) ?? "BAD-INPUT-CHARGE",
        currency: try inputText(input["currency"]) ?? "GHS",
        provider: try inputText(input["provider"]) ?? "MTN",
        callbackUrl: try inputText(input["callback_url"]) ?? "https://shop.example.com/return")
}

/// A body's bytes: a text input, `{"hex": ...}` (raw bytes), or a list of them joined.
private func bodyBytes(_ value: Any?) throws -> Data {
    switch value {
    case let parts as [Any]:
        return try parts.reduce(into: Data()) { joined, part in joined += try bodyBytes(part) }
    case let spec as [String: Any] where spec["hex"] != nil:
        let hex = Array(try XCTUnwrap(spec["hex"] as? String))
        return Data(try stride(from: 0, to: hex.count, by: 2).map { at in
            try XCTUnwrap(UInt8(String(hex[at..<at + 2]), radix: 16))
        })
    default:
        return Data(try XCTUnwrap(inputText(value)).utf8)
    }
}

/// The order a row's `expected` describes; the amount as the row's text ("NaN" too).
private func expectedWith(_ input: [String: Any]) throws -> ExpectedPayment {
    let expected = try XCTUnwrap(input["expected"] as? [String: Any])
    return ExpectedPayment(
        amount: Amount(try XCTUnwrap(inputText(expected["amount"]))),
        currency: try XCTUnwrap(inputText(expected["currency"])))
}

/// What a call gave, by the fixtures' field names: a list of items or one object.
private enum Answer {
    case items([[String: Any]])
    case object([String: Any])
}

/// An answer as JSON (keys sorted), to cross a task boundary or be compared.
private func answerJSON(_ answer: Answer) throws -> Data {
    let wrapped: [String: Any] = switch answer {
    case .items(let items): ["items": items]
    case .object(let object): ["object": object]
    }
    return try JSONSerialization.data(withJSONObject: wrapped, options: .sortedKeys)
}

private func answerFrom(_ json: Data) throws -> Answer {
    let wrapped = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [String: Any])
    if let items = wrapped["items"] as? [[String: Any]] { return .items(items) }
    return .object(try XCTUnwrap(wrapped["object"] as? [String: Any]))
}

/// A transaction's fields as the rows compare them.
private func transactionAnswer(_ transaction: Transaction) -> Answer {
    let status = transaction.status
    var statusValue: Any = NSNull()
    if case .unknown(let value) = status { statusValue = value }
    return .object([
        "tx_ref": transaction.txRef,
        "status": String(kindText(status).prefix { $0 != ":" }),
        "status_value": statusValue,
        "merchant_action": kindText(status.merchantAction()),
        "is_final": status.isFinal(),
    ])
}

/// The keys a row, its `input`, its `expect` and a single answer may have: the one vocabulary of
/// every runner (tests/fixtures/scenarios/vocabulary.json); any other key is a typo, and the row
/// fails rather than pass without checking it.
private let vocabulary: [String: [String]] = {
    let url = fixturesDirectory.appendingPathComponent("scenarios/vocabulary.json")
    guard let data = try? Data(contentsOf: url),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { fatalError("\(url.path) is not a JSON object") }
    return object.compactMapValues { $0 as? [String] }
}()
private let rowKeys = Set(vocabulary["row"] ?? [])
private let inputKeys = Set(vocabulary["input"] ?? [])
private let answerFields = vocabulary["answer"] ?? []
private let expectKeys = Set(vocabulary["expect"] ?? []).union(answerFields)

/// The keys of a row outside the vocabulary, each with where it is.
func unknownKeys(_ row: [String: Any]) -> [String] {
    let input = row["input"] as? [String: Any] ?? [:]
    var parts: [(String, [String: Any], Set<String>)] = [
        ("the row", row, rowKeys), ("input", input, inputKeys), ("expect", row["expect"] as? [String: Any] ?? [:], expectKeys),
    ]
    if let first = (input["called_before"] as? [String: Any])?["input"] as? [String: Any] {
        parts.append(("called_before's input", first, inputKeys))
    }
    return parts.flatMap { entry in
        entry.1.keys.sorted().filter { !entry.2.contains($0) }.map { "\($0) in \(entry.0)" }
    }
}

private func answer(_ client: Client, _ operation: String, _ input: [String: Any]) async throws -> Answer {
    let country = try inputText(input["country"])
    switch operation {
    case "countries":
        return .items(countries().map { c -> [String: Any] in
            [
                "code": c.code, "name": c.name, "currency": c.currency, "bank_account_type": kindText(c.bankAccountType),
                "mobile_money": c.mobileMoney,
            ]
        })
    case "list_mobile_money_providers":
        return .items(try await client.listMobileMoneyProviders(country: country).map { p in
            ["code": p.code, "country": p.country, "currency": p.currency, "provider_type": p.providerType]
        })
    case "list_banks":
        return .items(try await client.listBanks(country: country).map { b in
            ["code": b.code, "country": b.country, "currency": b.currency, "account_type": kindText(b.accountType)]
        })
    case "verify_transaction":
        return transactionAnswer(try await client.verifyTransaction(reference: try XCTUnwrap(inputText(input["reference"]))))
    case "await_final_status":
        // The runner's quick polling (tests/fixtures/scenarios/README.md).
        let options = AwaitOptions(initialDelayMs: 50, intervalMs: 50, maxIntervalMs: 200, timeoutMs: 5_000, cancellation: nil)
        let reference = try XCTUnwrap(inputText(input["reference"]))
        return transactionAnswer(try await client.awaitFinalStatus(reference: reference, options: options))
    case "refresh_banks":
        return .items(try await client.refreshBanks(country: country).map { b in
            ["code": b.code, "country": b.country, "currency": b.currency]
        })
    case "initiate_charge":
        let response = try await client.initiateCharge(request: try chargeWith(input))
        return .object(["http_status": Int(response.httpStatus), "accepted": response.status as Any? ?? NSNull()])
    case "confirm_payment":
        let reference = try XCTUnwrap(inputText(input["reference"]))
        let check = try await client.confirmPayment(reference: reference, expected: try expectedWith(input))
        var object: [String: Any] = ["check": kindText(check)]
        switch check {
        case .confirmed(let transaction), .notYet(let transaction):
            object["tx_ref"] = transaction.txRef
        case .notPaid(let transaction, let action):
            object["tx_ref"] = transaction.txRef
            object["action"] = kindText(action)
        case .mismatch(let transaction, let field, let expected, let actual):
            object["tx_ref"] = transaction.txRef
            object["field"] = field
            object["expected_value"] = expected
            object["actual_value"] = actual
        }
        return .object(object)
    case "handle_webhook":
        let (body, expected) = (try bodyBytes(input["body"]), try expectedWith(input))
        let decision = try await client.handleWebhook(body: body, expected: expected)
        if input["repeat_delivery"] as? Bool == true {
            let again = try await client.handleWebhook(body: body, expected: expected)
            XCTAssertEqual(again, decision, "a repeated delivery gets the same decision")
        }
        var object: [String: Any] = ["decision": kindText(decision), "http_status": Int(decision.httpStatus())]
        switch decision {
        case .fulfil(let transaction):
            object["tx_ref"] = transaction.txRef
        case .investigate(let transaction, let reason):
            object["tx_ref"] = transaction.txRef
            object["reason"] = reason
        case .ignore(let reason), .retryLater(let reason), .reject(let reason):
            object["reason"] = reason
        }
        return .object(object)
    default:
        throw CallRowError.unknownOperation(operation)
    }
}

private let booleanFields: Set = ["authorized", "is_final", "accepted", "mobile_money"]
private let integerFields: Set = ["http_status"]

/// Whether a value the runner read equals the row's JSON value for the field `name`.
private func same(_ name: String, _ got: Any?, _ want: Any?) -> Bool {
    if want == nil || want is NSNull { return got == nil || got is NSNull }
    if booleanFields.contains(name) { return (got as? Bool).map { $0 == want as? Bool } ?? false }
    if integerFields.contains(name) { return (got as? Int).map { $0 == want as? Int } ?? false }
    return (got as? String).map { $0 == want as? String } ?? false
}

/// Runs every row of a behaviour's scenario file through the runner, against `sandbox`.
func checkScenarioRows(_ sandbox: Sandbox, _ name: String, file: StaticString = #filePath, line: UInt = #line) async throws {
    for (index, row) in try scenarioCases(name).enumerated() {
        try await checkCallRow(sandbox, row, "\(name) #\(index) (\(row["note"] ?? ""))", file: file, line: line)
    }
}

/// Runs one row against `sandbox` (its log cleared first) and checks everything it expects.
func checkCallRow(
    _ sandbox: Sandbox, _ row: [String: Any], _ label: String, file: StaticString = #filePath, line: UInt = #line
) async throws {
    let unknown = unknownKeys(row)
    guard unknown.isEmpty else {
        return XCTFail("\(label): keys outside the vocabulary: \(unknown)", file: file, line: line)
    }
    let operation = try XCTUnwrap(row["operation"] as? String)
    let input = try XCTUnwrap(row["input"] as? [String: Any])
    let expect = try XCTUnwrap(row["expect"] as? [String: Any])
    var config = sandbox.config(key: try inputText(input["secret_key"]) ?? canaryKey)
    for (name, value) in input["settings"] as? [String: Any] ?? [:] {
        let number = try XCTUnwrap(value as? Int, "\(label): setting \(name)")
        switch name {
        case "max_retries": config.maxRetries = Int32(number)
        case "bank_cache_ttl_seconds": config.bankCacheTtlSeconds = Int64(number)
        default: return XCTFail("\(label): unknown setting \(name)", file: file, line: line)
        }
    }
    let client = try Client(config: config)
    if let seed = input["seed"] as? [String: Any] {
        let object = try transactionObject(
            reference: try XCTUnwrap(inputText(input["reference"])), status: try XCTUnwrap(seed["status"] as? String),
            amount: try XCTUnwrap(seed["amount"] as? String))
        try await sandbox.seedTransaction(object)
    }
    for fault in input["faults"] as? [[String: Any]] ?? [] {
        try await sandbox.addFault(json: jsonText(fault))
    }
    if let other = input["answered_about"] as? [String: Any] {
        let data = try transactionObject(
            reference: try XCTUnwrap(other["reference"] as? String), status: try XCTUnwrap(other["status"] as? String),
            amount: try XCTUnwrap(other["amount"] as? String))
        let body = #"{"status":true,"message":"Verification successful","data":"# + data + "}"
        let requested = try XCTUnwrap(inputText(input["reference"]))
        try await sandbox.addFault("/transaction/verify/" + requested, kind: "body", options: ["body": body])
    }
    if let first = input["called_before"] as? [String: Any] {
        let firstInput = try XCTUnwrap(first["input"] as? [String: Any])
        _ = try await answer(client, try XCTUnwrap(first["operation"] as? String), firstInput)
    }
    if input["charged_before"] as? Bool == true {
        guard case .object(let first) = try await answer(client, operation, input) else {
            return XCTFail("\(label): the first call is a charge", file: file, line: line)
        }
        XCTAssertTrue(same("http_status", first["http_status"], 200), "\(label): the first call", file: file, line: line)
        XCTAssertTrue(same("accepted", first["accepted"], true), "\(label): the first call", file: file, line: line)
    }
    try await sandbox.clearRequests()
    var result: Answer?
    var failure: SikaError?
    let started = ContinuousClock.now
    do {
        if let times = input["concurrent"] as? Int {
            // Tasks share only Sendable values: the input and each answer as JSON text.
            let inputJSON = try jsonText(input)
            let answers = try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<times {
                    group.addTask {
                        let input = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(inputJSON.utf8)) as? [String: Any])
                        return try answerJSON(try await answer(client, operation, input))
                    }
                }
                return try await group.reduce(into: [Data]()) { $0.append($1) }
            }
            for other in answers {
                XCTAssertEqual(other, answers[0], "\(label): concurrent answers differ", file: file, line: line)
            }
            result = try answerFrom(try XCTUnwrap(answers.first))
        } else {
            result = try await answer(client, operation, input)
        }
    } catch let error as SikaError {
        failure = error
    }
    let elapsed = ContinuousClock.now - started
    let sent = try await sandbox.requests()
    if let least = expect["min_elapsed_ms"] as? Int {
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(least), "\(label): the call took \(elapsed)", file: file, line: line)
    }
    if let field = expect["invalid_input"] as? String {
        XCTAssertEqual(invalidField(failure), field, "\(label): \(String(describing: failure))", file: file, line: line)
        XCTAssertEqual(sent, [], "\(label): rejected input reached the service", file: file, line: line)
        return
    }
    if let kind = expect["error"] as? String {
        let parts = try XCTUnwrap(failure.map(errorParts), "\(label): expected \(kind)", file: file, line: line)
        XCTAssertEqual(parts.kind, kind, label, file: file, line: line)
        if let status = expect["http_status"] {
            XCTAssertTrue(same("http_status", parts.httpStatus.map { Int($0) }, status), label, file: file, line: line)
        }
        if let want = expect["retry_after_seconds"] as? Int {
            guard case .RateLimited(let hint, _)? = failure else {
                return XCTFail("\(label): \(String(describing: failure))", file: file, line: line)
            }
            XCTAssertEqual(hint.map { Int($0) }, want, label, file: file, line: line)
        }
        // A text, or a list of texts each in the message.
        let texts = expect["message_contains"].map { $0 as? [String] ?? [$0 as? String ?? "?"] } ?? []
        let message = failure.map { "\($0)" } ?? ""
        for part in texts {
            XCTAssertTrue(message.contains(part), "\(label): \(message)", file: file, line: line)
        }
    } else {
        XCTAssertNil(failure, label, file: file, line: line)
        switch result {
        case .items(let items)?:
            if let count = expect["count"] as? Int { XCTAssertEqual(items.count, count, label, file: file, line: line) }
            if let least = expect["min_count"] as? Int {
                XCTAssertGreaterThanOrEqual(items.count, least, label, file: file, line: line)
            }
            if let codes = expect["codes_in_order"] as? [String] {
                XCTAssertEqual(items.compactMap { $0["code"] as? String }, codes, label, file: file, line: line)
            }
            for (code, fields) in expect["items"] as? [String: [String: Any]] ?? [:] {
                guard let item = items.first(where: { $0["code"] as? String == code }) else {
                    XCTFail("\(label): no item \(code)", file: file, line: line)
                    continue
                }
                for (name, value) in fields {
                    XCTAssertTrue(same(name, item[name], value), "\(label): \(name) of \(item)", file: file, line: line)
                }
            }
            if let codes = expect["codes"] as? [String] {
                XCTAssertEqual(items.compactMap { $0["code"] as? String }.sorted(), codes, label, file: file, line: line)
            }
            for (name, value) in expect["every"] as? [String: Any] ?? [:] {
                for item in items {
                    XCTAssertTrue(same(name, item[name], value), "\(label): \(name) of \(item)", file: file, line: line)
                }
            }
        case .object(let object)?:
            for name in answerFields {
                guard let value = expect[name] else { continue }
                XCTAssertTrue(same(name, object[name], value), "\(label): \(name) is \(object[name] ?? "nil")", file: file, line: line)
            }
            if let part = expect["reason_contains"] as? String {
                let reason = object["reason"] as? String ?? ""
                XCTAssertTrue(reason.contains(part), "\(label): the reason \(reason)", file: file, line: line)
            }
        case nil:
            XCTFail("\(label): no answer", file: file, line: line)
        }
    }
    let wantSent = try XCTUnwrap(expect["sent"] as? [[String: Any]], "\(label): the row says what is sent")
    XCTAssertEqual(sent.count, wantSent.count, "\(label): \(sent)", file: file, line: line)
    for (request, want) in zip(sent, wantSent) {
        let fields: [String: Any] = [
            "method": request.method, "path": request.path, "query": request.query as Any? ?? NSNull(),
            "authorized": request.authorized,
        ]
        for (name, value) in want {
            XCTAssertTrue(same(name, fields[name], value), "\(label): \(name) of \(request)", file: file, line: line)
        }
    }
}
