//! Cleaning text for display: ANSI escape sequences stripped and carriage-return progress
//! frames collapsed to the last one, line by line. The envelope's preview and signals show
//! cleaned lines, and `cat` and `search` read the same [`view`] of a source that holds escape
//! sequences or bare `\r`, so every line the envelope shows is found at the same line number.
//! Stored bytes stay raw.

/// Removes escape sequences from `line`, as a VT500-series terminal parses them (the state
/// table of `anstyle-parse`, the parser `anstream` uses): ESC with its intermediates and final
/// byte (`ESC ( B`, which `tput sgr0` writes before `ESC [ m`; `ESC 7`; `ESC # 8`), CSI with its
/// parameters, OSC up to BEL or ST (`ESC \`), and DCS, SOS, PM and APC strings up to ST.
///
/// Decisions, for text that is mostly UTF-8 and sometimes not:
/// - Only ESC starts a sequence. The 8-bit C1 introducers (0x9B, 0x9D, …) are UTF-8
///   continuation bytes in the text spill sees, so they are kept as text.
/// - A control byte inside a sequence that the terminal would execute (a tab, a backspace) is
///   kept, as the terminal would act on it; CAN and SUB end the sequence and are kept too.
/// - A byte of 0x80 or more inside ESC or CSI (the grammar allows none) ends the sequence and is
///   kept as text, so that a stray ESC before UTF-8 text removes no text; inside the OSC, DCS,
///   SOS, PM and APC strings it is part of the string.
/// - A sequence still open at the end of the line is removed to the end of the line (lines are
///   cleaned one at a time, so a source's line `N` is always its view's line `N`).
///
/// A line without an ESC byte is returned as it is, after one `memchr`; between sequences the
/// text is copied in runs found by `memchr`, so only the sequences' own bytes go through the
/// state table.
pub fn strip_ansi(line: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    use anstyle_parse::state::{Action, State, state_change};
    let Some(first) = memchr::memchr(0x1b, line) else {
        return std::borrow::Cow::Borrowed(line);
    };
    let mut out = Vec::with_capacity(line.len());
    out.extend_from_slice(&line[..first]);
    let mut i = first;
    // line[i] is an ESC that starts a sequence.
    while i < line.len() {
        // The common case first: a CSI of parameter and intermediate bytes and its final byte
        // is removed whole by the state table too (through CsiIgnore when malformed).
        if line.get(i + 1) == Some(&b'[') {
            let body = line[i + 2..]
                .iter()
                .position(|b| !(0x20..=0x3f).contains(b))
                .map(|n| i + 2 + n);
            if let Some(end) = body
                && (0x40..=0x7e).contains(&line[end])
            {
                i = end + 1;
                let run_end = memchr::memchr(0x1b, &line[i..]).map_or(line.len(), |at| i + at);
                out.extend_from_slice(&line[i..run_end]);
                i = run_end;
                continue;
            }
        }
        let mut state = State::Escape;
        i += 1;
        while i < line.len() && state != State::Ground {
            let byte = line[i];
            let plain_grammar = matches!(
                state,
                State::Escape
                    | State::EscapeIntermediate
                    | State::CsiEntry
                    | State::CsiParam
                    | State::CsiIntermediate
                    | State::CsiIgnore
            );
            if byte >= 0x80 && plain_grammar {
                // Not part of the sequence: text again, from this byte.
                break;
            }
            // ESC starts another sequence here (abandoning this one); CAN and SUB end it.
            let (next, action) = state_change(state, byte);
            if action == Action::Execute {
                out.push(byte);
            }
            // `Anywhere` means the state does not change.
            if next != State::Anywhere {
                state = next;
            }
            i += 1;
        }
        if i >= line.len() {
            break;
        }
        // Text up to the next ESC.
        let run_end = memchr::memchr(0x1b, &line[i..]).map_or(line.len(), |at| i + at);
        out.extend_from_slice(&line[i..run_end]);
        i = run_end;
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
        // `tput sgr0`: ESC ( B (designate G0 as ASCII), then an SGR reset.
        assert_eq!(
            &*strip_ansi(b"\x1b[31merror\x1b(B\x1b[m: failed"),
            b"error: failed"
        );
        assert_eq!(&*strip_ansi(b"a\x1b(Bb"), b"ab");
        assert_eq!(&*strip_ansi(b"a\x1b7b\x1b#8c\x1b8"), b"abc");
        // DCS, SOS, PM, APC strings up to ST.
        assert_eq!(&*strip_ansi(b"a\x1bPq#0;2;0;0;0\x1b\\b"), b"ab");
        assert_eq!(
            &*strip_ansi(b"a\x1b_apc \xc3\xa9\x1b\\b\x1bXsos\x1b\\c"),
            b"abc"
        );
        // A stray ESC before UTF-8 text removes no text; C1 bytes are text.
        assert_eq!(
            &*strip_ansi("\x1b\u{e9}t\u{e9}".as_bytes()),
            "\u{e9}t\u{e9}".as_bytes()
        );
        assert_eq!(&*strip_ansi(b"a\x1b[3\xffb"), b"a\xffb");
        assert_eq!(&*strip_ansi(b"\x9b31mx"), b"\x9b31mx");
        // Controls inside a sequence are executed, so kept; CAN ends the sequence.
        assert_eq!(&*strip_ansi(b"a\x1b[3\x081mb"), b"a\x08b");
        assert_eq!(&*strip_ansi(b"a\x1b[3\x18b"), b"a\x18b");
        // ESC inside a sequence starts another.
        assert_eq!(&*strip_ansi(b"a\x1b[3\x1b[0mb"), b"ab");
        assert_eq!(&*strip_ansi(b"\x1b"), b"");
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
