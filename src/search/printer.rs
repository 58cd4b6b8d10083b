//! Renders a [`SearchResult`]: grep-style text rows, the JSON object, counts and the footer.

use std::borrow::Cow;
use std::io::{self, Write};

use crate::limits::group_digits;
use crate::wire::{SearchCount, SearchMatch, SearchPage};

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
pub fn write_text<W: Write + ?Sized>(
    out: &mut W,
    result: &SearchResult,
    style: TextStyle,
) -> io::Result<()> {
    write_text_labelled(out, result, style, None)
}

/// [`write_text`] with every row labelled, as ripgrep labels rows with a file name:
/// `LABEL:LINE:COLUMN:text` for a match, `LABEL-LINE-text` for context (`search --all`
/// labels them with the ref).
pub fn write_text_labelled<W: Write + ?Sized>(
    out: &mut W,
    result: &SearchResult,
    style: TextStyle,
    label: Option<&str>,
) -> io::Result<()> {
    // The last line number printed, to print each context line once.
    let mut printed: Option<u64> = None;
    let matches = &result.matches;
    for (i, m) in matches.iter().enumerate() {
        let next_line = matches.get(i + 1).map(|n| n.line);
        for ctx in &m.before {
            if printed.is_none_or(|p| ctx.line > p) {
                separate(out, &mut printed, ctx.line, style)?;
                write_context(out, ctx, style, label)?;
            }
        }
        separate(out, &mut printed, m.line, style)?;
        write_match(out, m, style, label)?;
        // After-context reaching the next match's line is that match's business.
        for ctx in m
            .after
            .iter()
            .filter(|c| next_line.is_none_or(|n| c.line < n))
        {
            if printed.is_none_or(|p| ctx.line > p) {
                separate(out, &mut printed, ctx.line, style)?;
                write_context(out, ctx, style, label)?;
            }
        }
    }
    Ok(())
}

