// swift-tools-version:6.0
// Swift 6 language mode (the default of tools version 6.0).
import PackageDescription

// libsika_ffi.so is built by cargo (`scripts/build-ffi swift DIR`), not by SwiftPM. The linker
// needs its directory as an absolute path, and the rpath lets tests and executables load it
// without LD_LIBRARY_PATH. Default: the repo's cargo release directory.
let libraryDirectory = Context.environment["SIKA_FFI_LIB_DIR"]
    ?? "\(Context.packageDirectory)/../../target/release"

let package = Package(
    name: "Sika",
    products: [
        .library(name: "Sika", targets: ["Sika"]),
    ],
    targets: [
        // The generated C header and module map of the Rust library (written by the scripts).
        .systemLibrary(name: "SikaFFI", path: "Sources/SikaFFI"),
        // The generated Sika.swift plus hand-written idiom-only extensions.
        .target(
            name: "Sika",
            dependencies: ["SikaFFI"],
            linkerSettings: [
                .linkedLibrary("sika_ffi"),
                .unsafeFlags(["-L", libraryDirectory, "-Xlinker", "-rpath", "-Xlinker", libraryDirectory]),
            ]
        ),
        .executableTarget(name: "MobileMoneyFlow", dependencies: ["Sika"], path: "Examples/MobileMoneyFlow"),
        .testTarget(name: "SikaTests", dependencies: ["Sika"]),
    ]
)
