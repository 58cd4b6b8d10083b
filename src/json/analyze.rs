//! The JSON facts of `wrap`'s envelope (README, The envelope): kind, exact item count, the dominant
//! array, a one-sentence summary, a sampled shape and a bounded preview — in one strict pass.

use std::fmt::Write as _;

use super::SyntaxError;
use super::nav::{Kind, Value, decode_string};
use super::parse::{Both, Container, Flow, Scalar, Visitor, walk_records};
use super::path::push_member;
use super::shape::{
    Builder, ShapeOptions, T_ARRAY, T_BOOLEAN, T_NULL, T_NUMBER, T_OBJECT, T_STRING, container_bit,
    scalar_bit,
};
use crate::limits::{group_digits, human_size};
use crate::wire::preview::JsonPreview;
use crate::wire::shape as wire;
use serde_json::value::RawValue;

/// What [`analyze`] needs besides the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnalyzeOptions {
    /// The envelope's shape: `shape`'s defaults, with a sample of each array.
    pub shape: ShapeOptions,
    /// Budget for the preview's JSON text in bytes (`--preview`).
    pub preview_bytes: usize,
    /// Items of the dominant array shown (3 by default).
    pub preview_items: usize,
    /// Characters kept of each string in the preview (200 by default).
    pub preview_string: usize,
    /// NDJSON lines that are not exactly one value are skipped and counted (`--skip-invalid`).
    pub skip_invalid: bool,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            shape: ShapeOptions {
                sample: Some(1000),
                ..ShapeOptions::default()
            },
            preview_bytes: 2048,
            preview_items: 3,
            preview_string: 200,
            skip_invalid: false,
        }
    }
}

/// The envelope facts of a JSON or NDJSON payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonFacts {
    /// NDJSON read with `skip_invalid`: the lines skipped because they are not one value.
    pub skipped_lines: Option<u64>,
    /// `application/json` or `application/x-ndjson`.
    pub mime_type: &'static str,
    /// Exact: the dominant array's length, else the root object's key count, or the NDJSON
    /// record count; `None` for a scalar root.
    pub total_items: Option<u64>,
    /// The dominant array in dot notation where names allow (`$.items`, `$['a b']`, `$` for a
    /// top-level array); `None` when there is no array, and for NDJSON. Arrays under more than
    /// 64 nested objects or with a path over 512 bytes are not candidates (the hint must stay
    /// short and pasteable).
    pub dominant_path: Option<String>,
    /// Where the dominant array starts (its `[`) in the document; `None` with `dominant_path`.
    pub dominant_at: Option<usize>,
    /// `JSON object, 277.8 KiB; $.items is an array of 1,250 objects`.
    pub summary: String,
    /// The skeleton (compact JSON within the shape's `max_bytes`).
    pub shape: String,
    /// Valid JSON within `preview_bytes` (at worst `[]` or `null`): the first items of the
    /// dominant array (NDJSON: the first records; no array: the root, bounded).
    pub preview: String,
    /// What the preview shows, so [`render_preview`] can redo it under a smaller budget
    /// without another pass over the document.
    pub preview_source: PreviewSource,
    /// Set for JSON behind a few lines of other output ([`super::mixed`]): where the part lies.
    pub part: Option<super::mixed::Part>,
}

/// The values a preview is made of (byte offsets of their first bytes in the document).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreviewSource {
    /// A JSON array of these values (first items of the dominant array, or first records).
    List(Vec<usize>),
    /// This one value (a root without arrays).
    One(usize),
}

/// Renders the preview of `source` again within `preview_bytes` (the envelope shrinks the
/// preview first when it does not fit). Always valid JSON.
pub fn render_preview(doc: &[u8], source: &PreviewSource, opts: &AnalyzeOptions) -> String {
    match source {
        PreviewSource::List(starts) => {
            let items: Vec<Value<'_>> = starts.iter().map(|&at| Value::new(doc, at)).collect();
            preview_list(&items, opts)
        }
        PreviewSource::One(at) => preview_one(Value::new(doc, *at), opts),
    }
}

/// The outcome of [`analyze`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Analysis {
    /// JSON or NDJSON, with its facts.
    Json(JsonFacts),
    /// Not JSON: treat as text (or binary).
    NotJson {
        /// Set when the input starts like JSON (`{` or `[`) but is invalid.
        invalid: Option<SyntaxError>,
    },
}

impl Analysis {
    /// For JSON-looking invalid input, the summary's clause:
    /// `looks like JSON but is invalid at byte 51234 (line 812:17)`.
    pub fn invalid_note(&self) -> Option<String> {
        match self {
            Analysis::NotJson { invalid: Some(e) } => Some(format!(
                "looks like JSON but is invalid at byte {} (line {}:{})",
                e.offset, e.line, e.column
            )),
            _ => None,
        }
    }
}

/// Analyses a payload for the envelope in one strict streaming pass (plus a bounded read of the
/// first items for the preview). Text, binary, and JSON-looking invalid input give
/// [`Analysis::NotJson`].
pub fn analyze(doc: &[u8], opts: &AnalyzeOptions) -> Analysis {
    let mut shape = Builder::new(&opts.shape);
    let mut dom = Dominant::new(doc);
    let records = match walk_records(doc, &mut Both(&mut shape, &mut dom), opts.skip_invalid) {
        Ok(r) => r,
        Err(e) => {
            return Analysis::NotJson {
                invalid: super::sniff::looks_like_json(doc).then_some(e),
            };
        }
    };
    if records.count > 1 && !records.any_container {
        return Analysis::NotJson { invalid: None };
    }
    let ndjson = records.count > 1;
    let size = human_size(doc.len() as u64);
    let shape = shape.render(
        ndjson,
        opts.shape.max_bytes.max(super::shape::MIN_MAX_BYTES),
    );
    if ndjson {
        let mut summary = format!("NDJSON, {size}; {} records", group_digits(records.count));
        if records.skipped > 0 {
            let _ = write!(
                summary,
                ", {} {} skipped (not one JSON value)",
                group_digits(records.skipped),
                if records.skipped == 1 {
                    "line"
                } else {
                    "lines"
                }
            );
        }
        let source = PreviewSource::List(
            dom.record_starts
                .iter()
                .take(opts.preview_items)
                .copied()
                .collect(),
        );
        return Analysis::Json(JsonFacts {
            skipped_lines: opts.skip_invalid.then_some(records.skipped),
            mime_type: "application/x-ndjson",
            total_items: Some(records.count),
            dominant_path: None,
            dominant_at: None,
            summary,
            shape,
            preview: render_preview(doc, &source, opts),
            preview_source: source,
            part: None,
        });
    }
    let root = Value::new(doc, dom.record_starts[0]);
    let root_kind = root.kind().unwrap_or(Kind::Null);
    let mut summary = format!("JSON {}, {size}", kind_word(root_kind));
    let (total_items, dominant_path, dominant_at, source);
    if let Some(best) = &dom.best {
        let _ = write!(summary, "; {} is ", best.path);
        if best.count == 0 {
            summary.push_str("an empty array");
        } else {
            let _ = write!(
                summary,
                "an array of {} {}",
                group_digits(best.count),
                elements_word(best.mask, best.count)
            );
        }
        total_items = Some(best.count);
        dominant_path = Some(best.path.clone());
        dominant_at = Some(best.at);
        source = PreviewSource::List(
            Value::new(doc, best.at)
                .elements()
                .take(opts.preview_items)
                .filter_map(Result::ok)
                .map(|(_, v)| v.offset())
                .collect(),
        );
    } else {
        if root_kind == Kind::Object {
            let unit = if dom.root_keys == 1 {
                "top-level key"
            } else {
                "top-level keys"
            };
            let _ = write!(summary, "; {} {unit}", group_digits(dom.root_keys));
            total_items = Some(dom.root_keys);
        } else {
            total_items = None;
        }
        dominant_path = None;
        dominant_at = None;
        source = PreviewSource::One(root.offset());
    }
    let nested = dom.nested_counts.iter();
    let counts = dom.counts.iter().chain(nested).take(COUNTS_MAX);
    for (i, (key, value)) in counts.enumerate() {
        let n = value.parse::<u64>().map_or(value.clone(), group_digits);
        let _ = write!(summary, "{}{key} {n}", if i == 0 { "; " } else { ", " });
    }
    Analysis::Json(JsonFacts {
        skipped_lines: None,
        mime_type: "application/json",
        total_items,
        dominant_path,
        dominant_at,
        summary,
        shape,
        preview: render_preview(doc, &source, opts),
        preview_source: source,
        part: None,
    })
}

