//! Bounded windows onto long lines: cuts on character boundaries in O(width), never O(line).
//!
//! A line may be a gigabyte long (minified JSON), so nothing here looks at more than a few
//! times `max_columns` bytes around the spot of interest. Bytes that are not valid UTF-8 count
//! as one character each, the way a lossy decoder would show them.

/// A slice of one line chosen for display, with where it sits in the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// The shown bytes of the line (no line terminator, no cut markers).
    pub bytes: Vec<u8>,
    /// Byte offset of `bytes` within the line (`textStart` in JSON output).
    pub start: usize,
    /// Whether bytes of the line precede the window (an `…` is shown before it).
    pub cut_start: bool,
    /// Whether bytes of the line follow the window (an `…` is shown after it).
    pub cut_end: bool,
    /// The match's byte range within `bytes`, for highlighting; empty for context lines.
    pub highlight: std::ops::Range<usize>,
}

/// The cut marker shown where a window leaves out part of a line.
pub const CUT_MARKER: &str = "…";

impl Window {
    /// The whole `line`, or its first `max_columns` characters when it is longer.
    /// `max_columns == 0` means no limit.
    pub fn head(line: &[u8], max_columns: usize) -> Window {
        if max_columns == 0 || !longer_than(line, max_columns) {
            return Window::whole(line, 0..0);
        }
        let end = forward(line, 0, max_columns).0;
        Window {
            bytes: line[..end].to_vec(),
            start: 0,
            cut_start: false,
            cut_end: end < line.len(),
            highlight: 0..0,
        }
    }

    /// A window of about `max_columns` characters centred on the match `start..end` of
    /// `line`; the whole line when it is short enough. A match wider than the window is
    /// shown from its beginning. `max_columns == 0` means no limit.
    pub fn around(line: &[u8], start: usize, end: usize, max_columns: usize) -> Window {
        let (start, end) = (start.min(line.len()), end.min(line.len()).max(start));
        if max_columns == 0 || !longer_than(line, max_columns) {
            return Window::whole(line, start..end);
        }
        let (match_end_cut, match_chars) = forward(&line[..end], start, max_columns);
        let (from, to) = if match_chars >= max_columns || match_end_cut < end {
            (start, match_end_cut)
        } else {
            // Share what the match leaves of the width between both sides; a side
            // that runs into the line's edge hands its unused share to the other.
            let rest = max_columns - match_chars;
            let left_avail = backward(line, start, rest).1;
            let right_avail = forward(line, end, rest).1;
            let mut left = (rest / 2).min(left_avail);
            let right = (rest - left).min(right_avail);
            left = (rest - right).min(left_avail);
            (backward(line, start, left).0, forward(line, end, right).0)
        };
        let highlight_end = end.min(to);
        Window {
            bytes: line[from..to].to_vec(),
            start: from,
            cut_start: from > 0,
            cut_end: to < line.len(),
            highlight: (start - from)..(highlight_end - from),
        }
    }

    /// Like [`Window::around`], holding at most `max_bytes` bytes of the line: the page's byte
    /// bound applies even when `max_columns` is 0. Only the
    /// `max_bytes` bytes around the match are looked at.
    pub fn around_within(
        line: &[u8],
        start: usize,
        end: usize,
        max_columns: usize,
        max_bytes: usize,
    ) -> Window {
        if line.len() <= max_bytes {
            return Window::around(line, start, end, max_columns);
        }
        let (start, end) = (start.min(line.len()), end.min(line.len()).max(start));
        let width = end - start;
        let mut lo = if width >= max_bytes {
            start
        } else {
            start - start.min((max_bytes - width) / 2)
        };
        let hi = (lo + max_bytes).min(line.len());
        lo = lo.min(hi.saturating_sub(max_bytes));
        let (lo, hi) = span_on_boundaries(line, lo, hi, start);
        let sub = &line[lo..hi];
        let mut w = Window::around(sub, start - lo, end.min(hi).max(start) - lo, max_columns);
        w.start += lo;
        w.cut_start |= lo > 0;
        w.cut_end |= hi < line.len();
        w
    }

