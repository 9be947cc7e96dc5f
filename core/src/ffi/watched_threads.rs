//! How a host has its thread's blocking calls give way to it (ADR 0070; the mechanism is
//! `crate::interruptions`). Not part of the UniFFI interface, like `sika_ffi_close_host_wakes`:
//! only Python needs it (its signal handlers run on its main thread only), and an exported
//! function would be public in every language.

/// Called by the Python package on its main thread: from now on, a blocking call on this thread
/// also watches `fd` (the read end of the non-blocking pipe CPython's `signal.set_wakeup_fd`
/// writes to) and, when it is readable, calls `give_way` outside the runtime. That must drain
/// the pipe, run the signals' handlers and, if none raised, set `*went_on` to 1 (the core sets
/// it to 0 before each call): then the call resumes, else it ends `Cancelled`. A negative `fd`,
/// a null `give_way` or a null `went_on` stops the watching.
///
/// # Safety
/// `went_on` must stay valid for one byte while this thread is watched.
#[cfg(unix)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sika_ffi_watch_this_thread(
    fd: libc::c_int,
    give_way: Option<extern "C" fn()>,
    went_on: *mut i8,
) {
    let watched = give_way.filter(|_| fd >= 0 && !went_on.is_null()).map(|give_way| (fd, give_way, went_on));
    // SAFETY: the caller keeps `went_on` valid while it is set.
    unsafe { crate::interruptions::set_for_this_thread(watched) };
}
