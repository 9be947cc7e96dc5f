//! Swift's patches, applied in this order; each module's doc says what it changes and why.

mod charge_cancellations;
mod server_only;
mod task_cancellation;

use std::path::Path;

pub fn patch(text: String, _library: Option<&Path>) -> Result<String, String> {
    let text = task_cancellation::patch(text)?;
    let text = charge_cancellations::patch(text)?;
    server_only::patch(text)
}
