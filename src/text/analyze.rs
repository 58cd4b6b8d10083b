//! The streaming text analysis behind `wrap`'s envelope: byte, line and character counts, the
//! retained head and tail bytes a preview is cut from, binary detection, and failure signals.
//! Fed chunk by chunk as the input streams into the store; the result never depends on how the
//! input was chunked (a property test checks this).

use std::collections::{HashSet, VecDeque};
use std::hash::{Hash, Hasher};

use super::clean::{clean_line, clean_prefix};
use super::signals::{self, Neighbour, Strength};
use super::{floor_char_boundary, prefix_bytes_for_chars};

/// A partial line carried between chunks is kept up to this size; signals further into a
/// longer line are not looked for (such a line is data, not a message).
const CARRY_MAX: usize = 64 * 1024;
/// Neighbour lines are cut to this many characters (a signal's own long line is windowed).
pub const SIGNAL_CHARS: usize = 200;
/// How many earliest strong and weak signals are kept, and how many recent ones.
const EARLY_KEEP: usize = 1024;
const RECENT_KEEP: usize = 4096;
/// Distinct signal lines are counted exactly up to this many; beyond, each further line counts.
const DISTINCT_MAX: usize = 1_000_000;

/// One failure signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signal {
    /// 1-based line number.
    pub line: u64,
    /// Strength of its marker.
    pub strength: Strength,
    /// The marker that matched (usable as a fixed-string search pattern).
    pub marker: String,
    /// The line (a long one as its start, the words around its marker and its end), with the
    /// neighbouring line that carries its message, cut to 200 chars.
    pub text: String,
    /// The line number of `text`'s first line: `line - 1` when the line before is joined in
    /// front (`--- FAIL` headers), else `line`. `cat --lines` from here shows `text`.
    pub text_line: u64,
    /// True when the text had bytes that are not UTF-8.
    pub lossy: bool,
}

/// Everything the analysis learned.
#[derive(Debug, Clone)]
pub struct TextFacts {
    /// Bytes seen.
    pub size: u64,
    /// Lines: one per `\n`, plus one for an unterminated last line.
    pub lines: u64,
    /// The first bytes of the input.
    pub head: Vec<u8>,
    /// The last bytes of the input.
    pub tail: Vec<u8>,
    /// Offset of `tail[0]` in the input.
    pub tail_offset: u64,
    /// Characters on the first line (without its newline).
    pub first_line_chars: u64,
    /// Offset of the newline that ends the first line, if there is one.
    pub first_line_end: Option<u64>,
    /// Characters on the last line (without its newline).
    pub last_line_chars: u64,
    /// Offset where the last line starts.
    pub last_line_start: u64,
    /// [`super::is_binary`] of the input.
    pub binary: bool,
    /// Candidate signals (earliest and most recent), in line order, each line once.
    pub signals: Vec<Signal>,
    /// Distinct signal lines in the whole input.
    pub signal_total: u64,
    /// The signals ranked by how much they tell ([`super::rank`]), best first.
    pub ranked: Vec<super::rank::Ranked>,
    /// True when some line holds `error` or `fail` in any case: whether `search -i
    /// 'error|fail'` finds anything.
    pub fail_words: bool,
}

/// A streaming analyzer: [`TextAnalyzer::feed`] every chunk, then [`TextAnalyzer::finish`].
#[derive(Debug)]
pub struct TextAnalyzer {
    keep: usize,
    size: u64,
    newlines: u64,
    head: Vec<u8>,
    tail: Vec<u8>,
    /// (offset of its newline, characters) of the first line, once known.
    first_line: Option<(u64, u64)>,
    /// Characters of the first line seen so far, while it is still open.
    first_line_acc: u64,
    /// Characters after the last newline seen.
    since_nl_chars: u64,
    /// Characters of the line that the last newline ended.
    last_complete_chars: u64,
    /// Offsets of the last two newlines.
    last_nl: Option<u64>,
    prev_nl: Option<u64>,
    sig: SignalCollector,
    json_fields: Option<super::rank::JsonFields>,
}

