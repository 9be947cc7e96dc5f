//! The methods that make a charge, read from the library's metadata: each method of an object
//! that takes a `ChargeRequest` (`Client.initiate_charge`, `Ledger.initiate_charge`). A charge
//! interrupted or cancelled after it may have been sent is not "cancelled", so each host form of
//! such a method says so (ADR 0075, ADR 0082, ADR 0094). Read from the metadata, a new charging
//! method cannot lack it, and no generated text is searched for a parameter's type.

use std::collections::BTreeMap;

use heck::ToLowerCamelCase;
use uniffi_bindgen::pipeline::general::{Namespace, Type, TypeDefinition};

/// The record a charging method takes.
const CHARGE_REQUEST: &str = "ChargeRequest";

/// The charging methods: each one's name (lower camel case, as Kotlin and Swift call it) with the
/// name of its `ChargeRequest` parameter (the same case).
pub type Charges = BTreeMap<String, String>;

/// The charging methods of every object. The patches find a method in the generated text by its
/// name, so a name must make a charge, through the same parameter, in every object that has it:
/// one that does in `Client` and does not in another object is refused.
pub fn of_namespace(namespace: &Namespace) -> Result<Charges, String> {
    let mut methods = Vec::new();
    for definition in &namespace.type_definitions {
        let TypeDefinition::Interface(interface) = definition else { continue };
        for method in &interface.methods {
            let request = method.callable.arguments.iter().find(
                |argument| matches!(&argument.ty.ty, Type::Record { name, .. } if name.as_str() == CHARGE_REQUEST),
            );
            let parameter = request.map(|argument| argument.name.to_lower_camel_case());
            methods.push((interface.name.as_str(), method.callable.name.to_lower_camel_case(), parameter));
        }
    }
    agreed(&methods)
}

/// `(object, method, its charge parameter)` as one answer per method name.
fn agreed(methods: &[(&str, String, Option<String>)]) -> Result<Charges, String> {
    let mut charges = Charges::new();
    for (object, name, parameter) in methods {
        let Some(parameter) = parameter else { continue };
        if let Some((other, _, differs)) =
            methods.iter().find(|(_, other, p)| other == name && p.as_ref() != Some(parameter))
        {
            let what = differs.as_ref().map_or("takes no `ChargeRequest`".to_owned(), |p| format!("takes it as `{p}`"));
            return Err(format!(
                "`{object}.{name}` makes a charge (its `ChargeRequest` is `{parameter}`) but `{other}.{name}` {what}: the patches find a charging method by its name, so rename one"
            ));
        }
        charges.insert(name.clone(), parameter.clone());
    }
    if charges.is_empty() {
        return Err("no method of any object takes a `ChargeRequest`".to_owned());
    }
    Ok(charges)
}

#[cfg(test)]
mod tests {
    use super::agreed;

    fn method<'a>(object: &'a str, name: &str, parameter: Option<&str>) -> (&'a str, String, Option<String>) {
        (object, name.to_owned(), parameter.map(str::to_owned))
    }

    #[test]
    fn b280_a_charging_method_is_one_that_takes_a_charge_request_in_every_object() {
        let both = [
            method("Client", "initiateCharge", Some("request")),
            method("Client", "verifyTransaction", None),
            method("Ledger", "initiateCharge", Some("request")),
        ];
        let charges = agreed(&both).unwrap();
        assert_eq!(charges.into_iter().collect::<Vec<_>>(), [("initiateCharge".to_owned(), "request".to_owned())]);
        // A name that charges in one object and not in another, or through another parameter.
        let differs = agreed(&[both[0].clone(), method("Ledger", "initiateCharge", None)]).unwrap_err();
        assert!(differs.contains("`Ledger.initiateCharge` takes no `ChargeRequest`"), "{differs}");
        assert!(agreed(&[both[0].clone(), method("Ledger", "initiateCharge", Some("charge"))]).is_err());
        assert!(agreed(&[both[1].clone()]).is_err(), "no charging method at all");
    }
}
