// swift-tools-version:6.0
// A merchant's package that adds Sika exactly as bindings/swift/README.md says: by path, with
// no unsafe flags and no absolute path (ADR 0020). Swift 6 language mode (the default of tools
// version 6.0), so strict concurrency is complete. scripts/test-swift builds it with no warning
// allowed and runs its test against the sandbox.
import PackageDescription

let package = Package(
    name: "Shop",
    dependencies: [
        // A path dependency's package is named after its directory: `swift` here.
        .package(path: "../../bindings/swift"),
    ],
    targets: [
        .target(name: "Shop", dependencies: [.product(name: "Sika", package: "swift")]),
        .testTarget(
            name: "ShopTests",
            dependencies: ["Shop", .product(name: "SikaTesting", package: "swift")]),
    ]
)
