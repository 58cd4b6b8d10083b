//! `spill shape`: a bounded structural skeleton of a JSON document or NDJSON stream (README, `spill shape`).
//!
//! One streaming walk merges every value into a small arena of types (one node per distinct
//! place in the structure, not per value), then a renderer prints the skeleton, shrinking it —
//! fewer keys per object, shorter key names, less depth — until it fits `--max-bytes`.
//!
//! Memory is bounded whatever the input: containers deeper than the depth limit are counted, not
//! entered; an object shape keeps at most [`KEYS_PER_OBJECT`] distinct keys (an id-keyed one
//! becomes a map, any other counts the rest as "more keys"); the whole arena keeps at most [`MAX_FIELDS`] keys (later keys are counted as
//! "more keys"); stored key names are cut at [`MAX_KEY_BYTES`].
//!
//! Decisions (the README's `spill shape` section states them for users):
//! - Union members always appear in one order — `string`, `integer`, `number`, `boolean`,
//!   `null`, then `object(…)`, `array[…]` — so output is stable whatever the input order. A
//!   container in a union is shown by its size only (`"null|object(2..3 keys)"`).
//! - "More than 32 keys sharing one shape" means every value of the object prints the same.
//!   An id-keyed object (every key numeric, UUID-like, 8+ hex digits or a date) is a map even
//!   with one key. `map[N]` / `array[N]` show `min..max` when merged values differ.
//! - `--max-bytes` below [`MIN_MAX_BYTES`] is refused: the text summary with large numbers
//!   needs that much. Cuts are tried in order: fewer keys per object (with `"…": "+N more
//!   keys"`), shorter key names (cut with `…`), then less depth.
//! - Text: `longestLine` is in bytes without the line ending; a blank line holds only spaces
//!   and tabs. Lines of bare scalars (`seq 1 5`) are text, not NDJSON.
//! - `--paths` lists paths in order of first appearance; id-like keys become `[*]` (one path
//!   for a map's entries, still a valid JSONPath wildcard); at most [`MAX_PATHS`] paths,
//!   [`MAX_DEPTH`] levels and [`MAX_PATH_TEXT`] bytes are listed.

use std::collections::HashMap;

use super::nav::decode_string;
use super::parse::{Container, Flow, Scalar, Visitor, bytes_eq, walk_records};
use crate::limits::{group_digits, human_size};
use crate::wire::shape::{self as wire, ShapeOutput, SkeletonNode};

/// Distinct keys one object shape tracks (the rest are counted, or merged if it is a map).
pub const KEYS_PER_OBJECT: usize = 1000;
/// Distinct keys tracked over the whole skeleton.
pub const MAX_FIELDS: usize = 20_000;
/// Bytes of a key name kept for display and identity.
pub const MAX_KEY_BYTES: usize = 256;
/// The deepest `--max-depth` honoured (deeper limits are clamped): bounds the renderer's recursion.
pub const MAX_DEPTH: usize = 64;
/// The smallest `--max-bytes` accepted: room for the text summary with large numbers.
pub const MIN_MAX_BYTES: usize = 256;
/// Strings longer than this many bytes are shown with their size (`"string(2.4 KiB)"`).
pub const LONG_STRING: u64 = 128;

/// How `shape` walks and prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShapeOptions {
    /// Container levels shown before containers become `"object(12 keys)"` (`--max-depth`).
    pub max_depth: usize,
    /// The printed skeleton never exceeds this many bytes (`--max-bytes`, at least
    /// [`MIN_MAX_BYTES`]).
    pub max_bytes: usize,
    /// Merge only the first `n` elements of each array (and the first `n` NDJSON records);
    /// counts stay exact. `None` merges everything (the `shape` command); `wrap` samples.
    pub sample: Option<u64>,
}

impl Default for ShapeOptions {
    fn default() -> Self {
        ShapeOptions {
            max_depth: crate::limits::SHAPE_MAX_DEPTH,
            max_bytes: crate::limits::SHAPE_MAX_BYTES as usize,
            sample: None,
        }
    }
}

/// What kind of input a skeleton describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// One JSON value.
    Json,
    /// Two or more JSON values, one per line.
    Ndjson,
    /// Text (possibly JSON-looking but invalid).
    Text,
    /// Binary data.
    Binary,
}

/// The skeleton and what it describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skeleton {
    /// What is printed: its compact one-line JSON ([`Skeleton::to_json`]) is at most
    /// `max_bytes` long.
    pub value: ShapeOutput,
    /// The input's kind.
    pub kind: InputKind,
    /// For JSON-looking input that failed to parse: where.
    pub invalid: Option<super::SyntaxError>,
}

impl Skeleton {
    /// The skeleton as compact one-line JSON, as `spill shape` prints it.
    pub fn to_json(&self) -> String {
        wire::to_json(&self.value)
    }
}

/// Builds the skeleton of any input: JSON, NDJSON, text or binary (README, `spill shape`).
pub fn shape(doc: &[u8], opts: &ShapeOptions) -> Skeleton {
    shape_skipping(doc, opts, false).0
}

/// [`shape`], with the NDJSON lines that are not exactly one JSON value skipped when
/// `skip_invalid` is set (`--skip-invalid`); also returns how many were.
pub fn shape_skipping(doc: &[u8], opts: &ShapeOptions, skip_invalid: bool) -> (Skeleton, u64) {
    let mut skipped = 0;
    let skeleton = shape_counting(doc, opts, skip_invalid, &mut skipped);
    (skeleton, skipped)
}

fn shape_counting(
    doc: &[u8],
    opts: &ShapeOptions,
    skip_invalid: bool,
    skipped: &mut u64,
) -> Skeleton {
    let max_bytes = opts.max_bytes.max(MIN_MAX_BYTES);
    if crate::text::is_binary(doc) {
        return Skeleton {
            value: ShapeOutput::Binary(wire::BinaryShape {
                binary: wire::BinarySummary {
                    bytes: doc.len() as u64,
                },
            }),
            kind: InputKind::Binary,
            invalid: None,
        };
    }
    let mut b = Builder::new(opts);
    let walked = walk_records(doc, &mut b, skip_invalid);
    if let Ok(rec) = &walked {
        *skipped = rec.skipped;
    }
    match walked {
        Ok(rec) if rec.count == 1 || rec.any_container => {
            let kind = if rec.count == 1 {
                InputKind::Json
            } else {
                InputKind::Ndjson
            };
            Skeleton {
                value: ShapeOutput::Skeleton(b.skeleton(kind == InputKind::Ndjson, max_bytes)),
                kind,
                invalid: None,
            }
        }
        Ok(_) => Skeleton {
            value: ShapeOutput::Text(text_summary(doc, None)),
            kind: InputKind::Text,
            invalid: None,
        },
        Err(e) => {
            let looks_json = super::sniff::looks_like_json(doc);
            let off = looks_json.then_some(e.offset);
            Skeleton {
                value: ShapeOutput::Text(text_summary(doc, off)),
                kind: InputKind::Text,
                invalid: looks_json.then_some(e),
            }
        }
    }
}

