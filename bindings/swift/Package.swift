// swift-tools-version:6.0
// Swift 6 language mode (the default of tools version 6.0).
import PackageDescription

// libsika_ffi.so is built by cargo (`scripts/build-ffi swift DIR`), not by SwiftPM. SwiftPM finds
// it through pkg-config (`sika_ffi.pc`, written next to the library by scripts/build-ffi, or
// installed with it): no unsafe flags and no absolute path here, so the package can be a
// versioned dependency (ADR 0020). Set PKG_CONFIG_PATH to the .pc file's directory.
let package = Package(
    name: "Sika",
    products: [
        .library(name: "Sika", targets: ["Sika"]),
        // The merchant's test kit (ADR 0051): a handle on the shipped sandbox.
        .library(name: "SikaTesting", targets: ["SikaTesting"]),
    ],
    targets: [
        // The generated C header and module map of the Rust library (written by the scripts),
        // linked with the flags of sika_ffi.pc.
        .systemLibrary(name: "SikaFFI", path: "Sources/SikaFFI", pkgConfig: "sika_ffi"),
        // The generated Sika.swift plus hand-written idiom-only extensions.
        .target(name: "Sika", dependencies: ["SikaFFI"]),
        // sandbox_control.json: tests/fixtures', copied in by the scripts with the generated files.
        .target(name: "SikaTesting", dependencies: ["Sika"], resources: [.copy("sandbox_control.json")]),
        .executableTarget(name: "MobileMoneyFlow", dependencies: ["Sika"], path: "Examples/MobileMoneyFlow"),
        .testTarget(name: "SikaTests", dependencies: ["Sika"]),
        // B54's child process, run by ShutdownTests: ends while async calls are in flight.
        .executableTarget(name: "ShutdownChild", dependencies: ["Sika"], path: "Tests/ShutdownChild"),
        // B220's worker process, SIGKILLed by KilledWorkerTests inside a `fulfil` block.
        .executableTarget(name: "KilledWorkerChild", dependencies: ["Sika"], path: "Tests/KilledWorkerChild"),
    ]
)
