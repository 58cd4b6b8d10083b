//! JSONPath (RFC 9535): parsing with byte-accurate errors, and lazy evaluation over any
//! [`Doc`].
//!
//! ```text
//! let (doc, root) = JsonDoc::open(&bytes, false)?;          // the engine, lazily
//! let query = Query::parse_lenient("items[0].name")?;     // read as $.items[0].name
//! query.select(&doc, root, |path, node| { …; ControlFlow::Continue(()) })?;
//! ```
//!
//! - Parsing ([`Query::parse`], [`Query::parse_lenient`]) follows RFC 9535 exactly, including
//!   the well-typedness of function calls; a [`PathError`] carries the byte offset of the
//!   offending character. Parentheses, nested queries and calls nest at most 32 deep, and a
//!   non-singular query has at most 256 segments, so neither parsing nor evaluation can
//!   exhaust the stack; singular queries (evaluated by a loop) have no length limit.
//! - Evaluation ([`Query::select`]) is depth first and lazy: each node reaches the sink as soon
//!   as it is found, in RFC order, and the sink can stop it. Document depth is unlimited
//!   (descendant walks and deep equality keep explicit stacks). `[-k]` and `[-k:]` read the
//!   array once, keeping the last k handles.
//! - Numbers compare exactly as decimals (`1 == 1.0`, `1e400`, 23-digit integers); strings by
//!   scalar values; `match`/`search` use I-Regexp translated to the `regex` crate (an invalid
//!   pattern makes the test false).
//! - [`explain_no_match`] says why nothing was selected; [`NormPath`] formats locations as
//!   normalized paths or dot notation.
//! - The JSONPath Compliance Test Suite runs as a unit test, over an in-memory tree and over
//!   the engine: 703/703.

mod ast;
mod chain;
pub(crate) mod compare;
mod descend;
mod doc;
mod engine;
mod eval;
mod explain;
mod iregexp;
mod lexer;
mod normalized;
mod parser;

#[cfg(test)]
mod tests;

use std::fmt;
use std::ops::ControlFlow;

pub use doc::{Doc, Kind, MAX_DESCENT, work_limit};
pub use engine::{JsonDoc, JsonElements, JsonMembers, RECORDS, Records, is_records};
pub use eval::Flow;
pub use explain::explain_no_match;
pub use normalized::{NormPath, PathElem, is_shorthand_name, push_bracket_name, push_member};

/// A query syntax error: where it is and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathError {
    /// The query as the user typed it.
    pub query: String,
    /// Byte offset of the offending character in `query` (may equal `query.len()`).
    pub offset: usize,
    /// What is wrong, lower-case, without a `spill:` prefix.
    pub message: String,
}

impl PathError {
    /// The message, then the two lines every syntax error puts under it (README, Exit codes): the query indented by two
    /// spaces and a caret under the offending character (rendered by [`crate::diag`], which
    /// escapes control characters and lines the caret up with the escaped text).
    pub fn render(&self) -> String {
        let lines = crate::diag::caret_lines(&self.query, self.offset);
        format!("{}\n{}", self.message, lines.trim_end_matches('\n'))
    }
}

impl From<PathError> for crate::Error {
    fn from(e: PathError) -> crate::Error {
        crate::Error::Query {
            message: e.message,
            query: e.query,
            offset: e.offset,
        }
    }
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid JSONPath query: {}", self.message)
    }
}

impl std::error::Error for PathError {}

/// One step of a singular query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `.name` or `['name']`
    Name(String),
    /// `[i]`, negative counting from the end
    Index(i64),
}

/// A parsed, type-checked JSONPath query.
#[derive(Debug, Clone)]
pub struct Query {
    /// The text as typed.
    text: String,
    /// How many bytes the convenience prefix (`$` or `$.`) added before `text`.
    shift: usize,
    ast: ast::PathQuery,
}

impl Query {
    /// Parses a query exactly as RFC 9535 defines it (it must start with `$`).
    pub fn parse(text: &str) -> Result<Query, PathError> {
        Self::parse_with_prefix(text, "")
    }

    /// Parses with the README's convenience (`spill extract`): a query starting with `.` or `[` is read with `$`
    /// in front, one starting with a name character with `$.` in front. Error offsets still
    /// point into `text` as typed.
    pub fn parse_lenient(text: &str) -> Result<Query, PathError> {
        let prefix = match text.chars().next() {
            Some('.' | '[') => "$",
            Some(c) if normalized::is_name_first(c) => "$.",
            _ => "",
        };
        Self::parse_with_prefix(text, prefix)
    }

    fn parse_with_prefix(text: &str, prefix: &str) -> Result<Query, PathError> {
        let full;
        let src = if prefix.is_empty() {
            text
        } else {
            full = format!("{prefix}{text}");
            &full
        };
        match parser::parse_query(src) {
            Ok(ast) => Ok(Query {
                text: text.to_string(),
                shift: prefix.len(),
                ast,
            }),
            Err(e) => Err(PathError {
                query: text.to_string(),
                offset: e.offset.saturating_sub(prefix.len()).min(text.len()),
                message: e.message,
            }),
        }
    }

    /// The query as typed.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The query as evaluated (with the convenience prefix, if one was added).
    pub fn canonical_text(&self) -> String {
        let prefix = if self.shift == 2 {
            "$."
        } else {
            &"$"[..self.shift]
        };
        format!("{prefix}{}", self.text)
    }

    /// True for RFC 9535 singular queries (only name and index selectors, one per segment):
    /// they select at most one node, printed as a value rather than an array.
    pub fn is_singular(&self) -> bool {
        self.ast.is_singular()
    }

