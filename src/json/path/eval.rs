//! The evaluator: walks a [`Doc`] lazily, depth first, handing each selected node to a sink
//! as soon as it is found, so a caller can stop after N nodes and a singular query stops
//! reading the document as soon as its node is reached.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ops::ControlFlow;

use regex::Regex;

use super::ast::{
    Arg, CmpOp, Func, FuncName, Literal, Logical, PathQuery, Segment, Selector, ValueExpr,
};
use super::compare::Decimal;
use super::doc::{Doc, Kind, RING_LIMIT, WORK_CHECK};
use super::iregexp;
use super::normalized::{NormPath, PathElem};

/// What a sink returns: keep going, or stop the evaluation.
pub type Flow = ControlFlow<()>;

/// The receiver of selected nodes.
pub(crate) type Sink<'s, 'a, N> = dyn FnMut(&NormPath<'a>, N) -> Flow + 's;

/// Compiled patterns of `match()`/`search()`, so a filter over a million candidates
/// compiles its (usually literal) pattern once. Bounded: cleared when full.
const REGEX_CACHE_LIMIT: usize = 64;

pub(crate) struct Eval<'a, D: Doc> {
    doc: &'a D,
    root: D::Node,
    regexes: RefCell<HashMap<(bool, String), Option<Regex>>>,
    /// Results of filter subqueries rooted at `$`, by the address of their [`PathQuery`]: they
    /// do not depend on the candidate, so each runs once per evaluation instead of once per
    /// candidate (nested, the repeats multiplied: see [`super::work_limit`]).
    absolute: RefCell<HashMap<*const PathQuery, Absolute<D::Node>>>,
    /// Steps taken, for [`Doc::check_work`].
    steps: Cell<u64>,
}

/// What a filter needs from a subquery rooted at `$`, cached by [`Eval::absolute`].
#[derive(Clone, Copy)]
enum Absolute<N> {
    /// An existence test: whether it selects anything.
    Exists(bool),
    /// A comparison operand: the node of a singular query, if any.
    Singular(Option<N>),
    /// `count()`.
    Count(usize),
    /// `value()`: the node when exactly one is selected.
    Value(Option<N>),
}

/// A function or comparison operand (RFC 9535 ValueType, plus counts).
enum Val<'a, N> {
    Nothing,
    Node(N),
    Lit(&'a Literal),
    Int(usize),
}

