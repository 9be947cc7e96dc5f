use std::fmt;

use serde::{Deserialize, Serialize};

use super::json::{amount_text, from_json_functions, to_json_methods};
use crate::amount::Amount;
use crate::validation::{mask_email, mask_phone};

/// A mobile money charge: asks the customer to confirm a payment on their phone. Prints with
/// the phone number and e-mail masked.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record), uniffi::export(Debug, Display))]
pub struct ChargeRequest {
    /// Amount to charge; more than zero, at most two decimal places.
    #[serde(serialize_with = "amount_text")]
    pub amount: Amount,
    /// The customer's e-mail address.
    pub email: String,
    /// The mobile money number, international format (`+233244123456`).
    pub phone_number: String,
    /// Your unique reference for this payment; you verify it later.
    pub reference: String,
    /// Currency of a mobile money country (`GHS`, `KES`, `UGX`, `TZS`).
    pub currency: String,
    /// The `code` of a mobile money provider of that country.
    pub provider: String,
    /// Where the customer returns to afterwards.
    #[cfg_attr(feature = "uniffi", uniffi(default = None))]
    pub callback_url: Option<String>,
}

/// `charge ORDER-1: 20 GHS from +233*******78 a***@example.com via MTN`, as the logs mask them.
impl fmt::Display for ChargeRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "charge {}: {} {} from {} {} via {}",
            self.reference,
            self.amount,
            self.currency,
            mask_phone(&self.phone_number),
            mask_email(&self.email),
            self.provider
        )
    }
}

impl fmt::Debug for ChargeRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChargeRequest")
            .field("reference", &self.reference)
            .field("amount", &self.amount)
            .field("currency", &self.currency)
            .field("email", &mask_email(&self.email))
            .field("phone_number", &mask_phone(&self.phone_number))
            .field("provider", &self.provider)
            .field("callback_url", &self.callback_url)
            .finish()
    }
}

/// The wire body of a charge: the request plus `payment_type = mobile_money`.
#[derive(Serialize)]
pub(crate) struct ChargeBody<'a> {
    pub amount: &'a Amount,
    pub email: &'a str,
    pub phone_number: &'a str,
    pub reference: &'a str,
    pub currency: &'a str,
    pub payment_type: &'static str,
    pub provider: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callback_url: Option<&'a str>,
}

/// The service's answer to a charge. The spec does not describe its fields, so the body is
/// kept as sent, with the envelope fields picked out when they are there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ChargeResponse {
    /// The HTTP status of the response.
    pub http_status: i32,
    /// The envelope's `status`, when the body has a boolean `status`.
    pub status: Option<bool>,
    /// The envelope's `message`, when the body has a string `message`.
    pub message: Option<String>,
    /// The envelope's `data` as JSON text, when present and not null.
    pub data_json: Option<String>,
    /// The whole body as the service sent it.
    pub raw_json: String,
}

to_json_methods!(ChargeRequest, ChargeResponse);
from_json_functions! {
    charge_request_from_json => ChargeRequest,
    charge_response_from_json => ChargeResponse,
}
