//! The bounded JSON writer of `extract`: copies selected values from the source (numbers and
//! strings exactly as written), re-indented, checking everything it prints, and cuts them to the
//! bounds with in-band `…` markers that name the command continuing each cut.
//!
//! The byte bound works with reservations: every open container reserves the bytes of its
//! closing bracket and of a marker, so a cut can always be closed into valid JSON. When an
//! element does not fit, the writer rolls back to the start of the outermost element in progress
//! that is not the first of its container and closes that container with a marker; so the
//! output shows whole elements where it can and descends into one only when it is the first.
//!
//! A marker's command spells the path, so a long key (escaped once in the path, again in the
//! shell quoting, again in the JSON string) can make it longer than the whole bound. Where the
//! full marker does not fit, a marker keeps only what was cut (`"… 12 more items"`), whose size
//! does not depend on the path, and the notice still names the command. Above the floor
//! ([`MIN_MAX_BYTES`]) the bound then holds for every input.

use std::io::Write;

use crate::json::path::{NormPath, PathElem};
use crate::json::path::{Records, is_records};
use crate::json::{
    Container, Flow, Scalar, SyntaxError, Value, Visitor, json_string, skip_ws, validate_value,
    walk_value,
};
use crate::limits::group_digits;

/// The smallest `--max-bytes` honoured: room for the list, its closing bracket and a marker
/// without its command (`["… 18,446,744,073,709,551,615 more nodes"]`), or for a single value
/// in its smallest form. A smaller bound is raised to it (the command line refuses it).
pub const MIN_MAX_BYTES: usize = 128;

/// The bounds of one extraction; `None` for `max_bytes` lifts the byte bound.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Elements or members shown per container, and nodes per list.
    pub max_items: usize,
    /// Container levels shown below a selected value.
    pub max_depth: usize,
    /// Characters shown per string.
    pub max_string: usize,
    /// Bytes of the whole output.
    pub max_bytes: Option<usize>,
}

/// Bytes of the key of an object's marker member, `"…": ` (the quotes, `…` in UTF-8, the colon
/// and its space when pretty).
const MEMBER_MARKER_KEY: usize = 7;
/// Bytes of the fixed words of a container's marker around its counts and the JSON strings of
/// the command's SOURCE and query: `"… ` (5), ` more members: ` (15), ` ` (1),
/// ` --nodes --offset ` (18) and the closing quote (1), the longest of the two kinds.
const CONTAINER_MARKER_WORDS: usize = 40;

/// What was cut, for the notice line.
#[derive(Debug, Default, Clone)]
pub struct Cuts {
    /// Containers cut short (by `--max-items` or the byte bound).
    pub containers: u64,
    /// Array elements left out of them.
    pub items: u64,
    /// Object members left out of them.
    pub members: u64,
    /// Strings cut (by `--max-string` or the byte bound).
    pub strings: u64,
    /// Containers replaced by a summary (deeper than `--max-depth`).
    pub deep: u64,
    /// The command continuing the first cut of the most telling kind.
    pub first_next: Option<String>,
    /// The kind of that cut.
    next_kind: CutKind,
}

/// What a cut cut, in the order the notice prefers its command: a container cut short tells the
/// most (its command pages through the rest), then a long string, then a summarised container.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum CutKind {
    /// A container closed early by `--max-items` or the byte bound.
    #[default]
    Container,
    /// A string (or an overlong number) cut by `--max-string` or the byte bound.
    String,
    /// A container deeper than `--max-depth`, summarised.
    Deep,
}

impl Cuts {
    /// True when nothing was cut.
    pub fn is_empty(&self) -> bool {
        self.containers == 0 && self.strings == 0 && self.deep == 0
    }

    /// Offers `command` as the one the notice names: the first cut of a container wins over
    /// the first long string, which wins over the first summarised container.
    pub(super) fn next(&mut self, command: &str, kind: CutKind) {
        if self.first_next.is_none() || kind < self.next_kind {
            self.first_next = Some(command.to_string());
            self.next_kind = kind;
        }
    }
}

/// How the command continuing a cut is spelled: `spill extract SOURCE` with SOURCE quoted for a
/// shell, and the flags that keep the output mode.
#[derive(Debug, Clone)]
pub struct Continue {
    /// `spill extract 'SOURCE'`, ready to append a query.
    pub prefix: String,
}

/// Quotes a word for a POSIX shell only when it needs it (the crate's one rule).
pub use crate::text::shell::quote as shell_quote;

/// The output buffer: bounded outputs are kept whole (a cut may roll back); unbounded ones
/// are streamed to the writer in large pieces.
pub struct Out<'w> {
    buf: Vec<u8>,
    flushed: usize,
    writer: &'w mut dyn Write,
    limit: usize,
    pub(super) reserve: usize,
    failed: Option<std::io::Error>,
    /// Pretty printing (2-space indentation) rather than compact.
    pub pretty: bool,
}

/// Streamed outputs are written out whenever this much is buffered.
const FLUSH_AT: usize = 1 << 20;

/// Pretty output indents at most this many levels (200 columns); deeper lines keep that
/// indentation. Indenting every level makes the output quadratic in the depth: a 2 MB array
/// nested 1,000,000 deep printed with `--unbounded` would be ~10^12 bytes of spaces. With the
/// cap it is 0.4 GB, and documents less than 100 levels deep (all real ones) are unchanged.
pub const MAX_INDENT: usize = 100;

/// Containers this many levels below a selected value are written by [`Plain`] when nothing can
/// be cut (`--unbounded`): a frame of [`Writer::value`] takes ~150 bytes per level, so a 20 MB
/// array nested 10,000,000 deep needed 1.4 GB; the parser's events and a depth counter need the
/// parser's 16 bytes per level. Shallower containers keep the frames (and their fast skips).
const PLAIN_DEPTH: usize = 64;

