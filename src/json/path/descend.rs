//! The fast path of `$..name` (one descendant segment holding one member-name selector) on a
//! JSON document, or on each record of an NDJSON one: one strict pass over the bytes that validates everything and finds the
//! matching keys as it goes, instead of the generic walk through [`Doc`] (an iterator, a kind
//! dispatch, a path push and a member lookup per value, plus a skip of every object to look
//! its key up before walking it).
//!
//! The nodes come out in exactly the generic evaluator's order (RFC 9535 §2.5.2.2): an object's
//! own member `name` before anything below it, then its children's matches in document order.
//! A single forward pass meets the matches in document order instead; the two differ only when
//! a match inside an object `O` comes before `O`'s own `name` member. So at the first match
//! below an object whose own key is not known yet, the rest of that object is scanned at
//! skipping speed for its key ([`lookahead`]): found, it is handed out first; absent, the
//! object is marked so and never scanned again. Each object is looked ahead at most once, and
//! an object that holds its key before any deeper match (the usual layout) never is.
//!
//! The checks are those of the generic walk: every token strictly ([`scalar_end`],
//! [`string_end`], the separators and brackets, with the navigation's messages), the
//! descent-depth limit ([`Doc::check_descent`]). The work limit cannot be reached: this pass
//! takes one step per byte at most.
//!
//! NDJSON records are found by the evaluator's own record reader, so which lines are records,
//! the errors naming a line and `--skip-invalid` are those of the generic walk; each record is
//! then walked as a root of its own, below a frame standing for the array of records (the
//! records' indexes in the paths, and the depth counted from `$`). A record that the line
//! check passed is bracket-balanced on its line, so the strict walk never reads past it.

use std::borrow::Cow;
use std::ops::ControlFlow;

use super::engine::{JsonDoc, is_records};
use super::normalized::{NormPath, PathElem};
use super::{Doc, MAX_DESCENT};
use crate::json::parse::{scalar_end, string_end};
use crate::json::scan::{close_containers, skip_value, skip_ws_run};
use crate::json::{SyntaxError, Value, decode_string};

/// What is known of an object's own `name` member.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Own {
    /// Not met yet, and the rest of the object not looked at.
    Unknown,
    /// Handed out (met by the walk, or found ahead and handed out early): later members
    /// with the same key are not matches (the first one is the member).
    Handled,
    /// The object has no such member.
    Absent,
}

/// An open container.
struct Frame {
    object: bool,
    own: Own,
    /// The current member's key (the raw bytes between the quotes), for objects.
    key: (usize, usize),
    /// The current element's index, for arrays.
    index: usize,
}

enum State {
    /// At the first byte of a value (after whitespace).
    Value,
    /// At the key of a member (after `{` or `,` and whitespace).
    Member,
    /// Just past a value.
    After,
}

#[inline(always)]
pub(super) fn ws(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b' ' | b'\n' | b'\r' | b'\t') => skip_ws_run(b, i + 1),
        _ => i,
    }
}

/// That a member's key starts at `b[at]` (after `{` or `,`), with the evaluator's errors.
#[inline(always)]
pub(super) fn key_start(b: &[u8], at: usize) -> Result<(), SyntaxError> {
    match b.get(at) {
        Some(b'"') => Ok(()),
        Some(_) => Err(SyntaxError::new(b, at, "expected a string key")),
        None => Err(SyntaxError::new(
            b,
            at,
            "unexpected end of input: expected a JSON value",
        )),
    }
}

/// The member whose key's opening quote is `b[at]`: the offset just past the key (checked
/// strictly) and that of its value (after the colon and whitespace).
#[inline(always)]
pub(super) fn member(b: &[u8], at: usize) -> Result<(usize, usize), SyntaxError> {
    let key_end = string_end(b, at)?;
    let colon = ws(b, key_end);
    if b.get(colon) != Some(&b':') {
        return Err(SyntaxError::new(
            b,
            colon,
            "expected ':' after an object key",
        ));
    }
    Ok((key_end, ws(b, colon + 1)))
}

