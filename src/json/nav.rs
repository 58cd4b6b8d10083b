//! Lazy navigation over raw JSON: the primitives the JSONPath evaluator is built on.
//!
//! A [`Value`] is a document and the offset of a value's first byte. Iterating its members or
//! elements reads only as far as the caller iterates (each skipped sibling costs one
//! [`skip_value`] at SIMD speed), so `$.items[5]` on a 1 GB file touches only a prefix. Every
//! token the iteration reads is checked strictly — keys, colons, separators, and the scalars it
//! passes over — so a value always ends where the strict parser says; only the grammar inside a
//! skipped container is not checked (see the module docs of [`crate::json`]).

use std::borrow::Cow;

use super::SyntaxError;
use super::parse::bom_len;
use super::parse::{scalar_end, string_end};
use super::scan::{skip_value, skip_ws};

/// What a value is, judged from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `{…}`
    Object,
    /// `[…]`
    Array,
    /// `"…"`
    String,
    /// A number with no fraction or exponent.
    Integer,
    /// Any other number.
    Number,
    /// `true` / `false`
    Boolean,
    /// `null`
    Null,
}

/// A JSON value inside a document: cheap to copy, reads nothing until asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Value<'a> {
    doc: &'a [u8],
    at: usize,
}

/// The root value of `doc`: after an optional UTF-8 BOM and whitespace.
pub fn root(doc: &[u8]) -> Result<Value<'_>, SyntaxError> {
    let at = skip_ws(doc, bom_len(doc));
    if at == doc.len() {
        return Err(SyntaxError::new(
            doc,
            at,
            "empty input: expected a JSON value",
        ));
    }
    Ok(Value { doc, at })
}

impl<'a> Value<'a> {
    /// The value whose first byte is `doc[at]` (no leading whitespace).
    pub fn new(doc: &'a [u8], at: usize) -> Value<'a> {
        Value { doc, at }
    }

    /// The whole document this value lives in.
    pub fn doc(&self) -> &'a [u8] {
        self.doc
    }

    /// The offset of the value's first byte.
    pub fn offset(&self) -> usize {
        self.at
    }

    /// The value's kind, from its first byte (and, for numbers, its raw text).
    pub fn kind(&self) -> Result<Kind, SyntaxError> {
        match self.doc.get(self.at) {
            Some(b'{') => Ok(Kind::Object),
            Some(b'[') => Ok(Kind::Array),
            Some(b'"') => Ok(Kind::String),
            Some(b't' | b'f') => Ok(Kind::Boolean),
            Some(b'n') => Ok(Kind::Null),
            Some(b'-' | b'0'..=b'9') => {
                let raw = self.raw()?;
                if raw.iter().any(|b| matches!(b, b'.' | b'e' | b'E')) {
                    Ok(Kind::Number)
                } else {
                    Ok(Kind::Integer)
                }
            }
            _ => Err(SyntaxError::new(self.doc, self.at, "expected a JSON value")),
        }
    }

    /// The offset just past the value (a fast skip; see [`skip_value`]).
    pub fn end(&self) -> Result<usize, SyntaxError> {
        skip_value(self.doc, self.at)
    }

    /// The number of members of an object or elements of an array, counted at skipping speed
    /// (a SIMD scan for top-level commas: no element is parsed). For `$[-1]` and for "out of
    /// range (length 1250)" messages. An error for scalars.
    pub fn count(&self) -> Result<u64, SyntaxError> {
        super::scan::count_container(self.doc, self.at).map(|(_, n)| n)
    }