fn kind_word(k: Kind) -> &'static str {
    match k {
        Kind::Object => "object",
        Kind::Array => "array",
        Kind::String => "string",
        Kind::Integer | Kind::Number => "number",
        Kind::Boolean => "boolean",
        Kind::Null => "null",
    }
}

/// `objects`, `strings`, … or `values` for a mix; singular for one. `mask` holds the type bits
/// of the shape's set, integers counted as numbers.
fn elements_word(mask: u8, count: u64) -> &'static str {
    let (one, many) = match mask {
        T_OBJECT => ("object", "objects"),
        T_ARRAY => ("array", "arrays"),
        T_STRING => ("string", "strings"),
        T_NUMBER => ("number", "numbers"),
        T_BOOLEAN => ("boolean", "booleans"),
        T_NULL => ("null", "nulls"),
        _ => ("value", "values"),
    };
    if count == 1 { one } else { many }
}

/// Arrays nested deeper than this many objects are not candidates for the dominant array (the
/// walk keeps no keys below), so heap stays bounded on absurd nesting.
const MAX_PATH_DEPTH: usize = 64;
/// Nor are arrays whose path is longer than this: the summary and the hint must stay short.
const MAX_PATH_BYTES: usize = 512;

/// The best array so far.
#[derive(Debug, Clone)]
struct Best {
    count: u64,
    path: String,
    at: usize,
    mask: u8,
}

/// An array that is a candidate: not inside another array's elements.
#[derive(Debug, Clone)]
struct Candidate {
    at: usize,
    key: Option<(usize, usize)>,
    mask: u8,
    /// Open containers inside it (0 while reading its direct elements).
    nest: u64,
}

/// Finds the dominant array (README, The envelope) and the root's key count while the shape is built.
struct Dominant<'a> {
    doc: &'a [u8],
    /// The key that reached each open object (`None` for the root).
    doc_keys: Vec<Option<(usize, usize)>>,
    pending_key: Option<(usize, usize)>,
    current: Option<Candidate>,
    best: Option<Best>,
    root_keys: u64,
    /// Where the first records start (for the NDJSON preview); `[0]` is the JSON root.
    record_starts: Vec<usize>,
    records: u64,
    /// Open containers below [`MAX_PATH_DEPTH`], not tracked.
    deep: u64,
    /// The root object's integer members that count failures or results (`errorCount`,
    /// `numFailedTests`, `warnings`), as written, at most [`COUNTS_MAX`].
    counts: Vec<(String, String)>,
    /// The same in objects below the root object, outside arrays, at most two levels down
    /// (mocha's `stats.failures`, pytest-json-report's `summary.failed`), named by their path
    /// from the root; the summary names them after the root's, up to [`COUNTS_MAX`] in all.
    nested_counts: Vec<(String, String)>,
}

/// Count members named in the summary at most.
const COUNTS_MAX: usize = 4;

/// True for a key that names a count of failures or results: `errorCount`, `numFailedTests`,
/// `warnings`, `failed`, `skipped`, `fatalErrorCount`, `problems`.
fn count_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    let what = [
        "error",
        "fail",
        "warn",
        "fatal",
        "pass",
        "skip",
        "problem",
        "issue",
        "violation",
    ]
    .iter()
    .any(|w| k.contains(w));
    let counted = k.ends_with("count")
        || k.ends_with("_count")
        || k.starts_with("num")
        || k.starts_with("total")
        || k.ends_with('s')
        || k.ends_with("ed");
    what && counted && k.len() <= 40
}

/// Where [`analyze`]'s strict pass will find the dominant array of a JSON document, found on its
/// own at skipping speed: the array not inside another array's elements that holds the most
/// elements (the first of equals, in document order), reached through fewer than
/// `MAX_PATH_DEPTH` objects, as the pass's `Dominant` visitor chooses it. It can differ from the
/// strict pass's answer (a path longer than `MAX_PATH_BYTES`, a document that is not strict
/// JSON, NDJSON), so a caller uses it only where the two agree: `wrap` reads the records of the
/// array it names beside the strict pass, and falls back to reading them after it otherwise.
pub fn dominant_guess(doc: &[u8]) -> Option<usize> {
    /// Visits a value with `objects` objects around it; the offset past it when it skipped it.
    fn visit(v: Value, objects: usize, best: &mut Option<(u64, usize)>) -> Option<Option<usize>> {
        match v.kind().ok()? {
            Kind::Array if objects < MAX_PATH_DEPTH => {
                let (end, n) = super::scan::count_container(v.doc(), v.offset()).ok()?;
                if best.is_none_or(|(most, _)| n > most) {
                    *best = Some((n, v.offset()));
                }
                Some(Some(end))
            }
            Kind::Object if objects < MAX_PATH_DEPTH => {
                let mut members = v.members();
                while let Some(m) = members.next() {
                    if let Some(end) = visit(m.ok()?.value, objects + 1, best)? {
                        members.resume_at(end);
                    }
                }
                Some(members.end())
            }
            _ => Some(None),
        }
    }
    let mut best = None;
    visit(super::nav::root(doc).ok()?, 0, &mut best)?;
    best.map(|(_, at)| at)
}

impl<'a> Dominant<'a> {
    fn new(doc: &'a [u8]) -> Self {
        Dominant {
            doc,
            doc_keys: Vec::new(),
            pending_key: None,
            current: None,
            best: None,
            root_keys: 0,
            record_starts: Vec::new(),
            records: 0,
            deep: 0,
            counts: Vec::new(),
            nested_counts: Vec::new(),
        }
    }

    /// The dot-notation path of an array reached by `key` from the open objects.
    fn path(&self, key: Option<(usize, usize)>) -> String {
        let mut p = String::from("$");
        for &(a, b) in self.doc_keys.iter().flatten().chain(key.iter()) {
            push_member(&mut p, &decode_string(&self.doc[a..b]));
        }
        p
    }
}

