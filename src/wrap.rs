//! The library half of `spill wrap`: read an output to its end, pass it through when small,
//! otherwise stream it into the store while hashing and analysing it on a second thread, and
//! build the envelope that replaces it.
//!
//! Measured design (ARCHITECTURE.md, Early measurements): reading a pipe in 1 MiB chunks after enlarging it with
//! `F_SETPIPE_SZ` is 2.6× faster than 64 KiB reads; BLAKE3 runs at ~4–5 GB/s on one core, so
//! hashing and text analysis run on a worker thread while the main thread reads and writes,
//! and the two overlap on a 2-core machine. Nothing on the pass-through path touches the store
//! or compiles a regex, so a small output costs little more than process start-up.

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::mpsc;

use serde_json::value::RawValue;

use crate::envelope::{Envelope, Preview, SignalMatch, Signals};
use crate::error::{Error, Result};
use crate::json;
use crate::limits::{self, group_digits, human_size};
use crate::store::{Finished, Meta, Ref, Store, StoreConfig, TempPayload};
use crate::text::analyze::{TextAnalyzer, TextFacts};
use crate::text::preview::{self, Budget};
use crate::text::redact::Redactor;

/// Reads are made in chunks of this size.
const CHUNK: usize = 1 << 20;
/// Chunks in flight between the reader and the analysing thread (bounds memory).
const IN_FLIGHT: usize = 4;
/// Failure signals shown at most.
const MAX_SIGNALS: usize = 5;

/// How `wrap` behaves.
#[derive(Debug, Clone)]
pub struct WrapOptions {
    /// Outputs up to this many bytes pass through.
    pub max_inline: u64,
    /// The budget shared by the preview and the signals.
    pub preview: u64,
    /// `--head-lines`.
    pub head_lines: Option<usize>,
    /// `--tail-lines`.
    pub tail_lines: Option<usize>,
    /// `--label`.
    pub label: Option<String>,
    /// `--redact`: replace secrets with `[REDACTED]` in everything written.
    pub redact: bool,
    /// `--turn`: the turn whose inline budget this output shares.
    pub turn: Option<String>,
    /// `--turn-budget`: the most bytes one turn passes through inline.
    pub turn_budget: u64,
    /// Why the store must not be used (an invalid `SPILL_SCOPE` or `SPILL_DIR`, ...), when it
    /// must not: then nothing touches the store — a large output gets the degraded envelope
    /// with this reason, and turn budgets are not applied — and no other store stands in.
    pub store_error: Option<String>,
    /// `--skip-invalid`: NDJSON lines that are not exactly one value are skipped and counted.
    pub skip_invalid: bool,
}

impl Default for WrapOptions {
    fn default() -> WrapOptions {
        WrapOptions {
            max_inline: limits::MAX_INLINE,
            preview: limits::PREVIEW,
            head_lines: None,
            tail_lines: None,
            label: None,
            redact: false,
            turn: None,
            turn_budget: limits::TURN_BUDGET,
            store_error: None,
            skip_invalid: false,
        }
    }
}

/// What reading the output produced.
#[derive(Debug)]
pub enum Capture {
    /// Small enough: the bytes themselves, to be written unchanged.
    Inline(Vec<u8>),
    /// Too large: stored (or not) and analysed.
    Spilled(Box<Spilled>),
}

/// A large output, after reading it to its end.
#[derive(Debug)]
pub struct Spilled {
    /// The text analysis (counts, head and tail bytes, signals).
    pub facts: TextFacts,
    /// Where it is stored, or why the store refused it.
    pub stored: std::result::Result<Stored, String>,
    /// True when a signal stopped reading early.
    pub interrupted: bool,
    /// Secrets replaced, when `--redact` is on.
    pub redacted: Option<u64>,
    /// JSON facts, when the stored payload is JSON or NDJSON.
    pub json: Option<JsonPart>,
    /// `looks like JSON but is invalid at byte N (line L:C)`, for JSON-looking text.
    pub invalid_json: Option<String>,
}

/// The JSON half of an envelope: the engine's facts and the mapped payload they point into
/// (kept so that a smaller preview can be rendered without another pass).
#[derive(Debug)]
pub struct JsonPart {
    /// What the JSON engine found.
    pub facts: json::analyze::JsonFacts,
    /// The stored payload, memory-mapped.
    pub map: memmap2::Mmap,
    /// Records of a top-level array that stand out by a severity field's value.
    pub records: Vec<json::analyze::RecordSignal>,
}

