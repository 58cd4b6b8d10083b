//! `search`: occurrences of a pattern in raw bytes, counted exactly and returned a page at a time.
//!
//! The ripgrep split: a [`Pattern`] (grep-regex matcher) drives a grep-searcher `Searcher`,
//! which feeds matching lines to a paging sink that counts every occurrence, skips
//! [`Page::offset`] of them and keeps [`Page::limit`] with their context; [`printer`] renders
//! the resulting [`SearchResult`]. Nothing in this module prints.
//!
//! Two ways to read a source. Line-oriented files are streamed through grep-searcher's
//! buffer (fast, a few MiB of heap). A file whose first 64 KiB hold no line break (minified
//! JSON) is memory-mapped and searched as one slice, since streaming would buffer its giant
//! line on the heap. A streamed file that turns out to hold a line longer than the heap
//! limit is searched again through a map.

mod matcher;
mod paths;
pub mod printer;
mod sink;
mod window;

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};

pub use matcher::{Pattern, PatternError, PatternMode, PatternOptions};
pub use paths::attach_paths;
pub use window::{CUT_MARKER, Window};

use crate::text::analyze::count_byte;
use sink::{CountSink, PageSink};

/// Which occurrences to return and how much of their lines to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Occurrences to skip before the first returned one (`--offset`).
    pub offset: u64,
    /// Occurrences to return at most (`--limit`).
    pub limit: u64,
    /// Lines of context before each returned occurrence (`-B`, `-C`).
    pub before_context: usize,
    /// Lines of context after each returned occurrence (`-A`, `-C`).
    pub after_context: usize,
    /// Lines longer than this many characters are shown as a window (`--max-columns`);
    /// 0 shows whole lines (within `max_bytes`).
    pub max_columns: usize,
    /// The page's rows (line number, column and shown text of every match and context line)
    /// total at most this many bytes (`--max-bytes`); a page that reaches it ends early and
    /// its `next` offset continues. 0 means no limit (`--unbounded`).
    pub max_bytes: u64,
}

impl Page {
    /// The byte bound, `u64::MAX` for none.
    fn budget(&self) -> u64 {
        if self.max_bytes == 0 {
            u64::MAX
        } else {
            self.max_bytes
        }
    }

    /// The page with its context counts cut to what the byte bound can show (a row costs at
    /// least two bytes), so that `-C 18446744073709551615` walks no more lines than it prints.
    fn within_budget(&self) -> Page {
        let most = usize::try_from(self.budget() / 2).unwrap_or(usize::MAX);
        Page {
            before_context: self.before_context.min(most),
            after_context: self.after_context.min(most),
            ..self.clone()
        }
    }
}

impl Default for Page {
    fn default() -> Page {
        Page {
            offset: 0,
            limit: crate::limits::SEARCH_LIMIT,
            before_context: 0,
            after_context: 0,
            max_columns: crate::limits::SEARCH_MAX_COLUMNS,
            max_bytes: crate::limits::SEARCH_MAX_BYTES,
        }
    }
}

/// One occurrence of the pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// 1-based line number.
    pub line: u64,
    /// 1-based byte column of the occurrence's first byte within its line.
    pub column: u64,
    /// 0-based offset of the occurrence's first byte in the source.
    pub byte_offset: u64,
    /// Length of the occurrence in bytes.
    pub len: u64,
    /// With [`attach_paths`]: the RFC 9535 normalized path of the innermost JSON value (or
    /// key) containing the occurrence.
    pub path: Option<String>,
    /// With [`attach_paths`]: the occurrence is inside an object key, and `path` is the
    /// object's path.
    pub in_key: bool,
    /// The part of the line shown for this occurrence, centred on it.
    pub window: Window,
    /// Up to `before_context` lines before this one, in order.
    pub before: Vec<ContextLine>,
    /// Up to `after_context` lines after this one, in order.
    pub after: Vec<ContextLine>,
}

/// A line shown as context, cut to `max_columns` characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextLine {
    /// 1-based line number.
    pub line: u64,
    /// The shown part of the line (its beginning).
    pub window: Window,
}

