//! Ranking signal candidates by how much they tell: lines are grouped by template (numbers,
//! paths, quoted strings and hex ids abstracted away, after the idea of log template mining such
//! as Drain), and a candidate ranks by its severity (failure markers, tool codes such as `E1120`
//! or `TS2322`, problem phrases such as `Invalid read` or `not ok`) times the rarity of its
//! template within the output, then by closeness to the end and difference from its neighbours.
//! A template seen 1,400 times is one entry with its count; where lines share a template that
//! carries a number, an entry standing far out of the rest (the slowest, the largest) is named.
//!
//! The ranking reads the retained head and tail of the input (the whole input when it is
//! smaller than both together, 512 KiB by default) plus the streamed candidates from the middle,
//! so its cost does not grow with the input beyond the streaming scan that already runs.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::LazyLock;

use regex::bytes::Regex;

use super::analyze::Signal;
use super::signals::{self, Neighbour, Strength};

/// Lines up to this many characters are shown whole in a signal; longer ones as a window.
const WHOLE_CHARS: usize = 240;
/// A template needs this many lines before its numbers are compared.
const EXTREME_MIN_LINES: usize = 8;
/// The ranking reads at most this many lines: half from the head, half from the tail.
const WINDOW_LINES: usize = 16_384;
/// A line completing a signal has a template seen at most this often.
const CONTINUATION_MAX: u64 = 3;
/// How many ranked entries are kept for the envelope to choose from.
const KEEP: usize = 64;
/// How many of the best entries get a search string chosen by counting lines.
const SEARCHED: usize = 16;

/// One ranked signal: the best line of its template.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// 1-based line number.
    pub line: u64,
    /// The first and last line its text shows (it may show the lines around it).
    pub span: (u64, u64),
    /// What to show: the line (windowed when long) with the lines that complete it.
    pub text: String,
    /// True when the shown line is long enough that a preview cuts it.
    pub long: bool,
    /// Lines sharing this line's template (1 when it is unique).
    pub count: u64,
    /// `largest of N similar lines`-style note for numeric extremes, `status: 503 in 1 of 500
    /// records (200 in 499)` for a rare value.
    pub note: Option<String>,
    /// For a rare value, the summary's sentence: `1 of 500 records has status 503`.
    pub sentence: Option<String>,
    /// A fixed string that finds this line and few others (for the search hint).
    pub search: String,
    /// Its rank score (higher tells more).
    pub score: f64,
    /// True when [`signals::classify`] counts the line as a failure signal of its own.
    pub classified: bool,
    /// True when the text had bytes that are not UTF-8.
    pub lossy: bool,
}

static PROBLEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:invalid|not ok|differ|differs|mismatch(?:ed)?|missing|cannot|can't|could not|unable to|denied|refused|timed out|sigsegv|sigabrt|sigbus|out of bounds|undefined|not defined|incompatible|unexpected|assert(?:ion)?|no such|not found|leak(?:ed|s)?|aborted|violation|overflow|unreachable|not assignable|expected|got)\b")
        .expect("problem regex")
});

/// A tool's diagnostic code: a severity letter or a short prefix plus digits.
static CODE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(?P<c>[A-Z]{1,4}\d{3,5})\b").expect("code regex"));

/// `ls -l` and `tar -tv` entries: a mode string first. Their words are file names.
static LISTING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[-dlcbps][rwxsStT-]{9}[.+@]?\s").expect("listing regex"));

/// True for a line of a long listing (`ls -l`, `tar -tv`): its words are names, not failures.
pub fn is_listing(line: &[u8]) -> bool {
    LISTING.is_match(line)
}

/// How strongly a line's own words say something went wrong, and the words that said it.
fn severity(line: &[u8]) -> (f64, Option<(usize, String)>) {
    if is_listing(line) {
        return (0.0, None);
    }
    let class = signals::classify(line);
    let code = CODE.captures(line).and_then(|c| c.name("c"));
    let problem = PROBLEM.find(line).filter(|m| {
        !signals::quoted(line, m.start(), m.end()) && !in_name(line, m.start(), m.end())
    });
    if class.is_none() && code.is_none() && problem.is_none() {
        return (0.0, None);
    }
    let mut best: (f64, Option<(usize, String)>) = (0.0, None);
    if let Some(c) = class {
        let at = memchr::memmem::find(line, c.marker.as_bytes()).unwrap_or(0);
        let w = if c.strength == Strength::Strong {
            3.0
        } else {
            1.0
        };
        best = (w, Some((at, c.marker)));
    }
    // Descriptive text (a field's label and value, prose) ranks by its failure marker only.
    if signals::descriptive(line) {
        return best;
    }
    if let Some(c) = code {
        let code = String::from_utf8_lossy(c.as_bytes()).into_owned();
        let w = if code.starts_with(['E', 'F']) || code.starts_with("TS") {
            2.0
        } else {
            1.5
        };
        if w > best.0 {
            best = (w, Some((c.start(), code)));
        } else {
            best.0 += 0.5;
        }
    }
    if let Some(m) = problem {
        let w = 2.0;
        if w > best.0 {
            best = (
                w,
                Some((
                    m.start(),
                    String::from_utf8_lossy(m.as_bytes()).into_owned(),
                )),
            );
        } else {
            best.0 += 0.25;
        }
    }
    best
}

/// True when the phrase at `start..end` is part of a flag, an identifier or a path in code
/// (`--skip-invalid`, `Writer::overflow`, `is_missing`, `missing.rs`).
fn in_name(line: &[u8], start: usize, end: usize) -> bool {
    let before = &line[..start];
    let after = &line[end..];
    before.ends_with(b"-")
        || before.ends_with(b"_")
        || before.ends_with(b"::")
        || before.ends_with(b".")
        || after.starts_with(b"-")
        || after.starts_with(b"_")
        || after.starts_with(b"::")
        || (after.starts_with(b".") && after.get(1).is_some_and(u8::is_ascii_alphanumeric))
}