impl Visitor for Dominant<'_> {
    fn record(&mut self, index: u64, at: usize) -> Flow {
        self.records = index + 1;
        if self.record_starts.len() < 16 {
            self.record_starts.push(at);
        }
        Flow::Continue
    }

    fn begin(&mut self, kind: Container, at: usize) -> Flow {
        if self.records > 1 {
            return Flow::Continue; // NDJSON: records are the items
        }
        if let Some(c) = &mut self.current {
            if c.nest == 0 {
                c.mask |= container_bit(kind);
            }
            c.nest += 1;
            return Flow::Continue;
        }
        if self.deep > 0 || self.doc_keys.len() >= MAX_PATH_DEPTH {
            self.deep += 1;
            return Flow::Continue;
        }
        let key = self.pending_key.take();
        match kind {
            Container::Object => self.doc_keys.push(key),
            Container::Array => {
                self.current = Some(Candidate {
                    at,
                    key,
                    mask: 0,
                    nest: 0,
                })
            }
        }
        Flow::Continue
    }

    fn end(&mut self, kind: Container, _: usize, count: u64) -> Flow {
        if self.records > 1 {
            return Flow::Continue;
        }
        if let Some(c) = &mut self.current {
            if c.nest > 0 {
                c.nest -= 1;
                return Flow::Continue;
            }
            let c = self.current.take().expect("checked above");
            // Strictly more: ties keep the first in document order. Candidates never nest, so
            // the order they close in is document order.
            if self.best.as_ref().is_none_or(|b| count > b.count) {
                let path = self.path(c.key);
                if path.len() <= MAX_PATH_BYTES {
                    self.best = Some(Best {
                        count,
                        path,
                        at: c.at,
                        mask: c.mask,
                    });
                }
            }
            return Flow::Continue;
        }
        if self.deep > 0 {
            self.deep -= 1;
            return Flow::Continue;
        }
        if kind == Container::Object {
            self.doc_keys.pop();
            if self.doc_keys.is_empty() {
                self.root_keys = count;
            }
        }
        Flow::Continue
    }

    fn key(&mut self, raw: &[u8], at: usize) -> Flow {
        if self.current.is_none() {
            self.pending_key = Some((at + 1, at + 1 + raw.len()));
        }
        Flow::Continue
    }

    fn scalar(&mut self, kind: Scalar, raw: &[u8], _: usize) -> Flow {
        // A count member of the root object (`"errorCount": 1`), which the shape shows only as
        // a number: the summary names its value.
        if self.current.is_none()
            && self.deep == 0
            && self.records <= 1
            && (1..=3).contains(&self.doc_keys.len())
            && kind == Scalar::Integer
            && let Some((a, b)) = self.pending_key
        {
            let key = decode_string(&self.doc[a..b]);
            let value = || String::from_utf8_lossy(raw).into_owned();
            if count_key(&key) && raw.len() <= 20 {
                if self.doc_keys.len() == 1 && self.counts.len() < COUNTS_MAX {
                    self.counts.push((key.into_owned(), value()));
                } else if self.doc_keys.len() > 1 && self.nested_counts.len() < COUNTS_MAX {
                    let path = self.path(Some((a, b)));
                    let name = path.strip_prefix("$.").unwrap_or(&path).to_string();
                    if name.len() <= 80 {
                        self.nested_counts.push((name, value()));
                    }
                }
            }
        }
        if let Some(c) = &mut self.current
            && c.nest == 0
        {
            // "numbers" for integers too: the summary names one number type.
            c.mask |= match kind {
                Scalar::Integer => T_NUMBER,
                other => scalar_bit(other),
            };
        }
        Flow::Continue
    }
}

// ---------------------------------------------------------------------------------------------
// The preview: real values, bounded.

/// One attempt's bounds.
#[derive(Clone, Copy)]
struct Bounds {
    items: usize,
    depth: usize,
    members: usize,
    string: usize,
}

/// Shrinking steps, richest first: fewer members, shorter strings, less depth, fewer items.
fn attempts(opts: &AnalyzeOptions) -> Vec<Bounds> {
    let (items, string) = (opts.preview_items, opts.preview_string);
    let mut v = Vec::new();
    for (depth, members, s) in [
        (4, 20, string),
        (3, 10, string),
        (3, 6, string / 2),
        (2, 6, string / 4),
        (2, 4, 40),
        (1, 4, 24),
        (1, 2, 16),
        (0, 0, 16),
    ] {
        for n in (1..=items).rev() {
            v.push(Bounds {
                items: n,
                depth,
                members,
                string: s,
            });
        }
    }
    v
}

/// `[first, second, third]`, each bounded, the whole within `preview_bytes` (else `[]`).
fn preview_list(items: &[Value<'_>], opts: &AnalyzeOptions) -> String {
    'attempt: for b in attempts(opts) {
        let mut used = 1;
        let mut shown = Vec::new();
        for (i, v) in items.iter().take(b.items).enumerate() {
            used += usize::from(i > 0);
            match render(*v, &b, &mut used, opts.preview_bytes) {
                Some(node) if used <= opts.preview_bytes => shown.push(node),
                _ => continue 'attempt,
            }
        }
        used += 1;
        if used <= opts.preview_bytes {
            let list = JsonPreview::Array(shown);
            debug_assert_eq!(used, wire::json_len(&list), "the budget counts the output");
            return wire::to_json(&list);
        }
    }
    "[]".to_string()
}

/// One value (an object root without arrays, or a scalar root), bounded.
fn preview_one(v: Value<'_>, opts: &AnalyzeOptions) -> String {
    for b in attempts(opts) {
        let mut used = 0;
        if let Some(node) = render(v, &b, &mut used, opts.preview_bytes)
            && used <= opts.preview_bytes
        {
            debug_assert_eq!(used, wire::json_len(&node), "the budget counts the output");
            return wire::to_json(&node);
        }
    }
    "null".to_string()
}

/// A string cut to `max` characters with a visible marker: `abc…[+1,234 chars]`.
fn cut_string(s: &str, max: usize) -> String {
    let total = s.chars().count();
    if total <= max {
        s.to_string()
    } else {
        let kept: String = s.chars().take(max).collect();
        format!("{kept}…[+{} chars]", group_digits((total - max) as u64))
    }
}

/// A string node, its serialized length added to `used`.
fn string_node(used: &mut usize, text: String) -> JsonPreview {
    *used += wire::json_len(&text);
    JsonPreview::String(text)
}

/// A number, `true`, `false` or `null` exactly as the document writes it.
fn token_node(used: &mut usize, raw: &[u8]) -> JsonPreview {
    match RawValue::from_string(String::from_utf8_lossy(raw).into_owned()) {
        Ok(token) => {
            *used += token.get().len();
            JsonPreview::Token(token)
        }
        Err(_) => null_node(used),
    }
}

/// `null`, standing in for a value navigation could not read.
fn null_node(used: &mut usize) -> JsonPreview {
    *used += 4;
    JsonPreview::Null
}

/// A container of the preview being filled, and what comes next in it.
enum Open<'a> {
    Obj {
        members: super::nav::Members<'a>,
        shown: usize,
        /// The name of the member whose value is being rendered.
        key: Option<String>,
        done: Vec<(String, JsonPreview)>,
        /// The keys shown so far, whole: a later member with one of them is not shown (the
        /// first member is the member, README *Exactness*).
        seen: Vec<std::borrow::Cow<'a, str>>,
    },
    Arr {
        elements: super::nav::Elements<'a>,
        shown: usize,
        done: Vec<JsonPreview>,
    },
    /// The last members of a wide object, shown after its `"…":"+N more keys"` marker (a
    /// report's verdict is often its last key).
    Tail {
        last: std::collections::VecDeque<super::nav::Member<'a>>,
        key: Option<String>,
        done: Vec<(String, JsonPreview)>,
        seen: Vec<std::borrow::Cow<'a, str>>,
    },
}

impl Open<'_> {
    /// Adds a finished value: the next element, or the value of the member named last.
    fn push(&mut self, value: JsonPreview) {
        match self {
            Open::Obj { key, done, .. } | Open::Tail { key, done, .. } => {
                done.push((key.take().unwrap_or_default(), value));
            }
            Open::Arr { done, .. } => done.push(value),
        }
    }

    /// The finished container.
    fn finish(self) -> JsonPreview {
        match self {
            Open::Obj { done, .. } | Open::Tail { done, .. } => JsonPreview::Object(done),
            Open::Arr { done, .. } => JsonPreview::Array(done),
        }
    }
}

/// Of the members a wide object may show, this share goes to its last ones.
const LAST_KEYS_SHARE: usize = 4;