/// `{"text":{"lines":N,"bytes":M,"longestLine":K,"blankLines":B}}`, plus `"invalidJsonAt"`.
pub fn text_summary(doc: &[u8], invalid_at: Option<u64>) -> wire::TextShape {
    let (mut lines, mut longest, mut blank, mut start) = (0u64, 0usize, 0u64, 0usize);
    let mut line = |l: &[u8]| {
        let l = l.strip_suffix(b"\r").unwrap_or(l);
        longest = longest.max(l.len());
        if l.iter().all(|b| matches!(b, b' ' | b'\t')) {
            blank += 1;
        }
        lines += 1;
    };
    for nl in memchr::memchr_iter(b'\n', doc) {
        line(&doc[start..nl]);
        start = nl + 1;
    }
    if start < doc.len() {
        line(&doc[start..]);
    }
    wire::TextShape {
        text: wire::TextSummary {
            lines,
            bytes: doc.len() as u64,
            longest_line: longest as u64,
            blank_lines: blank,
        },
        invalid_json_at: invalid_at,
    }
}

// ---------------------------------------------------------------------------------------------
// The type arena.

const NONE: u32 = u32::MAX;

// The JSON types as bits of one mask: the set of types seen at one place. The one such set of
// the engine (the envelope's dominant-array summary uses it too).
pub(crate) const T_STRING: u8 = 1;
pub(crate) const T_INTEGER: u8 = 2;
pub(crate) const T_NUMBER: u8 = 4;
pub(crate) const T_BOOLEAN: u8 = 8;
pub(crate) const T_NULL: u8 = 16;
pub(crate) const T_OBJECT: u8 = 32;
pub(crate) const T_ARRAY: u8 = 64;

/// The type bit of a container.
#[inline]
pub(crate) fn container_bit(kind: Container) -> u8 {
    match kind {
        Container::Object => T_OBJECT,
        Container::Array => T_ARRAY,
    }
}

/// The type bit of a scalar (integers and other numbers apart).
#[inline]
pub(crate) fn scalar_bit(kind: Scalar) -> u8 {
    match kind {
        Scalar::String => T_STRING,
        Scalar::Integer => T_INTEGER,
        Scalar::Number => T_NUMBER,
        Scalar::Boolean => T_BOOLEAN,
        Scalar::Null => T_NULL,
    }
}

/// The merged type of every value seen at one place.
#[derive(Debug, Clone)]
struct Ty {
    mask: u8,
    max_string: u64,
    obj: u32,
    arr: u32,
}

#[derive(Debug, Clone)]
struct Field {
    name: Box<[u8]>,
    /// The name was longer than [`MAX_KEY_BYTES`] and is shown with a marker.
    cut: bool,
    /// Objects that had this key.
    present: u64,
    /// Serial (plus one) of the last object that had it, so duplicates count once.
    last: u64,
    ty: u32,
}

#[derive(Debug, Clone)]
struct Obj {
    seen: u64,
    min_keys: u64,
    max_keys: u64,
    fields: Vec<Field>,
    index: HashMap<Box<[u8]>, u32>,
    /// Keys not tracked because the arena's budget ran out.
    dropped: u64,
    /// Every key seen is numeric, UUID-like, long hex or a date.
    id_like: bool,
    /// Collapsed into a map: every value merges into this type.
    map: u32,
}

impl Obj {
    /// The position of key `name`: a scan for small objects, the index for wide ones.
    fn find_field(&self, name: &[u8]) -> Option<usize> {
        if self.fields.len() <= 8 {
            self.fields.iter().position(|f| bytes_eq(&f.name, name))
        } else {
            self.index.get(name).map(|&i| i as usize)
        }
    }

    /// Appends a key, indexing it once the object is wide; returns its position.
    fn push_field(&mut self, f: Field) -> usize {
        let i = self.fields.len();
        if i == 8 {
            for (k, g) in self.fields.iter().enumerate() {
                self.index.insert(g.name.clone(), k as u32);
            }
        }
        if i >= 8 {
            self.index.insert(f.name.clone(), i as u32);
        }
        self.fields.push(f);
        i
    }
}

#[derive(Debug, Clone)]
struct Arr {
    seen: u64,
    min_len: u64,
    max_len: u64,
    elem: u32,
}

enum Frame {
    Obj {
        obj: u32,
        serial: u64,
        hint: usize,
    },
    Arr {
        arr: u32,
    },
    /// A container at the depth limit: counted, not entered.
    Opaque {
        ty: u32,
    },
}

pub(crate) struct Builder {
    max_depth: usize,
    sample: u64,
    tys: Vec<Ty>,
    objs: Vec<Obj>,
    arrs: Vec<Arr>,
    fields: usize,
    root: u32,
    records: u64,
    frames: Vec<Frame>,
    /// Nesting inside a container that is being ignored (sampled out or below the limit).
    ignore: u64,
    pending: Option<u32>,
}

impl Builder {
    pub(crate) fn new(opts: &ShapeOptions) -> Builder {
        let mut b = Builder {
            max_depth: opts.max_depth.min(MAX_DEPTH),
            sample: opts.sample.unwrap_or(u64::MAX),
            tys: Vec::new(),
            objs: Vec::new(),
            arrs: Vec::new(),
            fields: 0,
            root: 0,
            records: 0,
            frames: Vec::new(),
            ignore: 0,
            pending: None,
        };
        b.root = b.new_ty();
        b
    }

    fn new_ty(&mut self) -> u32 {
        self.tys.push(Ty {
            mask: 0,
            max_string: 0,
            obj: NONE,
            arr: NONE,
        });
        (self.tys.len() - 1) as u32
    }

    /// The object record of type `ty`, created on first use (inlined: the walk calls it for
    /// every object).
    #[inline(always)]
    fn obj_of(&mut self, ty: u32) -> u32 {
        match self.tys[ty as usize].obj {
            NONE => self.new_obj(ty),
            o => o,
        }
    }

    #[cold]
    fn new_obj(&mut self, ty: u32) -> u32 {
        self.objs.push(Obj {
            seen: 0,
            min_keys: u64::MAX,
            max_keys: 0,
            fields: Vec::new(),
            index: HashMap::new(),
            dropped: 0,
            id_like: true,
            map: NONE,
        });
        let o = (self.objs.len() - 1) as u32;
        self.tys[ty as usize].obj = o;
        o
    }

    /// The array record of type `ty`, created on first use.
    #[inline(always)]
    fn arr_of(&mut self, ty: u32) -> u32 {
        match self.tys[ty as usize].arr {
            NONE => self.new_arr(ty),
            a => a,
        }
    }

    #[cold]
    fn new_arr(&mut self, ty: u32) -> u32 {
        let elem = self.new_ty();
        self.arrs.push(Arr {
            seen: 0,
            min_len: u64::MAX,
            max_len: 0,
            elem,
        });
        let a = (self.arrs.len() - 1) as u32;
        self.tys[ty as usize].arr = a;
        a
    }

