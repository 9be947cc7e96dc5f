//! Kotlin's patches, applied in this order; each module's doc says what it changes and why.

mod blocking_forms;
mod call_status;
mod charge_cancellations;
mod closed_objects;
mod completable_futures;
mod default_overloads;
mod error_defaults;
mod error_messages;
mod functions_object;
mod jackson_module;
mod java_annotations;
mod kotlin_types;
mod kotlinx_serializers;
mod returned_buffers;
mod server_only;
mod slf4j_logging;

use std::path::Path;

/// `library`'s metadata is read as UniFFI's Kotlin generator reads it, with
/// `[bindings.kotlin]`'s renames and exclusions (`crate::python_stub::declared_interface`): the
/// patches that repeat Kotlin's declarations (the twins) must see what `sika_ffi.kt` declares.
pub fn patch(text: String, library: Option<&Path>) -> Result<String, String> {
    let library = library.ok_or("the errors' defaults come from the library's metadata: no library given")?;
    let namespace = crate::python_stub::declared_interface(library, "kotlin")?;
    let text = error_messages::patch(text)?;
    let text = error_defaults::patch(text, &crate::error_defaults::of_namespace(&namespace))?;
    let text = java_annotations::patch(text)?;
    let text = server_only::patch(text)?;
    let text = slf4j_logging::patch(text)?;
    let charges = crate::charges::of_namespace(&namespace)?;
    let text = completable_futures::patch(text, &namespace, &charges)?;
    let text = charge_cancellations::patch(text, &charges)?;
    let text = call_status::patch(text)?;
    let text = returned_buffers::patch(text)?;
    let text = closed_objects::patch(text)?;
    default_overloads::patch(text)
}

/// The Kotlin files Sika writes beside the generated one.
pub fn own_file_names() -> Result<Vec<String>, String> {
    let mut names = blocking_forms::file_names()?;
    names.push(functions_object::FILE_NAME.to_owned());
    names.push(kotlinx_serializers::FILE_NAME.to_owned());
    names.push(jackson_module::FILE_NAME.to_owned());
    Ok(names)
}

/// Each of [`own_file_names`] with its content, all from the metadata of `library` as Kotlin's
/// generator reads it (as [`patch`]): the blocking forms and `Sika` repeat its Kotlin
/// declarations (`kotlin_types`), the blocking forms' charging methods are `crate::charges`',
/// the serializers (kotlinx's and Jackson's module) follow the rule Swift's `Codable` follows
/// (`crate::serialized`). None reads the generated file.
pub fn own_files(library: Option<&Path>) -> Result<Vec<(String, String)>, String> {
    let library = library.ok_or("the blocking forms and serializers read the library's metadata: no library given")?;
    let namespace = crate::python_stub::declared_interface(library, "kotlin")?;
    let mut files = blocking_forms::generate(&namespace, &crate::charges::of_namespace(&namespace)?)?;
    files.push((functions_object::FILE_NAME.to_owned(), functions_object::generate(&namespace)?));
    let types = crate::serialized::serialized_types(&namespace)?;
    files.push((kotlinx_serializers::FILE_NAME.to_owned(), kotlinx_serializers::generate(&types)));
    files.push((jackson_module::FILE_NAME.to_owned(), jackson_module::generate(&types)));
    Ok(files)
}