    /// Like [`Window::head`], holding at most `max_bytes` bytes of the line.
    pub fn head_within(line: &[u8], max_columns: usize, max_bytes: usize) -> Window {
        if line.len() <= max_bytes {
            return Window::head(line, max_columns);
        }
        let (_, hi) = span_on_boundaries(line, 0, max_bytes, 0);
        let mut w = Window::head(&line[..hi], max_columns);
        w.cut_end = true;
        w
    }

    /// This window cut to at most `max_bytes` bytes, at its end.
    pub fn clip(mut self, max_bytes: usize) -> Window {
        if self.bytes.len() > max_bytes {
            let (_, hi) = span_on_boundaries(&self.bytes, 0, max_bytes, 0);
            self.bytes.truncate(hi);
            self.highlight = self.highlight.start.min(hi)..self.highlight.end.min(hi);
            self.cut_end = true;
        }
        self
    }

    fn whole(line: &[u8], highlight: std::ops::Range<usize>) -> Window {
        Window {
            bytes: line.to_vec(),
            start: 0,
            cut_start: false,
            cut_end: false,
            highlight,
        }
    }
}

/// `lo..hi` moved onto character boundaries (`lo` forward, but never past `keep`, the match's
/// first byte; `hi` backward): empty when no whole character fits.
fn span_on_boundaries(s: &[u8], mut lo: usize, mut hi: usize, keep: usize) -> (usize, usize) {
    let continuation = |b: u8| b & 0xc0 == 0x80;
    let mut steps = 0;
    while lo < keep && lo < s.len() && continuation(s[lo]) && steps < 3 {
        lo += 1;
        steps += 1;
    }
    steps = 0;
    while hi > lo && hi < s.len() && continuation(s[hi]) && steps < 3 {
        hi -= 1;
        steps += 1;
    }
    (lo, hi.max(lo))
}

/// Whether `line` has more than `max_columns` characters, looking at no more than
/// about `4 * max_columns` bytes.
fn longer_than(line: &[u8], max_columns: usize) -> bool {
    line.len() > max_columns && forward(line, 0, max_columns).0 < line.len()
}

/// Length in bytes of the character starting at `at` (1 for a byte that does not start a
/// valid UTF-8 sequence).
fn char_len_at(s: &[u8], at: usize) -> usize {
    let want = match s[at] {
        0x00..=0x7f => return 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return 1,
    };
    match s.get(at..at + want) {
        Some(seq) if std::str::from_utf8(seq).is_ok() => want,
        _ => 1,
    }
}

/// Length in bytes of the character ending just before `at` (1 when the bytes before `at`
/// do not end a valid UTF-8 sequence).
fn char_len_before(s: &[u8], at: usize) -> usize {
    if s[at - 1] < 0x80 {
        return 1;
    }
    (2..=4.min(at))
        .find(|&len| char_len_at(s, at - len) == len)
        .unwrap_or(1)
}

/// Moves forward from `at` by up to `chars` characters; returns the position reached and
/// the number of characters passed.
fn forward(s: &[u8], mut at: usize, chars: usize) -> (usize, usize) {
    let mut passed = 0;
    while passed < chars && at < s.len() {
        at += char_len_at(s, at);
        passed += 1;
    }
    (at, passed)
}

