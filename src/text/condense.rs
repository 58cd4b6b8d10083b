//! The condensed view of a mid-size output (`wrap --condense`): runs of lines that repeat one
//! template (`Compiling foo v1.2.3`, `test a::b ... ok`) collapse to their first and last line
//! and a marker with the count and the exact command that prints the lines left out; every other
//! line is kept as printed. Nothing is lost: the whole output is stored, and the view ends with
//! its ref. A line that is a signal (as the envelope classifies failure lines) is never part of
//! a run, so it is always shown; a line that differs from its neighbours is not part of their
//! run (`Files a and b differ` among 2,000 `… are identical`). A JSON document or NDJSON (the
//! first byte that is not blank is `{` or `[`) is not condensed: the envelope's JSON preview and
//! `extract` serve it better.

use super::{rank, signals};

/// The fewest lines a run must have to collapse: its first and last are kept, so a run of 5
/// hides at least 3 (a marker for fewer would save nothing).
pub const MIN_RUN: usize = 5;

/// The view, when it is at most half of the output's bytes (else `None`: it passes through).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condensed {
    /// The view: kept lines, one marker line per collapsed run, and the closing line naming the
    /// ref (always ending with a newline).
    pub text: Vec<u8>,
    /// Runs collapsed.
    pub runs: usize,
    /// Lines left out (shown by the markers' commands).
    pub hidden: u64,
}

/// Condenses `bytes` (stored as `reference`), or `None` when that does not at least halve it,
/// or the output is binary. The lines `keep` names (1-based) are always shown: what the
/// envelope's analysis found (`wrap` passes its signals and ranked lines: failures, outliers,
/// rare values).
pub fn condense(
    bytes: &[u8],
    reference: &str,
    keep: &std::collections::HashSet<u64>,
) -> Option<Condensed> {
    let json = matches!(bytes.trim_ascii_start().first(), Some(b'{' | b'['));
    if bytes.is_empty() || json || super::is_binary(bytes) {
        return None;
    }
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    let keys: Vec<Option<Vec<Vec<u8>>>> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| key(l).filter(|_| !keep.contains(&(i as u64 + 1))))
        .collect();
    let mut text = Vec::with_capacity(bytes.len() / 2);
    let (mut runs, mut hidden) = (0, 0u64);
    let mut i = 0;
    while i < lines.len() {
        let mut end = i + 1;
        if let Some(first) = &keys[i] {
            while end < lines.len() && keys[end].as_ref().is_some_and(|k| similar(first, k)) {
                end += 1;
            }
        }
        if end - i >= MIN_RUN {
            let (from, to) = (i + 2, end - 1); // 1-based numbers of the hidden lines
            push_line(&mut text, lines[i]);
            let marker = format!(
                "[spill: {} more similar lines, {from}-{to}: spill cat {reference} --lines {from}:{to}]",
                to + 1 - from
            );
            push_line(&mut text, marker.as_bytes());
            push_line(&mut text, lines[end - 1]);
            runs += 1;
            hidden += (to + 1 - from) as u64;
        } else {
            for line in &lines[i..end] {
                push_line(&mut text, line);
            }
        }
        i = end;
    }
    if runs == 0 {
        return None;
    }
    let closing = format!(
        "[spill: condensed {} of {} lines ({} bytes); every line not shown is stored: spill cat {reference}]\n",
        crate::limits::group_digits(hidden),
        crate::limits::group_digits(lines.len() as u64),
        crate::limits::group_digits(bytes.len() as u64),
    );
    text.extend_from_slice(closing.as_bytes());
    (text.len() * 2 <= bytes.len()).then_some(Condensed { text, runs, hidden })
}

fn push_line(out: &mut Vec<u8>, line: &[u8]) {
    out.extend_from_slice(line);
    out.push(b'\n');
}

