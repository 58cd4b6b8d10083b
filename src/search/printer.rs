//! Renders a [`SearchResult`]: grep-style text rows, the JSON object, counts and the footer.

use std::borrow::Cow;
use std::io::{self, Write};

use serde::Serialize;

use super::{CUT_MARKER, ContextLine, Match, PatternMode, SearchResult, Window};

/// How text output is decorated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextStyle {
    /// Highlight matches and line numbers with ANSI colours (only for a terminal).
    pub color: bool,
    /// Escape control characters of the (untrusted) source text (for a terminal).
    pub escape: bool,
    /// Print `--` between groups of lines (when context lines are shown, like grep).
    pub separators: bool,
}

const GREEN: &[u8] = b"\x1b[32m";
const BOLD_RED: &[u8] = b"\x1b[1;31m";
const RESET: &[u8] = b"\x1b[0m";

/// Writes one `LINE:COLUMN:text` row per match with `LINE-text` context rows: a line is
/// printed once, groups whose context touch merge, `--` separates the others.
pub fn write_text<W: Write>(
    out: &mut W,
    result: &SearchResult,
    style: TextStyle,
) -> io::Result<()> {
    // The last line number printed, to print each context line once.
    let mut printed: Option<u64> = None;
    let matches = &result.matches;
    for (i, m) in matches.iter().enumerate() {
        let next_line = matches.get(i + 1).map(|n| n.line);
        for ctx in &m.before {
            if printed.is_none_or(|p| ctx.line > p) {
                separate(out, &mut printed, ctx.line, style)?;
                write_context(out, ctx, style)?;
            }
        }
        separate(out, &mut printed, m.line, style)?;
        write_match(out, m, style)?;
        // After-context reaching the next match's line is that match's business.
        for ctx in m
            .after
            .iter()
            .filter(|c| next_line.is_none_or(|n| c.line < n))
        {
            if printed.is_none_or(|p| ctx.line > p) {
                separate(out, &mut printed, ctx.line, style)?;
                write_context(out, ctx, style)?;
            }
        }
    }
    Ok(())
}

/// Writes `--` when `line` does not continue the group printed last, then records it.
fn separate<W: Write>(
    out: &mut W,
    printed: &mut Option<u64>,
    line: u64,
    style: TextStyle,
) -> io::Result<()> {
    if style.separators && printed.is_some_and(|p| line > p + 1) {
        out.write_all(b"--\n")?;
    }
    *printed = Some(printed.map_or(line, |p| p.max(line)));
    Ok(())
}

fn write_match<W: Write>(out: &mut W, m: &Match, style: TextStyle) -> io::Result<()> {
    write_number(out, m.line, style)?;
    out.write_all(b":")?;
    write!(out, "{}:", m.column)?;
    write_window(out, &m.window, style)?;
    out.write_all(b"\n")
}

fn write_context<W: Write>(out: &mut W, ctx: &ContextLine, style: TextStyle) -> io::Result<()> {
    write_number(out, ctx.line, style)?;
    out.write_all(b"-")?;
    write_window(out, &ctx.window, style)?;
    out.write_all(b"\n")
}

fn write_number<W: Write>(out: &mut W, line: u64, style: TextStyle) -> io::Result<()> {
    if style.color {
        out.write_all(GREEN)?;
        write!(out, "{line}")?;
        out.write_all(RESET)
    } else {
        write!(out, "{line}")
    }
}

fn write_window<W: Write>(out: &mut W, w: &Window, style: TextStyle) -> io::Result<()> {
    if w.cut_start {
        out.write_all(CUT_MARKER.as_bytes())?;
    }
    let h = w.highlight.clone();
    let text = |out: &mut W, bytes: &[u8]| -> io::Result<()> {
        if style.escape {
            out.write_all(&escape_controls(bytes))
        } else {
            out.write_all(bytes)
        }
    };
    if style.color && !h.is_empty() {
        text(out, &w.bytes[..h.start])?;
        out.write_all(BOLD_RED)?;
        text(out, &w.bytes[h.clone()])?;
        out.write_all(RESET)?;
        text(out, &w.bytes[h.end..])?;
    } else {
        text(out, &w.bytes)?;
    }
    if w.cut_end {
        out.write_all(CUT_MARKER.as_bytes())?;
    }
    Ok(())
}

