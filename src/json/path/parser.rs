//! The query grammar of RFC 9535 (recursive descent with a nesting limit) and the
//! well-typedness rules of its function extensions (§2.4.3).

use super::ast::{
    Arg, CmpOp, Func, FuncName, Literal, Logical, PathQuery, Segment, Selector, Span, Type,
    ValueExpr,
};
use super::compare::Decimal;
use super::lexer::{Cursor, Syn, SynResult};

/// How deeply parentheses, nested queries and function calls may nest: deeper queries are
/// rejected so that neither parsing nor evaluation can exhaust the stack.
pub(crate) const MAX_NESTING: usize = 32;

/// How many segments (over the whole query, filters included) a non-singular query may have.
/// Non-singular queries are evaluated recursively, one frame per segment; singular queries are
/// evaluated by a loop and have no limit.
pub(crate) const MAX_SEGMENTS: usize = 256;

/// A filter expression before type checking; each carries the byte offset it starts at.
enum Raw {
    Or(Vec<Raw>, usize),
    And(Vec<Raw>, usize),
    Not(Box<Raw>, usize),
    Paren(Box<Raw>, usize),
    Cmp(Box<Raw>, CmpOp, Box<Raw>, usize),
    Lit(Literal, usize),
    Query(PathQuery, usize),
    Func(FuncName, Vec<Raw>, usize),
}

impl Raw {
    fn at(&self) -> usize {
        match self {
            Raw::Or(_, a)
            | Raw::And(_, a)
            | Raw::Not(_, a)
            | Raw::Paren(_, a)
            | Raw::Cmp(_, _, _, a)
            | Raw::Lit(_, a)
            | Raw::Query(_, a)
            | Raw::Func(_, _, a) => *a,
        }
    }
}

struct Parser<'a> {
    cur: Cursor<'a>,
    depth: usize,
    segments: usize,
    /// Where the segment past `MAX_SEGMENTS` starts, if there is one.
    too_many_segments_at: Option<usize>,
}

/// Parses a complete RFC 9535 query (it must start with `$`).
pub(crate) fn parse_query(src: &str) -> SynResult<PathQuery> {
    let mut p = Parser {
        cur: Cursor::new(src),
        depth: 0,
        segments: 0,
        too_many_segments_at: None,
    };
    if !p.cur.eat(b'$') {
        return match p.cur.peek() {
            Some(b' ' | b'\t' | b'\n' | b'\r') => p.cur.err(0, "leading whitespace is not allowed"),
            None => p.cur.err(0, "empty query; a query starts with '$'"),
            _ => p.cur.err(
                0,
                format!("a query must start with '$', found {}", p.cur.found()),
            ),
        };
    }
    let segments = p.segments()?;
    if !p.cur.at_end() {
        let at = p.cur.pos;
        if p.cur.skip_ws() && p.cur.at_end() {
            return p.cur.err(at, "trailing whitespace is not allowed");
        }
        p.cur.pos = at;
        p.cur.skip_ws();
        return p.cur.err(
            p.cur.pos,
            format!("expected '.', '..' or '[', found {}", p.cur.found()),
        );
    }
    let query = PathQuery {
        relative: false,
        segments,
    };
    if let Some(at) = p.too_many_segments_at
        && !query.is_singular()
    {
        return p.cur.err(
            at,
            format!("query too long: more than {MAX_SEGMENTS} segments in a non-singular query"),
        );
    }
    Ok(query)
}