/// Moves backward from `at` by up to `chars` characters; returns the position reached and
/// the number of characters passed.
fn backward(s: &[u8], mut at: usize, chars: usize) -> (usize, usize) {
    let mut passed = 0;
    while passed < chars && at > 0 {
        at -= char_len_before(s, at);
        passed += 1;
    }
    (at, passed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_whole() {
        let w = Window::around(b"abc def", 4, 7, 300);
        assert_eq!(w.bytes, b"abc def");
        assert_eq!((w.start, w.cut_start, w.cut_end), (0, false, false));
        assert_eq!(w.highlight, 4..7);
    }

    #[test]
    fn long_lines_are_centred_on_the_match() {
        let line = format!("{}NEEDLE{}", "a".repeat(1000), "b".repeat(1000));
        let w = Window::around(line.as_bytes(), 1000, 1006, 20);
        assert_eq!(w.bytes, b"aaaaaaaNEEDLEbbbbbbb");
        assert_eq!(w.start, 993);
        assert!(w.cut_start && w.cut_end);
        assert_eq!(&w.bytes[w.highlight.clone()], b"NEEDLE");
    }

    #[test]
    fn edges_hand_their_share_to_the_other_side() {
        let line = format!("xNEEDLE{}", "b".repeat(1000));
        let w = Window::around(line.as_bytes(), 1, 7, 20);
        assert_eq!(w.bytes, format!("xNEEDLE{}", "b".repeat(13)).as_bytes());
        assert!(!w.cut_start && w.cut_end);
        let line = format!("{}NEEDLEx", "a".repeat(1000));
        let w = Window::around(line.as_bytes(), 1000, 1006, 20);
        assert_eq!(w.bytes, format!("{}NEEDLEx", "a".repeat(13)).as_bytes());
        assert!(w.cut_start && !w.cut_end);
    }

    #[test]
    fn cuts_fall_on_character_boundaries() {
        let line = format!("{}NEEDLE{}", "é".repeat(500), "日".repeat(500));
        let start = "é".repeat(500).len();
        let w = Window::around(line.as_bytes(), start, start + 6, 20);
        let text = std::str::from_utf8(&w.bytes).expect("cut inside a character");
        assert_eq!(text, format!("{}NEEDLE{}", "é".repeat(7), "日".repeat(7)));
    }

    #[test]
    fn wide_matches_show_their_beginning() {
        let line = format!("{}{}", "a".repeat(100), "N".repeat(100));
        let w = Window::around(line.as_bytes(), 100, 200, 10);
        assert_eq!(w.bytes, b"NNNNNNNNNN");
        assert_eq!(w.start, 100);
        assert!(w.cut_start && w.cut_end);
        assert_eq!(w.highlight, 0..10);
    }

    #[test]
    fn invalid_bytes_count_as_one_character() {
        let mut line = vec![0xffu8; 50];
        line.extend_from_slice(b"X");
        line.extend(vec![0xe6u8; 50]);
        let w = Window::around(&line, 50, 51, 5);
        assert_eq!(w.bytes, [0xff, 0xff, b'X', 0xe6, 0xe6]);
    }

    #[test]
    fn windows_within_a_byte_bound_stay_within_it() {
        let line = format!("{}NEEDLE{}", "é".repeat(100_000), "日".repeat(100_000));
        let start = "é".repeat(100_000).len();
        for max in [1, 2, 7, 100, 1001, 4096] {
            let w = Window::around_within(line.as_bytes(), start, start + 6, 0, max);
            assert!(w.bytes.len() <= max, "{max}: {}", w.bytes.len());
            std::str::from_utf8(&w.bytes).expect("cut inside a character");
            assert!(w.cut_start && w.cut_end);
            let shown = &line.as_bytes()[w.start..w.start + w.bytes.len()];
            assert_eq!(shown, &w.bytes[..]);
            if max >= 6 {
                assert_eq!(&w.bytes[w.highlight.clone()], b"NEEDLE");
            }
            let h = Window::head_within(line.as_bytes(), 0, max);
            assert!(h.bytes.len() <= max && h.cut_end && !h.cut_start);
            std::str::from_utf8(&h.bytes).expect("cut inside a character");
        }
        // Short lines and the column window are unchanged.
        assert_eq!(
            Window::around_within(b"abc", 1, 2, 300, 100),
            Window::around(b"abc", 1, 2, 300)
        );
        let clipped = Window::head(line.as_bytes(), 50).clip(10);
        assert_eq!(clipped.bytes, "é".repeat(5).as_bytes());
        assert!(clipped.cut_end);
    }

    #[test]
    fn head_cuts_long_context_lines() {
        assert_eq!(Window::head(b"short", 300).bytes, b"short");
        let w = Window::head("日本語のテキスト".as_bytes(), 3);
        assert_eq!(w.bytes, "日本語".as_bytes());
        assert!(w.cut_end && !w.cut_start);
        assert!(!Window::head(b"abc", 3).cut_end);
        assert_eq!(Window::head(b"abcdef", 0).bytes, b"abcdef");
    }
}