/// A stored payload.
#[derive(Debug, Clone)]
pub struct Stored {
    /// Its ref.
    pub reference: Ref,
    /// Its file.
    pub path: PathBuf,
    /// Bytes stored (less than the input when capped).
    pub stored_bytes: u64,
    /// False when capped by `--max-file`.
    pub complete: bool,
    /// Input bytes not stored because of the cap.
    pub dropped_bytes: u64,
    /// What the store had to replace to publish it (see [`crate::store::Published`]).
    pub repaired: Vec<String>,
}

/// Reads `input` to its end (or until `stop()` says a signal arrived) and either returns it for
/// pass-through or stores it. Store failures never fail the call: they come back in
/// [`Spilled::stored`] as the reason, and the input is still drained and analysed.
pub fn capture(
    input: &mut dyn Read,
    opts: &WrapOptions,
    store: &StoreConfig,
    stop: &dyn Fn() -> bool,
) -> Result<Capture> {
    let limit = opts.max_inline;
    let mut first = Vec::with_capacity((limit as usize).saturating_add(1).min(CHUNK));
    let mut interrupted = false;
    // Phase one: buffer up to max_inline + 1 bytes; most outputs end here.
    while (first.len() as u64) <= limit {
        // Saturating: a limit of u64::MAX means "everything inline", never a zero-byte read.
        let want = (limit.saturating_add(1) - first.len() as u64).min(CHUNK as u64) as usize;
        let start = first.len();
        first.resize(start + want, 0);
        match read_some(input, &mut first[start..], stop) {
            Ok(Some(0)) => {
                first.truncate(start);
                return inline(first, false, opts, store);
            }
            Ok(Some(n)) => first.truncate(start + n),
            Ok(None) => {
                first.truncate(start);
                interrupted = true;
                break;
            }
            Err(e) => return Err(Error::stream("read stdin", e)),
        }
    }
    if interrupted && first.len() as u64 <= limit {
        return inline(first, true, opts, store);
    }
    spill(input, first, opts, store, stop).map(|s| Capture::Spilled(Box::new(s)))
}

/// An output that fits `--max-inline` (measured before redaction), read to its end or until a
/// signal: passed through, unless its turn's inline budget is spent, in which case it is spilled
/// after all. Only a `--turn` output touches the store here.
fn inline(
    bytes: Vec<u8>,
    interrupted: bool,
    opts: &WrapOptions,
    store: &StoreConfig,
) -> Result<Capture> {
    let turn = opts.turn.as_deref().filter(|_| opts.store_error.is_none());
    if let Some(turn) = turn.filter(|_| !bytes.is_empty()) {
        let admitted = crate::store::turn::admit(
            &Store::new(store.clone()),
            turn,
            bytes.len() as u64,
            opts.turn_budget,
        );
        match admitted {
            Ok(true) => {}
            Ok(false) => {
                // Nothing is left to read: the input ended (or a signal ended reading).
                let mut s = spill(&mut io::empty(), bytes, opts, store, &|| false)?;
                s.interrupted |= interrupted;
                return Ok(Capture::Spilled(Box::new(s)));
            }
            // The input is never lost to the store: pass it through and say why.
            Err(e) => crate::diag::warning(&format!("the turn budget was not applied: {e}")),
        }
    }
    if opts.redact {
        return Ok(Capture::Inline(Redactor::from_env().redact_all(&bytes)));
    }
    Ok(Capture::Inline(bytes))
}

/// One read; `Ok(None)` when a signal asked to stop.
fn read_some(
    input: &mut dyn Read,
    buf: &mut [u8],
    stop: &dyn Fn() -> bool,
) -> io::Result<Option<usize>> {
    loop {
        // A signal that arrived while wrap was busy (writing, hashing) interrupted no read:
        // without this check a producer that keeps writing would never let wrap stop.
        if stop() {
            return Ok(None);
        }
        match input.read(buf) {
            Ok(n) => return Ok(Some(n)),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                if stop() {
                    return Ok(None);
                }
            }
            Err(e) => return Err(e),
        }
    }
}

/// The writer side: a temporary payload, capped at `--max-file` as head + marker + tail.
struct CappedWriter {
    temp: TempPayload,
    head_limit: u64,
    keep_tail: usize,
    cap: u64,
    ring: Vec<u8>,
    total: u64,
}

