//! The text preview of an envelope: head and tail lines within a byte budget, cut on line and
//! character boundaries; a giant line shown as its beginning and end around a marker; ANSI
//! stripped, progress frames collapsed and runs of identical lines collapsed.

use super::analyze::TextFacts;
use super::clean::clean_line;
use super::{ceil_char_boundary, floor_char_boundary};
use crate::limits::group_digits;
pub use crate::wire::preview::TextPreview;

/// How much preview to show.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Bytes (as JSON) for the head lines.
    pub head_bytes: usize,
    /// Bytes (as JSON) for the tail lines.
    pub tail_bytes: usize,
    /// Show exactly this many head lines instead (`--head-lines`).
    pub head_lines: Option<usize>,
    /// Show exactly this many tail lines instead (`--tail-lines`).
    pub tail_lines: Option<usize>,
}

/// The JSON cost of one preview line: its escaped form plus a separating comma.
fn cost(text: &str) -> usize {
    serde_json::to_string(text).map_or(text.len() + 2, |s| s.len()) + 1
}

fn repeat_marker(times: u64) -> String {
    let unit = if times == 1 { "time" } else { "times" };
    format!("… previous line repeated {} {unit}", group_digits(times))
}

/// One preview entry under construction: a cleaned line and how often it repeats.
struct Run {
    text: String,
    count: u64,
}

/// Accumulates runs within a budget.
struct Collector {
    runs: Vec<Run>,
    used: usize,
    lossy: bool,
}

impl Collector {
    fn new() -> Collector {
        Collector {
            runs: Vec::new(),
            used: 0,
            lossy: false,
        }
    }

    /// Offers a cleaned line; false when it does not fit (nothing is taken then). With
    /// `max_runs` (`--head-lines`/`--tail-lines`) the byte budget is ignored and at most that
    /// many distinct entries are shown; repeats of the last one still collapse into it.
    fn offer(&mut self, cleaned: &[u8], budget: usize, max_runs: Option<usize>) -> bool {
        let ignore_budget = max_runs.is_some();
        let text = String::from_utf8_lossy(cleaned);
        if let Some(last) = self.runs.last_mut()
            && last.text == text
        {
            // The first repeat adds the marker line; later ones only change its number.
            let extra = if last.count == 1 {
                cost(&repeat_marker(u64::MAX))
            } else {
                0
            };
            if !ignore_budget && self.used + extra > budget {
                return false;
            }
            self.used += extra;
            last.count += 1;
            return true;
        }
        let c = cost(&text);
        let too_many = max_runs.is_some_and(|n| self.runs.len() >= n);
        if too_many || (!ignore_budget && self.used + c > budget) {
            return false;
        }
        self.lossy |= matches!(text, std::borrow::Cow::Owned(_));
        self.used += c;
        self.runs.push(Run {
            text: text.into_owned(),
            count: 1,
        });
        true
    }

    fn lines(runs: impl Iterator<Item = Run>) -> Vec<String> {
        let mut out = Vec::new();
        for run in runs {
            out.push(run.text);
            if run.count > 1 {
                out.push(repeat_marker(run.count - 1));
            }
        }
        out
    }
}

/// A giant line shown as beginning `…[+N chars]…` end within `budget` bytes.
fn window(begin: &[u8], end: &[u8], total_chars: u64, budget: usize) -> (String, bool) {
    let half = budget.saturating_sub(24) / 2;
    let shown_begin = &begin[..floor_char_boundary(begin, half.min(begin.len()))];
    if super::char_count(shown_begin) as u64 >= total_chars {
        // The beginning already holds the whole line: show it once, without a marker.
        let b = clean_line(shown_begin);
        return (
            String::from_utf8_lossy(&b).into_owned(),
            std::str::from_utf8(&b).is_err(),
        );
    }
    let b = clean_line(shown_begin);
    let e_start = ceil_char_boundary(end, end.len().saturating_sub(half));
    let e = clean_line(&end[e_start..]);
    let shown = (super::char_count(&begin[..floor_char_boundary(begin, half.min(begin.len()))])
        + super::char_count(&end[e_start..])) as u64;
    let lossy = std::str::from_utf8(&b).is_err() || std::str::from_utf8(&e).is_err();
    let marker = format!(
        "…[+{} chars]…",
        group_digits(total_chars.saturating_sub(shown))
    );
    (
        format!(
            "{}{marker}{}",
            String::from_utf8_lossy(&b),
            String::from_utf8_lossy(&e)
        ),
        lossy,
    )
}

