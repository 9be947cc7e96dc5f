use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::descriptive::{Descriptive, object_fields};
use super::json::{
    amount_text, from_json_functions, optional_payment_type_from_text, optional_service_text, optional_timestamp_text,
    service_text, status_from_text, to_json_methods,
};
use crate::amount::Amount;
use crate::status::{PaymentType, TransactionStatus};
use crate::timestamp::{self, Timestamp};
use crate::validation::{mask_email, mask_phone};

/// A transaction, as verification reports it. Only `status` `Successful` means paid.
///
/// The SDK builds transactions from the service's answers. A merchant's own tests can build
/// one too (a test double for their fulfilment code): the descriptive fields default to `None`
/// and `custom_fields` to empty, so Java passes only `amount`, `currency`, `tx_ref`, `status`
/// and `raw_json` (issue 26).
///
/// `tx_ref`, `status`, `amount` and `currency` are always there, exactly as sent. Every other
/// field is descriptive: `None` when the service sent it missing, null or of another type
/// (logged as a warning), so that such a field never stops a decision (ADR 0003).
//
// Decoded by hand rather than derived because two rules need it: the gateway reference sits
// in a field whose name varies by brand (`<letters>_ref`), and a duplicated key is an error (a
// hostile body must not get to choose which of two `status` values we read).
// `Debug` and `Display` are written by hand: they mask the customer's contact details and leave
// out `raw_json` (which holds them unmasked), so printing a transaction is safe in logs.
// `Serialize` and `Deserialize` are the record's own JSON (`to_json()`, `transaction_from_json()`),
// not the service's body.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record), uniffi::export(Debug, Display))]
pub struct Transaction {
    /// Transaction identifier.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default = None))]
    pub id: Option<i64>,
    /// Environment marker (`test`, `live`).
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default = None))]
    pub domain: Option<String>,
    /// Amount, exactly as sent.
    #[serde(serialize_with = "amount_text")]
    pub amount: Amount,
    /// Currency code.
    pub currency: String,
    /// Invoice due date, as text; `None` when the service sent null or nothing.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default = None))]
    pub due_date: Option<String>,
    /// Whether an invoice is attached.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default = None))]
    pub has_invoice: Option<bool>,
    /// Invoice number, as text (a number is kept as its JSON text); `None` when null.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default = None))]
    pub invoice_number: Option<String>,
    /// Description, as text; `None` when null.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default = None))]
    pub description: Option<String>,
    /// The merchant's reference: the value that was verified.
    pub tx_ref: String,
    /// The gateway's own reference (the one `<letters>_ref` field other than `tx_ref`).
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default = None))]
    pub gateway_ref: Option<String>,
    /// The status. Only `Successful` means paid.
    #[serde(serialize_with = "service_text", deserialize_with = "status_from_text")]
    pub status: TransactionStatus,
    /// The payment method (a text the SDK does not know is `Other`).
    #[serde(default, serialize_with = "optional_service_text", deserialize_with = "optional_payment_type_from_text")]
    #[cfg_attr(feature = "uniffi", uniffi(default = None))]
    pub payment_type: Option<PaymentType>,
    /// When the transaction was created; `None` also for a time outside years 1 to 9999 (ADR 0022).
    #[serde(default, serialize_with = "optional_timestamp_text", deserialize_with = "timestamp::deserialize_optional")]
    #[cfg_attr(feature = "uniffi", uniffi(default = None))]
    pub created_at: Option<Timestamp>,
    /// When the transaction last changed; `None` as for `created_at`.
    #[serde(default, serialize_with = "optional_timestamp_text", deserialize_with = "timestamp::deserialize_optional")]
    #[cfg_attr(feature = "uniffi", uniffi(default = None))]
    pub updated_at: Option<Timestamp>,
    /// The paying customer; `None` when the service sent null, nothing, or not an object.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default = None))]
    pub customer: Option<Customer>,
    /// The `meta.custom_fields` entries; empty when there are none (an entry that is not a
    /// custom field is left out, with a warning). A list, not an optional: no custom fields and
    /// an empty list mean the same to a merchant.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default = []))]
    pub custom_fields: Vec<CustomField>,
    /// The transaction object exactly as the service sent it, for records and audits.
    pub raw_json: String,
}

