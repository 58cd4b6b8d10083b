//! The capture pipeline: the input is read to its end (or until a signal); up to `--max-inline`
//! bytes are held in memory and passed back; past that, every chunk goes through the redactor
//! (with `--redact`), into the capped temporary payload, and to a worker thread that hashes and
//! analyses it; the payload is then published under its hash.

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::mpsc;

use crate::error::{Error, Result};
use crate::json;
use crate::store::{Finished, Meta, Ref, Store, StoreConfig};
use crate::text::analyze::{TextAnalyzer, TextFacts};
use crate::text::redact::Redactor;

use super::envelope::{mime_of, summary};
use super::policy::{CappedWriter, file_cap};
use super::{MAX_SIGNALS, Warning, WrapOptions};

/// Reads are made in chunks of this size.
pub(super) const CHUNK: usize = 1 << 20;
/// Chunks in flight between the reader and the analysing thread (bounds memory).
const IN_FLIGHT: usize = 4;

/// Told every stored chunk of a spilled output, in order (see [`capture_observed`]).
type Observer<'a> = &'a mut dyn FnMut(&[u8]);

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
    /// Nothing could be stored and the options asked for it
    /// ([`WrapOptions::pass_unstored`]): the output went to their writer unchanged (`stored`
    /// holds the reason; `facts` are not gathered then).
    pub passed_through: Option<PassedThrough>,
}

/// An output that went to [`WrapOptions::pass_unstored`]'s writer instead of the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassedThrough {
    /// Bytes written (after redaction).
    pub bytes: u64,
    /// True when the last byte written was a newline (or nothing was written).
    pub ends_with_newline: bool,
    /// Why writing stopped early (the reader went away), if it did; the input was still drained.
    pub write_error: Option<String>,
}

/// The JSON half of an envelope: the engine's facts and the mapped payload they point into
/// (kept so that a smaller preview can be rendered without another pass).
#[derive(Debug)]
pub struct JsonPart {
    /// What the JSON engine found.
    pub facts: json::analyze::JsonFacts,
    /// The stored payload, memory-mapped.
    pub map: memmap2::Mmap,
    /// Records (of the dominant array, or NDJSON's) that stand out by a field's rare value.
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
    /// The same bytes were already stored in the scope at this time (seconds since the Unix
    /// epoch; see [`crate::store::Published::earlier`]).
    pub earlier: Option<f64>,
}

/// Reads `input` to its end (or until `stop()` says a signal arrived) and either returns it for
/// pass-through or stores it. Store failures never fail the call: they come back in
/// [`Spilled::stored`] as the reason, and the input is still drained and analysed.
///
/// The warnings of [`capture_with_warnings`] are dropped: use that one where `opts.turn` is set.
pub fn capture(
    input: &mut dyn Read,
    opts: &WrapOptions,
    store: &StoreConfig,
    stop: &dyn Fn() -> bool,
) -> Result<Capture> {
    capture_with_warnings(input, opts, store, stop).map(|(captured, _)| captured)
}

/// [`capture`], with the warnings a caller should show: what went wrong without failing the
/// call (today only a turn budget that could not be applied, [`Warning::TurnBudget`]).
pub fn capture_with_warnings(
    input: &mut dyn Read,
    opts: &WrapOptions,
    store: &StoreConfig,
    stop: &dyn Fn() -> bool,
) -> Result<(Capture, Vec<Warning>)> {
    capture_inner(input, opts, store, stop, None, false)
}

/// [`capture_with_warnings`], handing `observer` every chunk of a spilled output as it is
/// stored (after redaction, in order), each read as soon as it arrives rather than gathered
/// into 1 MiB chunks: how a running entry (`wrap --detach-after`) shows its output while it
/// grows.
pub fn capture_observed(
    input: &mut dyn Read,
    opts: &WrapOptions,
    store: &StoreConfig,
    stop: &dyn Fn() -> bool,
    observer: &mut dyn FnMut(&[u8]),
) -> Result<(Capture, Vec<Warning>)> {
    capture_inner(input, opts, store, stop, Some(observer), false)
}

/// [`capture_observed`], with `observer` handed every byte as it is read from the first one,
/// also those of an output that then fits `--max-inline` (and is not stored): how `wrap
/// --report-after` on stdin keeps a running view without storing a small output. Not with
/// `--redact` (the bytes before redaction are not the stored ones): there it is
/// [`capture_observed`].
pub fn capture_observed_from_start(
    input: &mut dyn Read,
    opts: &WrapOptions,
    store: &StoreConfig,
    stop: &dyn Fn() -> bool,
    observer: &mut dyn FnMut(&[u8]),
) -> Result<(Capture, Vec<Warning>)> {
    let from_start = !opts.redact;
    capture_inner(input, opts, store, stop, Some(observer), from_start)
}