/// Whether a raw key (escapes intact) decodes to `name`. Decoding never lengthens a key, so a
/// shorter raw key is no match without looking at it.
#[inline(always)]
pub(super) fn key_eq(raw: &[u8], name: &[u8]) -> bool {
    if raw.len() < name.len() {
        return false;
    }
    if raw == name {
        return !raw.contains(&b'\\') || decode_string(raw).as_bytes() == name;
    }
    raw.contains(&b'\\') && decode_string(raw).as_bytes() == name
}

/// Evaluates `$..name` on `doc` from `root`, feeding `sink` as the generic evaluator would.
///
/// On NDJSON (`root` the virtual array of records) the records are read as the evaluator reads
/// them ([`JsonDoc::records`]: each line found and checked to hold exactly one value, blank
/// lines skipped, `--skip-invalid` honoured), and each record is walked in one strict pass
/// below a frame standing for the array of records, so its matches are found at `$[i]…`.
pub(crate) fn descend_name<'a, 'd: 'a>(
    doc: &'a JsonDoc<'d>,
    root: Value<'d>,
    name: &'a str,
    sink: &mut dyn FnMut(&NormPath<'a>, Value<'d>) -> ControlFlow<()>,
) -> Result<ControlFlow<()>, SyntaxError> {
    let mut frames: Vec<Frame> = Vec::new();
    if !is_records(root) {
        return walk(doc, &mut frames, root.offset(), name, sink);
    }
    // The records array: no member of its own, so never looked ahead in.
    frames.push(Frame {
        object: false,
        own: Own::Absent,
        key: (0, 0),
        index: 0,
    });
    for (index, record) in doc.records().enumerate() {
        frames[0].index = index;
        if walk(doc, &mut frames, record?.offset(), name, sink)?.is_break() {
            return Ok(ControlFlow::Break(()));
        }
    }
    Ok(ControlFlow::Continue(()))
}

/// Walks the value starting at `start` below the open `frames` (none for a JSON root, the
/// records array for an NDJSON record), handing out the matches; returns at the value's end.
fn walk<'a, 'd: 'a>(
    doc: &'a JsonDoc<'d>,
    frames: &mut Vec<Frame>,
    start: usize,
    name: &'a str,
    sink: &mut dyn FnMut(&NormPath<'a>, Value<'d>) -> ControlFlow<()>,
) -> Result<ControlFlow<()>, SyntaxError> {
    let b: &'d [u8] = doc.bytes();
    let nb = name.as_bytes();
    let base = frames.len();
    let mut pos = start;
    let mut state = State::Value;
    // A look ahead that failed: the document is invalid somewhere ahead. Nothing more is
    // handed out; the walk goes on to report the first error in document order.
    let mut ahead_error: Option<SyntaxError> = None;
    loop {
        match state {
            State::Value => match b.get(pos) {
                Some(&open @ (b'{' | b'[')) => {
                    if frames.len() > MAX_DESCENT {
                        doc.check_descent(Value::new(b, pos), frames.len())?;
                    }
                    let object = open == b'{';
                    frames.push(Frame {
                        object,
                        own: Own::Unknown,
                        key: (0, 0),
                        index: 0,
                    });
                    pos = ws(b, pos + 1);
                    let close = if object { b'}' } else { b']' };
                    if b.get(pos) == Some(&close) {
                        frames.pop();
                        pos += 1;
                        state = State::After;
                    } else if object {
                        state = State::Member;
                    }
                }
                _ => {
                    pos = scalar_end(b, pos)?;
                    state = State::After;
                }
            },
            State::Member => {
                key_start(b, pos)?;
                let (key_end, value) = member(b, pos)?;
                let raw = (pos + 1, key_end - 1);
                pos = value;
                let k = frames.len() - 1;
                frames[k].key = raw;
                if frames[k].own == Own::Unknown && key_eq(&b[raw.0..raw.1], nb) {
                    frames[k].own = Own::Handled;
                    if ahead_error.is_none() {
                        match matched(doc, frames, pos, name, sink, &mut ahead_error) {
                            ControlFlow::Continue(()) => {}
                            ControlFlow::Break(()) => return Ok(ControlFlow::Break(())),
                        }
                    }
                }
                state = State::Value;
            }
            State::After => {
                if frames.len() == base {
                    // The value ended: the caller checks what follows it.
                    return match ahead_error {
                        Some(e) => Err(e),
                        None => Ok(ControlFlow::Continue(())),
                    };
                }
                let f = frames.last_mut().expect("more frames than at the start");
                pos = ws(b, pos);
                let close = if f.object { b'}' } else { b']' };
                match b.get(pos) {
                    Some(b',') => {
                        pos = ws(b, pos + 1);
                        if f.object {
                            state = State::Member;
                        } else {
                            f.index += 1;
                            state = State::Value;
                        }
                    }
                    Some(&c) if c == close => {
                        frames.pop();
                        pos += 1;
                    }
                    Some(_) => {
                        let what = if f.object {
                            "expected ',' or '}' after an object member"
                        } else {
                            "expected ',' or ']' after an array element"
                        };
                        return Err(SyntaxError::new(b, pos, what));
                    }
                    None => {
                        return Err(SyntaxError::new(
                            b,
                            pos,
                            "unexpected end of input: unclosed container",
                        ));
                    }
                }
            }
        }
    }
}

