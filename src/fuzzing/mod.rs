//! Invariant checks for the cargo-fuzz targets in `fuzz/`, one function per target and named
//! after it (`fuzz/fuzz_targets/json_engine.rs` calls [`json_engine`], and so on).
//!
//! Each function takes arbitrary bytes and panics if a promise is broken; errors on bad input
//! are fine, panics and wrong answers are not. The code exists only with the `fuzzing` cargo
//! feature (and in the crate's own unit tests): it panics by design, so it is not part of the
//! library a user builds. `cargo test` enables the feature through the crate's dev-dependency on
//! itself and replays the committed corpus (`tests/fuzz-cases/`) through these same functions,
//! so CI needs no nightly toolchain (ARCHITECTURE.md, "Fuzzing").

pub(crate) mod json;
mod query;

pub use json::{json_engine, json_shape};
pub use query::jsonpath_parse;

use std::rc::Rc;
use std::time::Duration;

use crate::limits::{
    MAX_COUNT, MAX_DURATION, MAX_SIZE, group_digits, human_duration, human_size, parse_count,
    parse_duration, parse_size,
};
use crate::search::Window;
use crate::text::analyze::{TextAnalyzer, analyze};
use crate::text::clean::{clean_line, strip_ansi};
use crate::text::preview::{Budget, render};
use crate::text::redact::{REPLACEMENT, Redactor, decoded};
use crate::text::{ceil_char_boundary, floor_char_boundary};

/// Splits `data` into a control prefix of `n` bytes (zero-padded) and the rest.
fn control<const N: usize>(data: &[u8]) -> ([u8; N], &[u8]) {
    let mut c = [0u8; N];
    let n = data.len().min(N);
    c[..n].copy_from_slice(&data[..n]);
    (c, &data[n..])
}

/// Feeds `bytes` in chunks whose sizes cycle through `sizes` (each at least 1).
fn chunks<'a>(bytes: &'a [u8], sizes: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while at < bytes.len() {
        let n = sizes[i % sizes.len()].max(1);
        let end = (at + n).min(bytes.len());
        out.push(&bytes[at..end]);
        at = end;
        i += 1;
    }
    out
}

/// The text preview: the streaming analysis is independent of chunking, the rendered preview
/// serialises as JSON, its lines are clean (no newline, carriage return or escape), and the
/// line and byte accounting adds up. UTF-8 cuts and ANSI stripping are checked on the way.
pub fn text_preview(data: &[u8]) {
    let ([k, h, t, split, lines], text) = control::<5>(data);
    // A small retention makes head and tail windows (and giant-line windows) likely.
    let keep = 16 + usize::from(k) * 4;
    let whole = analyze(text, keep);
    let mut streamed = TextAnalyzer::new(keep);
    let split = usize::from(split);
    for c in chunks(text, &[split, split / 3 + 1, 1, 255]) {
        streamed.feed(c);
    }
    let streamed = streamed.finish();
    assert_eq!(
        format!("{whole:?}"),
        format!("{streamed:?}"),
        "the analysis depends on chunking"
    );
    assert_eq!(whole.size, text.len() as u64);
    assert_eq!(whole.lines, crate::text::count_lines(text));

    let budget = Budget {
        head_bytes: usize::from(h) * 3,
        tail_bytes: usize::from(t) * 6,
        head_lines: (lines & 1 == 1).then_some(usize::from(lines >> 4)),
        tail_lines: (lines & 2 == 2).then_some(usize::from(lines & 0x0f)),
    };
    let p = render(&whole, budget);
    let json = serde_json::to_string(&p).expect("a preview serialises");
    serde_json::from_str::<serde_json::Value>(&json).expect("a preview is valid JSON");
    for line in p.head.iter().chain(&p.tail) {
        assert!(
            !line.contains(['\n', '\r', '\x1b']),
            "raw control bytes in a preview line: {line:?}"
        );
    }
    assert!(p.head_line_count <= whole.lines, "{p:?}");
    assert!(p.head_end <= whole.size, "{p:?}");
    assert!(p.omitted_bytes <= whole.size, "{p:?}");
    assert!(p.omitted_lines <= whole.lines, "{p:?}");

    // Character-boundary cuts never move more than three bytes and land on a boundary.
    for at in [0, text.len() / 2, text.len(), split] {
        let f = floor_char_boundary(text, at);
        let c = ceil_char_boundary(text, at);
        let at = at.min(text.len());
        assert!(f <= at && at - f <= 3 && c >= at && c - at <= 3);
    }
    // ANSI stripping only removes bytes and removes every escape.
    let stripped = strip_ansi(text);
    assert!(stripped.len() <= text.len());
    assert!(!stripped.contains(&0x1b));
    let cleaned = clean_line(text);
    assert!(!cleaned.contains(&0x1b));
}