/// Writes `--` when `line` does not continue the group printed last, then records it.
fn separate<W: Write + ?Sized>(
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

fn write_match<W: Write + ?Sized>(
    out: &mut W,
    m: &Match,
    style: TextStyle,
    label: Option<&str>,
) -> io::Result<()> {
    if let Some(label) = label {
        write!(out, "{label}:")?;
    }
    write_number(out, m.line, style)?;
    out.write_all(b":")?;
    write!(out, "{}:", m.column)?;
    if let Some(path) = &m.path {
        // A key may hold any character: on a terminal the path is escaped like the text.
        if style.escape {
            out.write_all(crate::diag::escape(path).as_bytes())?;
        } else {
            out.write_all(path.as_bytes())?;
        }
        out.write_all(b":")?;
    }
    write_window(out, &m.window, style)?;
    out.write_all(b"\n")
}

fn write_context<W: Write + ?Sized>(
    out: &mut W,
    ctx: &ContextLine,
    style: TextStyle,
    label: Option<&str>,
) -> io::Result<()> {
    if let Some(label) = label {
        write!(out, "{label}-")?;
    }
    write_number(out, ctx.line, style)?;
    out.write_all(b"-")?;
    write_window(out, &ctx.window, style)?;
    out.write_all(b"\n")
}

fn write_number<W: Write + ?Sized>(out: &mut W, line: u64, style: TextStyle) -> io::Result<()> {
    if style.color {
        out.write_all(GREEN)?;
        write!(out, "{line}")?;
        out.write_all(RESET)
    } else {
        write!(out, "{line}")
    }
}

fn write_window<W: Write + ?Sized>(out: &mut W, w: &Window, style: TextStyle) -> io::Result<()> {
    if w.cut_start {
        out.write_all(CUT_MARKER.as_bytes())?;
    }
    let h = w.highlight.clone();
    let text = |out: &mut W, bytes: &[u8]| -> io::Result<()> {
        if style.escape {
            out.write_all(crate::diag::escape_bytes(bytes).as_bytes())
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

/// Writes the `--json` object on one line. Text that is not UTF-8 is written with U+FFFD
/// and the object gets `"lossy": true`; `notes` (what would otherwise be `spill: note:` lines)
/// go in a `"notes"` array.
pub fn write_json<W: Write + ?Sized>(
    out: &mut W,
    result: &SearchResult,
    notes: &[String],
) -> io::Result<()> {
    let mut lossy = false;
    let matches = json_matches(result, None, &mut lossy);
    let page = SearchPage {
        matches,
        total_matches: result.total_matches,
        offset: result.offset,
        limit: result.limit,
        has_more: result.has_more(),
        next_offset: result.next_offset(),
        pattern_mode: (result.pattern_mode == PatternMode::Literal).then_some("literal"),
        lossy,
        notes: notes.to_vec(),
        skipped_lines: result.skipped_lines,
        ..SearchPage::default()
    };
    serde_json::to_writer(&mut *out, &page)?;
    out.write_all(b"\n")
}

/// The `--json` matches of a page, each with `reference` as its `ref` (`search --all`);
/// `lossy` is set when text that is not UTF-8 was written with U+FFFD.
pub fn json_matches(
    result: &SearchResult,
    reference: Option<&str>,
    lossy: &mut bool,
) -> Vec<SearchMatch> {
    let mut text = |w: &Window| -> String {
        let mut s = String::with_capacity(w.bytes.len() + 6);
        if w.cut_start {
            s.push_str(CUT_MARKER);
        }
        let decoded = String::from_utf8_lossy(&w.bytes);
        *lossy |= matches!(decoded, Cow::Owned(_));
        s.push_str(&decoded);
        if w.cut_end {
            s.push_str(CUT_MARKER);
        }
        s
    };
    result
        .matches
        .iter()
        .map(|m| SearchMatch {
            reference: reference.map(str::to_string),
            line: m.line,
            column: m.column,
            byte_offset: m.byte_offset,
            path: m.path.clone(),
            in_key: m.in_key,
            text: text(&m.window),
            text_start: m.window.start,
            before: m.before.iter().map(|c| text(&c.window)).collect(),
            after: m.after.iter().map(|c| text(&c.window)).collect(),
        })
        .collect()
}

/// Writes the `--count` output: a bare integer, or `{"totalMatches":N}` with `json`.
pub fn write_count<W: Write + ?Sized>(out: &mut W, total: u64, json: bool) -> io::Result<()> {
    if json {
        write_count_json(out, total, PatternMode::Regex)
    } else {
        writeln!(out, "{total}")
    }
}

/// Writes the `--count --json` object on one line: `{"totalMatches":N}`, with
/// `"patternMode":"literal"` when a pattern fell back to a literal search.
pub fn write_count_json<W: Write + ?Sized>(
    out: &mut W,
    total: u64,
    mode: PatternMode,
) -> io::Result<()> {
    let count = SearchCount {
        total_matches: total,
        pattern_mode: (mode == PatternMode::Literal).then_some("literal"),
    };
    serde_json::to_writer(&mut *out, &count)?;
    out.write_all(b"\n")
}

/// The pagination notice for text output, e.g. `matches 21–40 of 342 · next: --offset 40`;
/// `None` when nothing matched.
pub fn footer(result: &SearchResult) -> Option<String> {
    let total = result.total_matches;
    if total == 0 {
        return None;
    }
    let shown = result.matches.len() as u64;
    if shown == 0 && result.offset < total {
        // Only `--limit 0` shows nothing before the end.
        return Some(format!(
            "{} matches in total; none shown (--limit 0)",
            group_digits(total)
        ));
    }
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
        // A page shorter than its limit with matches after it was ended by the byte bound.
        if shown < result.limit {
            line.push_str(" (the page reached --max-bytes)");
        }
        line.push_str(&format!(" · next: --offset {next}"));
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Page, Pattern, PatternOptions, search_slice};

    fn search(text: &str, pattern: &str, page: Page) -> SearchResult {
        let options = PatternOptions {
            patterns: vec![pattern.to_string()],
            ..Default::default()
        };
        search_slice(text.as_bytes(), &Pattern::new(&options).unwrap(), &page).unwrap()
    }

    fn text(result: &SearchResult, style: TextStyle) -> String {
        let mut out = Vec::new();
        write_text(&mut out, result, style).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn context(n: usize) -> Page {
        Page {
            before_context: n,
            after_context: n,
            ..Page::default()
        }
    }

    const PLAIN: TextStyle = TextStyle {
        color: false,
        escape: false,
        separators: true,
    };

    #[test]
    fn groups_merge_and_separate() {
        let source = "a\nx1\nb\nx2 x3\nc\nd\ne\nf\nx4\ng\n";
        let r = search(source, "x", context(1));
        assert_eq!(
            text(&r, PLAIN),
            "1-a\n2:1:x1\n3-b\n4:1:x2 x3\n4:4:x2 x3\n5-c\n--\n8-f\n9:1:x4\n10-g\n"
        );
    }

    #[test]
    fn without_context_there_are_no_separators() {
        let r = search("x\na\nb\nx\n", "x", Page::default());
        let style = TextStyle {
            separators: false,
            ..PLAIN
        };
        assert_eq!(text(&r, style), "1:1:x\n4:1:x\n");
    }

    #[test]
    fn colour_marks_line_numbers_and_the_match_and_escaping_neutralises_controls() {
        let r = search("say \x1b]0;hi\x07 err\n", "err", Page::default());
        let style = TextStyle {
            color: true,
            escape: true,
            separators: false,
        };
        assert_eq!(
            text(&r, style),
            "\x1b[32m1\x1b[0m:13:say \\x{1b}]0;hi\\x{7} \x1b[1;31merr\x1b[0m\n"
        );
    }

    #[test]
    fn json_carries_windows_and_pagination() {
        let line = format!("{}needle{}", "é".repeat(400), "z".repeat(400));
        let r = search(
            &format!("{line}\nneedle\n"),
            "needle",
            Page {
                limit: 1,
                ..context(1)
            },
        );
        let mut out = Vec::new();
        write_json(&mut out, &r, &[]).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let m = &v["matches"][0];
        assert_eq!(m["line"], 1);
        assert_eq!(m["column"], 801);
        assert_eq!(m["byteOffset"], 800);
        let shown = m["text"].as_str().unwrap();
        assert!(shown.starts_with("…é") && shown.ends_with("z…") && shown.contains("needle"));
        assert_eq!(shown.chars().count(), 302);
        assert_eq!(m["textStart"], 800 - 147 * 2);
        assert_eq!(m["after"], serde_json::json!(["needle"]));
        assert_eq!(v["totalMatches"], 2);
        assert_eq!(v["hasMore"], true);
        assert_eq!(v["nextOffset"], 1);
        assert!(v.get("patternMode").is_none() && v.get("lossy").is_none());
    }

    #[test]
    fn json_is_utf8_and_says_when_it_is_lossy() {
        let options = PatternOptions {
            patterns: vec!["x".into()],
            ..Default::default()
        };
        let r = search_slice(
            b"\xffx\n",
            &Pattern::new(&options).unwrap(),
            &Page::default(),
        )
        .unwrap();
        let mut out = Vec::new();
        write_json(&mut out, &r, &[]).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["matches"][0]["text"], "\u{fffd}x");
        assert_eq!(v["lossy"], true);
    }

    #[test]
    fn footers_say_where_the_page_is_and_how_to_go_on() {
        let source = "x\n".repeat(342);
        let page = |offset| Page {
            offset,
            ..Page::default()
        };
        assert_eq!(
            footer(&search(&source, "x", page(20))).unwrap(),
            "matches 21–40 of 342 · next: --offset 40"
        );
        assert_eq!(
            footer(&search("x\nx\nx\n", "x", page(0))).unwrap(),
            "matches 1–3 of 3"
        );
        assert!(footer(&search("y\n", "x", page(0))).is_none());
        let none = Page {
            limit: 0,
            ..page(0)
        };
        assert_eq!(
            footer(&search(&source, "x", none)).unwrap(),
            "342 matches in total; none shown (--limit 0)"
        );
        assert_eq!(
            footer(&search("x\n", "x", page(5))).unwrap(),
            "no matches at --offset 5 (1 in total) · first page: --offset 0"
        );
    }
}
