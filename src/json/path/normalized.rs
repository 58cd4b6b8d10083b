//! Node locations: RFC 9535 normalized paths (`$['items'][0]`) and dot notation (`$.items[0]`).

use std::borrow::Cow;
use std::fmt::Write as _;

/// One step of a location: a member name or an array index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathElem<'a> {
    /// A member of an object.
    Name(Cow<'a, str>),
    /// An element of an array.
    Index(usize),
}

impl PathElem<'_> {
    /// The same step, owning its name.
    pub fn into_owned(self) -> PathElem<'static> {
        match self {
            PathElem::Name(n) => PathElem::Name(Cow::Owned(n.into_owned())),
            PathElem::Index(i) => PathElem::Index(i),
        }
    }
}

/// The location of a node: the steps from the root.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct NormPath<'a> {
    elems: Vec<PathElem<'a>>,
}

impl<'a> NormPath<'a> {
    /// The root, `$`.
    pub fn root() -> Self {
        NormPath { elems: Vec::new() }
    }

    /// A path made of these steps.
    pub fn from_elems(elems: Vec<PathElem<'a>>) -> Self {
        NormPath { elems }
    }

    /// The steps from the root.
    pub fn elems(&self) -> &[PathElem<'a>] {
        &self.elems
    }

    /// The number of steps.
    pub fn len(&self) -> usize {
        self.elems.len()
    }

    /// True for the root.
    pub fn is_empty(&self) -> bool {
        self.elems.is_empty()
    }

    /// Appends a step.
    pub fn push(&mut self, elem: PathElem<'a>) {
        self.elems.push(elem);
    }

    /// Drops the steps after the first `len`.
    pub fn truncate(&mut self, len: usize) {
        self.elems.truncate(len);
    }

    /// The same path, owning its names (to keep it past the document borrow).
    pub fn into_owned(self) -> NormPath<'static> {
        NormPath {
            elems: self.elems.into_iter().map(PathElem::into_owned).collect(),
        }
    }

    /// The RFC 9535 §2.7 normalized path: `$['items'][0]`.
    pub fn to_normalized(&self) -> String {
        let mut out = String::from("$");
        for e in &self.elems {
            match e {
                PathElem::Name(n) => push_bracket_name(&mut out, n),
                PathElem::Index(i) => {
                    let _ = write!(out, "[{i}]");
                }
            }
        }
        out
    }

    /// Dot notation for humans and continuation hints: `$.items[0]`, with `['a b']` where a
    /// name is not a valid member-name shorthand. It is a valid query selecting this node.
    pub fn to_dot(&self) -> String {
        let mut out = String::from("$");
        for e in &self.elems {
            match e {
                PathElem::Name(n) => push_member(&mut out, n),
                PathElem::Index(i) => {
                    let _ = write!(out, "[{i}]");
                }
            }
        }
        out
    }
}

/// Appends `['name']` with the normalized-path escaping of RFC 9535 §2.7: `'` and `\` escaped,
/// `\b \f \n \r \t` for those controls and `\u00xx` (lower-case hex) for the others.
pub fn push_bracket_name(out: &mut String, name: &str) {
    out.push_str("['");
    for c in name.chars() {
        match c {
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push_str("']");
}

/// Appends the selector for member `name` in the friendliest valid spelling: `.name` where the
/// RFC's member-name shorthand allows it, else `['name']`.
pub fn push_member(out: &mut String, name: &str) {
    if is_shorthand_name(name) {
        out.push('.');
        out.push_str(name);
    } else {
        push_bracket_name(out, name);
    }
}

/// True when `.name` is valid RFC 9535 member-name shorthand.
pub fn is_shorthand_name(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if is_name_first(c) => chars.all(|c| is_name_first(c) || c.is_ascii_digit()),
        _ => false,
    }
}

/// RFC 9535 `name-first`: ALPHA, `_`, or any non-ASCII scalar value.
pub(crate) fn is_name_first(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || !c.is_ascii()
}