thread_local! {
    /// Redactors reused across calls: for the built-in shapes, and with two literal secrets;
    /// one of each for the whole input and one for the chunked stream. A redactor is reusable
    /// after `finish` (only its count carries over), and reusing it keeps the regex's lazy DFA
    /// warm: a fresh clone rebuilds its cache on every input, which made fuzzing 20× slower.
    static REDACTORS: std::cell::RefCell<[Redactor; 4]> = std::cell::RefCell::new({
        let builtin = Redactor::new(&[]);
        let secrets = Redactor::new(&[b"hunter2hunter2".to_vec(), b"s3cr3t-v4lue".to_vec()]);
        [builtin.clone(), builtin, secrets.clone(), secrets]
    });
}

/// `text` with its ASCII bytes JSON-escaped in turn as they are, `\u00xx`, `\u00XX` or their
/// short escape (`\/`, `\"`, `\n` ...), starting at the choice `first`; other bytes as they are.
fn json_escaped(text: &[u8], first: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() * 3);
    for (i, &b) in text.iter().enumerate() {
        let short = match b {
            b'"' | b'/' => Some(b),
            b'\n' => Some(b'n'),
            b'\t' => Some(b't'),
            0x08 => Some(b'b'),
            _ => None,
        };
        match (usize::from(first) + i) % 4 {
            _ if !b.is_ascii() => out.push(b),
            0 => out.push(b),
            1 => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            2 => out.extend_from_slice(format!("\\u{b:04X}").as_bytes()),
            _ => match short {
                Some(s) => out.extend_from_slice(&[b'\\', s]),
                None => out.push(b),
            },
        }
    }
    out
}

/// The redactor: the output does not depend on chunking; nothing is replaced iff the output is
/// the input; every replacement is visible. Inputs are repeated with filler so that matches
/// cross the held-back window (about 16.5 KiB) as well as chunk boundaries. In one mode the
/// input is JSON-escaped first (its backslashes made `|`): escaping never changes what is found
/// — the escaped input has as many replacements, and its output decodes to the plain input's.
pub fn redact(data: &[u8]) {
    let ([mode, copies, split], body) = control::<3>(data);
    // Tiny chunks are fed only without filler: with a batch of 0 each feed past the held-back
    // window rescans it, so byte-sized feeds of a long input would be quadratic.
    let tiny = mode & 0x40 != 0;
    let reps = if tiny { 0 } else { copies % 4 };
    let mut input = Vec::new();
    for i in 0..=usize::from(reps) {
        input.extend_from_slice(body);
        if i < usize::from(reps) {
            // Filler between copies pushes later copies past the held-back window.
            input.resize(input.len() + usize::from(mode >> 1) * 97, b'.');
        }
    }
    let plain = (copies & 0x80 != 0).then(|| {
        let plain: Vec<u8> = input
            .iter()
            .map(|&b| if b == b'\\' { b'|' } else { b })
            .collect();
        input = json_escaped(&plain, split);
        plain
    });
    REDACTORS.with(|cell| {
        let mut all = cell.borrow_mut();
        let pair = if mode & 1 == 0 { 0 } else { 2 };
        let [whole, streamed] = &mut all[pair..pair + 2] else {
            unreachable!("two redactors per mode")
        };
        let (whole_before, streamed_before) = (whole.count(), streamed.count());
        // Search passes at every feed, every few KiB or in wrap's 64 KiB batches: the
        // output must not depend on where they fall.
        streamed.set_batch([0, 1, 997, 64 * 1024][usize::from(split >> 6)]);
        let out_whole = whole.redact_all(&input);
        let mut out = Vec::new();
        let sizes: &[usize] = if tiny {
            &[1, 7, usize::from(split).max(1)]
        } else {
            &[usize::from(split).max(1) * 64, 4096, 997]
        };
        for c in chunks(&input, sizes) {
            streamed.feed(c, &mut out);
        }
        streamed.finish(&mut out);
        assert_eq!(out_whole, out, "redaction depends on chunking");
        let count = whole.count() - whole_before;
        assert_eq!(count, streamed.count() - streamed_before);
        if count == 0 {
            assert_eq!(out_whole, input, "nothing redacted but the bytes changed");
        } else {
            let shown = memchr::memmem::find_iter(&out_whole, REPLACEMENT).count() as u64;
            assert!(shown >= count, "{shown} < {count}");
        }
        if let Some(plain) = plain {
            let before = whole.count();
            let out_plain = whole.redact_all(&plain);
            assert_eq!(
                whole.count() - before,
                count,
                "escaping changed what was found"
            );
            assert_eq!(
                decoded(&out_whole),
                out_plain,
                "the escaped output does not decode to the plain output"
            );
        }
    });
}

