//! `POST /charge`: validates a mobile money charge, stores its `pending` transaction and hands
//! it to the USSD simulation.

use std::hash::{BuildHasher, RandomState};

use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::envelope::{body_rejection, error, success};
use crate::raw_object::RawObject;
use crate::seed;
use crate::state::AppState;
use crate::store::{ChargeError, ChargeIds};
use crate::time::now_iso;
use crate::ussd;
use crate::validate::{is_positive_json_number, is_valid_email, is_valid_phone_number, is_valid_reference};

/// A charge request that passed every check.
#[derive(Debug)]
struct ValidCharge {
    /// The amount's JSON text exactly as received (`100.10` stays `100.10`).
    amount: Box<RawValue>,
    email: String,
    phone_number: String,
    reference: String,
    currency: &'static str,
    provider: &'static str,
}

impl ValidCharge {
    /// Checks the fields in the order of the spec's table; the first failure is reported.
    fn from_body(body: &[u8]) -> Result<Self, &'static str> {
        let body = RawObject::parse(body).map_err(|_| "Invalid request body")?;
        let amount =
            body.get("amount").filter(|raw| is_positive_json_number(raw.get())).ok_or("Invalid amount")?.to_owned();
        let email = body.get_str("email").filter(|e| is_valid_email(e)).ok_or("Invalid email")?;
        let phone_number =
            body.get_str("phone_number").filter(|p| is_valid_phone_number(p)).ok_or("Invalid phone number")?;
        let reference = body.get_str("reference").filter(|r| is_valid_reference(r)).ok_or("Invalid reference")?;
        // Only currencies of countries with mobile money (so not NGN).
        let country = body
            .get_str("currency")
            .and_then(|c| seed::country_by_currency(&c))
            .filter(|c| !seed::providers_for(c).is_empty())
            .ok_or("Invalid currency")?;
        if body.get_str("payment_type").as_deref() != Some("mobile_money") {
            return Err("Invalid payment type");
        }
        let requested_provider = body.get_str("provider").ok_or("Invalid provider")?;
        let provider = seed::providers_for(country)
            .into_iter()
            .find(|p| p.active && p.code == requested_provider)
            .ok_or("Invalid provider")?;
        match body.get("callback_url") {
            None => {}
            Some(raw) if raw.get() == "null" => {}
            Some(_) if body.get_str("callback_url").is_some() => {}
            Some(_) => return Err("Invalid callback URL"),
        }
        Ok(Self { amount, email, phone_number, reference, currency: country.currency, provider: provider.code })
    }

    /// The stored transaction: exactly the spec's transaction fields, in the spec's order.
    fn transaction(&self, ids: &ChargeIds, gw_ref: &str, now: &str) -> Result<RawObject, serde_json::Error> {
        let name = self.email.split('@').next().unwrap_or_default();
        let customer = Customer {
            id: ids.customer_id,
            name,
            phone_number: &self.phone_number,
            email: &self.email,
            created_at: &ids.customer_created_at,
            updated_at: now,
        };
        let mut object = RawObject::new();
        object.insert_json("id", &ids.transaction_id)?;
        object.insert_json("domain", "test")?;
        object.insert("amount", self.amount.clone());
        object.insert_json("currency", self.currency)?;
        object.insert_json("due_date", &())?;
        object.insert_json("has_invoice", &false)?;
        object.insert_json("invoice_number", &())?;
        object.insert_json("description", &())?;
        object.insert_json("tx_ref", &self.reference)?;
        object.insert_json("gw_ref", gw_ref)?;
        object.insert_json("status", "pending")?;
        object.insert_json("payment_type", "mobile_money")?;
        object.insert_json("created_at", now)?;
        object.insert_json("updated_at", now)?;
        object.insert_json("customer", &customer)?;
        object.insert_json("meta", &Meta::default())?;
        Ok(object)
    }
}

#[derive(Serialize)]
struct Customer<'a> {
    id: u64,
    name: &'a str,
    phone_number: &'a str,
    email: &'a str,
    created_at: &'a str,
    updated_at: &'a str,
}

#[derive(Serialize, Default)]
struct Meta {
    custom_fields: [(); 0],
}

/// `data` of the charge response.
#[derive(Serialize)]
struct ChargeData<'a> {
    tx_ref: &'a str,
    gw_ref: &'a str,
    status: &'static str,
    amount: &'a RawValue,
    currency: &'a str,
    provider: &'a str,
}

/// A gateway reference such as `GW-000001-9F2C41D07A3B5E68`: the transaction id keeps it
/// unique, the random part keeps it from looking guessable.
fn new_gateway_ref(transaction_id: u64) -> String {
    let random = RandomState::new().hash_one(transaction_id);
    format!("GW-{transaction_id:06}-{random:016X}")
}

