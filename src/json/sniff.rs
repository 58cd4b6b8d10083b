//! Whether text that is not valid JSON still *looks like* JSON: the test behind the envelope's
//! "looks like JSON but is invalid at byte N" and the same notes of `shape` and `search
//! --paths`.

use super::parse::bom_len;
use super::scan::skip_ws_run;

/// True when `doc` starts the way a JSON document does, so that a syntax error further on is
/// worth reporting as broken JSON rather than calling the source text.
///
/// A first `{` or `[` alone is not enough: logs start lines with `[INFO]`, `[REDACTED]`,
/// `[1/5] Building` or `[2024-01-02 10:00:00]`. The opening bracket must be followed by what
/// JSON puts there: `{` by a key (`"`) or `}`; `[` by `]`, a string, a container, or a whole
/// number or literal that is followed by `,` or `]` (or the end of the input: a truncated
/// array). Leading white space and a UTF-8 byte order mark are skipped.
///
/// ```
/// use spill::json::sniff::looks_like_json;
///
/// assert!(looks_like_json(br#"{"date": 2024-01-02}"#));
/// assert!(looks_like_json(b"[1,2+3,4]"));
/// assert!(!looks_like_json(b"[REDACTED] token rotated"));
/// assert!(!looks_like_json(b"[2024-01-02 10:00:00] started"));
/// ```
pub fn looks_like_json(doc: &[u8]) -> bool {
    let at = skip_ws_run(doc, bom_len(doc));
    match doc.get(at) {
        Some(b'{') => matches!(doc.get(skip_ws_run(doc, at + 1)), Some(b'"' | b'}')),
        Some(b'[') => {
            let first = skip_ws_run(doc, at + 1);
            let end = match doc.get(first) {
                Some(b']' | b'"' | b'{' | b'[') => return true,
                Some(b'-' | b'0'..=b'9') => number_end(doc, first),
                Some(b't' | b'f' | b'n') => literal_end(doc, first),
                _ => None,
            };
            end.is_some_and(|end| {
                matches!(doc.get(skip_ws_run(doc, end)), None | Some(b',' | b']'))
            })
        }
        _ => false,
    }
}

/// The end of the RFC 8259 number starting at `at`, when one starts there.
fn number_end(doc: &[u8], mut at: usize) -> Option<usize> {
    let digits = |doc: &[u8], at: usize| {
        let n = doc[at.min(doc.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        (n > 0).then_some(at + n)
    };
    if doc.get(at) == Some(&b'-') {
        at += 1;
    }
    at = match doc.get(at) {
        Some(b'0') => at + 1,
        Some(b'1'..=b'9') => digits(doc, at)?,
        _ => return None,
    };
    if doc.get(at) == Some(&b'.') {
        at = digits(doc, at + 1)?;
    }
    if matches!(doc.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(doc.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        at = digits(doc, at)?;
    }
    Some(at)
}

/// The end of `true`, `false` or `null` starting at `at`.
fn literal_end(doc: &[u8], at: usize) -> Option<usize> {
    [&b"true"[..], b"false", b"null"]
        .iter()
        .find(|word| doc[at..].starts_with(word))
        .map(|word| at + word.len())
}

#[cfg(test)]
mod tests {
    use super::looks_like_json;

    #[test]
    fn json_openings_look_like_json() {
        for doc in [
            &b"{\"a\":1,}"[..],
            b"  {}x",
            b"\xEF\xBB\xBF[\"a\" 1]",
            b"[1, 2",
            b"[ -0.5e+3 ]]",
            b"[true,",
            b"[null]x",
            b"[[1]",
            b"[{]",
            b"[12",
            b"\n[\n  1,\n  2+3\n]",
        ] {
            assert!(looks_like_json(doc), "{:?}", String::from_utf8_lossy(doc));
        }
    }

    #[test]
    fn bracketed_log_prefixes_are_text() {
        for doc in [
            &b"[REDACTED] and more"[..],
            b"[INFO] started",
            b"[1/5] Building",
            b"[2024-01-02 10:00:00] ok",
            b"[nix-shell:~]$ ls",
            b"[ 01 ] leading zero",
            b"[truely]",
            b"[1.] x",
            b"{{ template }}",
            b"{ key: 1 }",
            b"",
            b"plain",
        ] {
            assert!(!looks_like_json(doc), "{:?}", String::from_utf8_lossy(doc));
        }
    }
}
