//! The only writer to stderr: `spill: …` error lines, warnings, notes, query carets, and the
//! escaping that keeps untrusted text from reaching a terminal as control sequences.
//!
//! Restricted mode: once [`hide_paths`] is called, every message is passed through
//! [`without_paths`] on its way out, so no warning or error names a file-system path, whichever
//! layer wrote it.
//!
//! Colour: the `spill:` prefix (and `warning:`/`note:`) is styled through anstream, which
//! decides from `--color` ([`set_color`]), `NO_COLOR`, `CLICOLOR_FORCE`, `TERM` and whether
//! stderr is a terminal. Messages are escaped before they get here, so stripping styles (when
//! colour is off) can never remove bytes that belong to the message.

use std::io::{self, Write};
use std::sync::OnceLock;

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
    // clap echoes the offending argument as typed: escape it like any untrusted text, and cut
    // its lines (only an echoed value makes one long) like any echo.
    let lines: Vec<String> = escape_keep_newlines(text)
        .split('\n')
        .map(|line| cut(line, 2 * ECHO_MAX))
        .collect();
    emit_prefixed(ERROR, None, &lines.join("\n"));
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

/// The directories whose names restricted mode hides (longest first); set once by
/// [`hide_paths`]. Unset: messages are written as they are.
static HIDDEN: OnceLock<Vec<String>> = OnceLock::new();

/// Turns on restricted mode's path hiding for the rest of the process: from now on every
/// message is written through [`without_paths`]. `known` are the directories a message could
/// name (the store root, `TMPDIR`, the working directory, ...): they are hidden whole even when
/// they hold spaces, which the general rule would cut at. Only absolute ones are kept: a
/// relative directory is shown joined to the working directory, and a bare word such as
/// `store` must not hide the word everywhere.
pub fn hide_paths(known: impl IntoIterator<Item = String>) {
    let mut known: Vec<String> = known
        .into_iter()
        .flat_map(|k| [escape(&k), k])
        .map(|k| k.trim_end_matches('/').to_string())
        .filter(|k| k.starts_with('/') && k.len() > 1)
        .collect();
    known.sort_by_key(|k| std::cmp::Reverse(k.len()));
    known.dedup();
    let _ = HIDDEN.set(known);
}

/// True once [`hide_paths`] was called (restricted mode).
pub fn hiding_paths() -> bool {
    HIDDEN.get().is_some()
}

/// `text` with every file-system path replaced by `<path>`: each of the directories given to
/// [`hide_paths`] and whatever follows it up to the next space or quote, and every word that
/// starts with `/`, `./`, `../` or `~/` (a word starts the text or follows a space, a quote, `(`,
/// `[`, `=` or `,`). Punctuation that ends the sentence (`:`, `,`, `;`, `.`) is kept.
pub fn without_paths(text: &str) -> String {
    hide_among(text, HIDDEN.get().map(Vec::as_slice).unwrap_or(&[]))
}

/// [`without_paths`] with these directories (longest first) hidden whole.
fn hide_among(text: &str, known: &[String]) -> String {
    let starts_word = |i: usize| {
        text[..i]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || "\"'([=,".contains(c))
    };
    let ends_path = |c: char| c.is_whitespace() || "\"')]".contains(c);
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        let rest = &text[i..];
        let known_len = known
            .iter()
            .find(|k| rest.starts_with(k.as_str()))
            .map(|k| k.len());
        let general = ["/", "./", "../", "~/"].iter().any(|p| {
            rest.strip_prefix(p)
                .and_then(|after| after.chars().next())
                .is_some_and(|next| !ends_path(next))
        });
        if (known_len.is_some() || general) && starts_word(i) {
            let floor = i + known_len.unwrap_or(1);
            let mut end = floor + text[floor..].find(ends_path).unwrap_or(text.len() - floor);
            while end > floor && text[..end].ends_with([':', ',', ';', '.']) {
                end -= 1;
            }
            out.push_str("<path>");
            i = end;
            continue;
        }
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// `spill:` in `prefix_style`, then an optional styled word, then the (already escaped) body.
fn emit_prefixed(prefix_style: Style, word: Option<(&str, Style)>, body: &str) {
    let mut text = format!("{prefix_style}spill:{prefix_style:#} ");
    if let Some((word, style)) = word {
        text.push_str(&format!("{style}{word}{style:#} "));
    }
    // Paths are hidden before lines are cut, so a cut never leaves half a path behind.
    let body = match hiding_paths() {
        true => without_paths(body),
        false => body.to_string(),
    };
    for line in body.split_inclusive('\n') {
        match line.strip_suffix('\n') {
            Some(l) => {
                text.push_str(&cut(l, LINE_MAX));
                text.push('\n');
            }
            None => text.push_str(&cut(line, LINE_MAX)),
        }
    }
    // One write through anstream: it strips the styles unless colour is on for stderr.
    let choice = anstream::AutoStream::choice(&io::stderr());
    let mut styled = anstream::AutoStream::new(Vec::new(), choice);
    let _ = styled.write_all(text.as_bytes());
    write_stderr(&styled.into_inner());
}

/// Messages held back while a pager shows stdout (see `output`), in order.
static HELD: std::sync::Mutex<Vec<u8>> = std::sync::Mutex::new(Vec::new());

/// Writes to stderr, or holds the bytes back while a pager runs.
fn write_stderr(bytes: &[u8]) {
    crate::output::count_stderr(bytes.len());
    if crate::output::paging()
        && let Ok(mut held) = HELD.lock()
    {
        held.extend_from_slice(bytes);
        return;
    }
    // Nothing sensible can be done when stderr itself is gone.
    let _ = io::stderr().lock().write_all(bytes);
}