impl CappedWriter {
    fn new(temp: TempPayload, cap: u64) -> CappedWriter {
        let keep_tail = (cap / 4).min(1 << 20);
        CappedWriter {
            temp,
            head_limit: cap - keep_tail,
            keep_tail: keep_tail as usize,
            cap,
            ring: Vec::new(),
            total: 0,
        }
    }

    fn write(&mut self, chunk: &[u8]) -> Result<()> {
        let room = self
            .head_limit
            .saturating_sub(self.total)
            .min(chunk.len() as u64) as usize;
        self.temp.write_unhashed(&chunk[..room])?;
        self.total += chunk.len() as u64;
        let rest = &chunk[room..];
        if !rest.is_empty() {
            self.ring.extend_from_slice(rest);
            if self.ring.len() > 2 * self.keep_tail.max(CHUNK) {
                let excess = self.ring.len() - self.keep_tail;
                self.ring.drain(..excess);
            }
        }
        Ok(())
    }

    /// Writes what the cap keeps of the end; returns the file, the bytes stored and the input
    /// bytes dropped.
    fn close(mut self, input_hash: &blake3::Hash) -> Result<(Finished, u64, u64)> {
        if self.total <= self.cap {
            let ring = std::mem::take(&mut self.ring);
            self.temp.write_unhashed(&ring)?;
            let stored = self.temp.written();
            return Ok((self.temp.finish_hashed(input_hash)?, stored, 0));
        }
        let tail = &self.ring[self.ring.len() - self.keep_tail..];
        let dropped = self.total - self.head_limit - self.keep_tail as u64;
        let marker = format!(
            "\n[spill: {} bytes dropped here by --max-file; the whole output was {} bytes]\n",
            group_digits(dropped),
            group_digits(self.total)
        );
        self.temp.write_unhashed(marker.as_bytes())?;
        self.temp.write_unhashed(tail)?;
        let stored = self.temp.written();
        // The ref names the stored bytes, so a capped payload is hashed as stored.
        let hash = hash_file(self.temp.path())?;
        Ok((self.temp.finish_hashed(&hash)?, stored, dropped))
    }
}

fn hash_file(path: &std::path::Path) -> Result<blake3::Hash> {
    let mut hasher = blake3::Hasher::new();
    let file = std::fs::File::open(path).map_err(|e| Error::io("read", path, e))?;
    hasher
        .update_reader(file)
        .map_err(|e| Error::io("read", path, e))?;
    Ok(hasher.finalize())
}

/// The per-file cap: `--max-file`, and never so close to the quota that the capped payload
/// (head, a one-line marker of at most `MARKER_ROOM` bytes, tail) would not fit it.
fn file_cap(config: &StoreConfig) -> u64 {
    const MARKER_ROOM: u64 = 256;
    config
        .max_file
        .min(config.quota.saturating_sub(MARKER_ROOM))
        .max(1)
}

