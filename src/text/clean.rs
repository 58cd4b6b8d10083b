//! Cleaning a line for a preview: ANSI escape sequences stripped and carriage-return progress
//! frames collapsed to the last one. Only previews are cleaned; stored bytes stay raw.

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
}
