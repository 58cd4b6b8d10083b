//! The fast path of `$[*].a.b…` (a wildcard over the root array or the NDJSON records, then
//! member names, one per segment): for each element, the members are looked up in a plain
//! loop over the bytes, instead of the generic evaluator's walk (a children iterator, a kind
//! dispatch, a step count and a path push per element and per name).
//!
//! It reads exactly what the evaluator reads, with the same checks and messages: the elements
//! or records through the same iterator ([`JsonDoc::elements`], so the NDJSON line rule and
//! `--skip-invalid` are the record reader's), and in each object the members up to the first
//! one named (each key, colon and separator strictly, each value passed with [`skip_value`]:
//! scalars strictly, containers by their brackets), as [`JsonDoc`]'s member lookup does. The
//! nodes come out in the same order with the same paths. The work limit cannot be reached:
//! an element takes at least two bytes and each name found at least five more, for at most
//! one step per byte.

use std::borrow::Cow;
use std::ops::ControlFlow;

use super::descend::{key_eq, key_start, member, ws};
use super::engine::JsonDoc;
use super::normalized::{NormPath, PathElem};
use super::{Doc, JsonElements};
use crate::json::scan::skip_value;
use crate::json::{SyntaxError, Value};

/// Evaluates `$[*]` followed by the member names `names` on `doc` from `root` (the NDJSON
/// records or a JSON array; for anything else the caller uses the evaluator), feeding `sink`
/// as the generic evaluator would.
pub(crate) fn each_member_chain<'a, 'd: 'a>(
    doc: &'a JsonDoc<'d>,
    root: Value<'d>,
    names: &[&'a str],
    sink: &mut dyn FnMut(&NormPath<'a>, Value<'d>) -> ControlFlow<()>,
) -> Result<ControlFlow<()>, SyntaxError> {
    let b = doc.bytes();
    let elements = doc.elements(root);
    debug_assert!(
        !matches!(elements, JsonElements::None),
        "records or an array"
    );
    let mut path = NormPath::root();
    'elements: for (index, element) in elements.enumerate() {
        let mut at = element?.offset();
        for name in names {
            match member_value(b, at, name.as_bytes())? {
                Some(v) => at = v,
                None => continue 'elements,
            }
        }
        path.truncate(0);
        path.push(PathElem::Index(index));
        for name in names {
            path.push(PathElem::Name(Cow::Borrowed(*name)));
        }
        if sink(&path, Value::new(b, at)).is_break() {
            return Ok(ControlFlow::Break(()));
        }
    }
    Ok(ControlFlow::Continue(()))
}

