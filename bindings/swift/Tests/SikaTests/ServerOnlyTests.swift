import Foundation
import XCTest

/// B57: the clients are unavailable in app builds (ADR 0027). No iOS, tvOS, watchOS or visionOS
/// SDK exists here, so this reads the generated package as built: every client class carries
/// `@available(<platform>, unavailable, message:)` for each app platform, with the reason.
final class ServerOnlyTests: XCTestCase {
    /// Sources/Sika/Sika.swift, generated next to the sources by scripts/test-swift.
    private let generatedSwift = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("../../Sources/Sika/Sika.swift").standardized

    private let appPlatforms = ["iOS", "tvOS", "watchOS", "visionOS"]

    func testB57EveryClientClassIsUnavailableOnEveryAppPlatform() throws {
        let lines = try String(contentsOf: generatedSwift, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Every generated class whose name ends in "Client", so a new client is checked too.
        let classLines = lines.indices.filter { index in
            let line = lines[index]
            guard line.hasPrefix("open class ") else { return false }
            let name = line.dropFirst("open class ".count).prefix { $0 != ":" && $0 != " " }
            return name.hasSuffix("Client")
        }
        XCTAssertEqual(classLines.map { lines[$0].split(separator: ":")[0] },
                       ["open class BlockingClient", "open class Client"])
        for index in classLines {
            // The attributes directly above the declaration.
            let attributes = lines[..<index].reversed().prefix { $0.hasPrefix("@available(") }
            for platform in appPlatforms {
                let attribute = attributes.first { $0.hasPrefix("@available(\(platform), unavailable, message: ") }
                XCTAssertNotNil(attribute, "\(lines[index]) is available on \(platform)")
                XCTAssertTrue(attribute?.contains("server-only") == true, "\(platform): no reason given")
                XCTAssertTrue(attribute?.contains("Where Sika runs") == true, "\(platform): no pointer to the README")
            }
            XCTAssertFalse(attributes.contains { $0.contains("macOS") }, "macOS must stay supported")
        }
    }
}