/// The template of a line: numbers, hex ids, paths and file names, and (outside JSON) quoted
/// strings abstracted to one placeholder each; runs of blanks as one space.
pub fn template(line: &[u8]) -> Vec<u8> {
    let json = matches!(line.trim_ascii_start().first(), Some(b'{' | b'['));
    let mut out = Vec::with_capacity(line.len().min(256));
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        if b.is_ascii_whitespace() {
            while i < line.len() && line[i].is_ascii_whitespace() {
                i += 1;
            }
            out.push(b' ');
            continue;
        }
        if !json
            && matches!(b, b'\'' | b'"' | b'`')
            && let Some(end) = memchr::memchr(b, &line[i + 1..])
        {
            out.push(b'Q');
            i += end + 2;
            continue;
        }
        if is_word(b) {
            let start = i;
            while i < line.len() && is_word(line[i]) {
                i += 1;
            }
            push_word(&line[start..i], &mut out);
            continue;
        }
        out.push(b);
        i += 1;
    }
    out
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-' | b'~' | b'+' | b'@')
}

fn push_word(w: &[u8], out: &mut Vec<u8>) {
    let has_digit = w.iter().any(u8::is_ascii_digit);
    let path = w.contains(&b'/')
        || w.windows(2)
            .any(|p| p[0] == b'.' && p[1].is_ascii_alphabetic())
            && w.first()
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
    if path {
        out.push(b'P');
    } else if w.len() >= 8
        && has_digit
        && w.iter().all(u8::is_ascii_hexdigit)
        && w.iter().any(u8::is_ascii_alphabetic)
    {
        out.push(b'H');
    } else if size_value(w).is_some() {
        // A size with its unit (`4.0K`, `45M`, `1.2GiB`) is one number: `du -h` rows of
        // kilobytes and of megabytes share a template.
        out.push(b'0');
    } else if has_digit {
        // Digits runs become one `0`: `unused12` and `unused7` share a template.
        let mut in_num = false;
        for &b in w {
            if b.is_ascii_digit() || (in_num && matches!(b, b'.' | b',')) {
                if !in_num {
                    out.push(b'0');
                }
                in_num = true;
            } else {
                in_num = false;
                out.push(b);
            }
        }
    } else {
        out.extend_from_slice(w);
    }
}

/// The row key of a template: the template up to its last number, hashed (table rows that
/// differ in their name column share it); 0 for a line without numbers.
fn row_of(t: &[u8]) -> u64 {
    t.iter()
        .rposition(|&b| b == b'0')
        .map_or(0, |end| hash_of(&t[..=end]) | 1)
}

/// The row key of a template without its first field (a name that comes first), apart from
/// every [`row_of`] key; 0 when it has no number or no first field to drop.
fn rest_of(t: &[u8]) -> u64 {
    let Some(space) = t.iter().position(|&b| b == b' ') else {
        return 0;
    };
    if space == 0 || t[..space] == *b"0" {
        return 0;
    }
    let rest = &t[space + 1..];
    rest.iter().rposition(|&b| b == b'0').map_or(0, |end| {
        hash_of(&[b"rest ".as_slice(), &rest[..=end]].concat()) | 1
    })
}

/// The key the rows of one table share, for finding where a table starts: the leading columns
/// of numbers of the line's template when it starts with two or more (a profile's `ncalls
/// tottime …` rows, whatever their name column holds), else its row key (the template up to
/// its last number).
pub fn table_key(clean: &[u8]) -> u64 {
    let t = template(clean);
    let lead = t
        .iter()
        .position(|&b| !matches!(b, b'0' | b' ' | b'.' | b':' | b',' | b'|' | b'%'))
        .unwrap_or(t.len());
    if t[..lead].iter().filter(|&&b| b == b'0').count() >= 2 {
        hash_of(&t[..lead]) | 1
    } else {
        row_of(&t)
    }
}

