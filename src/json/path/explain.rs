//! Why a query selected nothing: the deepest part that resolved, what is there, and a
//! did-you-mean for near keys (README, `spill extract`).

use crate::limits::group_digits;
use std::ops::ControlFlow;

use super::Query;
use super::ast::{Segment, Selector};
use super::doc::{Doc, Kind};
use super::eval::Eval;
use super::normalized::{NormPath, is_shorthand_name};

/// How many keys of an object are listed in a message.
const KEYS_SHOWN: usize = 12;
/// How many keys are considered for a did-you-mean (bounds the cost on huge objects).
const KEYS_SCANNED: usize = 10_000;
/// How many nodes of a non-singular prefix are counted or inspected.
const NODES_SCANNED: usize = 1_000;

/// Explains why `query` selected no node of the document rooted at `root`, e.g.
/// `no key "itmes" in $ (an object with keys: items, meta) — did you mean "items"?` or
/// `index 1250 out of range for $.items (length 1250)`.
///
/// Call it only after the query selected nothing; it re-evaluates prefixes of the query,
/// each stopping at its first node.
pub fn explain_no_match<'a, D: Doc>(
    query: &'a Query,
    doc: &'a D,
    root: D::Node,
) -> Result<String, D::Error> {
    let eval = Eval::new(doc, root);
    let segs: &'a [Segment] = &query.ast.segments;
    let canonical = query.canonical_text();
    let mut failing = None;
    for k in 0..segs.len() {
        let mut path = NormPath::root();
        let flow = eval.run(&segs[..=k], root, &mut path, &mut |_, _| {
            ControlFlow::Break(())
        })?;
        if flow.is_continue() {
            failing = Some(k);
            break;
        }
    }
    let Some(k) = failing else {
        return Ok(format!("{} selected no node", cut(&canonical)));
    };
    let seg = &segs[k];
    let seg_text = cut(canonical.get(seg.span.start..seg.span.end).unwrap_or(""));
    let prefix = &segs[..k];
    let single = (!seg.descendant && seg.selectors.len() == 1).then(|| &seg.selectors[0]);

    if prefix.iter().all(|s| {
        !s.descendant
            && s.selectors.len() == 1
            && matches!(s.selectors[0], Selector::Name(_) | Selector::Index(_))
    }) {
        let mut path = NormPath::root();
        let Some(node) = eval.singular(prefix, root, Some(&mut path))? else {
            return Ok(format!("{} selected no node", cut(&canonical)));
        };
        let at = cut(&path.to_dot());
        let kind = doc.kind(node)?;
        return Ok(match single {
            Some(Selector::Name(name)) if kind == Kind::Object => {
                let keys = keys(doc, node, KEYS_SCANNED)?;
                let mut msg = format!(
                    "no key {} in {at} ({})",
                    quote(name),
                    describe_object(doc, node, &keys)?
                );
                if let Some(s) = suggest(name, keys.iter().map(String::as_str)) {
                    msg.push_str(&format!(" — did you mean {}?", quote(s)));
                }
                msg
            }
            Some(Selector::Name(name)) => format!(
                "no key {} in {at} ({}, not an object)",
                quote(name),
                describe(doc, node)?
            ),
            Some(Selector::Index(i)) if kind == Kind::Array => format!(
                "index {i} out of range for {at} (length {})",
                doc.len(node)?
            ),
            Some(Selector::Index(i)) => {
                format!(
                    "no index {i} in {at} ({}, not an array)",
                    describe(doc, node)?
                )
            }
            _ => format!(
                "nothing matched {seg_text} in {at} ({})",
                describe(doc, node)?
            ),
        });
    }

    // A non-singular prefix: look at the first nodes it selects.
    let prefix_text = cut(canonical.get(..seg.span.start).unwrap_or("").trim_end());
    let mut nodes = Vec::new();
    let mut path = NormPath::root();
    let _ = eval.run(prefix, root, &mut path, &mut |_, n| {
        nodes.push(n);
        if nodes.len() >= NODES_SCANNED {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    let count = if nodes.len() >= NODES_SCANNED {
        format!("{}+", group_digits(NODES_SCANNED as u64))
    } else {
        group_digits(nodes.len() as u64)
    };
    let noun = if nodes.len() == 1 { "node" } else { "nodes" };
    if let Some(Selector::Name(name)) = single {
        let mut all_keys = Vec::new();
        for &n in &nodes {
            if doc.kind(n)? == Kind::Object && all_keys.len() < KEYS_SCANNED {
                all_keys.extend(keys(doc, n, KEYS_SCANNED - all_keys.len())?);
            }
        }
        let mut msg = format!(
            "no key {} in any of the {count} {noun} selected by {prefix_text}",
            quote(name)
        );
        if let Some(s) = suggest(name, all_keys.iter().map(String::as_str)) {
            msg.push_str(&format!(" — did you mean {}?", quote(s)));
        }
        return Ok(msg);
    }
    Ok(format!(
        "nothing matched {seg_text} in the {count} {noun} selected by {prefix_text}"
    ))
}

fn keys<D: Doc>(doc: &D, node: D::Node, limit: usize) -> Result<Vec<String>, D::Error> {
    let mut out = Vec::new();
    for m in doc.members(node) {
        if out.len() >= limit {
            break;
        }
        out.push(m?.0.into_owned());
    }
    Ok(out)
}

fn describe_object<D: Doc>(doc: &D, node: D::Node, keys: &[String]) -> Result<String, D::Error> {
    if keys.is_empty() {
        return Ok("an empty object".to_string());
    }
    let shown: Vec<String> = keys.iter().take(KEYS_SHOWN).map(|k| show_key(k)).collect();
    if keys.len() <= KEYS_SHOWN {
        return Ok(format!("an object with keys: {}", shown.join(", ")));
    }
    let total = doc.len(node)?;
    Ok(format!(
        "an object with {} keys: {}, …",
        group_digits(total as u64),
        shown.join(", ")
    ))
}

fn describe<D: Doc>(doc: &D, node: D::Node) -> Result<String, D::Error> {
    Ok(match doc.kind(node)? {
        Kind::Object => {
            let k = keys(doc, node, KEYS_SHOWN + 1)?;
            describe_object(doc, node, &k)?
        }
        Kind::Array => format!("an array of length {}", doc.len(node)?),
        Kind::String => "a string".to_string(),
        Kind::Number => "a number".to_string(),
        Kind::Bool => "a boolean".to_string(),
        Kind::Null => "null".to_string(),
    })
}

/// A key as listed: bare when it is a plain name, JSON-quoted otherwise.
fn show_key(k: &str) -> String {
    if is_shorthand_name(k) {
        k.to_string()
    } else {
        quote(k)
    }
}

fn quote(s: &str) -> String {
    cut(&serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\"")))
}

/// Query text in a message, cut to [`crate::diag::ECHO_MAX`] characters.
fn cut(s: &str) -> String {
    crate::diag::cut(s, crate::diag::ECHO_MAX)
}

/// The closest key, if close enough to be a likely typo (case-insensitive equality first,
/// then optimal-string-alignment distance, so a transposition counts as one edit).
fn suggest<'k>(name: &str, keys: impl Iterator<Item = &'k str>) -> Option<&'k str> {
    let len = name.chars().count();
    // One-letter edits of very short names are noise, not typos.
    let limit = match len {
        0..=2 => 0,
        3..=5 => 1,
        _ => (len / 3).max(2),
    };
    let lower = name.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for k in keys {
        if k == name {
            continue;
        }
        let d = if k.to_lowercase() == lower {
            0
        } else {
            osa_distance(name, k, limit)
        };
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k)
}

/// Optimal string alignment distance, giving up (returning `limit + 1`) when the lengths
/// alone differ by more than `limit`.
fn osa_distance(a: &str, b: &str, limit: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit || a.len() > 256 || b.len() > 256 {
        return limit + 1;
    }
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        d[i * w] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(w) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

#[cfg(test)]
mod tests {
    use super::{osa_distance, suggest};

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(osa_distance("itmes", "items", 2), 1);
        assert_eq!(osa_distance("kitten", "sitting", 3), 3);
        assert_eq!(
            suggest("itmes", ["items", "meta"].into_iter()),
            Some("items")
        );
        assert_eq!(suggest("ID", ["id", "name"].into_iter()), Some("id"));
        assert_eq!(suggest("c", ["b"].into_iter()), None);
        assert_eq!(suggest("nmae", ["id", "name"].into_iter()), Some("name"));
        assert_eq!(suggest("zzzzzz", ["items", "meta"].into_iter()), None);
    }
}