/// The first lines the head looks through for where a table starts.
const STRUCTURE_LINES: usize = 64;
/// Consecutive lines of one row template that make a table.
const TABLE_ROWS: usize = 3;

/// The head's budget adapted to where the output's structure changes (README, Preview split):
/// when a prelude (other lines) is followed by a table (three or more lines of one row
/// template, [`super::rank::table_key`]) whose header and first two rows lie past
/// the head's share, the head grows to show them, taking at most half of the tail's share.
/// Otherwise, and with `--head-lines`/`--tail-lines`, the budget stays as it is.
fn adapt(f: &TextFacts, budget: Budget) -> Budget {
    if budget.head_lines.is_some() || budget.tail_lines.is_some() {
        return budget;
    }
    let mut keys = Vec::new();
    let mut costs = Vec::new();
    let mut rest = &f.head[..];
    while keys.len() < STRUCTURE_LINES
        && let Some(i) = memchr::memchr(b'\n', rest)
    {
        let cleaned = clean_line(&rest[..i]);
        keys.push(super::rank::table_key(&cleaned));
        costs.push(cost(&String::from_utf8_lossy(&cleaned)));
        rest = &rest[i + 1..];
    }
    let Some(k) = (1..keys.len().saturating_sub(TABLE_ROWS - 1)).find(|&k| {
        keys[k] != 0
            && keys[k..k + TABLE_ROWS].iter().all(|&r| r == keys[k])
            && keys[..k].iter().all(|&r| r != keys[k])
    }) else {
        return budget;
    };
    let need: usize = costs[..k + 2].iter().sum();
    let extra = need.saturating_sub(budget.head_bytes);
    if extra == 0 || extra > budget.tail_bytes / 2 {
        return budget;
    }
    Budget {
        head_bytes: need,
        tail_bytes: budget.tail_bytes - extra,
        ..budget
    }
}

/// Renders the preview of analyzed text within `budget`.
pub fn render(f: &TextFacts, budget: Budget) -> TextPreview {
    let budget = adapt(f, budget);
    let whole_in_head = f.head.len() as u64 == f.size;
    // Head: whole lines from the start.
    let mut head = Collector::new();
    let mut head_lines = 0u64;
    let mut head_end = 0usize;
    while head_end < f.head.len() {
        let rest = &f.head[head_end..];
        let (line, next) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], head_end + i + 1),
            None if whole_in_head => (rest, f.head.len()),
            None => (rest, usize::MAX),
        };
        let complete = next != usize::MAX;
        let cleaned = clean_line(line);
        if complete && head.offer(&cleaned, budget.head_bytes, budget.head_lines) {
            head_lines += 1;
            head_end = next;
            continue;
        }
        if head_lines == 0 {
            // The first line does not fit: show it as a window and let it count as shown.
            let line_end = f.first_line_end;
            let end_bytes = f.bytes_before(line_end);
            let (text, lossy) = window(
                line,
                end_bytes,
                f.first_line_chars,
                budget.head_bytes.max(64),
            );
            head.lossy |= lossy;
            head.runs.push(Run { text, count: 1 });
            head_lines = 1;
            head_end = line_end.map_or(f.size, |e| e + 1).min(f.size) as usize;
        }
        break;
    }
    let head_end = head_end as u64;

    // Tail: whole lines from the end, never reaching into the head.
    let mut tail = Collector::new();
    let mut tail_lines = 0u64;
    let mut tail_start = f.size;
    let t = &f.tail;
    let mut cursor = t.len();
    if t.ends_with(b"\n") {
        cursor -= 1;
    }
    while f.tail_offset + (cursor as u64) > head_end || (cursor == t.len() && f.size > head_end) {
        let found = memchr::memrchr(b'\n', &t[..cursor]);
        let start = match found {
            Some(i) => i + 1,
            None if f.tail_offset == 0 => 0,
            None => usize::MAX,
        };
        let complete = start != usize::MAX && f.tail_offset + start as u64 >= head_end;
        if complete {
            let line = &t[start..cursor];
            if tail.offer(&clean_line(line), budget.tail_bytes, budget.tail_lines) {
                tail_lines += 1;
                tail_start = f.tail_offset + start as u64;
                if start == 0 {
                    break;
                }
                cursor = start - 1;
                continue;
            }
        }
        if tail_lines == 0 && f.last_line_start >= head_end {
            // The last line does not fit (or starts before what was kept): window it.
            // Both ends hold the last line only: never its newline, never earlier lines.
            let begin = f.bytes_from(f.last_line_start);
            let begin = &begin[..memchr::memchr(b'\n', begin).unwrap_or(begin.len())];
            let line_rel = f.last_line_start.saturating_sub(f.tail_offset) as usize;
            let end = &t[line_rel.min(cursor)..cursor];
            let (text, lossy) = window(begin, end, f.last_line_chars, budget.tail_bytes.max(64));
            tail.lossy |= lossy;
            tail.runs.push(Run { text, count: 1 });
            tail_lines = 1;
            tail_start = f.last_line_start;
        }
        break;
    }
    tail.runs.reverse();
    let omitted_lines = f.lines.saturating_sub(head_lines + tail_lines);
    TextPreview {
        head: Collector::lines(head.runs.into_iter()),
        tail: Collector::lines(tail.runs.into_iter()),
        omitted_lines,
        omitted_bytes: tail_start.saturating_sub(head_end),
        head_line_count: head_lines,
        tail_first_line: f.lines - tail_lines + 1,
        head_end,
        lossy: head.lossy || tail.lossy,
    }
}