/// Characters as the search windows count them: a valid UTF-8 sequence is one, every other
/// byte is one.
fn window_chars(bytes: &[u8]) -> usize {
    bytes
        .utf8_chunks()
        .map(|c| c.valid().chars().count() + c.invalid().len())
        .sum()
}

/// A window is a slice of its line, flagged where it cuts, no wider than `max_columns` when it
/// cuts, and its highlight lies inside it.
fn check_window(w: &Window, line: &[u8], max_columns: usize) {
    let end = w.start + w.bytes.len();
    assert!(end <= line.len(), "window past the line end");
    assert_eq!(
        &line[w.start..end],
        &w.bytes[..],
        "window is not a slice of its line"
    );
    assert_eq!(w.cut_start, w.start > 0);
    assert_eq!(w.cut_end, end < line.len());
    assert!(w.highlight.start <= w.highlight.end && w.highlight.end <= w.bytes.len());
    if (w.cut_start || w.cut_end) && max_columns > 0 {
        assert!(
            window_chars(&w.bytes) <= max_columns,
            "{} chars > {max_columns}",
            window_chars(&w.bytes)
        );
    }
}

/// Compiled patterns by their text (and flags).
type Cache<K, V> = std::collections::HashMap<K, V>;
/// Search patterns by text and flag bits; `None` when they do not compile.
type PatternCache = Cache<(String, u8), Option<Rc<crate::search::Pattern>>>;

/// Patterns with an oracle (the regex crate, line by line) and some that exercise the
/// literal fallback and the flags.
const SEARCH_PATTERNS: &[&str] = &[
    "a",
    "ab",
    "a+",
    "b*",
    "^a",
    "a$",
    "[ab]c",
    r"\w+",
    "é",
    r"a\x00",
    "(?i)A",
    r"\bab\b",
    "c|ba",
    "(",
    "a{2,}",
    ".",
    r"\d+\.\d+",
    "error|fail",
];

