//! `--paths`: the RFC 9535 normalized path of the JSON value (or key) holding each match, from
//! the JSON engine, so that `spill extract SOURCE PATH` returns a value containing the match.

use crate::json::{SyntaxError, paths_at_offsets, skip_value};

use super::SearchResult;

/// Sets [`Match::path`](super::Match::path) and [`Match::in_key`](super::Match::in_key) on every
/// match of `result`, a page of a search of `doc`. NDJSON sources are addressed as an array of
/// records (`$[3]['msg']`). Fails when `doc` is not JSON or NDJSON up to the last match.
pub fn attach_paths(doc: &[u8], result: &mut SearchResult) -> Result<(), SyntaxError> {
    if result.matches.is_empty() {
        return Ok(());
    }
    let ndjson = more_than_one_value(doc)?;
    let offsets: Vec<u64> = result.matches.iter().map(|m| m.byte_offset).collect();
    let hits = paths_at_offsets(doc, &offsets, ndjson)?;
    for (m, hit) in result.matches.iter_mut().zip(hits) {
        m.path = Some(hit.path);
        m.in_key = hit.in_key;
    }
    Ok(())
}

/// Whether another value follows the first one: the NDJSON layout (which the walk then
/// checks strictly). An NDJSON value holds no line break, so a first value that does not end
/// on its first line means one document, without skipping it (a pretty file starts `{`⏎).
fn more_than_one_value(doc: &[u8]) -> Result<bool, SyntaxError> {
    let start = skip_whitespace(doc, crate::json::bom_len(doc));
    let line_end = doc[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(doc.len(), |i| start + i);
    match skip_value(&doc[..line_end], start) {
        Ok(end) => Ok(skip_whitespace(doc, end) < doc.len()),
        Err(_) if line_end < doc.len() => Ok(false),
        Err(e) => Err(e),
    }
}

fn skip_whitespace(doc: &[u8], from: usize) -> usize {
    doc[from.min(doc.len())..]
        .iter()
        .position(|b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
        .map_or(doc.len(), |i| from + i)
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
        attach_paths(doc.as_bytes(), &mut r)?;
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
