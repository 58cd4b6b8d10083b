//! The one JSON string escaper for the JSON that `extract` streams itself (its markers and
//! paths, beside the document's own bytes), spelled exactly as serde_json spells the strings of
//! every `wire` type spill prints, so no output mixes two spellings of one string.

use std::fmt::Write as _;

/// Appends `s` as a JSON string literal: `"` and `\` escaped, `\b \f \n \r \t` for those
/// controls, `\u00xx` (lower-case hex) for the other characters below U+0020, everything else
/// as it is (serde_json's rule).
pub fn push_json_string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut plain = 0;
    for (i, b) in s.bytes().enumerate() {
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..0x20 => "",
            _ => continue,
        };
        // Only ASCII bytes are escaped, so `plain..i` is on character boundaries.
        out.push_str(&s[plain..i]);
        if short.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(short);
        }
        plain = i + 1;
    }
    out.push_str(&s[plain..]);
    out.push('"');
}

/// `s` as a JSON string literal (see [`push_json_string`]).
pub fn json_string(s: &str) -> String {
    let mut out = String::new();
    push_json_string(&mut out, s);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn controls_quotes_and_backslashes() {
        assert_eq!(
            json_string("a\"b\\c\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}é☺"),
            "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0000\\u001f\u{7f}é☺\""
        );
    }

    proptest! {
        #[test]
        fn spelled_as_serde_json_spells_it(s in any::<String>()) {
            prop_assert_eq!(json_string(&s), serde_json::to_string(&s).unwrap());
        }
    }
}
