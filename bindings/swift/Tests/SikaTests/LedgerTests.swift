import Foundation
import Sika
import XCTest

/// B140: the exported ledger (ADR 0050) gives exactly one `fulfil` for a notification delivered
/// many times at once (SQLite): 32 concurrent tasks through `Ledger`; every other answer is
/// "already fulfilled" (HTTP 200) or "in progress" (HTTP 503: the service delivers again, ADR
/// 0071), and the record says one claim, marked.
final class LedgerTests: XCTestCase {
    var sandbox: Sandbox!
    var directory: URL!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sika-ledger-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        sandbox?.stop()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    private func notification(_ reference: String) -> Data {
        Data(#"{"event":"charge.success","data":{"reference":\#(jsonString(reference))}}"#.utf8)
    }

    func testB140DuplicateDeliveriesOnTasksFulfilOnce() async throws {
        let client = try sandbox.client()
        let ledger = try Ledger.sqlite(path: directory.appendingPathComponent("ledger.db").path)
        let reference = "B140-SWIFT"
        try await sandbox.seedTransaction(try transactionObject(reference: reference, status: "successful", amount: "100.10"))
        let order = ExpectedPayment(amount: Amount("100.10"), currency: "GHS")
        try await ledger.expect(reference: reference, expected: order)
        let body = notification(reference)
        let answers = try await withThrowingTaskGroup(of: LedgerDecision.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    let decision = try await ledger.handleWebhook(client: client, body: body)
                    if case .fulfil(let claim, _) = decision {
                        try await ledger.markFulfilled(claim: claim)
                    }
                    return decision
                }
            }
            var all: [LedgerDecision] = []
            for try await decision in group { all.append(decision) }
            return all
        }
        let fulfils = answers.filter { if case .fulfil = $0 { true } else { false } }
        XCTAssertEqual(fulfils.count, 1, "\(answers)")
        for answer in answers {
            // "In progress" is answered 503, so the service delivers again (ADR 0071).
            let expected: Int32 = if case .inProgress = answer { 503 } else { 200 }
            XCTAssertEqual(answer.httpStatus(), expected, "\(answer)")
            switch answer {
            case .fulfil, .alreadyFulfilled, .inProgress: break
            case .decided: XCTFail("a paid order decided without a claim: \(answer)")
            }
        }
        let record = try await ledger.payment(reference: reference)
        XCTAssertEqual(record?.claimsOffered, 1)
        XCTAssertNotNil(record?.fulfilledAt)
    }

    /// B165: `reconcile` over paid, pending and failed payments (SQLite): the paid one is
    /// `fulfil` once, the second run checks only the pending one. B166: `limit` 0 is
    /// `InvalidInput` naming it.
    /// B218, B219 (ADR 0071): a shipment three times longer than the lease, in `fulfil`, ships
    /// once (every delivery meanwhile "in progress", 503, and the claim marked at the end); one
    /// that throws gives the claim back, so the very next caller is offered it (offer 2), with
    /// no wait for the 5-minute lease.
    func testB218B219FulfilRenewsWhileItRunsAndGivesTheClaimBackWhenItThrows() async throws {
        let client = try sandbox.client()
        let path = directory.appendingPathComponent("fulfil.db").path
        let ledger = try Ledger.sqlite(path: path, options: LedgerOptions(leaseMs: 600))
        let other = try Ledger.sqlite(path: path)
        let order = ExpectedPayment(amount: Amount("100.10"), currency: "GHS")
        for reference in ["B218-SWIFT", "B219-SWIFT"] {
            try await sandbox.seedTransaction(try transactionObject(reference: reference, status: "successful", amount: "100.10"))
            try await ledger.expect(reference: reference, expected: order)
        }
        guard case .fulfil(let claim, _) = try await ledger.handleWebhook(client: client, body: notification("B218-SWIFT")) else {
            return XCTFail("no claim")
        }
        var shipped = 0
        try await ledger.fulfil(claim) { held in
            for _ in 0..<6 {
                try await Task.sleep(nanoseconds: 300_000_000)
                let during = try await other.handleWebhook(client: client, body: notification(held.reference))
                XCTAssertEqual(during.httpStatus(), 503, "\(during)")
            }
            shipped += 1
        }
        XCTAssertEqual(shipped, 1)
        let record = try await ledger.payment(reference: "B218-SWIFT")
        XCTAssertEqual(record?.claimsOffered, 1, "\(String(describing: record))")
        XCTAssertNotNil(record?.fulfilledAt)

        struct CarrierDown: Error {}
        guard case .fulfil(let first, _) = try await other.settle(client: client, reference: "B219-SWIFT") else {
            return XCTFail("no claim")
        }
        do {
            try await other.fulfil(first) { _ in throw CarrierDown() }
            XCTFail("the block's error goes on")
        } catch is CarrierDown {}
        guard case .fulfil(let second, _) = try await ledger.settle(client: client, reference: "B219-SWIFT") else {
            return XCTFail("a released claim is offered at once")
        }
        XCTAssertEqual(second.offer, 2)
        try await ledger.fulfil(second) { _ in }
        let after = try await other.settle(client: client, reference: "B219-SWIFT")
        guard case .alreadyFulfilled = after else { return XCTFail("\(after)") }
    }

    /// B315: a reconcile failure carries the typed error, whose text and request id it repeats.
    /// B217 in Swift: opening a PostgreSQL ledger against a server that accepts the connection
    /// and never answers ends at `connectTimeoutMs` with `Storage`, never a hang. (The frozen
    /// cluster and the row lock need a PostgreSQL the Swift chroot does not hold: Rust, Python and
    /// Kotlin check them.)
    func testB217OpeningAgainstAServerThatNeverAnswersEndsAtTheConnectTimeout() async throws {
        let (listener, port) = try listenOnLoopback()
        defer { close(listener) }
        let url = SecretUrl(url: "postgresql://sika:pw@127.0.0.1:\(port)/postgres")
        let started = Date()
        do {
            _ = try Ledger.postgres(url: url, options: LedgerOptions(connectTimeoutMs: 500, timeoutMs: 1_000))
            XCTFail("a server that never answers was opened")
        } catch SikaError.Storage {
            XCTAssertLessThan(Date().timeIntervalSince(started), 4, "it ended near its deadline")
        }
    }

    func testB315AReconcileFailureCarriesTheTypedError() async throws {
        var config = sandbox.config()
        config.maxRetries = 0
        let client = try Client(config: config)
        let ledger = try Ledger.sqlite(path: directory.appendingPathComponent("b315.db").path)
        try await sandbox.seedTransaction(try transactionObject(reference: "B315-SW", status: "successful", amount: "100.10"))
        try await ledger.expect(reference: "B315-SW", expected: ExpectedPayment(amount: Amount("100.10"), currency: "GHS"))
        try await sandbox.addFault("/transaction/verify", kind: "status", options: ["status": 503])
        let report = try await ledger.reconcile(client: client, options: ReconcileOptions(olderThanMs: 0))
        XCTAssertEqual(report.failures.count, 1, "\(report)")
        let failure = try XCTUnwrap(report.failures.first)
        // Before issue 47 only the text: a job had to parse "503" out of `reason`.
        guard case .Api(503, _, let requestId) = failure.error else { return XCTFail("\(failure.error)") }
        XCTAssertNotNil(requestId)
        XCTAssertEqual(requestId, failure.requestId)
        XCTAssertEqual(failure.error.message(), failure.reason)
    }

    func testB165ReconcileFulfilsEachPaidPaymentOnce() async throws {
        let client = try sandbox.client()
        let ledger = try Ledger.sqlite(path: directory.appendingPathComponent("reconcile.db").path)
        let order = ExpectedPayment(amount: Amount("100.10"), currency: "GHS")
        let statuses = ["B165-SW-PAID": "successful", "B165-SW-PENDING": "pending", "B165-SW-FAILED": "failed"]
        for (reference, status) in statuses.sorted(by: { $0.key < $1.key }) {
            try await sandbox.seedTransaction(try transactionObject(reference: reference, status: status, amount: "100.10"))
            try await ledger.expect(reference: reference, expected: order)
        }
        let dueNow = ReconcileOptions(olderThanMs: 0, concurrency: 2)
        let first = try await ledger.reconcile(client: client, options: dueNow)
        XCTAssertEqual(Set(first.checked.map(\.reference) + first.ready.map(\.reference)), Set(statuses.keys), "\(first)")
        XCTAssertEqual(first.ready.map(\.reference), ["B165-SW-PAID"])
        XCTAssertFalse(first.checked.contains { if case .fulfil = $0.decision { true } else { false } }, "\(first)")
        guard case .fulfil(let claim, _) = try await ledger.claim(ready: first.ready[0]) else {
            return XCTFail("a ready payment claims")
        }
        try await ledger.fulfil(claim) { _ in }
        let second = try await ledger.reconcile(client: client, options: dueNow)
        XCTAssertEqual(second.checked.map(\.reference), ["B165-SW-PENDING"], "\(second)")
        XCTAssertTrue(second.failures.isEmpty)
        do {
            _ = try await ledger.reconcile(client: client, options: ReconcileOptions(limit: 0))
            XCTFail("limit 0 was accepted")
        } catch SikaError.InvalidInput(let field, _) {
            XCTAssertEqual(field, "limit")
        }
    }

    /// B270, B271: a reconcile run claims nothing (ADR 0081); the README's form claims each ready
    /// payment as its fulfilment starts (`claim(ready:)`, then `fulfil`). 40 paid payments whose
    /// shipments (30 ms each) make a run over three 300 ms leases, on SQLite: two runs in a row
    /// (the second finds nothing), then over 40 more two runs at once on two ledgers: each
    /// shipped once, one claim offered per payment, no `ClaimLost`; a pending payment's claim is
    /// `RetryLater`, nothing claimed.
    func testB271ReconcileClaimsEachPaymentAsItsFulfilmentStarts() async throws {
        let client = try sandbox.client()
        let path = directory.appendingPathComponent("b271.db").path
        let leaseMs: Int64 = 300
        let ledger = try Ledger.sqlite(path: path, options: LedgerOptions(leaseMs: leaseMs))
        let other = try Ledger.sqlite(path: path, options: LedgerOptions(leaseMs: leaseMs))
        let order = ExpectedPayment(amount: Amount("100.10"), currency: "GHS")
        let shipments = Shipments()
        func paid(_ tag: String) async throws -> [String] {
            let references = (0..<40).map { "B271-SW-\(tag)-" + String(format: "%02d", $0) }
            for reference in references {
                try await sandbox.seedTransaction(try transactionObject(reference: reference, status: "successful", amount: "100.10"))
                try await ledger.expect(reference: reference, expected: order)
            }
            return references
        }
        let options = ReconcileOptions(olderThanMs: 0, limit: 500, concurrency: 4)
        // The README's task.
        @Sendable func reconcilePayments(_ ledger: Ledger) async throws -> [String] {
            let report = try await ledger.reconcile(client: client, options: options)
            var fulfilled: [String] = []
            for ready in report.ready {
                // Claimed only as its turn comes; another caller's is `inProgress` or `alreadyFulfilled`.
                if case .fulfil(let claim, _) = try await ledger.claim(ready: ready) {
                    try await ledger.fulfil(claim) { held in
                        await shipments.ship(held.reference)
                        try await Task.sleep(nanoseconds: 30_000_000)
                    }
                    fulfilled.append(ready.reference)
                }
            }
            return fulfilled
        }

        let inARow = try await paid("ROW")
        let started = Date()
        let first = try await reconcilePayments(ledger)
        XCTAssertEqual(first, inARow)
        let took = Date().timeIntervalSince(started)
        XCTAssertGreaterThan(took, 3 * Double(leaseMs) / 1000, "the run took \(took) s: not three leases")
        let second = try await reconcilePayments(ledger)
        XCTAssertEqual(second, [])

        let atOnce = try await paid("ONCE")
        let both = try await withThrowingTaskGroup(of: [String].self) { group in
            for each in [ledger, other] {
                group.addTask { try await reconcilePayments(each) }
            }
            var all: [String] = []
            for try await fulfilled in group { all += fulfilled }
            return all
        }
        XCTAssertEqual(both.sorted(), atOnce, "each fulfilled by one run, once")
        let counts = await shipments.counts
        for reference in inARow + atOnce {
            XCTAssertEqual(counts[reference], 1, "\(reference) shipped \(counts[reference] ?? 0) times")
            let record = try await ledger.payment(reference: reference)
            XCTAssertEqual(record?.claimsOffered, 1, "\(String(describing: record))")
            XCTAssertNotNil(record?.fulfilledAt)
        }

        let pending = "B270-SW-PENDING"
        try await sandbox.seedTransaction(try transactionObject(reference: pending, status: "pending", amount: "100.10"))
        try await ledger.expect(reference: pending, expected: order)
        let report = try await ledger.reconcile(client: client, options: options)
        XCTAssertEqual(report.checked.map(\.reference), [pending], "\(report)")
        let transaction = try await client.verifyTransaction(reference: pending)
        let answer = try await ledger.claim(ready: ReadyPayment(reference: pending, transaction: transaction))
        guard case .decided(.retryLater) = answer else { return XCTFail("\(answer)") }
    }

    /// B167: a charge through the ledger records the request's amount and currency as the
    /// reference's expected payment before it is sent (the blocking ledger, and its
    /// `asyncLedger()`); a bad request is `InvalidInput` with nothing recorded and nothing sent.
    func testB167AChargeThroughTheLedgerRecordsTheOrderBeforeItIsSent() async throws {
        let blocking = try BlockingLedger.sqlite(path: directory.appendingPathComponent("charges.db").path)
        func charge(_ reference: String, _ amount: String) -> ChargeRequest {
            ChargeRequest(
                amount: Amount(amount), email: "ama@example.com", phoneNumber: "+233244123333",
                reference: reference, currency: "ghs", provider: "MTN", callbackUrl: nil)
        }
        do {
            _ = try blocking.initiateCharge(client: try sandbox.blockingClient(), request: charge("B167-SW-BAD", "0"))
            XCTFail("a zero amount was charged")
        } catch SikaError.InvalidInput(let field, _) {
            XCTAssertEqual(field, "amount")
        }
        XCTAssertNil(try blocking.payment(reference: "B167-SW-BAD"))
        let requestsBefore = try await sandbox.requests()
        XCTAssertEqual(requestsBefore, [])
        _ = try blocking.initiateCharge(client: try sandbox.blockingClient(), request: charge("B167-SW-1", "25.50"))
        _ = try await blocking.asyncLedger().initiateCharge(client: try sandbox.client(), request: charge("B167-SW-2", "10"))
        for (reference, amount) in [("B167-SW-1", "25.50"), ("B167-SW-2", "10")] {
            let record = try blocking.payment(reference: reference)
            XCTAssertEqual(record?.expected, ExpectedPayment(amount: Amount(amount), currency: "GHS"))
        }
        let requestsAfter = try await sandbox.requests()
        XCTAssertEqual(requestsAfter.map(\.path), ["/charge", "/charge"])
    }
}

/// Each reference's shipments, counted across the tasks that ship.
private actor Shipments {
    private(set) var counts: [String: Int] = [:]

    func ship(_ reference: String) {
        counts[reference, default: 0] += 1
    }
}