    /// The type the value of key `raw` merges into in object `o`, or `None` when dropped.
    fn field(&mut self, o: u32, serial: u64, hint: &mut usize, raw: &[u8]) -> Option<u32> {
        let (raw, cut) = cut_key(raw);
        let obj = &mut self.objs[o as usize];
        if obj.map != NONE {
            return Some(obj.map);
        }
        // Records usually repeat their keys in the same order: try the next key first.
        let found = if obj
            .fields
            .get(*hint)
            .is_some_and(|f| bytes_eq(&f.name, raw))
        {
            Some(*hint)
        } else {
            obj.find_field(raw)
        };
        let i = match found {
            Some(i) => i,
            None => {
                if self.fields >= MAX_FIELDS {
                    self.objs[o as usize].dropped += 1;
                    return None;
                }
                if self.objs[o as usize].fields.len() >= KEYS_PER_OBJECT {
                    // An id-keyed object is a map, whatever its size; any other object is wide
                    // and keeps its first keys.
                    if self.objs[o as usize].id_like && is_id_like(raw) {
                        return Some(self.collapse(o));
                    }
                    self.objs[o as usize].dropped += 1;
                    return None;
                }
                let ty = self.new_ty();
                self.fields += 1;
                let obj = &mut self.objs[o as usize];
                obj.id_like &= is_id_like(raw);
                obj.push_field(Field {
                    name: raw.into(),
                    cut,
                    present: 0,
                    last: 0,
                    ty,
                })
            }
        };
        *hint = i + 1;
        let f = &mut self.objs[o as usize].fields[i];
        if f.last == serial + 1 {
            // A repeated key: the first member is the member (README, *Exactness*), so the
            // value of this one merges into nothing.
            return None;
        }
        f.last = serial + 1;
        f.present += 1;
        Some(f.ty)
    }

    /// Turns object `o` into a map: all its values merge into one type.
    fn collapse(&mut self, o: u32) -> u32 {
        let map = self.new_ty();
        let fields = std::mem::take(&mut self.objs[o as usize].fields);
        self.objs[o as usize].index = HashMap::new();
        for f in &fields {
            self.merge(map, f.ty);
        }
        self.objs[o as usize].map = map;
        map
    }

    /// Merges type `src` into `dst` (deep), with a work list instead of recursion.
    fn merge(&mut self, dst: u32, src: u32) {
        let mut work = vec![(dst, src)];
        while let Some((d, s)) = work.pop() {
            if d == s {
                continue;
            }
            let st = self.tys[s as usize].clone();
            {
                let dt = &mut self.tys[d as usize];
                dt.mask |= st.mask;
                dt.max_string = dt.max_string.max(st.max_string);
            }
            if st.arr != NONE {
                let sa = self.arrs[st.arr as usize].clone();
                let da = self.arr_of(d);
                let a = &mut self.arrs[da as usize];
                a.seen += sa.seen;
                a.min_len = a.min_len.min(sa.min_len);
                a.max_len = a.max_len.max(sa.max_len);
                let de = a.elem;
                work.push((de, sa.elem));
            }
            if st.obj != NONE {
                let so = self.objs[st.obj as usize].clone();
                let dob = self.obj_of(d);
                {
                    let o = &mut self.objs[dob as usize];
                    o.min_keys = o.min_keys.min(so.min_keys);
                    o.max_keys = o.max_keys.max(so.max_keys);
                    o.dropped += so.dropped;
                    o.id_like &= so.id_like;
                }
                self.objs[dob as usize].seen += so.seen;
                if so.map != NONE {
                    let m = self.map_of(dob);
                    work.push((m, so.map));
                }
                for f in so.fields {
                    let o = &self.objs[dob as usize];
                    if o.map != NONE {
                        work.push((o.map, f.ty));
                        continue;
                    }
                    if let Some(df) = o.find_field(&f.name) {
                        let g = &mut self.objs[dob as usize].fields[df];
                        g.present += f.present;
                        work.push((g.ty, f.ty));
                    } else if self.fields < MAX_FIELDS {
                        let ty = self.new_ty();
                        self.fields += 1;
                        let o = &mut self.objs[dob as usize];
                        o.push_field(Field {
                            name: f.name.clone(),
                            cut: f.cut,
                            present: f.present,
                            last: 0,
                            ty,
                        });
                        // A key new to `dst` keeps its own presence: dst's earlier objects
                        // lacked it, which makes it optional.
                        work.push((ty, f.ty));
                    } else {
                        self.objs[dob as usize].dropped += 1;
                    }
                }
            }
        }
    }

    fn map_of(&mut self, o: u32) -> u32 {
        if self.objs[o as usize].map == NONE {
            self.collapse(o)
        } else {
            self.objs[o as usize].map
        }
    }

    /// Collapses id-keyed objects and objects of many same-shaped values into maps, children
    /// first so that equal shapes compare equal.
    fn finish(&mut self) {
        for o in (0..self.objs.len()).rev() {
            let obj = &self.objs[o];
            if obj.map != NONE || obj.fields.is_empty() {
                continue;
            }
            let many_alike = obj.fields.len() > 32 && {
                let first = obj.fields[0].ty;
                obj.fields.iter().all(|f| self.same(first, f.ty))
            };
            if obj.id_like || many_alike {
                self.collapse(o as u32);
            }
        }
    }

    /// Whether two types would print the same (bounded by the arena's depth).
    fn same(&self, a: u32, b: u32) -> bool {
        let mut work = vec![(a, b)];
        while let Some((a, b)) = work.pop() {
            let (x, y) = (&self.tys[a as usize], &self.tys[b as usize]);
            if x.mask != y.mask || (x.max_string > LONG_STRING) != (y.max_string > LONG_STRING) {
                return false;
            }
            if x.arr != NONE {
                work.push((
                    self.arrs[x.arr as usize].elem,
                    self.arrs[y.arr as usize].elem,
                ));
            }
            if x.obj != NONE {
                let (p, q) = (&self.objs[x.obj as usize], &self.objs[y.obj as usize]);
                if (p.map == NONE) != (q.map == NONE) || p.fields.len() != q.fields.len() {
                    return false;
                }
                if p.map != NONE {
                    work.push((p.map, q.map));
                }
                for (f, g) in p.fields.iter().zip(&q.fields) {
                    if f.name != g.name || (f.present < p.seen) != (g.present < q.seen) {
                        return false;
                    }
                    work.push((f.ty, g.ty));
                }
            }
        }
        true
    }
}

impl Visitor for Builder {
    fn record(&mut self, index: u64, _: usize) -> Flow {
        self.records = index + 1;
        self.pending = (index < self.sample).then_some(self.root);
        Flow::Continue
    }

    #[inline]
    fn begin(&mut self, kind: Container, _: usize) -> Flow {
        if self.ignore > 0 {
            self.ignore += 1;
            return Flow::Continue;
        }
        let Some(ty) = self.pending.take() else {
            self.ignore = 1;
            return Flow::Continue;
        };
        let depth = self.frames.len() + 1;
        self.tys[ty as usize].mask |= container_bit(kind);
        match kind {
            Container::Object => {
                let o = self.obj_of(ty);
                if depth > self.max_depth {
                    self.frames.push(Frame::Opaque { ty });
                } else {
                    let obj = &mut self.objs[o as usize];
                    let serial = obj.seen;
                    obj.seen += 1;
                    self.frames.push(Frame::Obj {
                        obj: o,
                        serial,
                        hint: 0,
                    });
                }
                self.objs[o as usize].seen += u64::from(depth > self.max_depth);
            }
            Container::Array => {
                let a = self.arr_of(ty);
                self.arrs[a as usize].seen += 1;
                if depth > self.max_depth {
                    self.frames.push(Frame::Opaque { ty });
                } else {
                    self.frames.push(Frame::Arr { arr: a });
                }
            }
        }
        Flow::Continue
    }