fn hash_of(bytes: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// The value of a human-readable size, a number with a binary or decimal unit and nothing else
/// (`4.0K`, `45M`, `1.2GiB`, `12kB`, `300B`), in bytes; `None` for any other word.
fn size_value(w: &[u8]) -> Option<f64> {
    let digits = w.iter().position(|b| !(b.is_ascii_digit() || *b == b'.'))?;
    if digits == 0 || !w[0].is_ascii_digit() {
        return None;
    }
    let unit = &w[digits..];
    let power = match unit.first()? {
        b'B' if unit.len() == 1 => 0,
        b'k' | b'K' => 1,
        b'M' => 2,
        b'G' => 3,
        b'T' => 4,
        b'P' => 5,
        _ => return None,
    };
    if !matches!(&unit[1..], b"" | b"B" | b"iB") || (power == 0 && unit.len() > 1) {
        return None;
    }
    let n: f64 = std::str::from_utf8(&w[..digits]).ok()?.parse().ok()?;
    Some(n * 1024f64.powi(power))
}

/// The numbers on a line, in order (digit runs with an optional fraction; a size with its unit,
/// `45M`, as its bytes).
fn numbers(line: &[u8]) -> Vec<f64> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        if line[i].is_ascii_digit() && (i == 0 || !line[i - 1].is_ascii_alphabetic()) {
            let start = i;
            while i < line.len() && (line[i].is_ascii_digit() || line[i] == b'.') {
                i += 1;
            }
            let word_end = line[i..]
                .iter()
                .position(|&b| !b.is_ascii_alphanumeric())
                .map_or(line.len(), |k| i + k);
            if let Some(v) = size_value(&line[start..word_end]) {
                out.push(v);
                i = word_end;
            } else if let Some(v) = std::str::from_utf8(&line[start..i])
                .ok()
                .and_then(|s| s.trim_end_matches('.').parse::<f64>().ok())
            {
                out.push(v);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The lines the ranking reads: `(line number, bytes)` of the retained head and tail, each line
/// once, partial lines at the cuts left out.
pub fn window_lines(
    head: &[u8],
    tail: &[u8],
    tail_offset: u64,
    total_lines: u64,
) -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    // Each part keeps at most half of WINDOW_LINES (its first lines for the head, its last for
    // the tail), so ten million two-byte lines cost no more memory than long ones.
    let push_part = |bytes: &[u8], first: u64, from_end: bool, out: &mut Vec<(u64, Vec<u8>)>| {
        if bytes.is_empty() {
            return;
        }
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let all: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
        let keep = WINDOW_LINES / 2;
        let skip = if from_end {
            all.len().saturating_sub(keep)
        } else {
            0
        };
        for (i, l) in all.iter().enumerate().skip(skip).take(keep) {
            out.push((first + i as u64, l.to_vec()));
        }
    };
    let push_all = |bytes: &[u8], first: u64, out: &mut Vec<(u64, Vec<u8>)>| {
        push_part(bytes, first, false, out);
    };
    if tail_offset <= head.len() as u64 {
        // The head and the tail overlap: together they are the whole input.
        let mut whole = head.to_vec();
        whole.extend_from_slice(&tail[(head.len() - tail_offset as usize).min(tail.len())..]);
        let n = super::count_lines(&whole) as usize;
        if n <= WINDOW_LINES {
            push_all(&whole, 1, &mut out);
        } else {
            let cut = memchr::memchr_iter(b'\n', &whole)
                .nth(WINDOW_LINES / 2 - 1)
                .map_or(whole.len(), |i| i + 1);
            push_all(&whole[..cut], 1, &mut out);
            let rest = &whole[cut..];
            push_part(rest, (WINDOW_LINES / 2) as u64 + 1, true, &mut out);
        }
        return out;
    }
    if let Some(nl) = memchr::memrchr(b'\n', head) {
        push_all(&head[..=nl], 1, &mut out);
    }
    if let Some(nl) = memchr::memchr(b'\n', tail) {
        let rest = &tail[nl + 1..];
        let n = super::count_lines(rest);
        push_part(rest, total_lines + 1 - n, true, &mut out);
    }
    out
}

struct Line {
    no: u64,
    clean: Vec<u8>,
    tmpl: u64,
    /// The template up to its last number (a table row's name column cut off), for comparing
    /// the numbers of rows that differ only in their names; 0 for a line without numbers.
    row: u64,
    /// The same without the template's first field, for rows whose name comes first (a
    /// profile's `reconcile_accounts  812  9812` among `ledger_fn_17  40  210`); 0 when the
    /// rest has no number.
    rest: u64,
}

/// Renders the severity and message fields of a JSON object line (`{"level":"error",…}`), or
/// `None` for another line. Supplied by the caller (the JSON engine's
/// `json::analyze::severity_fields`), so text analysis itself reads no JSON.
pub type JsonFields = fn(&[u8]) -> Option<String>;

/// What the ranking found: the entries, best first, and how many distinct lines it counts as
/// signals beyond the failure lines [`signals::classify`] finds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ranking {
    /// The best entry of each template, best first, at most 64.
    pub entries: Vec<Ranked>,
    /// Distinct window lines that rank by a tool code or a problem phrase only, plus one per
    /// entry of a numeric extreme or a table: with the classified lines, the `total` every
    /// entry's `count` is part of.
    pub extra: u64,
}

/// Ranks the window's lines and the streamed candidates; the best entry of each template,
/// best first, at most 64. `json_fields`, when given, puts a JSON line's severity and
/// message first in its text.
pub fn rank(
    window: &[(u64, Vec<u8>)],
    streamed: &[Signal],
    total_lines: u64,
    json_fields: Option<JsonFields>,
) -> Ranking {
    let lines: Vec<Line> = window
        .iter()
        .map(|(no, raw)| {
            let no = *no;
            let clean = super::clean::clean_line(raw);
            let t = template(&clean);
            let tmpl = hash_of(&t);
            let row = row_of(&t);
            let rest = rest_of(&t);
            Line {
                no,
                clean,
                tmpl,
                row,
                rest,
            }
        })
        .collect();
    let mut counts: HashMap<u64, u64> = HashMap::new();
    for l in &lines {
        *counts.entry(l.tmpl).or_default() += 1;
    }
    let sevs: Vec<(f64, Option<(usize, String)>)> =
        lines.iter().map(|l| severity(&l.clean)).collect();
    // The distinct signal lines of each template, the `count` an entry shows: identical lines
    // count once, as in the whole input's `total`.
    let mut distinct: HashMap<u64, std::collections::HashSet<u64>> = HashMap::new();
    let mut extra = 0u64;
    for (l, (sev, _)) in lines.iter().zip(&sevs) {
        if *sev > 0.0
            && distinct
                .entry(l.tmpl)
                .or_default()
                .insert(hash_of(&l.clean))
            && signals::classify(&l.clean).is_none()
        {
            extra += 1;
        }
    }
    let in_window = |no: u64| lines.binary_search_by_key(&no, |l| l.no).is_ok();
    let middle: Vec<&Signal> = streamed.iter().filter(|s| !in_window(s.line)).collect();
    let middle_tmpl: Vec<u64> = middle
        .iter()
        .map(|s| hash_of(&template(s.text.lines().next().unwrap_or("").as_bytes())))
        .collect();
    let mut middle_counts: HashMap<u64, u64> = HashMap::new();
    for &t in &middle_tmpl {
        *counts.entry(t).or_default() += 1;
        *middle_counts.entry(t).or_default() += 1;
    }
    let shown_count = |t: u64| {
        distinct.get(&t).map_or(0, |d| d.len() as u64) + middle_counts.get(&t).copied().unwrap_or(0)
    };
    let n = (lines.len() + middle.len()).max(1) as f64;
    let total = total_lines.max(1) as f64;
    let rarity = |count: u64| ((n + 1.0) / count as f64).log2().clamp(0.0, 10.0);
    // The best candidate of each template: (score, index into lines or middle).
    let mut best: HashMap<u64, (f64, Ranked)> = HashMap::new();
    let mut offer = |tmpl: u64, r: Ranked| match best.get(&tmpl) {
        Some((s, old)) if *s > r.score || (*s == r.score && old.line > r.line) => {}
        _ => {
            best.insert(tmpl, (r.score, r));
        }
    };
    let mut scores: Vec<f64> = vec![0.0; lines.len()];
    for (i, l) in lines.iter().enumerate() {
        let sev = sevs[i].0;
        if sev == 0.0 {
            continue;
        }
        let count = counts[&l.tmpl];
        let differs = [i.checked_sub(1), Some(i + 1)]
            .iter()
            .flatten()
            .filter_map(|&j| lines.get(j))
            .all(|o| o.tmpl != l.tmpl);
        scores[i] = sev * (1.0 + rarity(count))
            + 0.5 * (l.no as f64 / total)
            + if differs { 0.3 } else { 0.0 };
    }
    // A multi-line diagnostic is shown from its header: a continuation line (indented, `-->`,
    // `expected …`) that ranks lends its score to the header above it that ranks too, whose
    // text shows it, and is not an entry of its own.
    for i in (0..lines.len()).rev() {
        if scores[i] == 0.0 {
            continue;
        }
        if let Some(h) = header_of(&lines, &sevs, &counts, i) {
            scores[h] = scores[h].max(scores[i]);
            scores[i] = 0.0;
        }
    }
    for (i, l) in lines.iter().enumerate() {
        if scores[i] == 0.0 {
            continue;
        }
        let (at, marker) = sevs[i].1.clone().unwrap_or((0, String::new()));
        let (text, span, long, lossy) = shown(&lines, i, at, &counts, json_fields);
        offer(
            l.tmpl,
            Ranked {
                line: l.no,
                span,
                text,
                long,
                count: shown_count(l.tmpl).max(1),
                note: None,
                sentence: None,
                search: marker,
                score: scores[i],
                classified: signals::classify(&l.clean).is_some(),
                lossy,
            },
        );
    }
    for (s, &t) in middle.iter().zip(&middle_tmpl) {
        let sev = if s.strength == Strength::Strong {
            3.0
        } else {
            1.0
        };
        let count = counts[&t];
        let score = sev * (1.0 + rarity(count)) + 0.5 * (s.line as f64 / total);
        offer(
            t,
            Ranked {
                line: s.line,
                span: (s.line, s.line),
                text: s.text.clone(),
                long: false,
                count: shown_count(t).max(1),
                note: None,
                sentence: None,
                search: s.marker.clone(),
                score,
                classified: true,
                lossy: s.lossy,
            },
        );
    }
    // A table's first rows and an extreme are entries of their own, beside any severity entry
    // of their template: keyed by their line, apart from the template keys.
    let own_key = |line: u64| hash_of(&[b"line".as_slice(), &line.to_le_bytes()].concat());
    if let Some(r) = table_after_prelude(&lines) {
        extra += 1;
        offer(own_key(r.line), r);
    }
    for r in extremes(&lines, &counts) {
        extra += 1;
        offer(own_key(r.line), r);
    }
    // The window as (number, text) pairs, for the record readers of `fields`.
    let view: Vec<(u64, &[u8])> = lines.iter().map(|l| (l.no, l.clean.as_slice())).collect();
    for r in rare_rows(&lines, &view) {
        extra += 1;
        offer(own_key(r.line), r);
    }
    if let Some(r) = rare_block(&lines, &view) {
        extra += 1;
        offer(own_key(r.line), r);
    }
    let mut all: Vec<Ranked> = best.into_values().map(|(_, r)| r).collect();
    all.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(b.line.cmp(&a.line))
    });
    all.truncate(KEEP);
    // The hint searches for one of the first entries (the best shown); the rest keep their
    // marker, so the cost stays a few scans of the window.
    for r in all.iter_mut().take(SEARCHED) {
        r.search = search_string(&lines, r);
    }
    Ranking {
        entries: all,
        extra,
    }
}

