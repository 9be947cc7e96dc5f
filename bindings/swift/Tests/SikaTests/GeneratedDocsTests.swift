import Foundation
import XCTest

/// The Rust core's doc comments reach the generated Swift (Sources/Sika/Sika.swift), so Xcode
/// and DocC show the same text as docs.rs: each declaration below carries its core doc.
final class GeneratedDocsTests: XCTestCase {
    /// Sources/Sika/Sika.swift, found from this file (Tests/SikaTests/) as scripts/test-swift
    /// generates it next to the sources.
    private let generatedSwift = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("../../Sources/Sika/Sika.swift").standardized

    func testB35TheCoresDocCommentsReachTheGeneratedSwift() throws {
        let source = try String(contentsOf: generatedSwift, encoding: .utf8)
        // (the type's declaration, the member's declaration or nil for the type, the core's doc)
        let documented: [(String, String?, String)] = [
            ("public struct Customer", "public var phoneNumber: String",
             "Phone number, international format (`+233...`)."),
            ("public struct Customer", nil, "The customer of a transaction."),
            ("public enum TransactionStatus", "public func isFinal() -> Bool",
             "Whether the status will not change by waiting: every status but `Pending` and `Unknown`."),
            ("enum SikaError", "case Unauthorized",
             "The service answered `Unauthorized`: the secret key is wrong or revoked."),
            ("public struct ClientConfig", "public var timeoutMs: Int64?",
             "Budget of a whole call, retries and the wait for a connection included. Default 20000"),
        ]
        for (type, member, doc) in documented {
            let label = member.map { "\(type): \($0)" } ?? type
            let comment = try XCTUnwrap(docComment(above: member ?? type, after: type, in: source), label)
            XCTAssertTrue(comment.contains(doc), "\(label): \(comment.debugDescription)")
        }
    }

    /// The text of the doc comment (`///` lines or a `/** */` block) that ends on the line right
    /// above the first line starting with `declaration` at or after the first line starting
    /// with `anchor`; nil without such a line or comment. Comment markers are removed and the
    /// lines joined with spaces, so a doc wrapped over two lines still reads as one sentence.
    private func docComment(above declaration: String, after anchor: String, in source: String) -> String? {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let start = lines.firstIndex(where: { $0.hasPrefix(anchor) }),
              let found = lines[start...].firstIndex(where: { $0.hasPrefix(declaration) }) else { return nil }
        var text: [String] = []
        var index = found - 1
        // A type's doc may be separated from its declaration by a blank line.
        while index >= 0, lines[index].isEmpty { index -= 1 }
        while index >= 0, let body = commentBody(lines[index]) {
            text.insert(body, at: 0)
            index -= 1
        }
        let joined = text.filter { !$0.isEmpty }.joined(separator: " ")
        return joined.isEmpty ? nil : joined
    }

    /// A doc comment line without its marker, or nil for a line that is not one.
    private func commentBody(_ line: String) -> String? {
        for marker in ["///", "/**", "*/", "*"] where line.hasPrefix(marker) {
            return line.dropFirst(marker.count).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
