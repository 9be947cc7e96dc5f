use serde::{Deserialize, Serialize};

use super::descriptive;
use super::json::{from_json_functions, optional_timestamp_text, to_json_methods};
use crate::timestamp::Timestamp;

/// A mobile money provider of a country, for provider pickers.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct MobileMoneyProvider {
    /// Unique provider identifier.
    pub id: i64,
    /// Display name (`MTN Mobile Money`).
    pub name: String,
    /// Provider code: the value to send as `provider` in a charge request.
    pub code: String,
    /// Whether the provider currently accepts payments.
    pub active: bool,
    /// Country name, in full (`Ghana`), not the two-letter code.
    pub country: String,
    /// Currency code of the country (`GHS`).
    pub currency: String,
    /// The service's `type`; always `mobile_money` today.
    #[serde(rename = "type")]
    pub provider_type: String,
    /// URL of the provider's logo.
    pub logo: String,
    /// When the provider record was created; `None` when the service sent none, or a time outside
    /// years 1 to 9999 (ADR 0022).
    #[serde(
        rename = "createdAt",
        default,
        deserialize_with = "descriptive::created_at",
        serialize_with = "optional_timestamp_text"
    )]
    pub created_at: Option<Timestamp>,
    /// When the provider record last changed; `None` as for `created_at`.
    #[serde(
        rename = "updatedAt",
        default,
        deserialize_with = "descriptive::updated_at",
        serialize_with = "optional_timestamp_text"
    )]
    pub updated_at: Option<Timestamp>,
}

to_json_methods!(MobileMoneyProvider);
from_json_functions!(mobile_money_provider_from_json => MobileMoneyProvider);