pub async fn initiate(State(state): State<AppState>, body: Result<Bytes, BytesRejection>) -> Response {
    let body = match body {
        Ok(body) => body,
        Err(rejection) => return body_rejection(&rejection),
    };
    let charge = match ValidCharge::from_body(&body) {
        Ok(charge) => charge,
        Err(message) => return error(StatusCode::BAD_REQUEST, message),
    };
    let now = now_iso();
    let mut gw_ref = String::new();
    let created = state.store.create_charge(&charge.reference, &charge.email, |ids| {
        gw_ref = new_gateway_ref(ids.transaction_id);
        charge.transaction(ids, &gw_ref, &now)
    });
    match created {
        Ok((_, version)) => {
            ussd::schedule(&state, charge.reference.clone(), version, ussd::outcome_for(&charge.phone_number));
            success(
                StatusCode::OK,
                "Charge initiated",
                &ChargeData {
                    tx_ref: &charge.reference,
                    gw_ref: &gw_ref,
                    status: "pending",
                    amount: &charge.amount,
                    currency: charge.currency,
                    provider: charge.provider,
                },
            )
        }
        Err(ChargeError::DuplicateReference) => error(StatusCode::CONFLICT, "Duplicate transaction reference"),
        Err(ChargeError::Build(err)) => {
            eprintln!("sika-sandbox: could not build a transaction: {err}");
            error(StatusCode::INTERNAL_SERVER_ERROR, "Internal error")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"amount":100.10,"email":"kofi@example.com","phone_number":"+233244120000","reference":"order-1","currency":"GHS","payment_type":"mobile_money","provider":"MTN","callback_url":"https://shop.example/done"}"#;

    fn with(field: &str, value: &str) -> String {
        let mut object = RawObject::parse(GOOD.as_bytes()).unwrap_or_default();
        match RawValue::from_string(value.to_owned()) {
            Ok(raw) => object.insert(field, raw),
            Err(_) => panic!("bad test value {value}"),
        }
        serde_json::to_string(&object).unwrap_or_default()
    }

    fn check(body: &str) -> Result<(), &'static str> {
        ValidCharge::from_body(body.as_bytes()).map(|_| ())
    }

    #[test]
    fn b171_a_good_charge_is_accepted() {
        assert_eq!(check(GOOD), Ok(()));
        assert_eq!(check(&with("callback_url", "null")), Ok(()));
        assert_eq!(check(&with("currency", "\"KES\"").replace("\"MTN\"", "\"MPESA_KE\"")), Ok(()));
    }

    #[test]
    fn b171_a_bad_charge_names_its_field() {
        assert_eq!(check("nope"), Err("Invalid request body"));
        assert_eq!(check("[]"), Err("Invalid request body"));
        assert_eq!(check(&with("amount", "0")), Err("Invalid amount"));
        assert_eq!(check(&with("amount", "\"100\"")), Err("Invalid amount"));
        assert_eq!(check(&with("email", "\"x\"")), Err("Invalid email"));
        assert_eq!(check(&with("phone_number", "\"0244\"")), Err("Invalid phone number"));
        assert_eq!(check(&with("reference", "\"a/b\"")), Err("Invalid reference"));
        assert_eq!(check(&with("currency", "\"NGN\"")), Err("Invalid currency"));
        assert_eq!(check(&with("currency", "\"ghs\"")), Err("Invalid currency"));
        assert_eq!(check(&with("payment_type", "\"card\"")), Err("Invalid payment type"));
        assert_eq!(check(&with("provider", "\"MPESA_KE\"")), Err("Invalid provider"));
        assert_eq!(check(&with("callback_url", "5")), Err("Invalid callback URL"));
    }

    #[test]
    fn b171_a_charge_builds_exactly_the_spec_fields() {
        let Ok(charge) = ValidCharge::from_body(GOOD.as_bytes()) else {
            panic!("good charge rejected");
        };
        let ids =
            ChargeIds { transaction_id: 7, customer_id: 3, customer_created_at: "2024-01-01T00:00:00.000Z".into() };
        let object = charge.transaction(&ids, "GW-1", "2024-01-02T00:00:00.000Z");
        let text = object.ok().and_then(|o| serde_json::to_string(&o).ok());
        assert_eq!(
            text.as_deref(),
            Some(concat!(
                r#"{"id":7,"domain":"test","amount":100.10,"currency":"GHS","due_date":null,"#,
                r#""has_invoice":false,"invoice_number":null,"description":null,"#,
                r#""tx_ref":"order-1","gw_ref":"GW-1","status":"pending","#,
                r#""payment_type":"mobile_money","created_at":"2024-01-02T00:00:00.000Z","#,
                r#""updated_at":"2024-01-02T00:00:00.000Z","customer":{"id":3,"name":"kofi","#,
                r#""phone_number":"+233244120000","email":"kofi@example.com","#,
                r#""created_at":"2024-01-01T00:00:00.000Z","updated_at":"2024-01-02T00:00:00.000Z"},"#,
                r#""meta":{"custom_fields":[]}}"#
            ))
        );
    }
}
