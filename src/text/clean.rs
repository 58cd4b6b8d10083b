//! Cleaning text for display: ANSI escape sequences stripped and carriage-return progress
//! frames collapsed to the last one, line by line. The envelope's preview and signals show
//! cleaned lines, and `cat` and `search` read the same [`view`] of a source that holds escape
//! sequences or bare `\r`, so every line the envelope shows is found at the same line number.
//! Stored bytes stay raw.

/// Removes ANSI escape sequences (CSI, OSC, and two-byte escapes) from `line`.
pub fn strip_ansi(line: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !line.contains(&0x1b) {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        if line[i] != 0x1b {
            out.push(line[i]);
            i += 1;
            continue;
        }
        match line.get(i + 1) {
            // CSI: parameters 0x30–0x3F, intermediates 0x20–0x2F, one final byte 0x40–0x7E.
            Some(b'[') => {
                let mut j = i + 2;
                while j < line.len() && (0x20..=0x3f).contains(&line[j]) {
                    j += 1;
                }
                i = if j < line.len() && (0x40..=0x7e).contains(&line[j]) {
                    j + 1
                } else {
                    j
                };
            }
            // OSC (and DCS, PM, APC): up to BEL or ST (ESC \).
            Some(b']' | b'P' | b'^' | b'_') => {
                let mut j = i + 2;
                loop {
                    match line.get(j) {
                        None => break,
                        Some(0x07) => {
                            j += 1;
                            break;
                        }
                        Some(0x1b) if line.get(j + 1) == Some(&b'\\') => {
                            j += 2;
                            break;
                        }
                        Some(_) => j += 1,
                    }
                }
                i = j;
            }
            Some(0x40..=0x7e) => i += 2,
            _ => i += 1,
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Keeps the last non-empty carriage-return frame of a line (`10%\r20%\r30%` → `30%`); a
/// trailing `\r` (CRLF endings) is dropped first.
pub fn last_frame(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.split(|&b| b == b'\r')
        .rev()
        .find(|frame| !frame.is_empty())
        .unwrap_or(b"")
}

/// The preview form of one raw line (without its `\n`).
pub fn clean_line(line: &[u8]) -> Vec<u8> {
    let stripped = strip_ansi(line);
    last_frame(&stripped).to_vec()
}

/// The first `max` bytes (on a character boundary) of the cleaned form of `line`, copying no
/// more than that: a signal's neighbour line is cut this way, after cleaning, so that what it
/// shows is a prefix of the line's cleaned form (cutting first could show a progress frame
/// that the line's last frame overwrites).
pub fn clean_prefix(line: &[u8], max: usize) -> Vec<u8> {
    let stripped = strip_ansi(line);
    let frame = last_frame(&stripped);
    frame[..super::floor_char_boundary(frame, max.min(frame.len()))].to_vec()
}

/// True when cleaning would change `bytes`: they hold an ESC byte, or a `\r` that is not part
/// of a `\r\n` line end. One `memchr2` pass, so a source without either costs about a
/// `memchr` over it.
pub fn needs_cleaning(bytes: &[u8]) -> bool {
    memchr::memchr2_iter(0x1b, b'\r', bytes)
        .any(|at| bytes[at] == 0x1b || bytes.get(at + 1) != Some(&b'\n'))
}

/// The cleaned view of a source, when it differs from the stored bytes ([`needs_cleaning`]):
/// every line through [`clean_line`], line breaks kept, so line `N` of the view is line `N` of
/// the source and the line counts agree. Lines without an ESC or a `\r` are copied in bulk.
///
/// ```
/// use spill::text::clean::view;
///
/// let log = b"\x1b[1m\x1b[91merror\x1b[0m: could not compile\n10%\r50%\r100%\nplain\n";
/// assert_eq!(view(log).unwrap(), b"error: could not compile\n100%\nplain\n");
/// assert!(view(b"plain\r\ntext\r\n").is_none());
/// ```
pub fn view(bytes: &[u8]) -> Option<Vec<u8>> {
    if !needs_cleaning(bytes) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len());
    // bytes[..copied] are in `out`; `copied` is 0 or the position of a line break.
    let mut copied = 0;
    for at in memchr::memchr2_iter(0x1b, b'\r', bytes) {
        if at < copied {
            continue;
        }
        let start = memchr::memrchr(b'\n', &bytes[copied..at]).map_or(copied, |i| copied + i + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        out.extend_from_slice(&bytes[copied..start]);
        out.extend_from_slice(&clean_line(&bytes[start..end]));
        copied = end;
    }
    out.extend_from_slice(&bytes[copied..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_sequences_are_removed() {
        assert_eq!(&*strip_ansi(b"\x1b[1;31merror\x1b[0m: x"), b"error: x");
        assert_eq!(&*strip_ansi(b"\x1b]0;title\x07text"), b"text");
        assert_eq!(
            &*strip_ansi(b"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"),
            b"link"
        );
        assert_eq!(&*strip_ansi(b"a\x1b(Bb"), b"a(Bb");
        assert_eq!(&*strip_ansi(b"\x1b[2K\x1b[1G100%"), b"100%");
        assert_eq!(&*strip_ansi(b"trailing \x1b["), b"trailing ");
    }

    #[test]
    fn progress_frames_collapse_to_the_last() {
        assert_eq!(last_frame(b"10%\r20%\r30%"), b"30%");
        assert_eq!(
            last_frame(b"done\r\n".strip_suffix(b"\n").unwrap()),
            b"done"
        );
        assert_eq!(last_frame(b"50%\r"), b"50%");
        assert_eq!(last_frame(b"a\r\r"), b"a");
        assert_eq!(clean_line(b"\x1b[32m1/3\r\x1b[32m3/3\x1b[0m"), b"3/3");
    }

    #[test]
    fn the_view_cleans_line_by_line_and_keeps_every_line_break() {
        let raw = b"a\r\n\x1b[31mred\x1b[0m\r\nplain\n\r\n10%\r\x1b[2K20%\rdone\nlast\x1b[0m";
        let v = view(raw).unwrap();
        assert_eq!(v, b"a\nred\nplain\n\ndone\nlast");
        assert_eq!(crate::text::count_lines(&v), crate::text::count_lines(raw));
        // Every line of the view is clean_line of the same raw line.
        let lines: Vec<&[u8]> = raw.split(|&b| b == b'\n').collect();
        let cleaned: Vec<&[u8]> = v.split(|&b| b == b'\n').collect();
        assert_eq!(lines.len(), cleaned.len());
        for (r, c) in lines.iter().zip(&cleaned) {
            assert_eq!(&clean_line(r), c);
        }
        // Only CRLF line ends (or nothing at all) need no view.
        assert!(view(b"one\r\ntwo\r\n").is_none());
        assert!(view(b"").is_none());
        assert!(view(b"trailing\r").is_some());
        assert!(view(b"\x1b").is_some());
    }

    #[test]
    fn a_prefix_is_cut_after_cleaning() {
        let line = b"downloading 10%\r".repeat(100);
        let mut line = line.clone();
        line.extend_from_slice(b"done");
        assert_eq!(clean_prefix(&line, 800), b"done");
        assert_eq!(clean_prefix("\x1b[1mé\x1b[0mx".as_bytes(), 1), b"");
        assert_eq!(
            clean_prefix("\x1b[1mé\x1b[0mx".as_bytes(), 2),
            "é".as_bytes()
        );
    }
}