impl TextAnalyzer {
    /// Shows a JSON line's severity and message fields first in its signal, rendered by `f`.
    pub fn json_fields(mut self, f: super::rank::JsonFields) -> TextAnalyzer {
        self.json_fields = Some(f);
        self
    }

    /// An analyzer retaining `keep` bytes of head and of tail.
    pub fn new(keep: usize) -> TextAnalyzer {
        TextAnalyzer {
            keep,
            size: 0,
            newlines: 0,
            head: Vec::new(),
            tail: Vec::new(),
            first_line: None,
            first_line_acc: 0,
            since_nl_chars: 0,
            last_complete_chars: 0,
            last_nl: None,
            prev_nl: None,
            sig: SignalCollector::default(),
            json_fields: None,
        }
    }

    /// The head kept so far: the input's first bytes, up to the `keep` it was made with.
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// Analyzes the next chunk of input.
    pub fn feed(&mut self, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        let base = self.size;
        if self.head.len() < self.keep {
            let take = (self.keep - self.head.len()).min(chunk.len());
            self.head.extend_from_slice(&chunk[..take]);
        }
        if chunk.len() >= self.keep {
            self.tail.clear();
            self.tail
                .extend_from_slice(&chunk[chunk.len() - self.keep..]);
        } else {
            self.tail.extend_from_slice(chunk);
            if self.tail.len() > 2 * self.keep {
                let excess = self.tail.len() - self.keep;
                self.tail.drain(..excess);
            }
        }
        // Characters are counted only on the lines a preview may window (the first and the
        // last), so the common case does no per-byte character counting at all.
        match memchr::memchr(b'\n', chunk) {
            None => {
                self.since_nl_chars += count_chars(chunk) as u64;
                if self.first_line.is_none() {
                    self.first_line_acc += count_chars(chunk) as u64;
                }
            }
            Some(first) => {
                if self.first_line.is_none() {
                    let chars = self.first_line_acc + count_chars(&chunk[..first]) as u64;
                    self.first_line = Some((base + first as u64, chars));
                }
                let last = memchr::memrchr(b'\n', chunk).expect("a newline exists");
                self.last_complete_chars = match memchr::memrchr(b'\n', &chunk[..last]) {
                    Some(prev) => {
                        self.prev_nl = Some(base + prev as u64);
                        count_chars(&chunk[prev + 1..last]) as u64
                    }
                    None => {
                        self.prev_nl = self.last_nl;
                        self.since_nl_chars + count_chars(&chunk[..last]) as u64
                    }
                };
                self.last_nl = Some(base + last as u64);
                self.since_nl_chars = count_chars(&chunk[last + 1..]) as u64;
            }
        }
        let chunk_newlines = count_byte(chunk, b'\n');
        self.newlines += chunk_newlines as u64;
        self.sig.feed(chunk, chunk_newlines);
        self.size += chunk.len() as u64;
    }

    /// Ends the analysis.
    pub fn finish(mut self) -> TextFacts {
        self.sig.finish();
        let ends_with_nl = self.last_nl.is_some_and(|o| o + 1 == self.size);
        let lines = self.newlines + u64::from(self.size > 0 && !ends_with_nl);
        let first_line_chars = self.first_line.map_or(self.since_nl_chars, |(_, c)| c);
        // The last line is the one after the last newline, or, when the input ends with a
        // newline, the one between the last two.
        let (last_line_start, last_line_chars) = if ends_with_nl {
            (self.prev_nl.map_or(0, |o| o + 1), self.last_complete_chars)
        } else {
            (self.last_nl.map_or(0, |o| o + 1), self.since_nl_chars)
        };
        let tail_len = self.tail.len().min(self.keep);
        let tail = self.tail.split_off(self.tail.len() - tail_len);
        let binary = super::is_binary(&self.head);
        let candidates = self.sig.candidates();
        let tail_offset = self.size - tail.len() as u64;
        let ranking = if binary {
            super::rank::Ranking::default()
        } else {
            let window = super::rank::window_lines(&self.head, &tail, tail_offset, lines);
            super::rank::rank(&window, &candidates, lines, self.json_fields)
        };
        // Lines ranked for a tool code, a problem phrase or an outlying number count too.
        let (ranked, extra) = (ranking.entries, ranking.extra);
        TextFacts {
            size: self.size,
            lines,
            tail_offset,
            binary,
            head: self.head,
            tail,
            first_line_chars,
            first_line_end: self.first_line.map(|(o, _)| o),
            last_line_chars,
            last_line_start,
            signals: candidates,
            signal_total: self.sig.distinct + extra,
            ranked,
            fail_words: self.sig.fail_words,
        }
    }
}

