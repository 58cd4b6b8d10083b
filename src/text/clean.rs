//! Cleaning text for display: ANSI escape sequences stripped and carriage-return progress
//! frames collapsed to the last one, line by line. The envelope's preview and signals show
//! cleaned lines, and `cat` and `search` read the same [`view`] of a source that holds escape
//! sequences or bare `\r`, so every line the envelope shows is found at the same line number.
//! Stored bytes stay raw.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Removes escape sequences from `line`, as a VT500-series terminal parses them (the state
/// table of `anstyle-parse`, the parser `anstream` uses): ESC with its intermediates and final
/// byte (`ESC ( B`, which `tput sgr0` writes before `ESC [ m`; `ESC 7`; `ESC # 8`), CSI with its
/// parameters, OSC up to BEL or ST (`ESC \`), and DCS, SOS, PM and APC strings up to ST.
///
/// Decisions, for text that is mostly UTF-8 and sometimes not:
/// - Only ESC starts a sequence. The 8-bit C1 introducers (0x9B, 0x9D, …) are UTF-8
///   continuation bytes in the text spill sees, so they are kept as text.
/// - A control byte inside a sequence that the terminal would execute (a tab, a backspace) is
///   kept, as the terminal would act on it; CAN and SUB end the sequence and are kept too.
/// - A byte of 0x80 or more inside ESC or CSI (the grammar allows none) ends the sequence and is
///   kept as text, so that a stray ESC before UTF-8 text removes no text; inside the OSC, DCS,
///   SOS, PM and APC strings it is part of the string.
/// - A sequence still open at the end of the line is removed to the end of the line (lines are
///   cleaned one at a time, so a source's line `N` is always its view's line `N`).
///
/// A line without an ESC byte is returned as it is, after one `memchr`; between sequences the
/// text is copied in runs found by `memchr`, so only the sequences' own bytes go through the
/// state table.
pub fn strip_ansi(line: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    use anstyle_parse::state::{Action, State, state_change};
    let Some(first) = memchr::memchr(0x1b, line) else {
        return std::borrow::Cow::Borrowed(line);
    };
    let mut out = Vec::with_capacity(line.len());
    out.extend_from_slice(&line[..first]);
    let mut i = first;
    // line[i] is an ESC that starts a sequence.
    while i < line.len() {
        // The common case first: a CSI of parameter and intermediate bytes and its final byte
        // is removed whole by the state table too (through CsiIgnore when malformed).
        if line.get(i + 1) == Some(&b'[') {
            let body = line[i + 2..]
                .iter()
                .position(|b| !(0x20..=0x3f).contains(b))
                .map(|n| i + 2 + n);
            if let Some(end) = body
                && (0x40..=0x7e).contains(&line[end])
            {
                i = end + 1;
                let run_end = memchr::memchr(0x1b, &line[i..]).map_or(line.len(), |at| i + at);
                out.extend_from_slice(&line[i..run_end]);
                i = run_end;
                continue;
            }
        }
        let mut state = State::Escape;
        i += 1;
        while i < line.len() && state != State::Ground {
            let byte = line[i];
            let plain_grammar = matches!(
                state,
                State::Escape
                    | State::EscapeIntermediate
                    | State::CsiEntry
                    | State::CsiParam
                    | State::CsiIntermediate
                    | State::CsiIgnore
            );
            if byte >= 0x80 && plain_grammar {
                // Not part of the sequence: text again, from this byte.
                break;
            }
            // ESC starts another sequence here (abandoning this one); CAN and SUB end it.
            let (next, action) = state_change(state, byte);
            if action == Action::Execute {
                out.push(byte);
            }
            // `Anywhere` means the state does not change.
            if next != State::Anywhere {
                state = next;
            }
            i += 1;
        }
        if i >= line.len() {
            break;
        }
        // Text up to the next ESC.
        let run_end = memchr::memchr(0x1b, &line[i..]).map_or(line.len(), |at| i + at);
        out.extend_from_slice(&line[i..run_end]);
        i = run_end;
    }
    std::borrow::Cow::Owned(out)
}

/// Keeps the last non-empty carriage-return frame of a line (`10%\r20%\r30%` → `30%`); a
/// trailing `\r` (CRLF endings) is dropped first.
pub fn last_frame(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.split(|&b| b == b'\r')
        .rev()
        .find(|frame| !frame.is_empty())
        .unwrap_or(b"")
}

/// The preview form of one raw line (without its `\n`).
pub fn clean_line(line: &[u8]) -> Vec<u8> {
    let stripped = strip_ansi(line);
    last_frame(&stripped).to_vec()
}

/// [`clean_line`] appended to `out`.
fn clean_line_into(line: &[u8], out: &mut Vec<u8>) {
    let stripped = strip_ansi(line);
    out.extend_from_slice(last_frame(&stripped));
}

/// The first `max` bytes (on a character boundary) of the cleaned form of `line`, copying no
/// more than that: a signal's neighbour line is cut this way, after cleaning, so that what it
/// shows is a prefix of the line's cleaned form (cutting first could show a progress frame
/// that the line's last frame overwrites).
pub fn clean_prefix(line: &[u8], max: usize) -> Vec<u8> {
    let stripped = strip_ansi(line);
    let frame = last_frame(&stripped);
    frame[..super::floor_char_boundary(frame, max.min(frame.len()))].to_vec()
}

