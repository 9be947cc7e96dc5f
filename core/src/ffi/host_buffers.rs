//! A Rust buffer of the host's bytes, made in one call: how Python lowers an argument.
//!
//! UniFFI's scaffolding offers `rustbuffer_alloc`, then the host copies into the buffer and
//! sets its length (three ctypes calls and a structure written field by field), or
//! `rustbuffer_from_bytes`, which takes a `ForeignBytes` structure the host must build first.
//! Either costs Python about 1.8 us per argument, a third of a no-I/O call (B59). Python
//! passes its `bytes` object here as a plain pointer and length (ctypes hands over the
//! object's own storage, no copy) and gets the buffer back: one call, one copy. Not part of
//! the UniFFI interface, like `sika_ffi_close_host_wakes`: Kotlin and Swift have no use for it.

/// A buffer holding a copy of the `len` bytes at `data` (`data` may be null when `len` is 0).
///
/// # Safety
/// `data` must point to `len` readable bytes, which stay valid and unchanged during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sika_ffi_rust_buffer_of(data: *const u8, len: usize) -> uniffi::RustBuffer {
    let bytes = if len == 0 {
        Vec::new()
    } else {
        // SAFETY: the caller guarantees `len` readable bytes at `data`, unchanged meanwhile.
        unsafe { std::slice::from_raw_parts(data, len) }.to_vec()
    };
    uniffi::RustBuffer::from_vec(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b59_the_host_buffer_holds_a_copy_of_the_bytes() {
        let text = "ref_ẹ_😀".as_bytes().to_vec();
        // SAFETY: `text` is `text.len()` readable bytes.
        let buffer = unsafe { sika_ffi_rust_buffer_of(text.as_ptr(), text.len()) };
        assert_eq!(buffer.destroy_into_vec(), text);
    }

    #[test]
    fn b59_no_bytes_make_an_empty_buffer_without_reading() {
        // SAFETY: nothing is read when the length is 0.
        let buffer = unsafe { sika_ffi_rust_buffer_of(std::ptr::null(), 0) };
        assert!(buffer.destroy_into_vec().is_empty());
    }
}
