//! Where the foreign host runs (ADR 0027): a client app is refused, whatever its language.
//!
//! A language package reports the facts its runtime states about itself as it loads the
//! library (Kotlin: the JVM's `java.vm.name`, `java.vm.vendor`, `java.runtime.name`); the core
//! alone decides whether that is an app platform, and every client constructor then refuses it
//! with the same `Configuration` error. Rust itself is refused at compile time
//! (`server_only.rs`), Swift by `@available(..., unavailable)`.

use std::sync::Mutex;

use crate::error::{Result, SikaError};

/// What a host runtime says about itself; an unknown fact is empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct HostRuntime {
    /// The virtual machine's name (the JVM's `java.vm.name`: "Dalvik" on Android).
    vm_name: String,
    /// Its vendor (`java.vm.vendor`: "The Android Project" on Android).
    vm_vendor: String,
    /// The runtime's name (`java.runtime.name`: "Android Runtime" on Android).
    runtime_name: String,
}

/// The app platform the host reported, once reported; `None` on a server.
static APP_PLATFORM: Mutex<Option<&'static str>> = Mutex::new(None);

/// The app platform these facts describe, if any. Android's VM names itself "Dalvik" (also
/// under ART) or "ART", its vendor and runtime name say "Android".
fn app_platform(host: &HostRuntime) -> Option<&'static str> {
    let vm_name = host.vm_name.trim();
    let names_android = [&host.vm_vendor, &host.runtime_name, &host.vm_name]
        .iter()
        .any(|fact| fact.to_ascii_lowercase().contains("android"));
    let android_vm = vm_name.eq_ignore_ascii_case("dalvik") || vm_name.eq_ignore_ascii_case("art");
    (names_android || android_vm).then_some("Android")
}

/// The error every client constructor gives in an app; the message is only here.
fn refusal(platform: &str) -> SikaError {
    SikaError::configuration(format!(
        "Sika is server-only and this is {platform}: a secret key inside an app can be unpacked by \
         anyone who installs it. Keep the key and Sika on your own server and let the app call \
         that server; see README.md, section \"Where Sika runs\""
    ))
}

/// Records what the host runtime says about itself (an unknown fact empty); called by the
/// language package as it loads. Kotlin: `java.vm.name`, `java.vm.vendor`, `java.runtime.name`.
/// Only a JVM reports these, so the reporting host is a JVM: its coroutines' wakes are then
/// dropped once its VM is gone (jvm_host.rs).
#[uniffi::export]
pub fn report_host_runtime(vm_name: String, vm_vendor: String, runtime_name: String) {
    super::jvm_host::announce_jvm_host();
    let host = HostRuntime { vm_name, vm_vendor, runtime_name };
    *APP_PLATFORM.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = app_platform(&host);
}

/// `Configuration` if these facts are a client app's runtime, where no client may be built.
#[uniffi::export]
pub fn check_host_runtime(vm_name: String, vm_vendor: String, runtime_name: String) -> Result<()> {
    app_platform(&HostRuntime { vm_name, vm_vendor, runtime_name }).map_or(Ok(()), |platform| Err(refusal(platform)))
}

/// `Configuration` if the reported host is a client app; called by every client constructor.
pub(super) fn check_reported_host() -> Result<()> {
    let platform = *APP_PLATFORM.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    platform.map_or(Ok(()), |platform| Err(refusal(platform)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(vm_name: &str, vm_vendor: &str, runtime_name: &str) -> HostRuntime {
        HostRuntime { vm_name: vm_name.into(), vm_vendor: vm_vendor.into(), runtime_name: runtime_name.into() }
    }

    #[test]
    fn b57_android_in_any_of_its_runtime_facts_is_refused() {
        for android in [
            host("Dalvik", "The Android Project", "Android Runtime"),
            host("Dalvik", "", ""),
            host("ART", "", ""),
            host("", "The Android Project", ""),
            host("", "", "Android Runtime"),
        ] {
            let error =
                check_host_runtime(android.vm_name.clone(), android.vm_vendor.clone(), android.runtime_name.clone())
                    .expect_err("android");
            let SikaError::Configuration { reason } = error else { panic!("{android:?}: {error:?}") };
            assert!(reason.contains("server-only") && reason.contains("Where Sika runs"), "{reason}");
        }
    }

    #[test]
    fn b57_server_jvms_and_unknown_hosts_are_accepted() {
        for server in [
            host("OpenJDK 64-Bit Server VM", "Eclipse Adoptium", "OpenJDK Runtime Environment"),
            host("OpenJDK 64-Bit Server VM", "Debian", "OpenJDK Runtime Environment"),
            host("Substrate VM", "GraalVM Community", ""),
            host("", "", ""),
        ] {
            assert_eq!(check_host_runtime(server.vm_name, server.vm_vendor, server.runtime_name), Ok(()));
        }
    }
}
