//! The document abstraction the JSONPath evaluator walks: any JSON tree with cheap, lazy access.

use std::borrow::Cow;

/// The six kinds of JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `null`
    Null,
    /// `true` or `false`
    Bool,
    /// a number
    Number,
    /// a string
    String,
    /// an array
    Array,
    /// an object
    Object,
}

/// A JSON document the evaluator can walk without materialising it.
///
/// A node is a small `Copy` handle (for the engine: the byte offset where the value starts).
/// Iteration is lazy and stoppable, so `$.items[5]` only reads the prefix of the document that
/// holds it. Anything wrong found on the way (a bad first byte, a bad escape, a truncated
/// value) is reported through the `Result`s and ends the evaluation with that error.
pub trait Doc {
    /// A handle to one value of the document.
    type Node: Copy;
    /// The error met while reading the document (for example invalid JSON).
    type Error;
    /// Iterator over an object's members, in document order.
    type Members<'a>: Iterator<Item = Result<(Cow<'a, str>, Self::Node), Self::Error>>
    where
        Self: 'a;
    /// Iterator over an array's elements, in document order.
    type Elements<'a>: Iterator<Item = Result<Self::Node, Self::Error>>
    where
        Self: 'a;

    /// The kind of `node` (called often: judge it from the first byte).
    fn kind(&self, node: Self::Node) -> Result<Kind, Self::Error>;
    /// The members (decoded name, value) of an object node; empty for other kinds.
    fn members(&self, node: Self::Node) -> Self::Members<'_>;
    /// The elements of an array node; empty for other kinds.
    fn elements(&self, node: Self::Node) -> Self::Elements<'_>;
    /// The decoded text of a string node.
    fn string(&self, node: Self::Node) -> Result<Cow<'_, str>, Self::Error>;
    /// The text of a number node exactly as written in the source (RFC 8259 grammar).
    fn number(&self, node: Self::Node) -> Result<Cow<'_, str>, Self::Error>;
    /// The value of a boolean node.
    fn boolean(&self, node: Self::Node) -> Result<bool, Self::Error>;

    /// The value of the first member named `name` of an object node.
    ///
    /// Provided as a scan over `members`; an engine may override it with a faster skip.
    fn member(&self, node: Self::Node, name: &str) -> Result<Option<Self::Node>, Self::Error> {
        for m in self.members(node) {
            let (key, value) = m?;
            if key == name {
                return Ok(Some(value));
            }
        }
        Ok(None)
    }

    /// Element `index` (from the start) of an array node, reading only up to it.
    fn element(&self, node: Self::Node, index: usize) -> Result<Option<Self::Node>, Self::Error> {
        self.elements(node).nth(index).transpose()
    }

    /// The number of elements of an array node (members of an object node).
    fn len(&self, node: Self::Node) -> Result<usize, Self::Error> {
        let mut n = 0usize;
        match self.kind(node)? {
            Kind::Array => {
                for e in self.elements(node) {
                    e?;
                    n += 1;
                }
            }
            Kind::Object => {
                for m in self.members(node) {
                    m?;
                    n += 1;
                }
            }
            _ => {}
        }
        Ok(n)
    }

    /// Called before a descendant segment (`..`) walks into container `node`, `depth` levels
    /// below the node the segment started from; an error stops the evaluation. The default
    /// allows any depth; the engine refuses more than [`MAX_DESCENT`] levels.
    fn check_descent(&self, _node: Self::Node, _depth: usize) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Called every 4,096 steps of an evaluation with the steps taken so far, `node`
    /// being the value reached; an error stops the evaluation. A step is one selector or
    /// singular segment applied to a value, one value visited by a wildcard, filter, slice or
    /// descendant segment (in the query or in a filter's subqueries), or one pair of values
    /// compared by `==`. The default allows any number;
    /// the engine allows [`work_limit`] of its document's length.
    fn check_work(&self, _node: Self::Node, _steps: u64) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Where an exhausted members iterator stopped (for the engine: the offset just past the
    /// closing brace); `None` when unknown. With [`Doc::resume_members`] and its element twins,
    /// this lets a descendant walk (`..`) tell a parent iterator where the child it just walked
    /// ends, so the child is not skipped a second time: without them `$..x` reads each byte
    /// once per level of nesting above it.
    fn members_end<'a>(&'a self, _members: &Self::Members<'a>) -> Option<usize> {
        None
    }

    /// Where an exhausted elements iterator stopped; see [`Doc::members_end`].
    fn elements_end<'a>(&'a self, _elements: &Self::Elements<'a>) -> Option<usize> {
        None
    }

    /// Tells a members iterator that the value it handed out last ends at `end` (a position
    /// from [`Doc::members_end`] or [`Doc::elements_end`]), so it need not skip that value.
    fn resume_members<'a>(&'a self, _members: &mut Self::Members<'a>, _end: usize) {}

    /// Tells an elements iterator where the value it handed out last ends; see
    /// [`Doc::resume_members`].
    fn resume_elements<'a>(&'a self, _elements: &mut Self::Elements<'a>, _end: usize) {}

    /// Element `back` positions from the end (`1` is the last) of an array node, with its
    /// index, in one pass: the last `back` element handles are kept in a ring buffer.
    fn element_from_end(
        &self,
        node: Self::Node,
        back: usize,
    ) -> Result<Option<(usize, Self::Node)>, Self::Error> {
        if back == 0 {
            return Ok(None);
        }
        // A huge `back` would make the ring buffer huge: count first, then seek.
        if back > RING_LIMIT {
            let len = self.len(node)?;
            if back > len {
                return Ok(None);
            }
            return Ok(self.element(node, len - back)?.map(|n| (len - back, n)));
        }
        let mut ring: Vec<Self::Node> = Vec::with_capacity(back.min(64));
        let mut count = 0usize;
        for e in self.elements(node) {
            let e = e?;
            if ring.len() < back {
                ring.push(e);
            } else {
                ring[count % back] = e;
            }
            count += 1;
        }
        if count < back {
            return Ok(None);
        }
        let index = count - back;
        Ok(Some((index, ring[index % back])))
    }
}