fn capture_inner(
    input: &mut dyn Read,
    opts: &WrapOptions,
    store: &StoreConfig,
    stop: &dyn Fn() -> bool,
    mut observer: Option<Observer<'_>>,
    from_start: bool,
) -> Result<(Capture, Vec<Warning>)> {
    let mut warnings = Vec::new();
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
                let captured = inline(first, false, opts, store, &mut warnings)?;
                return Ok((captured, warnings));
            }
            Ok(Some(n)) => {
                first.truncate(start + n);
                if from_start && let Some(o) = observer.as_mut() {
                    o(&first[start..]);
                }
            }
            Ok(None) => {
                first.truncate(start);
                interrupted = true;
                break;
            }
            Err(e) => return Err(Error::stream("read stdin", e)),
        }
    }
    if interrupted && first.len() as u64 <= limit {
        let captured = inline(first, true, opts, store, &mut warnings)?;
        return Ok((captured, warnings));
    }
    let spilled = spill(input, first, opts, store, stop, observer, from_start)?;
    Ok((Capture::Spilled(Box::new(spilled)), warnings))
}

/// An output that fits `--max-inline` (measured before redaction), read to its end or until a
/// signal: passed through, unless its turn's inline budget is spent, in which case it is spilled
/// after all. Only a `--turn` output touches the store here.
fn inline(
    bytes: Vec<u8>,
    interrupted: bool,
    opts: &WrapOptions,
    store: &StoreConfig,
    warnings: &mut Vec<Warning>,
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
                let mut s = spill(&mut io::empty(), bytes, opts, store, &|| false, None, false)?;
                s.interrupted |= interrupted;
                return Ok(Capture::Spilled(Box::new(s)));
            }
            // The input is never lost to the store: pass it through and say why.
            Err(e) => warnings.push(Warning::TurnBudget(e.to_string())),
        }
    }
    if opts.redact {
        return Ok(Capture::Inline(
            Redactor::new(&opts.secrets).redact_all(&bytes),
        ));
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

/// Phase two: stream everything into the store, hashing and analysing on a worker thread.
fn spill(
    input: &mut dyn Read,
    first: Vec<u8>,
    opts: &WrapOptions,
    config: &StoreConfig,
    stop: &dyn Fn() -> bool,
    mut observer: Option<Observer<'_>>,
    first_seen: bool,
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
    // Nothing can be stored and the caller asked for it: the output goes to its writer as it
    // is read, and neither the analysis nor the hash is needed.
    let mut passing = match (&writer, &opts.pass_unstored) {
        (Err(_), Some(sink)) => Some((
            sink.lock(),
            PassedThrough {
                bytes: 0,
                ends_with_newline: true,
                write_error: None,
            },
        )),
        _ => None,
    };
    let keep = (opts.preview as usize)
        .saturating_mul(4)
        .clamp(256 << 10, 16 << 20);
    let (to_worker, chunks) = mpsc::sync_channel::<Vec<u8>>(IN_FLIGHT);
    let (to_pool, pool) = mpsc::channel::<Vec<u8>>();
    let (to_main, hashed) = mpsc::sync_channel::<(blake3::Hash, bool)>(1);
    let worker = std::thread::spawn(move || {
        let mut hasher = blake3::Hasher::new();
        let mut analyzer = TextAnalyzer::new(keep).json_fields(json::analyze::severity_fields);
        for chunk in chunks {
            hasher.update(&chunk);
            analyzer.feed(&chunk);
            let _ = to_pool.send(chunk);
        }
        // Closing the payload under its hash and the JSON analysis need only the hash and the
        // head: they go on while the text's window lines are ranked (`finish`).
        let _ = to_main.send((hasher.finalize(), looks_like_json(analyzer.head())));
        analyzer.finish()
    });
    let mut interrupted = false;
    let mut read_error = None;
    // Redaction comes first, so the writer, the hash and the analysis all see the same bytes.
    let mut redactor = opts.redact.then(|| Redactor::new(&opts.secrets));
    let mut scratch = Vec::new();
    // A buffer the redactor emptied entirely (it held the bytes back), reused for the next read.
    let mut spare: Option<Vec<u8>> = None;
    let mut next = first;
    let mut allocated = 1;
    let mut eof = false;
    // The observer has seen the first buffer already (`capture_observed_from_start`).
    let mut seen = first_seen;
    loop {
        if let Some(r) = &mut redactor {
            scratch.clear();
            r.feed(&next, &mut scratch);
            std::mem::swap(&mut next, &mut scratch);
        }
        if let Some((sink, passed)) = passing.as_mut() {
            pass_on(&mut **sink, passed, &next);
            spare = Some(next);
        } else if next.is_empty() {
            spare = Some(next);
        } else {
            if let Ok(w) = &mut writer
                && let Err(e) = w.write(&next)
            {
                writer = Err(e.to_string());
            }
            if let Some(o) = observer.as_mut()
                && !seen
            {
                o(&next);
            }
            if to_worker.send(next).is_err() {
                break;
            }
        }
        seen = false;
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
                Ok(Some(n)) => {
                    filled += n;
                    // Observed: every read goes on at once (the output is shown as it grows).
                    if observer.is_some() {
                        break;
                    }
                }
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
        if let Some((sink, passed)) = passing.as_mut() {
            pass_on(&mut **sink, passed, &rest);
        } else if !rest.is_empty() {
            if let Ok(w) = &mut writer
                && let Err(e) = w.write(&rest)
            {
                writer = Err(e.to_string());
            }
            if let Some(o) = observer.as_mut() {
                o(&rest);
            }
            let _ = to_worker.send(rest);
        }
        r.count()
    });
    drop(to_worker);
    let hashed = hashed.recv();
    if let Some(e) = read_error {
        let _ = worker.join();
        return Err(Error::stream("read stdin", e));
    }
    let closed = match hashed {
        Ok((hash, json_like)) => {
            writer.and_then(|w| close(w, &hash, json_like, opts).map_err(|e| e.to_string()))
        }
        // The thread panicked before it sent the hash: `join` says so.
        Err(_) => Err(String::new()),
    };
    let facts = worker.join().expect("the analysing thread does not panic");
    let passed_through = passing.map(|(mut sink, mut passed)| {
        if passed.write_error.is_none()
            && let Err(e) = sink.flush()
        {
            passed.write_error = Some(e.to_string());
        }
        passed
    });
    let mut json = None;
    let mut invalid_json = None;
    let stored = closed.and_then(|c| {
        publish(&store, c, &facts, opts, &mut json, &mut invalid_json).map_err(|e| e.to_string())
    });
    Ok(Spilled {
        facts,
        stored,
        interrupted,
        redacted,
        json,
        invalid_json,
        passed_through,
    })
}

