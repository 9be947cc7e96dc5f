//! What the commands print: aligned tables for people, JSON for machines, colour only on a
//! terminal and never with `NO_COLOR` set (no-color.org).
//!
//! Every text that comes from outside (the service's records and messages, the sandbox's
//! answers, an event's fields, a URL or path given to the command) is printed through
//! [`escaped`], the SDK's own escaping of its error texts: a control character or an escape
//! sequence (ESC, CSI) in a bank's name cannot reach the terminal. Tables take [`Cell`]s,
//! which are escaped when made; JSON goes through [`print_json`].

use std::io::{IsTerminal, Write};

/// `println!` that ends the command quietly when its reader is gone (`sika providers | head -1`):
/// Rust ignores SIGPIPE, so `println!` would panic on the broken pipe.
macro_rules! outln {
    ($($arg:tt)*) => { $crate::output::write_stdout(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `print!` with the same rule as [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write_stdout(format_args!($($arg)*)) };
}

pub(crate) use {out, outln};

/// Writes to stdout at once (one write per call, so concurrent lines never interleave). When
/// the reader has closed the pipe the command exits with [`crate::exit::OUTPUT_CLOSED`] and
/// prints nothing; any other write error is reported on stderr with the same code.
pub fn write_stdout(text: std::fmt::Arguments<'_>) {
    let mut stdout = std::io::stdout().lock();
    if let Err(err) = stdout.write_fmt(text).and_then(|()| stdout.flush()) {
        if err.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("sika: could not write to standard output: {err}");
        }
        std::process::exit(i32::from(crate::exit::OUTPUT_CLOSED));
    }
}

/// Whether stdout may be coloured.
pub fn colour_on_stdout() -> bool {
    std::io::stdout().is_terminal() && !no_color()
}

/// Whether stderr may be coloured (the progress line, messages).
pub fn colour_on_stderr() -> bool {
    std::io::stderr().is_terminal() && !no_color()
}

fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty())
}

/// `text` with its control characters escaped (`\n`, `\u{001b}`, ...): the one escaping of
/// every outside text this command prints, the SDK's (`sika_core::escape_controls`).
pub fn escaped(text: &str) -> String {
    sika_core::escape_controls(text)
}

/// A JSON text with DEL, the C1 controls (CSI is U+009B) and the line and paragraph
/// separators written as `\uXXXX`: serde escapes only U+0000 to U+001F. They can only be inside
/// strings of a JSON text, so the document's data is unchanged.
pub fn json_escaped(json: &str) -> String {
    let needs = |c: char| matches!(c, '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}');
    if !json.chars().any(needs) {
        return json.to_owned();
    }
    let mut escaped = String::with_capacity(json.len() + 12);
    for c in json.chars() {
        if needs(c) {
            escaped.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            escaped.push(c);
        }
    }
    escaped
}

/// Prints one JSON document (a line), through [`json_escaped`].
pub fn print_json(json: &str) {
    outln!("{}", json_escaped(json));
}

/// `url` with the user and password of its authority replaced by `***`
/// (`http://***@host/`): `--forward-to` may carry credentials, which nothing prints.
pub fn without_credentials(url: &str) -> String {
    let Some(start) = url.find("://").map(|at| at + 3) else { return url.to_owned() };
    let end = url[start..].find(['/', '?', '#']).map_or(url.len(), |at| start + at);
    match url[start..end].rfind('@') {
        Some(at) => format!("{}***@{}", &url[..start], &url[start + at + 1..]),
        None => url.to_owned(),
    }
}

/// One cell of a table: outside text, escaped when the cell is made.
pub struct Cell(String);

impl Cell {
    /// A cell of outside text (escaped).
    pub fn text(text: &str) -> Self {
        Self(escaped(text))
    }