/// An operand resolved for comparison.
enum Scalar<'a, N> {
    Nothing,
    Null,
    Bool(bool),
    Num(Cow<'a, Decimal>),
    Str(Cow<'a, str>),
    Array(N),
    Object(N),
}

enum Children<'a, D: Doc + 'a> {
    Members(D::Members<'a>),
    Elements(D::Elements<'a>, usize),
}

impl<'a, D: Doc + 'a> Children<'a, D> {
    fn of(doc: &'a D, node: D::Node) -> Result<Option<Self>, D::Error> {
        Ok(match doc.kind(node)? {
            Kind::Object => Some(Children::Members(doc.members(node))),
            Kind::Array => Some(Children::Elements(doc.elements(node), 0)),
            _ => None,
        })
    }

    /// Where this exhausted iterator stopped, if the document knows.
    fn end(&self, doc: &'a D) -> Option<usize> {
        match self {
            Children::Members(m) => doc.members_end(m),
            Children::Elements(e, _) => doc.elements_end(e),
        }
    }

    /// The child handed out last ends at `end`: do not skip it again.
    fn resume(&mut self, doc: &'a D, end: usize) {
        match self {
            Children::Members(m) => doc.resume_members(m, end),
            Children::Elements(e, _) => doc.resume_elements(e, end),
        }
    }

    #[allow(clippy::type_complexity)]
    fn next(&mut self) -> Option<Result<(PathElem<'a>, D::Node), D::Error>> {
        match self {
            Children::Members(m) => m.next().map(|r| r.map(|(k, v)| (PathElem::Name(k), v))),
            Children::Elements(e, i) => e.next().map(|r| {
                r.map(|v| {
                    let index = *i;
                    *i += 1;
                    (PathElem::Index(index), v)
                })
            }),
        }
    }
}

fn singular_segment(s: &Segment) -> bool {
    !s.descendant
        && s.selectors.len() == 1
        && matches!(s.selectors[0], Selector::Name(_) | Selector::Index(_))
}

impl<'a, D: Doc> Eval<'a, D> {
    pub fn new(doc: &'a D, root: D::Node) -> Self {
        Eval {
            doc,
            root,
            regexes: RefCell::new(HashMap::new()),
            absolute: RefCell::new(HashMap::new()),
            steps: Cell::new(0),
        }
    }

    /// Counts one step (see [`Doc::check_work`]) at `node`.
    #[inline]
    fn step(&self, node: D::Node) -> Result<(), D::Error> {
        let steps = self.steps.get() + 1;
        self.steps.set(steps);
        if steps.is_multiple_of(WORK_CHECK) {
            self.doc.check_work(node, steps)?;
        }
        Ok(())
    }

    /// The cached result of `q` if it is rooted at `$`, else (or on first use) `compute`'s.
    fn once(
        &self,
        q: &'a PathQuery,
        current: D::Node,
        compute: impl FnOnce(D::Node) -> Result<Absolute<D::Node>, D::Error>,
    ) -> Result<Absolute<D::Node>, D::Error> {
        if q.relative {
            return compute(current);
        }
        let key: *const PathQuery = q;
        if let Some(&known) = self.absolute.borrow().get(&key) {
            return Ok(known);
        }
        // No borrow is held while computing: the subquery may hold absolute subqueries too.
        let result = compute(self.root)?;
        self.absolute.borrow_mut().insert(key, result);
        Ok(result)
    }

    /// Applies `segs` to `node` (whose location is `path`), feeding `sink`.
    pub fn run(
        &self,
        segs: &'a [Segment],
        node: D::Node,
        path: &mut NormPath<'a>,
        sink: &mut Sink<'_, 'a, D::Node>,
    ) -> Result<Flow, D::Error> {
        // Singular tails run as a loop: no recursion, whatever their length.
        if segs.iter().all(singular_segment) {
            let base = path.len();
            let found = self.singular(segs, node, Some(path))?;
            let flow = match found {
                Some(n) => sink(path, n),
                None => Flow::Continue(()),
            };
            path.truncate(base);
            return Ok(flow);
        }
        let Some((seg, rest)) = segs.split_first() else {
            return Ok(sink(path, node));
        };
        if seg.descendant {
            self.descend(seg, rest, node, path, sink)
        } else {
            self.child(seg, rest, node, path, sink)
        }
    }

    /// Follows name and index segments; `path` (if given) receives the steps taken.
    pub fn singular(
        &self,
        segs: &'a [Segment],
        mut node: D::Node,
        mut path: Option<&mut NormPath<'a>>,
    ) -> Result<Option<D::Node>, D::Error> {
        for seg in segs {
            self.step(node)?;
            let (elem, next) = match &seg.selectors[0] {
                Selector::Name(name) => {
                    if self.doc.kind(node)? != Kind::Object {
                        return Ok(None);
                    }
                    match self.doc.member(node, name)? {
                        Some(n) => (PathElem::Name(Cow::Borrowed(name.as_str())), n),
                        None => return Ok(None),
                    }
                }
                Selector::Index(i) => match self.index(node, *i)? {
                    Some((index, n)) => (PathElem::Index(index), n),
                    None => return Ok(None),
                },
                _ => unreachable!("singular segments hold one name or index selector"),
            };
            if let Some(p) = path.as_deref_mut() {
                p.push(elem);
            }
            node = next;
        }
        Ok(Some(node))
    }

    /// Element `i` (negative: from the end) of an array node, with its non-negative index.
    pub fn index(&self, node: D::Node, i: i64) -> Result<Option<(usize, D::Node)>, D::Error> {
        if self.doc.kind(node)? != Kind::Array {
            return Ok(None);
        }
        if i >= 0 {
            let i = i as usize;
            Ok(self.doc.element(node, i)?.map(|n| (i, n)))
        } else {
            self.doc.element_from_end(node, i.unsigned_abs() as usize)
        }
    }

    fn child(
        &self,
        seg: &'a Segment,
        rest: &'a [Segment],
        node: D::Node,
        path: &mut NormPath<'a>,
        sink: &mut Sink<'_, 'a, D::Node>,
    ) -> Result<Flow, D::Error> {
        for sel in &seg.selectors {
            if self.select(sel, rest, node, path, sink)?.is_break() {
                return Ok(Flow::Break(()));
            }
        }
        Ok(Flow::Continue(()))
    }

    /// The descendant segment: the child selectors applied to `node` and to each of its
    /// descendants in document (pre-)order, with an explicit stack so depth is unlimited.
    fn descend(
        &self,
        seg: &'a Segment,
        rest: &'a [Segment],
        node: D::Node,
        path: &mut NormPath<'a>,
        sink: &mut Sink<'_, 'a, D::Node>,
    ) -> Result<Flow, D::Error> {
        let base = path.len();
        if self.child(seg, rest, node, path, sink)?.is_break() {
            return Ok(Flow::Break(()));
        }
        let mut stack: Vec<(Children<'a, D>, usize)> = Vec::new();
        if let Some(c) = Children::of(self.doc, node)? {
            stack.push((c, base));
        }
        while let Some((children, plen)) = stack.last_mut() {
            let plen = *plen;
            let Some(next) = children.next() else {
                // This container was walked to its end: its parent can resume right there.
                let end = children.end(self.doc);
                stack.pop();
                if let (Some(end), Some((parent, _))) = (end, stack.last_mut()) {
                    parent.resume(self.doc, end);
                }
                continue;
            };
            let (elem, child) = next?;
            self.step(child)?;
            path.truncate(plen);
            path.push(elem);
            if self.child(seg, rest, child, path, sink)?.is_break() {
                path.truncate(base);
                return Ok(Flow::Break(()));
            }
            path.truncate(plen + 1);
            if let Some(c) = Children::of(self.doc, child)? {
                // `stack.len()` is the child's depth below `node` (the stack holds its ancestors).
                self.doc.check_descent(child, stack.len())?;
                stack.push((c, plen + 1));
            }
        }
        path.truncate(base);
        Ok(Flow::Continue(()))
    }

    fn select(
        &self,
        sel: &'a Selector,
        rest: &'a [Segment],
        node: D::Node,
        path: &mut NormPath<'a>,
        sink: &mut Sink<'_, 'a, D::Node>,
    ) -> Result<Flow, D::Error> {
        self.step(node)?;
        let base = path.len();
        let flow = match sel {
            Selector::Name(name) => {
                if self.doc.kind(node)? != Kind::Object {
                    return Ok(Flow::Continue(()));
                }
                match self.doc.member(node, name)? {
                    Some(child) => {
                        path.push(PathElem::Name(Cow::Borrowed(name.as_str())));
                        self.run(rest, child, path, sink)?
                    }
                    None => Flow::Continue(()),
                }
            }
            Selector::Index(i) => match self.index(node, *i)? {
                Some((index, child)) => {
                    path.push(PathElem::Index(index));
                    self.run(rest, child, path, sink)?
                }
                None => Flow::Continue(()),
            },
            Selector::Wildcard => self.each_child(None, rest, node, path, sink)?,
            Selector::Filter(expr) => self.each_child(Some(expr), rest, node, path, sink)?,
            Selector::Slice { start, end, step } => {
                self.slice(*start, *end, step.unwrap_or(1), rest, node, path, sink)?
            }
        };
        path.truncate(base);
        Ok(flow)
    }

    /// Every child of `node` (those passing `filter`, if any), in document order.
    fn each_child(
        &self,
        filter: Option<&'a Logical>,
        rest: &'a [Segment],
        node: D::Node,
        path: &mut NormPath<'a>,
        sink: &mut Sink<'_, 'a, D::Node>,
    ) -> Result<Flow, D::Error> {
        let base = path.len();
        let Some(mut children) = Children::of(self.doc, node)? else {
            return Ok(Flow::Continue(()));
        };
        while let Some(next) = children.next() {
            let (elem, child) = next?;
            self.step(child)?;
            if let Some(f) = filter
                && !self.test(f, child)?
            {
                continue;
            }
            path.truncate(base);
            path.push(elem);
            if self.run(rest, child, path, sink)?.is_break() {
                path.truncate(base);
                return Ok(Flow::Break(()));
            }
        }
        path.truncate(base);
        Ok(Flow::Continue(()))
    }

    /// RFC 9535 §2.3.4 slices. Non-negative bounds with a positive step stream without
    /// knowing the length; other slices count the elements first.
    #[allow(clippy::too_many_arguments)]
    fn slice(
        &self,
        start: Option<i64>,
        end: Option<i64>,
        step: i64,
        rest: &'a [Segment],
        node: D::Node,
        path: &mut NormPath<'a>,
        sink: &mut Sink<'_, 'a, D::Node>,
    ) -> Result<Flow, D::Error> {
        if step == 0 || self.doc.kind(node)? != Kind::Array {
            return Ok(Flow::Continue(()));
        }
        let (lower, upper) = if step > 0 && start.unwrap_or(0) >= 0 && end.is_none_or(|e| e >= 0) {
            (start.unwrap_or(0), end.unwrap_or(i64::MAX))
        } else if step > 0
            && start.is_some_and(|s| s < 0 && s.unsigned_abs() as usize <= RING_LIMIT)
        {
            let back = start.map_or(0, |s| s.unsigned_abs() as usize);
            return self.slice_tail(back, end, step, rest, node, path, sink);
        } else {
            let len = self.doc.len(node)? as i64;
            let norm = |i: i64| if i >= 0 { i } else { len + i };
            if step > 0 {
                (
                    norm(start.unwrap_or(0)).clamp(0, len),
                    norm(end.unwrap_or(len)).clamp(0, len),
                )
            } else {
                let upper = start.map_or(len - 1, |s| norm(s).clamp(-1, len - 1));
                let lower = end.map_or(-1, |e| norm(e).clamp(-1, len - 1));
                return self.slice_backwards(lower, upper, step, rest, node, path, sink);
            }
        };
        if lower >= upper {
            return Ok(Flow::Continue(()));
        }
        let base = path.len();
        for (i, e) in self.doc.elements(node).enumerate() {
            let i = i as i64;
            if i >= upper {
                break;
            }
            let e = e?;
            self.step(e)?;
            if i < lower || (i - lower) % step != 0 {
                continue;
            }
            path.truncate(base);
            path.push(PathElem::Index(i as usize));
            if self.run(rest, e, path, sink)?.is_break() {
                path.truncate(base);
                return Ok(Flow::Break(()));
            }
        }
        path.truncate(base);
        Ok(Flow::Continue(()))
    }

    /// A forward slice starting `back` elements from the end (`[-5:]`): one pass keeps the
    /// last `back` handles in a ring buffer; every selected element is among them.
    #[allow(clippy::too_many_arguments)]
    fn slice_tail(
        &self,
        back: usize,
        end: Option<i64>,
        step: i64,
        rest: &'a [Segment],
        node: D::Node,
        path: &mut NormPath<'a>,
        sink: &mut Sink<'_, 'a, D::Node>,
    ) -> Result<Flow, D::Error> {
        let mut ring: Vec<D::Node> = Vec::with_capacity(back.min(64));
        let mut len = 0usize;
        for e in self.doc.elements(node) {
            let e = e?;
            self.step(e)?;
            if ring.len() < back {
                ring.push(e);
            } else {
                ring[len % back] = e;
            }
            len += 1;
        }
        let ilen = len as i64;
        let lower = (ilen - back as i64).max(0);
        let upper = match end {
            None => ilen,
            Some(e) if e >= 0 => e.min(ilen),
            Some(e) => (ilen + e).clamp(0, ilen),
        };
        let base = path.len();
        let mut i = lower;
        while i < upper {
            let index = i as usize;
            path.truncate(base);
            path.push(PathElem::Index(index));
            if self.run(rest, ring[index % back], path, sink)?.is_break() {
                path.truncate(base);
                return Ok(Flow::Break(()));
            }
            i += step;
        }
        path.truncate(base);
        Ok(Flow::Continue(()))
    }

    /// A negative-step slice: indexes `upper, upper+step, …` while greater than `lower`. The
    /// selected handles are gathered in one pass, then visited in reverse.
    #[allow(clippy::too_many_arguments)]
    fn slice_backwards(
        &self,
        lower: i64,
        upper: i64,
        step: i64,
        rest: &'a [Segment],
        node: D::Node,
        path: &mut NormPath<'a>,
        sink: &mut Sink<'_, 'a, D::Node>,
    ) -> Result<Flow, D::Error> {
        if upper <= lower {
            return Ok(Flow::Continue(()));
        }
        let stride = step.unsigned_abs() as i64;
        let mut picked = Vec::new();
        for (i, e) in self.doc.elements(node).enumerate() {
            let i = i as i64;
            if i > upper {
                break;
            }
            let e = e?;
            self.step(e)?;
            if i > lower && (upper - i) % stride == 0 {
                picked.push((i as usize, e));
            }
        }
        let base = path.len();
        for (i, e) in picked.into_iter().rev() {
            path.truncate(base);
            path.push(PathElem::Index(i));
            if self.run(rest, e, path, sink)?.is_break() {
                path.truncate(base);
                return Ok(Flow::Break(()));
            }
        }
        path.truncate(base);
        Ok(Flow::Continue(()))
    }

    /// A filter expression on one candidate node.
    fn test(&self, expr: &'a Logical, current: D::Node) -> Result<bool, D::Error> {
        Ok(match expr {
            Logical::Or(items) => {
                for e in items {
                    if self.test(e, current)? {
                        return Ok(true);
                    }
                }
                false
            }
            Logical::And(items) => {
                for e in items {
                    if !self.test(e, current)? {
                        return Ok(false);
                    }
                }
                true
            }
            Logical::Not(e) => !self.test(e, current)?,
            Logical::Exists(q) => {
                let found = self.once(q, current, |start| {
                    let mut path = NormPath::root();
                    let flow =
                        self.run(&q.segments, start, &mut path, &mut |_, _| Flow::Break(()))?;
                    Ok(Absolute::Exists(flow.is_break()))
                })?;
                matches!(found, Absolute::Exists(true))
            }
            Logical::Compare(l, op, r) => {
                let a = self.value(l, current)?;
                let a = self.scalar(&a)?;
                let b = self.value(r, current)?;
                let b = self.scalar(&b)?;
                match op {
                    CmpOp::Eq => self.equal(&a, &b)?,
                    CmpOp::Ne => !self.equal(&a, &b)?,
                    CmpOp::Lt => less(&a, &b),
                    CmpOp::Gt => less(&b, &a),
                    CmpOp::Le => less(&a, &b) || self.equal(&a, &b)?,
                    CmpOp::Ge => less(&b, &a) || self.equal(&a, &b)?,
                }
            }
            Logical::Func(f) => self.logical_func(f, current)?,
        })
    }

    fn logical_func(&self, f: &'a Func, current: D::Node) -> Result<bool, D::Error> {
        let full = match f.name {
            FuncName::Match => true,
            FuncName::Search => false,
            // The type checker admits only LogicalType/NodesType functions here.
            _ => return Ok(false),
        };
        let (Arg::Value(s), Arg::Value(p)) = (&f.args[0], &f.args[1]) else {
            return Ok(false);
        };
        let s = self.value(s, current)?;
        let Scalar::Str(s) = self.scalar(&s)? else {
            return Ok(false);
        };
        let p = self.value(p, current)?;
        let Scalar::Str(p) = self.scalar(&p)? else {
            return Ok(false);
        };
        let mut cache = self.regexes.borrow_mut();
        if cache.len() >= REGEX_CACHE_LIMIT {
            cache.clear();
        }
        let re = cache
            .entry((full, p.into_owned()))
            .or_insert_with_key(|(full, p)| iregexp::compile(p, *full).ok());
        Ok(re.as_ref().is_some_and(|re| re.is_match(&s)))
    }

    fn value(&self, v: &'a ValueExpr, current: D::Node) -> Result<Val<'a, D::Node>, D::Error> {
        Ok(match v {
            ValueExpr::Literal(l) => Val::Lit(l),
            ValueExpr::Query(q) => {
                let found = self.once(q, current, |start| {
                    Ok(Absolute::Singular(self.singular(
                        &q.segments,
                        start,
                        None,
                    )?))
                })?;
                match found {
                    Absolute::Singular(Some(n)) => Val::Node(n),
                    _ => Val::Nothing,
                }
            }
            ValueExpr::Func(f) => match (f.name, &f.args[0]) {
                (FuncName::Length, Arg::Value(arg)) => {
                    let arg = self.value(arg, current)?;
                    match self.scalar(&arg)? {
                        Scalar::Str(s) => Val::Int(s.chars().count()),
                        Scalar::Array(n) | Scalar::Object(n) => Val::Int(self.doc.len(n)?),
                        _ => Val::Nothing,
                    }
                }
                (FuncName::Count, Arg::Nodes(q)) => {
                    let found = self.once(q, current, |start| {
                        let mut count = 0usize;
                        let mut path = NormPath::root();
                        let _ = self.run(&q.segments, start, &mut path, &mut |_, _| {
                            count += 1;
                            Flow::Continue(())
                        })?;
                        Ok(Absolute::Count(count))
                    })?;
                    match found {
                        Absolute::Count(n) => Val::Int(n),
                        _ => Val::Nothing,
                    }
                }
                (FuncName::Value, Arg::Nodes(q)) => {
                    let found = self.once(q, current, |start| {
                        let mut first = None;
                        let mut count = 0usize;
                        let mut path = NormPath::root();
                        let _ = self.run(&q.segments, start, &mut path, &mut |_, n| {
                            count += 1;
                            first = Some(n);
                            if count > 1 {
                                Flow::Break(())
                            } else {
                                Flow::Continue(())
                            }
                        })?;
                        Ok(Absolute::Value(if count == 1 { first } else { None }))
                    })?;
                    match found {
                        Absolute::Value(Some(n)) => Val::Node(n),
                        _ => Val::Nothing,
                    }
                }
                _ => Val::Nothing,
            },
        })
    }

    fn scalar(&self, v: &Val<'a, D::Node>) -> Result<Scalar<'a, D::Node>, D::Error> {
        Ok(match v {
            Val::Nothing => Scalar::Nothing,
            Val::Int(n) => Scalar::Num(Cow::Owned(Decimal::from_usize(*n))),
            Val::Lit(Literal::Null) => Scalar::Null,
            Val::Lit(Literal::Bool(b)) => Scalar::Bool(*b),
            Val::Lit(Literal::Number(d)) => Scalar::Num(Cow::Borrowed(d)),
            Val::Lit(Literal::String(s)) => Scalar::Str(Cow::Borrowed(s)),
            Val::Node(n) => self.node_scalar(*n)?,
        })
    }

    fn node_scalar(&self, n: D::Node) -> Result<Scalar<'a, D::Node>, D::Error> {
        Ok(match self.doc.kind(n)? {
            Kind::Null => Scalar::Null,
            Kind::Bool => Scalar::Bool(self.doc.boolean(n)?),
            Kind::Number => Scalar::Num(Cow::Owned(Decimal::parse(&self.doc.number(n)?))),
            Kind::String => Scalar::Str(self.doc.string(n)?),
            Kind::Array => Scalar::Array(n),
            Kind::Object => Scalar::Object(n),
        })
    }

    fn equal(&self, a: &Scalar<'a, D::Node>, b: &Scalar<'a, D::Node>) -> Result<bool, D::Error> {
        Ok(match (a, b) {
            (Scalar::Nothing, Scalar::Nothing) | (Scalar::Null, Scalar::Null) => true,
            (Scalar::Bool(x), Scalar::Bool(y)) => x == y,
            (Scalar::Num(x), Scalar::Num(y)) => x == y,
            (Scalar::Str(x), Scalar::Str(y)) => x == y,
            (Scalar::Array(x), Scalar::Array(y)) | (Scalar::Object(x), Scalar::Object(y)) => {
                self.deep_equal(*x, *y)?
            }
            _ => false,
        })
    }

    /// Structural equality of two values, with an explicit stack (depth unlimited).
    fn deep_equal(&self, x: D::Node, y: D::Node) -> Result<bool, D::Error> {
        let mut stack = vec![(x, y)];
        while let Some((a, b)) = stack.pop() {
            self.step(a)?;
            let (ka, kb) = (self.doc.kind(a)?, self.doc.kind(b)?);
            if ka != kb {
                return Ok(false);
            }
            match ka {
                Kind::Array => {
                    let (mut ia, mut ib) = (self.doc.elements(a), self.doc.elements(b));
                    loop {
                        match (ia.next(), ib.next()) {
                            (None, None) => break,
                            (Some(p), Some(q)) => stack.push((p?, q?)),
                            _ => return Ok(false),
                        }
                    }
                }
                Kind::Object => {
                    let mut members = HashMap::new();
                    for m in self.doc.members(b) {
                        let (k, v) = m?;
                        members.insert(k, v);
                    }
                    let mut count = 0usize;
                    for m in self.doc.members(a) {
                        let (k, v) = m?;
                        count += 1;
                        match members.get(&k) {
                            Some(&w) => stack.push((v, w)),
                            None => return Ok(false),
                        }
                    }
                    if count != members.len() {
                        return Ok(false);
                    }
                }
                _ => {
                    let (sa, sb) = (self.node_scalar(a)?, self.node_scalar(b)?);
                    if !self.equal(&sa, &sb)? {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }
}

/// `<` of RFC 9535 §2.3.5.2.2: numbers with numbers, strings with strings; false otherwise.
fn less<N>(a: &Scalar<'_, N>, b: &Scalar<'_, N>) -> bool {
    match (a, b) {
        (Scalar::Num(x), Scalar::Num(y)) => x < y,
        (Scalar::Str(x), Scalar::Str(y)) => x < y,
        _ => false,
    }
}