impl<'a> Parser<'a> {
    fn enter(&mut self, at: usize) -> SynResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return self.cur.err(
                at,
                format!("query nested too deeply (more than {MAX_NESTING} levels)"),
            );
        }
        Ok(())
    }

    /// `*(S segment)`: whitespace is consumed only when a segment follows it.
    fn segments(&mut self) -> SynResult<Vec<Segment>> {
        let mut segs = Vec::new();
        loop {
            let save = self.cur.pos;
            self.cur.skip_ws();
            match self.cur.peek() {
                Some(b'.' | b'[') => segs.push(self.segment()?),
                _ => {
                    self.cur.pos = save;
                    return Ok(segs);
                }
            }
        }
    }

    fn segment(&mut self) -> SynResult<Segment> {
        let start = self.cur.pos;
        self.segments += 1;
        if self.segments > MAX_SEGMENTS && self.too_many_segments_at.is_none() {
            self.too_many_segments_at = Some(start);
        }
        let descendant = self.cur.eat_str("..");
        let selectors = if descendant || self.cur.eat(b'.') {
            if self.cur.eat(b'*') {
                vec![Selector::Wildcard]
            } else if descendant && self.cur.peek() == Some(b'[') {
                self.bracketed()?
            } else {
                vec![Selector::Name(self.cur.name()?)]
            }
        } else {
            self.bracketed()?
        };
        Ok(Segment {
            descendant,
            selectors,
            span: Span {
                start,
                end: self.cur.pos,
            },
        })
    }

    /// `"[" S selector *(S "," S selector) S "]"`
    fn bracketed(&mut self) -> SynResult<Vec<Selector>> {
        let open = self.cur.pos;
        self.cur.eat(b'[');
        self.cur.skip_ws();
        let mut sels = vec![self.selector()?];
        loop {
            self.cur.skip_ws();
            if self.cur.eat(b']') {
                return Ok(sels);
            }
            if self.cur.eat(b',') {
                self.cur.skip_ws();
                sels.push(self.selector()?);
                continue;
            }
            if self.cur.at_end() {
                return self.cur.err(open, "unclosed '['");
            }
            return self.cur.err(
                self.cur.pos,
                format!("expected ',' or ']', found {}", self.cur.found()),
            );
        }
    }

    fn selector(&mut self) -> SynResult<Selector> {
        match self.cur.peek() {
            Some(b'\'' | b'"') => Ok(Selector::Name(self.cur.string_literal()?)),
            Some(b'*') => {
                self.cur.pos += 1;
                Ok(Selector::Wildcard)
            }
            Some(b'?') => {
                let at = self.cur.pos;
                self.cur.pos += 1;
                self.cur.skip_ws();
                self.enter(at)?;
                let raw = self.logical_or()?;
                self.depth -= 1;
                Ok(Selector::Filter(Box::new(to_logical(raw)?)))
            }
            Some(b'-' | b'0'..=b'9' | b':') => self.index_or_slice(),
            _ => self.cur.err(
                self.cur.pos,
                format!(
                    "expected a selector (a quoted name, an index, a slice, '*' or '?'), found {}",
                    self.cur.found()
                ),
            ),
        }
    }

    /// `int` or `[start S] ":" S [end S] [":" [S step]]`
    fn index_or_slice(&mut self) -> SynResult<Selector> {
        let starts_int = |c: &Cursor| matches!(c.peek(), Some(b'-' | b'0'..=b'9'));
        let start = if starts_int(&self.cur) {
            Some(self.cur.int()?)
        } else {
            None
        };
        let save = self.cur.pos;
        self.cur.skip_ws();
        if !self.cur.eat(b':') {
            self.cur.pos = save;
            return match start {
                Some(i) => Ok(Selector::Index(i)),
                None => self.cur.err(self.cur.pos, "expected an index or a slice"),
            };
        }
        self.cur.skip_ws();
        let end = if starts_int(&self.cur) {
            Some(self.cur.int()?)
        } else {
            None
        };
        let save = self.cur.pos;
        self.cur.skip_ws();
        let mut step = None;
        if self.cur.eat(b':') {
            let save = self.cur.pos;
            self.cur.skip_ws();
            if starts_int(&self.cur) {
                step = Some(self.cur.int()?);
            } else {
                self.cur.pos = save;
            }
        } else {
            self.cur.pos = save;
        }
        Ok(Selector::Slice { start, end, step })
    }

    fn logical_or(&mut self) -> SynResult<Raw> {
        let start = self.cur.pos;
        let mut items = vec![self.logical_and()?];
        loop {
            let save = self.cur.pos;
            self.cur.skip_ws();
            if self.cur.eat_str("||") {
                self.cur.skip_ws();
                items.push(self.logical_and()?);
            } else {
                self.cur.pos = save;
                break;
            }
        }
        Ok(if items.len() == 1 {
            items.pop().expect("one item")
        } else {
            Raw::Or(items, start)
        })
    }

    fn logical_and(&mut self) -> SynResult<Raw> {
        let start = self.cur.pos;
        let mut items = vec![self.basic()?];
        loop {
            let save = self.cur.pos;
            self.cur.skip_ws();
            if self.cur.eat_str("&&") {
                self.cur.skip_ws();
                items.push(self.basic()?);
            } else {
                self.cur.pos = save;
                break;
            }
        }
        Ok(if items.len() == 1 {
            items.pop().expect("one item")
        } else {
            Raw::And(items, start)
        })
    }

    /// A comparison, or a unary expression on its own.
    fn basic(&mut self) -> SynResult<Raw> {
        let start = self.cur.pos;
        let left = self.unary()?;
        let save = self.cur.pos;
        self.cur.skip_ws();
        let op_at = self.cur.pos;
        let op = if self.cur.eat_str("==") {
            CmpOp::Eq
        } else if self.cur.eat_str("!=") {
            CmpOp::Ne
        } else if self.cur.eat_str("<=") {
            CmpOp::Le
        } else if self.cur.eat_str(">=") {
            CmpOp::Ge
        } else if self.cur.eat(b'<') {
            CmpOp::Lt
        } else if self.cur.eat(b'>') {
            CmpOp::Gt
        } else if self.cur.peek() == Some(b'=') {
            return self
                .cur
                .err(op_at, "'=' is not an operator; compare with '=='");
        } else {
            self.cur.pos = save;
            return Ok(left);
        };
        self.cur.skip_ws();
        let right = self.unary()?;
        Ok(Raw::Cmp(Box::new(left), op, Box::new(right), start))
    }

    fn unary(&mut self) -> SynResult<Raw> {
        let start = self.cur.pos;
        if self.cur.eat(b'!') {
            self.cur.skip_ws();
            let inner = self.primary()?;
            return Ok(Raw::Not(Box::new(inner), start));
        }
        self.primary()
    }

    fn primary(&mut self) -> SynResult<Raw> {
        let start = self.cur.pos;
        match self.cur.peek() {
            Some(b'(') => {
                self.enter(start)?;
                self.cur.pos += 1;
                self.cur.skip_ws();
                let inner = self.logical_or()?;
                self.cur.skip_ws();
                if !self.cur.eat(b')') {
                    if self.cur.at_end() {
                        return self.cur.err(start, "unclosed '('");
                    }
                    return self.cur.err(
                        self.cur.pos,
                        format!("expected ')', found {}", self.cur.found()),
                    );
                }
                self.depth -= 1;
                Ok(Raw::Paren(Box::new(inner), start))
            }
            Some(c @ (b'@' | b'$')) => {
                self.enter(start)?;
                self.cur.pos += 1;
                let segments = self.segments()?;
                self.depth -= 1;
                Ok(Raw::Query(
                    PathQuery {
                        relative: c == b'@',
                        segments,
                    },
                    start,
                ))
            }
            Some(b'\'' | b'"') => Ok(Raw::Lit(Literal::String(self.cur.string_literal()?), start)),
            Some(b'-' | b'0'..=b'9') => {
                let text = self.cur.number()?;
                Ok(Raw::Lit(Literal::Number(Decimal::parse(text)), start))
            }
            Some(b'a'..=b'z') => {
                while matches!(self.cur.peek(), Some(b'a'..=b'z' | b'0'..=b'9' | b'_')) {
                    self.cur.pos += 1;
                }
                let ident = &self.cur.src[start..self.cur.pos];
                if self.cur.peek() == Some(b'(') {
                    return self.function(ident, start);
                }
                match ident {
                    "true" => Ok(Raw::Lit(Literal::Bool(true), start)),
                    "false" => Ok(Raw::Lit(Literal::Bool(false), start)),
                    "null" => Ok(Raw::Lit(Literal::Null, start)),
                    _ => self.cur.err(
                        start,
                        format!(
                            "unexpected '{ident}': expected a query (@…, $…), a literal or a function call"
                        ),
                    ),
                }
            }
            _ => self.cur.err(
                start,
                format!(
                    "expected a query (@…, $…), a literal, a function call or '(', found {}",
                    self.cur.found()
                ),
            ),
        }
    }

    /// `name "(" S [arg *(S "," S arg)] S ")"`; the cursor is on the `(`.
    fn function(&mut self, ident: &str, start: usize) -> SynResult<Raw> {
        let Some(name) = FuncName::lookup(ident) else {
            return self.cur.err(
                start,
                format!("unknown function '{ident}' (known: length, count, match, search, value)"),
            );
        };
        self.enter(start)?;
        self.cur.pos += 1;
        self.cur.skip_ws();
        let mut args = Vec::new();
        if !self.cur.eat(b')') {
            loop {
                args.push(self.logical_or()?);
                self.cur.skip_ws();
                if self.cur.eat(b',') {
                    self.cur.skip_ws();
                    continue;
                }
                if self.cur.eat(b')') {
                    break;
                }
                if self.cur.at_end() {
                    return self.cur.err(start, format!("unclosed '(' of {ident}()"));
                }
                return self.cur.err(
                    self.cur.pos,
                    format!("expected ',' or ')', found {}", self.cur.found()),
                );
            }
        }
        self.depth -= 1;
        Ok(Raw::Func(name, args, start))
    }
}