/// One page of occurrences and the exact total over the whole source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResult {
    /// The returned occurrences, in source order.
    pub matches: Vec<Match>,
    /// Occurrences in the whole source.
    pub total_matches: u64,
    /// The page's requested offset.
    pub offset: u64,
    /// The page's requested limit.
    pub limit: u64,
    /// How the patterns were interpreted.
    pub pattern_mode: PatternMode,
    /// With `--paths --skip-invalid` on NDJSON: the lines skipped (up to the last match)
    /// because they are not exactly one JSON value.
    pub skipped_lines: Option<u64>,
}

impl SearchResult {
    /// Whether occurrences follow this page.
    pub fn has_more(&self) -> bool {
        self.offset + (self.matches.len() as u64) < self.total_matches
    }

    /// The `--offset` of the next page, when there is one.
    pub fn next_offset(&self) -> Option<u64> {
        self.has_more()
            .then(|| self.offset + self.matches.len() as u64)
    }
}

/// Files with no line break in this many leading bytes are searched through a memory map.
const SNIFF_BYTES: usize = 64 * 1024;

/// Streaming search buffers a whole line; a longer line switches to the memory map.
const HEAP_LIMIT: usize = 16 * 1024 * 1024;

/// Searches `haystack` (a buffer or a memory map) for one page of occurrences.
///
/// ```
/// use spill::search::{search_slice, Page, Pattern, PatternOptions};
///
/// let log = b"ok\nerror: disk full\nok\nerror: timeout, error again\n";
/// let pattern = Pattern::new(&PatternOptions {
///     patterns: vec!["error".to_string()],
///     ..PatternOptions::default()
/// })
/// .unwrap();
/// let page = Page { limit: 2, ..Page::default() };
/// let result = search_slice(log, &pattern, &page).unwrap();
/// // Three occurrences in all (two on line 4), the first two returned.
/// assert_eq!(result.total_matches, 3);
/// let found: Vec<(u64, u64)> = result.matches.iter().map(|m| (m.line, m.column)).collect();
/// assert_eq!(found, [(2, 1), (4, 1)]);
/// assert_eq!(result.next_offset(), Some(2));
/// ```
pub fn search_slice(haystack: &[u8], pattern: &Pattern, page: &Page) -> io::Result<SearchResult> {
    let page = &page.within_budget();
    page_from(haystack, pattern, page, PageStart::default(), |at| {
        count_slice(&haystack[at.min(haystack.len())..], pattern)
    })
}

/// One page (`page` already [`Page::within_budget`]) of `haystack` searched from `start`, with
/// `rest` counting the occurrences from the byte where the page ends.
fn page_from(
    haystack: &[u8],
    pattern: &Pattern,
    page: &Page,
    start: PageStart,
    rest: impl FnOnce(usize) -> io::Result<u64>,
) -> io::Result<SearchResult> {
    let (matches, seen, resume_at) = if page.limit == 0 {
        (Vec::new(), start.seen, Some(start.at as u64))
    } else {
        let mut sink = PageSink::new(&pattern.matcher, page, Some(haystack), true).starting_at(
            start.at as u64,
            start.seen,
            start.lines,
        );
        page_searcher(page, None, false).search_slice(
            &pattern.matcher,
            &haystack[start.at..],
            &mut sink,
        )?;
        let (seen, resume_at) = (sink.seen, sink.resume_at);
        (sink.into_matches(), seen, resume_at)
    };
    // Past the page, only the count is needed: a context-free pass is cheaper.
    let rest = match resume_at {
        Some(at) => rest(usize::try_from(at).unwrap_or(usize::MAX))?,
        None => 0,
    };
    Ok(result(matches, seen + rest, page, pattern))
}

/// Searches a source as `spill search` reads it: its cleaned view when `clean` is set and the
/// bytes hold escape sequences or `\r` frames (`text::clean`; streamed through
/// [`ViewReader`](crate::text::clean::ViewReader), so the heap never holds the view), else the
/// stored bytes as one slice. The flag says whether the view was searched. Whether the bytes
/// need the view is found beside the search
/// ([`unless_dirty_paced`](crate::text::clean::unless_dirty_paced)), kept just ahead of the
/// count of the rest after the page.
pub fn search_source(
    bytes: &[u8],
    pattern: &Pattern,
    page: &Page,
    clean: bool,
) -> io::Result<(SearchResult, bool)> {
    use crate::text::clean::{ViewReader, unless_dirty_paced};
    if !clean {
        return Ok((search_slice(bytes, pattern, page)?, false));
    }
    let searched = unless_dirty_paced(bytes, |pace| {
        page_paced(bytes, pattern, page, CHECKED_CHUNK, pace)
    });
    match searched {
        Some(result) => Ok((result?, false)),
        None => Ok((search_reader(ViewReader::new(bytes), pattern, page)?, true)),
    }
}