/// Search: windows are bounded slices of their lines; a page agrees between a slice and a
/// stream, holds at most `limit` matches in order with consistent line, column and byte
/// offsets, and its total is the regex crate's count.
pub fn search_windows(data: &[u8]) {
    use crate::search::{Page, Pattern, PatternOptions, count_slice, search_reader, search_slice};
    let ([which, cols, off, lim, ctx, a, b, flags], hay) = control::<8>(data);
    let max_columns = usize::from(cols % 48);
    // Windows over arbitrary cut points (not only where a regex matches).
    let start = usize::from(a) * hay.len() / 256;
    let end = (start + usize::from(b % 32)).min(hay.len());
    check_window(
        &Window::around(hay, start, end, max_columns),
        hay,
        max_columns,
    );
    check_window(&Window::head(hay, max_columns), hay, max_columns);

    // Every fourth input takes its pattern from its own first bytes.
    let pattern_text = if which % 4 == 3 {
        let n = (hay.len().min(usize::from(which >> 2) % 6 + 1)).min(hay.len());
        String::from_utf8_lossy(&hay[..n]).into_owned()
    } else {
        SEARCH_PATTERNS[usize::from(which) % SEARCH_PATTERNS.len()].to_string()
    };
    let options = PatternOptions {
        patterns: vec![pattern_text.clone()],
        fixed_strings: flags & 1 != 0,
        ignore_case: flags & 2 != 0,
        word: flags & 4 != 0,
    };
    // Compiling a matcher costs far more than a search of a few KiB: the fixed patterns are
    // compiled once per flag combination (the data-derived ones, a quarter, every time).
    thread_local! {
        static PATTERNS: std::cell::RefCell<PatternCache> =
            std::cell::RefCell::default();
    }
    // Shared, not cloned: a cloned matcher starts with a cold lazy DFA.
    let compile = || Pattern::new(&options).ok().map(Rc::new);
    let pattern = if which % 4 == 3 {
        compile()
    } else {
        PATTERNS.with(|p| {
            p.borrow_mut()
                .entry((pattern_text.clone(), flags & 7))
                .or_insert_with(compile)
                .clone()
        })
    };
    let Some(pattern) = pattern else {
        return;
    };
    let page = Page {
        offset: u64::from(off % 16),
        limit: u64::from(lim % 8),
        before_context: usize::from(ctx % 4),
        after_context: usize::from(ctx / 4 % 4),
        max_columns,
        // Small byte bounds too (0: none), so that cut pages are compared as well.
        max_bytes: u64::from(off / 16) * 16,
    };
    let r = search_slice(hay, &pattern, &page).expect("searching a slice cannot fail");
    let streamed = search_reader(hay, &pattern, &page).expect("searching memory cannot fail");
    assert_eq!(r, streamed, "slice and stream disagree");
    // The paced page search, over chunks of a few bytes, answers what the whole slice does.
    let chunk = usize::from(b >> 5) * 3 + 1;
    if let Some(paced) = crate::search::page_in_chunks(hay, &pattern, &page, chunk) {
        assert_eq!(
            paced.expect("searching memory cannot fail"),
            r,
            "paced and whole pages disagree"
        );
    }
    let total = count_slice(hay, &pattern).expect("counting");
    assert_eq!(r.total_matches, total);
    assert!(r.matches.len() as u64 <= page.limit);
    let expected_len = total.saturating_sub(page.offset).min(page.limit);
    if page.max_bytes == 0 {
        assert_eq!(r.matches.len() as u64, expected_len, "a page is short");
    } else {
        // The byte bound may end a page early, never before its first match, and what the
        // page shows (each line once) stays within it.
        assert!(r.matches.len() as u64 <= expected_len);
        assert!(expected_len == 0 || !r.matches.is_empty(), "an empty page");
        let mut shown = std::collections::BTreeMap::new();
        for m in &r.matches {
            shown.insert((m.line, m.byte_offset), m.window.bytes.len());
            for c in m.before.iter().chain(&m.after) {
                shown.insert((c.line, u64::MAX), c.window.bytes.len());
            }
        }
        let bytes: usize = shown.values().sum();
        assert!(
            bytes as u64 <= page.max_bytes,
            "{bytes} > {}",
            page.max_bytes
        );
    }
    let mut last = None;
    for m in &r.matches {
        let at = m.byte_offset as usize;
        assert!(at <= hay.len());
        assert!(
            last.is_none_or(|l| l < m.byte_offset),
            "matches out of order"
        );
        last = Some(m.byte_offset);
        let line_start = memchr::memrchr(b'\n', &hay[..at]).map_or(0, |i| i + 1);
        let line_end = memchr::memchr(b'\n', &hay[at..]).map_or(hay.len(), |i| at + i);
        assert_eq!(m.line, crate::text::count_lines(&hay[..line_start]) + 1);
        assert_eq!(m.column as usize, at - line_start + 1);
        let line = &hay[line_start..line_end];
        // A line as the searcher sees it may keep a `\r`; the window is of the line proper.
        check_window(&m.window, line, max_columns);
        for c in m.before.iter().chain(&m.after) {
            assert!(c.window.highlight.is_empty());
            assert_ne!(c.line, m.line);
        }
        assert!(m.before.iter().all(|c| c.line < m.line));
        assert!(m.after.iter().all(|c| c.line > m.line));
    }
    // The oracle: plain regex patterns, counted line by line.
    if flags & 7 == 0 && which % 4 != 3 && pattern.mode() == crate::search::PatternMode::Regex {
        thread_local! {
            static ORACLES: std::cell::RefCell<Cache<String, Rc<regex::bytes::Regex>>> =
                std::cell::RefCell::default();
        }
        let re = ORACLES.with(|o| {
            o.borrow_mut()
                .entry(pattern_text.clone())
                .or_insert_with(|| {
                    Rc::new(
                        regex::bytes::Regex::new(&format!("(?m){pattern_text}")).expect("valid"),
                    )
                })
                .clone()
        });
        let oracle: u64 = hay
            .split(|&b| b == b'\n')
            .map(|line| re.find_iter(line).count() as u64)
            .sum();
        // A final newline ends the last line rather than starting an empty one.
        let phantom = if hay.ends_with(b"\n") || hay.is_empty() {
            re.find_iter(b"").count() as u64
        } else {
            0
        };
        assert_eq!(
            total,
            oracle - phantom,
            "count differs from the regex crate"
        );
    }
}

