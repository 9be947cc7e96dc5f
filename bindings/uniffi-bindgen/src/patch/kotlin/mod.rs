//! Kotlin's patches, applied in this order; each module's doc says what it changes and why.

mod call_status;
mod completable_futures;
mod error_messages;
mod java_annotations;
mod records_as_data;
mod returned_buffers;
mod server_only;
mod slf4j_logging;

use std::path::Path;

pub fn patch(text: String, _library: Option<&Path>) -> Result<String, String> {
    let text = error_messages::patch(text)?;
    let text = java_annotations::patch(text)?;
    let text = server_only::patch(text)?;
    let text = slf4j_logging::patch(text)?;
    let text = records_as_data::patch(text)?;
    let text = completable_futures::patch(text)?;
    let text = call_status::patch(text)?;
    returned_buffers::patch(text)
}