    #[inline]
    fn end(&mut self, kind: Container, _: usize, count: u64) -> Flow {
        if self.ignore > 0 {
            self.ignore -= 1;
            return Flow::Continue;
        }
        let idx = match self.frames.pop() {
            Some(Frame::Obj { obj, .. }) => obj,
            Some(Frame::Arr { arr }) => arr,
            Some(Frame::Opaque { ty }) => {
                let t = &self.tys[ty as usize];
                if kind == Container::Object {
                    t.obj
                } else {
                    t.arr
                }
            }
            None => return Flow::Continue,
        };
        if kind == Container::Object {
            let o = &mut self.objs[idx as usize];
            o.min_keys = o.min_keys.min(count);
            o.max_keys = o.max_keys.max(count);
        } else {
            let a = &mut self.arrs[idx as usize];
            a.min_len = a.min_len.min(count);
            a.max_len = a.max_len.max(count);
        }
        self.pending = None;
        Flow::Continue
    }

    fn key(&mut self, raw: &[u8], _: usize) -> Flow {
        if self.ignore > 0 {
            return Flow::Continue;
        }
        if let Some(Frame::Obj { obj, serial, hint }) = self.frames.last_mut() {
            let (o, s, mut h) = (*obj, *serial, *hint);
            self.pending = self.field(o, s, &mut h, raw);
            if let Some(Frame::Obj { hint, .. }) = self.frames.last_mut() {
                *hint = h;
            }
        }
        Flow::Continue
    }

    /// The key the previous object had next (records repeat key order), unless its stored
    /// name was cut.
    #[inline(always)]
    fn next_key(&self) -> &[u8] {
        if self.ignore > 0 {
            return &[];
        }
        match self.frames.last() {
            Some(Frame::Obj { obj, hint, .. }) => {
                match self.objs[*obj as usize].fields.get(*hint) {
                    Some(f) if !f.cut => &f.name,
                    _ => &[],
                }
            }
            _ => &[],
        }
    }

    /// The common case, inlined into the walk: the key is the field at the hint.
    #[inline(always)]
    fn guessed_key(&mut self, _: &[u8], _: usize) -> Flow {
        if let Some(Frame::Obj { obj, serial, hint }) = self.frames.last_mut() {
            let f = &mut self.objs[*obj as usize].fields[*hint];
            *hint += 1;
            // A repeated key's value merges into nothing, as in `field`.
            self.pending = if f.last == *serial + 1 {
                None
            } else {
                f.last = *serial + 1;
                f.present += 1;
                Some(f.ty)
            };
        }
        Flow::Continue
    }

    fn index(&mut self, index: u64) -> Flow {
        if self.ignore > 0 {
            return Flow::Continue;
        }
        if let Some(Frame::Arr { arr }) = self.frames.last() {
            self.pending = (index < self.sample).then_some(self.arrs[*arr as usize].elem);
        }
        Flow::Continue
    }

    fn scalar(&mut self, kind: Scalar, raw: &[u8], _: usize) -> Flow {
        if self.ignore > 0 {
            return Flow::Continue;
        }
        if let Some(ty) = self.pending.take() {
            let t = &mut self.tys[ty as usize];
            t.mask |= match kind {
                Scalar::String => {
                    // Sizes count decoded bytes (`\u00e9` is 2 bytes, as `é` is). Only a
                    // string that could be a new longest one above LONG_STRING is decoded: the
                    // size shows only past that, and a decoded string is never longer than
                    // its raw form, so the walk's hot path only compares lengths.
                    let len = raw.len() as u64 - 2;
                    if len > t.max_string && len > LONG_STRING {
                        t.max_string = t.max_string.max(decoded_len(&raw[1..raw.len() - 1]));
                    }
                    T_STRING
                }
                other => scalar_bit(other),
            };
        }
        Flow::Continue
    }
}

/// The length in bytes of the decoded form of a validated string's contents (without its
/// quotes), counted without decoding: `decode_string(s).len()`, with lone surrogates as U+FFFD.
/// Its cost is a `memchr` plus a step per escape.
fn decoded_len(s: &[u8]) -> u64 {
    // Hex digits by hand: a `from_str_radix` per escape was most of the cost on
    // `\u`-escaped text (Python's default `ensure_ascii` output).
    let hex4 = |at: usize| {
        s.get(at..at + 4)?.iter().try_fold(0u32, |acc, &b| {
            let digit = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => return None,
            };
            Some(acc << 4 | u32::from(digit))
        })
    };
    let (mut n, mut i) = (0usize, 0usize);
    while let Some(off) = memchr::memchr(b'\\', &s[i..]) {
        n += off;
        i += off;
        if s.get(i + 1) != Some(&b'u') {
            n += 1;
            i += 2;
            continue;
        }
        let Some(u) = hex4(i + 2) else {
            n += 3;
            i += 2;
            continue;
        };
        i += 6;
        let pair = (0xD800..0xDC00).contains(&u)
            && s.get(i..i + 2) == Some(b"\\u")
            && hex4(i + 2).is_some_and(|lo| (0xDC00..0xE000).contains(&lo));
        n += if pair {
            i += 6;
            4
        } else {
            char::from_u32(u).map_or(3, char::len_utf8)
        };
    }
    (n + s.len().saturating_sub(i)) as u64
}

/// A key's first [`MAX_KEY_BYTES`] bytes, cut before a UTF-8 continuation byte; and whether it
/// was cut.
fn cut_key(raw: &[u8]) -> (&[u8], bool) {
    if raw.len() <= MAX_KEY_BYTES {
        return (raw, false);
    }
    let mut end = MAX_KEY_BYTES;
    while end > 0 && raw[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    (&raw[..end], true)
}

/// Numeric, UUID-like, hex of 8+ digits, or a date (`2024-01-31…`).
fn is_id_like(k: &[u8]) -> bool {
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    let hex = |s: &[u8]| s.iter().all(u8::is_ascii_hexdigit);
    if digits(k.strip_prefix(b"-").unwrap_or(k)) {
        return true;
    }
    if k.len() >= 8 && hex(k) {
        return true;
    }
    if k.len() == 36 && [8, 13, 18, 23].iter().all(|&i| k[i] == b'-') {
        return k
            .iter()
            .enumerate()
            .all(|(i, b)| matches!(i, 8 | 13 | 18 | 23) || b.is_ascii_hexdigit());
    }
    k.len() >= 10
        && digits(&k[..4])
        && k[4] == b'-'
        && digits(&k[5..7])
        && k[7] == b'-'
        && digits(&k[8..10])
}

// ---------------------------------------------------------------------------------------------
// Rendering.

/// One rendering attempt's limits: containers at container depth `depth` and below are named
/// by their type; an object at depth `d < depth` shows at most `levels[d].0` keys, each name cut
/// to `levels[d].1` characters.
struct Params {
    depth: usize,
    levels: Vec<(usize, usize)>,
    max_bytes: usize,
}

struct TooBig;

/// The printed length of the skeleton built so far in one attempt: each part's serialized
/// length ([`wire::json_len`]) is added once, as the part is added, so an attempt costs what
/// it prints and stops as soon as it passes `--max-bytes`.
struct Budget<'p> {
    used: usize,
    p: &'p Params,
}

