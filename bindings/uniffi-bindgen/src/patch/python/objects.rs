//! Python: copying an object never duplicates its Rust handle, and pickling one is refused.
//!
//! A generated object (`SecretKey`, `Cancellation`, `Client`, `BlockingClient`) is a Python
//! wrapper of one handle to a Rust `Arc`, freed by `__del__`. Python's default copy and pickle
//! copy the wrapper's `__dict__`, handle included: two wrappers then free one handle
//! (`copy.deepcopy(config)` aborted the interpreter at exit), and a handle unpickled in another
//! process points at nothing (a segfault). Every object class gets (ADR 0015):
//! - `__copy__` and `__deepcopy__` returning the object itself: the Rust object is shared by
//!   design (a Rust clone of it shares it too), so a copy of a record that holds one (a
//!   `ClientConfig`, `AwaitOptions`) shares it;
//! - `__reduce__` raising `TypeError` with what to do instead: a handle means nothing in another
//!   process, and a secret key must never be written out.

use uniffi_bindgen::ComponentInterface;

use crate::patch::replace_exactly;

/// Every generated object class has exactly one of these (its handle's clone).
const CLONE_HANDLE: &str = "\n    def _uniffi_clone_handle(self):\n";

pub fn patch(text: String, interfaces: &[ComponentInterface]) -> Result<String, String> {
    let objects = interfaces.iter().map(|ci| ci.object_definitions().len()).sum::<usize>();
    let text =
        replace_exactly(&text, CLONE_HANDLE, &format!("{OBJECT_MEMBERS}{CLONE_HANDLE}"), objects, "object classes")?;
    let anchor = "\n_DEFAULT = object() # type: typing.Any\n";
    replace_exactly(&text, anchor, &format!("{anchor}{HELPERS}"), 1, "the `_DEFAULT` marker")
}

const OBJECT_MEMBERS: &str = r#"
    # Sika: a copy is this same object (the Rust object is shared, never duplicated), and
    # pickling is refused (a handle means nothing in another process). ADR 0015.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        _uniffi_sika_refuse_pickling(self)
"#;

const HELPERS: &str = r#"

def _uniffi_sika_refuse_pickling(value):
    # Sika (ADR 0015): what to do instead of sending a Rust object to another process.
    raise TypeError(
        "cannot pickle sika.{name}: it is a handle to an object of the Rust core, which exists "
        "only in this process. Create it in the process that uses it: a worker builds its own "
        "client (sika.BlockingClient.from_env() or sika.Client.from_env() read SIKA_SECRET_KEY "
        "and SIKA_BASE_URL), and a secret key is never pickled; read it from the environment "
        "where it is used.".format(name=type(value).__name__)
    )
"#;