    /// A status word: escaped, and painted by [`paint_status`] when colour is on.
    pub fn status(status: &str, colour: bool) -> Self {
        Self(paint_status(status, colour))
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Self {
        Self::text(text)
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Self {
        Self::text(&text)
    }
}

/// A status word, green when paid, red when not, yellow while pending (when colour is on);
/// any other (a status the SDK does not know, from the service) escaped and never painted.
pub fn paint_status(status: &str, colour: bool) -> String {
    let code = match status {
        "successful" => "32",
        "pending" => "33",
        "failed" | "abandoned" | "reversed" => "31",
        _ => return escaped(status),
    };
    if colour { format!("\x1b[{code}m{status}\x1b[0m") } else { status.to_owned() }
}

/// Prints rows under a header, each column as wide as its widest cell. Colour codes in a cell
/// do not count towards its width.
pub fn print_table(header: &[&str], rows: &[Vec<Cell>]) {
    let rows: Vec<Vec<String>> = rows.iter().map(|row| row.iter().map(|cell| cell.0.clone()).collect()).collect();
    let colour = colour_on_stdout();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(visible_width(cell));
        }
    }
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    let line = render_row(&header, &widths);
    if colour {
        outln!("\x1b[1m{line}\x1b[0m");
    } else {
        outln!("{line}");
    }
    for row in &rows {
        outln!("{}", render_row(row, &widths));
    }
}

fn render_row(cells: &[String], widths: &[usize]) -> String {
    let last = cells.len().saturating_sub(1);
    let mut line = String::new();
    for (index, (cell, width)) in cells.iter().zip(widths).enumerate() {
        line.push_str(cell);
        if index < last {
            line.push_str(&" ".repeat(width - visible_width(cell) + 2));
        }
    }
    line
}

fn visible_width(cell: &str) -> usize {
    let mut width = 0;
    let mut in_escape = false;
    for c in cell.chars() {
        match (in_escape, c) {
            (false, '\x1b') => in_escape = true,
            (true, 'm') => in_escape = false,
            (true, _) => {}
            (false, _) => width += 1,
        }
    }
    width
}

/// A JSON array of JSON texts (each record's own `to_json()`).
pub fn json_array(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(","))
}

/// `HH:MM:SS` UTC of now, for event lines.
pub fn clock() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let day = secs % 86_400;
    format!("{:02}:{:02}:{:02}", day / 3600, (day % 3600) / 60, day % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b86_table_widths_ignore_colour() {
        assert_eq!(visible_width(&paint_status("successful", true)), "successful".len());
        assert_eq!(render_row(&["a".into(), "bb".into()], &[3, 2]), "a    bb");
    }

    #[test]
    fn b242_outside_text_is_escaped_in_cells_statuses_and_json() {
        assert_eq!(Cell::text("Bank\x1b[31m\u{9b}2J\n").0, "Bank\\u{001b}[31m\\u{009b}2J\\n");
        assert_eq!(paint_status("paid\x1b]0;owned\x07", true), "paid\\u{001b}]0;owned\\u{0007}");
        let json = serde_json::json!({ "name": "a\u{1b}b\u{9b}c\u{7f}\u{2028}" }).to_string();
        let shown = json_escaped(&json);
        assert_eq!(shown, r#"{"name":"a\u001bb\u009bc\u007f\u2028"}"#);
        let back: serde_json::Value = serde_json::from_str(&shown).expect("still JSON");
        assert_eq!(back["name"], "a\u{1b}b\u{9b}c\u{7f}\u{2028}", "the same data");
    }

    #[test]
    fn b243_credentials_of_a_url_are_never_shown() {
        assert_eq!(without_credentials("http://user:pa55@127.0.0.1:3000/hook"), "http://***@127.0.0.1:3000/hook");
        assert_eq!(without_credentials("https://tok@host/a@b?c=@"), "https://***@host/a@b?c=@");
        assert_eq!(without_credentials("http://127.0.0.1:3000/x@y"), "http://127.0.0.1:3000/x@y");
        assert_eq!(without_credentials("not a url"), "not a url");
    }
}