/// True when cleaning would change `bytes`: they hold an ESC byte, or a `\r` that is not part
/// of a `\r\n` line end. One `memchr2` pass, so a source without either costs about a
/// `memchr` over it.
pub fn needs_cleaning(bytes: &[u8]) -> bool {
    needs_cleaning_in(bytes, 0, bytes.len())
}

/// [`needs_cleaning`] of `bytes[from..to]`, a `\r` at its end looked at with the byte after it
/// in `bytes` (so a `\r\n` split at `to` is a line end, not a bare `\r`).
fn needs_cleaning_in(bytes: &[u8], from: usize, to: usize) -> bool {
    memchr::memchr2_iter(0x1b, b'\r', &bytes[from..to])
        .any(|i| bytes[from + i] == 0x1b || bytes.get(from + i + 1) != Some(&b'\n'))
}

/// A source of this many bytes or more is checked for [`needs_cleaning`] on a second thread
/// while the search runs on its stored bytes ([`unless_dirty`]); a smaller one first, in line.
pub const CHECK_BESIDE: usize = 4 << 20;

/// The part of a large source checked in line before the second thread starts: an output that
/// holds escape sequences at all mostly holds them from its first lines (a coloured build log),
/// and then no work on the stored bytes is started.
const CHECK_HEAD: usize = 64 << 10;

/// Runs `raw` over the stored bytes unless the source needs its cleaned view: `Some` with its
/// result when `bytes` need no cleaning, `None` when they do (the caller then reads
/// [`ViewReader`]; what `raw` computed, if it ran, is dropped).
///
/// Finding out is one vectorised `memchr2` pass ([`needs_cleaning`]). On a source of
/// [`CHECK_BESIDE`] bytes or more it costs no time on a machine with a second core: the first
/// 64 KiB are checked in line, then the rest on a second thread while `raw`
/// runs here, so a clean source is searched in the time of the search alone. A source whose
/// first escape comes after its head is searched twice (the stored bytes, then the view); one
/// whose head has one never runs `raw`. Where no thread can be started the check runs in line.
///
/// The check runs ahead of `raw` as fast as it can; [`unless_dirty_paced`] keeps it just ahead
/// of a `raw` that says how far it has read.
pub fn unless_dirty<T>(bytes: &[u8], raw: impl FnOnce() -> T) -> Option<T> {
    unless_dirty_paced(bytes, |pace| {
        pace.unbounded();
        raw()
    })
}

/// How far the work beside a paced check has read its source ([`unless_dirty_paced`]).
pub struct Pace {
    read: AtomicUsize,
    dirty: AtomicBool,
}

impl Pace {
    fn new(read: usize) -> Pace {
        Pace {
            read: AtomicUsize::new(read),
            dirty: AtomicBool::new(false),
        }
    }

    /// The bytes before `at` are read: the check may run up to [`PACE_LEAD`] bytes past them.
    /// False once the check has found that the source needs cleaning (the work can stop: its
    /// result is dropped).
    pub fn reached(&self, at: usize) -> bool {
        self.read.fetch_max(at, Ordering::Release);
        !self.dirty.load(Ordering::Relaxed)
    }

    /// The check may run to the source's end (the work reports no more progress).
    pub fn unbounded(&self) {
        self.read.store(usize::MAX, Ordering::Release);
    }
}

/// How far a paced check runs ahead of the bytes its work has read: far enough that the work
/// never waits for the page faults the check takes first, near enough that the bytes are still
/// in the CPU's cache when the work reads them, so they come from memory once.
pub const PACE_LEAD: usize = 1 << 20;

/// How long a paced check waits for its work to report progress before it runs on to the end
/// unpaced, as [`unless_dirty`]'s does: about four chunks of a search bound by its matches.
const PACE_PATIENCE: std::time::Duration = std::time::Duration::from_millis(1);

/// The bytes a paced check looks at between two looks at its work's progress.
const PACE_STEP: usize = 128 << 10;

/// [`unless_dirty`] with a check that stays at most [`PACE_LEAD`] bytes ahead of what `raw`
/// says it has read ([`Pace::reached`]). The check then reads each byte from memory (and takes
/// its page fault) just before `raw` reads it from the cache: a search bound by memory
/// bandwidth (few matches) reads the source once, not twice, and one bound by its matches still
/// has its page faults taken on the second core. A `raw` that has read everything it will read
/// should say so ([`Pace::unbounded`] or `reached(bytes.len())`); one that reports nothing for
/// a millisecond is no longer waited for, and none is once `raw` returns.
pub fn unless_dirty_paced<T>(bytes: &[u8], raw: impl FnOnce(&Pace) -> T) -> Option<T> {
    if bytes.len() < CHECK_BESIDE {
        let pace = Pace::new(usize::MAX);
        return (!needs_cleaning(bytes)).then(|| raw(&pace));
    }
    // The head never ends in a `\r`, so a `\r\n` is never split between the two parts (and
    // finding the split reads no more than the head: a one-line document has no line end).
    let mut split = CHECK_HEAD;
    while split < bytes.len() && bytes[split - 1] == b'\r' {
        split += 1;
    }
    let (head, rest) = bytes.split_at(split);
    if needs_cleaning(head) {
        return None;
    }
    let pace = Pace::new(0);
    if rest.is_empty() {
        pace.unbounded();
        return Some(raw(&pace));
    }
    std::thread::scope(|scope| {
        let checker = std::thread::Builder::new()
            .name("spill-clean-check".into())
            .spawn_scoped(scope, || check_paced(bytes, split, &pace));
        match checker {
            Ok(checker) => {
                let result = raw(&pace);
                pace.unbounded();
                // The checker only reads a slice: it cannot panic but by a bug, and then the
                // in-line check answers instead.
                let dirty = checker.join().unwrap_or_else(|_| needs_cleaning(rest));
                (!dirty).then_some(result)
            }
            Err(_) => {
                pace.unbounded();
                (!needs_cleaning(rest)).then(|| raw(&pace))
            }
        }
    })
}