impl Budget<'_> {
    /// Adds `bytes` of punctuation or of serialized text.
    fn add(&mut self, bytes: usize) {
        self.used += bytes;
    }

    /// Adds a type description (a JSON string) and returns it as a node.
    fn text(&mut self, text: String) -> SkeletonNode {
        self.add(wire::json_len(&text));
        SkeletonNode::Type(text)
    }

    /// Adds an object member's name and its `:` (and the `,` before it unless it is the first).
    fn name(&mut self, name: &str, first: bool) {
        self.add(usize::from(!first) + wire::json_len(name) + 1);
    }

    fn check(&self) -> Result<(), TooBig> {
        if self.used > self.p.max_bytes {
            Err(TooBig)
        } else {
            Ok(())
        }
    }

    /// `{"name":…}` around the value `value` builds, with the budget checked after it.
    fn single(
        &mut self,
        name: String,
        value: impl FnOnce(&mut Self) -> Result<SkeletonNode, TooBig>,
    ) -> Result<SkeletonNode, TooBig> {
        self.add(1);
        self.name(&name, true);
        let v = value(self)?;
        self.add(1);
        self.check()?;
        Ok(SkeletonNode::Object(vec![(name, v)]))
    }
}

impl Builder {
    /// The skeleton within `max_bytes` as JSON (see [`Builder::skeleton`]).
    pub(crate) fn render(&mut self, ndjson: bool, max_bytes: usize) -> String {
        wire::to_json(&self.skeleton(ndjson, max_bytes))
    }

    /// The skeleton within `max_bytes`, spent breadth first: level by level, the first of the
    /// steps below (keys shown per object, characters per key name) that fits is chosen for
    /// the objects of that level, and the next level is opened only when this one
    /// shows every key. So every top-level key is named (as far as the budget allows) before
    /// anything below it is expanded, and each level down gets what is left (measured on
    /// botocore's AWS service models: the old depth-first search kept `metadata` expanded and
    /// hid `operations`, `shapes` and `documentation` behind `"+3 more keys"`).
    pub(crate) fn skeleton(&mut self, ndjson: bool, max_bytes: usize) -> SkeletonNode {
        self.finish();
        const STEPS: [(usize, usize); 10] = [
            (usize::MAX, usize::MAX),
            (usize::MAX, 64),
            (64, 32),
            (32, 32),
            (16, 24),
            (8, 24),
            (4, 16),
            (2, 16),
            (1, 8),
            (0, 8),
        ];
        let attempt = |p: &Params| {
            let mut budget = Budget { used: 0, p };
            let node = self.render_top(ndjson, &mut budget).ok()?;
            debug_assert_eq!(
                budget.used,
                wire::json_len(&node),
                "the budget counts the output"
            );
            (budget.used <= max_bytes).then_some(node)
        };
        let mut p = Params {
            depth: 0,
            levels: Vec::new(),
            max_bytes,
        };
        let mut best = attempt(&p);
        for depth in 1..=self.max_depth {
            p.depth = depth;
            p.levels.push((0, 0));
            let mut opened = None;
            for step in STEPS {
                // Below the root, an object showing no key says less than its type string.
                if step.0 == 0 && depth > 1 {
                    break;
                }
                *p.levels.last_mut().expect("a level was pushed") = step;
                if let Some(node) = attempt(&p) {
                    opened = Some((node, step.0));
                    break;
                }
            }
            let Some((node, keys)) = opened else {
                break;
            };
            best = Some(node);
            if keys != usize::MAX {
                break;
            }
        }
        if let Some(node) = best {
            return node;
        }
        // Depth 0 at its tightest still names the root's kinds; this is the floor.
        let t = &self.tys[self.root as usize];
        let kinds = SkeletonNode::Type(kind_names(t.mask).join("|"));
        if ndjson {
            SkeletonNode::Object(vec![(format!("ndjson[{}]", self.records), kinds)])
        } else {
            kinds
        }
    }

    fn render_top(&self, ndjson: bool, b: &mut Budget<'_>) -> Result<SkeletonNode, TooBig> {
        if ndjson {
            b.single(format!("ndjson[{}]", self.records), |b| {
                self.render_ty(self.root, 0, b)
            })
        } else {
            self.render_ty(self.root, 0, b)
        }
    }

    /// Renders the type at container depth `depth` (0 for the root value).
    fn render_ty(&self, ty: u32, depth: usize, b: &mut Budget<'_>) -> Result<SkeletonNode, TooBig> {
        let t = &self.tys[ty as usize];
        let containers = t.mask & (T_OBJECT | T_ARRAY);
        let structural = depth < b.p.depth
            && (containers == T_OBJECT || containers == T_ARRAY)
            && t.mask == containers;
        let node = if structural && containers == T_OBJECT {
            self.render_obj(t.obj, depth, b)?
        } else if structural {
            self.render_arr(t.arr, depth, b)?
        } else {
            b.text(self.type_string(ty))
        };
        b.check()?;
        Ok(node)
    }

    /// A type as a one-line string: `string|null`, `integer|object(3 keys)`, `array[2..5]`.
    fn type_string(&self, ty: u32) -> String {
        let t = &self.tys[ty as usize];
        let mut parts: Vec<String> = Vec::new();
        for name in kind_names(t.mask & !(T_OBJECT | T_ARRAY)) {
            if name == "string" && t.max_string > LONG_STRING {
                parts.push(format!("string({})", human_size(t.max_string)));
            } else {
                parts.push(name.to_string());
            }
        }
        if t.mask & T_OBJECT != 0 {
            let o = &self.objs[t.obj as usize];
            let unit = if o.max_keys == 1 && o.min_keys == 1 {
                "key"
            } else {
                "keys"
            };
            parts.push(format!("object({} {unit})", range(o.min_keys, o.max_keys)));
        }
        if t.mask & T_ARRAY != 0 {
            let a = &self.arrs[t.arr as usize];
            parts.push(format!("array[{}]", range(a.min_len, a.max_len)));
        }
        if parts.is_empty() {
            // Only possible for a type that saw no value, like a sampled-out element.
            parts.push("unknown".to_string());
        }
        parts.join("|")
    }

    fn render_obj(&self, o: u32, depth: usize, b: &mut Budget<'_>) -> Result<SkeletonNode, TooBig> {
        let obj = &self.objs[o as usize];
        if obj.map != NONE {
            let name = format!("map[{}]", range(obj.min_keys, obj.max_keys));
            return b.single(name, |b| self.render_ty(obj.map, depth + 1, b));
        }
        b.add(1);
        let (keys, key_chars) = b.p.levels[depth];
        let shown = obj.fields.len().min(keys);
        let names = shown_names(obj, shown, key_chars);
        let mut members = Vec::with_capacity(shown + 1);
        for (i, (f, name)) in obj.fields.iter().zip(names).enumerate() {
            b.name(&name, i == 0);
            let value = self.render_ty(f.ty, depth + 1, b)?;
            members.push((name, value));
        }
        let more = (obj.fields.len() - shown) as u64 + obj.dropped;
        if more > 0 {
            let name = "…".to_string();
            b.name(&name, shown == 0);
            let value = b.text(format!("+{} more keys", group_digits(more)));
            members.push((name, value));
        }
        b.add(1);
        b.check()?;
        Ok(SkeletonNode::Object(members))
    }