/// Phase two: stream everything into the store, hashing and analysing on a worker thread.
fn spill(
    input: &mut dyn Read,
    first: Vec<u8>,
    opts: &WrapOptions,
    config: &StoreConfig,
    stop: &dyn Fn() -> bool,
) -> Result<Spilled> {
    let store = Store::new(config.clone());
    let mut writer: std::result::Result<CappedWriter, String> = match &opts.store_error {
        Some(reason) => Err(reason.clone()),
        None => store
            .prepare()
            .and_then(|_| store.create_temp())
            .map(|temp| CappedWriter::new(temp, file_cap(config)))
            .map_err(|e| e.to_string()),
    };
    let keep = (opts.preview as usize)
        .saturating_mul(4)
        .clamp(256 << 10, 16 << 20);
    let (to_worker, chunks) = mpsc::sync_channel::<Vec<u8>>(IN_FLIGHT);
    let (to_pool, pool) = mpsc::channel::<Vec<u8>>();
    let worker = std::thread::spawn(move || {
        let mut hasher = blake3::Hasher::new();
        let mut analyzer = TextAnalyzer::new(keep).json_fields(json::analyze::severity_fields);
        for chunk in chunks {
            hasher.update(&chunk);
            analyzer.feed(&chunk);
            let _ = to_pool.send(chunk);
        }
        (hasher.finalize(), analyzer.finish())
    });
    let mut interrupted = false;
    let mut read_error = None;
    // Redaction comes first, so the writer, the hash and the analysis all see the same bytes.
    let mut redactor = opts.redact.then(Redactor::from_env);
    let mut scratch = Vec::new();
    // A buffer the redactor emptied entirely (it held the bytes back), reused for the next read.
    let mut spare: Option<Vec<u8>> = None;
    let mut next = first;
    let mut allocated = 1;
    let mut eof = false;
    loop {
        if let Some(r) = &mut redactor {
            scratch.clear();
            r.feed(&next, &mut scratch);
            std::mem::swap(&mut next, &mut scratch);
        }
        if next.is_empty() {
            spare = Some(next);
        } else {
            if let Ok(w) = &mut writer
                && let Err(e) = w.write(&next)
            {
                writer = Err(e.to_string());
            }
            if to_worker.send(next).is_err() {
                break;
            }
        }
        if eof {
            break;
        }
        let mut buf = match spare.take().map_or_else(|| pool.try_recv(), Ok) {
            Ok(b) => b,
            Err(_) if allocated < IN_FLIGHT + 2 => {
                allocated += 1;
                Vec::with_capacity(CHUNK)
            }
            Err(_) => match pool.recv() {
                Ok(b) => b,
                Err(_) => break,
            },
        };
        buf.resize(CHUNK, 0);
        let mut filled = 0;
        // Fill the chunk: fewer, larger messages to the worker.
        while filled < CHUNK {
            match read_some(input, &mut buf[filled..], stop) {
                Ok(Some(0)) => {
                    eof = true;
                    break;
                }
                Ok(Some(n)) => filled += n,
                Ok(None) => {
                    interrupted = true;
                    eof = true;
                    break;
                }
                Err(e) => {
                    read_error = Some(e);
                    eof = true;
                    break;
                }
            }
        }
        buf.truncate(filled);
        next = buf;
    }
    let redacted = redactor.map(|mut r| {
        let mut rest = Vec::new();
        r.finish(&mut rest);
        if !rest.is_empty() {
            if let Ok(w) = &mut writer
                && let Err(e) = w.write(&rest)
            {
                writer = Err(e.to_string());
            }
            let _ = to_worker.send(rest);
        }
        r.count()
    });
    drop(to_worker);
    let (hash, facts) = worker.join().expect("the analysing thread does not panic");
    if let Some(e) = read_error {
        return Err(Error::stream("read stdin", e));
    }
    let mut json = None;
    let mut invalid_json = None;
    let stored = writer.and_then(|w| {
        publish(&store, w, &hash, &facts, opts, &mut json, &mut invalid_json)
            .map_err(|e| e.to_string())
    });
    Ok(Spilled {
        facts,
        stored,
        interrupted,
        redacted,
        json,
        invalid_json,
    })
}