/// [`needs_cleaning`] of `bytes[from..]` (a `\r` at a step's end is looked at with the byte
/// after it), a step at a time, never more than [`PACE_LEAD`] bytes past what `pace` says
/// the work has read. Sets `pace`'s dirty flag when it finds an escape or a bare `\r`.
fn check_paced(bytes: &[u8], from: usize, pace: &Pace) -> bool {
    let mut at = from;
    let mut idle = 0u32;
    let mut waiting_since = None;
    let mut paced = true;
    while at < bytes.len() {
        let allowed = match paced {
            true => pace.read.load(Ordering::Acquire).saturating_add(PACE_LEAD),
            false => usize::MAX,
        };
        if at >= allowed {
            // The work reads a step in tens of microseconds: spin briefly, then sleep (a search
            // bound by its matches reads slowly, and a spinning check would take a core from
            // whatever else the machine runs). Work that says nothing for a while (a page
            // search between two far-apart matches) is no longer waited for.
            idle += 1;
            if idle < 256 {
                std::hint::spin_loop();
            } else {
                let since = *waiting_since.get_or_insert_with(std::time::Instant::now);
                if since.elapsed() >= PACE_PATIENCE {
                    paced = false;
                }
                std::thread::sleep(std::time::Duration::from_micros(20));
            }
            continue;
        }
        idle = 0;
        waiting_since = None;
        let end = bytes.len().min(at.saturating_add(PACE_STEP)).min(allowed);
        if needs_cleaning_in(bytes, at, end) {
            pace.dirty.store(true, Ordering::Relaxed);
            return true;
        }
        at = end;
    }
    false
}

/// The cleaned view of a source as a stream: reading it gives exactly [`view`]'s bytes (for a
/// source that needs cleaning), a line at a time where a line needs cleaning and in bulk
/// between such lines, so the heap holds at most one cleaned line, never the whole view.
/// `search` reads a coloured log through it (README, `spill search`, "Reading").
///
/// ```
/// use std::io::Read;
/// use spill::text::clean::{ViewReader, view};
///
/// let log = b"\x1b[1m\x1b[91merror\x1b[0m: could not compile\n10%\r50%\r100%\nplain\n";
/// let mut streamed = Vec::new();
/// ViewReader::new(log).read_to_end(&mut streamed).unwrap();
/// assert_eq!(streamed, view(log).unwrap());
/// ```
pub struct ViewReader<'a> {
    bytes: &'a [u8],
    /// `bytes[..at]` have been read (or are in `line`).
    at: usize,
    /// The next ESC or `\r` at or after `at` (`bytes.len()` for none), once found.
    special: Option<usize>,
    /// The cleaned form of the last line that needed it, with its line break.
    line: Vec<u8>,
    /// `line[..line_at]` have been read.
    line_at: usize,
}

impl<'a> ViewReader<'a> {
    /// A reader of `bytes`' cleaned view.
    pub fn new(bytes: &'a [u8]) -> ViewReader<'a> {
        ViewReader {
            bytes,
            at: 0,
            special: None,
            line: Vec::new(),
            line_at: 0,
        }
    }
}

impl std::io::Read for ViewReader<'_> {
    /// Fills `buf` as far as the view goes: a searcher reading it pays its per-read work once
    /// per buffer, not once per cleaned line.
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut filled = 0;
        while filled < buf.len() {
            match self.read_some(&mut buf[filled..]) {
                0 => break,
                n => filled += n,
            }
        }
        Ok(filled)
    }
}

impl ViewReader<'_> {
    /// One step of [`read`](std::io::Read::read): the rest of a cleaned line, or a run of
    /// lines that need no cleaning, or (after cleaning the next line) its first bytes; 0 at the
    /// end (or for an empty `buf`).
    fn read_some(&mut self, buf: &mut [u8]) -> usize {
        let bytes = self.bytes;
        loop {
            if buf.is_empty() {
                return 0;
            }
            if self.line_at < self.line.len() {
                let n = buf.len().min(self.line.len() - self.line_at);
                buf[..n].copy_from_slice(&self.line[self.line_at..self.line_at + n]);
                self.line_at += n;
                return n;
            }
            let Some(piece) = next_piece(bytes, self.at, &mut self.special, &mut self.line) else {
                return 0;
            };
            match piece {
                Piece::Clean(run) => {
                    let n = buf.len().min(run.len());
                    buf[..n].copy_from_slice(&bytes[run.start..run.start + n]);
                    self.at += n;
                    return n;
                }
                // A line holding an ESC or a `\r`, cleaned into `line` (as `view` does, a
                // `\r\n` line end included); read on the next turn.
                Piece::Dirty { run, .. } => {
                    self.line_at = 0;
                    self.at = run.end;
                    self.special = None;
                }
            }
        }
    }
}