impl<'w> Out<'w> {
    /// An output buffer in front of `writer`.
    pub fn new(writer: &'w mut dyn Write, max_bytes: Option<usize>, pretty: bool) -> Self {
        Out {
            buf: Vec::new(),
            flushed: 0,
            writer,
            limit: max_bytes.map_or(usize::MAX, |b| b.max(MIN_MAX_BYTES)),
            reserve: 0,
            failed: None,
            pretty,
        }
    }

    /// The byte bound (`usize::MAX` when unbounded).
    pub(super) fn limit(&self) -> usize {
        self.limit
    }

    pub(super) fn bounded(&self) -> bool {
        self.limit != usize::MAX
    }

    /// Bytes written so far.
    pub fn pos(&self) -> usize {
        self.flushed + self.buf.len()
    }

    pub(super) fn fits(&self, extra: usize) -> bool {
        !self.bounded() || self.pos() + extra + self.reserve <= self.limit
    }

    pub(super) fn truncate(&mut self, pos: usize) {
        self.buf.truncate(pos - self.flushed);
    }

    /// Appends bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    pub(super) fn newline(&mut self, indent: usize) {
        if self.pretty {
            self.buf.push(b'\n');
            for _ in 0..indent.min(MAX_INDENT) {
                self.buf.extend_from_slice(b"  ");
            }
        }
    }

    pub(super) fn newline_len(&self, indent: usize) -> usize {
        if self.pretty {
            1 + 2 * indent.min(MAX_INDENT)
        } else {
            0
        }
    }

    /// Writes out what is buffered, when streaming (unbounded) and enough has gathered. A
    /// write error (a closed pipe) is kept for [`Out::finish`] and stops further writing.
    pub fn maybe_flush(&mut self) {
        if !self.bounded() && self.buf.len() >= FLUSH_AT {
            if self.failed.is_none()
                && let Err(e) = self.writer.write_all(&self.buf)
            {
                self.failed = Some(e);
            }
            self.flushed += self.buf.len();
            self.buf.clear();
        }
    }

    /// True once writing has failed (the reader went away): evaluation can stop.
    pub fn failed(&self) -> bool {
        self.failed.is_some()
    }

    /// Writes out everything.
    pub fn finish(mut self) -> std::io::Result<()> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.writer.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }
}

/// One open container being written.
struct Frame<'d> {
    node: Value<'d>,
    iter: Iter<'d>,
    /// Elements written completely so far; the one in progress is not counted.
    shown: usize,
    /// Where the element in progress started (before its separator).
    checkpoint: usize,
    /// The path length of the container itself.
    path_len: usize,
    /// The indentation of the container's elements.
    indent: usize,
    /// What this frame reserved in [`Out`].
    reserve: usize,
}

enum Iter<'d> {
    Object(crate::json::Members<'d>),
    Array(crate::json::Elements<'d>),
    Records(Records<'d>),
}

impl Frame<'_> {
    fn is_object(&self) -> bool {
        matches!(self.iter, Iter::Object(_))
    }
}

/// The value writer: bounds, the continuation prefix, and what was cut.
pub struct Writer<'c> {
    /// The length of the source: a bound for every count.
    pub doc_len: usize,
    /// Where the records of an NDJSON source start (its root is the virtual array of them).
    pub records_from: usize,
    /// NDJSON lines that are not one value are skipped instead of an error.
    pub skip_invalid: bool,
    /// The bounds in force.
    pub bounds: Bounds,
    /// How continuation commands start.
    pub cont: &'c Continue,
    /// What was cut so far.
    pub cuts: Cuts,
}