    /// The value's bytes exactly as written.
    pub fn raw(&self) -> Result<&'a [u8], SyntaxError> {
        Ok(&self.doc[self.at..self.end()?])
    }

    /// A number's text exactly as written (`1e400` stays `1e400`); an error for other kinds.
    pub fn number_text(&self) -> Result<&'a [u8], SyntaxError> {
        match self.doc.get(self.at) {
            Some(b'-' | b'0'..=b'9') => self.raw(),
            _ => Err(SyntaxError::new(self.doc, self.at, "expected a number")),
        }
    }

    /// A string's decoded text (escapes resolved, lone surrogates and invalid UTF-8 as U+FFFD).
    pub fn decode_string(&self) -> Result<Cow<'a, str>, SyntaxError> {
        if self.doc.get(self.at) != Some(&b'"') {
            return Err(SyntaxError::new(self.doc, self.at, "expected a string"));
        }
        let end = scalar_end(self.doc, self.at)?;
        Ok(decode_string(&self.doc[self.at + 1..end - 1]))
    }

    /// The members of an object, in document order, duplicates included. Stops reading when the
    /// iterator is dropped. On a non-object the first item is an error.
    pub fn members(&self) -> Members<'a> {
        let (pos, state) = self.open(b'{');
        Members {
            doc: self.doc,
            pos,
            pending: None,
            state,
        }
    }

    /// The elements of an array, in order. Stops reading when the iterator is dropped. On a
    /// non-array the first item is an error.
    pub fn elements(&self) -> Elements<'a> {
        let (pos, state) = self.open(b'[');
        Elements {
            doc: self.doc,
            pos,
            pending: None,
            state,
            index: 0,
        }
    }

    fn open(&self, bracket: u8) -> (usize, IterState) {
        if self.doc.get(self.at) == Some(&bracket) {
            (self.at + 1, IterState::First)
        } else {
            (self.at, IterState::WrongKind)
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IterState {
    WrongKind,
    First,
    Rest,
    Done,
}

/// One object member: the key as written and the value.
#[derive(Debug, Clone, Copy)]
pub struct Member<'a> {
    /// The key's bytes between the quotes, escapes intact.
    pub key_raw: &'a [u8],
    /// The offset of the key's opening quote.
    pub key_at: usize,
    /// The member's value.
    pub value: Value<'a>,
}

impl<'a> Member<'a> {
    /// The decoded key.
    pub fn key(&self) -> Cow<'a, str> {
        decode_string(self.key_raw)
    }

    /// Whether the decoded key equals `name` (no allocation when the key has no escapes).
    pub fn key_is(&self, name: &str) -> bool {
        if self.key_raw.contains(&b'\\') {
            self.key() == name
        } else {
            self.key_raw == name.as_bytes()
        }
    }
}

/// Iterator over an object's members; see [`Value::members`].
#[derive(Debug, Clone)]
pub struct Members<'a> {
    doc: &'a [u8],
    pos: usize,
    /// The start of the last value handed out, skipped on the next call unless resumed.
    pending: Option<usize>,
    state: IterState,
}

/// Iterator over an array's elements; see [`Value::elements`].
#[derive(Debug, Clone)]
pub struct Elements<'a> {
    doc: &'a [u8],
    pos: usize,
    pending: Option<usize>,
    state: IterState,
    index: u64,
}

/// Moves past the value handed out last (unless the caller already said where it ends), then
/// past the separator; returns `Ok(false)` at the closing bracket.
fn advance(
    doc: &[u8],
    pos: &mut usize,
    pending: &mut Option<usize>,
    state: &mut IterState,
    close: u8,
) -> Result<bool, SyntaxError> {
    if let Some(v) = pending.take() {
        *pos = skip_value(doc, v)?;
    }
    *pos = skip_ws(doc, *pos);
    match *state {
        IterState::WrongKind => {
            let what = if close == b'}' {
                "expected an object"
            } else {
                "expected an array"
            };
            return Err(SyntaxError::new(doc, *pos, what));
        }
        IterState::Done => return Ok(false),
        IterState::First => {
            if doc.get(*pos) == Some(&close) {
                return Ok(false);
            }
        }
        IterState::Rest => match doc.get(*pos) {
            Some(&b) if b == close => return Ok(false),
            Some(b',') => *pos = skip_ws(doc, *pos + 1),
            Some(_) => {
                // The strict parser's words, so both report one error the same way.
                let what = if close == b'}' {
                    "expected ',' or '}' after an object member"
                } else {
                    "expected ',' or ']' after an array element"
                };
                return Err(SyntaxError::new(doc, *pos, what));
            }
            None => {
                return Err(SyntaxError::new(
                    doc,
                    *pos,
                    "unexpected end of input: unclosed container",
                ));
            }
        },
    }
    *state = IterState::Rest;
    if *pos >= doc.len() {
        return Err(SyntaxError::new(
            doc,
            *pos,
            "unexpected end of input: expected a JSON value",
        ));
    }
    Ok(true)
}