/// Where the value of the first member named `name` of the value at `b[at]` starts: `None`
/// when that value is not an object or has no such member. The kind is judged from the first
/// byte as [`JsonDoc`]'s `kind` judges it (an error when no value starts there), and the
/// members before the one named are read as [`crate::json::Members`] reads them, with its
/// messages.
#[inline]
fn member_value(b: &[u8], at: usize, name: &[u8]) -> Result<Option<usize>, SyntaxError> {
    match b.get(at) {
        Some(b'{') => {}
        Some(b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => return Ok(None),
        _ => return Err(SyntaxError::new(b, at, "expected a JSON value")),
    }
    let mut pos = ws(b, at + 1);
    if b.get(pos) == Some(&b'}') {
        return Ok(None);
    }
    loop {
        key_start(b, pos)?;
        let (key_end, value) = member(b, pos)?;
        if key_eq(&b[pos + 1..key_end - 1], name) {
            return Ok(Some(value));
        }
        pos = ws(b, skip_value(b, value)?);
        match b.get(pos) {
            Some(b',') => pos = ws(b, pos + 1),
            Some(b'}') => return Ok(None),
            Some(_) => {
                return Err(SyntaxError::new(
                    b,
                    pos,
                    "expected ',' or '}' after an object member",
                ));
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

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;

    use super::super::{JsonDoc, NormPath, Query, is_records};

    type Nodes = Vec<(String, usize)>;
    type Outcome = Result<(Nodes, u64), (u64, String)>;

    /// The nodes (normalized path, offset) `$[*]` then `names` select on `text` (read with
    /// `skip`), and the lines skipped, or the error (offset and message), the end checked as
    /// `extract` checks it: through this walk called directly, and through the evaluator.
    /// `None` when the root is neither records nor an array (the walk is not for it).
    fn both(text: &[u8], names: &[&str], skip: bool) -> Option<(Outcome, Outcome)> {
        let mut q = String::from("$[*]");
        for n in names {
            q.push_str(&format!("[{}]", serde_json::to_string(n).unwrap()));
        }
        let q = Query::parse(&q).unwrap();
        let (doc, root) = JsonDoc::open(text, skip).ok()?;
        if !is_records(root) && text.get(root.offset()) != Some(&b'[') {
            return None;
        }
        let run = |fast: bool| {
            let mut nodes = Vec::new();
            let mut sink = |p: &NormPath<'_>, v: crate::json::Value<'_>| {
                nodes.push((p.to_normalized(), v.offset()));
                ControlFlow::Continue(())
            };
            let r = if fast {
                super::each_member_chain(&doc, root, names, &mut sink)
            } else {
                q.select(&doc, root, sink)
            };
            r.and_then(|_| doc.check_end(root, None))
                .map(|skipped| (nodes, skipped))
                .map_err(|e| (e.offset, e.message))
        };
        Some((run(true), run(false)))
    }

    const CHAINS: &[&[&str]] = &[
        &["req", "ms"],
        &["a"],
        &["a", "b"],
        &["id"],
        &[""],
        &["a", "b", "c"],
    ];

    /// Records and array elements of every kind, duplicate and escaped keys, whitespace and
    /// CRLF, blank lines, and invalid input before, inside and after the members looked up
    /// (a missing value, a bad separator, a bad scalar passed, trailing data on a line, text
    /// lines, an unclosed record): the evaluator's nodes and errors, word for word, with and
    /// without `--skip-invalid`.
    #[test]
    fn the_chain_selects_what_the_evaluator_selects() {
        let docs: &[&str] = &[
            "{\"ts\":\"t\",\"req\":{\"id\":\"r1\",\"ms\":3},\"status\":200}\n{\"req\":{\"ms\":4}}\n",
            "{\"req\":{\"ms\":1}}\r\n\r\n  {\"req\" : { \"ms\" : 2 } }  \n{\"req\":[1]}\n7\n",
            "{\"a\":{\"b\":1},\"a\":{\"b\":2}}\n{\"\\u0061\":{\"b\":3}}\n{\"a\":{\"b\":{\"c\":4}}}\n",
            "{\"a\":1}\n{\"b\":1}\n[1,2]\n\"a\"\nnull\n{}\n{\"\":5}\n",
            "{\"a\":{\"b\":1,\"c\":[1,{\"x\" 1}]}}\n{\"a\":2}\n",
            "{\"a\":}\n{\"a\":1}\n",
            "{\"a\":{\"b\":}}\n{\"a\":1}\n",
            "{\"x\":1,}\n{\"a\":1}\n",
            "{\"x\":1 \"a\":2}\n{\"a\":1}\n",
            "{\"x\":2024-01-02,\"a\":1}\n{\"a\":1}\n",
            "{\"x\":\"a\tb\",\"a\":1}\n{\"a\":1}\n",
            "{\"x\" 1,\"a\":1}\n{\"a\":1}\n",
            "{1:2}\n{\"a\":1}\n",
            "{\"a\":1}\nnot json\n{\"a\":3}\n",
            "{\"a\":1}\n{\"a\":2} {\"a\":3}\n{\"a\":4}\n",
            "{\"a\":1}\n{\"a\":2}x\n",
            "{\"a\":1}\n{\"a\":\n2}\n",
            "{\"a\":1}\n{\"a\":[1,2\n",
            "{\"a\":1}\n{\"a\":2}\n\u{1b}[1merror\u{1b}[0m\n",
            "\u{feff}{\"a\":1}\n{\"a\":2}\n",
            "[{\"a\":{\"b\":1}},{\"a\":2},3,{\"a\":{\"b\":4}}]",
            "[ {\"a\" : 1} , {\"a\":2} ]  ",
            "[{\"a\":1},]",
            "[{\"a\":1} {\"a\":2}]",
            "[{\"a\":1},{\"x\":[1,,2],\"a\":2}]",
            "[{\"a\":1}]]",
            "[{\"a\":1}",
            "[,{\"a\":1}]",
            "[]",
        ];
        let mut compared = 0;
        for doc in docs {
            for names in CHAINS {
                for skip in [false, true] {
                    let Some((fast, slow)) = both(doc.as_bytes(), names, skip) else {
                        continue;
                    };
                    assert_eq!(fast, slow, "{names:?} (skip {skip}) on {doc:?}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 300, "only {compared} compared");
        // The walk was taken, and it found what the records hold.
        let (fast, _) = both(docs[0].as_bytes(), &["req", "ms"], false).unwrap();
        let paths: Vec<String> = fast.unwrap().0.into_iter().map(|(p, _)| p).collect();
        assert_eq!(paths, ["$[0]['req']['ms']", "$[1]['req']['ms']"]);
    }

    /// Every file of the vendored JSONTestSuite as a record between two others, and as an
    /// element of an array: the evaluator's nodes and errors, for each key the file holds.
    #[test]
    fn the_chain_agrees_with_the_evaluator_on_the_json_test_suite() {
        let mut compared = 0;
        for (text, own_keys) in crate::json::path::tests::json_test_suite() {
            let mut keys: Vec<String> = vec!["a".into(), String::new()];
            keys.extend(own_keys);
            let records = [b"{\"a\":{\"a\":1}}\n".as_slice(), &text, b"\n{\"a\":2}\n"].concat();
            let array = [b"[{\"a\":{\"a\":1}},".as_slice(), &text, b",{\"a\":2}]"].concat();
            for doc in [&records, &array] {
                for key in &keys {
                    for names in [vec![key.as_str()], vec![key.as_str(), "a"]] {
                        for skip in [false, true] {
                            let Some((fast, slow)) = both(doc, &names, skip) else {
                                continue;
                            };
                            assert_eq!(
                                fast,
                                slow,
                                "{names:?} (skip {skip}) on {:?}",
                                String::from_utf8_lossy(doc)
                            );
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert!(compared > 1500, "only {compared} compared");
    }
}
