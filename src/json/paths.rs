//! Paths: RFC 9535 normalized paths of byte offsets (for `search --paths`) and path spelling.

use super::SyntaxError;
use super::nav::decode_string;
use super::parse::{Container, Flow, Scalar, Visitor, walk_records};
use super::path::push_bracket_name;

/// The path answering one byte offset of [`paths_at_offsets`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathHit {
    /// The RFC 9535 normalized path of the innermost value containing the offset
    /// (`$['items'][3]['msg']`); `$` for offsets outside every value.
    pub path: String,
    /// The offset is inside an object key; `path` is then the object's path.
    pub in_key: bool,
}

/// For each byte offset, the normalized path of the innermost value (or key) containing it, in
/// one streaming pass that stops after the last offset and jumps over large containers that
/// hold none of the offsets (lenient there: only the parts walked are checked). `offsets` may be in any order; the
/// result is in the same order.
///
/// With `ndjson`, top-level value `i` is `$[i]` (records are addressed as an array). Offsets
/// between members (whitespace, commas, colons) belong to the enclosing container.
///
/// A member whose key an earlier member of the same object already has is not reached by its
/// name (the first member wins, for every command: README, *Exactness*), so an offset inside
/// it, key or value, is answered with the path of the object that holds it.
pub fn paths_at_offsets(
    doc: &[u8],
    offsets: &[u64],
    ndjson: bool,
) -> Result<Vec<PathHit>, SyntaxError> {
    paths_at_offsets_skipping(doc, offsets, ndjson, false).map(|(hits, _)| hits)
}

/// [`paths_at_offsets`], with the NDJSON lines that are not exactly one JSON value skipped
/// when `skip_invalid` is set (records keep the indexes `extract --skip-invalid` gives them);
/// also returns how many lines were skipped before the walk stopped.
pub fn paths_at_offsets_skipping(
    doc: &[u8],
    offsets: &[u64],
    ndjson: bool,
    skip_invalid: bool,
) -> Result<(Vec<PathHit>, u64), SyntaxError> {
    let mut targets: Vec<(u64, usize)> = offsets.iter().copied().zip(0..).collect();
    targets.sort_unstable();
    let mut v = PathFinder {
        doc,
        targets,
        next: 0,
        out: vec![None; offsets.len()],
        open: Vec::new(),
        starts: Vec::new(),
        shadowed: std::collections::HashMap::new(),
        pending: None,
        ndjson,
    };
    let mut skipped = 0;
    if !v.targets.is_empty() {
        skipped = walk_records(doc, &mut v, skip_invalid)?.skipped;
    }
    // Whatever is left lies past the last value (or the walk stopped): outside every value.
    for &(_, idx) in &v.targets[v.next..] {
        v.out[idx] = Some(PathHit {
            path: "$".to_string(),
            in_key: false,
        });
    }
    let hits = v
        .out
        .into_iter()
        .map(|h| h.expect("every offset answered"))
        .collect();
    Ok((hits, skipped))
}

/// Containers this shallow are checked with a fast skip before being walked.
const SKIP_DEPTH: usize = 4;

/// One step of a path.
#[derive(Debug, Clone, Copy)]
enum Seg {
    /// A key: the raw bytes `doc[start..end]` between the quotes.
    Key(usize, usize),
    Index(u64),
}

struct PathFinder<'a> {
    doc: &'a [u8],
    targets: Vec<(u64, usize)>,
    next: usize,
    out: Vec<Option<PathHit>>,
    /// One entry per open container: the step that reached it (`None` for a JSON root).
    open: Vec<Option<Seg>>,
    /// The offset of each open container's opening bracket.
    starts: Vec<usize>,
    /// Whether the member whose key starts at this offset repeats an earlier member's key.
    shadowed: std::collections::HashMap<usize, bool>,
    /// The step to the value about to start.
    pending: Option<Seg>,
    ndjson: bool,
}