impl<'a> Members<'a> {
    /// Tells the iterator that the member value it handed out last ends at `end` (because the
    /// caller walked it), so the next call does not skip it again.
    pub fn resume_at(&mut self, end: usize) {
        if self.pending.take().is_some() {
            self.pos = end;
        }
    }

    /// Once the iterator has returned `None` at the closing brace: the offset just past it
    /// (so a caller that walked this object can resume its parent there).
    pub fn end(&self) -> Option<usize> {
        (self.state == IterState::Done && self.doc.get(self.pos) == Some(&b'}'))
            .then_some(self.pos + 1)
    }

    fn step(&mut self) -> Result<Option<Member<'a>>, SyntaxError> {
        if !advance(
            self.doc,
            &mut self.pos,
            &mut self.pending,
            &mut self.state,
            b'}',
        )? {
            self.state = IterState::Done;
            return Ok(None);
        }
        let doc = self.doc;
        let key_at = self.pos;
        if doc[key_at] != b'"' {
            return Err(SyntaxError::new(doc, key_at, "expected a string key"));
        }
        let key_end = string_end(doc, key_at)? - 1;
        let colon = skip_ws(doc, key_end + 1);
        if doc.get(colon) != Some(&b':') {
            return Err(SyntaxError::new(
                doc,
                colon,
                "expected ':' after an object key",
            ));
        }
        let at = skip_ws(doc, colon + 1);
        self.pending = Some(at);
        Ok(Some(Member {
            key_raw: &doc[key_at + 1..key_end],
            key_at,
            value: Value { doc, at },
        }))
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = Result<Member<'a>, SyntaxError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.state == IterState::Done {
            return None;
        }
        let r = self.step();
        if !matches!(r, Ok(Some(_))) {
            self.state = IterState::Done;
        }
        r.transpose()
    }
}

impl<'a> Elements<'a> {
    /// Like [`Members::resume_at`]: the element handed out last ends at `end`.
    pub fn resume_at(&mut self, end: usize) {
        if self.pending.take().is_some() {
            self.pos = end;
        }
    }

    /// Like [`Members::end`]: the offset just past the closing bracket, once exhausted.
    pub fn end(&self) -> Option<usize> {
        (self.state == IterState::Done && self.doc.get(self.pos) == Some(&b']'))
            .then_some(self.pos + 1)
    }

    fn step(&mut self) -> Result<Option<(u64, Value<'a>)>, SyntaxError> {
        if !advance(
            self.doc,
            &mut self.pos,
            &mut self.pending,
            &mut self.state,
            b']',
        )? {
            return Ok(None);
        }
        self.pending = Some(self.pos);
        let i = self.index;
        self.index += 1;
        Ok(Some((
            i,
            Value {
                doc: self.doc,
                at: self.pos,
            },
        )))
    }
}

impl<'a> Iterator for Elements<'a> {
    /// The element's index and value.
    type Item = Result<(u64, Value<'a>), SyntaxError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.state == IterState::Done {
            return None;
        }
        let r = self.step();
        if !matches!(r, Ok(Some(_))) {
            self.state = IterState::Done;
        }
        r.transpose()
    }
}

