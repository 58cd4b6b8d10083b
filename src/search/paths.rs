//! `--paths`: the RFC 9535 normalized path of the JSON value (or key) holding each match, from
//! the JSON engine, so that `spill extract SOURCE PATH` returns a value containing the match.

use crate::json::SyntaxError;
use crate::json::paths_at_offsets_skipping;
use crate::json::records::{Layout, layout};

use super::SearchResult;

/// Sets [`Match::path`](super::Match::path) and [`Match::in_key`](super::Match::in_key) on every
/// match of `result`, a page of a search of `doc`. NDJSON sources are addressed as an array of
/// records (`$[3]['msg']`), by the rule `extract` follows ([`crate::json::records`]); with
/// `skip_invalid` the lines that are not one value are skipped and counted in
/// [`SearchResult::skipped_lines`] (up to the last match). Fails when `doc` is not JSON or
/// NDJSON up to the last match.
pub fn attach_paths(
    doc: &[u8],
    result: &mut SearchResult,
    skip_invalid: bool,
) -> Result<(), SyntaxError> {
    if result.matches.is_empty() {
        return Ok(());
    }
    let ndjson = layout(doc, skip_invalid) == Layout::Ndjson;
    let offsets: Vec<u64> = result.matches.iter().map(|m| m.byte_offset).collect();
    let (hits, skipped) = paths_at_offsets_skipping(doc, &offsets, ndjson, skip_invalid)?;
    for (m, hit) in result.matches.iter_mut().zip(hits) {
        m.path = Some(hit.path);
        m.in_key = hit.in_key;
    }
    if skip_invalid && ndjson {
        result.skipped_lines = Some(skipped);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Page, Pattern, PatternOptions, search_slice};

    fn paths(doc: &str, pattern: &str) -> Result<Vec<(String, bool)>, SyntaxError> {
        let options = PatternOptions {
            patterns: vec![pattern.into()],
            ..Default::default()
        };
        let p = Pattern::new(&options).unwrap();
        let mut r = search_slice(doc.as_bytes(), &p, &Page::default()).unwrap();
        attach_paths(doc.as_bytes(), &mut r, false)?;
        Ok(r.matches
            .into_iter()
            .map(|m| (m.path.unwrap(), m.in_key))
            .collect())
    }

    #[test]
    fn values_and_keys_of_a_document() {
        let doc = "{\"items\": [{\"msg\": \"a timeout\"}, {\"timeout\": 5}]}";
        assert_eq!(
            paths(doc, "timeout").unwrap(),
            vec![
                ("$['items'][0]['msg']".to_string(), false),
                ("$['items'][1]".to_string(), true)
            ]
        );
    }

    #[test]
    fn ndjson_records_are_indexed() {
        let doc = "{\"a\": 1}\n{\"b\": \"x timeout\"}\n";
        assert_eq!(
            paths(doc, "timeout").unwrap(),
            vec![("$[1]['b']".to_string(), false)]
        );
    }

    #[test]
    fn text_is_refused() {
        assert!(paths("plain text with timeout\n", "timeout").is_err());
        assert!(paths("{\"broken\": timeout", "timeout").is_err());
    }
}