fn fname(name: FuncName) -> &'static str {
    match name {
        FuncName::Length => "length",
        FuncName::Count => "count",
        FuncName::Match => "match",
        FuncName::Search => "search",
        FuncName::Value => "value",
    }
}

fn syn<T>(offset: usize, message: impl Into<String>) -> SynResult<T> {
    Err(Syn {
        offset,
        message: message.into(),
    })
}

/// Types an expression used where a LogicalType is expected (a filter, `&&`, `||`, `!`).
fn to_logical(raw: Raw) -> SynResult<Logical> {
    Ok(match raw {
        Raw::Or(items, _) => Logical::Or(
            items
                .into_iter()
                .map(to_logical)
                .collect::<Result<_, _>>()?,
        ),
        Raw::And(items, _) => Logical::And(
            items
                .into_iter()
                .map(to_logical)
                .collect::<Result<_, _>>()?,
        ),
        Raw::Not(inner, _) => Logical::Not(Box::new(to_logical(*inner)?)),
        Raw::Paren(inner, _) => to_logical(*inner)?,
        Raw::Cmp(l, op, r, _) => Logical::Compare(to_value(*l)?, op, to_value(*r)?),
        Raw::Query(q, _) => Logical::Exists(q),
        Raw::Func(name, args, at) => {
            let f = to_func(name, args, at)?;
            if name.signature().1 == Type::Value {
                return syn(
                    at,
                    format!(
                        "{n}() returns a value, not a test result; compare it (e.g. {n}(…) > 0)",
                        n = fname(name)
                    ),
                );
            }
            Logical::Func(f)
        }
        Raw::Lit(_, at) => {
            return syn(
                at,
                "a literal is not a test; compare it with something (e.g. @.a == 1)",
            );
        }
    })
}