impl<'c> Writer<'c> {
    /// Writes the value `v` (whose location is `path`) at the current position, `indent`
    /// levels deep. `first` says whether it is the first element of the list it belongs to;
    /// if it is not and it does not fit, nothing is written and the result is `false`.
    pub fn value<'d>(
        &mut self,
        out: &mut Out<'_>,
        v: Value<'d>,
        path: &mut NormPath<'d>,
        indent: usize,
        first: bool,
    ) -> Result<bool, SyntaxError> {
        let start = Start {
            pos: out.pos(),
            reserve: out.reserve,
            path_len: path.len(),
            first,
        };
        let mut stack: Vec<Frame<'d>> = Vec::new();
        // The value to write next, if any, and whether it is forced (written even when it
        // does not fit, because there is nothing left to cut).
        let mut pending: Option<(Value<'d>, bool)> = Some((v, false));
        loop {
            if let Some((value, force)) = pending.take() {
                let depth = stack.len();
                let complete = match self.begin(out, value, path, indent + depth, depth, force)? {
                    Begin::Done => true,
                    Begin::Open(frame) => {
                        stack.push(frame);
                        false
                    }
                    Begin::Overflow => {
                        match self.overflow(out, &mut stack, path, value, force, start)? {
                            Overflowed::Dropped => return Ok(false),
                            Overflowed::Retry => {
                                pending = Some((value, true));
                                continue;
                            }
                            Overflowed::Cut => true,
                        }
                    }
                };
                // The parent's element in progress is complete (written, cut or closed).
                if complete && let Some(parent) = stack.last_mut() {
                    parent.shown += 1;
                }
            }
            if stack.is_empty() {
                path.truncate(start.path_len);
                return Ok(true);
            }
            pending = self
                .step(out, &mut stack, path)?
                .map(|value| (value, false));
        }
    }

    /// What to do when the value being written does not fit: drop it (not the first of its
    /// list, or not even its smallest form fits), write it again in its smallest form, or cut
    /// the outermost container in progress that shows something.
    fn overflow<'d>(
        &mut self,
        out: &mut Out<'_>,
        stack: &mut Vec<Frame<'d>>,
        path: &mut NormPath<'d>,
        value: Value<'d>,
        force: bool,
        start: Start,
    ) -> Result<Overflowed, SyntaxError> {
        // Roll back to the outermost element in progress that is not the first of its
        // container, so that whole elements are shown where possible.
        let shown = stack.iter().position(|f| f.shown > 0);
        if !start.first || (force && stack.is_empty()) {
            // Not the first of its list (the list's marker counts it), or not even its
            // smallest form fits (a bound below the floor, or a node path longer than the
            // bound): nothing of it is shown.
            out.truncate(start.pos);
            out.reserve = start.reserve;
            path.truncate(start.path_len);
            return Ok(Overflowed::Dropped);
        }
        if shown.is_none()
            && !force
            && (value.doc().get(value.offset()) == Some(&b'"') || stack.is_empty())
        {
            // Nothing shown anywhere yet: show this value in its smallest form (cut to fit,
            // markers without their command if need be).
            return Ok(Overflowed::Retry);
        }
        // Cut the outermost container that shows something; if none does, the innermost,
        // which reserved room for its marker.
        let i = shown.unwrap_or(stack.len() - 1);
        while stack.len() > i + 1 {
            let f = stack.pop().expect("frames above i");
            out.reserve -= f.reserve;
        }
        let f = stack.last_mut().expect("frame i");
        out.truncate(f.checkpoint);
        path.truncate(f.path_len);
        self.cut_frame(out, f, path)?;
        let f = stack.pop().expect("frame i");
        self.close(out, f);
        Ok(Overflowed::Cut)
    }

    /// Advances the innermost open container (`stack` is not empty): returns its next element,
    /// with the separator and key before it written and its step on `path`, or `None` when the
    /// container ended (closed) or reached `--max-items` (cut and closed).
    #[inline]
    fn step<'d>(
        &mut self,
        out: &mut Out<'_>,
        stack: &mut Vec<Frame<'d>>,
        path: &mut NormPath<'d>,
    ) -> Result<Option<Value<'d>>, SyntaxError> {
        let f = stack.last_mut().expect("an open container");
        path.truncate(f.path_len);
        let next = match &mut f.iter {
            Iter::Array(e) => e.next().map(|r| r.map(|(i, v)| (None, i, v))),
            Iter::Object(m) => m.next().map(|r| r.map(|m| (Some(m), 0, m.value))),
            Iter::Records(r) => {
                let index = f.shown as u64;
                r.next().map(|r| r.map(|v| (None, index, v)))
            }
        };
        if let Some(Err(e)) = &next {
            return Err(e.clone());
        }
        // Written out only now that the byte after the last value was read and checked (a
        // separator or the closing bracket), so streamed output never holds a value that the
        // document does not.
        out.maybe_flush();
        match next {
            None => {
                let f = stack.pop().expect("innermost");
                let end = match &f.iter {
                    Iter::Object(m) => m.end(),
                    Iter::Array(e) => e.end(),
                    Iter::Records(_) => None,
                };
                self.close(out, f);
                if let Some(parent) = stack.last_mut() {
                    parent.shown += 1;
                    // The child was walked to its end: the parent need not skip it again
                    // (without this a deep document is read once per level).
                    if let Some(end) = end {
                        match &mut parent.iter {
                            Iter::Object(m) => m.resume_at(end),
                            Iter::Array(e) => e.resume_at(end),
                            Iter::Records(r) => r.resume_at(end),
                        }
                    }
                }
                Ok(None)
            }
            Some(Err(e)) => Err(e),
            Some(Ok((member, index, value))) => {
                if f.shown >= self.bounds.max_items {
                    self.cut_frame(out, f, path)?;
                    let f = stack.pop().expect("innermost");
                    self.close(out, f);
                    if let Some(parent) = stack.last_mut() {
                        parent.shown += 1;
                    }
                    return Ok(None);
                }
                f.checkpoint = out.pos();
                if f.shown > 0 {
                    out.push(b",");
                }
                out.newline(f.indent);
                match member {
                    Some(m) => {
                        let key_end = validate_value(value.doc(), m.key_at)?;
                        out.push(&value.doc()[m.key_at..key_end]);
                        out.push(if out.pretty { b": " } else { b":" });
                        path.push(PathElem::Name(m.key()));
                    }
                    None => path.push(PathElem::Index(index as usize)),
                }
                Ok(Some(value))
            }
        }
    }

    /// Starts writing `v`: a scalar is written whole, a container is opened (or summarised
    /// when too deep).
    fn begin<'d>(
        &mut self,
        out: &mut Out<'_>,
        v: Value<'d>,
        path: &NormPath<'d>,
        indent: usize,
        depth: usize,
        force: bool,
    ) -> Result<Begin<'d>, SyntaxError> {
        if is_records(v) {
            return self.open(out, v, path, indent, depth, force);
        }
        match v.doc().get(v.offset()) {
            Some(b'{' | b'[') => self.open(out, v, path, indent, depth, force),
            Some(b'"') => self.string(out, v, path, force),
            _ => self.literal(out, v, path, depth, force),
        }
    }

    /// Opens the container `v` (an object, an array or the virtual array of NDJSON records):
    /// written plainly when nothing can be cut, summarised when deeper than `--max-depth`,
    /// whole when empty, else opened with room reserved for the marker that may cut it.
    fn open<'d>(
        &mut self,
        out: &mut Out<'_>,
        v: Value<'d>,
        path: &NormPath<'d>,
        indent: usize,
        depth: usize,
        force: bool,
    ) -> Result<Begin<'d>, SyntaxError> {
        let (doc, at) = (v.doc(), v.offset());
        let records = is_records(v);
        let object = !records && doc.get(at) == Some(&b'{');
        if !records && depth >= PLAIN_DEPTH && self.cannot_cut(out) {
            walk_value(doc, at, &mut Plain::new(out, indent))?;
            return Ok(Begin::Done);
        }
        if depth >= self.bounds.max_depth {
            return self.summarise(out, v, path, object, force);
        }
        // An empty container is written whole.
        let empty = if records {
            self.records(v).next().is_none()
        } else {
            let close = if object { b'}' } else { b']' };
            doc.get(skip_ws(doc, at + 1)) == Some(&close)
        };
        if empty {
            if !out.fits(2) {
                return Ok(Begin::Overflow);
            }
            out.push(if object { b"{}" } else { b"[]" });
            return Ok(Begin::Done);
        }
        let Some(reserve) = self.open_reserve(out, path, indent, object, force) else {
            return Ok(Begin::Overflow);
        };
        out.push(if object { b"{" } else { b"[" });
        out.reserve += reserve;
        let iter = if records {
            Iter::Records(self.records(v))
        } else if object {
            Iter::Object(v.members())
        } else {
            Iter::Array(v.elements())
        };
        Ok(Begin::Open(Frame {
            node: v,
            iter,
            shown: 0,
            checkpoint: out.pos(),
            path_len: path.len(),
            indent: indent + 1,
            reserve,
        }))
    }

    /// What opening a container at `path` reserves for its marker and closing bracket, when
    /// the bracket and that fit; `None` when they do not.
    fn open_reserve(
        &self,
        out: &Out<'_>,
        path: &NormPath<'_>,
        indent: usize,
        object: bool,
        force: bool,
    ) -> Option<usize> {
        // Unbounded output needs no reservation (nor the cost of spelling the path).
        let reserve = if out.bounded() {
            out.newline_len(indent) + 1 + self.marker_bound(out, path, indent + 1, object)
        } else {
            0
        };
        if out.fits(1 + reserve) {
            return Some(reserve);
        }
        // Forced: reserve a marker without its command, whose size does not depend on the path
        // (a long key would otherwise never fit).
        let reserve = out.newline_len(indent) + 1 + self.short_marker_bound(out, indent + 1);
        (force && out.fits(1 + reserve)).then_some(reserve)
    }

    /// Writes a container deeper than `--max-depth` as a summary naming its size and the
    /// command reading it (`"… object(12 keys): spill extract …"`).
    fn summarise<'d>(
        &mut self,
        out: &mut Out<'_>,
        v: Value<'d>,
        path: &NormPath<'d>,
        object: bool,
        force: bool,
    ) -> Result<Begin<'d>, SyntaxError> {
        let n = self.count(v)?;
        let what = if object {
            format!("object({} {})", group_digits(n), plural(n, "key", "keys"))
        } else {
            format!("array[{n}]")
        };
        let cmd = format!("{} {}", self.cont.prefix, shell_quote(&path.to_dot()));
        let mut text = json_string(&format!("… {what}: {cmd}"));
        if !out.fits(text.len()) {
            // Forced: without the command (the notice names it), if that fits.
            text = json_string(&format!("… {what}"));
            if !force || !out.fits(text.len()) {
                return Ok(Begin::Overflow);
            }
        }
        out.push(text.as_bytes());
        self.cuts.deep += 1;
        self.cuts.next(&cmd, CutKind::Deep);
        Ok(Begin::Done)
    }

    /// Writes the string `v`: whole when it is within `--max-string` and fits, else cut with a
    /// marker inside the quotes naming what is left and the command reading all of it.
    fn string<'d>(
        &mut self,
        out: &mut Out<'_>,
        v: Value<'d>,
        path: &NormPath<'d>,
        force: bool,
    ) -> Result<Begin<'d>, SyntaxError> {
        let (doc, at) = (v.doc(), v.offset());
        let end = validate_value(doc, at)?;
        let raw = &doc[at + 1..end - 1];
        let (keep, kept, total) = scan_chars(raw, self.bounds.max_string, usize::MAX);
        if keep == raw.len() {
            if out.fits(end - at) {
                out.push(&doc[at..end]);
                return Ok(Begin::Done);
            }
            if !force {
                return Ok(Begin::Overflow);
            }
        }
        let cmd = format!(
            "{} {} -r --unbounded",
            self.cont.prefix,
            shell_quote(&path.to_dot())
        );
        let mut keep = keep;
        let mut kept = kept;
        let mut with_cmd = true;
        if keep == raw.len() || !out.fits(keep + 2 + marker_suffix(total - kept, &cmd).len()) {
            if !force {
                return Ok(Begin::Overflow);
            }
            // Nothing else can be cut: as much of the string as the budget leaves, with a
            // marker naming the command if it fits (the notice names it anyway). `total`
            // bounds the count the marker will show.
            with_cmd = out.fits(2 + marker_suffix(total, &cmd).len());
            let suffix = if with_cmd {
                marker_suffix(total, &cmd)
            } else {
                short_suffix(total)
            };
            if !out.fits(2 + suffix.len()) {
                return Ok(Begin::Overflow);
            }
            let room = out
                .limit
                .saturating_sub(out.pos() + out.reserve + 2 + suffix.len());
            (keep, kept, _) = scan_chars(raw, self.bounds.max_string, room);
        }
        out.push(b"\"");
        out.push(&raw[..keep]);
        out.push(
            if with_cmd {
                marker_suffix(total - kept, &cmd)
            } else {
                short_suffix(total - kept)
            }
            .as_bytes(),
        );
        out.push(b"\"");
        self.cuts.strings += 1;
        self.cuts.next(&cmd, CutKind::String);
        Ok(Begin::Done)
    }

    /// Writes a number, `true`, `false` or `null` as written; a number longer than the whole
    /// bound, with nothing around it to cut, becomes a marker in its place.
    fn literal<'d>(
        &mut self,
        out: &mut Out<'_>,
        v: Value<'d>,
        path: &NormPath<'d>,
        depth: usize,
        force: bool,
    ) -> Result<Begin<'d>, SyntaxError> {
        let (doc, at) = (v.doc(), v.offset());
        let end = validate_value(doc, at)?;
        if out.fits(end - at) {
            out.push(&doc[at..end]);
            return Ok(Begin::Done);
        }
        if !force || depth > 0 {
            return Ok(Begin::Overflow);
        }
        // A number cannot be cut and stay what it was.
        let what = format!("… number of {} chars", group_digits((end - at) as u64));
        let cmd = format!(
            "{} {} --unbounded",
            self.cont.prefix,
            shell_quote(&path.to_dot())
        );
        let mut text = json_string(&format!("{what}: {cmd}"));
        if !out.fits(text.len()) {
            text = json_string(&what);
            if !out.fits(text.len()) {
                return Ok(Begin::Overflow);
            }
        }
        out.push(text.as_bytes());
        self.cuts.strings += 1;
        self.cuts.next(&cmd, CutKind::String);
        Ok(Begin::Done)
    }

    /// An upper bound of the bytes a marker of a container at `path` takes.
    fn marker_bound(
        &self,
        out: &Out<'_>,
        path: &NormPath<'_>,
        indent: usize,
        object: bool,
    ) -> usize {
        let query = shell_quote(&format!("{}[:]", path.to_dot()));
        // No count exceeds the document's length in bytes: its digits bound every number.
        let width = group_digits(self.doc_len as u64).len();
        // `,` newline indent `"…": ` then the string: two counts (three for a slice) and the
        // fixed words.
        1 + out.newline_len(indent)
            + if object { MEMBER_MARKER_KEY } else { 0 }
            + 3 * width
            + CONTAINER_MARKER_WORDS
            + json_string(&self.cont.prefix).len()
            + json_string(&query).len()
    }

    /// An upper bound of the bytes a marker of a container takes without its command
    /// (`"…": "… 1,234 more members"`): it does not depend on the path, so it fits any node
    /// above the floor ([`MIN_MAX_BYTES`]).
    fn short_marker_bound(&self, out: &Out<'_>, indent: usize) -> usize {
        // No count exceeds the document's length in bytes.
        let most = group_digits(self.doc_len as u64);
        1 + out.newline_len(indent)
            + MEMBER_MARKER_KEY
            + json_string(&format!("… {most} more members")).len()
    }

    /// Closes container `f` early with a marker naming what is left and how to read it.
    fn cut_frame(
        &mut self,
        out: &mut Out<'_>,
        f: &mut Frame<'_>,
        path: &NormPath<'_>,
    ) -> Result<(), SyntaxError> {
        let total = self.count(f.node)? as usize;
        let left = total.saturating_sub(f.shown);
        if left == 0 {
            return Ok(());
        }
        let container = path.to_dot();
        let (text, cmd) = if f.is_object() {
            let q = if container == "$" {
                "$.*".to_string()
            } else {
                format!("{container}.*")
            };
            let cmd = format!(
                "{} {} --nodes --offset {}",
                self.cont.prefix,
                shell_quote(&q),
                f.shown
            );
            (
                format!(
                    "… {} more {}: {cmd}",
                    group_digits(left as u64),
                    plural(left as u64, "member", "members")
                ),
                cmd,
            )
        } else {
            let page = self.bounds.max_items.max(1);
            let q = format!("{container}[{}:{}]", f.shown, f.shown + page);
            let cmd = format!("{} {}", self.cont.prefix, shell_quote(&q));
            (
                format!(
                    "… {} more {}: {cmd}",
                    group_digits(left as u64),
                    plural(left as u64, "item", "items")
                ),
                cmd,
            )
        };
        out.reserve -= f.reserve;
        f.reserve = 0;
        if f.shown > 0 {
            out.push(b",");
        }
        out.newline(f.indent);
        if f.is_object() {
            out.push(if out.pretty {
                "\"…\": ".as_bytes()
            } else {
                "\"…\":".as_bytes()
            });
        }
        // The marker names its command when it fits beside the closing bracket and what the
        // outer containers reserved; a reservation without the command (a long path) keeps
        // only the count (the notice still names the command).
        let close = out.newline_len(f.indent - 1) + 1;
        let mut marker = json_string(&text);
        if !out.fits(marker.len() + close) {
            marker = json_string(&text[..text.find(": ").unwrap_or(text.len())]);
        }
        out.push(marker.as_bytes());
        // The marker counts as shown so that the closing bracket goes on its own line.
        f.shown += 1;
        self.cuts.containers += 1;
        if f.is_object() {
            self.cuts.members += left as u64;
        } else {
            self.cuts.items += left as u64;
        }
        self.cuts.next(&cmd, CutKind::Container);
        Ok(())
    }

    /// The number of members or elements of a container (records of the virtual root).
    fn count(&self, v: Value<'_>) -> Result<u64, SyntaxError> {
        if !is_records(v) {
            return v.count();
        }
        let mut n = 0;
        for r in self.records(v) {
            r?;
            n += 1;
        }
        Ok(n)
    }

    fn records<'d>(&self, v: Value<'d>) -> Records<'d> {
        Records::new(v.doc(), self.records_from, self.skip_invalid)
    }

    /// True when no bound can cut anything: the output is the value, reformatted.
    fn cannot_cut(&self, out: &Out<'_>) -> bool {
        let b = &self.bounds;
        !out.bounded()
            && b.max_items == usize::MAX
            && b.max_depth == usize::MAX
            && b.max_string == usize::MAX
    }

    /// Writes the closing bracket of `f` and releases its reservation.
    fn close(&mut self, out: &mut Out<'_>, f: Frame<'_>) {
        out.reserve -= f.reserve;
        if f.shown > 0 {
            out.newline(f.indent - 1);
        }
        out.push(if f.is_object() { b"}" } else { b"]" });
    }
}

