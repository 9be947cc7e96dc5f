//! Python: every library function the module calls is bound once, to a module global (B59,
//! ADR 0029).
//!
//! As generated, each call looks its function up on the `CDLL` object (`_UniffiLib.<name>`): a
//! global and an attribute lookup, 46 ns, where a global alone is 13 ns (measured on this
//! machine's class, Python 3.11). Here each function called after the library's declarations
//! is bound to `_uniffi_sika_<name>` right after them (after `gil_held.rs` chose how each is
//! called, so the bound object is the one that keeps or releases the GIL), and the calls and
//! the functions passed as arguments (an async call's poll, complete and free) use it.

use crate::patch::replace_exactly;

/// Where every function's argument types are set: the contract check follows them.
const AFTER_THE_DECLARATIONS: &str = "\n_uniffi_check_contract_api_version(_UniffiLib)\n";

pub fn patch(text: String) -> Result<String, String> {
    let at = match text.matches(AFTER_THE_DECLARATIONS).count() {
        1 => text.find(AFTER_THE_DECLARATIONS).expect("counted"),
        found => return Err(format!("expected one contract version check after the declarations, found {found}")),
    };
    let (declarations, calls) = text.split_at(at);
    let mut calls = calls.to_owned();
    let mut bound = String::new();
    for name in declared_functions(declarations) {
        let global = format!("_uniffi_sika_{name}");
        let mut used = false;
        for end in ["(", ","] {
            let site = format!("_UniffiLib.{name}{end}");
            if calls.contains(&site) {
                calls = calls.replace(&site, &format!("{global}{end}"));
                used = true;
            }
        }
        if used {
            bound.push_str(&format!("{global} = _UniffiLib.{name}\n"));
        }
    }
    if bound.is_empty() {
        return Err("expected calls of the library's functions after their declarations".into());
    }
    let block = format!("\n# Sika (patch/python/prebound.rs): each function the module calls, bound once.\n{bound}");
    let calls = replace_exactly(
        &calls,
        AFTER_THE_DECLARATIONS,
        &format!("{block}{AFTER_THE_DECLARATIONS}"),
        1,
        "the contract check",
    )?;
    Ok(format!("{declarations}{calls}"))
}

/// The functions whose argument types the generated code sets: `_UniffiLib.<name>.argtypes = (`.
pub(super) fn declared_functions(text: &str) -> Vec<&str> {
    text.lines().filter_map(|line| line.strip_prefix("_UniffiLib.")?.strip_suffix(".argtypes = (")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = "_UniffiLib.f_one.argtypes = (\n)\n_UniffiLib.f_one_two.argtypes = (\n)\n\
        _uniffi_check_contract_api_version(_UniffiLib)\n\
        x = call(_UniffiLib.f_one_two, _UniffiLib.f_one(1))\n";

    #[test]
    fn each_called_function_is_bound_once_and_called_through_its_global() {
        let patched = patch(MODULE.to_owned()).expect("patched");
        assert!(
            patched.contains("_uniffi_sika_f_one = _UniffiLib.f_one\n_uniffi_sika_f_one_two = _UniffiLib.f_one_two\n")
        );
        assert!(patched.ends_with("x = call(_uniffi_sika_f_one_two, _uniffi_sika_f_one(1))\n"));
        // The declarations keep their names.
        assert!(patched.starts_with("_UniffiLib.f_one.argtypes = (\n)\n_UniffiLib.f_one_two.argtypes"));
    }

    #[test]
    fn a_module_without_the_expected_shape_fails_the_build() {
        assert!(patch(MODULE.replace("_uniffi_check_contract_api_version", "check")).is_err());
        assert!(patch(MODULE.replace("x = call(_UniffiLib.f_one_two, _UniffiLib.f_one(1))", "")).is_err());
    }
}
