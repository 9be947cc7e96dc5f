//! The one scrubber for every text that leaves the SDK (ADR 0004): error messages and their
//! fields, webhook decision reasons and log records.
//!
//! Outside text (the service's messages, a notification's fields, transport errors) may echo
//! the secret key, whole or cut (a truncated excerpt, a prefix), and may carry control
//! characters that forge log lines when the text is printed. So control characters are
//! escaped, and then every run of the key's fragments of [`MIN_FRAGMENT_CHARS`] or more
//! characters is replaced by [`MARKER`].
//!
//! Outside text may also be of any length (a 7 MB message): it is cut to
//! [`MAX_TEXT_CHARS`] characters, with a marker naming its full length, before anything else
//! is done with it (ADR 0040).

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::Write;

/// The shortest fragment of the key that is removed: shorter runs are common in ordinary
/// text (`sk_test_` prefixes are 8 characters, so they are removed too).
pub(crate) const MIN_FRAGMENT_CHARS: usize = 8;

/// What replaces a fragment of the key.
pub(crate) const MARKER: &str = "[REDACTED]";

/// The most characters of one outside text that an error, a decision reason or a log record
/// holds; a longer text is cut there and [`cut_marker`] appended (ADR 0040).
pub const MAX_TEXT_CHARS: usize = 1_000;

/// What follows a text cut at [`MAX_TEXT_CHARS`]: how long it was.
fn cut_marker(total_chars: usize) -> String {
    format!("…[cut: {total_chars} characters in all]")
}

/// The most characters of one log record's message: a few outside texts, each already cut at
/// [`MAX_TEXT_CHARS`], and the SDK's own words (ADR 0040).
pub const MAX_LOG_MESSAGE_CHARS: usize = 4 * MAX_TEXT_CHARS;

/// `text` when it has at most [`MAX_TEXT_CHARS`] characters; else its first
/// [`MAX_TEXT_CHARS`] characters and a marker naming its full length.
pub(crate) fn bound(text: &str) -> Cow<'_, str> {
    bound_to(text, MAX_TEXT_CHARS)
}

/// [`bound`] of an owned text, kept as it is when it is within the bound.
pub(crate) fn bounded(text: String) -> String {
    bounded_to(text, MAX_TEXT_CHARS)
}

/// [`bound_to`] of an owned text, kept as it is when it is within `max`.
pub(crate) fn bounded_to(text: String, max: usize) -> String {
    let cut = match bound_to(&text, max) {
        Cow::Owned(cut) => Some(cut),
        Cow::Borrowed(_) => None,
    };
    cut.unwrap_or(text)
}

/// Whether `text` is already a text cut within `max` characters (the decoder cuts the service's
/// message, the scrubber sees it again): cutting it again would count only what was kept.
fn is_cut_within(text: &str, max: usize) -> bool {
    const START: &str = "…[cut: ";
    const END: &str = " characters in all]";
    text.rfind(START).is_some_and(|at| {
        let marker = &text[at + START.len()..];
        marker.len() <= 20 + END.len()
            && marker.strip_suffix(END).is_some_and(|count| count.bytes().all(|b| b.is_ascii_digit()))
            && text[..at].chars().count() <= max
    })
}

/// `text` cut after `max` characters, with the marker, when it is longer.
pub(crate) fn bound_to(text: &str, max: usize) -> Cow<'_, str> {
    // A text of at most `max` bytes has at most that many characters: no count needed.
    if text.len() <= max || is_cut_within(text, max) {
        return Cow::Borrowed(text);
    }
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some((end, _)) => {
            let total = max + text[end..].chars().count();
            Cow::Owned(format!("{}{}", &text[..end], cut_marker(total)))
        }
    }
}

/// Escapes control characters (C0, DEL, C1) and the Unicode line and paragraph separators,
/// so that a text always prints as one line and cannot forge a log record, nor send a
/// terminal an escape sequence (ESC, CSI): `\n`, `\r`, `\t`, else `\u{001b}`. Every error
/// text is escaped so; the `sika` command prints every outside text through it too.
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_owned();
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => escaped.push_str("\\n"),
            '\r' => escaped.push_str("\\r"),
            '\t' => escaped.push_str("\\t"),
            c if needs_escape(c) => {
                let _ = write!(escaped, "\\u{{{:04x}}}", u32::from(c));
            }
            c => escaped.push(c),
        }
    }
    escaped
}

fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Escapes `text` (see [`escape_controls`]) and removes every fragment of `key` of
/// [`MIN_FRAGMENT_CHARS`] or more characters (the whole key when it is shorter, if it has
/// at least 4 characters; a shorter "key" would match ordinary text).
pub(crate) fn scrub(text: &str, key: &str) -> String {
    // Cut first: the key is looked for in what is kept, not in 7 MB that is thrown away.
    let text = escape_controls(&bound(text));
    match remove_key(&text, key) {
        Some(removed) => removed,
        None => text,
    }
}

/// `text` with every fragment of `key` of [`MIN_FRAGMENT_CHARS`] or more characters replaced
/// by [`MARKER`] (the whole key when it is shorter, if it has at least 4 characters); `None`
/// when there is none. Nothing else is changed: this is how a record's texts from the service
/// are cleaned as they are decoded (ADR 0040), where escaping would change the data.
pub(crate) fn remove_key(text: &str, key: &str) -> Option<String> {
    let key_chars = key.chars().count();
    if key_chars < 4 {
        return None;
    }
    let window = key_chars.min(MIN_FRAGMENT_CHARS);
    // Most texts hold no fragment: a substring search per fragment says so without building
    // the per-character tables below (a verification's body is checked on every call). Each
    // fragment is a slice of the key, not a copy: this runs for every text of every record
    // decoded, and a string made per fragment was a fifth of a verification's instructions
    // (issue 45).
    let starts = key.char_indices().map(|(at, _)| at);
    let ends = key.char_indices().map(|(at, _)| at).chain(std::iter::once(key.len())).skip(window);
    if !starts.zip(ends).any(|(start, end)| text.contains(&key[start..end])) {
        return None;
    }
    let key: Vec<char> = key.chars().collect();
    let fragments: HashSet<&[char]> = key.windows(window).collect();
    let chars: Vec<char> = text.chars().collect();
    // Every fragment of `window` or more characters is a chain of overlapping windows of the
    // key, so covering each matching window covers the whole fragment.
    let mut covered = vec![false; chars.len()];
    let mut any = false;
    for (start, candidate) in chars.windows(window).enumerate() {
        if fragments.contains(candidate) {
            covered[start..start + window].iter_mut().for_each(|c| *c = true);
            any = true;
        }
    }
    if !any {
        return None;
    }
    let mut scrubbed = String::with_capacity(text.len());
    for (index, c) in chars.iter().enumerate() {
        if !covered[index] {
            scrubbed.push(*c);
        } else if index == 0 || !covered[index - 1] {
            scrubbed.push_str(MARKER);
        }
    }
    Some(scrubbed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONG_KEY: &str = "sk_live_b50_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ";

    fn has_fragment(text: &str, key: &str) -> bool {
        let key: Vec<char> = key.chars().collect();
        key.windows(MIN_FRAGMENT_CHARS).any(|w| text.contains(&w.iter().collect::<String>()))
    }

    /// The fragments are searched as slices of the key by its characters' offsets (issue 45):
    /// a key of multi-byte characters, a fragment at each end of it, and a key shorter than a
    /// fragment (searched whole), all found; a text holding no fragment is left alone.
    #[test]
    fn b311_fragments_are_found_as_slices_of_the_key_whatever_its_characters() {
        let key = "sk_tést_ñ€😀_0123456789";
        let head: String = key.chars().take(MIN_FRAGMENT_CHARS).collect();
        let tail: String = key.chars().skip(key.chars().count() - MIN_FRAGMENT_CHARS).collect();
        assert_eq!(remove_key(&format!("a {head} b"), key).as_deref(), Some("a [REDACTED] b"));
        assert_eq!(remove_key(&format!("a {tail} b"), key).as_deref(), Some("a [REDACTED] b"));
        assert_eq!(remove_key("x ñ€😀_01 y", "ñ€😀_01").as_deref(), Some("x [REDACTED] y"));
        assert_eq!(remove_key("ñ€😀_0 and sk_tést", key), None);
        assert_eq!(remove_key("abc", "ab"), None);
    }

    #[test]
    fn b50_the_whole_key_is_removed() {
        assert_eq!(scrub("bad key sk_test_canary_0123 given", "sk_test_canary_0123"), "bad key [REDACTED] given");
    }

    #[test]
    fn b50_a_truncated_fragment_of_a_long_key_is_removed() {
        // What a 40-character excerpt of an echoed key looks like.
        let excerpt: String = LONG_KEY.chars().skip(5).take(40).collect();
        let scrubbed = scrub(&format!("`{excerpt}` is not a decimal number"), LONG_KEY);
        assert_eq!(scrubbed, "`[REDACTED]` is not a decimal number");
        assert!(!has_fragment(&scrubbed, LONG_KEY), "{scrubbed}");
    }

    #[test]
    fn b50_every_fragment_of_eight_characters_is_removed_and_shorter_ones_stay() {
        let text = format!("a {} b {} c {}", &LONG_KEY[20..28], &LONG_KEY[30..37], &LONG_KEY[40..]);
        let scrubbed = scrub(&text, LONG_KEY);
        assert_eq!(scrubbed, format!("a [REDACTED] b {} c [REDACTED]", &LONG_KEY[30..37]));
    }

    #[test]
    fn b50_control_characters_and_line_separators_are_escaped() {
        let scrubbed = scrub("line\nforged\r\tx\u{0}\u{7f}\u{85}\u{2028}\u{2029}é", LONG_KEY);
        assert_eq!(scrubbed, "line\\nforged\\r\\tx\\u{0000}\\u{007f}\\u{0085}\\u{2028}\\u{2029}é");
    }

    #[test]
    fn b50_a_key_split_by_a_control_character_is_still_removed() {
        let split = format!("{}\n{}", &LONG_KEY[..20], &LONG_KEY[20..]);
        let scrubbed = scrub(&split, LONG_KEY);
        assert!(!has_fragment(&scrubbed, LONG_KEY), "{scrubbed}");
        assert!(!scrubbed.contains('\n'));
    }

    #[test]
    fn b64_a_long_text_is_cut_with_a_marker_naming_its_length() {
        let long = "é".repeat(7_000_000);
        let scrubbed = scrub(&long, LONG_KEY);
        assert!(scrubbed.starts_with(&"é".repeat(MAX_TEXT_CHARS)), "the first characters are kept");
        assert!(scrubbed.ends_with("…[cut: 7000000 characters in all]"), "{}", &scrubbed[scrubbed.len() - 60..]);
        assert!(scrubbed.chars().count() < MAX_TEXT_CHARS + 40);
        let exact = "x".repeat(MAX_TEXT_CHARS);
        assert_eq!(scrub(&exact, LONG_KEY), exact, "a text of the bound is whole");
        assert_eq!(scrub(&scrubbed, LONG_KEY), scrubbed, "a cut text is not cut again");
        let forged = format!("{}…[cut: {} characters in all]", "x".repeat(10), "9".repeat(5_000));
        assert!(scrub(&forged, LONG_KEY).chars().count() < MAX_TEXT_CHARS + 40, "a forged marker is still cut");
    }

    #[test]
    fn b64_a_key_at_the_cut_is_still_removed() {
        let text = format!("{}{LONG_KEY}", "x".repeat(MAX_TEXT_CHARS - 20));
        let scrubbed = scrub(&text, LONG_KEY);
        assert!(!has_fragment(&scrubbed, LONG_KEY), "{scrubbed}");
    }

    #[test]
    fn b50_ordinary_text_is_unchanged() {
        assert_eq!(scrub("service error: try later", LONG_KEY), "service error: try later");
        assert_eq!(scrub("short key abc", "abc"), "short key abc");
    }
}
