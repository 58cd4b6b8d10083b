//! The only writer to stderr: `spill: …` error lines, warnings, notes, query carets, and the
//! escaping that keeps untrusted text from reaching a terminal as control sequences.
//!
//! Colour: the `spill:` prefix (and `warning:`/`note:`) is styled through anstream, which
//! decides from `--color` ([`set_color`]), `NO_COLOR`, `CLICOLOR_FORCE`, `TERM` and whether
//! stderr is a terminal. Messages are escaped before they get here, so stripping styles (when
//! colour is off) can never remove bytes that belong to the message.

use std::io::{self, Write};

use anstyle::{AnsiColor, Style};

use crate::error::Error;

const ERROR: Style = AnsiColor::Red.on_default().bold();
const WARNING: Style = AnsiColor::Yellow.on_default().bold();
const NOTE: Style = AnsiColor::Cyan.on_default().bold();
const PREFIX: Style = Style::new().bold();

/// Sets when human text is coloured, for this process: `Auto` colours only on a terminal (and
/// not with `NO_COLOR`); `Always` colours even through a pipe and despite `NO_COLOR`, as an
/// explicit `--color always` asks; `Never` never does. Called once, after the command line
/// parses. It also governs `search`'s highlights, which ask anstream the same question.
pub fn set_color(choice: anstream::ColorChoice) {
    choice.write_global();
}

/// Writes `spill: MESSAGE` for an error; query errors add the query and a caret line.
pub fn error(err: &Error) {
    let mut text = format!("{err}\n");
    if let Error::Query { query, offset, .. } = err {
        text.push_str(&caret_lines(query, *offset));
    }
    emit_prefixed(ERROR, None, &text);
}

/// Writes a usage error from the command-line parser: `spill: MESSAGE` (the text may span
/// several lines and already ends with a newline).
pub fn usage(text: &str) {
    // clap echoes the offending argument as typed: escape it like any untrusted text.
    emit_prefixed(ERROR, None, &escape_keep_newlines(text));
}

/// Writes `spill: MESSAGE` for an outcome that is not an error (extract selected nothing).
pub fn message(msg: &str) {
    emit_prefixed(PREFIX, None, &format!("{msg}\n"));
}

/// Writes `spill: warning: MESSAGE`.
pub fn warning(msg: &str) {
    emit_prefixed(PREFIX, Some(("warning:", WARNING)), &format!("{msg}\n"));
}

/// Writes `spill: note: MESSAGE`.
pub fn note(msg: &str) {
    emit_prefixed(PREFIX, Some(("note:", NOTE)), &format!("{msg}\n"));
}

/// Writes a plain notice line (pagination footers such as `lines 1–200 of 48,213 · next: …`).
pub fn notice(msg: &str) {
    emit(&format!("{msg}\n"));
}

/// `spill:` in `prefix_style`, then an optional styled word, then the (already escaped) body.
fn emit_prefixed(prefix_style: Style, word: Option<(&str, Style)>, body: &str) {
    let mut text = format!("{prefix_style}spill:{prefix_style:#} ");
    if let Some((word, style)) = word {
        text.push_str(&format!("{style}{word}{style:#} "));
    }
    text.push_str(body);
    // One write through anstream: it strips the styles unless colour is on for stderr.
    let mut err = anstream::AutoStream::auto(io::stderr().lock());
    let _ = err.write_all(text.as_bytes()).and_then(|_| err.flush());
}

/// The two lines under a query error: the query indented by two spaces, and a caret under the
/// character at byte `offset` (counted in characters so that multi-byte text lines up).
pub fn caret_lines(query: &str, offset: usize) -> String {
    let shown = escape(query);
    let mut cut = offset.min(query.len());
    while !query.is_char_boundary(cut) {
        cut -= 1;
    }
    let width = escape(&query[..cut]).chars().count();
    format!("  {shown}\n  {}^\n", " ".repeat(width))
}

/// Escapes control characters (C0, DEL, C1 — which includes ESC and the OSC introducer) so that
/// untrusted text cannot move the cursor, retitle the terminal or hide itself.
pub fn escape(text: &str) -> String {
    if !text.chars().any(is_unsafe) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe(c) => out.push_str(&format!("\\x{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Like [`escape`], for user input echoed in a message: longer than 200 characters, it is cut
/// there with a marker saying how long it was.
pub fn escape_echo(text: &str) -> String {
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        None => escape(text),
        Some((cut, _)) => format!(
            "{}… ({} characters in all)",
            escape(&text[..cut]),
            crate::limits::group_digits(text.chars().count() as u64)
        ),
    }
}

/// Like [`escape`], but keeps line breaks: for multi-line human text bound for a terminal.
pub fn escape_keep_newlines(text: &str) -> String {
    text.split('\n').map(escape).collect::<Vec<_>>().join("\n")
}

/// Escapes raw bytes: invalid UTF-8 becomes U+FFFD, then control characters are escaped.
pub fn escape_bytes(bytes: &[u8]) -> String {
    escape(&String::from_utf8_lossy(bytes))
}

fn is_unsafe(c: char) -> bool {
    c.is_control()
}

fn emit(text: &str) {
    // Nothing sensible can be done when stderr itself is gone.
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape("plain ünïcode"), "plain ünïcode");
        assert_eq!(escape("a\x1b]0;pwned\x07b"), "a\\x{1b}]0;pwned\\x{7}b");
        assert_eq!(escape("tab\there\n"), "tab\\there\\n");
        assert_eq!(escape("\u{9b}31m"), "\\x{9b}31m");
        assert_eq!(escape_bytes(b"a\xffb"), "a\u{fffd}b");
    }

    #[test]
    fn caret_points_at_the_offending_character() {
        assert_eq!(caret_lines("$.items[?", 9), "  $.items[?\n           ^\n");
        assert_eq!(caret_lines("$['é']x", 7), "  $['é']x\n        ^\n");
    }
}
