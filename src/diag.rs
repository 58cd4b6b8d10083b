//! The only writer to stderr: `spill: …` error lines, warnings, notes, query carets, and the
//! escaping that keeps untrusted text from reaching a terminal as control sequences.

use std::io::{self, Write};

use crate::error::Error;

/// Writes `spill: MESSAGE` for an error; query errors add the query and a caret line.
pub fn error(err: &Error) {
    let mut text = format!("spill: {err}\n");
    if let Error::Query { query, offset, .. } = err {
        text.push_str(&caret_lines(query, *offset));
    }
    emit(&text);
}

/// Writes `spill: warning: MESSAGE`.
pub fn warning(msg: &str) {
    emit(&format!("spill: warning: {msg}\n"));
}

/// Writes `spill: note: MESSAGE`.
pub fn note(msg: &str) {
    emit(&format!("spill: note: {msg}\n"));
}

/// Writes a plain notice line (pagination footers such as `lines 1–200 of 48,213 · next: …`).
pub fn notice(msg: &str) {
    emit(&format!("{msg}\n"));
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