/// Decodes the contents of a JSON string (the bytes between the quotes): escapes resolved,
/// surrogate pairs joined, lone surrogates and invalid UTF-8 replaced by U+FFFD. Borrows when
/// there is nothing to decode.
pub fn decode_string(raw: &[u8]) -> Cow<'_, str> {
    if !raw.contains(&b'\\') {
        return String::from_utf8_lossy(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    let hex4 = |i: usize| -> Option<u32> {
        let h = raw.get(i..i + 4)?;
        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    };
    while i < raw.len() {
        let Some(off) = memchr::memchr(b'\\', &raw[i..]) else {
            out.push_str(&String::from_utf8_lossy(&raw[i..]));
            break;
        };
        out.push_str(&String::from_utf8_lossy(&raw[i..i + off]));
        i += off;
        let c = raw.get(i + 1).copied();
        i += 2;
        match c {
            Some(b'n') => out.push('\n'),
            Some(b't') => out.push('\t'),
            Some(b'r') => out.push('\r'),
            Some(b'b') => out.push('\u{8}'),
            Some(b'f') => out.push('\u{c}'),
            Some(b'u') => {
                let Some(u) = hex4(i) else {
                    out.push('\u{fffd}');
                    continue;
                };
                i += 4;
                let ch = if (0xD800..0xDC00).contains(&u) && raw.get(i..i + 2) == Some(b"\\u") {
                    match hex4(i + 2) {
                        Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                            i += 6;
                            char::from_u32(0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00))
                        }
                        _ => None,
                    }
                } else {
                    char::from_u32(u)
                };
                out.push(ch.unwrap_or('\u{fffd}'));
            }
            Some(other) => out.push(char::from(other)),
            None => out.push('\u{fffd}'),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &[u8] = br#" {"items": [ {"id": 1, "tags": ["a", "b"]}, {"id": 2e3}, "x\"y", 12345678901234567890123 ], "a\u0020b": null, "items": true} "#;

    #[test]
    fn members_and_elements_in_order_with_duplicates() {
        let r = root(DOC).unwrap();
        assert_eq!(r.kind().unwrap(), Kind::Object);
        let keys: Vec<String> = r.members().map(|m| m.unwrap().key().into_owned()).collect();
        assert_eq!(keys, ["items", "a b", "items"]);
        let items = r.members().next().unwrap().unwrap().value;
        let kinds: Vec<Kind> = items
            .elements()
            .map(|e| e.unwrap().1.kind().unwrap())
            .collect();
        assert_eq!(
            kinds,
            [Kind::Object, Kind::Object, Kind::String, Kind::Integer]
        );
        let (i, last) = items.elements().last().unwrap().unwrap();
        assert_eq!(i, 3);
        assert_eq!(last.number_text().unwrap(), b"12345678901234567890123");
        let (_, s) = items.elements().nth(2).unwrap().unwrap();
        assert_eq!(s.decode_string().unwrap(), "x\"y");
        assert_eq!(s.raw().unwrap(), br#""x\"y""#);
        let (_, second) = items.elements().nth(1).unwrap().unwrap();
        let id = second.members().next().unwrap().unwrap();
        assert!(id.key_is("id"));
        assert_eq!(id.value.kind().unwrap(), Kind::Number);
        assert_eq!(id.value.raw().unwrap(), b"2e3");
    }

    #[test]
    fn early_stop_reads_only_a_prefix() {
        // Everything after the third element is garbage: never read.
        let doc = b"[1, [2], {\"a\": 3}, ]]]] not json at all";
        let third = root(doc).unwrap().elements().nth(2).unwrap().unwrap().1;
        assert_eq!(third.raw().unwrap(), b"{\"a\": 3}");
    }

    #[test]
    fn resume_at_avoids_a_second_skip() {
        let doc = b"[[1,2],3]";
        let mut it = root(doc).unwrap().elements();
        let (_, first) = it.next().unwrap().unwrap();
        let end = first.end().unwrap();
        it.resume_at(end);
        assert_eq!(it.next().unwrap().unwrap().1.raw().unwrap(), b"3");
        assert!(it.next().is_none());
    }

    #[test]
    fn errors_are_reported_not_panicked() {
        assert!(root(b"  ").is_err());
        assert!(root(b"[1,2").unwrap().elements().any(|e| e.is_err()));
        assert!(
            root(b"{\"a\" 1}")
                .unwrap()
                .members()
                .next()
                .unwrap()
                .is_err()
        );
        assert!(root(b"[1]").unwrap().members().next().unwrap().is_err());
        assert!(root(b"{}").unwrap().members().next().is_none());
        assert!(root(b"[ ]").unwrap().elements().next().is_none());
        assert!(root(b"[1,").unwrap().elements().nth(1).unwrap().is_err());
    }

    #[test]
    fn decoding_escapes_and_surrogates() {
        assert_eq!(decode_string(br"a\n\t\u00e9\/\\"), "a\n\t\u{e9}/\\");
        assert_eq!(decode_string(br"\ud83d\ude00"), "\u{1f600}");
        assert_eq!(decode_string(br"\ud800x"), "\u{fffd}x");
        assert_eq!(decode_string(br"\udc00"), "\u{fffd}");
        assert_eq!(decode_string(br"\u12"), "\u{fffd}12");
        assert_eq!(decode_string(b"plain"), "plain");
    }
}