    /// The steps of a singular query (for engines with a fast path), `None` otherwise.
    pub fn singular_steps(&self) -> Option<Vec<Step>> {
        if !self.is_singular() {
            return None;
        }
        Some(
            self.ast
                .segments
                .iter()
                .map(|s| match &s.selectors[0] {
                    ast::Selector::Name(n) => Step::Name(n.clone()),
                    ast::Selector::Index(i) => Step::Index(*i),
                    _ => unreachable!("singular segments hold names and indexes"),
                })
                .collect(),
        )
    }

    /// The patterns written in the query's `match()` and `search()` calls that are not valid
    /// I-Regexp (RFC 9485), each once (the first call using it names the function), with why. Such a call is false for every value (RFC 9535
    /// §2.4.6), which is what evaluation does; `extract` also says so in a note. A pattern taken
    /// from the document (`match(@.a, @.re)`) is data, and is not checked here.
    pub fn invalid_patterns(&self) -> Vec<InvalidPattern> {
        let mut found: Vec<InvalidPattern> = Vec::new();
        let mut check = |f: &ast::Func| {
            let full = match f.name {
                ast::FuncName::Match => true,
                ast::FuncName::Search => false,
                _ => return,
            };
            let Some(ast::Arg::Value(ast::ValueExpr::Literal(ast::Literal::String(p)))) =
                f.args.get(1)
            else {
                return;
            };
            let function = if full { "match" } else { "search" };
            if let Err(reason) = iregexp::check(p, full)
                && !found.iter().any(|i| &i.pattern == p)
            {
                found.push(InvalidPattern {
                    function,
                    pattern: p.clone(),
                    reason,
                });
            }
        };
        visit_funcs(&self.ast, &mut check);
        found
    }

    /// Evaluates the query on the document whose root is `root`, calling `sink` with each
    /// selected node and its location, in RFC 9535 order, as soon as it is found. The sink
    /// returns [`ControlFlow::Break`] to stop early; the result says whether it did.
    pub fn select<'a, D: Doc>(
        &'a self,
        doc: &'a D,
        root: D::Node,
        mut sink: impl FnMut(&NormPath<'a>, D::Node) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, D::Error> {
        let eval = eval::Eval::new(doc, root);
        let mut path = NormPath::root();
        eval.run(&self.ast.segments, root, &mut path, &mut sink)
    }

    /// [`Query::select`] on the JSON engine, with two fast paths that select the same nodes
    /// in the same order with the same checks: `$..name` on a JSON document or on each record
    /// of an NDJSON one, one strict pass that finds the keys as it validates (see
    /// `descend.rs`); and `$[*].a.b…` on the records or a root array, a plain member lookup
    /// per element (see `chain.rs`).
    pub fn select_json<'a, 'd: 'a>(
        &'a self,
        doc: &'a JsonDoc<'d>,
        root: crate::json::Value<'d>,
        mut sink: impl FnMut(&NormPath<'a>, crate::json::Value<'d>) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, crate::json::SyntaxError> {
        if let [seg] = &self.ast.segments[..]
            && seg.descendant
            && let [ast::Selector::Name(name)] = &seg.selectors[..]
        {
            return descend::descend_name(doc, root, name, &mut sink);
        }
        if let [first, rest @ ..] = &self.ast.segments[..]
            && !first.descendant
            && matches!(first.selectors[..], [ast::Selector::Wildcard])
            && !rest.is_empty()
            && (is_records(root) || doc.bytes().get(root.offset()) == Some(&b'['))
        {
            let names: Option<Vec<&'a str>> = rest
                .iter()
                .map(|s| match &s.selectors[..] {
                    [ast::Selector::Name(n)] if !s.descendant => Some(n.as_str()),
                    _ => None,
                })
                .collect();
            if let Some(names) = names {
                return chain::each_member_chain(doc, root, &names, &mut sink);
            }
        }
        self.select(doc, root, sink)
    }
}

/// A `match()` or `search()` pattern in a query that is not valid I-Regexp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidPattern {
    /// `match` or `search`.
    pub function: &'static str,
    /// The pattern as written in the query.
    pub pattern: String,
    /// Why it is invalid: a lower-case phrase.
    pub reason: String,
}

/// Calls `f` with every function call in `query`, nested ones included (nesting is bounded by
/// the parser, so the recursion is too).
fn visit_funcs(query: &ast::PathQuery, f: &mut impl FnMut(&ast::Func)) {
    fn logical(l: &ast::Logical, f: &mut impl FnMut(&ast::Func)) {
        match l {
            ast::Logical::Or(v) | ast::Logical::And(v) => v.iter().for_each(|l| logical(l, f)),
            ast::Logical::Not(l) => logical(l, f),
            ast::Logical::Compare(a, _, b) => {
                value(a, f);
                value(b, f);
            }
            ast::Logical::Exists(q) => visit_funcs(q, f),
            ast::Logical::Func(func) => call(func, f),
        }
    }
    fn value(v: &ast::ValueExpr, f: &mut impl FnMut(&ast::Func)) {
        match v {
            ast::ValueExpr::Literal(_) => {}
            ast::ValueExpr::Query(q) => visit_funcs(q, f),
            ast::ValueExpr::Func(func) => call(func, f),
        }
    }
    fn call(func: &ast::Func, f: &mut impl FnMut(&ast::Func)) {
        f(func);
        for arg in &func.args {
            match arg {
                ast::Arg::Value(v) => value(v, f),
                ast::Arg::Nodes(q) => visit_funcs(q, f),
            }
        }
    }
    for segment in &query.segments {
        for selector in &segment.selectors {
            if let ast::Selector::Filter(l) = selector {
                logical(l, f);
            }
        }
    }
}

impl std::str::FromStr for Query {
    type Err = PathError;
    fn from_str(s: &str) -> Result<Query, PathError> {
        Query::parse(s)
    }
}
