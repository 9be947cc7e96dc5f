import Dispatch
import Foundation
import Sika
import XCTest

/// B18: one client shared by many threads (blocking) or tasks (async) at once; every caller
/// gets its own answer.
final class ConcurrencyTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    override func tearDown() {
        sandbox?.stop()
    }

    /// Seeds one pending transaction per caller, so a crossed answer would show.
    private func seed(_ count: Int, prefix: String) async throws -> [String] {
        let references = (0..<count).map { "\(prefix)-\($0)" }
        for reference in references {
            try await sandbox.seedTransaction(transactionObject(reference: reference, status: "pending", amount: "5"))
        }
        try await sandbox.clearRequests()
        return references
    }

    func testB18OneBlockingClientSharedBySixteenThreads() async throws {
        let references = try await seed(16, prefix: "THREAD")
        let client = try sandbox.blockingClient()
        let results = Locked<[Int: Result<(String, Int), Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: references.count) { index in
            let result = Result {
                let transaction = try client.verifyTransaction(reference: references[index])
                let providers = try client.listMobileMoneyProviders(country: "GH")
                return (transaction.txRef, providers.count)
            }
            results.mutate { $0[index] = result }
        }
        let answers = results.current
        XCTAssertEqual(answers.count, references.count)
        for (index, reference) in references.enumerated() {
            let (txRef, providerCount) = try XCTUnwrap(answers[index]).get()
            XCTAssertEqual(txRef, reference)
            XCTAssertEqual(providerCount, 3)
        }
        let requestCount = try await sandbox.requests().count
        XCTAssertEqual(requestCount, 2 * references.count, "every call reached the service")
    }

    func testB18OneAsyncClientSharedByThirtyTwoTasks() async throws {
        let references = try await seed(32, prefix: "TASK")
        let client = try sandbox.client()
        let answered = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for reference in references {
                group.addTask { (reference, try await client.verifyTransaction(reference: reference).txRef) }
            }
            return try await group.reduce(into: [(String, String)]()) { $0.append($1) }
        }
        XCTAssertEqual(answered.count, references.count)
        for (asked, txRef) in answered {
            XCTAssertEqual(txRef, asked)
        }
        XCTAssertEqual(Set(answered.map(\.0)), Set(references))
        let requestCount = try await sandbox.requests().count
        XCTAssertEqual(requestCount, references.count)
    }
}
