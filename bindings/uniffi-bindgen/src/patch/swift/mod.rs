//! Swift's patches, applied in this order; each module's doc says what it changes and why.

mod task_cancellation;
mod timestamp_precision;

use std::path::Path;

pub fn patch(text: String, _library: Option<&Path>) -> Result<String, String> {
    let text = task_cancellation::patch(text)?;
    timestamp_precision::patch(text)
}