impl Transaction {
    /// Decodes one transaction object (the `data` of a verification response).
    pub fn from_json(raw: &str) -> Result<Self, serde_json::Error> {
        let fields: TransactionFields = serde_json::from_str(raw)?;
        fields.into_transaction(raw.to_owned())
    }
}

/// The customer of a transaction. Prints with the phone number and e-mail masked.
///
/// Every field is descriptive: `None` when the service sent it missing, null or of another
/// type (real gateways' customers often lack `updated_at`).
#[derive(Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record), uniffi::export(Debug, Display))]
pub struct Customer {
    /// Customer identifier.
    #[serde(default)]
    pub id: Option<i64>,
    /// Customer name.
    #[serde(default)]
    pub name: Option<String>,
    /// Phone number, international format (`+233...`).
    #[serde(default)]
    pub phone_number: Option<String>,
    /// E-mail address.
    #[serde(default)]
    pub email: Option<String>,
    /// When the customer record was created; `None` also for a time outside years 1 to 9999.
    #[serde(default, deserialize_with = "timestamp::deserialize_optional", serialize_with = "optional_timestamp_text")]
    pub created_at: Option<Timestamp>,
    /// When the customer record last changed; `None` as for `created_at`.
    #[serde(default, deserialize_with = "timestamp::deserialize_optional", serialize_with = "optional_timestamp_text")]
    pub updated_at: Option<Timestamp>,
}

/// One entry of a transaction's `meta.custom_fields`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct CustomField {
    /// Label shown to people.
    pub display_name: String,
    /// Machine name.
    pub variable_name: String,
    /// The value, as text (a non-string value is kept as its JSON text).
    #[serde(deserialize_with = "required_text")]
    pub value: String,
}

to_json_methods!(Transaction, Customer, CustomField);
from_json_functions! {
    transaction_from_json => Transaction,
    customer_from_json => Customer,
    custom_field_from_json => CustomField,
}

/// `transaction ORDER-1: successful, 100.10 GHS, customer +233*******56 a***@example.com`
impl fmt::Display for Transaction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Status and currency are the service's text: escaped so that printing stays one line.
        let (status, currency) = (self.status.to_string(), &self.currency);
        let (status, currency) = (crate::scrub::escape_controls(&status), crate::scrub::escape_controls(currency));
        write!(f, "transaction {}: {status}, {} {currency}", self.tx_ref, self.amount)?;
        match &self.customer {
            Some(customer) => write!(f, ", {customer}"),
            None => Ok(()),
        }
    }
}

/// Every field but `raw_json` (its length only); the customer masked.
impl fmt::Debug for Transaction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transaction")
            .field("tx_ref", &self.tx_ref)
            .field("status", &self.status)
            .field("amount", &self.amount)
            .field("currency", &self.currency)
            .field("id", &self.id)
            .field("domain", &self.domain)
            .field("due_date", &self.due_date)
            .field("has_invoice", &self.has_invoice)
            .field("invoice_number", &self.invoice_number)
            .field("description", &self.description)
            .field("gateway_ref", &self.gateway_ref)
            .field("payment_type", &self.payment_type)
            .field("created_at", &self.created_at)
            .field("updated_at", &self.updated_at)
            .field("customer", &self.customer)
            .field("custom_fields", &self.custom_fields)
            .field("raw_json", &format_args!("<{} bytes>", self.raw_json.len()))
            .finish()
    }
}

/// `customer +233*******56 a***@example.com`, as the logs mask them (an absent one left out).
impl fmt::Display for Customer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("customer")?;
        if let Some(phone_number) = &self.phone_number {
            write!(f, " {}", mask_phone(phone_number))?;
        }
        if let Some(email) = &self.email {
            write!(f, " {}", mask_email(email))?;
        }
        Ok(())
    }
}

impl fmt::Debug for Customer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Customer")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("phone_number", &self.phone_number.as_deref().map(mask_phone))
            .field("email", &self.email.as_deref().map(mask_email))
            .field("created_at", &self.created_at)
            .field("updated_at", &self.updated_at)
            .finish()
    }
}

struct TransactionFields {
    amount: Amount,
    currency: String,
    tx_ref: String,
    status: TransactionStatus,
    due_date: Option<String>,
    invoice_number: Option<String>,
    description: Option<String>,
    /// The descriptive fields, raw: read once `tx_ref` is known, so the warnings can name it.
    id: Option<Box<RawValue>>,
    domain: Option<Box<RawValue>>,
    has_invoice: Option<Box<RawValue>>,
    gateway_ref: Option<Box<RawValue>>,
    payment_type: Option<Box<RawValue>>,
    created_at: Option<Box<RawValue>>,
    updated_at: Option<Box<RawValue>>,
    customer: Option<Box<RawValue>>,
    meta: Option<Box<RawValue>>,
}