/// Where a [`view_window`] starts: at a 1-based line, or at the start of the line holding a
/// byte offset of the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowStart {
    /// The 1-based line (0 is read as 1).
    Line(u64),
    /// The line holding this offset of the view.
    Byte(u64),
}

/// A part of a source's cleaned view, cleaned alone, and where it lies in the whole view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewWindow {
    /// The view's bytes from a line start: whole lines, up to the view's end or past the bound
    /// asked for.
    pub bytes: Vec<u8>,
    /// The offset in the view of `bytes[0]`.
    pub offset: u64,
    /// The 1-based line that starts at `bytes[0]` (for a [`WindowStart::Line`] past the last
    /// line, that line, with `bytes` empty).
    pub line: u64,
    /// The whole view's length in bytes.
    pub total: u64,
    /// The whole view's lines (`text::count_lines` of the view).
    pub lines: u64,
}

/// For a source that needs cleaning ([`needs_cleaning`]; `None` otherwise, as for [`view`]):
/// the lines of its cleaned view from `start`, until more than `want_lines` lines or more
/// than `want_bytes` bytes past the start (for [`WindowStart::Byte`], past that byte) are held
/// (each at a line end) or the view ends, with where they lie
/// in the whole view: what `cat` shows of a source that needs cleaning, without holding the
/// view (README, `spill cat`). One pass: runs of lines without an ESC or `\r` are measured in
/// bulk, the others cleaned one at a time; only the window's lines are kept.
///
/// ```
/// use spill::text::clean::{view, view_window, WindowStart};
///
/// let log = b"\x1b[1mone\x1b[0m\ntwo\n3%\r100%\nfour\n";
/// let w = view_window(log, WindowStart::Line(2), 1, u64::MAX).unwrap();
/// assert_eq!((w.bytes.as_slice(), w.offset, w.line), (&b"two\n100%\n"[..], 4, 2));
/// assert_eq!((w.total, w.lines), (view(log).unwrap().len() as u64, 4));
/// ```
pub fn view_window(
    bytes: &[u8],
    start: WindowStart,
    want_lines: u64,
    want_bytes: u64,
) -> Option<ViewWindow> {
    use super::analyze::count_byte;
    if !needs_cleaning(bytes) {
        return None;
    }
    let start = match start {
        WindowStart::Line(n) => WindowStart::Line(n.max(1)),
        other => other,
    };
    let mut walk = Walk {
        bytes,
        at: 0,
        special: None,
        offset: 0,
        line: 1,
        tail: false,
        scratch: Vec::new(),
    };
    // Up to the window's first line: the line start inside the next piece, if it is there.
    while let Some(piece) = walk.piece() {
        let (run, text_len) = match &piece {
            Piece::Clean(run) => (run.clone(), run.len() as u64),
            Piece::Dirty { run, cleaned } => (run.clone(), *cleaned),
        };
        let first = match (&piece, start) {
            (Piece::Clean(_), WindowStart::Line(n)) if n == walk.line => Some(run.start),
            (Piece::Clean(_), WindowStart::Line(n)) => {
                memchr::memchr_iter(b'\n', &bytes[run.clone()])
                    .nth((n - walk.line - 1) as usize)
                    .map(|nl| run.start + nl + 1)
                    .filter(|&at| at < run.end)
            }
            (Piece::Clean(_), WindowStart::Byte(b)) => (walk.offset + text_len > b).then(|| {
                let pos = run.start + (b - walk.offset) as usize;
                memchr::memrchr(b'\n', &bytes[run.start..pos])
                    .map_or(run.start, |i| run.start + i + 1)
            }),
            (Piece::Dirty { .. }, WindowStart::Line(n)) => (n == walk.line).then_some(run.start),
            (Piece::Dirty { .. }, WindowStart::Byte(b)) => {
                (walk.offset + text_len > b).then_some(run.start)
            }
        };
        match first {
            Some(at) => {
                let passed = &bytes[run.start..at];
                walk.advance(at, passed.len() as u64, passed);
                break;
            }
            None => walk.take(&piece),
        }
    }
    let (offset, mut line) = (walk.offset, walk.line);
    // A byte start's bound counts from that byte.
    let want_bytes = match start {
        WindowStart::Byte(b) => b.saturating_sub(offset).saturating_add(want_bytes),
        WindowStart::Line(_) => want_bytes,
    };
    if let WindowStart::Line(n) = start
        && walk.at >= bytes.len()
    {
        line = line.max(n);
    }
    // The window's lines: to the first line end past either bound.
    let mut out = Vec::new();
    let mut held_lines = 0u64;
    while held_lines <= want_lines && out.len() as u64 <= want_bytes {
        let Some(piece) = walk.piece() else { break };
        match &piece {
            Piece::Clean(run) => {
                let run_bytes = &bytes[run.clone()];
                let by_lines =
                    memchr::memchr_iter(b'\n', run_bytes).nth((want_lines - held_lines) as usize);
                let from = (want_bytes - out.len() as u64).min(run_bytes.len() as u64) as usize;
                let by_bytes = memchr::memchr(b'\n', &run_bytes[from..]).map(|i| from + i);
                let end = match (by_lines, by_bytes) {
                    (Some(a), Some(b)) => a.min(b) + 1,
                    (Some(a), None) | (None, Some(a)) => a + 1,
                    (None, None) => run_bytes.len(),
                };
                let taken = &run_bytes[..end];
                out.extend_from_slice(taken);
                held_lines += count_byte(taken, b'\n') as u64;
                walk.advance(run.start + end, taken.len() as u64, taken);
            }
            Piece::Dirty { .. } => {
                out.extend_from_slice(&walk.scratch);
                held_lines += 1;
                walk.take(&piece);
            }
        }
    }
    // The rest, measured only.
    while let Some(piece) = walk.piece() {
        walk.take(&piece);
    }
    Some(ViewWindow {
        bytes: out,
        offset,
        line,
        total: walk.offset,
        lines: walk.line - 1 + u64::from(walk.tail),
    })
}