/// A line's words after templating (numbers, paths, hex ids and quoted strings abstracted), or
/// `None` for a line that never joins a run: a blank one, one of a single word, or a signal
/// (what the envelope's signals would show: `error: …`, `FAILED`, `Traceback`, a nonzero exit
/// status, `warning: …`; a test named `error_paths_3 ... ok` is none).
fn key(line: &[u8]) -> Option<Vec<Vec<u8>>> {
    let clean = super::clean::clean_line(line);
    if signals::classify(&clean).is_some() {
        return None;
    }
    let template = rank::template(&clean);
    let words: Vec<Vec<u8>> = template
        .split(|&b| b == b' ')
        .filter(|w| !w.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    (words.len() >= 2).then_some(words)
}

/// Two templated lines of the same length, first word and indentation-free shape, that differ
/// in at most a third of their words (at least one may differ): `Compiling serde v0` and
/// `Compiling libc v0`; not `test a ... ok` and `test b ... FAILED` (two of four differ).
fn similar(a: &[Vec<u8>], b: &[Vec<u8>]) -> bool {
    if a.len() != b.len() || a[0] != b[0] {
        return false;
    }
    let differ = a.iter().zip(b).filter(|(x, y)| x != y).count();
    differ <= (a.len() / 3).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cargo_build() -> Vec<u8> {
        let mut out = Vec::new();
        for i in 0..120 {
            out.extend_from_slice(format!("   Compiling crate_{i} v0.{i}.3\n").as_bytes());
        }
        out.extend_from_slice(
            b"    Finished `dev` profile [unoptimized + debuginfo] target(s) in 41.20s\n",
        );
        out
    }

    #[test]
    fn a_run_of_one_template_collapses_to_its_ends_and_a_marker() {
        let build = cargo_build();
        let got = condense(&build, "sp_0123456789abcdef", &Default::default()).expect("condensed");
        let text = String::from_utf8(got.text).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "   Compiling crate_0 v0.0.3");
        assert_eq!(
            lines[1],
            "[spill: 118 more similar lines, 2-119: spill cat sp_0123456789abcdef --lines 2:119]"
        );
        assert_eq!(lines[2], "   Compiling crate_119 v0.119.3");
        assert!(lines[3].starts_with("    Finished"));
        assert!(lines[4].contains("condensed 118 of 121 lines"), "{text}");
        assert_eq!((got.runs, got.hidden), (1, 118));
    }

    #[test]
    fn a_failure_line_is_never_hidden_in_a_run() {
        let mut out = Vec::new();
        for i in 0..60 {
            out.extend_from_slice(format!("test module::case_{i} ... ok\n").as_bytes());
        }
        out.extend_from_slice(b"test module::case_x ... FAILED\n");
        for i in 60..120 {
            out.extend_from_slice(format!("test module::case_{i} ... ok\n").as_bytes());
        }
        let got = condense(&out, "sp_0123456789abcdef", &Default::default()).expect("condensed");
        let text = String::from_utf8(got.text).unwrap();
        assert!(
            text.contains("\ntest module::case_x ... FAILED\n"),
            "{text}"
        );
        assert_eq!(got.runs, 2);
        // Every hidden line is within a marker's range, and the ranges print them.
        assert_eq!(got.hidden, 58 + 58);
    }

    #[test]
    fn what_does_not_halve_passes_through() {
        let varied: Vec<u8> = (0..50)
            .flat_map(|i| {
                format!("line {i} says something else entirely {}\n", "x".repeat(i)).into_bytes()
            })
            .collect();
        // Similar lines, but too few of them to halve the output.
        assert_eq!(
            condense(&varied[..200], "sp_0123456789abcdef", &Default::default()),
            None
        );
        assert_eq!(
            condense(b"", "sp_0123456789abcdef", &Default::default()),
            None
        );
        assert_eq!(
            condense(b"a\0b\n", "sp_0123456789abcdef", &Default::default()),
            None
        );
        let distinct = b"alpha beta\ngamma delta\nepsilon zeta\neta theta\niota kappa\nlambda mu\n";
        assert_eq!(
            condense(distinct, "sp_0123456789abcdef", &Default::default()),
            None
        );
    }

    #[test]
    fn the_kept_lines_are_the_output_s_own_bytes_and_order() {
        let build = cargo_build();
        let got = condense(&build, "sp_0123456789abcdef", &Default::default()).unwrap();
        // Every line of the view that is not spill's own is a line of the output, in order.
        let original: Vec<&[u8]> = build.split(|&b| b == b'\n').collect();
        let mut at = 0;
        for line in got.text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            if line.starts_with(b"[spill: ") {
                continue;
            }
            let found = original[at..]
                .iter()
                .position(|l| *l == line)
                .expect("in order");
            at += found + 1;
        }
    }
}