/// The header line a continuation line `i` belongs to: walking up over lines that continue
/// (consecutive, at most 4), the first line that does not, when it ranks itself.
/// Only a continuation the header's text shows ([`shown`]: the next lines of rare templates,
/// at most 4) is taken in.
fn header_of(
    lines: &[Line],
    sevs: &[(f64, Option<(usize, String)>)],
    counts: &HashMap<u64, u64>,
    i: usize,
) -> Option<usize> {
    if !continues(&lines[i].clean) {
        return None;
    }
    let mut j = i;
    for _ in 0..4 {
        if counts[&lines[j].tmpl] > CONTINUATION_MAX {
            return None;
        }
        let p = j.checked_sub(1)?;
        if lines[p].no + 1 != lines[j].no {
            return None;
        }
        if !continues(&lines[p].clean) {
            return (sevs[p].0 > 0.0).then_some(p);
        }
        j = p;
    }
    None
}

/// Entries whose number stands far out of the other lines of their template: the largest value
/// of a numeric slot, at least 3× the next (20× when the slot takes fewer than 5 values) and
/// 10× the median.
fn extremes(lines: &[Line], counts: &HashMap<u64, u64>) -> Vec<Ranked> {
    let mut by_tmpl: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut by_rest: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, l) in lines.iter().enumerate() {
        if l.row != 0 {
            by_tmpl.entry(l.row).or_default().push(i);
        }
        if l.rest != 0 {
            by_rest.entry(l.rest).or_default().push(i);
        }
    }
    // Rows whose names come first are compared as one table too, when their names take more
    // than one template (else their row key already groups them).
    for (k, v) in by_rest {
        let first = lines[v[0]].row;
        if v.iter().any(|&i| lines[i].row != first) {
            by_tmpl.insert(k, v);
        }
    }
    // In a tree's listing (`du -a`: a directory's row sums the rows under it) only the
    // leaves are compared, else the root would always be the largest.
    for v in by_tmpl.values_mut() {
        let mut paths: Vec<(&[u8], usize)> = v
            .iter()
            .map(|&i| (last_field(&lines[i].clean), i))
            .collect();
        paths.sort_unstable();
        let inner: std::collections::HashSet<usize> = paths
            .iter()
            .filter(|(p, _)| {
                let mut under = p.to_vec();
                if !under.ends_with(b"/") {
                    under.push(b'/');
                }
                let k = paths.partition_point(|(q, _)| *q < under.as_slice());
                paths.get(k).is_some_and(|(q, _)| q.starts_with(&under))
            })
            .map(|&(_, i)| i)
            .collect();
        if !inner.is_empty() {
            v.retain(|i| !inner.contains(i));
        }
    }
    by_tmpl.retain(|_, v| v.len() >= EXTREME_MIN_LINES);
    let mut keys: Vec<u64> = by_tmpl.keys().copied().collect();
    keys.sort_unstable();
    let mut out = Vec::new();
    for t in keys {
        let idx = &by_tmpl[&t];
        let nums: Vec<Vec<f64>> = idx.iter().map(|&i| numbers(&lines[i].clean)).collect();
        let width = nums.iter().map(Vec::len).min().unwrap_or(0);
        let mut found: Vec<(f64, usize)> = Vec::new();
        for slot in 0..width {
            let mut vals: Vec<(f64, usize)> =
                nums.iter().zip(idx).map(|(v, &i)| (v[slot], i)).collect();
            vals.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
            let (max, at) = vals[0];
            let second = vals[1].0;
            let median = vals[vals.len() / 2].0;
            let mut distinct: Vec<f64> = vals.iter().map(|v| v.0).collect();
            distinct.dedup();
            let factor = if distinct.len() < 5 { 20.0 } else { 3.0 };
            if second > 0.0 && max >= factor * second && max >= 10.0 * median.max(f64::MIN_POSITIVE)
            {
                found.push((max / second, at));
            }
        }
        found.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        found.dedup_by_key(|f| f.1);
        // Numbers in descriptive text (`POSIX 1003.1`, a subject's `873 > 616`) are no table's
        // (checked on the few lines found, not on every line compared).
        found.retain(|&(_, i)| !signals::descriptive(&lines[i].clean));
        for &(_, i) in found.iter().take(2) {
            let l = &lines[i];
            let mut text = String::new();
            let similar = idx.len() as u64;
            // A record header on the line before (`Benchmark 3: …`) names the entry.
            if let Some(p) = i.checked_sub(1).map(|j| &lines[j])
                && p.row != l.row
                && idx.binary_search(&(i - 1)).is_err()
                && p.no + 1 == l.no
                && counts[&p.tmpl] >= 2
            {
                text.push_str(&window_text(&p.clean, 0).0);
                text.push('\n');
            }
            let (t, lossy) = window_text(&l.clean, 0);
            text.push_str(&t);
            out.push(Ranked {
                line: l.no,
                span: (l.no - u64::from(text.contains('\n')), l.no),
                text,
                long: char_len(&l.clean) > WHOLE_CHARS,
                count: similar,
                note: Some(format!(
                    "largest of {} similar lines",
                    crate::limits::group_digits(similar)
                )),
                sentence: None,
                search: String::new(),
                score: 12.0 + 0.5 * (l.no as f64 / lines.len().max(1) as f64),
                classified: signals::classify(&l.clean).is_some(),
                lossy,
            });
        }
    }
    out
}