/// Writes a value as [`Writer::value`] does when nothing is cut (scalars and keys as written,
/// elements on their own lines when pretty, `[]` and `{}` for empty containers) from the
/// parser's events, with a depth counter instead of a frame per level.
struct Plain<'o, 'w> {
    out: &'o mut Out<'w>,
    /// The indentation of the value itself.
    indent: usize,
    /// Containers open.
    depth: usize,
    /// Whether the next element follows another (needs a comma).
    comma: bool,
}

impl<'o, 'w> Plain<'o, 'w> {
    fn new(out: &'o mut Out<'w>, indent: usize) -> Self {
        Plain {
            out,
            indent,
            depth: 0,
            comma: false,
        }
    }

    fn element(&mut self) {
        if self.comma {
            self.out.push(b",");
        }
        self.out.newline(self.indent + self.depth);
    }
}

impl Visitor for Plain<'_, '_> {
    fn begin(&mut self, kind: Container, _at: usize) -> Flow {
        self.out.push(if kind == Container::Object {
            b"{"
        } else {
            b"["
        });
        self.depth += 1;
        self.comma = false;
        self.out.maybe_flush();
        Flow::Continue
    }

    fn end(&mut self, kind: Container, _at: usize, count: u64) -> Flow {
        self.depth -= 1;
        if count > 0 {
            self.out.newline(self.indent + self.depth);
        }
        self.out.push(if kind == Container::Object {
            b"}"
        } else {
            b"]"
        });
        self.comma = true;
        Flow::Continue
    }

