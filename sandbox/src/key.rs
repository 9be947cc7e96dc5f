//! Where the sandbox's secret key comes from: the environment variable
//! `SIKA_SANDBOX_SECRET_KEY`, a file readable by its owner only (`--secret-key-file`), or the
//! command line (`--secret-key`, kept for compatibility). A command line is readable by every
//! local user (`ps`, `/proc/PID/cmdline`); the environment and an owner-only file are not.

use std::path::Path;

/// The environment variable holding the key.
pub const KEY_VARIABLE: &str = "SIKA_SANDBOX_SECRET_KEY";

/// The key from the first source given: `--secret-key-file`, `--secret-key`, then the
/// environment. The reason when there is none, it is empty, or the file is not owner-only.
pub fn secret_key(flag: Option<String>, file: Option<&Path>, variable: Option<String>) -> Result<String, String> {
    let key = match (file, flag) {
        (Some(path), _) => from_file(path)?,
        (None, Some(key)) => key,
        (None, None) => variable.ok_or_else(|| {
            format!("no secret key: set {KEY_VARIABLE}, or pass --secret-key-file (mode 0600) or --secret-key")
        })?,
    };
    if key.is_empty() {
        return Err("the secret key must not be empty".to_owned());
    }
    Ok(key)
}

/// The file's text without its trailing line end; refused when group or others may read it.
fn from_file(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let metadata =
        std::fs::metadata(path).map_err(|error| format!("cannot read --secret-key-file {shown}: {error}"))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(format!(
                "--secret-key-file {shown} has mode {mode:04o}: group or others can read it; chmod 600 it"
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = metadata;
    let text =
        std::fs::read_to_string(path).map_err(|error| format!("cannot read --secret-key-file {shown}: {error}"))?;
    Ok(text.trim_end_matches(['\n', '\r']).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b62_the_flag_wins_over_the_variable_and_none_is_refused() {
        assert_eq!(secret_key(Some("a".into()), None, Some("b".into())), Ok("a".to_owned()));
        assert_eq!(secret_key(None, None, Some("b".into())), Ok("b".to_owned()));
        assert!(secret_key(None, None, None).unwrap_err().contains(KEY_VARIABLE));
        assert!(secret_key(None, None, Some(String::new())).is_err());
    }
}