/// Rare values entries shown at most.
const RARE_ROWS: usize = 2;

/// Entries for the records that hold a rare value of a field ([`super::fields`]): the line,
/// named by its note and sentence, found by its `key=value` pair or its value.
fn rare_rows(lines: &[Line], view: &[(u64, &[u8])]) -> Vec<Ranked> {
    super::fields::rare_values(view)
        .into_iter()
        .take(RARE_ROWS)
        .map(|v| {
            let l = &lines[v.index];
            let (text, lossy) = window_text(&l.clean, 0);
            Ranked {
                line: l.no,
                span: (l.no, l.no),
                text,
                long: char_len(&l.clean) > WHOLE_CHARS,
                count: v.holders as u64,
                note: Some(v.note()),
                sentence: Some(v.sentence()),
                search: v.search.clone(),
                score: 12.0 + 0.5 * (l.no as f64 / lines.len().max(1) as f64),
                classified: signals::classify(&l.clean).is_some(),
                lossy,
            }
        })
        .collect()
}

/// Lines of a block that differs ([`super::fields::rare_block`]) its entry shows at most.
const BLOCK_SHOWN: usize = 8;

/// The entry for a block laid out unlike the others: its first lines (at most 8), named by its
/// note and sentence.
fn rare_block(lines: &[Line], view: &[(u64, &[u8])]) -> Option<Ranked> {
    let b = super::fields::rare_block(view)?;
    let shown = &lines[b.first..=b.last.min(b.first + BLOCK_SHOWN - 1)];
    let (text, lossy) = joined_text(shown);
    let head = &lines[b.first];
    Some(Ranked {
        line: head.no,
        span: (head.no, shown[shown.len() - 1].no),
        text,
        long: false,
        count: b.blocks as u64,
        note: Some(b.note()),
        sentence: Some(b.sentence()),
        search: String::from_utf8_lossy(head.clean.trim_ascii()).into_owned(),
        score: 11.5 + 0.5 * (head.no as f64 / lines.len().max(1) as f64),
        classified: false,
        lossy,
    })
}

