//! B299: the `sika` command's exit codes of the SDK's errors (docs/cli.md's table) name every
//! error kind of `tests/fixtures/errors.json` (the core's kinds, B295), each with a code of its
//! own: a kind added to the core fails here until docs/cli.md gives its code (`exit::for_error`
//! is an exhaustive match, so the code itself cannot be forgotten). `Cancelled` is the
//! interrupt's 130, as a shell reports Ctrl-C.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))).expect(path)
}

/// `code -> the first backquoted name of its row`, from the `| code | meaning |` table.
fn documented_codes() -> BTreeMap<u32, Option<String>> {
    read("docs/cli.md")
        .lines()
        .filter_map(|line| {
            let mut cells = line.trim().trim_matches('|').split('|').map(str::trim);
            let code = cells.next()?.parse::<u32>().ok()?;
            let meaning = cells.next()?;
            let name = meaning.strip_prefix('`').and_then(|rest| rest.split('`').next()).map(str::to_owned);
            Some((code, name))
        })
        .collect()
}

#[test]
fn b299_every_error_kind_has_its_own_documented_exit_code() {
    let fixture: Value = serde_json::from_str(&read("tests/fixtures/errors.json")).expect("JSON");
    let kinds: BTreeSet<String> = fixture["kinds"]
        .as_array()
        .expect("kinds")
        .iter()
        .map(|sample| sample["kind"].as_str().expect("kind").to_owned())
        .collect();
    let codes = documented_codes();
    assert!(codes.contains_key(&130), "the interrupt's code, Cancelled's");
    let named: BTreeMap<&str, u32> = codes.iter().filter_map(|(code, name)| Some((name.as_deref()?, *code))).collect();
    let undocumented: Vec<&String> =
        kinds.iter().filter(|kind| kind.as_str() != "Cancelled" && !named.contains_key(kind.as_str())).collect();
    assert!(undocumented.is_empty(), "docs/cli.md's exit codes lack {undocumented:?}");
    assert_eq!(named.len(), codes.values().flatten().count(), "one row per kind: {codes:?}");
}