/// Writes `bytes` on to the pass-through writer, until a write fails (then the rest is drained
/// unwritten, as a closed stdout is).
fn pass_on(sink: &mut dyn std::io::Write, passed: &mut PassedThrough, bytes: &[u8]) {
    if bytes.is_empty() || passed.write_error.is_some() {
        return;
    }
    match sink.write_all(bytes) {
        Ok(()) => {
            passed.bytes += bytes.len() as u64;
            passed.ends_with_newline = bytes.ends_with(b"\n");
        }
        Err(e) => passed.write_error = Some(e.to_string()),
    }
}

/// True when `head`, the output's first bytes, is text that starts like JSON or like output
/// with JSON in it: what makes a complete payload worth the JSON engine's analysis.
fn looks_like_json(head: &[u8]) -> bool {
    !crate::text::is_binary(head) && (starts_like_json(head) || json::mixed::may_start(head))
}

/// True when the first non-blank byte (after a BOM) opens an object or an array.
fn starts_like_json(head: &[u8]) -> bool {
    let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    body.iter()
        .find(|b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
        .is_some_and(|b| matches!(b, b'{' | b'['))
}

/// The size from which a JSON payload's records are read beside its strict pass
/// ([`analyze_json`]): below it, a second thread costs more than it saves.
const READ_AHEAD_BYTES: usize = 4 << 20;

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
    let analyze = json::analyze::AnalyzeOptions {
        skip_invalid: opts.skip_invalid,
        ..analyze_options(opts.preview as usize)
    };
    // A large document's records are read on a second thread beside the strict pass, in the
    // array that pass will most likely name (found at skipping speed): the two costliest passes
    // over the payload then take one pass's time on two cores. Where the strict pass names
    // another array, they are read after it, as for a small document.
    let (analysis, read_ahead) = if map.len() >= READ_AHEAD_BYTES {
        std::thread::scope(|s| {
            let ahead = s.spawn(|| json::mixed::records_read_ahead(&map));
            let analysis = json::mixed::analyze(&map, &analyze);
            (analysis, ahead.join().ok().flatten())
        })
    } else {
        (json::mixed::analyze(&map, &analyze), None)
    };
    match analysis {
        json::analyze::Analysis::Json(mut facts) => {
            let records = read_ahead
                .and_then(|read| {
                    json::mixed::record_signals_read_ahead(&map, &facts, &read, MAX_SIGNALS)
                })
                .unwrap_or_else(|| {
                    json::mixed::record_signals(&map, &facts, opts.skip_invalid, MAX_SIGNALS)
                });
            if let Some(source) = json::analyze::severity_first(&facts.preview_source, &records) {
                facts.preview = json::analyze::render_preview(&map, &source, &analyze);
                facts.preview_source = source;
            }
            Ok(JsonPart {
                facts,
                map,
                records,
            })
        }
        json::analyze::Analysis::NotJson { invalid } => Err(invalid),
    }
}

