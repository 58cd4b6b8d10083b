//! A small in-memory JSON tree implementing [`Doc`], for tests only: member order is kept
//! (serde_json's `Value` sorts keys), and every element or member handed out is counted so
//! tests can check that evaluation stops early.

use std::borrow::Cow;
use std::cell::Cell;
use std::convert::Infallible;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::json::path::{Doc, Kind};

/// A JSON value keeping member order and number text.
#[derive(Debug, Clone)]
pub enum OValue {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<OValue>),
    Obj(Vec<(String, OValue)>),
}

impl OValue {
    pub fn get(&self, key: &str) -> Option<&OValue> {
        match self {
            OValue::Obj(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            OValue::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[OValue]> {
        match self {
            OValue::Arr(a) => Some(a),
            _ => None,
        }
    }
}

/// JSON equality: numbers by value, objects regardless of member order.
impl PartialEq for OValue {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (OValue::Null, OValue::Null) => true,
            (OValue::Bool(a), OValue::Bool(b)) => a == b,
            (OValue::Num(a), OValue::Num(b)) => {
                crate::json::path::compare::Decimal::parse(a)
                    == crate::json::path::compare::Decimal::parse(b)
            }
            (OValue::Str(a), OValue::Str(b)) => a == b,
            (OValue::Arr(a), OValue::Arr(b)) => a == b,
            (OValue::Obj(a), OValue::Obj(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, v)| b.iter().any(|(k2, v2)| k == k2 && v == v2))
            }
            _ => false,
        }
    }
}

