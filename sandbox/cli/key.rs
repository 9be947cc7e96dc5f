//! The secret key: from `--key-file` (owner-only) or `SIKA_SECRET_KEY`. There is no flag that
//! takes the key itself: every local user can read a process's arguments (`ps`).

use std::path::Path;

use crate::Global;
use crate::exit::Failure;

pub const KEY_VARIABLE: &str = "SIKA_SECRET_KEY";

/// The key, or why there is none. Messages name the source, never the key.
pub fn secret_key(global: &Global) -> Result<String, Failure> {
    let key = match &global.key_file {
        Some(path) => read_key_file(path)?,
        None => std::env::var(KEY_VARIABLE).unwrap_or_default(),
    };
    if key.is_empty() {
        return Err(Failure::setup(format!("no secret key: set {KEY_VARIABLE} or pass --key-file FILE (mode 0600)")));
    }
    Ok(key)
}

fn read_key_file(path: &Path) -> Result<String, Failure> {
    let shown = path.display();
    let metadata = std::fs::metadata(path).map_err(|err| Failure::setup(format!("--key-file {shown}: {err}")))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(Failure::setup(format!(
                "--key-file {shown} is readable by others (mode {mode:04o}): chmod 600 it"
            )));
        }
    }
    let text = std::fs::read_to_string(path).map_err(|err| Failure::setup(format!("--key-file {shown}: {err}")))?;
    // One line; the newline an editor adds is not part of the key.
    Ok(text.trim_end_matches(['\n', '\r']).to_owned())
}
