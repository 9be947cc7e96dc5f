//! The merchant's secret key, as a type that cannot leak by accident.

use std::fmt;

use zeroize::Zeroizing;

/// The merchant's secret API key.
///
/// It is redacted in `Debug` output, has no `Display`, and its memory is overwritten with
/// zeros when the last owner drops it. The only way to read it is crate-private, so no
/// public API of Sika can hand it back out.
///
/// In Python, Kotlin and Swift it is an opaque object: generated records print every field,
/// and an object prints nothing.
#[derive(Clone)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Object))]
pub struct SecretKey(Zeroizing<String>);

#[cfg_attr(feature = "uniffi", uniffi::export)]
impl SecretKey {
    /// Wraps a key. The string is moved in, not copied.
    #[cfg_attr(feature = "uniffi", uniffi::constructor)]
    pub fn new(key: String) -> Self {
        Self(Zeroizing::new(key))
    }
}

impl SecretKey {
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Makes outside text (a server message, a transport error, a notification's field) fit to
    /// leave the SDK: control characters escaped and every fragment of the key of 8 or more
    /// characters removed (see [`crate::scrub`]).
    pub(crate) fn scrub(&self, text: &str) -> String {
        crate::scrub::scrub(text, &self.0)
    }

    /// Replaces every fragment of the key of 8 or more characters in a text from the service
    /// by `[REDACTED]`, changing nothing else: a record's fields as they are decoded (ADR 0040).
    /// Whether `text` holds the whole key.
    pub(crate) fn is_within(&self, text: &str) -> bool {
        text.contains(self.0.as_str())
    }

    pub(crate) fn remove_from(&self, text: &mut String) {
        if let Some(removed) = crate::scrub::remove_key(text, &self.0) {
            *text = removed;
        }
    }
}

impl From<String> for SecretKey {
    fn from(key: String) -> Self {
        Self::new(key)
    }
}

impl From<&str> for SecretKey {
    fn from(key: &str) -> Self {
        Self::new(key.to_owned())
    }
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretKey([REDACTED])")
    }
}

/// A URL that may carry credentials (a proxy's `http://user:password@host:port`), kept as the
/// key is (ADR 0040): redacted in `Debug`, no `Display`, its memory zeroed when dropped.
///
/// In Python, Kotlin and Swift it is an opaque object, as the key is (B81): a record that holds
/// one (`ClientConfig.proxy`) prints, serialises and compares it as an object, never as its text.
#[derive(Clone)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Object))]
pub struct SecretUrl(Zeroizing<String>);

#[cfg_attr(feature = "uniffi", uniffi::export)]
impl SecretUrl {
    /// Wraps a URL. The string is moved in, not copied. Checked when a client is made (a bad
    /// one is `InvalidInput` on `proxy`, its text never repeated).
    #[cfg_attr(feature = "uniffi", uniffi::constructor)]
    pub fn new(url: String) -> Self {
        Self(Zeroizing::new(url))
    }
}

impl SecretUrl {
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl From<String> for SecretUrl {
    fn from(url: String) -> Self {
        Self::new(url)
    }
}

impl From<&str> for SecretUrl {
    fn from(url: &str) -> Self {
        Self::new(url.to_owned())
    }
}

impl fmt::Debug for SecretUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretUrl([REDACTED])")
    }
}

/// `text` with a URL's credentials (`scheme://user:password@host...`) replaced by
/// `[REDACTED]`, for printing a URL a setting holds as plain text (`base_url`): the text after
/// `://` up to the authority's last `@` (before any `/`, `?` or `#`). A text that is no URL is
/// checked the same way, so an unparsable one never prints its credentials either.
pub(crate) fn without_credentials(text: &str) -> std::borrow::Cow<'_, str> {
    let Some(scheme_end) = text.find("://").map(|at| at + 3) else { return text.into() };
    let rest = &text[scheme_end..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    match authority.rfind('@') {
        Some(at) => format!("{}[REDACTED]{}", &text[..scheme_end], &rest[at..]).into(),
        None => text.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b65_a_urls_credentials_never_print() {
        for (text, printed) in [
            ("https://merchant:pa55word@api.example.com/v1", "https://[REDACTED]@api.example.com/v1"),
            ("https://user@host:8443", "https://[REDACTED]@host:8443"),
            ("https://a:b@c@host/x@y", "https://[REDACTED]@host/x@y"),
            ("https://api.example.com/path@not-credentials", "https://api.example.com/path@not-credentials"),
            ("no url at all", "no url at all"),
            ("weird://:pa55word@", "weird://[REDACTED]@"),
        ] {
            assert_eq!(without_credentials(text), printed, "{text}");
        }
    }

    #[test]
    fn b16_debug_never_shows_the_key() {
        let key = SecretKey::from("sk_test_canary_0123456789");
        let printed = format!("{key:?} {:#?}", key);
        assert!(!printed.contains("canary"), "{printed}");
        assert!(printed.contains("REDACTED"));
    }

    #[test]
    fn b65_debug_never_shows_a_secret_url() {
        let url = SecretUrl::from("http://user:pa55word_canary@proxy.example.com:3128");
        let printed = format!("{url:?} {:#?}", Some(&url));
        assert!(!printed.contains("pa55word"), "{printed}");
        assert!(printed.contains("REDACTED"));
    }

    #[test]
    fn b16_scrub_removes_the_key_from_outside_text() {
        let key = SecretKey::from("sk_test_canary_0123456789");
        let scrubbed = key.scrub("bad key sk_test_canary_0123456789 given");
        assert_eq!(scrubbed, "bad key [REDACTED] given");
    }
}