/// The path of the current member of the innermost of `frames`, `name` being its key.
fn path_to<'a, 'd: 'a>(b: &'d [u8], frames: &[Frame], name: &'a str) -> NormPath<'a> {
    let mut path = NormPath::root();
    for f in &frames[..frames.len() - 1] {
        path.push(if f.object {
            PathElem::Name(decode_string(&b[f.key.0..f.key.1]))
        } else {
            PathElem::Index(f.index)
        });
    }
    path.push(PathElem::Name(Cow::Borrowed(name)));
    path
}

/// The innermost frame's own member `name`, whose value starts at `at`, was met: hands out
/// first the own members of the enclosing objects not known yet (found ahead), then it.
fn matched<'a, 'd: 'a>(
    doc: &'a JsonDoc<'d>,
    frames: &mut [Frame],
    at: usize,
    name: &'a str,
    sink: &mut dyn FnMut(&NormPath<'a>, Value<'d>) -> ControlFlow<()>,
    ahead_error: &mut Option<SyntaxError>,
) -> ControlFlow<()> {
    let b = doc.bytes();
    let k = frames.len() - 1;
    if let Some(u) = frames[..k]
        .iter()
        .position(|f| f.object && f.own == Own::Unknown)
    {
        let found = match lookahead(b, &frames[u..], at, name.as_bytes()) {
            Ok(found) => found,
            Err(e) => {
                *ahead_error = Some(e);
                return ControlFlow::Continue(());
            }
        };
        for (i, v) in found.into_iter().enumerate() {
            let f = u + i;
            if !frames[f].object || frames[f].own != Own::Unknown {
                continue;
            }
            match v {
                Some(v) => {
                    frames[f].own = Own::Handled;
                    sink(&path_to(b, &frames[..=f], name), Value::new(b, v))?;
                }
                None => frames[f].own = Own::Absent,
            }
        }
    }
    sink(&path_to(b, frames, name), Value::new(b, at))
}