/// Analyzes a whole input at once (the same result as feeding it in any chunks).
pub fn analyze(bytes: &[u8], keep: usize) -> TextFacts {
    let mut a = TextAnalyzer::new(keep);
    for chunk in bytes.chunks(1 << 20) {
        a.feed(chunk);
    }
    a.finish()
}

/// Counts `needle` in `bytes`: byte-wide lanes of equality masks, summed every 255 vectors
/// with `psadbw`, whatever the density of `needle`.
///
/// Measured on the 1 GB build log (19.3 M lines, hot cache): AVX2 ~100 ms, memchr's
/// `memchr_iter().count()` 140–175 ms (its counter slows down as needles get dense: a line
/// break every 55 bytes here), `filter().count()` 600 ms. Line numbering in `search` and the
/// line count of `wrap` both run on it.
pub fn count_byte(bytes: &[u8], needle: u8) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected at run time.
            return unsafe { count_byte_avx2(bytes, needle) };
        }
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe { count_byte_sse2(bytes, needle) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        bytes.iter().filter(|&&b| b == needle).count()
    }
}

/// Lanes of one byte overflow after 255 additions: sum them out every this many vectors.
#[cfg(target_arch = "x86_64")]
const LANE_ROUNDS: usize = 255;

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn count_byte_avx2(bytes: &[u8], needle: u8) -> usize {
    use std::arch::x86_64::*;
    let n = _mm256_set1_epi8(needle as i8);
    let zero = _mm256_setzero_si256();
    let mut total = 0usize;
    let mut blocks = bytes.chunks_exact(32 * LANE_ROUNDS);
    for block in &mut blocks {
        let mut acc = _mm256_setzero_si256();
        for v in block.chunks_exact(32) {
            // SAFETY: `v` is 32 readable bytes; unaligned loads are allowed.
            let v = unsafe { _mm256_loadu_si256(v.as_ptr().cast()) };
            // A match is -1 in its lane: subtracting adds one.
            acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(v, n));
        }
        let sums = _mm256_sad_epu8(acc, zero);
        total += (_mm256_extract_epi64::<0>(sums)
            + _mm256_extract_epi64::<1>(sums)
            + _mm256_extract_epi64::<2>(sums)
            + _mm256_extract_epi64::<3>(sums)) as usize;
    }
    // SAFETY: SSE2 is part of the x86-64 baseline.
    total + unsafe { count_byte_sse2(blocks.remainder(), needle) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
unsafe fn count_byte_sse2(bytes: &[u8], needle: u8) -> usize {
    use std::arch::x86_64::*;
    let n = _mm_set1_epi8(needle as i8);
    let zero = _mm_setzero_si128();
    let mut total = 0usize;
    let mut rest = bytes;
    while rest.len() >= 16 {
        let vectors = (rest.len() / 16).min(LANE_ROUNDS);
        let (block, tail) = rest.split_at(vectors * 16);
        let mut acc = _mm_setzero_si128();
        for v in block.chunks_exact(16) {
            // SAFETY: `v` is 16 readable bytes; unaligned loads are allowed.
            let v = unsafe { _mm_loadu_si128(v.as_ptr().cast()) };
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, n));
        }
        let sums = _mm_sad_epu8(acc, zero);
        total +=
            (_mm_cvtsi128_si64(sums) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums))) as usize;
        rest = tail;
    }
    total + rest.iter().filter(|&&b| b == needle).count()
}