    fn render_arr(&self, a: u32, depth: usize, b: &mut Budget<'_>) -> Result<SkeletonNode, TooBig> {
        let arr = &self.arrs[a as usize];
        let n = range(arr.min_len, arr.max_len);
        let elem = &self.tys[arr.elem as usize];
        if elem.mask == 0 {
            let node = b.text(format!("array[{n}]"));
            b.check()?;
            return Ok(node);
        }
        let c = elem.mask & (T_OBJECT | T_ARRAY);
        let structural_elem =
            depth + 1 < b.p.depth && (c == T_OBJECT || c == T_ARRAY) && elem.mask == c;
        if structural_elem {
            b.single(format!("array[{n}]"), |b| {
                self.render_ty(arr.elem, depth + 1, b)
            })
        } else {
            let node = b.text(format!("array[{n}] of {}", self.type_string(arr.elem)));
            b.check()?;
            Ok(node)
        }
    }
}

/// The names the first `shown` fields of `obj` are printed with: cut to `key_chars` characters
/// with `…` (a name over [`MAX_KEY_BYTES`] always ends in `…`), `?` for a key some objects lack.
/// Names stay distinct: a cut name that another shown name already has is lengthened a
/// character at a time until it differs (on the EC2 model, `AcceptTransitGat…` was printed
/// twice for two different keys).
fn shown_names(obj: &Obj, shown: usize, key_chars: usize) -> Vec<String> {
    let fields = &obj.fields[..shown];
    let finish = |mut name: String, marker: bool, optional: bool| {
        if marker {
            name.push('…');
        }
        if optional {
            name.push('?');
        }
        name
    };
    let full: Vec<String> = fields
        .iter()
        .map(|f| decode_string(&f.name).into_owned())
        .collect();
    let mut names = vec![String::new(); shown];
    let mut taken = std::collections::HashSet::new();
    // Names shown whole first, so a cut name never takes one of theirs.
    for (i, f) in fields.iter().enumerate() {
        if full[i].chars().count() <= key_chars {
            names[i] = finish(full[i].clone(), f.cut, f.present < obj.seen);
            taken.insert(names[i].clone());
        }
    }
    for (i, f) in fields.iter().enumerate() {
        let chars = full[i].chars().count();
        if chars <= key_chars {
            continue;
        }
        let optional = f.present < obj.seen;
        let mut keep = key_chars;
        let name = loop {
            if keep >= chars {
                // Whole: keys of one object differ, so this is distinct.
                break finish(full[i].clone(), f.cut, optional);
            }
            let cut = finish(full[i].chars().take(keep).collect(), true, optional);
            if !taken.contains(&cut) {
                break cut;
            }
            keep += 1;
        };
        taken.insert(name.clone());
        names[i] = name;
    }
    names
}

fn range(min: u64, max: u64) -> String {
    let min = min.min(max);
    if min == max {
        max.to_string()
    } else {
        format!("{min}..{max}")
    }
}

fn kind_names(mask: u8) -> Vec<&'static str> {
    [
        (T_STRING, "string"),
        (T_INTEGER, "integer"),
        (T_NUMBER, "number"),
        (T_BOOLEAN, "boolean"),
        (T_NULL, "null"),
        (T_OBJECT, "object"),
        (T_ARRAY, "array"),
    ]
    .iter()
    .filter(|(bit, _)| mask & bit != 0)
    .map(|&(_, name)| name)
    .collect()
}

// ---------------------------------------------------------------------------------------------
// `--paths`: one line per distinct path.

/// Distinct paths tracked by [`shape_paths`]; further ones are counted in `omitted`.
pub const MAX_PATHS: usize = 10_000;
/// Total bytes of path text listed by [`shape_paths`].
pub const MAX_PATH_TEXT: usize = 1 << 20;
/// Characters of a key shown in a `--paths` line.
const PATH_KEY_CHARS: usize = 64;

/// One line of `spill shape --paths`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathStat {
    /// `$.items[*].tags[*]`: dot notation where names allow, `[*]` for any array element and for
    /// id-like keys of a map (NDJSON records are `$[*]`).
    pub path: String,
    /// The types seen there, `|`-joined (`string|null`).
    pub types: String,
    /// How many values were seen at this path.
    pub count: u64,
}

impl std::fmt::Display for PathStat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}  {}  {}", self.path, self.types, self.count)
    }
}

/// The distinct paths of a JSON or NDJSON input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathList {
    /// In order of first appearance.
    pub paths: Vec<PathStat>,
    /// Values whose path was not tracked (past [`MAX_PATHS`] or deeper than [`MAX_DEPTH`]) plus
    /// tracked paths not listed (past [`MAX_PATH_TEXT`]); 0 when the listing is complete.
    pub omitted: u64,
}

/// Lists every distinct path with its types and number of occurrences, in one streaming pass.
/// Errors on input that is not JSON or NDJSON.
pub fn shape_paths(doc: &[u8]) -> Result<PathList, super::SyntaxError> {
    shape_paths_skipping(doc, false).map(|(list, _)| list)
}

/// [`shape_paths`], with the NDJSON lines that are not exactly one JSON value skipped when
/// `skip_invalid` is set; also returns how many were.
pub fn shape_paths_skipping(
    doc: &[u8],
    skip_invalid: bool,
) -> Result<(PathList, u64), super::SyntaxError> {
    let mut v = PathCollector {
        nodes: vec![PathNode {
            parent: NONE,
            key: None,
            mask: 0,
            count: 0,
            children: Vec::new(),
            elem: NONE,
        }],
        index: HashMap::new(),
        stack: Vec::new(),
        pending: None,
        ignore: 0,
        omitted_paths: 0,
    };
    let rec = walk_records(doc, &mut v, skip_invalid)?;
    if rec.count > 1 && !rec.any_container {
        return Err(super::SyntaxError::new(
            doc,
            doc.len(),
            "not JSON: lines of scalars are text",
        ));
    }
    let ndjson = rec.count > 1;
    let mut texts: Vec<String> = Vec::with_capacity(v.nodes.len());
    let mut out = PathList {
        paths: Vec::new(),
        omitted: v.omitted_paths,
    };
    let mut total = 0usize;
    for (i, n) in v.nodes.iter().enumerate() {
        let path = if n.parent == NONE {
            if ndjson {
                "$[*]".to_string()
            } else {
                "$".to_string()
            }
        } else {
            let mut p = texts[n.parent as usize].clone();
            match &n.key {
                None => p.push_str("[*]"),
                Some(k) => {
                    let mut name = decode_string(k).into_owned();
                    if name.chars().count() > PATH_KEY_CHARS {
                        name = name.chars().take(PATH_KEY_CHARS).collect::<String>() + "…";
                    }
                    super::path::push_member(&mut p, &name);
                }
            }
            p
        };
        texts.push(path.clone());
        debug_assert_eq!(texts.len(), i + 1);
        total += path.len();
        if total > MAX_PATH_TEXT {
            out.omitted += 1;
            continue;
        }
        out.paths.push(PathStat {
            path,
            types: kind_names(n.mask).join("|"),
            count: n.count,
        });
    }
    Ok((out, rec.skipped))
}

struct PathNode {
    parent: u32,
    /// `None` for `[*]`.
    key: Option<Box<[u8]>>,
    mask: u8,
    count: u64,
    /// Child nodes in order of first appearance.
    children: Vec<u32>,
    /// The `[*]` child, if any (array elements look it up on every element).
    elem: u32,
}