/// The lines' texts as a signal shows them, one per line (each windowed when long), and whether
/// any had bytes that are not UTF-8.
fn joined_text(lines: &[Line]) -> (String, bool) {
    let mut text = String::new();
    let mut lossy = false;
    for l in lines {
        let (t, lo) = window_text(&l.clean, 0);
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&t);
        lossy |= lo;
    }
    (text, lossy)
}

/// The last blank-separated field of a line (a listing's name column).
fn last_field(line: &[u8]) -> &[u8] {
    let t = line.trim_ascii_end();
    t.iter()
        .rposition(|b| b.is_ascii_whitespace())
        .map_or(t, |k| &t[k + 1..])
}

/// Rows of a table make this many lines of one row template at least.
const TABLE_MIN_ROWS: usize = 8;
/// A prelude is this many lines at least, none of them a row of the table after it.
const PRELUDE_MIN_LINES: usize = 20;

/// The first rows of the first table that follows a prelude (a profiler's report after the
/// program's own log): its header line and first two rows, since a head preview of a few lines
/// cannot reach them.
fn table_after_prelude(lines: &[Line]) -> Option<Ranked> {
    let mut i = PRELUDE_MIN_LINES;
    while i + TABLE_MIN_ROWS <= lines.len() {
        let row = lines[i].row;
        let run = lines[i..]
            .iter()
            .zip(&lines[i - 1..])
            .take_while(|(l, p)| l.row == row && l.no == p.no + 1)
            .count();
        if row == 0 || run < TABLE_MIN_ROWS {
            i += run.max(1);
            continue;
        }
        let prelude = lines[..i].iter().rev().take_while(|l| l.row != row).count();
        if prelude < PRELUDE_MIN_LINES
            || lines[i - PRELUDE_MIN_LINES].no + PRELUDE_MIN_LINES as u64 != lines[i].no
        {
            return None;
        }
        let header = &lines[i - 1];
        let start = if header.clean.iter().any(u8::is_ascii_digit) || header.clean.is_empty() {
            i
        } else {
            i - 1
        };
        let (text, lossy) = joined_text(&lines[start..i + 2]);
        return Some(Ranked {
            line: lines[start].no,
            span: (lines[start].no, lines[i + 1].no),
            text,
            long: false,
            count: run as u64,
            note: Some(format!(
                "first rows of a {}-row table after {} lines of other output",
                crate::limits::group_digits(run as u64),
                crate::limits::group_digits(prelude as u64)
            )),
            sentence: None,
            search: String::new(),
            score: 11.0,
            classified: false,
            lossy,
        });
    }
    None
}

fn char_len(bytes: &[u8]) -> usize {
    super::char_count(bytes)
}

/// The text of line `i` as a signal shows it: windowed around byte `at`, JSON fields that carry
/// severity and message first, with the neighbouring lines that complete it.
fn shown(
    lines: &[Line],
    i: usize,
    at: usize,
    counts: &HashMap<u64, u64>,
    json_fields: Option<JsonFields>,
) -> (String, (u64, u64), bool, bool) {
    let l = &lines[i];
    let (mut text, mut lossy) = match json_fields.and_then(|f| f(&l.clean)) {
        Some(first) => {
            let (rest, lossy) = window_text(&l.clean, at);
            (format!("{first} {rest}"), lossy)
        }
        None => window_text(&l.clean, at),
    };
    let long = char_len(&l.clean) > WHOLE_CHARS;
    let neighbour = signals::classify(&l.clean).map(|c| c.neighbour);
    let mut span = (l.no, l.no);
    if neighbour == Some(Neighbour::Before)
        && let Some(p) = i.checked_sub(1).and_then(|j| lines.get(j))
        && p.no + 1 == l.no
    {
        let (t, lo) = window_text(&p.clean, 0);
        text = format!("{t}\n{text}");
        lossy |= lo;
        span.0 = p.no;
    }
    // The lines that complete it: the message under a header, a pair of expected/got values,
    // a diff's lines, the frames under an exception.
    let mut budget = 320usize;
    let mut j = i + 1;
    let after =
        neighbour == Some(Neighbour::After) || l.clean.windows(11).any(|w| w == b"panicked at");
    while let Some(n) = lines.get(j) {
        if n.no != lines[j - 1].no + 1 || budget == 0 {
            break;
        }
        let first = j == i + 1;
        // A line of a common template (`   Compiling crate_7`) is the output going on, not
        // this signal's detail.
        if !(continues(&n.clean) || first && after) || counts[&n.tmpl] > CONTINUATION_MAX {
            break;
        }
        let (t, lo) = window_text(&n.clean, 0);
        if t.len() > budget {
            break;
        }
        budget -= t.len();
        text.push('\n');
        text.push_str(&t);
        lossy |= lo;
        span.1 = n.no;
        j += 1;
        if j > i + 4 {
            break;
        }
    }
    (text, span, long, lossy)
}