impl PathFinder<'_> {
    /// Whether the member with key `doc[a..b]` of the object at `object` comes after a member
    /// with the same key (decoded: `"\u0061"` is `"a"`).
    fn is_shadowed(&mut self, object: usize, (a, b): (usize, usize)) -> bool {
        if let Some(&known) = self.shadowed.get(&a) {
            return known;
        }
        let name = decode_string(&self.doc[a..b]);
        let mut found = false;
        for m in super::nav::Value::new(self.doc, object).members() {
            match m {
                Ok(m) if m.key_at + 1 < a => {
                    if m.key_is(&name) {
                        found = true;
                        break;
                    }
                }
                _ => break,
            }
        }
        self.shadowed.insert(a, found);
        found
    }

    /// The path of `segs` then `extra` (the step from the innermost open container), cut
    /// before the first member that a repeated key shadows.
    fn render(&mut self, segs: &[Option<Seg>], extra: Option<Seg>) -> String {
        let steps = segs.len() + usize::from(extra.is_some());
        let mut keep = steps;
        for i in 0..steps {
            let seg = if i < segs.len() { segs[i] } else { extra };
            // Step i reaches container i (or the value after the open ones) from container
            // i - 1; the first open container is a root or a record.
            if let (Some(Seg::Key(a, b)), Some(&object)) =
                (seg, i.checked_sub(1).and_then(|p| self.starts.get(p)))
                && self.is_shadowed(object, (a, b))
            {
                keep = i;
                break;
            }
        }
        let mut s = String::from("$");
        let steps = segs.iter().chain(std::iter::once(&extra));
        for seg in steps.take(keep).flatten() {
            match *seg {
                Seg::Index(i) => {
                    s.push('[');
                    s.push_str(&i.to_string());
                    s.push(']');
                }
                Seg::Key(a, b) => push_bracket_name(&mut s, &decode_string(&self.doc[a..b])),
            }
        }
        s
    }

    /// Answers every waiting offset below `limit` with the path `segs`.
    fn flush_below(&mut self, limit: u64, segs: &[Option<Seg>], in_key: bool) {
        let mut path: Option<String> = None;
        while self.next < self.targets.len() && self.targets[self.next].0 < limit {
            let p = match &path {
                Some(p) => p.clone(),
                None => path.insert(self.render(segs, None)).clone(),
            };
            let idx = self.targets[self.next].1;
            self.out[idx] = Some(PathHit { path: p, in_key });
            self.next += 1;
        }
    }

    /// Answers offsets before `at` with the enclosing container's path.
    fn flush_container(&mut self, at: usize) {
        let open = std::mem::take(&mut self.open);
        self.flush_below(at as u64, &open, false);
        self.open = open;
    }

    fn flow(&self) -> Flow {
        if self.next == self.targets.len() {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }
}

