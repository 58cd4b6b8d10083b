//! The JSONPath parser's and evaluator's invariant checks (the `jsonpath_parse` fuzz target).

use std::borrow::Cow;
use std::ops::ControlFlow;

use crate::json::path::{Doc, Kind, Query, explain_no_match};

/// A fixed document for evaluating fuzzed queries:
/// `{"a":[1,2.5e0,"x",null,true,{"b":"x"}],"b":{"a":"ab\nc"},"":-0,"c d":[[],1]}`.
enum Fixed {
    Null,
    Bool(bool),
    Num(&'static str),
    Str(&'static str),
    Arr(&'static [usize]),
    Obj(&'static [(&'static str, usize)]),
}

static NODES: &[Fixed] = &[
    Fixed::Obj(&[("a", 1), ("b", 8), ("", 10), ("c d", 11)]),
    Fixed::Arr(&[2, 3, 4, 5, 6, 7]),
    Fixed::Num("1"),
    Fixed::Num("2.5e0"),
    Fixed::Str("x"),
    Fixed::Null,
    Fixed::Bool(true),
    Fixed::Obj(&[("b", 4)]),
    Fixed::Obj(&[("a", 9)]),
    Fixed::Str("ab\nc"),
    Fixed::Num("-0"),
    Fixed::Arr(&[12, 2]),
    Fixed::Arr(&[]),
];

struct FixedDoc;

/// The most steps (see [`Doc::check_work`]) a fuzzed query may take on the fixed document: a
/// query can multiply its work without bound (`$[*,*,…][*,*,…][*,*,…]`, nested filters), and
/// the engine's own limit (`work_limit`) applies to the engine's documents only.
const FIXED_WORK: u64 = 1 << 20;

/// The one error of the fixed document: an evaluation past [`FIXED_WORK`].
#[derive(Debug)]
pub struct TooCostly;

type FixedMembers<'a> = Box<dyn Iterator<Item = Result<(Cow<'a, str>, usize), TooCostly>> + 'a>;
type FixedElements = Box<dyn Iterator<Item = Result<usize, TooCostly>>>;

impl Doc for FixedDoc {
    type Node = usize;
    type Error = TooCostly;
    type Members<'a> = FixedMembers<'a>;
    type Elements<'a> = FixedElements;

    fn check_work(&self, _node: usize, steps: u64) -> Result<(), TooCostly> {
        if steps > FIXED_WORK {
            Err(TooCostly)
        } else {
            Ok(())
        }
    }

    fn kind(&self, n: usize) -> Result<Kind, TooCostly> {
        Ok(match NODES[n] {
            Fixed::Null => Kind::Null,
            Fixed::Bool(_) => Kind::Bool,
            Fixed::Num(_) => Kind::Number,
            Fixed::Str(_) => Kind::String,
            Fixed::Arr(_) => Kind::Array,
            Fixed::Obj(_) => Kind::Object,
        })
    }
    fn members(&self, n: usize) -> FixedMembers<'_> {
        match NODES[n] {
            Fixed::Obj(m) => Box::new(m.iter().map(|&(k, v)| Ok((Cow::Borrowed(k), v)))),
            _ => Box::new(std::iter::empty()),
        }
    }
    fn elements(&self, n: usize) -> FixedElements {
        match NODES[n] {
            Fixed::Arr(a) => Box::new(a.iter().map(|&v| Ok(v))),
            _ => Box::new(std::iter::empty()),
        }
    }
    fn string(&self, n: usize) -> Result<Cow<'_, str>, TooCostly> {
        Ok(Cow::Borrowed(match NODES[n] {
            Fixed::Str(s) => s,
            _ => "",
        }))
    }
    fn number(&self, n: usize) -> Result<Cow<'_, str>, TooCostly> {
        Ok(Cow::Borrowed(match NODES[n] {
            Fixed::Num(s) => s,
            _ => "0",
        }))
    }
    fn boolean(&self, n: usize) -> Result<bool, TooCostly> {
        Ok(matches!(NODES[n], Fixed::Bool(true)))
    }
}

/// Parses arbitrary bytes as a query (strict and lenient) and checks, panicking on a
/// violation: errors point inside the text at a character boundary and render; accepted
/// queries evaluate on a fixed document; every selected node's normalized path parses back
/// to a singular query selecting that same node; an empty result can be explained.
pub fn jsonpath_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for lenient in [false, true] {
        let parsed = if lenient {
            Query::parse_lenient(text)
        } else {
            Query::parse(text)
        };
        match parsed {
            Err(e) => {
                assert!(e.offset <= text.len(), "offset past the end");
                assert!(text.is_char_boundary(e.offset), "offset inside a character");
                assert!(e.render().ends_with('^'));
                assert!(!e.message.is_empty());
            }
            Ok(q) => check_accepted(&q),
        }
    }
}

fn check_accepted(q: &Query) {
    let canonical = Query::parse(&q.canonical_text()).expect("canonical text parses");
    assert_eq!(canonical.is_singular(), q.is_singular());
    let mut count = 0usize;
    let selected = q.select(&FixedDoc, 0, |path, node| {
        count += 1;
        let again = Query::parse(&path.to_normalized()).expect("normalized path parses");
        assert!(again.is_singular());
        let mut same = None;
        let _ = again.select(&FixedDoc, 0, |_, n| {
            same = Some(n);
            ControlFlow::Break(())
        });
        assert_eq!(same, Some(node), "normalized path selects the same node");
        let dotted = Query::parse(&path.to_dot()).expect("dot path parses");
        assert!(dotted.is_singular());
        if count >= 1000 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    if selected.is_err() {
        // Past the work limit: what was selected so far was checked; the count is partial.
        return;
    }
    if q.is_singular() {
        assert!(count <= 1, "a singular query selected {count} nodes");
    }
    if count == 0 {
        // Explaining evaluates prefixes of the query: they can meet the limit too.
        if let Ok(msg) = explain_no_match(q, &FixedDoc, 0) {
            assert!(!msg.is_empty());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Repeated selectors multiply: 300 wildcards per segment over three levels would visit
    /// ~2.4 * 10^8 values and select none (the fourth level finds no children), which stalled
    /// the fuzz target; the fixed document stops at its work limit instead.
    #[test]
    fn multiplying_queries_stop_at_the_work_limit() {
        let many = vec!["*"; 300].join(",");
        let text = format!("$[{many}][{many}][{many}][*]");
        let q = Query::parse(&text).unwrap();
        let r = q.select(&FixedDoc, 0, |_, _| ControlFlow::Continue(()));
        assert!(matches!(r, Err(TooCostly)));
        jsonpath_parse(text.as_bytes());
        // A query within the limit is evaluated in full: the children of `$`'s descendants
        // that have descendants themselves, `{"b":"x"}` only.
        let q = Query::parse("$..*[?@..*]").unwrap();
        let mut n = 0;
        let r = q.select(&FixedDoc, 0, |_, _| {
            n += 1;
            ControlFlow::Continue(())
        });
        assert!(r.is_ok());
        assert_eq!(n, 1);
    }
}
