import Sika
import XCTest

/// B253: a test double of an error is one line. Every case's optional last associated values
/// (`requestId`, `retryAfterSeconds`) default to `nil`; before issue 47 they had to be passed.
final class ErrorTestDoublesTests: XCTestCase {
    /// A merchant's code under test: on an unknown outcome it verifies before charging again.
    private struct Shop {
        let charge: (String) throws -> Void

        func checkout(_ reference: String, toVerify: inout [String]) -> String {
            do {
                try charge(reference)
                return "charged"
            } catch SikaError.ChargeOutcomeUnknown(let reference, _, _) {
                toVerify.append(reference)
                return "verify before charging again"
            } catch {
                return "failed: \(error)"
            }
        }
    }

    func testB253AOneLineTestDoubleOfAnErrorWorks() {
        let shop = Shop { reference in
            throw SikaError.ChargeOutcomeUnknown(reference: reference, reason: "the connection broke")
        }
        var toVerify: [String] = []
        XCTAssertEqual(shop.checkout("ORDER-7", toVerify: &toVerify), "verify before charging again")
        XCTAssertEqual(toVerify, ["ORDER-7"])
    }

    func testB253OptionalValuesDefaultToNilAndGivenOnesAreKept() {
        XCTAssertNil(SikaError.Unauthorized().requestId)
        XCTAssertNil(SikaError.Timeout().requestId)
        XCTAssertNil(SikaError.Api(httpStatus: 409, message: "Duplicate transaction reference").requestId)
        XCTAssertEqual(SikaError.RateLimited(), SikaError.RateLimited(retryAfterSeconds: nil, requestId: nil))
        guard case .RateLimited(let seconds, _) = SikaError.RateLimited(retryAfterSeconds: 30) else {
            return XCTFail("not RateLimited")
        }
        XCTAssertEqual(seconds, 30)
        XCTAssertNil(SikaError.Network(reason: "reset").requestId)
        XCTAssertEqual(SikaError.ChargeOutcomeUnknown(reference: "R", reason: "x", requestId: "req_1").requestId, "req_1")
        // The core's text, as for an error the core raised.
        XCTAssertTrue(SikaError.ChargeOutcomeUnknown(reference: "R", reason: "x").localizedDescription.contains("reference `R`"))
    }
}
