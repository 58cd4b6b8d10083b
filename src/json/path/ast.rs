//! The syntax tree of a parsed (and type-checked) JSONPath query.

use super::compare::Decimal;

/// A byte range in the parsed query text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub start: usize,
    pub end: usize,
}

/// `$` or `@` followed by segments.
#[derive(Debug, Clone)]
pub(crate) struct PathQuery {
    /// True for `@` (the current node), false for `$` (the root).
    pub relative: bool,
    pub segments: Vec<Segment>,
}

impl PathQuery {
    /// RFC 9535 singular query: child segments with one name or index selector each.
    pub fn is_singular(&self) -> bool {
        self.segments.iter().all(|s| {
            !s.descendant
                && s.selectors.len() == 1
                && matches!(s.selectors[0], Selector::Name(_) | Selector::Index(_))
        })
    }
}

/// One segment: `[…]`, `.name`, `.*`, or their descendant forms `..`.
#[derive(Debug, Clone)]
pub(crate) struct Segment {
    pub descendant: bool,
    pub selectors: Vec<Selector>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub(crate) enum Selector {
    Name(String),
    Wildcard,
    Index(i64),
    Slice {
        start: Option<i64>,
        end: Option<i64>,
        step: Option<i64>,
    },
    Filter(Box<Logical>),
}

/// An expression of LogicalType.
#[derive(Debug, Clone)]
pub(crate) enum Logical {
    Or(Vec<Logical>),
    And(Vec<Logical>),
    Not(Box<Logical>),
    Compare(ValueExpr, CmpOp, ValueExpr),
    /// An existence test: true when the query selects at least one node.
    Exists(PathQuery),
    /// A function whose result is LogicalType or NodesType.
    Func(Func),
}

/// An expression of ValueType.
#[derive(Debug, Clone)]
pub(crate) enum ValueExpr {
    Literal(Literal),
    /// A singular query: its node, or Nothing.
    Query(PathQuery),
    Func(Func),
}

#[derive(Debug, Clone)]
pub(crate) enum Literal {
    Null,
    Bool(bool),
    Number(Decimal),
    String(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone)]
pub(crate) struct Func {
    pub name: FuncName,
    pub args: Vec<Arg>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FuncName {
    Length,
    Count,
    Match,
    Search,
    Value,
}

/// The three types of RFC 9535 §2.4.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Type {
    Value,
    Logical,
    Nodes,
}

impl FuncName {
    pub fn lookup(name: &str) -> Option<FuncName> {
        Some(match name {
            "length" => FuncName::Length,
            "count" => FuncName::Count,
            "match" => FuncName::Match,
            "search" => FuncName::Search,
            "value" => FuncName::Value,
            _ => return None,
        })
    }

    /// Parameter types and result type (RFC 9535 §2.4.4–2.4.8).
    pub fn signature(self) -> (&'static [Type], Type) {
        match self {
            FuncName::Length => (&[Type::Value], Type::Value),
            FuncName::Count => (&[Type::Nodes], Type::Value),
            FuncName::Match | FuncName::Search => (&[Type::Value, Type::Value], Type::Logical),
            FuncName::Value => (&[Type::Nodes], Type::Value),
        }
    }
}

/// A type-checked function argument.
#[derive(Debug, Clone)]
pub(crate) enum Arg {
    Value(ValueExpr),
    Nodes(PathQuery),
}
