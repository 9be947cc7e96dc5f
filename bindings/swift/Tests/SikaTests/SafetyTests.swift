import Dispatch
import Foundation
import Sika
import XCTest

/// The payment-safety layer (B21-B27, B36): confirmPayment, handleWebhook, awaitFinalStatus (also
/// ended by cancelling its Swift Task), phone numbers, charges whose outcome is unknown,
/// retries, the bank cache and answers about another reference. Mirrors bindings/python/tests/test_safety.py.
final class SafetyTests: XCTestCase {
    var sandbox: Sandbox!
    var client: Client!

    /// The order of the webhook tests: 25.00 GHS.
    let order = ExpectedPayment(amount: Amount("25.00"), currency: "GHS")

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        client = try sandbox.client()
    }

    override func tearDown() {
        sandbox?.stop()
    }

    // MARK: B21 confirmPayment

    func testB21ConfirmPaymentConfirmsOnlyAnExactMatch() async throws {
        try await checkScenarioRows(sandbox, "b21_confirm_payment.json")
    }

    func testB21TheBlockingClientConfirmsTheSameWay() async throws {
        try await seed([("PAID", "successful"), ("PEND", "pending")], amount: "100.10")
        let blocking = try sandbox.blockingClient()
        XCTAssertEqual(try blocking.confirmPayment(reference: "PAID", expected: expect("100.1", "ghs")).kind, "confirmed")
        let short = try blocking.confirmPayment(reference: "PAID", expected: expect("100.11", "GHS"))
        guard case .mismatch(_, "amount", "100.11", "100.10") = short else {
            return XCTFail("expected a mismatch on the amount, got \(short)")
        }
        XCTAssertEqual(try blocking.confirmPayment(reference: "PEND", expected: expect("100.10", "GHS")).kind, "notYet")
        let bad = sikaError(blocking: { try blocking.confirmPayment(reference: "PAID", expected: self.expect("0", "GHS")) })
        XCTAssertEqual(invalidField(bad), "amount")
        let paths = try await sandbox.requests().map(\.path)
        XCTAssertEqual(paths, Array(repeating: "/transaction/verify/PAID", count: 2) + ["/transaction/verify/PEND"],
                       "one verification per check; none for the bad expectation")
    }

    // MARK: B22 handleWebhook

    func testB22AWebhookIsDecidedOnlyAfterVerification() async throws {
        try await checkScenarioRows(sandbox, "b22_webhook_decisions.json")
    }

    func testB22TheBlockingClientDecidesTheSameWay() async throws {
        try await seed([("HOOK-PAID", "successful"), ("HOOK-PENDING", "pending")], amount: "25.00")
        let blocking = try sandbox.blockingClient()
        let paid = try blocking.handleWebhook(body: notification("HOOK-PAID"), expected: order)
        XCTAssertEqual(paid.kind, "fulfil")
        XCTAssertEqual(paid.httpStatus(), 200)
        XCTAssertEqual(try blocking.handleWebhook(body: notification("HOOK-PAID"), expected: order), paid,
                       "a repeated delivery: the same decision")
        XCTAssertEqual(try blocking.handleWebhook(body: notification("HOOK-PENDING"), expected: order).httpStatus(), 503)
        XCTAssertEqual(try blocking.handleWebhook(body: notification("HOOK-NEVER"), expected: order).kind, "retryLater")
        XCTAssertEqual(try blocking.handleWebhook(body: Data("{".utf8), expected: order).kind, "reject")
        let paths = try await sandbox.requests().map(\.path)
        XCTAssertEqual(paths.count, 4, "the malformed body was not verified: \(paths)")
    }

    func testB22ParseWebhookEventIsUnverifiedAndTyped() async throws {
        let event = try parseWebhookEvent(body: notification("R-1"))
        XCTAssertEqual(event.event, "charge.success")
        XCTAssertEqual(event.reference, "R-1")
        XCTAssertTrue(event.rawJson.contains("R-1"))
        let error = sikaError(blocking: { try parseWebhookEvent(body: Data("{".utf8)) })
        XCTAssertEqual(invalidField(error), "webhook")
        let log = try await sandbox.requests()
        XCTAssertEqual(log, [], "parsing sends nothing")
    }

    // MARK: B23 awaitFinalStatus

    func testB23AwaitFinalStatusFollowsTheUssdAnswer() async throws {
        for (suffix, status) in [("0000", TransactionStatus.successful), ("1111", .failed)] {
            let reference = "WAIT-\(suffix)"
            _ = try await client.initiateCharge(request: chargeRequest(reference: reference, phone: "+23324412\(suffix)"))
            let transaction = try await client.awaitFinalStatus(reference: reference, options: fast(timeoutMs: 5_000))
            XCTAssertEqual(transaction.status, status, reference)
            XCTAssertEqual(transaction.txRef, reference)
        }
    }

    func testB23ACustomerWhoNeverAnswersTimesOutWithinTheBudget() async throws {
        _ = try await client.initiateCharge(request: chargeRequest(reference: "WAIT-3333", phone: "+233244123333"))
        let started = ContinuousClock.now
        let error = await sikaError {
            try await self.client.awaitFinalStatus(reference: "WAIT-3333", options: self.fast(timeoutMs: 600))
        }
        XCTAssertEqual(error?.kind, "Timeout")
        XCTAssertLessThan(started.duration(to: .now), .seconds(3))
        assertNoKey(error as Any)
    }

    func testB23ACancellationHandleStopsTheWaitAndThePolling() async throws {
        _ = try await client.initiateCharge(request: chargeRequest(reference: "WAIT-CANCEL", phone: "+233244123333"))
        let cancellation = Cancellation()
        let options = fast(timeoutMs: 10_000, cancellation: cancellation)
        let client = self.client!
        let started = ContinuousClock.now
        let waiting = Task { try await client.awaitFinalStatus(reference: "WAIT-CANCEL", options: options) }
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertFalse(cancellation.isCancelled())
        cancellation.cancel()
        let error = await sikaError { try await waiting.value }
        XCTAssertEqual(error, .Cancelled)
        XCTAssertLessThan(started.duration(to: .now), .seconds(2))
        XCTAssertTrue(cancellation.isCancelled())
        try await assertPollingStopped(after: "the handle was cancelled")
    }

    func testB23ABlockingWaitIsCancelledFromAnotherThread() throws {
        let blocking = try sandbox.blockingClient()
        _ = try blocking.initiateCharge(request: chargeRequest(reference: "WAIT-THREAD", phone: "+233244123333"))
        let cancellation = Cancellation()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(300)) { cancellation.cancel() }
        let started = ContinuousClock.now
        let error = sikaError(blocking: {
            try blocking.awaitFinalStatus(reference: "WAIT-THREAD", options: self.fast(timeoutMs: 10_000, cancellation: cancellation))
        })
        XCTAssertEqual(error, .Cancelled)
        XCTAssertLessThan(started.duration(to: .now), .seconds(2))
    }

    /// The generated method: Task cancellation reaches Rust through the patched bindings
    /// (bindings/uniffi-bindgen), which drop the wait.
    func testB23CancellingTheSwiftTaskStopsTheWaitAndThePolling() async throws {
        _ = try await client.initiateCharge(request: chargeRequest(reference: "WAIT-TASK", phone: "+233244123333"))
        let client = self.client!
        let shared = Cancellation()
        let options = fast(timeoutMs: 10_000, cancellation: shared)
        let started = ContinuousClock.now
        let waiting = Task { try await client.awaitFinalStatus(reference: "WAIT-TASK", options: options) }
        try await Task.sleep(for: .milliseconds(300))
        let polled = try await sandbox.requests().count
        XCTAssertGreaterThan(polled, 1, "the wait was polling before the task was cancelled")
        waiting.cancel()
        do {
            let transaction = try await waiting.value
            XCTFail("expected CancellationError, got \(transaction.status)")
        } catch is CancellationError {
            // Swift's convention for a cancelled task.
        } catch {
            XCTFail("expected CancellationError, got \(error)")
        }
        XCTAssertLessThan(started.duration(to: .now), .seconds(2), "ended promptly, not at timeoutMs")
        XCTAssertFalse(shared.isCancelled(), "the task's cancellation ends its own wait, not a shared handle")
        try await assertPollingStopped(after: "the task was cancelled")
    }

    func testB23AWaitStartedByAnAlreadyCancelledTaskSendsNothing() async throws {
        let client = self.client!
        // No initial delay: a wait that ignored the cancellation would check at once.
        let options = AwaitOptions(initialDelayMs: 0, timeoutMs: 10_000)
        let early = Task {
            while !Task.isCancelled { await Task.yield() }
            return try await client.awaitFinalStatus(reference: "NEVER-SENT", options: options)
        }
        early.cancel()
        let started = ContinuousClock.now
        do {
            let transaction = try await early.value
            XCTFail("expected CancellationError, got \(transaction.status)")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
        XCTAssertLessThan(started.duration(to: .now), .seconds(2), "ended at once, not at timeoutMs")
        let log = try await sandbox.requests()
        XCTAssertEqual(log, [], "a task cancelled before the wait sends nothing")
    }

    // MARK: B24 normalizePhoneNumber

    func testB24NormalizePhoneNumber() throws {
        for testCase in try scenarioCases("b24_phone_numbers.json") {
            let input = try XCTUnwrap(testCase["input"] as? String)
            let country = try XCTUnwrap(testCase["country"] as? String)
            let expect = try XCTUnwrap(testCase["expect"] as? [String: Any])
            if let normalized = expect["normalized"] as? String {
                XCTAssertEqual(try normalizePhoneNumber(input: input, country: country), normalized, "\(input) in \(country)")
            } else {
                let error = sikaError(blocking: { try normalizePhoneNumber(input: input, country: country) })
                XCTAssertEqual(invalidField(error), expect["invalid_input"] as? String, "\(input) in \(country)")
            }
        }
    }

    // MARK: B25 ChargeOutcomeUnknown

    func testB25AChargeWhoseAnswerIsLostIsOutcomeUnknownAndSentOnce() async throws {
        try await checkScenarioRows(sandbox, "b25_lost_charge.json")
    }

    func testB26ReadsAreRetriedAndChargesAreNot() async throws {
        try await checkScenarioRows(sandbox, "b26_retries.json")
    }

    func testB27BankListsAreCachedAndRefreshBypassesTheCache() async throws {
        try await checkScenarioRows(sandbox, "b27_bank_cache.json")
    }

    func testB36AnAnswerAboutAnotherReferenceIsNeverATransactionOfThisOne() async throws {
        try await checkScenarioRows(sandbox, "b36_answer_about_another_reference.json")
    }

    /// The blocking client takes the same path (B19's shape; the async rows are the scenario file's).
    func testB36TheBlockingClientRejectsAnAnswerAboutAnotherReference() async throws {
        let blocking = try sandbox.blockingClient()
        try await crossedAnswer(requested: "ORDER-A", answered: "ORDER-B")
        let verified = sikaError(blocking: { try blocking.verifyTransaction(reference: "ORDER-A") })
        assertNamesBoth(verified)
    }

    // MARK: helpers

    private func seed(_ transactions: [(String, String)], amount: String) async throws {
        for (reference, status) in transactions {
            try await sandbox.seedTransaction(transactionObject(reference: reference, status: status, amount: amount))
        }
    }

    private func expect(_ amount: String, _ currency: String) -> ExpectedPayment {
        ExpectedPayment(amount: Amount(amount), currency: currency)
    }

    private func notification(_ reference: String) -> Data {
        Data(#"{"event":"charge.success","data":{"reference":\#(jsonString(reference))}}"#.utf8)
    }

    /// Quick checks for the sandbox (its customer answers after 150 ms).
    private func fast(timeoutMs: Int64, cancellation: Cancellation? = nil) -> AwaitOptions {
        AwaitOptions(initialDelayMs: 50, intervalMs: 50, maxIntervalMs: 200, timeoutMs: timeoutMs, cancellation: cancellation)
    }

    /// The next verification of `requested` is answered about `answered`: a successful
    /// transaction of the expected amount and currency, so only its reference is wrong.
    private func crossedAnswer(requested: String, answered: String) async throws {
        let data = try transactionObject(reference: answered, status: "successful", amount: "100.10")
        let body = #"{"status":true,"message":"Verification successful","data":"# + data + "}"
        try await sandbox.addFault("/transaction/verify/" + requested, kind: "body", options: ["body": body])
    }

    /// An UnexpectedResponse of HTTP 200 whose reason names both ORDER-B and ORDER-A.
    private func assertNamesBoth(_ error: SikaError?, file: StaticString = #filePath, line: UInt = #line) {
        guard case .UnexpectedResponse(let httpStatus, let reason, _)? = error else {
            return XCTFail("expected UnexpectedResponse, got \(String(describing: error))", file: file, line: line)
        }
        XCTAssertEqual(httpStatus, 200, reason, file: file, line: line)
        XCTAssertTrue(reason.contains("`ORDER-B`") && reason.contains("`ORDER-A`"), reason, file: file, line: line)
    }

    /// The request log does not grow for longer than the wait's largest interval.
    private func assertPollingStopped(after what: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let polls = try await sandbox.requests().count
        try await Task.sleep(for: .milliseconds(500))
        let later = try await sandbox.requests().count
        XCTAssertEqual(later, polls, "no verification after \(what)", file: file, line: line)
    }

    /// No text the SDK produced about `value` contains the key.
    private func assertNoKey(_ value: Any, file: StaticString = #filePath, line: UInt = #line) {
        var dumped = ""
        dump(value, to: &dumped)
        for shown in [String(describing: value), String(reflecting: value), dumped] {
            XCTAssertFalse(shown.contains(canaryKey), shown, file: file, line: line)
        }
    }
}

// Case names, so that an unexpected outcome prints as one word next to the expected one.

extension PaymentCheck {
    var kind: String {
        switch self {
        case .confirmed: "confirmed"
        case .notYet: "notYet"
        case .notPaid: "notPaid"
        case .mismatch: "mismatch"
        }
    }

    var transaction: Transaction {
        switch self {
        case .confirmed(let transaction), .notYet(let transaction), .notPaid(let transaction, _),
             .mismatch(let transaction, _, _, _):
            transaction
        }
    }
}

extension WebhookDecision {
    var kind: String {
        switch self {
        case .fulfil: "fulfil"
        case .investigate: "investigate"
        case .ignore: "ignore"
        case .retryLater: "retryLater"
        case .reject: "reject"
        }
    }
}