impl TransactionFields {
    fn into_transaction(self, raw_json: String) -> Result<Transaction, serde_json::Error> {
        // Named by its tx_ref in warnings: bounded, escaped, and without the decoding client's
        // key (ADR 0040).
        let tx_ref = crate::redact::without_decoding_key(&bounded(&self.tx_ref));
        let record = format!("transaction `{}`", crate::scrub::escape_controls(&tx_ref));
        let read = Descriptive { record: &record };
        Ok(Transaction {
            id: read.integer("id", self.id.as_deref()),
            domain: read.text("domain", self.domain.as_deref()),
            amount: self.amount,
            currency: self.currency,
            due_date: self.due_date,
            has_invoice: read.boolean("has_invoice", self.has_invoice.as_deref()),
            invoice_number: self.invoice_number,
            description: self.description,
            gateway_ref: read.text("<letters>_ref (gateway reference)", self.gateway_ref.as_deref()),
            status: self.status,
            payment_type: read
                .text("payment_type", self.payment_type.as_deref())
                .map(|text| PaymentType::from_wire(&text)),
            created_at: read.timestamp("created_at", self.created_at.as_deref()),
            updated_at: read.timestamp("updated_at", self.updated_at.as_deref()),
            customer: customer(&read, self.customer.as_deref())?,
            custom_fields: custom_fields(&read, self.meta.as_deref())?,
            tx_ref: self.tx_ref,
            raw_json,
        })
    }
}

/// A reference as the warnings quote it: a valid one is short, a longer one is cut.
fn bounded(reference: &str) -> String {
    reference.chars().take(crate::MAX_REFERENCE_CHARS).collect()
}

const CUSTOMER_FIELDS: &[&str] = &["id", "name", "phone_number", "email", "created_at", "updated_at"];

/// The customer: `None` when null or missing (the spec allows it) or not an object (a warning);
/// each field read as descriptive. A key given twice is still an error.
fn customer(read: &Descriptive<'_>, raw: Option<&RawValue>) -> Result<Option<Customer>, serde_json::Error> {
    let Some(raw) = raw.filter(|raw| raw.get() != "null") else { return Ok(None) };
    let Some(fields) = object_fields(raw, CUSTOMER_FIELDS)? else {
        log::warn!(target: "sika", "{}: `customer` is not an object; read as absent", read.record);
        return Ok(None);
    };
    let record = format!("{} customer", read.record);
    let read = Descriptive { record: &record };
    let field = |index: usize| fields[index].as_deref();
    Ok(Some(Customer {
        id: read.integer("id", field(0)),
        name: read.text("name", field(1)),
        phone_number: read.text("phone_number", field(2)),
        email: read.text("email", field(3)),
        created_at: read.timestamp("created_at", field(4)),
        updated_at: read.timestamp("updated_at", field(5)),
    }))
}

/// `meta.custom_fields`: empty when `meta` or the list is null or missing; a `meta` or list of
/// another type, and each entry that is not a custom field, left out with a warning. A key
/// given twice in `meta` is still an error.
fn custom_fields(read: &Descriptive<'_>, meta: Option<&RawValue>) -> Result<Vec<CustomField>, serde_json::Error> {
    let Some(meta) = meta.filter(|raw| raw.get() != "null") else { return Ok(Vec::new()) };
    let warn = |problem: &str| log::warn!(target: "sika", "{}: {problem}; read as absent", read.record);
    let Some(fields) = object_fields(meta, &["custom_fields"])? else {
        warn("`meta` is not an object");
        return Ok(Vec::new());
    };
    let Some(list) = fields[0].as_deref().filter(|raw| raw.get() != "null") else { return Ok(Vec::new()) };
    let Ok(entries) = serde_json::from_str::<Vec<Box<RawValue>>>(list.get()) else {
        warn("`meta.custom_fields` is not a list");
        return Ok(Vec::new());
    };
    Ok(entries
        .iter()
        .enumerate()
        .filter_map(|(index, entry)| {
            let field = serde_json::from_str::<CustomField>(entry.get());
            field.map_err(|_| warn(&format!("`meta.custom_fields[{index}]` is not a custom field"))).ok()
        })
        .collect())
}