/// True for a line that continues the signal above it.
fn continues(line: &[u8]) -> bool {
    let t = line.trim_ascii_start();
    if t.is_empty() {
        return false;
    }
    let indented = t.len() < line.len();
    let starts = |p: &[u8]| t.len() >= p.len() && t[..p.len()].eq_ignore_ascii_case(p);
    indented
        || starts(b"left:")
        || starts(b"right:")
        || starts(b"expected")
        || starts(b"got")
        || starts(b"actual")
        || starts(b"assertion")
        || starts(b"E ")
        || starts(b"+ ")
        || starts(b"- ")
        || starts(b"-->")
        || starts(b"at ")
}

/// A line as a signal shows it: whole when short; else its start, a window around byte `at`
/// (the decisive words) and its end, joined by `…`.
pub fn window_text(line: &[u8], at: usize) -> (String, bool) {
    let lossy = std::str::from_utf8(line).is_err();
    let s = String::from_utf8_lossy(line);
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= WHOLE_CHARS {
        return (s.into_owned(), lossy);
    }
    let at_char = super::char_count(&line[..at.min(line.len())]);
    let (head, around, tail) = (40usize, 120usize, 60usize);
    let mut spans: Vec<(usize, usize)> = vec![(0, head)];
    let a = at_char.saturating_sub(30);
    spans.push((a, (a + around).min(chars.len())));
    spans.push((chars.len() - tail, chars.len()));
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (s0, e0) in spans {
        match merged.last_mut() {
            Some((_, e)) if s0 <= *e => *e = (*e).max(e0),
            _ => merged.push((s0, e0)),
        }
    }
    let mut out = String::new();
    for (k, (s0, e0)) in merged.iter().enumerate() {
        if k > 0 || *s0 > 0 {
            out.push('…');
        }
        out.extend(&chars[*s0..*e0]);
    }
    if merged.last().is_some_and(|&(_, e)| e < chars.len()) {
        out.push('…');
    }
    (out, lossy)
}