/// True when the first non-blank byte (after a BOM) opens an object or an array.
fn starts_like_json(head: &[u8]) -> bool {
    let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    body.iter()
        .find(|b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
        .is_some_and(|b| matches!(b, b'{' | b'['))
}

/// The JSON engine's analysis of a complete payload that starts like JSON: one strict pass over
/// the memory-mapped temporary file, before it is published, so the metadata says what it is.
/// Not JSON after all: `Err` with the error when it looked like JSON and broke somewhere.
fn analyze_json(
    finished: &Finished,
    opts: &WrapOptions,
) -> std::result::Result<JsonPart, Option<json::SyntaxError>> {
    // SAFETY: the temporary file is private to this process until it is renamed, and payloads
    // are never rewritten afterwards, so the mapping stays valid.
    let map = unsafe { memmap2::Mmap::map(finished.file()) }.map_err(|_| None)?;
    let analysis = json::mixed::analyze(
        &map,
        &json::analyze::AnalyzeOptions {
            skip_invalid: opts.skip_invalid,
            ..analyze_options(opts.preview as usize)
        },
    );
    match analysis {
        json::analyze::Analysis::Json(facts) => {
            let records = json::mixed::record_signals(&map, &facts, MAX_SIGNALS);
            Ok(JsonPart {
                facts,
                map,
                records,
            })
        }
        json::analyze::Analysis::NotJson { invalid } => Err(invalid),
    }
}

fn analyze_options(preview_bytes: usize) -> json::analyze::AnalyzeOptions {
    json::analyze::AnalyzeOptions {
        preview_bytes,
        ..json::analyze::AnalyzeOptions::default()
    }
}

fn publish(
    store: &Store,
    writer: CappedWriter,
    hash: &blake3::Hash,
    facts: &TextFacts,
    opts: &WrapOptions,
    json: &mut Option<JsonPart>,
    invalid_json: &mut Option<String>,
) -> Result<Stored> {
    let (finished, stored_bytes, dropped_bytes) = writer.close(hash)?;
    let mut meta = Meta {
        size_bytes: facts.size,
        stored_bytes,
        mime_type: mime_of(facts).to_string(),
        lines: facts.lines,
        total_items: None,
        summary: summary(facts, facts.signal_total, None),
        label: opts.label.clone().filter(|l| !l.is_empty()),
        created: crate::store::meta::now_secs(),
        ..Meta::default()
    };
    // A capped payload is no longer the whole document, so it is described as text.
    let mixed = json::mixed::may_start(&facts.head);
    if dropped_bytes == 0 && !facts.binary && (starts_like_json(&facts.head) || mixed) {
        match analyze_json(&finished, opts) {
            Ok(part) => {
                meta.mime_type = part.facts.payload_mime().to_string();
                meta.json_part = part.facts.part.map(|p| crate::store::meta::JsonPart {
                    start: p.start as u64,
                    end: p.end as u64,
                    lines: [p.first_line, p.last_line],
                });
                meta.total_items = part.facts.total_items;
                meta.summary = part.facts.summary.clone();
                *json = Some(part);
            }
            Err(error) => {
                let note = error.as_ref().map(|e| {
                    json::analyze::Analysis::NotJson {
                        invalid: Some(e.clone()),
                    }
                    .invalid_note()
                    .unwrap_or_default()
                });
                meta.summary = summary(facts, facts.signal_total, note.as_deref());
                meta.invalid_json = error.map(|e| crate::store::meta::InvalidJson {
                    offset: e.offset,
                    line: e.line,
                    column: e.column,
                    message: e.message,
                });
                *invalid_json = note;
            }
        }
    }
    let published = store.publish(finished, &mut meta)?;
    let reference = published.reference;
    Ok(Stored {
        path: store.payload_path(&reference),
        reference,
        repaired: published.repaired,
        stored_bytes,
        complete: dropped_bytes == 0,
        dropped_bytes,
    })
}

fn mime_of(facts: &TextFacts) -> &'static str {
    if facts.binary {
        "application/octet-stream"
    } else {
        "text/plain"
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", group_digits(n), if n == 1 { one } else { many })
}

/// The one-sentence summary: `text, 5,000 lines, 190.3 KiB; 3 failure signals`, with a note
/// where the text looked like JSON but was not.
fn summary(facts: &TextFacts, signals: u64, invalid_json: Option<&str>) -> String {
    if facts.binary {
        return format!("binary, {}", human_size(facts.size));
    }
    let mut s = format!(
        "text, {}, {}",
        plural(facts.lines, "line", "lines"),
        human_size(facts.size)
    );
    if signals > 0 {
        s.push_str(&format!(
            "; {}",
            plural(signals, "failure signal", "failure signals")
        ));
    }
    if let Some(note) = invalid_json {
        s.push_str(&format!("; {note}"));
    }
    s
}

/// Quotes a word for a POSIX shell (single quotes, `'` written as `'\''`).
pub fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Builds the envelope for a spilled output, shrinking the preview until the whole envelope
/// fits `max(--max-inline, 4 KiB)`.
pub fn envelope(
    s: &Spilled,
    opts: &WrapOptions,
    exit_code: Option<i32>,
    restricted: bool,
) -> Envelope {
    let facts = &s.facts;
    let cap = opts.max_inline.max(limits::ENVELOPE_FLOOR) as usize;
    let mut base = Envelope {
        spilled: s.stored.is_ok(),
        mime_type: mime_of(facts).to_string(),
        size_bytes: facts.size,
        lines: facts.lines,
        exit_code,
        interrupted: s.interrupted.then_some(true),
        summary: summary(facts, facts.signal_total, s.invalid_json.as_deref()),
        redacted: s.redacted,
        ..Envelope::default()
    };
    // Labels are free-form: keep the envelope bounded whatever was passed.
    base.label = opts
        .label
        .as_ref()
        .filter(|l| !l.is_empty())
        .map(|l| cut_chars(l, 200));
    match &s.stored {
        Ok(st) => {
            base.reference = Some(st.reference.to_string());
            base.path = (!restricted).then(|| st.path.to_string_lossy().into_owned());
            if !st.complete {
                base.complete = Some(false);
                base.stored_bytes = Some(st.stored_bytes);
                base.dropped_bytes = Some(st.dropped_bytes);
            }
        }
        // Restricted mode names no path, in the envelope as on stderr.
        Err(reason) if restricted => base.error = Some(crate::diag::without_paths(reason)),
        Err(reason) => base.error = Some(reason.clone()),
    }
    if let Some(part) = &s.json {
        base.mime_type = part.facts.payload_mime().to_string();
        base.json_part = part.facts.part.map(|p| crate::envelope::JsonPart {
            lines: [p.first_line, p.last_line],
            bytes: [p.start as u64, p.end as u64],
            other_lines: p.other_lines(),
        });
        base.total_items = part.facts.total_items;
        base.summary = part.facts.summary.clone();
        base.shape = RawValue::from_string(part.facts.shape.clone()).ok();
        base.skipped_lines = part.facts.skipped_lines;
    }
    let mut budget = opts.preview as usize;
    let (mut head_lines, mut tail_lines) = (opts.head_lines, opts.tail_lines);
    let mut env = loop {
        let mut env = base.clone();
        fill_preview(&mut env, s, budget, head_lines, tail_lines);
        if env.to_json().len() <= cap {
            return env;
        }
        if budget == 0 && head_lines.is_none() && tail_lines.is_none() {
            break env;
        }
        budget = budget * 3 / 4;
        head_lines = head_lines.map(|n| n / 2).filter(|&n| n > 0);
        tail_lines = tail_lines.map(|n| n / 2).filter(|&n| n > 0);
    };
    // Even an empty preview does not fit: the other free-form fields give way, in this order,
    // until it does. What remains (ref, counts, summary, hint) is far below the 4 KiB floor.
    for shrink in SHRINK_ORDER {
        if env.to_json().len() <= cap {
            break;
        }
        shrink(&mut env);
    }
    env
}

/// How an envelope that exceeds its bound with an empty preview gives way, step by step: the
/// preview and signals go, the label is cut to 40 characters and then dropped, the degraded
/// envelope's error is cut to 200 characters, the shape goes (`spill shape REF` prints it), the
/// path goes (the ref reads the same bytes), and the error is cut to 40 characters.
const SHRINK_ORDER: [fn(&mut Envelope); 7] = [
    |e| {
        e.preview = None;
        e.signals = None;
    },
    |e| e.label = e.label.take().map(|l| cut_chars(&l, 40)),
    |e| e.label = None,
    |e| e.error = e.error.take().map(|x| cut_chars(&x, 200)),
    |e| e.shape = None,
    |e| e.path = None,
    |e| e.error = e.error.take().map(|x| cut_chars(&x, 40)),
];

/// `text` cut to `max` characters, ending in `…` when cut.
fn cut_chars(text: &str, max: usize) -> String {
    let keep = crate::text::prefix_bytes_for_chars(text.as_bytes(), max);
    if keep < text.len() {
        format!("{}…", &text[..keep])
    } else {
        text.to_string()
    }
}

/// Adds preview, signals and hint for a preview budget of `budget` bytes.
fn fill_preview(
    env: &mut Envelope,
    s: &Spilled,
    budget: usize,
    head_lines: Option<usize>,
    tail_lines: Option<usize>,
) {
    let facts = &s.facts;
    let reference = s.stored.as_ref().ok().map(|st| st.reference.to_string());
    if let Some(part) = &s.json {
        let preview = json::analyze::render_preview(
            &part.map,
            &part.facts.preview_source,
            &analyze_options(budget),
        );
        env.preview = RawValue::from_string(preview).ok().map(Preview::Json);
        env.signals = json_signals(s, budget / 2);
        if let Some(r) = &reference {
            env.hint = Some(hint(r, &json_commands(r, &part.facts)));
        }
        return;
    }
    if facts.binary {
        let rows = (budget / 90).min(16);
        let shown = &facts.head[..facts.head.len().min(rows * 16)];
        if rows > 0 {
            env.preview = Some(Preview::Hex(
                crate::text::hex::dump(shown, 0)
                    .lines()
                    .map(str::to_string)
                    .collect(),
            ));
        }
        if let Some(r) = &reference {
            let end = facts.size;
            let last = end.saturating_sub(4096);
            env.hint = Some(hint(
                r,
                &[
                    format!("spill cat {r} --hex --bytes 0:4096"),
                    format!("spill cat {r} --hex --bytes {last}:{end}"),
                ],
            ));
        }
        return;
    }
    // Signals take at most half the budget; the preview gets the rest, split 1/3 : 2/3.
    let mut chosen = Vec::new();
    let mut lossy = false;
    let mut probe = preview::render(facts, split(budget, head_lines, tail_lines));
    // The ranked signals, best first; a line the preview shows whole is not repeated, a long
    // line the preview cuts is (the signal windows it around its decisive words).
    let outside = |r: &&crate::text::rank::Ranked| {
        r.long || (r.line > probe.head_line_count && r.line < probe.tail_first_line)
    };
    let mut used = 0;
    let mut spans: Vec<(u64, u64)> = Vec::new();
    for sig in facts.ranked.iter().filter(outside) {
        if chosen.len() == MAX_SIGNALS {
            break;
        }
        // A line another chosen signal already shows (the detail under a header) is not repeated.
        if spans
            .iter()
            .any(|&(a, b)| a <= sig.span.1 && sig.span.0 <= b)
        {
            continue;
        }
        let c = sig.text.len() + 24 + sig.note.as_ref().map_or(0, |n| n.len() + 10);
        if used + c > budget / 2 {
            continue;
        }
        used += c;
        lossy |= sig.lossy;
        spans.push(sig.span);
        chosen.push(SignalMatch {
            // The first line `text` shows, so `cat --lines` from there shows it.
            line: sig.span.0,
            text: sig.text.clone(),
            count: (sig.count > 1).then_some(sig.count),
            path: None,
            note: sig.note.clone(),
        });
    }
    if used > 0 {
        probe = preview::render(facts, split(budget - used, head_lines, tail_lines));
        // A smaller preview can only uncover lines, never hide a chosen signal.
    }
    lossy |= probe.lossy;
    // The search finds the best signal shown (else the best ranked) and few lines besides.
    let strongest = chosen
        .first()
        .and_then(|c| facts.ranked.iter().find(|r| r.line == c.line))
        .or(facts.ranked.first())
        .map(|r| r.search.clone())
        .filter(|s| !s.is_empty());
    if let Some(r) = &reference {
        let search = match &strongest {
            Some(marker) => format!("spill search {r} -F {} -C 2", shell_quote(marker)),
            None => format!("spill search {r} -i 'error|fail' -C 2"),
        };
        let a = probe.head_line_count + 1;
        let b = probe.tail_first_line.saturating_sub(1);
        let cat = if a <= b {
            format!(
                "spill cat {r} --lines {a}:{}",
                b.min(a + limits::CAT_LINES - 1)
            )
        } else {
            format!("spill cat {r}")
        };
        env.hint = Some(hint(r, &[search, cat]));
    }
    if facts.signal_total > 0 {
        env.signals = Some(Signals {
            matches: chosen,
            total: facts.signal_total,
        });
    }
    env.preview = Some(Preview::Text(probe));
    if lossy {
        env.lossy = Some(true);
    }
}

/// Signals of a JSON payload within `room` bytes: for NDJSON the ranked lines (each record is a
/// line), for a top-level array the records that stand out by a severity field's value.
fn json_signals(s: &Spilled, room: usize) -> Option<Signals> {
    let part = s.json.as_ref()?;
    let mut matches = Vec::new();
    let mut used = 0;
    let mut total = 0;
    let ndjson = part.facts.mime_type == "application/x-ndjson";
    // Mixed output: the ranked lines of the other output come before a document's records.
    let other =
        |r: &&crate::text::rank::Ranked| part.facts.part.is_some_and(|p| p.is_other_line(r.line));
    if ndjson || part.facts.part.is_some() {
        let ranked: Vec<_> = s
            .facts
            .ranked
            .iter()
            .filter(|r| ndjson || other(r))
            .collect();
        total = if ndjson {
            s.facts.signal_total
        } else {
            ranked.len() as u64
        };
        for sig in ranked {
            let c = sig.text.len() + 24;
            if matches.len() == MAX_SIGNALS || used + c > room {
                break;
            }
            used += c;
            matches.push(SignalMatch {
                line: sig.line,
                text: sig.text.clone(),
                count: (sig.count > 1).then_some(sig.count),
                path: None,
                note: sig.note.clone(),
            });
        }
    }
    if !ndjson {
        for rec in &part.records {
            total += 1;
            let (text, _) =
                crate::text::rank::window_text(&part.map[rec.span.0..rec.span.1], rec.focus);
            let c = text.len() + rec.note.len() + rec.path.len() + 40;
            if used + c > room {
                continue;
            }
            used += c;
            matches.push(SignalMatch {
                line: rec.line,
                text,
                count: None,
                path: Some(rec.path.clone()),
                note: Some(rec.note.clone()),
            });
        }
    }
    (total > 0).then_some(Signals { matches, total })
}

fn split(budget: usize, head_lines: Option<usize>, tail_lines: Option<usize>) -> Budget {
    let head_bytes = budget / 3;
    Budget {
        head_bytes,
        tail_bytes: budget - head_bytes,
        head_lines,
        tail_lines,
    }
}

/// The hint's commands for JSON: shape, the first items of the dominant array, and a search;
/// for NDJSON the first records and a search.
fn json_commands(r: &str, facts: &json::analyze::JsonFacts) -> Vec<String> {
    let search = format!("spill search {r} -i 'error|fail' -C 2");
    if facts.mime_type == "application/x-ndjson" {
        // Read with --skip-invalid, the records keep their indexes only with the flag.
        let flag = if facts.skipped_lines.is_some() {
            " --skip-invalid"
        } else {
            ""
        };
        return vec![format!("spill extract {r} '$[0:5]'{flag}"), search];
    }
    let query = match &facts.dominant_path {
        Some(path) => format!("{path}[0:5]"),
        None => "$".to_string(),
    };
    vec![
        format!("spill shape {r}"),
        format!("spill extract {r} {}", shell_quote(&query)),
        search,
    ]
}

/// `Stored in full as REF. Read it with: A · B`.
pub fn hint(reference: &str, commands: &[String]) -> String {
    format!(
        "Stored in full as {reference}. Read it with: {}",
        commands.join(" · ")
    )
}

/// The same facts as the JSON envelope, for a person (`--format text`).
pub fn render_text(env: &Envelope) -> String {
    let mut out = String::new();
    let kind = &env.summary;
    match &env.reference {
        Some(r) => out.push_str(&format!(
            "spill: {} stored as {r} — {kind}\n",
            human_size(env.size_bytes)
        )),
        None => out.push_str(&format!(
            "spill: {} NOT stored ({}) — {kind}\n",
            human_size(env.size_bytes),
            env.error.as_deref().unwrap_or("?")
        )),
    }
    if let Some(code) = env.exit_code {
        out.push_str(&format!("exit code: {code}\n"));
    }
    if env.interrupted == Some(true) {
        out.push_str("interrupted: reading stopped early on a signal\n");
    }
    if let Some(label) = &env.label {
        out.push_str(&format!("label: {label}\n"));
    }
    if env.complete == Some(false) {
        out.push_str(&format!(
            "incomplete: {} bytes stored, {} dropped by --max-file\n",
            group_digits(env.stored_bytes.unwrap_or(0)),
            group_digits(env.dropped_bytes.unwrap_or(0))
        ));
    }
    if let Some(h) = &env.hint
        && let Some((_, cmds)) = h.split_once("Read it with: ")
    {
        out.push_str("read it with:\n");
        for c in cmds.split(" · ") {
            out.push_str(&format!("  {c}\n"));
        }
    }
    if let Some(shape) = &env.shape {
        out.push_str(&format!("shape: {}\n", shape.get()));
    }
    match &env.preview {
        Some(Preview::Text(p)) => {
            for l in &p.head {
                out.push_str(&format!("{l}\n"));
            }
            if p.omitted_lines > 0 || p.omitted_bytes > 0 {
                out.push_str(&format!(
                    "… {} ({}) omitted …\n",
                    plural(p.omitted_lines, "line", "lines"),
                    human_size(p.omitted_bytes)
                ));
            }
            for l in &p.tail {
                out.push_str(&format!("{l}\n"));
            }
        }
        Some(Preview::Hex(rows)) => {
            for r in rows {
                out.push_str(&format!("{r}\n"));
            }
        }
        Some(Preview::Json(v)) => out.push_str(&format!("preview: {}\n", v.get())),
        None => {}
    }
    if let Some(sig) = &env.signals {
        if sig.matches.is_empty() {
            out.push_str(&format!(
                "failure signals: {} in total, all within the preview above\n",
                group_digits(sig.total)
            ));
        } else {
            out.push_str(&format!(
                "failure signals ({} in total; these are outside the preview):\n",
                group_digits(sig.total)
            ));
        }
        for m in &sig.matches {
            for (i, line) in m.text.lines().enumerate() {
                let n = if i == 0 {
                    format!("{:>6}:", m.line)
                } else {
                    "       ".to_string()
                };
                out.push_str(&format!("{n} {line}\n"));
            }
        }
    }
    crate::diag::escape_keep_newlines(&out)
}