impl TextFacts {
    /// The kept bytes just before `end` (or before the end of input), from the tail buffer.
    fn bytes_before(&self, end: Option<u64>) -> &[u8] {
        let end = end.unwrap_or(self.size);
        if end <= self.head.len() as u64 {
            return &self.head[..end as usize];
        }
        match end.checked_sub(self.tail_offset) {
            Some(rel) if rel as usize <= self.tail.len() => &self.tail[..rel as usize],
            _ => &[],
        }
    }

    /// The kept bytes from `start` on (head or tail buffer).
    fn bytes_from(&self, start: u64) -> &[u8] {
        if start >= self.tail_offset {
            &self.tail[(start - self.tail_offset) as usize..]
        } else if start < self.head.len() as u64 {
            &self.head[start as usize..]
        } else {
            &[]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::analyze::analyze;

    fn budget(head: usize, tail: usize) -> Budget {
        Budget {
            head_bytes: head,
            tail_bytes: tail,
            head_lines: None,
            tail_lines: None,
        }
    }

    #[test]
    fn head_and_tail_keep_the_first_and_last_lines() {
        let text: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
        let f = analyze(text.as_bytes(), 4096);
        let p = render(&f, budget(60, 120));
        assert_eq!(p.head.first().unwrap(), "line 1");
        assert_eq!(p.tail.last().unwrap(), "line 1000");
        assert_eq!(
            p.omitted_lines,
            1000 - p.head.len() as u64 - p.tail.len() as u64
        );
        let shown: usize = p.head.iter().chain(&p.tail).map(|l| l.len() + 1).sum();
        assert_eq!(p.omitted_bytes as usize, text.len() - shown);
        assert_eq!(p.tail_first_line, 1000 - p.tail.len() as u64 + 1);
    }

    #[test]
    fn small_inputs_are_shown_whole_without_overlap() {
        let f = analyze(b"a\nb\nc\n", 4096);
        let p = render(&f, budget(1000, 2000));
        assert_eq!(p.head, vec!["a", "b", "c"]);
        assert!(p.tail.is_empty());
        assert_eq!((p.omitted_lines, p.omitted_bytes), (0, 0));
    }

    #[test]
    fn repeats_ansi_and_progress_frames_collapse() {
        let mut text = String::from("\x1b[1mstart\x1b[0m\n");
        for _ in 0..342 {
            text.push_str("same\n");
        }
        text.push_str("10%\r50%\r100%\n");
        let f = analyze(text.as_bytes(), 1 << 16);
        let p = render(&f, budget(2000, 2000));
        assert_eq!(
            p.head,
            vec![
                "start",
                "same",
                "… previous line repeated 341 times",
                "100%"
            ]
        );
    }

    #[test]
    fn a_giant_single_line_is_windowed_on_character_boundaries() {
        let line = "日本語".repeat(100_000);
        let f = analyze(line.as_bytes(), 4096);
        let p = render(&f, budget(300, 600));
        assert_eq!(p.head.len(), 1);
        assert!(p.tail.is_empty());
        let shown = &p.head[0];
        assert!(shown.starts_with("日本語"), "{shown}");
        assert!(shown.ends_with("日本語"), "{shown}");
        assert!(shown.contains("…[+"), "{shown}");
        assert!(shown.len() < 400);
        assert!(!p.lossy);
    }

    #[test]
    fn a_giant_last_line_is_windowed_in_the_tail() {
        let mut text = b"first\nsecond\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 100_000));
        text.extend_from_slice(b"END");
        let f = analyze(&text, 4096);
        let p = render(&f, budget(100, 300));
        assert_eq!(p.head, vec!["first", "second"]);
        assert_eq!(p.tail.len(), 1);
        assert!(p.tail[0].ends_with("END"), "{}", p.tail[0]);
        assert!(p.tail[0].contains("…[+99,"), "{}", p.tail[0]);
        assert_eq!(p.omitted_lines, 0);
    }

    #[test]
    fn explicit_line_counts_override_the_split() {
        let text: String = (1..=100).map(|i| format!("{i}\n")).collect();
        let f = analyze(text.as_bytes(), 4096);
        let p = render(
            &f,
            Budget {
                head_bytes: 10,
                tail_bytes: 10,
                head_lines: Some(3),
                tail_lines: Some(2),
            },
        );
        assert_eq!(p.head, vec!["1", "2", "3"]);
        assert_eq!(p.tail, vec!["99", "100"]);
        assert_eq!(p.omitted_lines, 95);
    }

    #[test]
    fn the_head_reaches_a_table_just_past_a_prelude() {
        let mut text = String::new();
        for i in 0..12 {
            text.push_str(&format!(
                "2026-12-01 INFO job: loading batch {i} of the nightly run\n"
            ));
        }
        text.push_str("   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n");
        text.push_str("        1    0.486    0.486    0.486    0.486 job.py:6(slow_dedupe)\n");
        for i in 0..400 {
            text.push_str(&format!(
                "     {i:4}    0.0{}    0.000    0.000    0.000 mod.py:{i}(helper_{i})\n",
                i % 10
            ));
        }
        let f = analyze(text.as_bytes(), 1 << 20);
        let p = render(&f, budget(680, 1360));
        assert!(
            p.head.iter().any(|l| l.contains("slow_dedupe")),
            "{:?}",
            p.head
        );
        assert!(p.head.len() >= 15, "{:?}", p.head);
        // With no table after it, a long prelude keeps the head's share.
        let plain: String = (0..400).map(|i| format!("INFO step {i} done\n")).collect();
        let f = analyze(plain.as_bytes(), 1 << 20);
        let head = render(&f, budget(680, 1360)).head;
        assert!(
            head.iter().map(|l| cost(l)).sum::<usize>() <= 680,
            "{head:?}"
        );
        // Nor does the head grow past half of the tail's share to reach a table.
        let f = analyze(text.as_bytes(), 1 << 20);
        let p = render(&f, budget(300, 600));
        assert!(
            !p.head.iter().any(|l| l.contains("slow_dedupe")),
            "{:?}",
            p.head
        );
    }

    /// Found by the text_preview fuzz target: a short last line that did not fit a tiny budget
    /// was windowed with the lines before it and its own newline.
    #[test]
    fn a_windowed_last_line_holds_that_line_only() {
        let f = analyze(b"\n\n\n", 16);
        let p = render(&f, budget(0, 0));
        assert!(p.tail.iter().all(|l| !l.contains('\n')), "{:?}", p.tail);
        let f = analyze(b"first\nsecond line\nlast\n", 16);
        let p = render(&f, budget(0, 0));
        assert_eq!(p.tail, vec!["last"]);
    }
}