/// For each of `frames` but the innermost (whose member value starts at `at`), outermost
/// first: where the value of its own member `name` starts, if one follows in its remaining
/// members (only objects whose own member is not known yet are asked). At skipping speed.
fn lookahead(
    b: &[u8],
    frames: &[Frame],
    at: usize,
    name: &[u8],
) -> Result<Vec<Option<usize>>, SyntaxError> {
    let unclosed = || SyntaxError::new(b, b.len(), "unexpected end of input: unclosed container");
    let n = frames.len() - 1;
    let mut found = vec![None; n];
    // The end of the innermost frame.
    let mut e = close_containers(b, skip_value(b, at)?, 1).ok_or_else(unclosed)?;
    for i in (0..n).rev() {
        let f = &frames[i];
        if !(f.object && f.own == Own::Unknown) {
            e = close_containers(b, e, 1).ok_or_else(unclosed)?;
            continue;
        }
        loop {
            let p = ws(b, e);
            match b.get(p) {
                Some(b'}') => {
                    e = p + 1;
                    break;
                }
                Some(b',') => {}
                Some(_) => {
                    return Err(SyntaxError::new(
                        b,
                        p,
                        "expected ',' or '}' after an object member",
                    ));
                }
                None => return Err(unclosed()),
            }
            let key = ws(b, p + 1);
            if b.get(key) != Some(&b'"') {
                return Err(SyntaxError::new(b, key, "expected a string key"));
            }
            let (key_end, v) = member(b, key)?;
            if found[i].is_none() && key_eq(&b[key + 1..key_end - 1], name) {
                found[i] = Some(v);
            }
            e = skip_value(b, v)?;
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;

    use super::super::{JsonDoc, NormPath, Query};

    type Nodes = Vec<(NormPath<'static>, usize)>;

    /// The nodes (path, offset) `$..name` selects on `text`, or that it fails (the end checked
    /// as `extract` checks it): through the fast path, and through the generic evaluator. Where
    /// an invalid document fails may differ: the generic walk skips an object to look its key
    /// up before it walks it, so it can meet an unclosed bracket before the descent limit.
    fn both(text: &[u8], name: &str) -> (Result<Nodes, ()>, Result<Nodes, ()>) {
        let q = Query::parse(&format!("$..{}", serde_json::to_string(name).unwrap()))
            .or_else(|_| Query::parse(&format!("$..[{}]", serde_json::to_string(name).unwrap())))
            .unwrap();
        let Ok((doc, root)) = JsonDoc::open(text, false) else {
            return (Err(()), Err(()));
        };
        let run = |fast: bool| {
            let mut nodes = Vec::new();
            let sink = |p: &NormPath<'_>, v: crate::json::Value<'_>| {
                nodes.push((p.clone().into_owned(), v.offset()));
                ControlFlow::Continue(())
            };
            let r = if fast {
                q.select_json(&doc, root, sink)
            } else {
                q.select(&doc, root, sink)
            };
            // As `extract` does: a query that reads to the end checks the end.
            r.and_then(|_| doc.check_end(root, None))
                .map(|_| nodes)
                .map_err(|_| ())
        };
        (run(true), run(false))
    }

    /// Nested and late own keys, duplicates, escaped keys, keys inside matches, invalid
    /// documents: the fast path hands out the generic evaluator's nodes in its order, and
    /// fails when it fails.
    #[test]
    fn the_fast_path_selects_what_the_evaluator_selects() {
        let docs: &[&str] = &[
            r#"{"a":{"id":1},"id":2}"#,
            r#"{"a":{"b":{"id":1},"id":2},"id":3}"#,
            r#"{"x":[{"id":1},{"y":{"id":2},"id":3}],"id":4,"id":5}"#,
            r#"{"id":{"id":{"id":1}}}"#,
            r#"[{"i\u0064":1},{"id":2,"a":{"\u0069d":3}}]"#,
            r#"{"a":[[[{"q":{"id":[1,{"id":2}]}}]]],"b":{"id":7},"z":{"c":{"id":8},"id":9}}"#,
            r#"{"a":{"b":{"c":{"id":1}},"d":{"id":2}},"e":[{"id":3}],"id":4}"#,
            r#"{"a":{"id":1},"b":{"c":[1,{"d":{"id":5}}],"id":6}}"#,
            r#" { "a" : { "id" : 1 } , "id" : 2 } "#,
            r#"{"a":{"id":1},"id":2-3}"#,
            r#"{"a":{"id":1,},"id":2}"#,
            r#"{"a":{"id":1} "id":2}"#,
            r#"{"a":{"id":1},"id":2"#,
            r#"{"a":{"id":1},"id":"#,
            r#"{"a":{"id":1},"b":[1 2],"id":3}"#,
            r#"{"a":{"id":1},"b":"x	y","id":3}"#,
            r#"{"a":{"id":1},"b":{"c":1,},"id":3}"#,
            "[]",
            "{}",
            r#""id""#,
            "[[{\"id\":0}],{\"\":1,\"id\":2}]",
        ];
        for doc in docs {
            for name in ["id", "a", "", "c", "i\\d"] {
                let (fast, slow) = both(doc.as_bytes(), name);
                assert_eq!(fast, slow, "$..{name} on {doc}");
            }
        }
    }

    /// The same over every file of the vendored JSONTestSuite, for each key it holds.
    #[test]
    fn the_fast_path_agrees_with_the_evaluator_on_the_json_test_suite() {
        let mut checked = 0;
        for (text, keys) in crate::json::path::tests::json_test_suite() {
            let mut names: Vec<String> = vec!["id".into(), "a".into(), String::new()];
            names.extend(keys);
            for name in &names {
                let (fast, slow) = both(&text, name);
                assert_eq!(
                    fast,
                    slow,
                    "$..{name:?} on {:?}",
                    String::from_utf8_lossy(&text)
                );
                checked += 1;
            }
        }
        assert!(checked > 300, "only {checked} queries checked");
    }

    /// The nodes `$..name` selects on the NDJSON `text` (read with `skip`) and the lines it
    /// skipped, or its error (offset and message), the end checked as `extract` checks it:
    /// through this walk called directly (so it fails where the walk does not handle
    /// records), and through the generic evaluator.
    fn both_ndjson(text: &[u8], name: &str, skip: bool) -> (NdjsonResult, NdjsonResult) {
        let q = Query::parse(&format!("$..[{}]", serde_json::to_string(name).unwrap())).unwrap();
        let (doc, root) = match JsonDoc::open(text, skip) {
            Ok(opened) => opened,
            Err(e) => {
                return (
                    Err((e.offset, e.message.clone())),
                    Err((e.offset, e.message)),
                );
            }
        };
        let run = |fast: bool| {
            let mut nodes = Vec::new();
            let mut sink = |p: &NormPath<'_>, v: crate::json::Value<'_>| {
                nodes.push((p.clone().into_owned(), v.offset()));
                ControlFlow::Continue(())
            };
            let r = if fast {
                super::descend_name(&doc, root, name, &mut sink)
            } else {
                q.select(&doc, root, sink)
            };
            r.and_then(|_| doc.check_end(root, None))
                .map(|skipped| (nodes, skipped))
                .map_err(|e| {
                    // The one difference in words: the walk reads a scalar with the parser's
                    // checks, which name NaN and Infinity; the evaluator judges a value's
                    // kind from its first byte first. Same byte, same exit.
                    let m = if fast && e.message == "NaN and Infinity are not JSON numbers" {
                        "expected a JSON value".to_string()
                    } else {
                        e.message
                    };
                    (e.offset, m)
                })
        };
        (run(true), run(false))
    }

    type NdjsonResult = Result<(Nodes, u64), (u64, String)>;

    /// Records that are objects, arrays and scalars, blank lines, CRLF, whitespace around
    /// records, nested and late ids, escaped keys, deep nesting, and lines that are not one
    /// value (text, two values, trailing garbage, a record spread over lines, invalid
    /// tokens inside a record): the walk hands out the evaluator's nodes in its order, with
    /// the same error, with and without `--skip-invalid`.
    #[test]
    fn the_fast_path_selects_what_the_evaluator_selects_on_ndjson() {
        let deep = |n: usize| format!("{}{{\"id\":1}}{}", "[".repeat(n), "]".repeat(n));
        let owned: Vec<String> = vec![
            format!("{{\"id\":0}}\n{}\n{{\"id\":2}}\n", deep(997)),
            format!("{{\"id\":0}}\n{}\n{{\"id\":2}}\n", deep(998)),
            format!("{{\"id\":0}}\n{}\n{{\"id\":2}}\n", deep(1200)),
            format!("{{\"a\":\"{}\",\"id\":1}}\n{{\"id\":2}}\n", "é".repeat(40)),
        ];
        let mut docs: Vec<&str> = vec![
            "{\"id\":1}\n{\"id\":2}\n",
            "{\"id\":1}\n{\"id\":2}",
            "{\"a\":{\"id\":1},\"id\":2}\n{\"x\":[{\"id\":3}],\"id\":4}\n",
            "{\"req\":{\"id\":\"r1\",\"ms\":3},\"status\":200}\n{\"req\":{\"id\":\"r2\"}}\n",
            "{\"id\":1}\r\n{\"id\":2}\r\n",
            "\n\n{\"id\":1}\n\n   \n{\"id\":2}\n\n",
            "  {\"id\":1}  \n\t[{\"id\":2}]\t\n",
            "{\"id\":1}\n7\n\"id\"\nnull\n[1,2]\n{\"id\":2}\n",
            "[{\"id\":1},{\"id\":2}]\n[]\n{}\n",
            "{\"i\\u0064\":1}\n{\"id\":2,\"a\":{\"\\u0069d\":3}}\n",
            "{\"id\":{\"id\":{\"id\":1}}}\n{\"id\":2,\"id\":3}\n",
            "{\"a\":{\"b\":{\"id\":1}},\"id\":2}\n{\"c\":{\"id\":3},\"id\":4}\n",
            "\u{feff}{\"id\":1}\n{\"id\":2}\n",
            // Lines that are not one value.
            "{\"id\":1}\nnot json here\n{\"id\":3}\n",
            "{\"id\":1}\n{\"id\":2} {\"id\":3}\n{\"id\":4}\n",
            "{\"id\":1}\n{\"id\":2}x\n{\"id\":4}\n",
            "{\"id\":1}\n{\"id\":2}}\n{\"id\":4}\n",
            "{\"id\":1}\n{\"id\":\n2}\n{\"id\":4}\n",
            "{\"id\":1}\n{\"id\":\"a\nb\"}\n{\"id\":4}\n",
            "{\"id\":1}\n[1,2\n{\"id\":4}\n",
            "{\"id\":1}\n{\"id\":2}\n{\"id\":3",
            // Invalid inside a record whose brackets balance on its line.
            "{\"id\":1}\n{\"id\":2-3}\n{\"id\":4}\n",
            "{\"id\":1}\n{\"a\":[1 2],\"id\":2}\n{\"id\":4}\n",
            "{\"id\":1}\n{\"a\":{\"b\":1,},\"id\":2}\n{\"id\":4}\n",
            "{\"id\":1}\n{\"a\":\"x\ty\",\"id\":2}\n{\"id\":4}\n",
            "{\"id\":1}\n{\"a\":{\"id\":[}]},\"id\":2}\n{\"id\":4}\n",
            "{\"id\":1}\n{\"id\":2024-01-02}\n{\"id\":4}\n",
            "{\"id\":1}\n[2024-01-02]\n{\"id\":4}\n",
            "{\"id\":1}\n{\"id\":2}\n\u{1b}[1merror\u{1b}[0m\n",
        ];
        docs.extend(owned.iter().map(String::as_str));
        for doc in docs {
            for name in ["id", "a", "", "b"] {
                for skip in [false, true] {
                    let (fast, slow) = both_ndjson(doc.as_bytes(), name, skip);
                    assert_eq!(fast, slow, "$..{name} (skip {skip}) on {doc:?}");
                }
            }
        }
        // The walk was taken, and it found what the records hold.
        let (fast, _) = both_ndjson(b"{\"id\":1}\n{\"a\":{\"id\":2}}\n", "id", false);
        let paths: Vec<String> = fast
            .unwrap()
            .0
            .iter()
            .map(|(p, _)| p.to_normalized())
            .collect();
        assert_eq!(paths, ["$[0]['id']", "$[1]['a']['id']"]);
    }

    /// Every file of the vendored JSONTestSuite as a record between two others (on one line
    /// when the file is; a file holding line breaks makes its lines records or errors): the
    /// same nodes and the same error as the evaluator, with and without `--skip-invalid`.
    #[test]
    fn the_fast_path_agrees_with_the_evaluator_on_the_json_test_suite_as_records() {
        let mut checked = 0;
        for (text, keys) in crate::json::path::tests::json_test_suite() {
            let mut doc = b"{\"id\":0,\"a\":{\"id\":1}}\n".to_vec();
            doc.extend_from_slice(&text);
            doc.extend_from_slice(b"\n[{\"id\":2}]\n");
            let mut names: Vec<String> = vec!["id".into(), "a".into(), String::new()];
            names.extend(keys);
            for name in &names {
                for skip in [false, true] {
                    let (fast, slow) = both_ndjson(&doc, name, skip);
                    assert_eq!(
                        fast,
                        slow,
                        "$..{name:?} (skip {skip}) on {:?}",
                        String::from_utf8_lossy(&doc)
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 600, "only {checked} queries checked");
    }
}
