//! The payment-safety layer: what the service leaves to merchants, done once, correctly.

pub(crate) mod await_status;
pub(crate) mod confirm;
pub(crate) mod grace;
pub(crate) mod phone;
pub(crate) mod webhook;