/// Counts the occurrences in a source as [`search_source`] reads it.
pub fn count_source(bytes: &[u8], pattern: &Pattern, clean: bool) -> io::Result<(u64, bool)> {
    use crate::text::clean::ViewReader;
    if !clean {
        return Ok((count_slice(bytes, pattern)?, false));
    }
    match count_checked(bytes, pattern, CHECKED_CHUNK)? {
        Some(total) => Ok((total, false)),
        None => Ok((count_reader(ViewReader::new(bytes), pattern)?, true)),
    }
}

/// The bytes [`count_checked`] counts between two reports of its progress to the check.
const CHECKED_CHUNK: usize = 256 << 10;

/// Counts the occurrences in `bytes` like [`count_slice`], unless they need the cleaned view
/// (`None`; see [`crate::text::clean::needs_cleaning`]). The check runs beside the count, a
/// little ahead of it ([`unless_dirty_paced`](crate::text::clean::unless_dirty_paced)), as
/// [`count_paced`] reports how far it has read.
fn count_checked(bytes: &[u8], pattern: &Pattern, chunk: usize) -> io::Result<Option<u64>> {
    crate::text::clean::unless_dirty_paced(bytes, |pace| {
        count_paced(bytes, 0, pattern, chunk, pace)
    })
    .transpose()
}

/// Counts the occurrences in `bytes[from..]` (`from` at a line's start) a chunk of about
/// `chunk` bytes at a time, each ending at a line end, telling `pace` after each how far it
/// has read. Matches never span a line break (the matcher's line terminator), so the chunks'
/// counts add up to the whole count. Stops early (with a count that is dropped) once the
/// check beside has found that the source needs its cleaned view.
///
/// A line that runs on past four chunks (a minified document) ends the chunking: the rest is
/// counted as one slice, with the check no longer paced.
fn count_paced(
    bytes: &[u8],
    from: usize,
    pattern: &Pattern,
    chunk: usize,
    pace: &crate::text::clean::Pace,
) -> io::Result<u64> {
    let searcher = &mut count_searcher(None);
    let mut sink = CountSink::new(&pattern.matcher);
    let mut at = from;
    while at < bytes.len() {
        let end = chunk_end(bytes, at, chunk).unwrap_or_else(|| {
            pace.unbounded();
            bytes.len()
        });
        searcher.search_slice(&pattern.matcher, &bytes[at..end], &mut sink)?;
        at = end;
        if !pace.reached(at) {
            break;
        }
    }
    Ok(sink.count)
}

/// Where the chunk of `bytes` from `at` ends: at the first line end `chunk` bytes on or
/// later, or at the source's end when fewer than `chunk` bytes are left; `None` when the line
/// there runs on past four chunks (a minified document), which ends the chunking.
fn chunk_end(bytes: &[u8], at: usize, chunk: usize) -> Option<usize> {
    match bytes.get(at + chunk..(at + 4 * chunk).min(bytes.len())) {
        None => Some(bytes.len()),
        Some(after) => memchr::memchr(b'\n', after).map(|i| at + chunk + i + 1),
    }
}

/// One page of `bytes` as [`search_slice`] finds it, with the check beside paced as by
/// [`count_paced`]: the chunks before the page's first occurrence are only probed for an
/// occurrence and their line breaks counted (while they are in the CPU's cache), reporting to
/// `pace` after each; the page search starts at the chunk that holds the page's first
/// occurrence, and the rest after the page is counted by [`count_paced`]. A page whose
/// matches lie far into the source then reads it from memory once, as `rg -n` does, instead
/// of searching it, counting its line breaks up to the match, and checking it, each apart.
/// The answer is meant to be dropped once `pace` says the check found the source dirty.
fn page_paced(
    bytes: &[u8],
    pattern: &Pattern,
    page: &Page,
    chunk: usize,
    pace: &crate::text::clean::Pace,
) -> io::Result<SearchResult> {
    let page = &page.within_budget();
    let start = if page.limit == 0 {
        PageStart::default()
    } else {
        match page_start(bytes, pattern, page, chunk, pace)? {
            Some(start) => start,
            // The check found the source dirty: this answer is dropped.
            None => return Ok(result(Vec::new(), 0, page, pattern)),
        }
    };
    page_from(bytes, pattern, page, start, |at| {
        count_paced(bytes, at, pattern, chunk, pace)
    })
}