/// Queries for the extract target: singular and not, filters, descendants, slices.
const EXTRACT_QUERIES: &[&str] = &[
    "$",
    "$.a",
    "$[0]",
    "$[-1]",
    "$.a[1].b",
    "$[*]",
    "$.*",
    "$..a",
    "$..*",
    "$..[0]",
    "$[1:]",
    "$[::-1]",
    "$[0:3:2]",
    "$[0,'a',-1]",
    "$[?@.a]",
    "$[?@ > 0]",
    "$[?@.b == 'a']",
    "$..[?length(@) > 1]",
    "$[?match(@, 'a.*')]",
    "$[?value(@..a) == 1]",
    "$['a','b'][*]",
];

/// Extract evaluation over arbitrary documents: it never panics; bounded output is valid JSON
/// within `--max-bytes`; output with nothing cut equals the unbounded output; the values and
/// the nodes modes select the same number of nodes; paging with `--offset` shows the rest.
pub fn extract_eval(data: &[u8]) {
    use crate::extract::{Bounds, Mode, Options, extract};
    use crate::json::path::Query;
    let ([which, items, depth, string, bytes, offset], doc) = control::<6>(data);
    let query = Query::parse(EXTRACT_QUERIES[usize::from(which) % EXTRACT_QUERIES.len()])
        .expect("the fixed queries are valid");
    let run = |mode, bounds, offset| {
        let opts = Options {
            source: "-",
            bounds,
            mode,
            compact: which & 0x80 != 0,
            offset,
            skip_invalid: false,
        };
        let mut out = Vec::new();
        extract(doc, &query, &opts, &mut out).map(|report| (out, report))
    };
    let Ok((whole, report)) = run(Mode::Nodes, None, 0) else {
        // Invalid JSON: every mode must fail the same way or stop early, never panic.
        let _ = run(Mode::Values, None, 0);
        let _ = run(Mode::Raw, None, 0);
        return;
    };
    // The engine's own validator: numbers such as 1e400 are valid JSON (serde_json refuses them).
    crate::json::validate(&whole).expect("unbounded --nodes output is JSON");
    let list = crate::json::root(&whole).expect("a root");
    assert_eq!(
        list.count().expect("--nodes prints a list"),
        report.selected
    );
    // From the floor up: the smallest bounds are where markers and long paths crowd out values.
    let max_bytes = crate::extract::MIN_MAX_BYTES + usize::from(bytes) * 16;
    let bounds = Bounds {
        max_items: usize::from(items % 6),
        max_depth: usize::from(depth % 6),
        max_string: usize::from(string % 40),
        max_bytes: Some(max_bytes),
    };
    for mode in [Mode::Values, Mode::Nodes] {
        let (unbounded, full) = run(mode, None, 0).expect("valid once, valid again");
        assert_eq!(full.selected, report.selected);
        let (out, cut) = run(mode, Some(bounds), 0).expect("bounds do not make errors");
        assert_eq!(cut.selected, report.selected);
        if cut.singular && cut.no_match.is_some() {
            assert!(out.is_empty());
            continue;
        }
        assert!(out.len() <= max_bytes, "{} > {max_bytes}", out.len());
        if let Err(e) = crate::json::validate(&out) {
            panic!(
                "bounded output is not JSON ({e:?}): {}",
                String::from_utf8_lossy(&out)
            );
        }
        if cut.cuts.is_empty() && cut.list_next.is_none() {
            assert_eq!(out, unbounded, "nothing cut, yet the output differs");
        } else {
            assert!(cut.notice().is_some(), "a cut without a notice");
        }
    }
    // The page after an offset holds the remaining nodes.
    let offset = u64::from(offset % 8);
    if !report.singular && offset > 0 {
        let (_, paged) = run(Mode::Nodes, None, offset as usize).expect("valid");
        assert_eq!(paged.shown, report.selected.saturating_sub(offset));
    }
    // Raw output is not JSON, but it keeps the byte bound too.
    let (raw, _) = run(Mode::Raw, Some(bounds), 0).expect("valid");
    assert!(raw.len() <= max_bytes, "raw: {} > {max_bytes}", raw.len());
}