fn count_chars(bytes: &[u8]) -> usize {
    // Characters are the bytes that do not continue a UTF-8 sequence.
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// Cuts a signal's line to [`SIGNAL_CHARS`] characters after cleaning it for display.
fn display_line(line: &[u8]) -> (String, bool) {
    let cleaned = clean_line(line);
    let keep = prefix_bytes_for_chars(&cleaned, SIGNAL_CHARS);
    let lossy = std::str::from_utf8(&cleaned[..keep]).is_err();
    let mut text = String::from_utf8_lossy(&cleaned[..keep]).into_owned();
    if keep < cleaned.len() {
        text.push('…');
    }
    (text, lossy)
}

/// The part of a neighbouring line a signal may show: the first `4 * SIGNAL_CHARS` bytes of
/// its cleaned form (of its first [`CARRY_MAX`] bytes, all that a line carried across chunks
/// keeps). The previous line is kept only this far across chunks, so every path cuts it the same
/// way and the signals do not depend on where reads happened to split the input (found by
/// fuzzing: a long progress line's last `\r` frame showed only when it sat inside one chunk).
/// Cleaning comes before the cut, so the text shown is what `cat` shows of that line.
fn neighbour(line: &[u8]) -> Vec<u8> {
    clean_prefix(&line[..line.len().min(CARRY_MAX)], 4 * SIGNAL_CHARS)
}

#[derive(Debug, Default)]
struct SignalCollector {
    carry: Vec<u8>,
    /// Complete lines seen so far.
    line_no: u64,
    prev_line: Vec<u8>,
    /// The line number of a signal waiting for the line after it.
    pending_after: Option<u64>,
    seen: HashSet<u64>,
    distinct: u64,
    early_strong: Vec<Signal>,
    early_weak: Vec<Signal>,
    recent: VecDeque<Signal>,
    /// The current region, lowercased for the prefilter (reused between chunks).
    lower: Vec<u8>,
    /// Whether a line seen so far holds `error` or `fail` (any case).
    fail_words: bool,
}

/// True when lowercased `line` holds `error` or `fail`.
fn has_fail_word(lower: &[u8]) -> bool {
    memchr::memmem::find(lower, b"error").is_some()
        || memchr::memmem::find(lower, b"fail").is_some()
}

impl SignalCollector {
    /// `newlines`: how many `\n` the chunk holds (already counted by the caller).
    fn feed(&mut self, chunk: &[u8], newlines: usize) {
        let Some(first_nl) = memchr::memchr(b'\n', chunk) else {
            self.extend_carry(chunk);
            return;
        };
        // Complete the line carried from earlier chunks.
        self.extend_carry(&chunk[..first_nl]);
        let carried = std::mem::take(&mut self.carry);
        self.complete_line(&carried);
        let last_nl = memchr::memrchr(b'\n', chunk).expect("a newline exists");
        let region = &chunk[first_nl + 1..last_nl + 1];
        // The region runs from after the first newline through the last one.
        self.scan_region(region, newlines - 1);
        self.extend_carry(&chunk[last_nl + 1..]);
    }

    fn extend_carry(&mut self, bytes: &[u8]) {
        let room = CARRY_MAX.saturating_sub(self.carry.len());
        self.carry
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// One complete line that arrived across chunks (or the final unterminated line).
    fn complete_line(&mut self, line: &[u8]) {
        self.line_no += 1;
        self.attach_after(line);
        if signals::prefilter_matches(line) {
            if !self.fail_words {
                let mut lower = Vec::new();
                signals::lowercase_into(line, &mut lower);
                self.fail_words = has_fail_word(&lower);
            }
            let prev = std::mem::take(&mut self.prev_line);
            self.consider(line, self.line_no, &prev, None);
        }
        self.set_prev(line);
    }

    /// Complete lines wholly inside one chunk: only the prefilter's hits are looked at.
    fn scan_region(&mut self, region: &[u8], newlines: usize) {
        if region.is_empty() {
            return;
        }
        let base_line = self.line_no;
        let mut counted_to = 0;
        let mut lines_before = 0u64;
        let mut start = 0;
        // The line right after a pending signal is the region's first line.
        if self.pending_after.is_some() {
            let end = memchr::memchr(b'\n', region).expect("region ends with a newline");
            self.attach_after(&region[..end]);
        }
        let mut lower = std::mem::take(&mut self.lower);
        signals::lowercase_into(region, &mut lower);
        while let Some(hit) = signals::prefilter_find(&lower, start) {
            let ls = memchr::memrchr(b'\n', &region[..hit]).map_or(0, |i| i + 1);
            let le =
                hit + memchr::memchr(b'\n', &region[hit..]).expect("region ends with a newline");
            self.fail_words = self.fail_words || has_fail_word(&lower[ls..le]);
            lines_before += count_byte(&region[counted_to..ls], b'\n') as u64;
            counted_to = ls;
            let line_no = base_line + lines_before + 1;
            let prev = if ls == 0 {
                std::mem::take(&mut self.prev_line)
            } else {
                let ps = memchr::memrchr(b'\n', &region[..ls - 1]).map_or(0, |i| i + 1);
                neighbour(&region[ps..ls - 1])
            };
            let next = (le + 1 < region.len()).then(|| {
                let ne = le
                    + 1
                    + memchr::memchr(b'\n', &region[le + 1..]).expect("region ends with a newline");
                neighbour(&region[le + 1..ne])
            });
            self.consider(&region[ls..le], line_no, &prev, next.as_deref());
            start = le + 1;
            if start >= region.len() {
                break;
            }
        }
        self.lower = lower;
        self.line_no = base_line + newlines as u64;
        let last_start = memchr::memrchr(b'\n', &region[..region.len() - 1]).map_or(0, |i| i + 1);
        self.set_prev(&region[last_start..region.len() - 1]);
    }

    fn set_prev(&mut self, line: &[u8]) {
        self.prev_line.clear();
        self.prev_line.extend_from_slice(&neighbour(line));
    }

    fn attach_after(&mut self, line: &[u8]) {
        let Some(want) = self.pending_after.take() else {
            return;
        };
        if let Some(sig) = self.recent.iter_mut().rev().find(|s| s.line == want) {
            let (text, lossy) = display_line(&neighbour(line));
            let early = if sig.strength == Strength::Strong {
                &mut self.early_strong
            } else {
                &mut self.early_weak
            };
            if let Some(e) = early.iter_mut().find(|s| s.line == want) {
                e.text = format!("{}\n{text}", e.text);
                e.lossy |= lossy;
            }
            sig.text = format!("{}\n{text}", sig.text);
            sig.lossy |= lossy;
        }
    }

    /// Classifies one raw line. The line is cleaned first (ANSI colour stripped, the last `\r`
    /// frame kept), so `\x1b[91merror\x1b[0m:` is the marker `error:` and the text and marker
    /// are what `cat` and `search` read; a line is looked at through its first [`CARRY_MAX`]
    /// bytes only, wherever the chunks split it.
    fn consider(&mut self, line: &[u8], line_no: u64, prev: &[u8], next: Option<&[u8]>) {
        let line = &clean_line(&line[..line.len().min(CARRY_MAX)]);
        // The prefilter found this line (before it was cleaned).
        let Some(class) = signals::classify_hit(line) else {
            return;
        };
        let mut h = std::collections::hash_map::DefaultHasher::new();
        line.hash(&mut h);
        let fresh = if self.seen.len() < DISTINCT_MAX {
            self.seen.insert(h.finish())
        } else {
            !self.seen.contains(&h.finish())
        };
        if !fresh {
            return;
        }
        self.distinct += 1;
        // A long line shows its start, the words around its marker and its end.
        let at = memchr::memmem::find(line, class.marker.as_bytes()).unwrap_or(0);
        let (mut text, mut lossy) = super::rank::window_text(line, at);
        let mut text_line = line_no;
        match class.neighbour {
            Neighbour::Before if !prev.is_empty() => {
                let (p, l) = display_line(prev);
                text = format!("{p}\n{text}");
                lossy |= l;
                text_line -= 1;
            }
            Neighbour::After => match next {
                Some(n) => {
                    let (n, l) = display_line(n);
                    text = format!("{text}\n{n}");
                    lossy |= l;
                }
                None => self.pending_after = Some(line_no),
            },
            _ => {}
        }
        let signal = Signal {
            line: line_no,
            strength: class.strength,
            marker: class.marker,
            text,
            text_line,
            lossy,
        };
        let early = if signal.strength == Strength::Strong {
            &mut self.early_strong
        } else {
            &mut self.early_weak
        };
        if early.len() < EARLY_KEEP {
            early.push(signal.clone());
        }
        if self.recent.len() == RECENT_KEEP {
            self.recent.pop_front();
        }
        self.recent.push_back(signal);
    }

    fn finish(&mut self) {
        // An unterminated last line is still a line.
        if !self.carry.is_empty() {
            let carried = std::mem::take(&mut self.carry);
            self.complete_line(&carried);
        }
        self.pending_after = None;
    }

    fn candidates(&self) -> Vec<Signal> {
        let mut all: Vec<Signal> = self
            .early_strong
            .iter()
            .chain(&self.early_weak)
            .chain(&self.recent)
            .cloned()
            .collect();
        all.sort_by_key(|s| s.line);
        all.dedup_by_key(|s| s.line);
        all
    }
}

/// Cuts `bytes` to at most `max` bytes on a character boundary.
pub fn cut_bytes(bytes: &[u8], max: usize) -> &[u8] {
    &bytes[..floor_char_boundary(bytes, max.min(bytes.len()))]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn facts_eq(a: &TextFacts, b: &TextFacts) {
        assert_eq!(a.size, b.size);
        assert_eq!(a.lines, b.lines);
        assert_eq!(a.head, b.head);
        assert_eq!(a.tail, b.tail);
        assert_eq!(a.tail_offset, b.tail_offset);
        assert_eq!(a.first_line_chars, b.first_line_chars);
        assert_eq!(a.last_line_chars, b.last_line_chars);
        assert_eq!(a.last_line_start, b.last_line_start);
        assert_eq!(a.signals, b.signals);
        assert_eq!(a.signal_total, b.signal_total);
        assert_eq!(a.ranked, b.ranked);
    }

    #[test]
    fn counts_and_line_lengths() {
        let f = analyze("héllo\nwörld\n".as_bytes(), 1024);
        assert_eq!(
            (
                f.size,
                f.lines,
                f.first_line_chars,
                f.last_line_chars,
                f.last_line_start
            ),
            (14, 2, 5, 5, 7)
        );
        let f = analyze(b"abc", 1024);
        assert_eq!(
            (
                f.lines,
                f.first_line_chars,
                f.last_line_chars,
                f.last_line_start
            ),
            (1, 3, 3, 0)
        );
        let f = analyze(b"a\nbb", 1024);
        assert_eq!(
            (
                f.lines,
                f.first_line_chars,
                f.last_line_chars,
                f.last_line_start
            ),
            (2, 1, 2, 2)
        );
        let f = analyze(b"", 1024);
        assert_eq!(f.lines, 0);
    }

    #[test]
    fn signals_carry_line_numbers_neighbours_and_distinct_totals() {
        let log = b"ok\nerror[E0308]: mismatched types\n  --> src/main.rs:4:5\nok\n=== RUN TestX\n--- FAIL: TestX (0.00s)\nerror: boom\nerror: boom\n";
        let f = analyze(log, 1 << 20);
        assert_eq!(f.signal_total, 3);
        let lines: Vec<u64> = f.signals.iter().map(|s| s.line).collect();
        assert_eq!(lines, vec![2, 6, 7]);
        assert_eq!(
            f.signals[0].text,
            "error[E0308]: mismatched types\n  --> src/main.rs:4:5"
        );
        assert_eq!(f.signals[1].text, "=== RUN TestX\n--- FAIL: TestX (0.00s)");
        assert_eq!(f.signals[2].text, "error: boom\nerror: boom");
    }

    #[test]
    fn strong_signals_outrank_weak_ones() {
        let mut log = String::new();
        for i in 0..10 {
            log.push_str(&format!("warning: build failed step {i}\n"));
        }
        log.push_str("fatal: real problem\n");
        let f = analyze(log.as_bytes(), 1 << 20);
        // The ranking puts the strong marker first, and the ten weak lines are one template.
        assert_eq!(f.ranked[0].text, "fatal: real problem");
        assert_eq!(f.ranked[0].line, 11);
        assert_eq!(f.ranked[1].count, 10);
    }

    #[test]
    fn count_byte_counts_across_lane_rounds_and_tails() {
        // Long enough for full 255-vector rounds of both widths, then every tail length.
        for len in [
            0,
            1,
            15,
            16,
            17,
            31,
            32,
            33,
            4080,
            8160,
            8161,
            8192 + 31,
            70_000,
        ] {
            for density in [1, 2, 55, 1000] {
                let bytes: Vec<u8> = (0..len)
                    .map(|i| if i % density == 0 { b'\n' } else { b'x' })
                    .collect();
                let want = bytes.iter().filter(|&&b| b == b'\n').count();
                assert_eq!(
                    count_byte(&bytes, b'\n'),
                    want,
                    "len {len} density {density}"
                );
                #[cfg(target_arch = "x86_64")]
                // SAFETY: SSE2 is part of the x86-64 baseline.
                assert_eq!(unsafe { count_byte_sse2(&bytes, b'\n') }, want);
            }
        }
    }

    proptest! {
        #[test]
        fn count_byte_equals_a_plain_count(bytes in proptest::collection::vec(any::<u8>(), 0..20_000), needle in any::<u8>()) {
            prop_assert_eq!(count_byte(&bytes, needle), bytes.iter().filter(|&&b| b == needle).count());
        }

        #[test]
        fn chunking_never_changes_the_result(
            lines in proptest::collection::vec(
                prop_oneof![
                    Just("error: x".to_string()), Just("--- FAIL: T".to_string()), Just("ok".to_string()),
                    Just("Traceback (most recent call last):".to_string()), Just(String::new()), "[a-zé ]{0,30}",
                ], 0..60),
            cuts in proptest::collection::vec(1usize..40, 1..10),
            keep in 1usize..200,
        ) {
            let text = lines.join("\n").into_bytes();
            let whole = analyze(&text, keep);
            let mut a = TextAnalyzer::new(keep);
            let mut rest = &text[..];
            let mut i = 0;
            while !rest.is_empty() {
                let n = cuts[i % cuts.len()].min(rest.len());
                a.feed(&rest[..n]);
                rest = &rest[n..];
                i += 1;
            }
            facts_eq(&a.finish(), &whole);
            prop_assert_eq!(whole.lines, crate::text::count_lines(&text));
        }
    }

    /// Found by the text_preview fuzz target: the line before a `FAIL:` header is shown as its
    /// last `\r` frame, and that frame lay past the bytes kept across chunks; the signal's
    /// text then depended on where the input was split.
    #[test]
    fn a_long_neighbour_line_is_cut_the_same_whatever_the_chunks() {
        let mut text = b"start\n".to_vec();
        text.extend_from_slice(&b"downloading 10%\r".repeat(100));
        text.extend_from_slice(b"done\nFAIL: test_x\nok\n");
        let whole = analyze(&text, 64);
        let split = text.len() - b"FAIL: test_x\nok\n".len();
        let mut a = TextAnalyzer::new(64);
        a.feed(&text[..split]);
        a.feed(&text[split..]);
        facts_eq(&a.finish(), &whole);
        // And the committed crash input replays through the fuzz invariant.
        let crash = include_bytes!(
            "../../tests/fuzz-cases/text_preview/crash-e0e11c3f1c8cc8830f9d29d1f9d4f25f8d4c569c"
        );
        crate::fuzzing::text_preview(crash);
    }
}