/// `gw_ref`, `flw_ref`, `abc_ref`: letters, then `_ref`; never `tx_ref` itself.
fn is_gateway_ref_key(key: &str) -> bool {
    key != "tx_ref"
        && key
            .strip_suffix("_ref")
            .is_some_and(|prefix| !prefix.is_empty() && prefix.bytes().all(|b| b.is_ascii_alphabetic()))
}

/// Any non-null JSON value as text: a string as itself, anything else as its JSON text.
fn value_as_text(raw: &RawValue) -> Result<Option<String>, serde_json::Error> {
    let text = raw.get();
    if text == "null" {
        Ok(None)
    } else if text.starts_with('"') {
        serde_json::from_str::<String>(text).map(Some)
    } else {
        Ok(Some(text.to_owned()))
    }
}

fn optional_text<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<String>, A::Error> {
    let raw = map.next_value::<Box<RawValue>>()?;
    value_as_text(&raw).map_err(de::Error::custom)
}

fn required_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let raw = <Box<RawValue>>::deserialize(deserializer)?;
    value_as_text(&raw).map_err(de::Error::custom)?.ok_or_else(|| de::Error::custom("expected a value, found null"))
}

/// A status or payment type that is not a string is kept as its JSON text: an odd value
/// must decode to `Unknown`/`Other`, never fail verification and never count as paid.
fn enum_text<'de, A: MapAccess<'de>>(map: &mut A) -> Result<String, A::Error> {
    let raw = map.next_value::<Box<RawValue>>()?;
    Ok(value_as_text(&raw).map_err(de::Error::custom)?.unwrap_or_else(|| "null".to_owned()))
}

impl<'de> Deserialize<'de> for TransactionFields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(TransactionVisitor)
    }
}

struct TransactionVisitor;

/// Sets a field once; a second occurrence of the key is an error.
macro_rules! set_once {
    ($slot:ident, $key:expr, $value:expr) => {{
        if $slot.is_some() {
            return Err(de::Error::custom(format!("duplicate field `{}`", $key)));
        }
        $slot = Some($value);
    }};
}

