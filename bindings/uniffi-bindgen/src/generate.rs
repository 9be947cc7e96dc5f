//! `generate`: UniFFI's own generator (`uniffi_bindgen::bindings`), unchanged, reading the
//! repository's one `uniffi.toml` (at the repository root, beside Cargo.toml) as the component
//! crate's configuration. UniFFI 0.32 reads a crate's `uniffi.toml` from that crate's root and
//! takes `--config` only in its global format (`[crates.<name>...]`), so the root file is given
//! to UniFFI's loader as the crate's own file, through a paths layer that precedes the
//! `cargo metadata` one. `generate` (then Sika's steps) and `generate-stock` (nothing else)
//! both generate through here.

use camino::Utf8PathBuf;
use uniffi_bindgen::bindings::{GenerateOptions, TargetLanguage, generate_with_bindgen_paths};
use uniffi_bindgen::{BindgenPaths, BindgenPathsLayer};

/// The repository's `uniffi.toml`.
pub fn config_file() -> Utf8PathBuf {
    Utf8PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../uniffi.toml"))
}

/// The workspace has one UniFFI component; its configuration is the root file.
struct RootConfig;

impl BindgenPathsLayer for RootConfig {
    fn get_config_path(&self, _crate_name: &str) -> Option<Utf8PathBuf> {
        Some(config_file())
    }
}

/// Paths for UniFFI's loader: the root configuration first (`cargo metadata` finds the rest).
pub fn paths() -> BindgenPaths {
    let mut paths = BindgenPaths::default();
    paths.add_layer(RootConfig);
    paths
}

/// Parses `generate`'s arguments as UniFFI's command line does (`--library` is a flag; the
/// library is the one positional argument): UniFFI's options, and the languages by name.
pub fn parse(arguments: &[String]) -> Result<(GenerateOptions, Vec<String>), String> {
    let mut options = GenerateOptions { format: true, ..GenerateOptions::default() };
    let mut languages = Vec::new();
    let mut source = None;
    let mut iter = arguments.iter();
    while let Some(argument) = iter.next() {
        let (flag, inline) = match argument.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_owned())),
            _ => (argument.as_str(), None),
        };
        let mut value = || inline.clone().or_else(|| iter.next().cloned()).ok_or(format!("{flag} needs a value"));
        match flag {
            "--language" | "-l" => languages.push(value()?),
            "--out-dir" | "-o" => options.out_dir = Utf8PathBuf::from(value()?),
            "--config" | "-c" => options.config_override = Some(Utf8PathBuf::from(value()?)),
            "--crate" => options.crate_filter = Some(value()?),
            "--no-format" | "-n" => options.format = false,
            "--metadata-no-deps" => options.metadata_no_deps = true,
            "--library" => {}
            other if other.starts_with('-') => return Err(format!("unknown argument {other}")),
            other => source = Some(Utf8PathBuf::from(other)),
        }
    }
    options.source = source.ok_or("`generate` needs the library")?;
    if options.out_dir.as_str().is_empty() {
        return Err("`generate` needs --out-dir".to_owned());
    }
    if languages.is_empty() {
        return Err("`generate` needs --language".to_owned());
    }
    options.languages = languages
        .iter()
        .map(|language| match language.as_str() {
            "python" => Ok(TargetLanguage::Python),
            "kotlin" => Ok(TargetLanguage::Kotlin),
            "swift" => Ok(TargetLanguage::Swift),
            other => Err(format!("unknown language {other}")),
        })
        .collect::<Result<_, String>>()?;
    Ok((options, languages))
}

/// UniFFI's generator, unchanged, with the root configuration.
pub fn stock(options: GenerateOptions) -> Result<(), String> {
    generate_with_bindgen_paths(options, paths()).map_err(|e| format!("{e:#}"))
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn arguments(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn b176_generate_takes_uniffis_command_line() {
        let (options, languages) =
            parse(&arguments("--library target/lib.so --language python --out-dir out --no-format")).unwrap();
        assert_eq!(options.source.as_str(), "target/lib.so");
        assert_eq!(options.out_dir.as_str(), "out");
        assert!(!options.format);
        assert_eq!(languages, ["python"]);
        let (options, _) = parse(&arguments("--language=kotlin --out-dir=out lib.so")).unwrap();
        assert!(options.format);
        assert_eq!(options.source.as_str(), "lib.so");
    }

    #[test]
    fn b176_a_command_line_it_does_not_know_is_refused() {
        assert!(parse(&arguments("--language python --out-dir out")).is_err(), "no library");
        assert!(parse(&arguments("--language ruby --out-dir out lib.so")).is_err());
        assert!(parse(&arguments("--language python --out-dir out --frobnicate lib.so")).is_err());
    }
}
