//! The secret key: from `--key-file` (owner-only) or `SIKA_SECRET_KEY`. There is no flag that
//! takes the key itself: every local user can read a process's arguments (`ps`).

use std::io::Read;
use std::path::Path;

use crate::Global;
use crate::exit::Failure;

pub const KEY_VARIABLE: &str = "SIKA_SECRET_KEY";

/// The most a key file may hold, its newline included (docs/cli.md): a key is a line of text,
/// and whatever is read is sent as a header. A longer file is refused, never read whole.
pub const MAX_KEY_FILE_BYTES: u64 = 4096;

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

/// Reads a key file: a regular file only (a FIFO, a directory, a device or a socket is refused
/// without being read, so nothing can make `sika` wait on it), readable by its owner only, of
/// at most [`MAX_KEY_FILE_BYTES`]. Every refusal is `Configuration` (exit 23).
fn read_key_file(path: &Path) -> Result<String, Failure> {
    let shown = crate::output::escaped(&path.display().to_string());
    let failed = |err: std::io::Error| Failure::setup(format!("--key-file {shown}: {err}"));
    // Looked at before it is opened: opening a FIFO for reading waits for a writer.
    let metadata = std::fs::metadata(path).map_err(failed)?;
    refuse_unless_regular(&shown, &metadata)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Should the path be swapped for a FIFO after the look above, the open still does not
        // wait, and the check of what was opened refuses it.
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path).map_err(failed)?;
    // What was opened is what is checked and read.
    let metadata = file.metadata().map_err(failed)?;
    refuse_unless_regular(&shown, &metadata)?;
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
    if metadata.len() > MAX_KEY_FILE_BYTES {
        return Err(too_long(&shown));
    }
    // Bounded whatever the file says of its length (it may grow while it is read).
    let mut bytes = Vec::new();
    file.take(MAX_KEY_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(failed)?;
    if bytes.len() as u64 > MAX_KEY_FILE_BYTES {
        return Err(too_long(&shown));
    }
    let text = String::from_utf8(bytes).map_err(|_| Failure::setup(format!("--key-file {shown}: not UTF-8 text")))?;
    // One line; the newline an editor adds is not part of the key.
    Ok(text.trim_end_matches(['\n', '\r']).to_owned())
}

fn too_long(shown: &str) -> Failure {
    Failure::setup(format!(
        "--key-file {shown} is longer than {MAX_KEY_FILE_BYTES} bytes: a key file holds the key alone, on one line"
    ))
}

fn refuse_unless_regular(shown: &str, metadata: &std::fs::Metadata) -> Result<(), Failure> {
    if metadata.is_file() {
        return Ok(());
    }
    let kind = if metadata.is_dir() { "a directory" } else { special_kind(metadata) };
    Err(Failure::setup(format!("--key-file {shown} is {kind}, not a regular file: give the file that holds the key")))
}

#[cfg(unix)]
fn special_kind(metadata: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let kind = metadata.file_type();
    if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

#[cfg(not(unix))]
fn special_kind(_metadata: &std::fs::Metadata) -> &'static str {
    "not a file"
}