impl<'de> Deserialize<'de> for OValue {
    fn deserialize<De: Deserializer<'de>>(d: De) -> Result<Self, De::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<OValue, E> {
                Ok(OValue::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<OValue, E> {
                Ok(OValue::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<OValue, E> {
                Ok(OValue::Num(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<OValue, E> {
                Ok(OValue::Num(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<OValue, E> {
                Ok(OValue::Num(
                    serde_json::Number::from_f64(v).map_or_else(|| "0".into(), |n| n.to_string()),
                ))
            }
            fn visit_str<E>(self, v: &str) -> Result<OValue, E> {
                Ok(OValue::Str(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<OValue, E> {
                Ok(OValue::Str(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OValue, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element()? {
                    out.push(v);
                }
                Ok(OValue::Arr(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OValue, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, OValue>()? {
                    out.push((k, v));
                }
                Ok(OValue::Obj(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl OValue {
    /// The value as compact JSON text (numbers as written, members in order).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    fn write_json(&self, out: &mut String) {
        match self {
            OValue::Null => out.push_str("null"),
            OValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            OValue::Num(n) => out.push_str(n),
            OValue::Str(s) => out.push_str(&serde_json::to_string(s).expect("strings serialize")),
            OValue::Arr(a) => {
                out.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write_json(out);
                }
                out.push(']');
            }
            OValue::Obj(m) => {
                out.push('{');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(k).expect("strings serialize"));
                    out.push(':');
                    v.write_json(out);
                }
                out.push('}');
            }
        }
    }
}

/// Parses JSON text keeping member order.
pub fn ovalue(text: &str) -> OValue {
    serde_json::from_str(text).expect("test JSON is valid")
}

#[derive(Debug)]
pub enum TNode {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<usize>),
    Obj(Vec<(String, usize)>),
}

/// An arena of nodes; node 0 is the root once built.
#[derive(Debug, Default)]
pub struct Tree {
    pub nodes: Vec<TNode>,
    /// Elements and members handed out by iterators so far.
    pub visits: Cell<usize>,
}

impl Tree {
    pub fn new(v: &OValue) -> Tree {
        let mut t = Tree::default();
        t.add(v);
        t
    }

    pub fn parse(text: &str) -> Tree {
        Tree::new(&ovalue(text))
    }

    fn add(&mut self, v: &OValue) -> usize {
        let id = self.nodes.len();
        self.nodes.push(TNode::Null);
        let node = match v {
            OValue::Null => TNode::Null,
            OValue::Bool(b) => TNode::Bool(*b),
            OValue::Num(n) => TNode::Num(n.clone()),
            OValue::Str(s) => TNode::Str(s.clone()),
            OValue::Arr(a) => TNode::Arr(a.iter().map(|e| self.add(e)).collect()),
            OValue::Obj(m) => TNode::Obj(m.iter().map(|(k, e)| (k.clone(), self.add(e))).collect()),
        };
        self.nodes[id] = node;
        id
    }

    /// The value of a node (recursive: test documents are shallow).
    pub fn value(&self, n: usize) -> OValue {
        match &self.nodes[n] {
            TNode::Null => OValue::Null,
            TNode::Bool(b) => OValue::Bool(*b),
            TNode::Num(s) => OValue::Num(s.clone()),
            TNode::Str(s) => OValue::Str(s.clone()),
            TNode::Arr(a) => OValue::Arr(a.iter().map(|&e| self.value(e)).collect()),
            TNode::Obj(m) => {
                OValue::Obj(m.iter().map(|(k, e)| (k.clone(), self.value(*e))).collect())
            }
        }
    }
}

type Members<'a> = Box<dyn Iterator<Item = Result<(Cow<'a, str>, usize), Infallible>> + 'a>;
type Elements<'a> = Box<dyn Iterator<Item = Result<usize, Infallible>> + 'a>;

impl Doc for Tree {
    type Node = usize;
    type Error = Infallible;
    type Members<'a> = Members<'a>;
    type Elements<'a> = Elements<'a>;

    fn kind(&self, n: usize) -> Result<Kind, Infallible> {
        Ok(match &self.nodes[n] {
            TNode::Null => Kind::Null,
            TNode::Bool(_) => Kind::Bool,
            TNode::Num(_) => Kind::Number,
            TNode::Str(_) => Kind::String,
            TNode::Arr(_) => Kind::Array,
            TNode::Obj(_) => Kind::Object,
        })
    }

    fn members(&self, n: usize) -> Members<'_> {
        match &self.nodes[n] {
            TNode::Obj(m) => Box::new(m.iter().map(|(k, v)| {
                self.visits.set(self.visits.get() + 1);
                Ok((Cow::Borrowed(k.as_str()), *v))
            })),
            _ => Box::new(std::iter::empty()),
        }
    }

    fn elements(&self, n: usize) -> Elements<'_> {
        match &self.nodes[n] {
            TNode::Arr(a) => Box::new(a.iter().map(|&v| {
                self.visits.set(self.visits.get() + 1);
                Ok(v)
            })),
            _ => Box::new(std::iter::empty()),
        }
    }

    fn string(&self, n: usize) -> Result<Cow<'_, str>, Infallible> {
        Ok(match &self.nodes[n] {
            TNode::Str(s) => Cow::Borrowed(s),
            _ => Cow::Borrowed(""),
        })
    }

    fn number(&self, n: usize) -> Result<Cow<'_, str>, Infallible> {
        Ok(match &self.nodes[n] {
            TNode::Num(s) => Cow::Borrowed(s),
            _ => Cow::Borrowed("0"),
        })
    }

    fn boolean(&self, n: usize) -> Result<bool, Infallible> {
        Ok(matches!(self.nodes[n], TNode::Bool(true)))
    }
}

/// Runs `query` (lenient syntax) on `doc`, returning (normalized path, value) pairs.
pub fn select(doc: &Tree, query: &str) -> Vec<(String, OValue)> {
    let q = crate::json::path::Query::parse_lenient(query).expect("query parses");
    let mut out = Vec::new();
    let _ = q.select(doc, 0, |p, n| {
        out.push((p.to_normalized(), doc.value(n)));
        std::ops::ControlFlow::Continue(())
    });
    out
}