pub(super) fn analyze_options(preview_bytes: usize) -> json::analyze::AnalyzeOptions {
    json::analyze::AnalyzeOptions {
        preview_bytes,
        ..json::analyze::AnalyzeOptions::default()
    }
}

/// A payload written to its end and closed under its hash, not yet published.
struct Closed {
    finished: Finished,
    stored_bytes: u64,
    dropped_bytes: u64,
    /// The JSON engine's analysis ([`analyze_json`]), when the payload is complete and looked
    /// like JSON.
    json: Option<std::result::Result<JsonPart, Option<json::SyntaxError>>>,
}

/// Closes the payload under `hash` and, when it is complete and `json_like`
/// ([`looks_like_json`]), has the JSON engine analyse it.
fn close(
    writer: CappedWriter,
    hash: &blake3::Hash,
    json_like: bool,
    opts: &WrapOptions,
) -> Result<Closed> {
    let (finished, stored_bytes, dropped_bytes) = writer.close(hash)?;
    // A capped payload is no longer the whole document, so it is described as text.
    let json = (dropped_bytes == 0 && json_like).then(|| analyze_json(&finished, opts));
    Ok(Closed {
        finished,
        stored_bytes,
        dropped_bytes,
        json,
    })
}

fn publish(
    store: &Store,
    closed: Closed,
    facts: &TextFacts,
    opts: &WrapOptions,
    json: &mut Option<JsonPart>,
    invalid_json: &mut Option<String>,
) -> Result<Stored> {
    let Closed {
        finished,
        stored_bytes,
        dropped_bytes,
        json: analysis,
    } = closed;
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
    match analysis {
        Some(Ok(part)) => {
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
        Some(Err(error)) => {
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
        None => {}
    }
    let published = store.publish(finished, &mut meta)?;
    let reference = published.reference;
    Ok(Stored {
        path: store.payload_path(&reference),
        reference,
        repaired: published.repaired,
        earlier: published.earlier,
        stored_bytes,
        complete: dropped_bytes == 0,
        dropped_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, StoreConfig) {
        let dir = tempfile::tempdir().unwrap();
        let config = StoreConfig::new(dir.path().join("store"), "default".into());
        (dir, config)
    }

    fn opts(max_inline: u64) -> WrapOptions {
        WrapOptions {
            max_inline,
            ..WrapOptions::default()
        }
    }

    #[test]
    fn empty_input_passes_through_and_touches_no_store() {
        let (_dir, config) = store();
        let (got, warnings) =
            capture_with_warnings(&mut io::empty(), &opts(16), &config, &|| false).unwrap();
        assert!(matches!(got, Capture::Inline(b) if b.is_empty()));
        assert!(warnings.is_empty());
        assert!(!config.root.exists());
    }

    #[test]
    fn exactly_max_inline_passes_through_and_one_byte_more_is_stored() {
        let (_dir, config) = store();
        let at = vec![b'x'; 64];
        let got = capture(&mut &at[..], &opts(64), &config, &|| false).unwrap();
        assert!(matches!(got, Capture::Inline(b) if b == at));
        assert!(!config.root.exists());
        let over = vec![b'x'; 65];
        let Capture::Spilled(s) = capture(&mut &over[..], &opts(64), &config, &|| false).unwrap()
        else {
            panic!("65 bytes are more than --max-inline 64");
        };
        let stored = s.stored.as_ref().unwrap();
        assert_eq!(std::fs::read(&stored.path).unwrap(), over);
        assert_eq!((s.facts.size, stored.stored_bytes), (65, 65));
        assert!(stored.complete && !s.interrupted);
    }

    #[test]
    fn a_stop_before_the_first_read_passes_nothing_through() {
        let (_dir, config) = store();
        let got = capture(&mut &b"never read"[..], &opts(4), &config, &|| true).unwrap();
        assert!(matches!(got, Capture::Inline(b) if b.is_empty()));
    }

    #[test]
    fn a_turn_budget_that_cannot_be_kept_is_a_warning_and_the_output_passes_through() {
        let dir = tempfile::tempdir().unwrap();
        // A file where the store's root should be: the ledger cannot be opened.
        let root = dir.path().join("not-a-directory");
        std::fs::write(&root, b"").unwrap();
        let config = StoreConfig::new(root, "default".into());
        let opts = WrapOptions {
            turn: Some("t1".into()),
            ..opts(64)
        };
        let (got, warnings) =
            capture_with_warnings(&mut &b"small\n"[..], &opts, &config, &|| false).unwrap();
        assert!(matches!(got, Capture::Inline(b) if b == b"small\n"));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(matches!(&warnings[0], Warning::TurnBudget(_)));
        assert!(
            warnings[0]
                .to_string()
                .starts_with("the turn budget was not applied: "),
            "{}",
            warnings[0]
        );
    }

    /// A writer the test reads back afterwards.
    #[derive(Clone, Default)]
    struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl io::Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn an_output_nothing_can_store_streams_to_the_pass_through_writer_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, b"").unwrap();
        let config = StoreConfig::new(blocker.join("store"), "default".into());
        let sink = Shared::default();
        let opts = WrapOptions {
            pass_unstored: Some(super::super::PassThrough::new(sink.clone())),
            ..opts(64)
        };
        // Several chunks: the reader's buffers are reused, not piled up.
        let big: Vec<u8> = (0..(3 * CHUNK + 17))
            .map(|i| b'a' + (i % 26) as u8)
            .collect();
        let Capture::Spilled(s) = capture(&mut &big[..], &opts, &config, &|| false).unwrap() else {
            panic!("larger than --max-inline");
        };
        let passed = s.passed_through.clone().expect("passed through");
        assert_eq!(*sink.0.lock().unwrap(), big);
        assert_eq!(
            (passed.bytes, passed.ends_with_newline),
            (big.len() as u64, false)
        );
        assert!(passed.write_error.is_none() && s.stored.is_err());
        // A store setting that must not be used passes through the same way; a small output
        // never reaches the writer.
        sink.0.lock().unwrap().clear();
        let refused = WrapOptions {
            store_error: Some("SPILL_SCOPE: invalid".into()),
            ..opts.clone()
        };
        let ok_config = StoreConfig::new(dir.path().join("ok"), "default".into());
        let Capture::Spilled(s) =
            capture(&mut &b"x\n".repeat(40)[..], &refused, &ok_config, &|| false).unwrap()
        else {
            panic!("larger than --max-inline");
        };
        assert!(s.passed_through.is_some());
        assert_eq!(*sink.0.lock().unwrap(), b"x\n".repeat(40));
        assert!(!ok_config.root.exists());
        let small = capture(&mut &b"small\n"[..], &opts, &config, &|| false).unwrap();
        assert!(matches!(small, Capture::Inline(b) if b == b"small\n"));
        // A store that works is used: nothing goes to the writer.
        sink.0.lock().unwrap().clear();
        let Capture::Spilled(s) = capture(&mut &big[..], &opts, &ok_config, &|| false).unwrap()
        else {
            panic!("larger than --max-inline");
        };
        assert!(s.passed_through.is_none() && s.stored.is_ok());
        assert!(sink.0.lock().unwrap().is_empty());
    }

    #[test]
    fn redaction_uses_the_secrets_it_is_given() {
        let (_dir, config) = store();
        let opts = WrapOptions {
            redact: true,
            secrets: vec![b"hunter2hunter2".to_vec()],
            ..opts(1024)
        };
        let got = capture(&mut &b"pw=hunter2hunter2\n"[..], &opts, &config, &|| false).unwrap();
        assert!(matches!(got, Capture::Inline(b) if b == b"pw=[REDACTED]\n"));
        // Spilled, the stored bytes and the count are redacted the same way.
        let big = b"pw=hunter2hunter2\n".repeat(100);
        let Capture::Spilled(s) = capture(&mut &big[..], &opts, &config, &|| false).unwrap() else {
            panic!("larger than --max-inline");
        };
        let stored = std::fs::read(&s.stored.as_ref().unwrap().path).unwrap();
        assert_eq!(stored, b"pw=[REDACTED]\n".repeat(100));
        assert_eq!(s.redacted, Some(100));
    }
}
