//! Typed records of the service's resources, one module each.

mod bank;
mod charge;
mod descriptive;
pub(crate) mod json;
mod provider;
mod transaction;

pub use bank::{Bank, BankAccountType};
pub(crate) use charge::ChargeBody;
pub use charge::{ChargeRequest, ChargeResponse};
pub use provider::MobileMoneyProvider;
pub use transaction::{CustomField, Customer, Transaction};
