// swift-tools-version:6.0
// The Swift benchmark of scripts/bench: the SDK (bindings/swift, a local dependency) against
// URLSession (FoundationNetworking) + JSONDecoder. Built in release mode inside the Swift chroot.
// SwiftPM names a package after its directory: the SDK is "swift", so this one lives in
// bench/swift/SikaBench (a root package also named "swift" would clash with it).
import PackageDescription

let package = Package(
    name: "SikaBench",
    dependencies: [.package(path: "../../../bindings/swift")],
    targets: [
        .executableTarget(name: "SikaBench", dependencies: [.product(name: "Sika", package: "swift")]),
    ],
    // A benchmark harness, not library code: Swift 5 mode spares it strict-concurrency ceremony.
    swiftLanguageModes: [.v5]
)
