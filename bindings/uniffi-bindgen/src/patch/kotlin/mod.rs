//! Kotlin's patches, applied in this order; each module's doc says what it changes and why.

mod error_messages;
mod slf4j_logging;

use std::path::Path;

pub fn patch(text: String, _library: Option<&Path>) -> Result<String, String> {
    slf4j_logging::patch(error_messages::patch(text)?)
}