/// [`page_paced`] over chunks of `chunk` bytes, unless the source needs its cleaned view: for
/// the fuzz target's comparison with [`search_slice`].
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn page_in_chunks(
    bytes: &[u8],
    pattern: &Pattern,
    page: &Page,
    chunk: usize,
) -> Option<io::Result<SearchResult>> {
    crate::text::clean::unless_dirty_paced(bytes, |pace| {
        page_paced(bytes, pattern, page, chunk, pace)
    })
}

/// Where a page search starts ([`page_from`]): a line start, the occurrences before it and the
/// line breaks before it.
#[derive(Debug, Default)]
struct PageStart {
    at: usize,
    seen: u64,
    lines: u64,
}

/// Probes `bytes` a chunk at a time (as [`count_paced`] reads it, telling `pace`) for the
/// chunk that holds the page's first occurrence (the one after `page.offset` others), then
/// backs up over the page's before-context lines, so that the page search from there finds
/// the context of that occurrence too. `None` once the check beside has found that the source
/// needs its cleaned view.
fn page_start(
    bytes: &[u8],
    pattern: &Pattern,
    page: &Page,
    chunk: usize,
    pace: &crate::text::clean::Pace,
) -> io::Result<Option<PageStart>> {
    let searcher = &mut count_searcher(None);
    let (mut at, mut seen, mut lines) = (0, 0, 0);
    while at < bytes.len() {
        let Some(end) = chunk_end(bytes, at, chunk) else {
            pace.unbounded();
            break;
        };
        let mut probe = CountSink::up_to(&pattern.matcher, page.offset - seen);
        searcher.search_slice(&pattern.matcher, &bytes[at..end], &mut probe)?;
        if probe.count > page.offset - seen {
            break;
        }
        seen += probe.count;
        lines += count_byte(&bytes[at..end], b'\n') as u64;
        at = end;
        if !pace.reached(at) {
            return Ok(None);
        }
    }
    // `at` is a line start; each step back goes to the start of the line before.
    let mut from = at;
    for _ in 0..page.before_context {
        if from == 0 {
            break;
        }
        from = memchr::memrchr(b'\n', &bytes[..from - 1]).map_or(0, |i| i + 1);
    }
    let back = &bytes[from..at];
    Ok(Some(PageStart {
        at: from,
        seen: seen - count_slice(back, pattern)?,
        lines: lines - count_byte(back, b'\n') as u64,
    }))
}

/// Searches a stream for one page of occurrences, reading it once to its end.
pub fn search_reader<R: Read>(
    reader: R,
    pattern: &Pattern,
    page: &Page,
) -> io::Result<SearchResult> {
    let bounded = page.within_budget();
    let page = &bounded;
    let mut sink = PageSink::new(&pattern.matcher, page, None, false);
    page_searcher(page, None, true).search_reader(&pattern.matcher, reader, &mut sink)?;
    let seen = sink.seen;
    Ok(result(sink.into_matches(), seen, page, pattern))
}

/// Searches a file for one page of occurrences, choosing between streaming and a memory
/// map as the module documentation describes.
pub fn search_file(file: &File, pattern: &Pattern, page: &Page) -> io::Result<SearchResult> {
    let bounded = page.within_budget();
    let page = &bounded;
    if let Some(map) = map_if_one_line(file)? {
        return search_slice(&map, pattern, page);
    }
    let streamed = (|| {
        let mut sink = PageSink::new(&pattern.matcher, page, None, true);
        if page.limit > 0 {
            page_searcher(page, Some(HEAP_LIMIT), true).search_reader(
                &pattern.matcher,
                FileAt { file, at: 0 },
                &mut sink,
            )?;
        }
        let seen = sink.seen;
        let resume_at = if page.limit == 0 {
            Some(0)
        } else {
            sink.resume_at
        };
        let rest = match resume_at {
            Some(at) => count_stream(FileAt { file, at }, pattern)?,
            None => 0,
        };
        Ok(result(sink.into_matches(), seen + rest, page, pattern))
    })();
    match streamed {
        Err(err) if is_heap_limit(&err) => search_slice(&map(file)?, pattern, page),
        other => other,
    }
}