/// The size and duration parsers never panic, and what the formatters print parses back.
pub fn limits(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(n) = parse_size(&text) {
        assert_eq!(parse_size(&n.to_string()), Ok(n));
        let _ = human_size(n);
    }
    if let Ok(d) = parse_duration(&text) {
        assert_eq!(parse_duration(&human_duration(d)), Ok(d));
    }
    let ([a, b, c, d, e, f, g, h], _) = control::<8>(data);
    let n = u64::from_le_bytes([a, b, c, d, e, f, g, h]);
    let human = human_size(n);
    assert!(human.ends_with('B'), "{human}");
    assert_eq!(group_digits(n).replace(',', ""), n.to_string());
    let secs = n % (MAX_DURATION.as_secs() + 1);
    let d = Duration::from_secs(secs);
    assert_eq!(parse_duration(&human_duration(d)), Ok(d));
    // Past each maximum: an error, never a wrap-around.
    let over = MAX_DURATION.as_secs() + 1 + n % (u64::MAX / 2);
    assert!(parse_duration(&format!("{over}s")).is_err());
    assert!(parse_size(&(MAX_SIZE + 1 + n % (u64::MAX / 2)).to_string()).is_err());
    assert!(parse_count::<u64>(&(MAX_COUNT + 1 + n % (u64::MAX / 2)).to_string()).is_err());
    if let Ok(c) = parse_count::<u64>(&text) {
        assert!(c <= MAX_COUNT);
        assert_eq!(parse_count::<u64>(&c.to_string()), Ok(c));
    }
    for suffix in ["", "K", "kb", "MiB", "g", "T"] {
        let _ = parse_size(&format!("{n}{suffix}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        #[test]
        fn text_preview_invariants(data in prop::collection::vec(
            prop_oneof![Just(b'\n'), Just(b'\r'), Just(0x1b), Just(b'['), Just(0xe2), Just(0x82),
                        Just(0xac), any::<u8>(), 0x20u8..0x7f], 0..3000)) {
            text_preview(&data);
        }

        #[test]
        fn redact_invariants(data in prop::collection::vec(any::<u8>(), 0..200), token in
            "(sk-[a-zA-Z0-9]{20,30}|AKIA[0-9A-Z]{16}|ghp_[a-zA-Z0-9]{36}|hunter2hunter2|Authorization: Bearer [a-z0-9]{8,20}|-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----|\\\\u0041KIA[0-9A-Z]{16}|ghp\\\\u005[fF][a-zA-Z0-9]{36}|id_AKIA[0-9A-Z]{16}|AWS_SECRET_ACCESS_KEY=[A-Za-z0-9/+]{40}|\"SecretAccessKey\": \"[A-Za-z0-9+]{10}\\\\/[A-Za-z0-9+]{29}\"|Bearer [a-z]{4}\\\\/[a-z0-9]{8}|-----BEGIN PGP PRIVATE KEY BLOCK-----(\\\\n|\n)abc(\\\\n|\n)-----END PGP PRIVATE KEY BLOCK-----|hunter2\\\\u0068unter2)") {
            let mut input = data.clone();
            let at = input.len() / 2;
            input.splice(at..at, [b' '].into_iter().chain(token.bytes()).chain([b' ']));
            redact(&input);
        }

        #[test]
        fn search_invariants(control in prop::collection::vec(any::<u8>(), 8), hay in prop::collection::vec(
            prop_oneof![Just(b'a'), Just(b'b'), Just(b'c'), Just(b'\n'), Just(b' '), Just(b'\r'), Just(0u8),
                        Just(0xc3), Just(0xa9), Just(b'1'), Just(b'.')], 0..400)) {
            let mut data = control;
            data.extend_from_slice(&hay);
            search_windows(&data);
        }

        #[test]
        fn extract_invariants(control in prop::collection::vec(any::<u8>(), 6),
                              doc in json::tests::json_text()) {
            let mut data = control;
            data.extend_from_slice(doc.as_bytes());
            extract_eval(&data);
        }

        #[test]
        fn limits_invariants(text in "[0-9]{0,22}[a-zA-Z]{0,4}") {
            limits(text.as_bytes());
        }
    }

    #[test]
    fn fixed_inputs() {
        for data in [
            &b""[..],
            b"\x00\x00\x00\x00\x00\n\n\n",
            b"\xff\xff\xff\xff\xff\x1b[31mred\x1b[0m\r\nline\r",
            b"\x01\x02\x03\x04\x05\xe2\x82",
        ] {
            text_preview(data);
            redact(data);
            search_windows(data);
            extract_eval(data);
            limits(data);
        }
    }
}