/// Writes the messages held back while a pager ran (called once it has exited).
pub fn release_held() {
    let held = HELD
        .lock()
        .map(|mut h| std::mem::take(&mut *h))
        .unwrap_or_default();
    if !held.is_empty() {
        let _ = io::stderr().lock().write_all(&held);
    }
}

/// The two lines under a query error: the query indented by two spaces, and a caret under the
/// character at byte `offset` (counted in characters so that multi-byte text lines up). A query
/// longer than [`ECHO_MAX`] characters is shown as that many characters around the caret, with
/// `…` where it is cut.
pub fn caret_lines(query: &str, offset: usize) -> String {
    let shown: Vec<char> = escape(query).chars().collect();
    let mut cut = offset.min(query.len());
    while !query.is_char_boundary(cut) {
        cut -= 1;
    }
    let width = escape(&query[..cut]).chars().count();
    if shown.len() <= ECHO_MAX {
        let shown: String = shown.into_iter().collect();
        return format!("  {shown}\n  {}^\n", " ".repeat(width));
    }
    let hi = (width.saturating_sub(ECHO_MAX / 2) + ECHO_MAX).min(shown.len());
    let lo = hi - ECHO_MAX;
    let mut line: String = if lo > 0 { "…".into() } else { String::new() };
    line.extend(&shown[lo..hi]);
    if hi < shown.len() {
        line.push('…');
    }
    let column = width - lo + usize::from(lo > 0);
    format!("  {line}\n  {}^\n", " ".repeat(column))
}

/// Input echoed in a message (a query, a pattern, a path, a value) shows at most this many
/// characters: a 1 MB query must not become 1 MB on stderr.
pub const ECHO_MAX: usize = 200;

/// No line of a message is longer than this many characters, whatever it holds.
pub const LINE_MAX: usize = 4096;

/// Escapes untrusted text for a message and cuts it to [`ECHO_MAX`] characters: the beginning
/// and the end around `…[+N chars]…` (the end of a path names the file).
pub fn echo(text: &str) -> String {
    cut(&escape(text), ECHO_MAX)
}

/// `text` when it has at most `max` characters, else its first three fifths and last two
/// fifths of `max` around a marker counting what was left out (no escaping: see [`echo`]).
pub fn cut(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let head = max * 3 / 5;
    let tail = max - head;
    let end: String = {
        let mut rev: Vec<char> = text.chars().rev().take(tail).collect();
        rev.reverse();
        rev.into_iter().collect()
    };
    let start: String = text.chars().take(head).collect();
    format!(
        "{start}…[+{} chars]…{end}",
        crate::limits::group_digits((count - max) as u64)
    )
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
    let text = match hiding_paths() {
        true => without_paths(text),
        false => text.to_string(),
    };
    write_stderr(text.as_bytes());
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
    fn paths_are_hidden_but_the_message_stays() {
        for (text, want) in [
            (
                "cannot write /tmp/s/default/.tmp-1: no space left on device",
                "cannot write <path>: no space left on device",
            ),
            (
                "unsafe store root /r/x: it is writable (fix: chmod 700 /r/x); set SPILL_DIR",
                "unsafe store root <path>: it is writable (fix: chmod 700 <path>); set SPILL_DIR",
            ),
            (
                r#"not "/etc/passwd" or '../x'"#,
                r#"not "<path>" or '<path>'"#,
            ),
            (
                "SPILL_DIR=./rel, then ~/x.",
                "SPILL_DIR=<path>, then <path>.",
            ),
            // Not paths: a fraction, a URL, a pair of words, a lone slash.
            (
                "1/3 of text/plain at https://x.y/z, a / b",
                "1/3 of text/plain at https://x.y/z, a / b",
            ),
        ] {
            assert_eq!(without_paths(text), want, "{text}");
        }
        let known = ["/tmp/my dir".to_string()];
        assert_eq!(
            hide_among("cannot open /tmp/my dir/spill-1/x.meta: denied", &known),
            "cannot open <path>: denied"
        );
    }

    #[test]
    fn caret_points_at_the_offending_character() {
        assert_eq!(caret_lines("$.items[?", 9), "  $.items[?\n           ^\n");
        assert_eq!(caret_lines("$['é']x", 7), "  $['é']x\n        ^\n");
    }

    #[test]
    fn long_queries_are_shown_around_the_caret() {
        let query = format!("$.{}[?{}", "a".repeat(5000), "b".repeat(5000));
        let offset = 5003;
        let lines = caret_lines(&query, offset);
        let (shown, caret) = lines.trim_end().split_once('\n').unwrap();
        assert_eq!(shown.chars().count(), 2 + ECHO_MAX + 2, "{shown}");
        let column = caret.chars().count() - 1;
        assert_eq!(shown.chars().nth(column), Some('?'));
        assert!(shown.starts_with("  …") && shown.ends_with('…'));
        // At the very end, only the start is cut.
        let lines = caret_lines(&query, query.len());
        let (shown, caret) = lines.trim_end().split_once('\n').unwrap();
        assert!(shown.starts_with("  …") && !shown.ends_with('…'));
        assert_eq!(caret.chars().count(), shown.chars().count() + 1);
    }

    #[test]
    fn echoed_input_is_cut_in_the_middle() {
        assert_eq!(echo("short\x1b"), "short\\x{1b}");
        let long = format!("{}{}", "h".repeat(1000), "t".repeat(1000));
        let shown = echo(&long);
        assert_eq!(
            shown,
            format!("{}…[+1,800 chars]…{}", "h".repeat(120), "t".repeat(80))
        );
    }
}