/// A piece of a source as its view is built: a run of whole lines the view holds as they are,
/// or one line that is cleaned (its cleaned form, line break included, in [`Walk::scratch`]).
enum Piece {
    Clean(std::ops::Range<usize>),
    Dirty {
        run: std::ops::Range<usize>,
        cleaned: u64,
    },
}

/// The piece of `bytes`' view that starts at the line start `at`: the run of lines before the
/// next line holding an ESC or a `\r` (`special`, found once and kept until passed), or that
/// line, cleaned into `scratch` with its line break; `None` at the end.
fn next_piece(
    bytes: &[u8],
    at: usize,
    special: &mut Option<usize>,
    scratch: &mut Vec<u8>,
) -> Option<Piece> {
    if at >= bytes.len() {
        return None;
    }
    let special = *special.get_or_insert_with(|| {
        memchr::memchr2(0x1b, b'\r', &bytes[at..]).map_or(bytes.len(), |i| at + i)
    });
    let start = if special == bytes.len() {
        special
    } else {
        memchr::memrchr(b'\n', &bytes[at..special]).map_or(at, |i| at + i + 1)
    };
    if start > at {
        return Some(Piece::Clean(at..start));
    }
    let end = memchr::memchr(b'\n', &bytes[special..]).map_or(bytes.len(), |i| special + i);
    scratch.clear();
    clean_line_into(&bytes[at..end], scratch);
    let end = if end < bytes.len() {
        scratch.push(b'\n');
        end + 1
    } else {
        end
    };
    Some(Piece::Dirty {
        run: at..end,
        cleaned: scratch.len() as u64,
    })
}

/// The walk of [`view_window`]: the next piece from `at`, and the view's offset and line there.
struct Walk<'a> {
    bytes: &'a [u8],
    /// A line start (or the end).
    at: usize,
    /// The next ESC or `\r` at or after `at` (`bytes.len()` for none), once found.
    special: Option<usize>,
    /// The view's offset at `at`.
    offset: u64,
    /// The 1-based line starting at `at`.
    line: u64,
    /// Whether the view's last line so far is not empty (it has bytes after its last line
    /// break): at the end, whether `text::count_lines` counts a last line without a break.
    tail: bool,
    /// The cleaned form of the last [`Piece::Dirty`].
    scratch: Vec<u8>,
}

impl Walk<'_> {
    fn piece(&mut self) -> Option<Piece> {
        next_piece(self.bytes, self.at, &mut self.special, &mut self.scratch)
    }

    /// Passes over a whole piece.
    fn take(&mut self, piece: &Piece) {
        match piece {
            Piece::Clean(run) => {
                let run_bytes = &self.bytes[run.clone()];
                self.advance(run.end, run_bytes.len() as u64, run_bytes);
            }
            Piece::Dirty { run, cleaned } => {
                let breaks = u64::from(self.scratch.last() == Some(&b'\n'));
                self.at = run.end;
                self.special = None;
                self.offset += cleaned;
                self.line += breaks;
                self.tail = *cleaned > 0 && breaks == 0;
            }
        }
    }

    /// Passes over `text`, lines the view holds as they are, to the line start `to`.
    fn advance(&mut self, to: usize, text_len: u64, text: &[u8]) {
        if self.special.is_some_and(|s| s < to) {
            self.special = None;
        }
        self.at = to;
        self.offset += text_len;
        self.line += super::analyze::count_byte(text, b'\n') as u64;
        if !text.is_empty() {
            self.tail = !text.ends_with(b"\n");
        }
    }
}

