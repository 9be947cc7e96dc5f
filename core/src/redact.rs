//! The key taken out of every record decoded from the service (ADR 0040).
//!
//! A service may echo the key into any text it sends (`tx_ref`, `status`, a message). Errors
//! and decision reasons are scrubbed as they leave the SDK, but a record is returned as data,
//! printed (`repr`, `toString`, `description`), serialised (`to_json`, Jackson, Codable) and
//! logged: so the key is removed from each of its texts as the client decodes it, and no
//! record the client returns holds it. Only fragments of the key of 8 or more characters are
//! replaced (by `[REDACTED]`); nothing else in the data changes.

use crate::models::{Bank, BankAccountType, ChargeResponse, CustomField, Customer, MobileMoneyProvider, Transaction};
use crate::secret::SecretKey;
use crate::status::{PaymentType, TransactionStatus};

/// A value decoded from the service, whose texts can hold an echoed key.
pub(crate) trait RemoveKey {
    /// Replaces every fragment of `key` in the value's texts.
    fn remove_key(&mut self, key: &SecretKey);
}

impl RemoveKey for String {
    fn remove_key(&mut self, key: &SecretKey) {
        key.remove_from(self);
    }
}

impl<T: RemoveKey> RemoveKey for Option<T> {
    fn remove_key(&mut self, key: &SecretKey) {
        if let Some(value) = self {
            value.remove_key(key);
        }
    }
}

impl<T: RemoveKey> RemoveKey for Vec<T> {
    fn remove_key(&mut self, key: &SecretKey) {
        self.iter_mut().for_each(|value| value.remove_key(key));
    }
}

impl RemoveKey for TransactionStatus {
    fn remove_key(&mut self, key: &SecretKey) {
        if let Self::Unknown { value } = self {
            value.remove_key(key);
        }
    }
}

impl RemoveKey for PaymentType {
    fn remove_key(&mut self, key: &SecretKey) {
        if let Self::Other { value } = self {
            value.remove_key(key);
        }
    }
}

impl RemoveKey for BankAccountType {
    fn remove_key(&mut self, key: &SecretKey) {
        if let Self::Other { value } = self {
            value.remove_key(key);
        }
    }
}

impl RemoveKey for Transaction {
    fn remove_key(&mut self, key: &SecretKey) {
        // Every text of the record; the exhaustive pattern makes a new field a compile error here.
        let Self {
            id: _,
            domain,
            amount: _,
            currency,
            due_date,
            has_invoice: _,
            invoice_number,
            description,
            gateway_ref,
            tx_ref,
            status,
            payment_type,
            created_at: _,
            updated_at: _,
            customer,
            custom_fields,
            raw_json,
        } = self;
        domain.remove_key(key);
        currency.remove_key(key);
        due_date.remove_key(key);
        invoice_number.remove_key(key);
        description.remove_key(key);
        gateway_ref.remove_key(key);
        tx_ref.remove_key(key);
        status.remove_key(key);
        payment_type.remove_key(key);
        customer.remove_key(key);
        custom_fields.remove_key(key);
        raw_json.remove_key(key);
    }
}

/// A transaction verified by the reference the caller asked for. That reference is the caller's
/// own text, not the service's echo: a `tx_ref` equal to it is kept as it is, so a reference that
/// happens to share 8 characters with the key still equals its `tx_ref` and a paid order
/// confirms (B160). A reference holding the whole key gets no such exemption.
pub(crate) struct VerifiedAs<'a> {
    pub(crate) transaction: Transaction,
    pub(crate) reference: &'a str,
}

impl RemoveKey for VerifiedAs<'_> {
    fn remove_key(&mut self, key: &SecretKey) {
        let own_reference = self.transaction.tx_ref == self.reference && !key.is_within(self.reference);
        self.transaction.remove_key(key);
        if own_reference {
            self.reference.clone_into(&mut self.transaction.tx_ref);
        }
    }
}

impl RemoveKey for Customer {
    fn remove_key(&mut self, key: &SecretKey) {
        let Self { id: _, name, phone_number, email, created_at: _, updated_at: _ } = self;
        name.remove_key(key);
        phone_number.remove_key(key);
        email.remove_key(key);
    }
}

impl RemoveKey for CustomField {
    fn remove_key(&mut self, key: &SecretKey) {
        let Self { display_name, variable_name, value } = self;
        display_name.remove_key(key);
        variable_name.remove_key(key);
        value.remove_key(key);
    }
}

impl RemoveKey for ChargeResponse {
    fn remove_key(&mut self, key: &SecretKey) {
        let Self { http_status: _, status: _, message, data_json, raw_json } = self;
        message.remove_key(key);
        data_json.remove_key(key);
        raw_json.remove_key(key);
    }
}

impl RemoveKey for Bank {
    fn remove_key(&mut self, key: &SecretKey) {
        let Self { id: _, name, code, active: _, country, currency, account_type, created_at: _, updated_at: _ } = self;
        name.remove_key(key);
        code.remove_key(key);
        country.remove_key(key);
        currency.remove_key(key);
        account_type.remove_key(key);
    }
}

impl RemoveKey for MobileMoneyProvider {
    fn remove_key(&mut self, key: &SecretKey) {
        let Self { id: _, name, code, active: _, country, currency, provider_type, logo, created_at: _, updated_at: _ } =
            self;
        name.remove_key(key);
        code.remove_key(key);
        country.remove_key(key);
        currency.remove_key(key);
        provider_type.remove_key(key);
        logo.remove_key(key);
    }
}

std::thread_local! {
    /// The key of the client decoding on this thread, while it decodes: decoding is one
    /// synchronous step, so what it logs (a warning naming the record by its `tx_ref`) is
    /// cleaned with the same key as the record it returns.
    static DECODING_KEY: std::cell::RefCell<Option<SecretKey>> = const { std::cell::RefCell::new(None) };
}

/// Runs `decode` with `key` as this thread's decoding key, then removes the key from the
/// value it decoded.
pub(crate) fn decoded_without_key<T: RemoveKey, E>(
    key: &SecretKey,
    decode: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    /// Restores the previous key, also when `decode` panics.
    struct Restore(Option<SecretKey>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            DECODING_KEY.with(|slot| *slot.borrow_mut() = previous);
        }
    }
    let _restore = Restore(DECODING_KEY.with(|slot| slot.borrow_mut().replace(key.clone())));
    decode().map(|mut value| {
        value.remove_key(key);
        value
    })
}

/// `text` without the key of the client decoding on this thread (unchanged outside decoding):
/// for texts from the service that a log record quotes while decoding.
pub(crate) fn without_decoding_key(text: &str) -> String {
    let mut text = text.to_owned();
    DECODING_KEY.with(|slot| {
        if let Some(key) = slot.borrow().as_ref() {
            key.remove_from(&mut text);
        }
    });
    text
}