    // Output is written out at a key or an index, after the separator before it was checked
    // (never right after a value, whose next byte is not read yet).
    fn key(&mut self, raw: &[u8], _at: usize) -> Flow {
        self.out.maybe_flush();
        self.element();
        self.out.push(b"\"");
        self.out.push(raw);
        self.out
            .push(if self.out.pretty { b"\": " } else { b"\":" });
        Flow::Continue
    }

    fn index(&mut self, _index: u64) -> Flow {
        self.out.maybe_flush();
        self.element();
        Flow::Continue
    }

    fn scalar(&mut self, _kind: Scalar, raw: &[u8], _at: usize) -> Flow {
        self.out.push(raw);
        self.comma = true;
        Flow::Continue
    }
}

enum Begin<'d> {
    Done,
    Open(Frame<'d>),
    Overflow,
}

/// Where [`Writer::value`] started: what a dropped value rolls back to.
#[derive(Clone, Copy)]
struct Start {
    pos: usize,
    reserve: usize,
    path_len: usize,
    /// The value is the first of its list (a first value is never dropped while it can shrink).
    first: bool,
}

/// What [`Writer::overflow`] did.
enum Overflowed {
    /// Nothing of the value is shown; everything it wrote is rolled back.
    Dropped,
    /// Write the value again, forced into its smallest form.
    Retry,
    /// A container in progress was cut and closed.
    Cut,
}

fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

/// The text appended inside a cut string when its command does not fit (JSON-escaped).
fn short_suffix(more: usize) -> String {
    format!(
        "… {} more {}",
        group_digits(more as u64),
        plural(more as u64, "char", "chars")
    )
}

/// The text appended inside a cut string (JSON-escaped, without quotes).
fn marker_suffix(more: usize, cmd: &str) -> String {
    let text = format!(
        "… {} more {}: {cmd}",
        group_digits(more as u64),
        plural(more as u64, "char", "chars")
    );
    let quoted = json_string(&text);
    quoted[1..quoted.len() - 1].to_string()
}

/// The length in bytes of one character of a raw (escaped) JSON string starting at `i`.
fn char_len(raw: &[u8], i: usize) -> usize {
    let hex = |from: usize| {
        raw.get(from..from + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
    };
    match raw[i] {
        // A surrogate pair written as two escapes is one character.
        b'\\' if raw.get(i + 1) == Some(&b'u') => {
            let pair = hex(i + 2).is_some_and(|u| (0xD800..0xDC00).contains(&u))
                && raw.get(i + 6..i + 8) == Some(b"\\u")
                && hex(i + 8).is_some_and(|u| (0xDC00..0xE000).contains(&u));
            if pair { 12 } else { 6 }
        }
        b'\\' => 2,
        b if b < 0x80 => 1,
        b if b >= 0xF0 => 4,
        b if b >= 0xE0 => 3,
        _ => 2,
    }
    .min(raw.len() - i)
}

/// Walks the characters of a raw JSON string: the byte length and character count of the
/// longest prefix with at most `max_chars` characters and `max_bytes` bytes, and the total
/// number of characters.
fn scan_chars(raw: &[u8], max_chars: usize, max_bytes: usize) -> (usize, usize, usize) {
    let (mut i, mut n) = (0, 0);
    let (mut keep, mut kept) = (0, 0);
    let mut open = true;
    while i < raw.len() {
        let len = char_len(raw, i);
        i += len;
        n += 1;
        if open && n <= max_chars && i <= max_bytes {
            keep = i;
            kept = n;
        } else {
            open = false;
        }
    }
    (keep, kept, n)
}

#[cfg(test)]
mod tests {
    use super::super::{Mode, Options, Report, extract};
    use super::*;
    use crate::json::path::Query;

    /// Extracts `query` from `doc` (`some file.json`) as the command would print it.
    fn run(
        doc: &str,
        query: &str,
        mode: Mode,
        compact: bool,
        bounds: Option<Bounds>,
    ) -> (String, Report) {
        let opts = Options {
            source: "some file.json",
            bounds,
            mode,
            compact,
            offset: 0,
            skip_invalid: false,
        };
        let mut out = Vec::new();
        let report = extract(
            doc.as_bytes(),
            &Query::parse(query).unwrap(),
            &opts,
            &mut out,
        )
        .unwrap_or_else(|e| panic!("{e}: {doc}"));
        (String::from_utf8(out).unwrap(), report)
    }

    /// Extracts with a byte bound and checks the promises: within the bound, valid JSON, and
    /// every cut in-band with a notice naming the command that continues it.
    fn bounded(
        doc: &str,
        query: &str,
        mode: Mode,
        compact: bool,
        max_bytes: usize,
    ) -> (String, Report) {
        let bounds = Bounds {
            max_items: 50,
            max_depth: 8,
            max_string: 1000,
            max_bytes: Some(max_bytes),
        };
        let (text, report) = run(doc, query, mode, compact, Some(bounds));
        let what = format!("{query} {mode:?} compact={compact} --max-bytes {max_bytes}");
        assert!(
            text.len() <= max_bytes.max(MIN_MAX_BYTES),
            "{what}: {} bytes: {text}",
            text.len()
        );
        serde_json::from_str::<serde_json::Value>(&text)
            .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {text}"));
        if let Some(notice) = report.notice() {
            assert!(text.contains('…'), "{what}: a cut without a marker: {text}");
            assert!(
                notice.contains("next: spill extract 'some file.json' "),
                "{what}: {notice}"
            );
        }
        (text, report)
    }

    /// Every bound from the floor up, in every JSON mode and layout.
    fn sweep(doc: &str, queries: &[&str]) {
        for query in queries {
            for mode in [Mode::Values, Mode::Nodes] {
                for compact in [false, true] {
                    for max_bytes in (MIN_MAX_BYTES..2500).step_by(37) {
                        bounded(doc, query, mode, compact, max_bytes);
                    }
                }
            }
        }
    }

    /// An object key `n` bytes long (as written in JSON) made of `unit`.
    fn key(unit: &str, n: usize) -> String {
        unit.repeat(n / unit.len().max(1))
    }

    const QUERIES: &[&str] = &["$", "$.*", "$..*", "$[*][*]", "$..[0]"];

    #[test]
    fn long_keys_stay_within_the_bound() {
        let k = key("k", 700);
        sweep(
            &format!(r#"{{"{k}": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], "b": {{"{k}": "x"}}}}"#),
            QUERIES,
        );
    }

    #[test]
    fn keys_full_of_escapes_stay_within_the_bound() {
        // Each unit grows in a normalized path (\u0000, \\, \'), again in a shell-quoted
        // command ('\'' for each quote), and again in the JSON string holding the marker.
        for unit in [
            r"\u0000",
            r#"\""#,
            r"\\",
            "'",
            "é",
            r"\ud83d\ude00",
            "😀",
            r"\n",
        ] {
            let k = key(unit, 400);
            sweep(
                &format!(r#"{{"{k}": [0, 1, 2, "{k}", {{"{k}": [1, 2]}}]}}"#),
                QUERIES,
            );
        }
    }

    #[test]
    fn nested_long_keys_stay_within_the_bound() {
        let (a, b, c) = (key("a'", 300), key(r"b\u0001", 300), key("c", 300));
        sweep(
            &format!(
                r#"{{"{a}": {{"{b}": {{"{c}": [[1, 2, 3], {{"{a}": "{b}"}}, "tail"]}}}}, "z": 1}}"#
            ),
            QUERIES,
        );
    }

    #[test]
    fn a_marker_that_cannot_name_its_command_keeps_its_count() {
        let k = key("k", 400);
        let doc = format!(
            r#"{{"{k}": [{}]}}"#,
            (0..100)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        let (text, report) = bounded(&doc, &format!("$['{k}']"), Mode::Values, true, 200);
        // The command (400 bytes of key) does not fit in 200: the marker keeps the count...
        assert!(text.ends_with(" more items\"]\n"), "{text}");
        assert!(!text.contains("spill extract"), "{text}");
        // ...and the notice still names the command.
        let notice = report.notice().unwrap();
        assert!(
            notice.contains(&format!("next: spill extract 'some file.json' '$.{k}[")),
            "{notice}"
        );
        // With room, the marker names the command as before.
        let (text, _) = bounded(&doc, &format!("$['{k}']"), Mode::Values, true, 4096);
        assert!(
            text.contains(&format!(
                ": spill extract 'some file.json' '$.{k}[50:100]'\"]"
            )),
            "{text}"
        );
    }

    #[test]
    fn a_raw_string_whose_marker_cannot_fit_keeps_its_count_within_the_bound() {
        let k = key("k", 300);
        let doc = format!(r#"{{"{k}": {{"{k}": "{}"}}}}"#, "v".repeat(5000));
        let bounds = Bounds {
            max_items: 50,
            max_depth: 8,
            max_string: 1000,
            max_bytes: Some(200),
        };
        let (text, report) = run(&doc, "$.*.*", Mode::Raw, false, Some(bounds));
        // The command (two 300-byte keys) cannot fit in 200 bytes: text, then the count only.
        assert!(text.len() <= 200, "{} bytes: {text}", text.len());
        assert!(text.starts_with("vvvv"), "{text}");
        assert!(
            text.contains("… ") && text.ends_with(" more chars\n"),
            "{text}"
        );
        assert!(!text.contains("spill extract"), "{text}");
        let notice = report.notice().unwrap();
        assert!(
            notice.contains(&format!(
                "next: spill extract 'some file.json' '$.{k}.{k}' -r --unbounded"
            )),
            "{notice}"
        );
    }

    #[test]
    fn raw_output_counts_the_line_break_after_a_value() {
        // Found by fuzzing: a number too long for the bound became its marker, and the line
        // break after it went one byte past --max-bytes.
        let doc = "3".repeat(145);
        for max_bytes in [MIN_MAX_BYTES, 144, 145, 146, 147] {
            let opts = Options {
                source: "-",
                bounds: Some(Bounds {
                    max_items: 50,
                    max_depth: 8,
                    max_string: 17,
                    max_bytes: Some(max_bytes),
                }),
                mode: Mode::Raw,
                compact: false,
                offset: 0,
                skip_invalid: false,
            };
            let mut out = Vec::new();
            extract(doc.as_bytes(), &Query::parse("$").unwrap(), &opts, &mut out).unwrap();
            assert!(out.len() <= max_bytes, "{} > {max_bytes}", out.len());
            assert!(out.ends_with(b"\n"));
        }
    }

    #[test]
    fn raw_output_drops_the_list_markers_command_when_it_does_not_fit() {
        // Found by fuzzing (third session): the first node's object fell back to the list
        // marker's short reservation, and -r then printed the marker with its command anyway:
        // 141 bytes for a bound of 128.
        let doc = "[{\"b\":\"a\",\"\u{5e6}\":1}]";
        let query = Query::parse("$[0,'a',-1]").unwrap();
        let opts = Options {
            source: "-",
            bounds: Some(Bounds {
                max_items: 2,
                max_depth: 1,
                max_string: 0,
                max_bytes: Some(MIN_MAX_BYTES),
            }),
            mode: Mode::Raw,
            compact: false,
            offset: 0,
            skip_invalid: false,
        };
        let mut out = Vec::new();
        let report = extract(doc.as_bytes(), &query, &opts, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.len() <= MIN_MAX_BYTES, "{} bytes: {text}", text.len());
        // The cut stays visible (the count), and the notice names the command.
        assert!(text.ends_with("\n… 1 more node\n"), "{text}");
        assert_eq!(
            report.list_next.as_deref(),
            Some("spill extract - '$[0,'\\''a'\\'',-1]' --offset 1 -r")
        );
    }

    #[test]
    fn a_node_whose_path_leaves_no_room_is_not_shown_and_the_list_says_so() {
        let k = key("k", 600);
        let doc = format!(r#"{{"{k}": 1, "b": 2}}"#);
        let (text, report) = bounded(&doc, "$.*", Mode::Nodes, true, 300);
        // The continuation is the same command: only a larger --max-bytes shows this node.
        assert_eq!(
            text,
            "[\"… 2 more nodes: spill extract 'some file.json' '$.*' --offset 0 --nodes\"]\n"
        );
        assert_eq!((report.selected, report.shown), (2, 0));
        assert_eq!(
            report.notice().unwrap(),
            "nodes: 0 of 2 shown · next: spill extract 'some file.json' '$.*' --offset 0 --nodes"
        );
    }

    #[test]
    fn a_number_longer_than_the_bound_becomes_a_marker() {
        let n = "1".repeat(1000);
        let (text, report) = bounded(&format!(r#"{{"n": {n}}}"#), "$.n", Mode::Values, false, 200);
        assert_eq!(
            text,
            "\"… number of 1,000 chars: spill extract 'some file.json' '$.n' --unbounded\"\n"
        );
        assert_eq!(report.cuts.strings, 1);
        // Inside a container the container is cut instead.
        let (text, _) = bounded(&format!(r#"{{"a": [{n}]}}"#), "$", Mode::Values, true, 200);
        assert!(text.starts_with(r#"{"…":"… 1 more member: "#), "{text}");
    }

    #[test]
    fn a_bound_below_the_floor_is_raised_to_it() {
        let doc = format!(r#"{{"a": "{}"}}"#, "x".repeat(500));
        for mode in [Mode::Values, Mode::Nodes] {
            let (text, _) = bounded(&doc, "$.a", mode, false, 10);
            assert!(text.len() <= MIN_MAX_BYTES && text.len() > 10, "{text}");
            assert!(text.contains("xxx… "), "{text}");
        }
    }

    /// The output of `query` with every bound lifted (`None`: `--unbounded`, where deep
    /// containers go through [`Plain`]) or only too large to matter (the frames of
    /// [`Writer::value`] all the way down).
    fn uncut(doc: &str, query: &str, mode: Mode, compact: bool, bounds: Option<Bounds>) -> String {
        let (text, report) = run(doc, query, mode, compact, bounds);
        assert!(report.cuts.is_empty());
        text
    }

    /// A document nested `levels.len()` deep, each level with siblings before and after the
    /// deeper one, empty containers among them, and whitespace or none between tokens.
    fn spine(levels: &[(bool, u8, u8, bool)]) -> String {
        const SCALARS: [&str; 8] = [
            "1",
            "-0.5e3",
            r#""s\n\u00e9""#,
            "true",
            "null",
            "[]",
            "{ }",
            "[ ]",
        ];
        let mut open = String::new();
        let mut close = String::new();
        for (depth, &(object, before, after, ws)) in levels.iter().enumerate() {
            let sp = if ws { " \n " } else { "" };
            let item = |i: u8| {
                let v = SCALARS[(usize::from(i) + depth) % SCALARS.len()];
                if object {
                    format!(r#""k{i}"{sp}:{sp}{v}"#)
                } else {
                    v.to_string()
                }
            };
            open.push(if object { '{' } else { '[' });
            open.push_str(sp);
            for i in 0..before {
                open.push_str(&format!("{}{sp},{sp}", item(i)));
            }
            if object {
                open.push_str(&format!(r#""deep"{sp}:{sp}"#));
            }
            let mut tail = String::new();
            for i in 0..after {
                tail.push_str(&format!("{sp},{sp}{}", item(i + 3)));
            }
            tail.push_str(sp);
            tail.push(if object { '}' } else { ']' });
            close.insert_str(0, &tail);
        }
        format!("{open}\"end\"{close}")
    }

    proptest::proptest! {
        #[test]
        fn deep_unbounded_output_is_what_the_frames_write(
            levels in proptest::collection::vec(
                (proptest::bool::ANY, 0u8..3, 0u8..3, proptest::bool::ANY), 0..150),
            compact in proptest::bool::ANY,
            mode in proptest::sample::select(vec![Mode::Values, Mode::Nodes, Mode::Raw]),
        ) {
            let doc = spine(&levels);
            let huge = Bounds {
                max_items: usize::MAX,
                max_depth: usize::MAX,
                max_string: usize::MAX,
                max_bytes: Some(usize::MAX / 2),
            };
            for query in ["$", "$.*", "$[0]"] {
                let plain = uncut(&doc, query, mode, compact, None);
                let frames = uncut(&doc, query, mode, compact, Some(huge));
                proptest::prop_assert_eq!(plain, frames);
            }
        }
    }
}