impl Visitor for PathFinder<'_> {
    fn record(&mut self, index: u64, at: usize) -> Flow {
        self.flush_below(at as u64, &[], false);
        self.pending = self.ndjson.then_some(Seg::Index(index));
        self.flow()
    }

    fn begin(&mut self, _: Container, at: usize) -> Flow {
        self.flush_container(at);
        let seg = self.pending.take();
        // Near the top, where containers are big, jump over any container that holds no
        // offset asked for: the SIMD skip is several times faster than the walk. (Deeper down
        // containers are small, and checking there would rescan nested levels repeatedly.)
        if self.open.len() < SKIP_DEPTH {
            let next = self.targets.get(self.next).map_or(u64::MAX, |t| t.0);
            if let Ok(end) = super::scan::skip_value(self.doc, at)
                && next >= end as u64
            {
                return Flow::Skip;
            }
        }
        self.open.push(seg);
        self.starts.push(at);
        self.flow()
    }

    fn end(&mut self, _: Container, at: usize, _: u64) -> Flow {
        // The closing bracket itself belongs to the container.
        self.flush_container(at + 1);
        self.open.pop();
        self.starts.pop();
        self.flow()
    }

    fn key(&mut self, raw: &[u8], at: usize) -> Flow {
        self.flush_container(at);
        let open = std::mem::take(&mut self.open);
        self.flush_below((at + raw.len() + 2) as u64, &open, true);
        self.open = open;
        self.pending = Some(Seg::Key(at + 1, at + 1 + raw.len()));
        self.flow()
    }

    fn index(&mut self, index: u64) -> Flow {
        self.pending = Some(Seg::Index(index));
        Flow::Continue
    }

    fn scalar(&mut self, _: Scalar, raw: &[u8], at: usize) -> Flow {
        self.flush_container(at);
        let end = (at + raw.len()) as u64;
        let mut path: Option<String> = None;
        let seg = self.pending.take();
        while self.next < self.targets.len() && self.targets[self.next].0 < end {
            let p = match &path {
                Some(p) => p.clone(),
                None => {
                    let open = std::mem::take(&mut self.open);
                    let p = self.render(&open, seg);
                    self.open = open;
                    path.insert(p).clone()
                }
            };
            let idx = self.targets[self.next].1;
            self.out[idx] = Some(PathHit {
                path: p,
                in_key: false,
            });
            self.next += 1;
        }
        self.flow()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::path::push_member;

    fn hits(doc: &str, offsets: &[u64], ndjson: bool) -> Vec<(String, bool)> {
        paths_at_offsets(doc.as_bytes(), offsets, ndjson)
            .unwrap()
            .into_iter()
            .map(|h| (h.path, h.in_key))
            .collect()
    }

    #[test]
    fn values_keys_and_gaps() {
        let doc = r#"{"items": [ {"msg": "time out"}, 7 ], "it's": {"a\nb": true}}"#;
        let at = |s: &str| doc.find(s).unwrap() as u64;
        let got = hits(
            doc,
            &[
                at("time"),
                at("msg"),
                at("7"),
                at("it's"),
                at("true"),
                0,
                at("[ {") + 1,
                at("a\\nb"),
            ],
            false,
        );
        assert_eq!(
            got,
            [
                ("$['items'][0]['msg']".to_string(), false),
                ("$['items'][0]".to_string(), true),
                ("$['items'][1]".to_string(), false),
                ("$".to_string(), true),
                ("$['it\\'s']['a\\nb']".to_string(), false),
                ("$".to_string(), false),
                ("$['items']".to_string(), false),
                ("$['it\\'s']".to_string(), true),
            ]
        );
    }

    #[test]
    fn a_member_after_one_with_the_same_key_is_answered_with_its_object() {
        let doc = r#"{"a":{"x":1},"b":[{"\u0061":2,"a":{"y":"in"}}],"a":{"x":"late"}}"#;
        let at = |s: &str| doc.find(s).unwrap() as u64;
        assert_eq!(
            hits(
                doc,
                &[at("1"), at("in"), at("late"), at("\"a\":{\"x\":\"") + 1],
                false
            ),
            [
                ("$['a']['x']".to_string(), false),
                ("$['b'][0]".to_string(), false),
                ("$".to_string(), false),
                ("$".to_string(), true),
            ]
        );
    }

    #[test]
    fn ndjson_records_are_indexed() {
        let doc = "{\"a\":1}\n{\"a\":[2,3]}\n";
        let at = doc.find('3').unwrap() as u64;
        assert_eq!(
            hits(doc, &[at, 100], true),
            [
                ("$[1]['a'][1]".to_string(), false),
                ("$".to_string(), false)
            ]
        );
    }

    #[test]
    fn stops_after_the_last_offset() {
        // Invalid after the offsets asked for: never read.
        assert_eq!(
            hits("[1, 2, garbage", &[1], false),
            [("$[0]".to_string(), false)]
        );
        assert!(paths_at_offsets(b"[1, 2, garbage", &[9], false).is_err());
    }

    #[test]
    fn spelling() {
        let mut n = String::new();
        push_bracket_name(&mut n, "a'b\\c\u{1}");
        assert_eq!(n, "['a\\'b\\\\c\\u0001']");
        let mut p = String::from("$");
        push_member(&mut p, "items");
        push_member(&mut p, "a b");
        push_member(&mut p, "données");
        assert_eq!(p, "$.items['a b'].données");
    }
}

#[cfg(test)]
mod oracle {
    //! Checks `paths_at_offsets` against lazy navigation: each answer must resolve to a value
    //! that contains the offset while none of its children does.

    use super::*;
    use crate::json::{Kind, Value, root};
    use proptest::prelude::*;

    enum Step {
        Name(String),
        Index(u64),
    }