/// Types an expression used where a ValueType is expected (a comparison side, a value argument).
fn to_value(raw: Raw) -> SynResult<ValueExpr> {
    match raw {
        Raw::Lit(lit, _) => Ok(ValueExpr::Literal(lit)),
        Raw::Query(q, at) => {
            if q.is_singular() {
                Ok(ValueExpr::Query(q))
            } else {
                syn(
                    at,
                    "a non-singular query cannot be used as a value (only .name and [index] segments are allowed here)",
                )
            }
        }
        Raw::Func(name, args, at) => {
            let f = to_func(name, args, at)?;
            if name.signature().1 != Type::Value {
                return syn(
                    at,
                    format!(
                        "{}() returns a logical result, which cannot be compared or used as a value",
                        fname(name)
                    ),
                );
            }
            Ok(ValueExpr::Func(f))
        }
        other => syn(
            other.at(),
            "expected a value here (a literal, a singular query or a function call)",
        ),
    }
}

fn to_func(name: FuncName, args: Vec<Raw>, at: usize) -> SynResult<Func> {
    let (params, _) = name.signature();
    if args.len() != params.len() {
        return syn(
            at,
            format!(
                "{}() takes {} argument{}, found {}",
                fname(name),
                params.len(),
                if params.len() == 1 { "" } else { "s" },
                args.len()
            ),
        );
    }
    let mut typed = Vec::with_capacity(args.len());
    for (arg, ty) in args.into_iter().zip(params) {
        typed.push(match ty {
            Type::Value => Arg::Value(to_value(arg)?),
            // The built-in functions (RFC 9535 §2.4.4–2.4.8) take no LogicalType parameter.
            Type::Logical => unreachable!("no built-in function takes a logical argument"),
            Type::Nodes => match arg {
                Raw::Query(q, _) => Arg::Nodes(q),
                other => {
                    return syn(
                        other.at(),
                        format!("{}() expects a query (a nodelist) here", fname(name)),
                    );
                }
            },
        });
    }
    Ok(Func { name, args: typed })
}
