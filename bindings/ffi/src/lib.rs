//! # sika-ffi
//!
//! The shared library that Python, Kotlin and Swift load (`libsika_ffi`): `sika-core` built
//! with its `uniffi` feature, so the exported types are the core's own (ADR 0011). Nothing is
//! declared here; the re-export links the core's scaffolding into this cdylib.

pub use sika_core::*;