/// Builds the preview of `v` within `b`, with an explicit stack (no recursion), adding its
/// serialized length to `used` part by part; `None` as soon as `used` passes `limit` (the
/// caller then tries tighter bounds). Input was validated by the analysis walk, so navigation
/// errors cannot occur; if one did, `null` stands in.
fn render(v: Value<'_>, b: &Bounds, used: &mut usize, limit: usize) -> Option<JsonPreview> {
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut next = Some(v);
    loop {
        if *used > limit {
            return None;
        }
        if let Some(v) = next.take() {
            let depth = stack.len();
            let value = match v.kind() {
                Ok(Kind::Object) if depth < b.depth => {
                    *used += 1;
                    stack.push(Open::Obj {
                        members: v.members(),
                        shown: 0,
                        key: None,
                        done: Vec::new(),
                        seen: Vec::new(),
                    });
                    None
                }
                Ok(Kind::Array) if depth < b.depth => {
                    *used += 1;
                    stack.push(Open::Arr {
                        elements: v.elements(),
                        shown: 0,
                        done: Vec::new(),
                    });
                    None
                }
                Ok(Kind::Object) => {
                    let n = v.members().count();
                    let unit = if n == 1 { "key" } else { "keys" };
                    Some(string_node(used, format!("object({n} {unit})")))
                }
                Ok(Kind::Array) => {
                    let n = v.elements().count();
                    Some(string_node(used, format!("array[{n}]")))
                }
                Ok(Kind::String) => Some(match v.decode_string() {
                    Ok(s) => string_node(used, cut_string(&s, b.string)),
                    Err(_) => null_node(used),
                }),
                // A number longer than a string may be cannot be cut and stay a number (nor
                // the same number): it is shown as a marker string, like a long string.
                // Ordinary numbers (up to 40 characters) are always shown whole.
                Ok(_) => Some(match v.raw() {
                    Ok(raw) if raw.len() > b.string.max(40) => {
                        let keep = b.string.max(40);
                        let kept = String::from_utf8_lossy(&raw[..keep]);
                        let more = group_digits((raw.len() - keep) as u64);
                        string_node(used, format!("{kept}…[number, +{more} chars]"))
                    }
                    Ok(raw) => token_node(used, raw),
                    Err(_) => null_node(used),
                }),
                Err(_) => Some(null_node(used)),
            };
            if let Some(value) = value {
                match stack.last_mut() {
                    Some(top) => top.push(value),
                    None => return Some(value),
                }
            }
        }
        let top = stack.last_mut()?;
        // Names the next member: its cut name and `:`, after a `,` unless it is the first.
        let name = |used: &mut usize, m: &super::nav::Member<'_>, first: bool| {
            let name = cut_string(&m.key(), b.string.max(16));
            *used += usize::from(!first) + wire::json_len(&name) + 1;
            name
        };
        let close = match top {
            Open::Obj {
                members,
                shown,
                key,
                done,
                seen,
            } => match members.next() {
                Some(Ok(m)) if seen.iter().any(|k| m.key_is(k)) => false,
                Some(Ok(m)) if *shown < b.members - b.members / LAST_KEYS_SHARE => {
                    seen.push(m.key());
                    *key = Some(name(used, &m, *shown == 0));
                    *shown += 1;
                    next = Some(m.value);
                    false
                }
                Some(Ok(m)) => {
                    // The rest is skipped through anyway (to count it): its last members are
                    // kept on the way, a bounded number.
                    let keep = b.members / LAST_KEYS_SHARE;
                    let mut last = std::collections::VecDeque::with_capacity(keep);
                    let mut more = 0u64;
                    for m in std::iter::once(m).chain(members.map_while(Result::ok)) {
                        if last.len() == keep {
                            more += 1;
                            if last.pop_front().is_none() {
                                continue;
                            }
                        }
                        last.push_back(m);
                    }
                    let mut done = std::mem::take(done);
                    if more > 0 {
                        let marker = "…".to_string();
                        *used += usize::from(*shown > 0) + wire::json_len(&marker) + 1;
                        done.push((
                            marker,
                            string_node(used, format!("+{} more keys", group_digits(more))),
                        ));
                    }
                    let mut key = None;
                    let mut seen = std::mem::take(seen);
                    if more == 0 && *shown == 0 {
                        // Nothing before the last members: the first needs no comma.
                        if let Some(m) = last.pop_front() {
                            seen.push(m.key());
                            key = Some(name(used, &m, true));
                            next = Some(m.value);
                        }
                    }
                    *top = Open::Tail {
                        last,
                        key,
                        done,
                        seen,
                    };
                    false
                }
                _ => true,
            },
            Open::Tail {
                last, key, seen, ..
            } => match last.pop_front() {
                Some(m) if seen.iter().any(|k| m.key_is(k)) => false,
                Some(m) => {
                    seen.push(m.key());
                    *key = Some(name(used, &m, false));
                    next = Some(m.value);
                    false
                }
                None => true,
            },
            Open::Arr {
                elements,
                shown,
                done,
            } => match elements.next() {
                Some(Ok((_, e))) if *shown < b.members => {
                    *used += usize::from(*shown > 0);
                    *shown += 1;
                    next = Some(e);
                    false
                }
                Some(Ok(_)) => {
                    let more = 1 + elements.count();
                    *used += 1;
                    done.push(string_node(
                        used,
                        format!("… +{} more items", group_digits(more as u64)),
                    ));
                    true
                }
                _ => true,
            },
        };
        if close {
            *used += 1;
            let finished = stack.pop()?.finish();
            match stack.last_mut() {
                Some(top) => top.push(finished),
                None => return Some(finished),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(doc: &str) -> JsonFacts {
        match analyze(doc.as_bytes(), &AnalyzeOptions::default()) {
            Analysis::Json(f) => f,
            other => panic!("not JSON: {other:?}"),
        }
    }

    #[test]
    fn a_record_is_compacted_outside_its_strings_and_its_focus_follows() {
        let rec = b"{\n    \"ifname\": \"eth 137\",\n    \"s\": \"a \\\" b\",\n    \"operstate\": \"DOWN\"\n  }";
        let focus = rec.windows(11).position(|w| w == b"\"operstate\"").unwrap();
        let (out, f) = compact_record(rec, focus);
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            r#"{"ifname":"eth 137","s":"a \" b","operstate":"DOWN"}"#
        );
        assert!(out[f..].starts_with(b"\"operstate\""));
    }

    #[test]
    fn dominant_array_in_an_object() {
        let items: Vec<String> = (0..1250)
            .map(|i| format!(r#"{{"id":{i},"msg":"m{i}"}}"#))
            .collect();
        let doc = format!(
            r#"{{"meta":{{"tags":["a","b"]}},"items":[{}],"next":null}}"#,
            items.join(",")
        );
        let f = facts(&doc);
        assert_eq!(f.mime_type, "application/json");
        assert_eq!(f.total_items, Some(1250));
        assert_eq!(f.dominant_path.as_deref(), Some("$.items"));
        assert_eq!(
            f.summary,
            format!(
                "JSON object, {}; $.items is an array of 1,250 objects",
                human_size(doc.len() as u64)
            )
        );
        assert_eq!(
            f.preview,
            r#"[{"id":0,"msg":"m0"},{"id":1,"msg":"m1"},{"id":2,"msg":"m2"}]"#
        );
        assert_eq!(
            f.shape,
            r#"{"meta":{"tags":"array[2] of string"},"items":{"array[1250]":{"id":"integer","msg":"string"}},"next":"null"}"#
        );
    }

    #[test]
    fn dominant_rules_ties_nesting_and_names() {
        // Arrays inside array elements do not count; ties go to the first.
        let f = facts(r#"{"a b":[1,2],"x":{"y":[3,4]},"z":[[1,2,3,4,5]]}"#);
        assert_eq!(f.dominant_path.as_deref(), Some("$['a b']"));
        assert_eq!(f.total_items, Some(2));
        assert_eq!(
            f.summary,
            "JSON object, 47 B; $['a b'] is an array of 2 numbers"
        );
        let f = facts(r#"{"x":{"y":[3,4,"s"]}}"#);
        assert_eq!(
            f.summary,
            "JSON object, 21 B; $.x.y is an array of 3 values"
        );
        let f = facts(r#"[{"big":[1,2,3,4,5,6]}]"#);
        assert_eq!(f.dominant_path.as_deref(), Some("$"));
        assert_eq!(f.summary, "JSON array, 23 B; $ is an array of 1 object");
        let f = facts(r#"{"e":[]}"#);
        assert_eq!(
            (f.total_items, f.summary.as_str()),
            (Some(0), "JSON object, 8 B; $.e is an empty array")
        );
    }

    #[test]
    fn no_array_scalar_root_and_ndjson() {
        let f = facts(r#"{"a":1,"b":{"c":2}}"#);
        assert_eq!((f.total_items, f.dominant_path.clone()), (Some(2), None));
        assert_eq!(f.summary, "JSON object, 19 B; 2 top-level keys");
        assert_eq!(f.preview, r#"{"a":1,"b":{"c":2}}"#);
        let f = facts(r#""just a string""#);
        assert_eq!(
            (f.total_items, f.summary.as_str()),
            (None, "JSON string, 15 B")
        );
        let f = facts("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n{\"a\":4}\n");
        assert_eq!(f.mime_type, "application/x-ndjson");
        assert_eq!(f.total_items, Some(4));
        assert_eq!(f.summary, "NDJSON, 32 B; 4 records");
        assert_eq!(f.preview, r#"[{"a":1},{"a":2},{"a":3}]"#);
        assert_eq!(f.shape, r#"{"ndjson[4]":{"a":"integer"}}"#);
    }

    #[test]
    fn absurd_nesting_and_key_lengths_stay_bounded() {
        let n = 1_000_000;
        let doc = "{\"a\":".repeat(n) + "[1,2,3]" + &"}".repeat(n);
        let f = facts(&doc);
        assert_eq!((f.total_items, f.dominant_path.as_deref()), (Some(1), None));
        let doc = "[".repeat(n) + &"]".repeat(n);
        let f = facts(&doc);
        assert_eq!(
            (f.total_items, f.dominant_path.as_deref()),
            (Some(1), Some("$"))
        );
        assert!(f.preview.len() <= 2048);
        let long = "k".repeat(600);
        let f = facts(&format!(r#"{{"{long}":[1,2,3],"short":[1]}}"#));
        assert_eq!(f.dominant_path.as_deref(), Some("$.short"));
    }

    #[test]
    fn invalid_json_is_text_with_a_position() {
        let a = analyze(b"{\"a\":\n [1,,2]}", &AnalyzeOptions::default());
        assert_eq!(
            a.invalid_note().as_deref(),
            Some("looks like JSON but is invalid at byte 10 (line 2:5)")
        );
        assert_eq!(
            analyze(b"hello world", &AnalyzeOptions::default()),
            Analysis::NotJson { invalid: None }
        );
        assert_eq!(
            analyze(b"1\n2\n", &AnalyzeOptions::default()),
            Analysis::NotJson { invalid: None }
        );
    }

    #[test]
    fn a_number_too_long_to_show_becomes_a_marker() {
        let digits = "1".repeat(100_000);
        let f = facts(&format!(
            r#"{{"a":[{digits},12345678901234567890123],"b":2}}"#
        ));
        let kept = "1".repeat(200);
        assert_eq!(
            f.preview,
            format!(r#"["{kept}…[number, +99,800 chars]",12345678901234567890123]"#)
        );
        let f = facts(&format!("[{digits}]"));
        assert!(f.preview.starts_with(r#"["1111"#), "{}", f.preview);
        assert!(
            f.preview.ends_with(r#"…[number, +99,800 chars]"]"#),
            "{}",
            f.preview
        );
    }

    #[test]
    fn preview_cuts_strings_and_bounds_containers() {
        let long = "é".repeat(450);
        let wide: Vec<String> = (0..30).map(|i| format!(r#""k{i}":{i}"#)).collect();
        let doc = format!(
            r#"[{{"s":"{long}","deep":{{"a":{{"b":{{"c":{{"d":{{"e":1}}}}}}}}}},"wide":{{{}}},"n":1e400}}]"#,
            wide.join(",")
        );
        let f = facts(&doc);
        // Our own parser: serde_json cannot hold 1e400, which the preview keeps as written.
        super::super::validate(f.preview.as_bytes()).unwrap();
        let first = super::super::root(f.preview.as_bytes())
            .unwrap()
            .elements()
            .next()
            .unwrap()
            .unwrap()
            .1;
        let s = first
            .members()
            .next()
            .unwrap()
            .unwrap()
            .value
            .decode_string()
            .unwrap()
            .into_owned();
        assert!(s.ends_with("…[+250 chars]"), "{s}");
        assert_eq!(s.chars().count(), 200 + "…[+250 chars]".chars().count());
        assert!(
            f.preview.contains(r#""c":"object(1 key)""#),
            "{}",
            f.preview
        );
        // A wide object shows its first keys, the count of those left out, and its last keys.
        assert!(
            f.preview.contains(
                r#""k14":14,"…":"+10 more keys","k25":25,"k26":26,"k27":27,"k28":28,"k29":29}"#
            ),
            "{}",
            f.preview
        );
        assert!(f.preview.contains(r#""n":1e400"#), "{}", f.preview);
        assert!(f.preview.len() <= 2048);
        // A tight budget still gives valid JSON.
        let opts = AnalyzeOptions {
            preview_bytes: 64,
            ..AnalyzeOptions::default()
        };
        let Analysis::Json(tight) = analyze(doc.as_bytes(), &opts) else {
            panic!()
        };
        assert!(tight.preview.len() <= 64, "{}", tight.preview);
        super::super::validate(tight.preview.as_bytes()).unwrap();
        // Re-rendering under another budget needs no new pass.
        assert_eq!(
            render_preview(doc.as_bytes(), &f.preview_source, &opts),
            tight.preview
        );
        for budget in [0, 2, 10, 100, 300, 1000] {
            let opts = AnalyzeOptions {
                preview_bytes: budget,
                ..AnalyzeOptions::default()
            };
            let p = render_preview(doc.as_bytes(), &f.preview_source, &opts);
            assert!(p.len() <= budget.max(2), "{budget}: {p}");
            super::super::validate(p.as_bytes()).unwrap();
        }
    }
}

/// The severity and message fields of a JSON object line, first (`{"level":"error",…}`), or
/// `None` for a line that is not a JSON object. Looks one level into nested objects too
/// (`cargo --message-format json` nests its diagnostic under `message`).
pub fn severity_fields(line: &[u8]) -> Option<String> {
    const KEYS: [&str; 9] = [
        "level", "severity", "status", "type", "code", "message", "msg", "error", "reason",
    ];
    let t = line.trim_ascii();
    if !t.starts_with(b"{") {
        return None;
    }
    // The fields of one object, in KEYS order: strings and numbers as written, and a nested
    // `code` object's own `code` (rustc's `{"code":{"code":"E0308"}}`).
    let pick = |o: Value<'_>| -> Option<Vec<(usize, String)>> {
        let mut found: Vec<(usize, String)> = Vec::new();
        for m in o.members() {
            let m = m.ok()?;
            let Some(k) = KEYS.iter().position(|k| m.key_is(k)) else {
                continue;
            };
            let raw = match m.value.kind().ok()? {
                Kind::String | Kind::Integer | Kind::Number => m.value.raw().ok()?.to_vec(),
                Kind::Object if KEYS[k] == "code" => {
                    let inner = m.value.members().find_map(|im| {
                        let im = im.ok()?;
                        (im.key_is("code") && im.value.kind().ok()? == Kind::String)
                            .then(|| im.value.raw().ok().map(<[u8]>::to_vec))
                            .flatten()
                    });
                    match inner {
                        Some(r) => r,
                        None => continue,
                    }
                }
                _ => continue,
            };
            if !found.iter().any(|(j, _)| *j == k) {
                found.push((k, String::from_utf8_lossy(&raw).into_owned()));
            }
        }
        found.sort_by_key(|(k, _)| *k);
        Some(found)
    };
    let root = super::nav::root(t).ok()?;
    let mut fields = pick(root)?;
    let has_level = |f: &Vec<(usize, String)>| f.iter().any(|(k, _)| *k < 2);
    if !has_level(&fields) {
        for m in root.members() {
            let m = m.ok()?;
            if m.value.kind().ok() == Some(Kind::Object)
                && let Some(inner) = pick(m.value)
                && has_level(&inner)
            {
                fields = inner;
                break;
            }
        }
    }
    if fields.is_empty() {
        return None;
    }
    let mut s = String::from("{");
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!("\"{}\":{v}", KEYS[*k]));
    }
    s.push('}');
    if s.len() > 400 {
        let mut keep = 400;
        while !s.is_char_boundary(keep) {
            keep -= 1;
        }
        s.truncate(keep);
        s.push('…');
    }
    Some(s)
}

/// Fields whose values mark severity or failure in arrays of records (linter reports, test
/// results, API responses), and a diagnostic's rule code (one rare rule among hundreds of
/// reports of another).
const SEVERITY_FIELDS: [&str; 20] = [
    "level",
    "severity",
    "status",
    "state",
    "outcome",
    "result",
    "conclusion",
    "errorCount",
    "fatalErrorCount",
    "warningCount",
    "errors",
    "failures",
    "failed",
    "ok",
    "success",
    "passed",
    "exitCode",
    "code",
    "rule",
    "ruleId",
];
/// The severity-like fields that name a record's level or outcome: among equally rare values,
/// theirs come before a rule code's or a count's (one `"severity": 2` among warnings is the
/// error, its rule is one detail of it).
const LEVEL_FIELDS: [&str; 7] = [
    "level",
    "severity",
    "status",
    "state",
    "outcome",
    "result",
    "conclusion",
];
/// A field takes at most this many distinct values per record read (and at least 4) to count:
/// a category, not an id (a list of unique codes has no rare record).
const CATEGORY_SHARE: usize = 10;
/// Records of a top-level array read for [`record_signals`] at most, and the offset past which
/// no further record is read (so a few huge records are not all skipped through).
const RECORDS_READ: usize = 100_000;
const RECORDS_BYTES: usize = 64 << 20;
/// A value is rare when at most this share of the records (and at least one) hold it.
const RARE_SHARE: usize = 100;

/// A field stops being counted once it holds more distinct values than 4 plus one per this
/// many records seen (after 50 records): an id, not a category. Keeps the counting's heap small
/// whatever the records hold.
const TRACK_SHARE: usize = 10;
/// In a field that is not severity-like, a value dominates when at least this share (in
/// tenths) of the records holding the field hold it.
const DOMINANT_TENTHS: usize = 8;
/// Fields counted at most (the first ones met).
const FIELDS_MAX: usize = 64;
/// Values are compared by their first bytes as written.
const VALUE_BYTES: usize = 64;

/// A record's bytes without the blanks between its tokens (a pretty-printed record as one
/// line, the way NDJSON writes it), and `focus` moved to the same byte: so a signal's excerpt
/// of 240 characters shows the record's first members (`"ifname":"eth137"`), not its
/// indentation. Bytes inside strings are kept as they are.
pub fn compact_record(record: &[u8], focus: usize) -> (Vec<u8>, usize) {
    let mut out = Vec::with_capacity(record.len());
    let mut new_focus = None;
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in record.iter().enumerate() {
        if i == focus {
            new_focus = Some(out.len());
        }
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
            out.push(b);
        } else if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            out.push(b);
        }
    }
    let f = new_focus.unwrap_or(out.len());
    (out, f)
}

/// A record of a top-level JSON array that stands out by a field's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordSignal {
    /// Its path (`$[17]`).
    pub path: String,
    /// The 1-based line its first byte is on.
    pub line: u64,
    /// The record's bytes in the document (`start..end`).
    pub span: (usize, usize),
    /// The offset within the record of what to show first: its `"message"`, else the field.
    pub focus: usize,
    /// The value counts that make it stand out: `errorCount: 1 in 1 of 200 records (0 in 199)`.
    pub note: String,
    /// The same in a sentence: `1 of 241 records has operstate "DOWN"`.
    pub sentence: String,
    /// A JSONPath filter selecting every record with the value (`$[?@.operstate=="DOWN"]`),
    /// when the value was short enough to be compared whole.
    pub filter: Option<String>,
    /// The field is severity-like (`level`, `severity`, `status`, …; see `SEVERITY_FIELDS`).
    pub severity: bool,
}

/// The preview's list with the records of the rarest severity first (README, "Rare values
/// among records"): when `records` (as [`records_standing_out`] ranks them) starts with a
/// severity-like field's rare value, the records it lists for severity-like fields take the
/// preview's first places, rarest first, and the first items follow in order; the list keeps
/// its length. `None` when nothing moves (no such record, or a preview of one value).
pub fn severity_first(source: &PreviewSource, records: &[RecordSignal]) -> Option<PreviewSource> {
    let PreviewSource::List(items) = source else {
        return None;
    };
    if !records.first().is_some_and(|r| r.severity) || items.is_empty() {
        return None;
    }
    let mut list: Vec<usize> = records
        .iter()
        .filter(|r| r.severity)
        .map(|r| r.span.0)
        .take(items.len())
        .collect();
    for &at in items {
        if list.len() == items.len() {
            break;
        }
        if !list.contains(&at) {
            list.push(at);
        }
    }
    (list != *items).then_some(PreviewSource::List(list))
}

/// One counted field: its key as written, whether it is severity-like, and its values.
#[derive(Debug)]
struct Field {
    key: Vec<u8>,
    severity: bool,
    /// value (first [`VALUE_BYTES`] bytes as written) → (records holding it, the first one).
    values: std::collections::HashMap<Vec<u8>, (usize, usize)>,
    /// Records holding the field with a scalar value.
    holders: usize,
    /// Too many distinct values: an id.
    dropped: bool,
}

/// Values that name a bad state rank first among equally rare ones.
fn looks_bad(value: &[u8]) -> bool {
    let v = String::from_utf8_lossy(value).to_ascii_lowercase();
    [
        "down",
        "fail",
        "error",
        "fatal",
        "dead",
        "false",
        "inactive",
        "disabled",
        "missing",
        "stopped",
        "exited",
        "crash",
        "unhealthy",
        "critical",
        "degraded",
        "offline",
    ]
    .iter()
    .any(|w| v.contains(w))
}

/// For a top-level array of objects: the records holding a rare value of one of their scalar
/// fields ([`records_standing_out`] with the prefix `$`); anything that is not such an array
/// gives none.
pub fn record_signals(doc: &[u8], max: usize) -> Vec<RecordSignal> {
    let Ok(root) = super::nav::root(doc) else {
        return Vec::new();
    };
    if root.kind().ok() != Some(Kind::Array) {
        return Vec::new();
    }
    records_standing_out(
        doc,
        "$",
        root.elements().map(|el| el.ok().map(|(_, v)| v.offset())),
        max,
    )
}

/// The records (each given by the offset of its value in `doc`, `None` for one that does not
/// parse, which gives none at all) holding a rare value of one of their scalar fields, rarest
/// first, at most `max`, one per record; their paths and filters start with `prefix` (`$` for
/// a top-level array or NDJSON records, `$.results` for an array inside an object). A value is
/// rare when at most 1% of the records (and at least one) hold it, in a field of 10 or more
/// holders that takes few values (a category, at most one value per 10 records, or 4); in a
/// field that is not severity-like (see `SEVERITY_FIELDS`) one value must also hold 80% of the
/// field's holders (241 network interfaces `UP` and one `DOWN`). Among equally rare values,
/// ones that name a bad state (`DOWN`, `failed`, `false`) come first, then a level's
/// (`LEVEL_FIELDS`), then other severity-like fields'. Reads at most the first 100,000 records and none starting past 64 MiB.
pub fn records_standing_out(
    doc: &[u8],
    prefix: &str,
    records: impl Iterator<Item = Option<usize>>,
    max: usize,
) -> Vec<RecordSignal> {
    record_stats(doc, records).signals(doc, prefix, max)
}

/// What [`records_standing_out`] reads of the records, before it picks the rare values: the
/// costly part, which needs no path (so it can run before the path is known, beside the pass
/// that finds it).
#[derive(Debug, Default)]
pub struct RecordStats {
    fields: Vec<Field>,
    offsets: Vec<usize>,
}

/// Reads the records for [`records_standing_out`]; a record that does not parse gives none at
/// all.
pub fn record_stats(doc: &[u8], records: impl Iterator<Item = Option<usize>>) -> RecordStats {
    let mut fields: Vec<Field> = Vec::new();
    let mut offsets: Vec<usize> = Vec::new();
    let mut first = None;
    for at in records.take(RECORDS_READ) {
        let Some(at) = at else {
            return RecordStats::default();
        };
        let base = *first.get_or_insert(at);
        if at - base > RECORDS_BYTES {
            break;
        }
        let v = Value::new(doc, at);
        let index = offsets.len();
        offsets.push(v.offset());
        if v.kind().ok() != Some(Kind::Object) {
            continue;
        }
        for m in v.members() {
            let Ok(m) = m else { break };
            if matches!(m.value.kind(), Ok(Kind::Object | Kind::Array) | Err(_)) {
                continue;
            }
            let Ok(raw) = m.value.raw() else { continue };
            let f = match fields.iter().position(|f| f.key == m.key_raw) {
                Some(f) => f,
                None if fields.len() < FIELDS_MAX => {
                    fields.push(Field {
                        key: m.key_raw.to_vec(),
                        severity: SEVERITY_FIELDS.iter().any(|k| m.key_is(k)),
                        values: std::collections::HashMap::new(),
                        holders: 0,
                        dropped: false,
                    });
                    fields.len() - 1
                }
                None => continue,
            };
            let field = &mut fields[f];
            if field.dropped {
                continue;
            }
            field.holders += 1;
            let e = field
                .values
                .entry(raw[..raw.len().min(VALUE_BYTES)].to_vec())
                .or_insert((0, index));
            e.0 += 1;
            if index >= 50 && field.values.len() > 4 + index / TRACK_SHARE {
                field.dropped = true;
                field.values = std::collections::HashMap::new();
            }
        }
    }
    RecordStats { fields, offsets }
}

impl RecordStats {
    /// The records standing out, their paths and filters starting with `prefix`, at most `max`
    /// ([`records_standing_out`]).
    pub fn signals(&self, doc: &[u8], prefix: &str, max: usize) -> Vec<RecordSignal> {
        let RecordStats { fields, offsets } = self;
        let n = offsets.len();
        if n < 10 {
            return Vec::new();
        }
        let rare_max = (n / RARE_SHARE).max(1);
        // (rarity, not bad, tier: 0 a level, 1 other severity-like, 2 any other field; record,
        // field, value)
        type Found<'v> = (usize, bool, u8, usize, usize, &'v [u8]);
        let mut found: Vec<Found<'_>> = Vec::new();
        for (f, field) in fields.iter().enumerate() {
            if field.dropped
                || field.holders < 10
                || field.values.len() > (n / CATEGORY_SHARE).max(4)
            {
                continue;
            }
            let top = field.values.values().map(|v| v.0).max().unwrap_or(0);
            if !field.severity && top * 10 < field.holders * DOMINANT_TENTHS {
                continue;
            }
            for (value, &(c, first)) in &field.values {
                if c <= rare_max && field.holders > c {
                    let tier = if LEVEL_FIELDS.iter().any(|k| field.key == k.as_bytes()) {
                        0
                    } else {
                        u8::from(!field.severity) + 1
                    };
                    found.push((c, !looks_bad(value), tier, first, f, value));
                }
            }
        }
        found.sort();
        let mut taken = std::collections::HashSet::new();
        found.retain(|x| taken.insert(x.3));
        found
            .into_iter()
            .take(max)
            .map(|(c, _, _, i, f, v)| {
                let field = &fields[f];
                let key = String::from_utf8_lossy(&field.key).into_owned();
                let at = offsets[i];
                let raw = Value::new(doc, at).raw().unwrap_or_default();
                let msg = memchr::memmem::find(raw, b"\"message\"")
                    .or_else(|| memchr::memmem::find(raw, format!("\"{key}\"").as_bytes()))
                    .unwrap_or(0);
                let end = at + raw.len();
                let mut others: Vec<(usize, &[u8])> = field
                    .values
                    .iter()
                    .filter(|(w, _)| w.as_slice() != v)
                    .map(|(w, (c, _))| (*c, w.as_slice()))
                    .collect();
                others.sort_by(|a, b| b.cmp(a));
                let rest: Vec<String> = others
                    .iter()
                    .take(3)
                    .map(|(c, w)| {
                        format!(
                            "{} in {}",
                            String::from_utf8_lossy(w),
                            group_digits(*c as u64)
                        )
                    })
                    .collect();
                let value = String::from_utf8_lossy(v);
                // A value cut at VALUE_BYTES cannot be compared whole; keys are written as JSON
                // strings, which a JSONPath name selector reads the same (RFC 9535 §2.3.1.1).
                let whole = v.len() < VALUE_BYTES;
                let ident = field
                    .key
                    .first()
                    .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
                    && field
                        .key
                        .iter()
                        .all(|b| b.is_ascii_alphanumeric() || *b == b'_');
                let member = if ident {
                    format!(".{key}")
                } else {
                    format!("[\"{key}\"]")
                };
                RecordSignal {
                    path: format!("{prefix}[{i}]"),
                    line: 1 + memchr::memchr_iter(b'\n', &doc[..at]).count() as u64,
                    span: (at, end),
                    focus: msg,
                    note: format!(
                        "{key}: {value} in {} of {} records ({})",
                        group_digits(c as u64),
                        group_digits(n as u64),
                        rest.join(", ")
                    ),
                    sentence: format!(
                        "{} of {} records {} {key} {value}",
                        group_digits(c as u64),
                        group_digits(n as u64),
                        if c == 1 { "has" } else { "have" }
                    ),
                    filter: whole.then(|| format!("{prefix}[?@{member}=={value}]")),
                    severity: field.severity,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod record_tests {
    use super::*;

    #[test]
    fn json_lines_show_severity_and_message_first() {
        let line = format!(
            r#"{{"id":"{}","message":{{"rendered":"long","level":"error","message":"mismatched types"}}}}"#,
            "a".repeat(600)
        );
        let f = severity_fields(line.as_bytes()).unwrap();
        assert_eq!(f, r#"{"level":"error","message":"mismatched types"}"#);
    }

    #[test]
    fn the_record_with_a_rare_severity_value_is_named_by_path() {
        let mut doc = String::from("[");
        for i in 0..200 {
            if i > 0 {
                doc.push(',');
            }
            let (e, m) = if i == 137 {
                (1, "'total' is not defined.")
            } else {
                (0, "")
            };
            doc.push_str(&format!(
                r#"{{"filePath":"src/m{i}.js","messages":[{{"message":"{m}"}}],"errorCount":{e}}}"#
            ));
        }
        doc.push(']');
        let s = record_signals(doc.as_bytes(), 5);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].path, "$[137]");
        let (a, b) = s[0].span;
        let record = &doc[a..b];
        assert!(
            record.starts_with(r#"{"filePath":"src/m137.js""#),
            "{record}"
        );
        assert!(record[s[0].focus..].starts_with(r#""message":"'total'"#));
        assert_eq!(s[0].note, "errorCount: 1 in 1 of 200 records (0 in 199)");
    }

    #[test]
    fn a_rare_rule_code_stands_out_but_unique_ids_do_not() {
        let report: Vec<String> = (0..300)
            .map(|i| {
                let code = if i == 211 { "F821" } else { "E501" };
                format!(r#"{{"code":"{code}","message":"m{i}","severity":"error"}}"#)
            })
            .collect();
        let s = record_signals(format!("[{}]", report.join(",")).as_bytes(), 5);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].path, "$[211]");
        assert_eq!(
            s[0].note,
            r#"code: "F821" in 1 of 300 records ("E501" in 299)"#
        );
        // A code per record is an id: no record is rare among the others.
        let ids: Vec<String> = (0..300).map(|i| format!(r#"{{"code":"C{i}"}}"#)).collect();
        assert!(record_signals(format!("[{}]", ids.join(",")).as_bytes(), 5).is_empty());
    }

    #[test]
    fn a_rare_value_where_one_value_dominates_names_its_record_and_filter() {
        let recs: Vec<String> = (0..241)
            .map(|i| {
                let state = if i == 117 { "DOWN" } else { "UP" };
                format!(
                    r#"{{"ifname":"veth{i}","mtu":1500,"operstate":"{state}","maj:min":"{i}"}}"#
                )
            })
            .collect();
        let s = record_signals(format!("[{}]", recs.join(",")).as_bytes(), 5);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].path, "$[117]");
        assert_eq!(s[0].sentence, r#"1 of 241 records has operstate "DOWN""#);
        assert_eq!(s[0].filter.as_deref(), Some(r#"$[?@.operstate=="DOWN"]"#));
        // A field without a dominant value is no signal: three values, none rare.
        let recs: Vec<String> = (0..300)
            .map(|i| format!(r#"{{"plan":"{}","n":{i}}}"#, ["free", "pro", "team"][i % 3]))
            .collect();
        assert!(record_signals(format!("[{}]", recs.join(",")).as_bytes(), 5).is_empty());
        // A key that is not a name is selected by its JSON string.
        let recs: Vec<String> = (0..100)
            .map(|i| format!(r#"{{"a-b":{}}}"#, if i == 9 { "false" } else { "true" }))
            .collect();
        let s = record_signals(format!("[{}]", recs.join(",")).as_bytes(), 5);
        assert_eq!(s[0].filter.as_deref(), Some(r#"$[?@["a-b"]==false]"#));
    }

    #[test]
    fn the_summary_names_the_root_objects_counts_with_their_values() {
        let results: Vec<String> = (0..50)
            .map(|i| format!(r#"{{"file":"f{i}.js","severity":"warning"}}"#))
            .collect();
        let doc = format!(
            r#"{{"numFailedTests":1,"numPassedTests":1080,"name":"run","results":[{}],"meta":{{"errorCount":7}},"warningCount":1080,"errorCount":1}}"#,
            results.join(",")
        );
        let Analysis::Json(f) = analyze(doc.as_bytes(), &AnalyzeOptions::default()) else {
            panic!("JSON");
        };
        assert!(
            f.summary.ends_with(
                "; $.results is an array of 50 objects; numFailedTests 1, numPassedTests 1,080, warningCount 1,080, errorCount 1"
            ),
            "{}",
            f.summary
        );
    }

    #[test]
    fn the_summary_names_counts_in_nested_objects_after_the_roots() {
        // mocha's JSON reporter: the counts sit in `stats`, the tests in arrays beside it.
        let tests: Vec<String> = (0..40)
            .map(|i| format!(r#"{{"title":"t{i}","err":{{}}}}"#))
            .collect();
        let doc = format!(
            r#"{{"stats":{{"suites":3,"tests":41,"passes":40,"pending":0,"failures":1,"duration":812}},"tests":[{}],"failures":[{{"title":"parses a header","err":{{"message":"expected 2 to equal 3"}}}}]}}"#,
            tests.join(",")
        );
        let Analysis::Json(f) = analyze(doc.as_bytes(), &AnalyzeOptions::default()) else {
            panic!("JSON");
        };
        assert!(
            f.summary.ends_with("; stats.passes 40, stats.failures 1"),
            "{}",
            f.summary
        );
        // Root counts come first; a count two objects down is named by its path; none inside
        // an array's records (those are the records' own values).
        let doc = r#"{"errorCount":2,"report":{"summary":{"failed":1,"passed":9}},"items":[{"errorCount":5}]}"#;
        let Analysis::Json(f) = analyze(doc.as_bytes(), &AnalyzeOptions::default()) else {
            panic!("JSON");
        };
        assert!(
            f.summary
                .ends_with("; errorCount 2, report.summary.failed 1, report.summary.passed 9"),
            "{}",
            f.summary
        );
    }

    #[test]
    fn a_nested_array_names_its_records_by_prefix_and_its_level_comes_before_its_rule() {
        let recs: Vec<String> = (0..200)
            .map(|i| {
                let (sev, rule) = if i == 42 {
                    (2, "no-undef")
                } else {
                    (1, "semi")
                };
                format!(r#"{{"ruleId":"{rule}","severity":{sev}}}"#)
            })
            .collect();
        let doc = format!(r#"{{"errorCount":1,"results":[{}]}}"#, recs.join(","));
        let at = doc.find('[').unwrap();
        let v = Value::new(doc.as_bytes(), at);
        let found = records_standing_out(
            doc.as_bytes(),
            "$.results",
            v.elements().map(|e| e.ok().map(|(_, v)| v.offset())),
            5,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].path, "$.results[42]");
        assert_eq!(
            found[0].filter.as_deref(),
            Some("$.results[?@.severity==2]")
        );
        assert!(found[0].severity);
        // The preview's list gets the record first, then the first items in order.
        let items: Vec<usize> = v
            .elements()
            .take(3)
            .map(|e| e.unwrap().1.offset())
            .collect();
        let moved = severity_first(&PreviewSource::List(items.clone()), &found);
        assert_eq!(
            moved,
            Some(PreviewSource::List(vec![
                found[0].span.0,
                items[0],
                items[1]
            ]))
        );
        // A rare value of another field moves nothing.
        let other = RecordSignal {
            severity: false,
            ..found[0].clone()
        };
        assert_eq!(severity_first(&PreviewSource::List(items), &[other]), None);
    }

    #[test]
    fn uniform_records_and_other_documents_give_none() {
        let doc = format!("[{}]", vec![r#"{"level":"info"}"#; 50].join(","));
        assert!(record_signals(doc.as_bytes(), 5).is_empty());
        assert!(record_signals(br#"{"level":"error"}"#, 5).is_empty());
        assert!(record_signals(b"[1,2,3]", 5).is_empty());
    }
}