/// A fixed string from the entry's line that matches as few window lines as possible: its
/// marker or code first, then its longer words.
fn search_string(lines: &[Line], r: &Ranked) -> String {
    let Ok(i) = lines.binary_search_by_key(&r.line, |l| l.no) else {
        return r.search.clone();
    };
    let line = String::from_utf8_lossy(&lines[i].clean).into_owned();
    let mut cands: Vec<String> = Vec::new();
    if !r.search.is_empty() {
        cands.push(r.search.clone());
    }
    let mut words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | ',' | '(' | ')'))
        .map(|w| w.trim_matches(|c: char| matches!(c, ':' | ';' | '.' | '[' | ']' | '{' | '}')))
        .filter(|w| w.len() >= 4 && w.len() <= 80)
        .collect();
    words.sort_by_key(|w| std::cmp::Reverse(w.len()));
    cands.extend(words.into_iter().take(12).map(str::to_string));
    let mut best: Option<(usize, String)> = None;
    for c in cands {
        let finder = memchr::memmem::Finder::new(c.as_bytes());
        let hits = lines
            .iter()
            .filter(|l| finder.find(&l.clean).is_some())
            .count();
        if hits == 0 {
            continue;
        }
        if best.as_ref().is_none_or(|(h, _)| hits < *h) {
            best = Some((hits, c));
        }
    }
    best.map_or_else(|| r.search.clone(), |(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> String {
        String::from_utf8(template(s.as_bytes())).unwrap()
    }

    #[test]
    fn templates_abstract_numbers_paths_quotes_and_ids() {
        assert_eq!(
            t("mod07.py:162:11: C0116: Missing docstring"),
            t("mod23.py:1:4: C0116: Missing docstring")
        );
        assert_ne!(
            t("mod07.py:162:11: E1120: No value"),
            t("mod07.py:162:11: C0116: Missing docstring")
        );
        assert_eq!(
            t("warning: unused variable ‘unused12’"),
            t("warning: unused variable ‘unused7’")
        );
        assert_eq!(t("open 'a b' = 3"), t("open 'x' = 41"));
        assert_eq!(t("id deadbeef1234 done"), t("id 0123abcdef99 done"));
        // JSON lines keep their strings: only the numbers differ between records.
        assert_ne!(t(r#"{"code":"a","line":1}"#), t(r#"{"code":"b","line":1}"#));
        assert_eq!(
            t(r#"{"code":"a","line":1}"#),
            t(r#"{"code":"a","line":20}"#)
        );
    }

    fn ranked(text: &str) -> Vec<Ranked> {
        let lines: Vec<(u64, Vec<u8>)> = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i as u64 + 1, l.as_bytes().to_vec()))
            .collect();
        rank(&lines, &[], lines.len() as u64, None).entries
    }

    #[test]
    fn a_rare_diagnostic_outranks_a_thousand_common_ones() {
        let mut log = String::new();
        for i in 0..1000 {
            log.push_str(&format!("m{i}.py:{i}:1: error: line too long ({i} > 80)\n"));
            if i == 400 {
                log.push_str("m9.py:3:7: E1120: No value for argument 'b'\n");
            }
        }
        let r = ranked(&log);
        assert!(r[0].text.contains("E1120"), "{r:?}");
        assert_eq!(r[0].count, 1);
        assert_eq!(r[1].count, 1000);
        assert_eq!(r[0].search, "E1120");
    }

    #[test]
    fn problem_phrases_without_failure_words_are_candidates() {
        let mut log = String::new();
        for i in 0..300 {
            log.push_str(&format!("ok {i} - adds {i}\n"));
        }
        log.push_str("not ok 301 - adds 41\n");
        assert!(ranked(&log)[0].text.starts_with("not ok 301"));
    }

    #[test]
    fn listings_never_rank_by_their_file_names() {
        let mut log = String::new();
        for i in 0..50 {
            log.push_str(&format!(
                "-rw-r--r--  1 u u {} 2026-01-01 file{i}.c\n",
                100 + i
            ));
        }
        log.push_str("-rw-r--r--  1 u u 120 2026-01-01 AddressSanitizer.h\n");
        log.push_str("-rw-r--r--  1 u u 120 2026-01-01 errors\n");
        assert!(ranked(&log).is_empty());
    }

    #[test]
    fn a_number_far_out_of_its_template_is_named() {
        let mut log = String::new();
        for i in 0..100 {
            let d = if i == 63 {
                0.6
            } else {
                0.001 * (i % 7) as f64 + 0.002
            };
            log.push_str(&format!("{d:.3}s call test_x.py::test_{i}\n"));
        }
        let r = ranked(&log);
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(r[0].text.contains("test_63"));
        assert_eq!(r[0].note.as_deref(), Some("largest of 100 similar lines"));
    }

    #[test]
    fn a_row_whose_name_differs_is_compared_with_its_table() {
        // A profile: names first, the one slow function named unlike the others.
        let mut log = String::from("function    calls   total_ms\n");
        for i in 0..300 {
            let (name, total) = if i == 188 {
                ("reconcile_accounts".to_string(), 9812)
            } else {
                (format!("ledger_fn_{i:03}"), 5 + i % 390)
            };
            log.push_str(&format!(
                "{name:<24} {:>6} {total:>8}\n",
                10 + i * 13 % 4000
            ));
        }
        let r = ranked(&log);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].line, 190);
        // The row alone: the row before it is of its own table, no record header.
        assert!(
            r[0].text.starts_with("reconcile_accounts"),
            "{:?}",
            r[0].text
        );
        assert_eq!(r[0].note.as_deref(), Some("largest of 300 similar lines"));
    }

    #[test]
    fn a_block_laid_out_unlike_the_others_is_an_entry_showing_its_lines() {
        let mut log = String::new();
        for i in 0..100 {
            log.push_str(&format!(
                "commit {i:040x}\nAuthor: A <a@x>\nDate:   Tue Jan 28 2025\n\n    subject {i}\n"
            ));
            if i == 40 {
                log.push_str("    \n    the body that says why\n");
            }
            log.push('\n');
        }
        let r = ranked(&log);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].line, 40 * 6 + 1);
        assert!(r[0].text.contains("subject 40") && r[0].text.contains("the body"));
        assert_eq!(
            r[0].sentence.as_deref(),
            Some("1 of 99 blocks starting \"commit\" is laid out unlike the others")
        );
    }

    #[test]
    fn sizes_with_units_are_one_number_and_a_trees_leaves_are_compared() {
        assert_eq!(t("4.0K\t./a/b.txt"), t("45M\t./a/c.webm"));
        assert_eq!(size_value(b"45M"), Some(45.0 * 1024.0 * 1024.0));
        assert_eq!(size_value(b"1.5KiB"), Some(1536.0));
        assert_eq!(size_value(b"300B"), Some(300.0));
        assert_eq!(size_value(b"12s"), None);
        assert_eq!(size_value(b"E1120"), None);
        assert_eq!(numbers(b"4.0K\t./x 2"), vec![4096.0, 2.0]);
        // `du -a`: directories sum what is under them; the largest file stands out.
        let mut log = String::new();
        for d in 0..10 {
            for f in 0..10 {
                let size = if (d, f) == (6, 3) { "45M" } else { "12K" };
                log.push_str(&format!("{size}\t./d{d}/f{f}.bin\n"));
            }
            log.push_str(&format!(
                "{}\t./d{d}\n",
                if d == 6 { "46M" } else { "120K" }
            ));
        }
        log.push_str("47M\t.\n");
        let r = ranked(&log);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].text, "45M\t./d6/f3.bin");
        assert_eq!(r[0].note.as_deref(), Some("largest of 100 similar lines"));
    }

    #[test]
    fn a_continuation_line_is_shown_under_its_header() {
        let mut log = String::new();
        for i in 0..300 {
            log.push_str(&format!("WARN job {i} slow\n"));
        }
        log.push_str("ERROR job 77 failed:\n    cannot open /data/shard77: disk quota exceeded\n");
        let r = ranked(&log);
        assert!(
            r[0].text
                .starts_with("ERROR job 77 failed:\n    cannot open /data/shard77"),
            "{r:?}"
        );
        assert!(!r.iter().any(|x| x.text.starts_with("    cannot")), "{r:?}");
    }

    #[test]
    fn long_lines_show_the_words_that_decide() {
        let mut line = "x".repeat(500);
        line.push_str(" error: the real reason ");
        line.push_str(&"y".repeat(500));
        let at = line.find("error").unwrap();
        let (w, _) = window_text(line.as_bytes(), at);
        assert!(w.contains("error: the real reason"), "{w}");
        assert!(w.chars().count() < 260);
    }

    #[test]
    fn window_lines_cover_a_small_input_once_and_number_a_cut_tail() {
        let text = b"a\nb\nc\nd\n";
        let w = window_lines(&text[..6], &text[4..], 4, 4);
        let want: Vec<(u64, Vec<u8>)> = vec![
            (1, b"a".to_vec()),
            (2, b"b".to_vec()),
            (3, b"c".to_vec()),
            (4, b"d".to_vec()),
        ];
        assert_eq!(w, want);
        // Head "a\nb" (cut mid-line), tail "c\nd\ne\n" of a 5-line input starting mid-line.
        let w = window_lines(b"a\nb", b"x\nd\ne\n", 100, 5);
        let want: Vec<(u64, Vec<u8>)> =
            vec![(1, b"a".to_vec()), (4, b"d".to_vec()), (5, b"e".to_vec())];
        assert_eq!(w, want);
    }
}
