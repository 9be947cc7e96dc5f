//! Swift: a `Date` crosses to Rust rounded to the microsecond, not truncated to the nanosecond.
//!
//! A `Date` is a `Double` of seconds: near today it resolves about 0.24 µs, so the service's
//! `12:00:05.790` lifts to a `Date` of `…05.789999961`. UniFFI 0.32's writer truncates that to
//! nanoseconds, so every time a Swift record carried back to Rust was a little earlier than
//! the one it came from: `toJson()` wrote `"…05.789999961Z"` where the other languages write
//! `"…05.790Z"`, and a record read back from its JSON (`Codable`, ADR 0019) was not equal to
//! itself. The lift is within half a microsecond of the time it was made from, so rounding to
//! the microsecond gives that time back exactly (the service's times are milliseconds).

use crate::patch::replace_exactly;

pub fn patch(text: String) -> Result<String, String> {
    replace_exactly(
        &text,
        "        let seconds = Int64(delta)
        let nanoseconds = UInt32((delta - Double(seconds)) * 1.0e9)
",
        "        // Sika: rounded to the microsecond, the precision a Date holds (see the patch's doc).
        var seconds = Int64(delta)
        var microseconds = ((delta - Double(seconds)) * 1.0e6).rounded()
        if microseconds >= 1.0e6 {
            seconds += 1
            microseconds = 0
        }
        let nanoseconds = UInt32(microseconds) * 1000
",
        1,
        "the nanoseconds of FfiConverterTimestamp.write",
    )
}
