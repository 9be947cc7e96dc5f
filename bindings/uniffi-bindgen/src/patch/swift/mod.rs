//! Swift's patches, applied in this order; each module's doc says what it changes and why.

mod charge_cancellations;
mod error_defaults;
mod server_only;
mod task_cancellation;

use std::path::Path;

pub fn patch(text: String, library: Option<&Path>) -> Result<String, String> {
    let library = library.ok_or("the errors' defaults come from the library's metadata: no library given")?;
    let namespace = crate::python_stub::interface(library)?;
    let text = error_defaults::patch(text, &crate::error_defaults::of_namespace(&namespace))?;
    let text = task_cancellation::patch(text)?;
    let text = charge_cancellations::patch(text, &crate::charges::of_namespace(&namespace)?)?;
    server_only::patch(text)
}
