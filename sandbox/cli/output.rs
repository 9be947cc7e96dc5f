//! What the commands print: aligned tables for people, JSON for machines, colour only on a
//! terminal and never with `NO_COLOR` set (no-color.org).

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

/// A status word, green when paid, red when not, yellow while pending (when colour is on).
pub fn paint_status(status: &str, colour: bool) -> String {
    let code = match status {
        "successful" => "32",
        "pending" => "33",
        "failed" | "abandoned" | "reversed" => "31",
        _ => return status.to_owned(),
    };
    if colour { format!("\x1b[{code}m{status}\x1b[0m") } else { status.to_owned() }
}

/// Prints rows under a header, each column as wide as its widest cell. Colour codes in a cell
/// do not count towards its width.
pub fn print_table(header: &[&str], rows: &[Vec<String>]) {
    let colour = colour_on_stdout();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
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
    for row in rows {
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
}