    /// Parses the normalized paths this module writes.
    fn parse(path: &str) -> Vec<Step> {
        let mut steps = Vec::new();
        let mut chars = path
            .strip_prefix('$')
            .expect("starts with $")
            .chars()
            .peekable();
        while let Some(c) = chars.next() {
            assert_eq!(c, '[');
            if chars.peek() == Some(&'\'') {
                chars.next();
                let mut name = String::new();
                loop {
                    match chars.next().expect("closed name") {
                        '\'' => break,
                        '\\' => match chars.next().expect("escape") {
                            'b' => name.push('\u{8}'),
                            'f' => name.push('\u{c}'),
                            'n' => name.push('\n'),
                            'r' => name.push('\r'),
                            't' => name.push('\t'),
                            'u' => {
                                let hex: String =
                                    (0..4).map(|_| chars.next().expect("hex")).collect();
                                name.push(
                                    char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap(),
                                );
                            }
                            other => name.push(other),
                        },
                        other => name.push(other),
                    }
                }
                steps.push(Step::Name(name));
            } else {
                let digits: String =
                    std::iter::from_fn(|| chars.next_if(char::is_ascii_digit)).collect();
                steps.push(Step::Index(digits.parse().unwrap()));
            }
            assert_eq!(chars.next(), Some(']'));
        }
        steps
    }

    /// Resolves a path; with duplicate keys the first member is the member (README,
    /// *Exactness*), as `extract` reads it.
    fn resolve<'a>(doc: &'a [u8], steps: &[Step]) -> Vec<Value<'a>> {
        let mut current = vec![root(doc).unwrap()];
        for step in steps {
            let mut next = Vec::new();
            for v in current {
                match step {
                    Step::Name(n) if v.kind().unwrap() == Kind::Object => {
                        next.extend(
                            v.members()
                                .map(Result::unwrap)
                                .find(|m| m.key() == n.as_str())
                                .map(|m| m.value),
                        );
                    }
                    Step::Index(i) if v.kind().unwrap() == Kind::Array => {
                        next.extend(
                            v.elements()
                                .map(Result::unwrap)
                                .filter(|(j, _)| j == i)
                                .map(|(_, e)| e),
                        );
                    }
                    _ => {}
                }
            }
            current = next;
        }
        current
    }

    fn contains(v: &Value<'_>, t: usize) -> bool {
        v.offset() <= t && t < v.end().unwrap()
    }

    /// Whether a child a path reaches contains `t` (of repeated keys, the first member).
    fn child_containing(v: &Value<'_>, t: usize) -> bool {
        match v.kind().unwrap() {
            Kind::Object => {
                let mut seen = std::collections::HashSet::new();
                v.members()
                    .map(Result::unwrap)
                    .filter(|m| seen.insert(m.key()))
                    .any(|m| contains(&m.value, t))
            }
            Kind::Array => v
                .elements()
                .map(Result::unwrap)
                .any(|(_, e)| contains(&e, t)),
            _ => false,
        }
    }

    fn in_some_key(v: &Value<'_>, t: usize) -> bool {
        v.kind().unwrap() == Kind::Object
            && v.members()
                .map(Result::unwrap)
                .any(|m| m.key_at <= t && t < m.key_at + m.key_raw.len() + 2)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 60, ..ProptestConfig::default() })]
        #[test]
        fn every_answer_is_the_innermost_value(doc in crate::fuzzing::json::tests::json_text()) {
            let bytes = doc.as_bytes();
            // About 150 offsets per document, spread evenly and given out of order.
            let stride = (bytes.len() / 150).max(1);
            let mut offsets: Vec<u64> = (0..bytes.len() as u64).step_by(stride).collect();
            offsets.reverse();
            let hits = paths_at_offsets(bytes, &offsets, false).unwrap();
            let start = root(bytes).unwrap().offset();
            let end = root(bytes).unwrap().end().unwrap();
            for (&t, hit) in offsets.iter().zip(&hits) {
                let t = t as usize;
                if t < start || t >= end {
                    prop_assert_eq!(&hit.path, "$");
                    continue;
                }
                let found = resolve(bytes, &parse(&hit.path));
                let ok = found.iter().any(|v| {
                    contains(v, t) && !child_containing(v, t) && in_some_key(v, t) == hit.in_key
                });
                prop_assert!(ok, "offset {} answered {:?} in {}", t, hit, doc);
            }
        }
    }
}
