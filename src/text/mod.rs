//! Text handling shared by the commands: line arithmetic, UTF-8-safe cuts, hex dumps, and the
//! envelope's text preview and failure signals.

pub mod analyze;
pub mod clean;
pub mod condense;
pub mod fields;
pub mod hex;
pub mod preview;
pub mod rank;
pub mod redact;
pub mod shell;
pub mod signals;

/// How many leading bytes [`is_binary`] looks at.
pub const BINARY_SAMPLE: usize = 8192;

/// The one text/binary classifier, shared by `wrap` (the envelope's `mimeType`), `shape` (the
/// `binary` skeleton) and `cat` (hex on a terminal), so they never disagree about a source:
/// binary means a NUL byte in the first 8 KiB, or more than a third of those bytes not decoding
/// as UTF-8. So a Latin-1 or Windows-1252 log (an accented letter here and there) is text, and
/// UTF-16 (a NUL in every ASCII character) is binary. A character cut by the end of the sample
/// is not evidence either way.
pub fn is_binary(bytes: &[u8]) -> bool {
    let sample = &bytes[..bytes.len().min(BINARY_SAMPLE)];
    if memchr::memchr(0, sample).is_some() {
        return true;
    }
    let mut invalid = 0usize;
    let mut rest = sample;
    while let Err(e) = std::str::from_utf8(rest) {
        let Some(skip) = e.error_len() else {
            break;
        };
        invalid += skip;
        rest = &rest[e.valid_up_to() + skip..];
    }
    invalid * 3 > sample.len()
}

/// Counts lines as the envelope does: one per `\n`, plus one if non-empty input does not end in `\n`.
pub fn count_lines(bytes: &[u8]) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', bytes).count() as u64;
    newlines + u64::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}

/// The byte offset where 1-based line `n` starts, or `None` when the input has fewer lines.
pub fn line_start(bytes: &[u8], n: u64) -> Option<usize> {
    if n <= 1 {
        return Some(0);
    }
    let pos = memchr::memchr_iter(b'\n', bytes).nth((n - 2) as usize)? + 1;
    (pos < bytes.len()).then_some(pos)
}

/// The largest index `<= at` that does not split a UTF-8 sequence (invalid bytes count as
/// characters of their own, so this never moves back more than 3 bytes).
pub fn floor_char_boundary(bytes: &[u8], at: usize) -> usize {
    let mut i = at.min(bytes.len());
    let mut steps = 0;
    while i > 0 && i < bytes.len() && is_continuation(bytes[i]) && steps < 3 {
        i -= 1;
        steps += 1;
    }
    if steps == 3 && i < bytes.len() && is_continuation(bytes[i]) {
        return at.min(bytes.len());
    }
    i
}

/// The smallest index `>= at` that does not split a UTF-8 sequence.
pub fn ceil_char_boundary(bytes: &[u8], at: usize) -> usize {
    let mut i = at.min(bytes.len());
    let mut steps = 0;
    while i < bytes.len() && is_continuation(bytes[i]) && steps < 3 {
        i += 1;
        steps += 1;
    }
    i
}

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// Counts characters of possibly invalid UTF-8 (each invalid byte counts as one).
pub fn char_count(bytes: &[u8]) -> usize {
    String::from_utf8_lossy(bytes).chars().count()
}

/// The byte length of the first `n` characters of `bytes` (each invalid byte is one character).
pub fn prefix_bytes_for_chars(bytes: &[u8], n: usize) -> usize {
    let mut chars = 0;
    let mut i = 0;
    while i < bytes.len() && chars < n {
        let width = utf8_width(&bytes[i..]);
        i += width;
        chars += 1;
    }
    i
}

/// The byte length of the last `n` characters of `bytes`.
pub fn suffix_bytes_for_chars(bytes: &[u8], n: usize) -> usize {
    let mut chars = 0;
    let mut i = bytes.len();
    while i > 0 && chars < n {
        let start = floor_char_boundary(bytes, i - 1);
        // An invalid run is counted byte by byte, as in prefix_bytes_for_chars.
        let start = if utf8_width(&bytes[start..]) == i - start {
            start
        } else {
            i - 1
        };
        i = start;
        chars += 1;
    }
    bytes.len() - i
}

/// Width in bytes of the (possibly invalid) character at the start of `bytes`.
fn utf8_width(bytes: &[u8]) -> usize {
    let want = match bytes[0] {
        0x00..=0x7F => return 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return 1,
    };
    match bytes.get(..want) {
        Some(seq) if std::str::from_utf8(seq).is_ok() => want,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_detection() {
        assert!(is_binary(b"abc\0def"));
        assert!(is_binary(&[0xff; 100]));
        assert!(!is_binary("plain text ü".as_bytes()));
        assert!(!is_binary(b"latin-1 caf\xe9 is mostly text"));
        // UTF-16: a NUL beside every ASCII character.
        assert!(is_binary(b"\xff\xfeh\0i\0"));
        // Only the first 8 KiB count, and a character cut by their end is not invalid.
        let mut late = vec![b'a'; BINARY_SAMPLE];
        late.push(0);
        assert!(!is_binary(&late));
        let mut cut = vec![b'a'; BINARY_SAMPLE - 1];
        cut.extend_from_slice("é".as_bytes());
        assert!(!is_binary(&cut));
    }

    #[test]
    fn lines_are_counted_like_wc_plus_an_unterminated_last_line() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"a"), 1);
        assert_eq!(count_lines(b"a\n"), 1);
        assert_eq!(count_lines(b"a\nb"), 2);
        assert_eq!(count_lines(b"\n\n"), 2);
    }

    #[test]
    fn line_starts() {
        let t = b"one\ntwo\nthree";
        assert_eq!(line_start(t, 1), Some(0));
        assert_eq!(line_start(t, 2), Some(4));
        assert_eq!(line_start(t, 3), Some(8));
        assert_eq!(line_start(t, 4), None);
        assert_eq!(line_start(b"a\n", 2), None);
    }

    #[test]
    fn cuts_never_split_a_character() {
        let s = "a😀b".as_bytes();
        assert_eq!(floor_char_boundary(s, 2), 1);
        assert_eq!(ceil_char_boundary(s, 2), 5);
        assert_eq!(floor_char_boundary(s, 5), 5);
        assert_eq!(floor_char_boundary(b"\x80\x80\x80\x80\x80", 4), 4);
        assert_eq!(prefix_bytes_for_chars("日本語".as_bytes(), 2), 6);
        assert_eq!(suffix_bytes_for_chars("日本語".as_bytes(), 2), 6);
        assert_eq!(suffix_bytes_for_chars(b"ab\xff", 2), 2);
        assert_eq!(char_count(b"a\xffb"), 3);
    }
}