impl<'de> Visitor<'de> for TransactionVisitor {
    type Value = TransactionFields;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a transaction object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TransactionFields, A::Error> {
        let (mut id, mut domain, mut amount, mut currency) = (None, None, None, None);
        let (mut due_date, mut has_invoice, mut invoice_number, mut description) = (None, None, None, None);
        let (mut tx_ref, mut gateway_ref, mut status, mut payment_type) = (None, None, None, None);
        let (mut created_at, mut updated_at, mut customer, mut meta) = (None, None, None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "id" => set_once!(id, key, map.next_value::<Box<RawValue>>()?),
                "domain" => set_once!(domain, key, map.next_value::<Box<RawValue>>()?),
                "amount" => set_once!(amount, key, map.next_value::<Amount>()?),
                "currency" => set_once!(currency, key, map.next_value::<String>()?),
                "due_date" => set_once!(due_date, key, optional_text(&mut map)?),
                "has_invoice" => set_once!(has_invoice, key, map.next_value::<Box<RawValue>>()?),
                "invoice_number" => set_once!(invoice_number, key, optional_text(&mut map)?),
                "description" => set_once!(description, key, optional_text(&mut map)?),
                "tx_ref" => set_once!(tx_ref, key, map.next_value::<String>()?),
                "status" => set_once!(status, key, TransactionStatus::from_wire(&enum_text(&mut map)?)),
                "payment_type" => set_once!(payment_type, key, map.next_value::<Box<RawValue>>()?),
                "created_at" => set_once!(created_at, key, map.next_value::<Box<RawValue>>()?),
                "updated_at" => set_once!(updated_at, key, map.next_value::<Box<RawValue>>()?),
                "customer" => set_once!(customer, key, map.next_value::<Box<RawValue>>()?),
                "meta" => set_once!(meta, key, map.next_value::<Box<RawValue>>()?),
                other if is_gateway_ref_key(other) => {
                    if gateway_ref.is_some() {
                        return Err(de::Error::custom(format!(
                            "more than one gateway reference field (`{other}` and another `<letters>_ref`)"
                        )));
                    }
                    gateway_ref = Some(map.next_value::<Box<RawValue>>()?);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(TransactionFields {
            amount: amount.ok_or_else(|| de::Error::missing_field("amount"))?,
            currency: currency.ok_or_else(|| de::Error::missing_field("currency"))?,
            tx_ref: tx_ref.ok_or_else(|| de::Error::missing_field("tx_ref"))?,
            status: status.ok_or_else(|| de::Error::missing_field("status"))?,
            due_date: due_date.flatten(),
            invoice_number: invoice_number.flatten(),
            description: description.flatten(),
            id,
            domain,
            has_invoice,
            gateway_ref,
            payment_type,
            created_at,
            updated_at,
            customer,
            meta,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seeded transaction of `tests/fixtures/seeded_transaction.json`, with its placeholders
    /// filled as every suite fills them (the amount as raw number text).
    fn seeded(reference: &str, status: &str, amount: &str) -> Transaction {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/seeded_transaction.json")).expect("fixture");
        let mut text = fixture["object"].to_string();
        let placeholders = &fixture["placeholders"];
        for (name, value) in [
            ("reference", format!("\"{reference}\"")),
            ("status", format!("\"{status}\"")),
            ("amount", amount.to_owned()),
        ] {
            let placeholder = placeholders[name].as_str().expect("placeholder");
            assert_eq!(text.matches(placeholder).count(), 1, "{placeholder}");
            text = text.replace(placeholder, &value);
        }
        Transaction::from_json(&text).expect("the seeded transaction decodes")
    }

    #[test]
    fn b114_to_json_has_the_service_names_and_texts() {
        let transaction = seeded("ORDER-1", "successful", "100.10");
        let json: serde_json::Value = serde_json::from_str(&transaction.to_json()).expect("JSON");
        assert_eq!(json["tx_ref"], "ORDER-1");
        assert_eq!(json["status"], "successful");
        assert_eq!(json["payment_type"], "mobile_money");
        assert_eq!(json["amount"], "100.10", "an exact decimal string, its scale kept");
        assert_eq!(json["created_at"], "2024-05-01T12:00:00.123Z");
        assert_eq!(json["updated_at"], "2024-05-01T12:30:00.000Z");
        assert_eq!(json["gateway_ref"], "GW-SEED");
        assert_eq!(json["due_date"], serde_json::Value::Null);
        assert_eq!(json["customer"]["phone_number"], "+233244123456", "the record itself is not masked");
        assert_eq!(json["customer"]["created_at"], "2024-04-01T09:00:00.000Z");
        assert_eq!(json["custom_fields"], serde_json::json!([]));
        assert_eq!(json["raw_json"], transaction.raw_json.as_str());
        let unknown = seeded("ORDER-2", "success", "5");
        let json: serde_json::Value = serde_json::from_str(&unknown.to_json()).expect("JSON");
        assert_eq!((&json["status"], &json["amount"]), (&serde_json::json!("success"), &serde_json::json!("5")));
    }

    #[test]
    fn b40_printing_masks_the_customer_and_leaves_out_the_raw_body() {
        let transaction = seeded("ORDER-1", "successful", "100.10");
        let shown = transaction.to_string();
        assert_eq!(shown, "transaction ORDER-1: successful, 100.10 GHS, customer +233*******56 a***@example.com");
        let debug = format!("{transaction:?} {transaction:#?}");
        for shown in [&shown, &debug] {
            assert!(!shown.contains("+233244123456") && !shown.contains("ama@example.com"), "{shown}");
        }
        for part in ["tx_ref: \"ORDER-1\"", "status: Successful", "amount: Amount(100.10)", "currency: \"GHS\""] {
            assert!(debug.contains(part), "{part} in {debug}");
        }
        assert!(debug.contains(&format!("raw_json: <{} bytes>", transaction.raw_json.len())), "{debug}");
        assert!(debug.contains("+233*******56") && debug.contains("a***@example.com"), "{debug}");
    }

    #[test]
    fn b09_gateway_ref_keys() {
        for key in ["gw_ref", "flw_ref", "ABC_ref"] {
            assert!(is_gateway_ref_key(key), "{key}");
        }
        for key in ["tx_ref", "_ref", "ref", "gw1_ref", "gw_ref_x", "gw-ref", "g w_ref"] {
            assert!(!is_gateway_ref_key(key), "{key}");
        }
    }
}
