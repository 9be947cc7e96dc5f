//! `cargo run -p uniffi-bindgen -- generate --library <lib> --language <lang> --out-dir <dir>`:
//! the bindgen of exactly the UniFFI version the FFI crate is built with.

fn main() {
    uniffi::uniffi_bindgen_main()
}
