//! Whether a JVM host still exists, asked before each wake of one of its coroutines.
//!
//! A Kotlin coroutine awaiting a call is woken through JNA, which attaches the waking thread
//! to the VM. When a JVM's `main` returns with calls in flight, the launcher's
//! `DestroyJavaVM` can finish before an answer comes: the attach then fails and JNA prints
//! "Can't attach native thread to VM for callback" on standard error. HotSpot refuses the
//! attach exactly when its `vm_created` flag is 0, which is also when `JNI_GetCreatedJavaVMs`
//! reports no VM; so the wake gate (wake_gate.rs) asks that function first and drops the wake
//! (the coroutine could never run again). Only a JVM host asks: the Kotlin package reports its
//! runtime's facts as it loads the library (`report_host_runtime`, host.rs), which no other
//! host does, so Python and Swift hosts never ask. See ADR 0013.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// `jint JNI_GetCreatedJavaVMs(JavaVM **vmBuf, jsize bufLen, jsize *nVMs)`.
type GetCreatedJavaVms = unsafe extern "C" fn(*mut *mut std::ffi::c_void, i32, *mut i32) -> i32;

const JNI_OK: i32 = 0;

/// Set once the Kotlin package has announced a JVM host.
static HOST_IS_JVM: AtomicBool = AtomicBool::new(false);

/// The VM's `JNI_GetCreatedJavaVMs`, looked up once; `None` when it cannot be found (the wakes
/// then go on as without this module).
static GET_CREATED_VMS: OnceLock<Option<GetCreatedJavaVms>> = OnceLock::new();

/// The host is a JVM: called when the Kotlin package reports its runtime (`report_host_runtime`)
/// as the generated code loads the library, before any call.
pub(super) fn announce_jvm_host() {
    GET_CREATED_VMS.get_or_init(find_get_created_vms);
    HOST_IS_JVM.store(true, Ordering::SeqCst);
}

/// True only for a JVM host whose VM reports that it no longer exists (one atomic load for
/// any other host).
pub(crate) fn host_vm_is_gone() -> bool {
    if !HOST_IS_JVM.load(Ordering::Relaxed) {
        return false;
    }
    let Some(Some(get_created_vms)) = GET_CREATED_VMS.get() else { return false };
    reports_no_vm(*get_created_vms)
}

/// Whether the VM's answer is "no VM" (an error is not: the wake then goes on).
fn reports_no_vm(get_created_vms: GetCreatedJavaVms) -> bool {
    let mut count = 0;
    // SAFETY: the VM's own function, with a zero-length buffer it never writes and a valid
    // out-pointer for the count. libjvm stays mapped until the process ends (never unloaded).
    let status = unsafe { get_created_vms(std::ptr::null_mut(), 0, &mut count) };
    status == JNI_OK && count == 0
}

/// `java` loads libjvm with `RTLD_GLOBAL`, so its symbols are found from anywhere; a JVM
/// embedded with `RTLD_LOCAL` is found by its soname, already loaded (`RTLD_NOLOAD`).
#[cfg(unix)]
fn find_get_created_vms() -> Option<GetCreatedJavaVms> {
    const SYMBOL: &std::ffi::CStr = c"JNI_GetCreatedJavaVMs";
    const LIBJVM: &std::ffi::CStr = if cfg!(target_os = "macos") { c"libjvm.dylib" } else { c"libjvm.so" };
    // SAFETY: dlsym and dlopen with valid C strings; RTLD_NOLOAD never loads anything, and the
    // handle it returns is kept (never dlclose'd) as libjvm itself stays loaded.
    let address = unsafe {
        let global = libc::dlsym(libc::RTLD_DEFAULT, SYMBOL.as_ptr());
        if global.is_null() {
            let libjvm = libc::dlopen(LIBJVM.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD);
            if libjvm.is_null() { libjvm } else { libc::dlsym(libjvm, SYMBOL.as_ptr()) }
        } else {
            global
        }
    };
    // SAFETY: the symbol is the JNI invocation API's function, of this signature.
    (!address.is_null()).then(|| unsafe { std::mem::transmute::<*mut libc::c_void, GetCreatedJavaVms>(address) })
}

#[cfg(not(unix))]
fn find_get_created_vms() -> Option<GetCreatedJavaVms> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stand-ins for `JNI_GetCreatedJavaVMs` as HotSpot answers before and after `DestroyJavaVM`.
    unsafe extern "C" fn one_vm(_: *mut *mut std::ffi::c_void, _: i32, count: *mut i32) -> i32 {
        unsafe { *count = 1 };
        JNI_OK
    }

    unsafe extern "C" fn no_vm(_: *mut *mut std::ffi::c_void, _: i32, count: *mut i32) -> i32 {
        unsafe { *count = 0 };
        JNI_OK
    }

    unsafe extern "C" fn failing(_: *mut *mut std::ffi::c_void, _: i32, _: *mut i32) -> i32 {
        -1
    }

    #[test]
    fn b54_only_a_vm_reporting_none_is_gone() {
        assert!(!reports_no_vm(one_vm));
        assert!(reports_no_vm(no_vm));
        assert!(!reports_no_vm(failing), "an error is no answer: the wake goes on");
    }

    #[test]
    fn b54_without_a_jvm_in_the_process_nothing_is_found_and_no_wake_is_dropped() {
        // The test binary has no libjvm: announcing a JVM host finds no function to ask, and
        // wakes go on as before rather than being dropped for a VM nobody can see.
        assert!(find_get_created_vms().is_none());
        announce_jvm_host();
        assert!(!host_vm_is_gone());
    }
}