/// Above this many elements from the end, `element_from_end` counts then seeks instead of
/// buffering.
pub(crate) const RING_LIMIT: usize = 4096;

/// How many levels below its starting node a descendant segment (`..`) walks in a document of
/// the engine; deeper containers stop the evaluation with [`crate::json::Fault::TooDeep`].
///
/// Why a limit: a descendant segment applies its selectors to every node it passes, and
/// listing a node's children means skipping over each child, so every byte is read once per
/// level above it. For ordinary documents (tens of levels) that is nothing; for a 2 MB array
/// nested 1,000,000 deep, `$..*` read 10^12 bytes (294 s), and its explicit stack used ~94 MiB.
/// With the limit, the stack stays under 100 KiB and the worst case reads each byte at most
/// 1,000 times (0.6 s on that file) before the clear error. Paths without `..` reach any
/// depth; 1,000 is above any document seen in practice (serde_json refuses more than 128
/// levels by default, Python's json about 1,000, jq 10,000).
pub const MAX_DESCENT: usize = 1000;

/// How often (in steps) an evaluation calls [`Doc::check_work`].
pub(crate) const WORK_CHECK: u64 = 1 << 12;

/// The most steps (see [`Doc::check_work`]) a query may take on a document of the engine of
/// `len` bytes: 10 million plus 16 per byte. Past it, the evaluation stops with
/// [`crate::json::Fault::TooCostly`] (exit 2).
///
/// Why a limit: RFC 9535 filters nest, and a filter's subquery runs once per candidate, so
/// nested filters over descendant segments multiply: `$..*[?@..*[?@..*[?@.x]]]` on an array
/// nested 1,000 deep (a 2 KB document) visits ~10^8 values, each level of nesting multiplies
/// that by up to 1,000 again, and on a document this deep a step costs ~170 ns (listing a
/// child skips the values nested in it). Repeated selectors multiply too (`$[*,*,…][*,*,…]`).
/// Subqueries rooted at `$` do not depend on the candidate and run once per evaluation. A query that reads its document once takes at most
/// a few steps per value, and a value takes at least one byte, so the limit does not stop
/// such a query, nor one that revisits each value a few times; it stops the runaway ones
/// within seconds instead of hours.
pub fn work_limit(len: usize) -> u64 {
    10_000_000 + 16 * len as u64
}
