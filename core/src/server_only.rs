// The one place that refuses to build Sika for an app: on a phone, a watch, a TV or in a browser
// the secret key would ship inside a package anyone can unpack (ADR 0027). The whole crate is
// refused, not only the client: its key-free functions belong on the same server as the key.
// `core/tests/server_only.rs` compiles this file alone with each condition forced.
#[cfg(any(
    target_os = "android",
    target_os = "ios",
    target_os = "tvos",
    target_os = "watchos",
    target_os = "visionos",
    target_family = "wasm",
))]
compile_error!(
    "sika-core is server-only: built into a mobile app or a browser, the secret key would ship \
     inside a package anyone can unpack. Run Sika on your own server and let the app call that \
     server; see README.md, section \"Where Sika runs\"."
);
