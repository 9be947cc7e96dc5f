//! Typed records of the service's resources, one module each.

mod bank;
mod charge;
mod descriptive;
pub(crate) mod json;
mod provider;
mod transaction;

pub use bank::{Bank, BankAccountType, bank_from_json};
pub(crate) use charge::ChargeBody;
pub use charge::{ChargeRequest, ChargeResponse, charge_request_from_json, charge_response_from_json};
pub use provider::{MobileMoneyProvider, mobile_money_provider_from_json};
pub use transaction::{
    CustomField, Customer, Transaction, custom_field_from_json, customer_from_json, transaction_from_json,
};
