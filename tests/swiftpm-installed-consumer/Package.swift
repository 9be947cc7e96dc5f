// swift-tools-version:6.0
// A merchant's package using the released Swift artifacts exactly as the Swift README's
// "From the release files" says: the libsika-ffi .deb installed (no PKG_CONFIG_PATH, no
// LD_LIBRARY_PATH) and the sika-swift sources unpacked into `sika-swift` next to this package.
// scripts/test-installed-swift copies it there, builds it with every warning an error and runs
// its tests against the sandbox (B56).
import PackageDescription

let package = Package(
    name: "InstalledShop",
    dependencies: [
        // A path dependency's package is named after its directory: `sika-swift`.
        .package(path: "../sika-swift"),
    ],
    targets: [
        .testTarget(
            name: "InstalledShopTests",
            dependencies: [
                .product(name: "Sika", package: "sika-swift"),
                // B156: the test kit, from the same released sources.
                .product(name: "SikaTesting", package: "sika-swift"),
            ]),
    ]
)