/// Counts the occurrences in `haystack`.
pub fn count_slice(haystack: &[u8], pattern: &Pattern) -> io::Result<u64> {
    let mut sink = CountSink::new(&pattern.matcher);
    count_searcher(None).search_slice(&pattern.matcher, haystack, &mut sink)?;
    Ok(sink.count)
}

/// Counts the occurrences in a stream.
pub fn count_reader<R: Read>(reader: R, pattern: &Pattern) -> io::Result<u64> {
    let mut sink = CountSink::new(&pattern.matcher);
    count_searcher(None).search_reader(&pattern.matcher, reader, &mut sink)?;
    Ok(sink.count)
}

/// Counts the occurrences in a file, streaming or through a memory map.
pub fn count_file(file: &File, pattern: &Pattern) -> io::Result<u64> {
    if let Some(map) = map_if_one_line(file)? {
        return count_slice(&map, pattern);
    }
    match count_stream(FileAt { file, at: 0 }, pattern) {
        Err(err) if is_heap_limit(&err) => count_slice(&map(file)?, pattern),
        other => other,
    }
}

fn count_stream(reader: FileAt<'_>, pattern: &Pattern) -> io::Result<u64> {
    let mut sink = CountSink::new(&pattern.matcher);
    count_searcher(Some(HEAP_LIMIT)).search_reader(&pattern.matcher, reader, &mut sink)?;
    Ok(sink.count)
}

fn result(matches: Vec<Match>, total: u64, page: &Page, pattern: &Pattern) -> SearchResult {
    SearchResult {
        matches,
        total_matches: total,
        offset: page.offset,
        limit: page.limit,
        pattern_mode: pattern.mode(),
        skipped_lines: None,
    }
}

/// NUL bytes are data here, not a reason to stop: binary sources are searched too.
fn base_searcher(heap_limit: Option<usize>) -> SearcherBuilder {
    let mut builder = SearcherBuilder::new();
    builder
        .binary_detection(BinaryDetection::none())
        // Raw bytes: a UTF-16 or UTF-8 byte-order mark must not make the searcher transcode
        // (or strip it), or offsets, columns and windows stop naming the source's bytes.
        .bom_sniffing(false)
        .line_terminator(grep_matcher::LineTerminator::byte(b'\n'))
        .heap_limit(heap_limit);
    builder
}

/// `line_numbers` off when the sink numbers lines itself (a slice: see `PageSink::number_at`).
fn page_searcher(page: &Page, heap_limit: Option<usize>, line_numbers: bool) -> Searcher {
    base_searcher(heap_limit)
        .line_number(line_numbers)
        .before_context(page.before_context)
        .after_context(page.after_context)
        .build()
}

/// Without line numbers or context, the searcher never looks at non-matching lines.
fn count_searcher(heap_limit: Option<usize>) -> Searcher {
    base_searcher(heap_limit).line_number(false).build()
}

/// grep-searcher reports an exceeded heap limit as a plain I/O error with this wording.
fn is_heap_limit(err: &io::Error) -> bool {
    err.to_string().contains("allocation limit")
}

/// Maps `file` when its first 64 KiB hold no line break.
fn map_if_one_line(file: &File) -> io::Result<Option<Mmap>> {
    let mut head = vec![0; SNIFF_BYTES];
    let mut filled = 0;
    while filled < head.len() {
        match file.read_at(&mut head[filled..], filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    if filled == 0 || head[..filled].contains(&b'\n') {
        return Ok(None);
    }
    map(file).map(Some)
}

/// A read-only view of a whole file.
enum Mmap {
    Empty,
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for Mmap {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Mmap::Empty => &[],
            Mmap::Mapped(map) => map,
        }
    }
}

fn map(file: &File) -> io::Result<Mmap> {
    if file.metadata()?.len() == 0 {
        return Ok(Mmap::Empty);
    }
    // SAFETY: the map is read-only and lives only for this search. Stored payloads are
    // never rewritten (ARCHITECTURE.md, Invariants); a user's file truncated under us could fault, the same
    // trade ripgrep makes for the speed of searching a single large file.
    unsafe { memmap2::Mmap::map(file) }.map(Mmap::Mapped)
}

/// Reads a file from a position with `pread`, leaving the file's own cursor alone.
struct FileAt<'a> {
    file: &'a File,
    at: u64,
}

impl Read for FileAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests;