struct PathCollector {
    nodes: Vec<PathNode>,
    /// (parent, hash of the step) to node: finds a child without allocating a key. A hash
    /// collision falls back to scanning the parent's children.
    index: HashMap<(u32, u64), u32>,
    /// Open containers: node and the child position expected next (records repeat key order).
    stack: Vec<(u32, usize)>,
    pending: Option<u32>,
    ignore: u64,
    omitted_paths: u64,
}

fn step_hash(key: Option<&[u8]>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

impl PathCollector {
    fn child(&mut self, key: Option<&[u8]>) -> Option<u32> {
        let key = key.map(|k| cut_key(k).0);
        let &(parent, hint) = self.stack.last()?;
        let p = &self.nodes[parent as usize];
        if key.is_none() && p.elem != NONE {
            return Some(p.elem);
        }
        let same = |id: u32| self.nodes[id as usize].key.as_deref() == key;
        let found = match p.children.get(hint) {
            Some(&id) if same(id) => Some((id, hint)),
            _ => {
                let h = step_hash(key);
                match self.index.get(&(parent, h)) {
                    Some(&id) if same(id) => {
                        p.children.iter().position(|&c| c == id).map(|i| (id, i))
                    }
                    Some(_) => p
                        .children
                        .iter()
                        .enumerate()
                        .find(|(_, c)| same(**c))
                        .map(|(i, &c)| (c, i)),
                    None => None,
                }
            }
        };
        if let Some((id, pos)) = found {
            self.stack.last_mut().expect("checked").1 = pos + 1;
            return Some(id);
        }
        if self.nodes.len() >= MAX_PATHS || self.stack.len() >= MAX_DEPTH {
            self.omitted_paths += 1;
            return None;
        }
        self.nodes.push(PathNode {
            parent,
            key: key.map(Into::into),
            mask: 0,
            count: 0,
            children: Vec::new(),
            elem: NONE,
        });
        let id = (self.nodes.len() - 1) as u32;
        self.index.entry((parent, step_hash(key))).or_insert(id);
        let p = &mut self.nodes[parent as usize];
        if key.is_none() {
            p.elem = id;
        }
        p.children.push(id);
        let pos = p.children.len();
        self.stack.last_mut().expect("checked").1 = pos;
        Some(id)
    }

    fn see(&mut self, bit: u8) -> Option<u32> {
        let id = self.pending.take()?;
        let n = &mut self.nodes[id as usize];
        n.mask |= bit;
        n.count += 1;
        Some(id)
    }
}

impl Visitor for PathCollector {
    fn record(&mut self, _: u64, _: usize) -> Flow {
        self.pending = Some(0);
        Flow::Continue
    }
    fn begin(&mut self, kind: Container, _: usize) -> Flow {
        if self.ignore > 0 {
            self.ignore += 1;
            return Flow::Continue;
        }
        match self.see(container_bit(kind)) {
            Some(id) => self.stack.push((id, 0)),
            None => self.ignore = 1,
        }
        Flow::Continue
    }
    fn end(&mut self, _: Container, _: usize, _: u64) -> Flow {
        if self.ignore > 0 {
            self.ignore -= 1;
        } else {
            self.stack.pop();
        }
        Flow::Continue
    }
    fn key(&mut self, raw: &[u8], _: usize) -> Flow {
        if self.ignore == 0 {
            // Id-like keys (numbers, UUIDs, long hex, dates) are a map's entries: list them as
            // one `[*]` path (a valid wildcard) instead of one path per id.
            let step = if is_id_like(raw) { None } else { Some(raw) };
            self.pending = self.child(step);
        }
        Flow::Continue
    }
    fn index(&mut self, _: u64) -> Flow {
        if self.ignore == 0 {
            self.pending = self.child(None);
        }
        Flow::Continue
    }
    fn scalar(&mut self, kind: Scalar, _: &[u8], _: usize) -> Flow {
        if self.ignore == 0 {
            let _ = self.see(scalar_bit(kind));
        }
        Flow::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sk(doc: &str) -> String {
        shape(doc.as_bytes(), &ShapeOptions::default()).to_json()
    }

    #[test]
    fn decoded_lengths_match_decoding() {
        for raw in [
            &br"plain"[..],
            "café".as_bytes(),
            br#"caf\u00e9 \u20ac \ud83d\ude00 \n\t\\\/\""#,
            br"\ud800 lone \udc00 low \ud800\u0041 \u0000",
            br"\\u00e9",
            br"",
        ] {
            assert_eq!(
                decoded_len(raw),
                decode_string(raw).len() as u64,
                "{:?}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn decoded_lengths_match_decoding_on_any_escapes(
            parts in proptest::collection::vec(proptest::prop_oneof![
                proptest::strategy::Just(r"\u00e9".to_string()),
                proptest::strategy::Just(r"\ud83d".to_string()),
                proptest::strategy::Just(r"\ude00".to_string()),
                proptest::strategy::Just(r"\n".to_string()),
                proptest::strategy::Just(r"\\".to_string()),
                "[a-zé€😀]{0,4}",
                "\\\\u[0-9a-fA-F]{4}",
            ], 0..20)
        ) {
            let raw = parts.concat();
            proptest::prop_assert_eq!(decoded_len(raw.as_bytes()), decode_string(raw.as_bytes()).len() as u64);
        }
    }

    fn sk_with(doc: &str, max_depth: usize, max_bytes: usize) -> String {
        shape(
            doc.as_bytes(),
            &ShapeOptions {
                max_depth,
                max_bytes,
                sample: None,
            },
        )
        .to_json()
    }

    #[test]
    fn scalars_become_type_names() {
        assert_eq!(
            sk(r#"{"s":"x","i":-12,"n":1.5e3,"b":true,"z":null,"big":12345678901234567890123}"#),
            r#"{"s":"string","i":"integer","n":"number","b":"boolean","z":"null","big":"integer"}"#
        );
        assert_eq!(sk("42"), r#""integer""#);
    }

    #[test]
    fn long_strings_show_the_largest_size() {
        let doc = format!(
            r#"[{{"t":"{}"}},{{"t":"{}"}}]"#,
            "a".repeat(200),
            "b".repeat(2500)
        );
        assert_eq!(sk(&doc), r#"{"array[2]":{"t":"string(2.4 KiB)"}}"#);
        let short = format!(r#"{{"t":"{}"}}"#, "a".repeat(128));
        assert_eq!(sk(&short), r#"{"t":"string"}"#);
    }

    #[test]
    fn optional_keys_and_unions_over_all_elements() {
        let doc = r#"[{"id":1,"email":"a"},{"id":2},{"id":3,"email":null},{"id":"x","extra":[1]}]"#;
        assert_eq!(
            sk(doc),
            r#"{"array[4]":{"id":"string|integer","email?":"string|null","extra?":"array[1] of integer"}}"#
        );
        assert_eq!(
            sk(r#"[1,{"a":1,"b":2,"c":3}]"#),
            r#""array[2] of integer|object(3 keys)""#
        );
    }

    #[test]
    fn key_order_is_document_order_and_a_repeated_key_keeps_its_first_value() {
        // The first member is the member, as `extract '$.z'` reads it (README, Exactness).
        assert_eq!(
            sk(r#"{"z":1,"a":2,"z":"s"}"#),
            r#"{"z":"integer","a":"integer"}"#
        );
        // Also when the key is the one records usually have next (the guessed key), and for a
        // container value.
        assert_eq!(
            sk(r#"[{"z":1,"a":2},{"z":3,"z":{"x":1},"a":[1]}]"#),
            r#"{"array[2]":{"z":"integer","a":"integer|array[1]"}}"#
        );
    }

    #[test]
    fn arrays_scalar_and_container_forms_and_ranges() {
        assert_eq!(
            sk(r#"{"tags":["a","b"],"e":[]}"#),
            r#"{"tags":"array[2] of string","e":"array[0]"}"#
        );
        assert_eq!(
            sk(r#"[[1,2],[3],[4,5,6]]"#),
            r#"{"array[3]":"array[1..3] of integer"}"#
        );
        assert_eq!(
            sk(r#"[[[1]],[[2,3],[]]]"#),
            r#"{"array[2]":{"array[1..2]":"array[0..2] of integer"}}"#
        );
    }

    #[test]
    fn id_keyed_maps_collapse() {
        assert_eq!(
            sk(r#"{"1":{"a":1},"2":{"a":2,"b":3}}"#),
            r#"{"map[2]":{"a":"integer","b?":"integer"}}"#
        );
        assert_eq!(
            sk(
                r#"{"u":{"550e8400-e29b-41d4-a716-446655440000":1,"6ba7b810-9dad-11d1-80b4-00c04fd430c8":2}}"#
            ),
            r#"{"u":{"map[2]":"integer"}}"#
        );
        assert_eq!(
            sk(r#"{"2024-01-01":"x","2024-01-02T10:00":"y"}"#),
            r#"{"map[2]":"string"}"#
        );
        assert_eq!(sk(r#"{"deadbeef01":1}"#), r#"{"map[1]":"integer"}"#);
        let many: Vec<String> = (0..40).map(|i| format!(r#""k{i}":{{"v":{i}}}"#)).collect();
        assert_eq!(
            sk(&format!("{{{}}}", many.join(","))),
            r#"{"map[40]":{"v":"integer"}}"#
        );
        let few: Vec<String> = (0..10).map(|i| format!(r#""k{i}":{i}"#)).collect();
        assert!(sk(&format!("{{{}}}", few.join(","))).starts_with(r#"{"k0":"integer","k1""#));
    }

    #[test]
    fn depth_limit_counts_deeper_containers() {
        let doc = r#"{"a":{"b":{"c":{"d":{"e":1,"f":2},"g":[1,2,3]}}}}"#;
        assert_eq!(
            sk(doc),
            r#"{"a":{"b":{"c":{"d":"object(2 keys)","g":"array[3]"}}}}"#
        );
        assert_eq!(sk_with(doc, 1, 1024), r#"{"a":"object(1 key)"}"#);
        assert_eq!(sk_with(doc, 0, 1024), r#""object(1 key)""#);
        assert_eq!(
            sk_with(r#"[{"a":1},{"a":1,"b":2}]"#, 1, 1024),
            r#""array[2] of object(1..2 keys)""#
        );
    }

    #[test]
    fn ndjson_text_and_binary() {
        assert_eq!(
            sk("{\"a\":1}\n{\"a\":2,\"b\":null}\n"),
            r#"{"ndjson[2]":{"a":"integer","b?":"null"}}"#
        );
        assert_eq!(
            sk("hello\n\nworld\r\n"),
            r#"{"text":{"lines":3,"bytes":14,"longestLine":5,"blankLines":1}}"#
        );
        assert_eq!(
            sk("1\n2\n"),
            r#"{"text":{"lines":2,"bytes":4,"longestLine":1,"blankLines":0}}"#
        );
        assert_eq!(
            sk("{\"a\": [1,\n 2,,]}"),
            r#"{"text":{"lines":2,"bytes":16,"longestLine":9,"blankLines":0},"invalidJsonAt":13}"#
        );
        assert_eq!(
            shape(b"\x00\x01binary", &ShapeOptions::default()).to_json(),
            r#"{"binary":{"bytes":8}}"#
        );
        assert_eq!(
            shape(b"\x00\x01binary", &ShapeOptions::default()).kind,
            InputKind::Binary
        );
    }

    #[test]
    fn the_cap_holds_for_wide_objects_long_keys_and_nested_arrays() {
        let huge: Vec<String> = (0..5000).map(|i| format!(r#""{i}":{i}"#)).collect();
        assert_eq!(
            sk(&format!("{{{}}}", huge.join(","))),
            r#"{"map[5000]":"integer"}"#
        );
        let wide: Vec<String> = (0..5000)
            .map(|i| {
                format!(
                    r#""key_{i}_{}":{}"#,
                    "x".repeat(i % 50),
                    if i % 2 == 0 { "1" } else { "\"s\"" }
                )
            })
            .collect();
        let doc = format!("{{{}}}", wide.join(","));
        let out = sk(&doc);
        assert!(out.len() <= 1024, "{}", out.len());
        serde_json::from_str::<serde_json::Value>(&out).unwrap();
        assert!(out.contains("more keys"), "{out}");
        let long_key = format!(r#"{{"{}":{{"{}":1}}}}"#, "k".repeat(5000), "j".repeat(3000));
        let out = sk(&long_key);
        assert!(out.len() <= 1024 && out.contains('…'), "{out}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap();
        let nested = "[".repeat(50) + &"]".repeat(50);
        let out = sk_with(&nested, 64, 256);
        assert!(out.len() <= 256);
        serde_json::from_str::<serde_json::Value>(&out).unwrap();
    }

    #[test]
    fn deep_input_is_fine() {
        let n = 1_000_000;
        let doc = "[".repeat(n) + &"]".repeat(n);
        assert_eq!(
            sk_with(&doc, 2, 1024),
            r#"{"array[1]":"array[1] of array[1]"}"#
        );
        let p = shape_paths(doc.as_bytes()).unwrap();
        assert_eq!(p.paths.len(), MAX_DEPTH);
        assert!(p.omitted > 0);
    }

    #[test]
    fn sampling_keeps_counts_exact() {
        let doc = r#"[{"a":1},{"a":1},{"b":"x"}]"#;
        let s = shape(
            doc.as_bytes(),
            &ShapeOptions {
                sample: Some(2),
                ..ShapeOptions::default()
            },
        );
        assert_eq!(s.to_json(), r#"{"array[3]":{"a":"integer"}}"#);
    }

    #[test]
    fn paths_lists_each_distinct_path() {
        let doc = r#"{"items":[{"id":1,"tags":["a","b"]},{"id":null,"tags":[]}],"a b":true}"#;
        let p = shape_paths(doc.as_bytes()).unwrap();
        let lines: Vec<String> = p.paths.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "$  object  1",
                "$.items  array  1",
                "$.items[*]  object  2",
                "$.items[*].id  integer|null  2",
                "$.items[*].tags  array  2",
                "$.items[*].tags[*]  string  2",
                "$['a b']  boolean  1"
            ]
        );
        let nd = shape_paths(b"{\"a\":1}\n{\"a\":\"x\"}\n").unwrap();
        assert_eq!(nd.paths[1].to_string(), "$[*].a  string|integer  2");
        assert!(shape_paths(b"not json").is_err());
    }
}