/// Replaces C0 controls (except tab), DEL and C1 controls (which include the one-byte CSI
/// and OSC) with `\xNN` / `\u{NN}` escapes, so source text cannot drive the terminal.
pub fn escape_controls(bytes: &[u8]) -> Cow<'_, [u8]> {
    let is_c1_at =
        |i: usize| bytes[i] == 0xc2 && bytes.get(i + 1).is_some_and(|b| (0x80..0xa0).contains(b));
    let unsafe_at = |i: usize| {
        let b = bytes[i];
        (b < 0x20 && b != b'\t') || b == 0x7f || is_c1_at(i)
    };
    if !(0..bytes.len()).any(unsafe_at) {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len() + 16);
    let mut i = 0;
    while i < bytes.len() {
        if is_c1_at(i) {
            out.extend_from_slice(format!("\\u{{{:02x}}}", bytes[i + 1]).as_bytes());
            i += 2;
        } else if unsafe_at(i) {
            out.extend_from_slice(format!("\\x{:02x}", bytes[i]).as_bytes());
            i += 1;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Cow::Owned(out)
}

/// The `--json` object (SPEC §6).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonPage {
    matches: Vec<JsonMatch>,
    total_matches: u64,
    offset: u64,
    limit: u64,
    has_more: bool,
    next_offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pattern_mode: Option<&'static str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    lossy: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonMatch {
    line: u64,
    column: u64,
    byte_offset: u64,
    text: String,
    text_start: usize,
    before: Vec<String>,
    after: Vec<String>,
}

/// Writes the `--json` object on one line. Text that is not UTF-8 is written with U+FFFD
/// and the object gets `"lossy": true`.
pub fn write_json<W: Write>(out: &mut W, result: &SearchResult) -> io::Result<()> {
    let mut lossy = false;
    let mut text = |w: &Window| -> String {
        let mut s = String::with_capacity(w.bytes.len() + 6);
        if w.cut_start {
            s.push_str(CUT_MARKER);
        }
        let decoded = String::from_utf8_lossy(&w.bytes);
        lossy |= matches!(decoded, Cow::Owned(_));
        s.push_str(&decoded);
        if w.cut_end {
            s.push_str(CUT_MARKER);
        }
        s
    };
    let matches = result
        .matches
        .iter()
        .map(|m| JsonMatch {
            line: m.line,
            column: m.column,
            byte_offset: m.byte_offset,
            text: text(&m.window),
            text_start: m.window.start,
            before: m.before.iter().map(|c| text(&c.window)).collect(),
            after: m.after.iter().map(|c| text(&c.window)).collect(),
        })
        .collect();
    let page = JsonPage {
        matches,
        total_matches: result.total_matches,
        offset: result.offset,
        limit: result.limit,
        has_more: result.has_more(),
        next_offset: result.next_offset(),
        pattern_mode: (result.pattern_mode == PatternMode::Literal).then_some("literal"),
        lossy,
    };
    serde_json::to_writer(&mut *out, &page)?;
    out.write_all(b"\n")
}

/// Writes the `--count` output: a bare integer, or `{"totalMatches":N}` with `json`.
pub fn write_count<W: Write>(out: &mut W, total: u64, json: bool) -> io::Result<()> {
    if json {
        writeln!(out, "{{\"totalMatches\":{total}}}")
    } else {
        writeln!(out, "{total}")
    }
}

/// The pagination notice for text output, e.g. `matches 21–40 of 342 · next: --offset 40`;
/// `None` when nothing matched.
pub fn footer(result: &SearchResult) -> Option<String> {
    let total = result.total_matches;
    if total == 0 {
        return None;
    }
    let shown = result.matches.len() as u64;
    if shown == 0 {
        return Some(format!(
            "no matches at --offset {} ({} in total) · first page: --offset 0",
            result.offset,
            group_digits(total)
        ));
    }
    let mut line = format!(
        "matches {}–{} of {}",
        group_digits(result.offset + 1),
        group_digits(result.offset + shown),
        group_digits(total)
    );
    if let Some(next) = result.next_offset() {
        line.push_str(&format!(" · next: --offset {next}"));
    }
    Some(line)
}

/// `1250` → `1,250`, the style of counts in prose.
fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_grouped() {
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1250), "1,250");
        assert_eq!(group_digits(1234567), "1,234,567");
    }

    #[test]
    fn controls_are_escaped() {
        assert_eq!(&*escape_controls(b"plain\ttext"), b"plain\ttext");
        assert_eq!(&*escape_controls(b"a\x1b]0;x\x07b"), br"a\x1b]0;x\x07b");
        assert_eq!(
            &*escape_controls("\u{9b}31m é".as_bytes()),
            br"\u{9b}31m "
                .iter()
                .chain("é".as_bytes())
                .copied()
                .collect::<Vec<u8>>()
                .as_slice()
        );
    }
}