/// The cleaned view of a source, when it differs from the stored bytes ([`needs_cleaning`]):
/// every line through [`clean_line`], line breaks kept, so line `N` of the view is line `N` of
/// the source and the line counts agree. Lines without an ESC or a `\r` are copied in bulk.
///
/// ```
/// use spill::text::clean::view;
///
/// let log = b"\x1b[1m\x1b[91merror\x1b[0m: could not compile\n10%\r50%\r100%\nplain\n";
/// assert_eq!(view(log).unwrap(), b"error: could not compile\n100%\nplain\n");
/// assert!(view(b"plain\r\ntext\r\n").is_none());
/// ```
pub fn view(bytes: &[u8]) -> Option<Vec<u8>> {
    if !needs_cleaning(bytes) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len());
    // bytes[..copied] are in `out`; `copied` is 0 or the position of a line break.
    let mut copied = 0;
    for at in memchr::memchr2_iter(0x1b, b'\r', bytes) {
        if at < copied {
            continue;
        }
        let start = memchr::memrchr(b'\n', &bytes[copied..at]).map_or(copied, |i| copied + i + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        out.extend_from_slice(&bytes[copied..start]);
        out.extend_from_slice(&clean_line(&bytes[start..end]));
        copied = end;
    }
    out.extend_from_slice(&bytes[copied..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_sequences_are_removed() {
        assert_eq!(&*strip_ansi(b"\x1b[1;31merror\x1b[0m: x"), b"error: x");
        assert_eq!(&*strip_ansi(b"\x1b]0;title\x07text"), b"text");
        assert_eq!(
            &*strip_ansi(b"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"),
            b"link"
        );
        // `tput sgr0`: ESC ( B (designate G0 as ASCII), then an SGR reset.
        assert_eq!(
            &*strip_ansi(b"\x1b[31merror\x1b(B\x1b[m: failed"),
            b"error: failed"
        );
        assert_eq!(&*strip_ansi(b"a\x1b(Bb"), b"ab");
        assert_eq!(&*strip_ansi(b"a\x1b7b\x1b#8c\x1b8"), b"abc");
        // DCS, SOS, PM, APC strings up to ST.
        assert_eq!(&*strip_ansi(b"a\x1bPq#0;2;0;0;0\x1b\\b"), b"ab");
        assert_eq!(
            &*strip_ansi(b"a\x1b_apc \xc3\xa9\x1b\\b\x1bXsos\x1b\\c"),
            b"abc"
        );
        // A stray ESC before UTF-8 text removes no text; C1 bytes are text.
        assert_eq!(
            &*strip_ansi("\x1b\u{e9}t\u{e9}".as_bytes()),
            "\u{e9}t\u{e9}".as_bytes()
        );
        assert_eq!(&*strip_ansi(b"a\x1b[3\xffb"), b"a\xffb");
        assert_eq!(&*strip_ansi(b"\x9b31mx"), b"\x9b31mx");
        // Controls inside a sequence are executed, so kept; CAN ends the sequence.
        assert_eq!(&*strip_ansi(b"a\x1b[3\x081mb"), b"a\x08b");
        assert_eq!(&*strip_ansi(b"a\x1b[3\x18b"), b"a\x18b");
        // ESC inside a sequence starts another.
        assert_eq!(&*strip_ansi(b"a\x1b[3\x1b[0mb"), b"ab");
        assert_eq!(&*strip_ansi(b"\x1b"), b"");
        assert_eq!(&*strip_ansi(b"\x1b[2K\x1b[1G100%"), b"100%");
        assert_eq!(&*strip_ansi(b"trailing \x1b["), b"trailing ");
    }

    #[test]
    fn progress_frames_collapse_to_the_last() {
        assert_eq!(last_frame(b"10%\r20%\r30%"), b"30%");
        assert_eq!(
            last_frame(b"done\r\n".strip_suffix(b"\n").unwrap()),
            b"done"
        );
        assert_eq!(last_frame(b"50%\r"), b"50%");
        assert_eq!(last_frame(b"a\r\r"), b"a");
        assert_eq!(clean_line(b"\x1b[32m1/3\r\x1b[32m3/3\x1b[0m"), b"3/3");
    }

    #[test]
    fn the_view_cleans_line_by_line_and_keeps_every_line_break() {
        let raw = b"a\r\n\x1b[31mred\x1b[0m\r\nplain\n\r\n10%\r\x1b[2K20%\rdone\nlast\x1b[0m";
        let v = view(raw).unwrap();
        assert_eq!(v, b"a\nred\nplain\n\ndone\nlast");
        assert_eq!(crate::text::count_lines(&v), crate::text::count_lines(raw));
        // Every line of the view is clean_line of the same raw line.
        let lines: Vec<&[u8]> = raw.split(|&b| b == b'\n').collect();
        let cleaned: Vec<&[u8]> = v.split(|&b| b == b'\n').collect();
        assert_eq!(lines.len(), cleaned.len());
        for (r, c) in lines.iter().zip(&cleaned) {
            assert_eq!(&clean_line(r), c);
        }
        // Only CRLF line ends (or nothing at all) need no view.
        assert!(view(b"one\r\ntwo\r\n").is_none());
        assert!(view(b"").is_none());
        assert!(view(b"trailing\r").is_some());
        assert!(view(b"\x1b").is_some());
    }

    /// Reads `bytes`' view through a [`ViewReader`] in reads of the given sizes.
    fn streamed(bytes: &[u8], sizes: &[usize]) -> Vec<u8> {
        use std::io::Read;
        let mut reader = ViewReader::new(bytes);
        let mut out = Vec::new();
        let mut buf = vec![0; 1 << 12];
        for i in 0.. {
            let size = sizes[i % sizes.len()].clamp(1, buf.len());
            match reader.read(&mut buf[..size]).unwrap() {
                0 => break,
                n => out.extend_from_slice(&buf[..n]),
            }
        }
        out
    }

    #[test]
    fn the_streamed_view_is_the_view() {
        let raw = b"a\r\n\x1b[31mred\x1b[0m\r\nplain\n\r\n10%\r\x1b[2K20%\rdone\nlast\x1b[0m";
        assert_eq!(streamed(raw, &[1]), view(raw).unwrap());
        assert_eq!(streamed(raw, &[4096]), view(raw).unwrap());
        assert_eq!(streamed(b"\x1b", &[7]), b"");
        assert_eq!(streamed(b"x\n\x1b[1m\n", &[3]), b"x\n\n");
        assert!(streamed(b"", &[1]).is_empty());
    }

    #[test]
    fn the_check_beside_the_search_agrees_with_the_check_in_line() {
        // Large sources take the two-part path: dirty in the head, in the rest, at the split,
        // a CRLF across the split, and clean.
        let mut clean = b"plain line\r\n".repeat(CHECK_BESIDE / 12 + 1);
        assert_eq!(unless_dirty(&clean, || 7), Some(7));
        for at in [
            0,
            CHECK_HEAD - 1,
            CHECK_HEAD,
            CHECK_HEAD + 11,
            clean.len() - 1,
        ] {
            for byte in [0x1b, b'\r'] {
                let mut dirty = clean.clone();
                dirty[at] = byte;
                let expected = !needs_cleaning(&dirty);
                assert_eq!(
                    unless_dirty(&dirty, || ()).is_some(),
                    expected,
                    "{at} {byte}"
                );
            }
        }
        // One line with no line end; CRLFs across the split.
        let mut one = vec![b'x'; CHECK_BESIDE + 10];
        assert_eq!(unless_dirty(&one, || 2), Some(2));
        one[CHECK_HEAD - 1] = b'\r';
        one[CHECK_HEAD] = b'\n';
        assert_eq!(unless_dirty(&one, || 3), Some(3), "a CRLF across the split");
        one[CHECK_HEAD - 2] = b'\r';
        assert_eq!(unless_dirty(&one, || 4), None, "a bare \\r before it");
        one[CHECK_HEAD - 2] = b'x';
        *one.last_mut().unwrap() = 0x1b;
        assert_eq!(unless_dirty(&one, || 5), None);
        clean.truncate(100);
        assert_eq!(unless_dirty(&clean, || 1), Some(1));
        assert_eq!(unless_dirty(b"a\rb", || 1), None);
    }

    #[test]
    fn the_paced_check_agrees_with_the_check_in_line() {
        // Work that reports its progress in steps that are no multiple of the check's, work
        // that reports nothing, and work that pauses past the check's patience: each gets the
        // in-line check's answer wherever the escape, the bare `\r` or a CRLF falls.
        let len = CHECK_BESIDE + 3 * PACE_LEAD + 5;
        let clean = b"plain line\r\n".repeat(len / 12 + 1);
        let run = |bytes: &[u8], how: u8| {
            unless_dirty_paced(bytes, |pace| match how {
                0 => {
                    let mut at = 0;
                    while at < bytes.len() {
                        at = (at + 100_003).min(bytes.len());
                        if !pace.reached(at) {
                            return false;
                        }
                    }
                    true
                }
                1 => true,
                _ => {
                    std::thread::sleep(PACE_PATIENCE * 3);
                    true
                }
            })
        };
        let edges = [
            CHECK_HEAD,
            CHECK_HEAD + PACE_STEP - 1,
            CHECK_HEAD + PACE_STEP,
            PACE_LEAD - 1,
            PACE_LEAD,
            PACE_LEAD + 1,
            2 * PACE_LEAD + PACE_STEP,
            clean.len() - 1,
        ];
        for how in 0..3 {
            assert_eq!(run(&clean, how), Some(true), "clean, {how}");
            for &at in &edges {
                for byte in [0x1b, b'\r', b'\n'] {
                    let mut dirty = clean.clone();
                    dirty[at] = byte;
                    let expected = !needs_cleaning(&dirty);
                    let got = run(&dirty, how);
                    assert_eq!(got.is_some(), expected, "{at} {byte} {how}");
                    if let Some(finished) = got {
                        assert!(finished, "{at} {byte} {how}: stopped while clean");
                    }
                }
            }
            // A CRLF split across a step of the check.
            let mut crlf = vec![b'x'; len];
            crlf[CHECK_HEAD + PACE_STEP - 1] = b'\r';
            crlf[CHECK_HEAD + PACE_STEP] = b'\n';
            assert_eq!(run(&crlf, how), Some(true), "crlf, {how}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        #[test]
        fn the_streamed_view_equals_the_view_on_any_bytes(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::prelude::Just(b'\n'), proptest::prelude::Just(b'\r'),
                    proptest::prelude::Just(0x1b), proptest::prelude::Just(b'['),
                    proptest::prelude::Just(b'm'), proptest::prelude::Just(b'1'),
                    proptest::prelude::Just(b'x'), proptest::prelude::Just(0xc3),
                    proptest::prelude::Just(0xa9), proptest::prelude::Just(b']'),
                    proptest::prelude::Just(0x07),
                ],
                0..600,
            ),
            sizes in proptest::collection::vec(1usize..64, 1..8),
        ) {
            if let Some(expected) = view(&bytes) {
                proptest::prop_assert_eq!(streamed(&bytes, &sizes), expected);
            }
            proptest::prop_assert_eq!(unless_dirty(&bytes, || ()).is_some(), view(&bytes).is_none());
        }
    }

    /// [`view_window`] read off the whole view, line by line.
    fn window_oracle(
        bytes: &[u8],
        start: WindowStart,
        want_lines: u64,
        want_bytes: u64,
    ) -> Option<ViewWindow> {
        let v = view(bytes)?;
        let lines: Vec<&[u8]> = v.split_inclusive(|&b| b == b'\n').collect();
        let newlines = v.iter().filter(|&&b| b == b'\n').count() as u64;
        let mut acc = 0u64;
        let mut first = None;
        for (i, l) in lines.iter().enumerate() {
            let here = match start {
                WindowStart::Line(n) => i as u64 + 1 == n.max(1),
                WindowStart::Byte(b) => acc + l.len() as u64 > b,
            };
            if here {
                first = Some((i, acc));
                break;
            }
            acc += l.len() as u64;
        }
        let (from, offset, line) = match first {
            Some((i, acc)) => (i, acc, i as u64 + 1),
            None => {
                let end = match start {
                    WindowStart::Line(n) => n.max(newlines + 1),
                    WindowStart::Byte(_) => newlines + 1,
                };
                (lines.len(), v.len() as u64, end)
            }
        };
        let want_bytes = match start {
            WindowStart::Byte(b) => b.saturating_sub(offset).saturating_add(want_bytes),
            WindowStart::Line(_) => want_bytes,
        };
        let (mut out, mut held) = (Vec::new(), 0u64);
        for l in &lines[from..] {
            if held > want_lines || out.len() as u64 > want_bytes {
                break;
            }
            out.extend_from_slice(l);
            held += u64::from(l.ends_with(b"\n"));
        }
        Some(ViewWindow {
            bytes: out,
            offset,
            line,
            total: v.len() as u64,
            lines: crate::text::count_lines(&v),
        })
    }

    #[test]
    fn a_window_of_the_view_is_the_views_lines() {
        let log = b"\x1b[1mone\x1b[0m\ntwo\n3%\r100%\nfour\nlast\x1b";
        for n in 0..8 {
            for (lines, bytes) in [(0, u64::MAX), (1, u64::MAX), (9, 3), (u64::MAX, 0)] {
                let start = WindowStart::Line(n);
                assert_eq!(
                    view_window(log, start, lines, bytes),
                    window_oracle(log, start, lines, bytes),
                    "{n} {lines} {bytes}"
                );
                let start = WindowStart::Byte(n * 3);
                assert_eq!(
                    view_window(log, start, lines, bytes),
                    window_oracle(log, start, lines, bytes),
                    "{n} {lines} {bytes}"
                );
            }
        }
        // The last line, cleaned to nothing, is no line.
        let w = view_window(b"a\n\x1b[0m", WindowStart::Line(1), 5, 5).unwrap();
        assert_eq!((w.lines, w.total), (1, 2));
        assert_eq!(view_window(b"", WindowStart::Line(1), 5, 5), None);
        assert_eq!(view_window(b"a\r\nb\r\n", WindowStart::Line(1), 5, 5), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        #[test]
        fn a_window_equals_the_views_lines_on_any_bytes(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::prelude::Just(b'\n'), proptest::prelude::Just(b'\r'),
                    proptest::prelude::Just(0x1b), proptest::prelude::Just(b'['),
                    proptest::prelude::Just(b'm'), proptest::prelude::Just(b'x'),
                    proptest::prelude::Just(b'y'),
                ],
                0..300,
            ),
            by_line in proptest::bool::ANY,
            at in 0u64..320,
            want_lines in proptest::prop_oneof![0u64..20, proptest::prelude::Just(u64::MAX)],
            want_bytes in proptest::prop_oneof![0u64..200, proptest::prelude::Just(u64::MAX)],
        ) {
            let start = if by_line { WindowStart::Line(at / 4) } else { WindowStart::Byte(at) };
            proptest::prop_assert_eq!(
                view_window(&bytes, start, want_lines, want_bytes),
                window_oracle(&bytes, start, want_lines, want_bytes)
            );
        }
    }

    #[test]
    fn a_prefix_is_cut_after_cleaning() {
        let line = b"downloading 10%\r".repeat(100);
        let mut line = line.clone();
        line.extend_from_slice(b"done");
        assert_eq!(clean_prefix(&line, 800), b"done");
        assert_eq!(clean_prefix("\x1b[1mé\x1b[0mx".as_bytes(), 1), b"");
        assert_eq!(
            clean_prefix("\x1b[1mé\x1b[0mx".as_bytes(), 2),
            "é".as_bytes()
        );
    }
}
