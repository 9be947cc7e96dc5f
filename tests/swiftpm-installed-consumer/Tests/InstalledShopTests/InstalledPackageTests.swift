import Foundation
import Sika
import XCTest

/// B56: the released Swift artifacts as a merchant installs them. scripts/test-installed-swift
/// starts the sandbox and passes SIKA_BASE_URL, SIKA_SECRET_KEY and SIKA_EXAMPLE_BIN (the
/// package's MobileMoneyFlow example, built from the unpacked sources).
final class InstalledPackageTests: XCTestCase {
    func testB56AChargeIsConfirmedThroughTheInstalledLibrary() async throws {
        let client = try Client.fromEnv()
        let reference = "INSTALLED-\(UUID().uuidString.prefix(8))"
        let phone = try normalizePhoneNumber(input: "024 412 0000", country: "GH")
        let providers = try await client.listMobileMoneyProviders(country: "GH")
        let provider = try XCTUnwrap(providers.first(where: \.active))
        _ = try await client.initiateCharge(request: ChargeRequest(
            amount: "25.50", email: "ama@example.com", phoneNumber: phone, reference: reference,
            currency: "GHS", provider: provider.code))
        let options = AwaitOptions(initialDelayMs: 100, intervalMs: 100, maxIntervalMs: 500, timeoutMs: 20_000)
        _ = try await client.awaitFinalStatus(reference: reference, options: options)
        let check = try await client.confirmPayment(reference: reference, expected: ExpectedPayment(amount: "25.50", currency: "GHS"))
        guard case .confirmed(let transaction) = check else { return XCTFail("not confirmed: \(check)") }
        XCTAssertEqual(transaction.txRef, reference)
        XCTAssertEqual(transaction.status, .successful)
    }

    /// The process loaded the library the .deb installed, not a build tree's copy.
    func testB56TheLoadedLibraryIsTheInstalledOne() throws {
        _ = try normalizePhoneNumber(input: "024 412 0000", country: "GH")
        // Read to the end: /proc files report a size of 0, which String(contentsOfFile:) trusts.
        let file = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/maps"))
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertFalse(maps.isEmpty)
        let paths = Set(maps.split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
        }.filter { $0.hasSuffix("/libsika_ffi.so") })
        // The .deb's multiarch directory: x86_64-linux-gnu here, aarch64-linux-gnu on arm64.
        XCTAssertEqual(paths.count, 1, "\(paths)")
        for path in paths {
            XCTAssertTrue(path.hasPrefix("/usr/lib/") && path.hasSuffix("-linux-gnu/libsika_ffi.so"), path)
        }
        let environment = ProcessInfo.processInfo.environment
        XCTAssertNil(environment["LD_LIBRARY_PATH"])
        XCTAssertNil(environment["PKG_CONFIG_PATH"])
    }

    /// The released manifest names the library only through pkg-config: SwiftPM would refuse
    /// unsafe flags in a dependency fetched by URL.
    func testB56TheReleasedManifestHasNoUnsafeFlagsOrAbsolutePaths() throws {
        let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../sika-swift/Package.swift").standardized
        let text = try String(contentsOf: manifest, encoding: .utf8)
        XCTAssertTrue(text.contains(#"pkgConfig: "sika_ffi""#))
        for forbidden in ["unsafeFlags", "linkerSettings", "rpath", "\"/", ".generated", "target/release"] {
            XCTAssertFalse(text.contains(forbidden), "\(manifest.path) contains \(forbidden)")
        }
    }

    /// The package's own example, built from the released sources, runs the flow to the end.
    func testB56TheSwiftExampleRunsAgainstTheSandbox() throws {
        let example = try XCTUnwrap(ProcessInfo.processInfo.environment["SIKA_EXAMPLE_BIN"], "SIKA_EXAMPLE_BIN is not set")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: example)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("confirmed: "), text)
        XCTAssertTrue(text.contains("ship the order"), text)
    }
}
