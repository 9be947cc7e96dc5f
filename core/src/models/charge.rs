use serde::Serialize;

use crate::amount::Amount;

/// A mobile money charge: asks the customer to confirm a payment on their phone.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ChargeRequest {
    /// Amount to charge; more than zero, at most two decimal places.
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
#[derive(Debug, Clone, PartialEq, Eq)]
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
