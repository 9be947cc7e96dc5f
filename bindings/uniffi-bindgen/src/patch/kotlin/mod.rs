//! Kotlin's patches, applied in this order; each module's doc says what it changes and why.

mod error_messages;
mod records_as_data;

use std::path::Path;

pub fn patch(text: String, _library: Option<&Path>) -> Result<String, String> {
    let text = error_messages::patch(text)?;
    records_as_data::patch(text)
}
