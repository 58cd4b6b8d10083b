//! Failure signals: lines that say something failed, ranked by strength, found while the
//! input streams past.
//!
//! Strong markers are what compilers, test runners, package managers, shells and runtimes print
//! for a real failure (`error[E0308]`, `error:`, `Traceback`, `panicked at`, `FAILED`, `npm ERR!`,
//! `Segmentation fault`, …). Weak ones are other mentions of error, fail, fatal, panic or
//! exception as words. Lines that report zero failures (`0 failed`, `errors=0`) and words inside
//! identifiers or file names (`on_error`, `exception.h`) are never signals.

use std::sync::LazyLock;

use regex::bytes::Regex;

/// How strongly a line signals a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Strength {
    /// A mention of error/fail/fatal/panic/exception as a word.
    Weak,
    /// A marker printed for a real failure.
    Strong,
}

/// Which neighbouring line carries a signal's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Neighbour {
    /// The line itself says it all.
    None,
    /// A header such as `--- FAIL` whose subject is on the line before.
    Before,
    /// A header such as `Traceback` or `error:` whose detail is on the line after.
    After,
}

/// A classified line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classified {
    /// Its strength.
    pub strength: Strength,
    /// The marker text that matched, usable as a fixed-string search pattern.
    pub marker: String,
    /// Where its message continues.
    pub neighbour: Neighbour,
}

/// Finds every place worth classifying; a superset of all markers, so that one fast scan over
/// a chunk finds the few lines that need a closer look. It runs over ASCII-lowercased text
/// ([`lowercase_into`]): as plain lower-case literals the needles are few enough for the regex
/// crate's SIMD multi-literal search, which is several times faster than matching them with
/// `(?i)` (profiled: the case-insensitive form took 44% of `wrap`'s time on a 100 MB log).
/// `exit` stands for `exit status` and `exited with code`; `\ne: ` is apt's `E: ` at a line
/// start (the start of the text is checked apart, see [`prefilter_find`]).
static PREFILTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"error|npm err|fail|fatal|panic|exception|traceback|segmentation fault|addresssanitizer|undefined reference|permission denied|no such file|cannot stat|command not found|exit|\ne: ",
    )
    .expect("prefilter regex")
});

/// Replaces `out` with `text` in ASCII lower case, the form [`prefilter_find`] reads.
pub fn lowercase_into(text: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend(text.iter().map(u8::to_ascii_lowercase));
}

/// The first prefilter hit at or after `start`, which must be a line start, in `lower` (text
/// lowercased by [`lowercase_into`]); the position returned lies on the hit's line.
pub fn prefilter_find(lower: &[u8], start: usize) -> Option<usize> {
    let rest = lower.get(start..)?;
    if rest.starts_with(b"e: ") {
        return Some(start);
    }
    let m = PREFILTER.find_at(lower, start)?;
    // `\ne: ` matches from the end of the line before.
    Some(m.start() + usize::from(lower[m.start()] == b'\n'))
}

/// True when the prefilter finds something in one line (given as is, not lowercased).
pub fn prefilter_matches(line: &[u8]) -> bool {
    let mut lower = Vec::new();
    lowercase_into(line, &mut lower);
    prefilter_find(&lower, 0).is_some()
}

static STRONG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?P<m>error\[E\d+\]|\berror:|\bError:|\bException:|Traceback \(most recent call last\)|^Traceback\b|panicked at|\bFAILED\b|--- FAIL|\bFAIL:|\bfatal:|\bFATAL:|npm ERR!|npm error",
        r"|^E: |Segmentation fault|AddressSanitizer|undefined reference|Permission denied|No such file or directory|cannot stat|command not found",
        r"|\b(?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*(?:Error|Exception):)"
    ))
    .expect("strong regex")
});

static EXIT_STATUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?P<m>exit status|exited with code)\s*:?\s*(?P<n>-?\d+)").expect("exit regex")
});

static WEAK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:^|[^A-Za-z0-9_./\\-])(?P<m>errors?|fail(?:ed|ure|ures|ing|s)?|fatal|panic(?:ked|s)?|exceptions?)(?:$|[^A-Za-z0-9_./\\-]|\.(?:[^A-Za-z0-9]|$))")
        .expect("weak regex")
});

static ZERO_REPORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:\b(?:0|no|zero)\s+(?:errors?|failures?|failed|fatal|panics?|exceptions?)\b)|(?:\b(?:errors?|failures?|failed|fail|fatal)\s*[=:]\s*0\b)")
        .expect("zero regex")
});

/// A parameter's default (`errors=None`, `fail=false`): a signature, not a report.
static PARAMETER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^[^A-Za-z]?[A-Za-z]+\s*=\s*(?:None|null|nil|false|true|False|True|['"])"#)
        .expect("parameter regex")
});

/// Classifies one line (without its newline). `None` means it is not a signal.
///
/// A line the prefilter finds nothing in is none (the prefilter is a superset of every
/// marker): most lines are then rejected by one multi-literal scan instead of the markers'
/// regexes, whose Unicode word boundaries run a backtracker on any line with a non-ASCII byte
/// (`wrap` of a 100 MB JSON document ranked its 16,384 window lines so: 8% of its CPU time).
pub fn classify(line: &[u8]) -> Option<Classified> {
    if !prefilter_matches(line) {
        return None;
    }
    classify_hit(line)
}

/// [`classify`] of a line the prefilter has found something in.
pub(crate) fn classify_hit(line: &[u8]) -> Option<Classified> {
    // A long listing's words are file names (`AddressSanitizer.h`, `errors`), not failures.
    if super::rank::is_listing(line) {
        return None;
    }
    if let Some(m) = STRONG.captures(line).and_then(|c| c.name("m")).filter(|m| {
        // `error::Gone` is a path in code, not a message.
        let path = m.as_bytes().ends_with(b":") && line.get(m.end()) == Some(&b':');
        !(in_file_name(line, m.start(), m.end()) || quoted(line, m.start(), m.end()) || path)
    }) {
        let marker = String::from_utf8_lossy(m.as_bytes()).into_owned();
        let neighbour = if marker.starts_with("--- FAIL") || marker == "FAIL:" {
            Neighbour::Before
        } else if marker.starts_with("Traceback")
            || marker.starts_with("error[")
            || marker == "error:"
        {
            Neighbour::After
        } else {
            Neighbour::None
        };
        // A dotted exception name only counts at the start of a message, not mid-sentence; in
        // prose, no marker does (`(--- FAIL shows the line before)` in a commit message).
        let dotted = marker.ends_with("Error:") || marker.ends_with("Exception:");
        if !(dotted || prose(line) || documented(line)) || at_message_start(line, m.start()) {
            return Some(Classified {
                strength: Strength::Strong,
                marker,
                neighbour,
            });
        }
    }
    if let Some(c) = EXIT_STATUS
        .captures(line)
        .filter(|_| !(prose(line) || documented(line)))
    {
        let nonzero = c
            .name("n")
            .and_then(|n| std::str::from_utf8(n.as_bytes()).ok()?.parse::<i64>().ok())
            .is_some_and(|n| n != 0);
        if nonzero {
            let marker = String::from_utf8_lossy(&c["m"]).into_owned();
            return Some(Classified {
                strength: Strength::Strong,
                marker,
                neighbour: Neighbour::None,
            });
        }
    }
    // The weak match first: the checks below are costlier and most lines have none.
    let weak = WEAK.captures(line)?;
    if ZERO_REPORT.is_match(line) || prose(line) || documented(line) {
        return None;
    }
    Some(weak)
        .filter(|c| {
            let m = c.name("m").expect("the weak regex names its marker");
            // `the error message`, `error handling`: naming the thing, not reporting one.
            let rest = &line[m.end()..];
            let naming = [&b" message"[..], b" handling", b" handler"]
                .iter()
                .any(|w| rest.len() >= w.len() && rest[..w.len()].eq_ignore_ascii_case(w));
            !naming
                && !PARAMETER.is_match(&line[m.start()..])
                && !line[m.end()..].starts_with(b"::")
                && !quoted(line, m.start(), m.end())
        })
        .map(|c| Classified {
            strength: Strength::Weak,
            marker: String::from_utf8_lossy(&c["m"]).into_owned(),
            neighbour: Neighbour::None,
        })
}

/// True when the match `start..end` lies inside a quoted string on a line that is not JSON: a
/// documentation example (`'cat: /bin/junk: No such file or directory'`), a commit message
/// naming a marker (`after 'error[E0308]'`), a literal in source code. The real message is on
/// another line (a traceback's last, the tool's own).
pub fn quoted(line: &[u8], start: usize, end: usize) -> bool {
    if matches!(line.trim_ascii_start().first(), Some(b'{' | b'[')) {
        return false;
    }
    [b'\'', b'"', b'`'].iter().any(|&q| {
        // A run of backquotes is one quote (reStructuredText's ``errors``).
        let before = line[..start]
            .iter()
            .enumerate()
            .filter(|&(i, &b)| b == q && (q != b'`' || i == 0 || line[i - 1] != q))
            .count();
        before % 2 == 1 && memchr::memchr(q, &line[end..]).is_some()
    })
}

/// `path.ext:LINE`, the location a diagnostic names.
static LOCATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\w\.\w+:\d+").expect("location regex"));

/// A field label and a one- or two-word value (`Units: Undefined`, `Endianness: Undefined`,
/// `Status: not found`), as a report of properties prints them.
static FIELD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\s*[A-Z][A-Za-z]*(?:[ -][A-Za-z]+){0,2}:\s+[A-Za-z][A-Za-z-]*(?:\s+[A-Za-z-]+)?\s*$",
    )
    .expect("field regex")
});

/// True for descriptive text whose words only look like failures: a field label with a short
/// value (`Units: Undefined`), or [`prose`]. Its problem phrases and codes do not rank; a
/// strong marker outside quotes still counts.
pub fn descriptive(line: &[u8]) -> bool {
    FIELD.is_match(line) || prose(line) || documented(line)
}

/// The other descriptive lines of documentation and histories (README, "Failure signals"): a
/// docstring's text behind a class's `|` rule, a function's signature (`error(msg, *args)`),
/// a title-case heading (`   Redirecting Standard Output and Standard Error`), a module's
/// constant (`    FATAL = 50`), a one-line
/// history's subject (`bd155ba search: … not an overflow`). Beside an identifier, a heading
/// and a rule, no failure report is written this way.
static DOCUMENTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?-u)^(?:\s+\|\s{3,}[A-Za-z]",
        r"|\s+(?:\|\s+)?[A-Za-z_][A-Za-z0-9_.]*\([^()]*\)\s*$",
        r"|\s{2,}[A-Z][a-z]+(?: (?:[A-Z][a-z]+|and|or|of|the|to|in|for|a|an|with|on|from))+\s*$",
        r"|\s+[A-Z][A-Z0-9_]* = \S+\s*$",
        r"|(?P<id>[0-9a-f]{7,40}) \S)"
    ))
    .expect("documented regex")
});

/// True for a line `DOCUMENTED` describes; a history's id holds a letter and a digit, so a
/// count (`1234567 errors`) is not one.
pub fn documented(line: &[u8]) -> bool {
    DOCUMENTED.captures(line).is_some_and(|c| {
        c.name("id").is_none_or(|id| {
            let id = id.as_bytes();
            id.iter().any(u8::is_ascii_digit) && id.iter().any(u8::is_ascii_lowercase)
        })
    })
}

/// True for an indented line of prose (a manual page, a docstring, a commit message body):
/// seven or more words, most of them plain lower-case words, or, indented six or more, only
/// plain words; and no `file:line` location. Its mentions of error or failure are no weak
/// signals. A log's indented detail (`    cannot open /data/x: disk quota exceeded`) is not
/// prose.
pub fn prose(line: &[u8]) -> bool {
    // A class body in a docstring page is indented behind a `|` rule.
    let body = line.trim_ascii_start();
    let body = body
        .strip_prefix(b"|")
        .map_or(body, <[u8]>::trim_ascii_start);
    let indent = line.len() - body.len();
    if indent < 2 || LOCATION.is_match(line) {
        return false;
    }
    let mut words = 0usize;
    let mut plain = 0usize;
    let mut lettered = 0usize;
    for w in body
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
    {
        words += 1;
        let w = w.strip_prefix(b"(").unwrap_or(w).trim_ascii_end();
        let core = w
            .iter()
            .rposition(|b| !matches!(b, b'.' | b',' | b';' | b':' | b'!' | b'?' | b')'))
            .map_or(&w[..0], |k| &w[..=k]);
        if !core.is_empty()
            && core
                .iter()
                .all(|b| b.is_ascii_lowercase() || matches!(b, b'\'' | b'-'))
        {
            plain += 1;
        }
        if !core.is_empty() && core.iter().all(u8::is_ascii_alphabetic) {
            lettered += 1;
        }
    }
    // A manual's paragraph wraps short lines too, and a docstring's short descriptions
    // (`exception context`, `setUpModule fails (unlike tearDownModule).`) are deeply indented:
    // two or more words, all plain, or all of letters and half of them plain.
    let short = plain == words || (lettered == words && plain * 2 >= words);
    (words >= 7 && plain * 10 >= words * 6) || (words >= 2 && short && indent >= 6)
}

/// True when the match `start..end` is part of a file name or identifier: a word character or
/// `/` right before it, or an extension (`.h`) or word character right after it.
fn in_file_name(line: &[u8], start: usize, end: usize) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let before = start.checked_sub(1).map(|i| line[i]);
    let first_is_word = line.get(start).is_some_and(|&b| word(b));
    let last_is_word = end > start && word(line[end - 1]);
    (first_is_word && before.is_some_and(|b| word(b) || b == b'/'))
        || (last_is_word
            && match (line.get(end), line.get(end + 1)) {
                (Some(&b), _) if word(b) => true,
                (Some(b'.'), Some(&c)) => c.is_ascii_alphanumeric(),
                _ => false,
            })
}

/// True when only whitespace, punctuation or a `path:line:` style prefix precedes `at`.
fn at_message_start(line: &[u8], at: usize) -> bool {
    let before = &line[..at];
    let trimmed = before.trim_ascii();
    trimmed.is_empty()
        || trimmed.ends_with(b":")
        || trimmed.ends_with(b"]")
        || trimmed.ends_with(b"-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strength(line: &str) -> Option<Strength> {
        classify(line.as_bytes()).map(|c| c.strength)
    }

    #[test]
    fn strong_markers() {
        for line in [
            "error[E0308]: mismatched types",
            "error: could not compile `foo`",
            "src/main.c:3:5: error: expected ';'",
            "Error: Cannot find module 'x'",
            "sqlite3.IntegrityError: UNIQUE constraint failed",
            "java.lang.NullPointerException: boom",
            "Traceback (most recent call last):",
            "thread 'main' panicked at src/main.rs:2:5:",
            "test result: FAILED. 3 passed; 1 failed",
            "--- FAIL: TestThing (0.00s)",
            "FAIL: test_x (tests.T)",
            "fatal: not a git repository",
            "npm ERR! code ELIFECYCLE",
            "npm error code 1",
            "E: Unable to locate package foo",
            "Segmentation fault (core dumped)",
            "==1==ERROR: AddressSanitizer: heap-use-after-free",
            "main.o: undefined reference to `foo'",
            "bash: ./x: Permission denied",
            "cat: x: No such file or directory",
            "cp: cannot stat 'a': No such file",
            "bash: foo: command not found",
            "Process exited with code 3",
            "exit status 2",
        ] {
            assert_eq!(strength(line), Some(Strength::Strong), "{line}");
        }
    }

    #[test]
    fn weak_mentions() {
        for line in [
            "2 errors found",
            "Build failed",
            "task failure in stage 2",
            "PANIC in worker",
            "Unhandled exception",
            "ERROR [main] boom",
        ] {
            assert_eq!(strength(line), Some(Strength::Weak), "{line}");
        }
    }

    #[test]
    fn never_signals() {
        for line in [
            "test result: ok. 21 passed; 0 failed; 0 ignored",
            "failed=0 ok=12",
            "0 errors, 0 warnings",
            "Compiling exception.h",
            "calling on_error handler",
            "src/error_handling.rs",
            "exit status 0",
            "no errors found",
            "the quick brown fox",
            "include/fail-fast.h",
            "-rw-r--r--  1 user user  444 2026-12-01 AddressSanitizer.h",
            "-rw-r--r-- user/user     296 2026-01-01 00:00 src/errors",
            "cc -c AddressSanitizer_glue.c -o AddressSanitizer_glue.o",
            "src/Traceback.md",
            // Descriptive text: prose, quoted examples, code paths, parameter defaults.
            "       The command fails with an error when the file cannot be found.",
            "     |      exception context",
            "        (1, 'cat: /bin/junk: No such file or directory')",
            "    after 'error[E0308]' was taken as the error's detail",
            "    error::Gone knows the tombstone's word",
            "    getoutput(cmd, *, encoding=None, errors=None)",
            "   “paths must precede expression” error message",
            "      a signal's line is the number of its first line (--- FAIL shows the line before).",
        ] {
            assert_eq!(strength(line), None, "{line}");
        }
    }

    #[test]
    fn descriptive_text_is_told_from_a_logs_detail() {
        for line in [
            "  Units: Undefined",
            "  Endianness: Undefined",
            "Status: not found",
            "    The build is retried when a worker cannot reach the cache in time.",
        ] {
            assert!(descriptive(line.as_bytes()), "{line}");
        }
        for line in [
            "    cannot open /data/shard217: disk quota exceeded",
            "    foo_test.go:12: expected 3, got 4",
            "Error: the upload failed because the bucket quota is exhausted for tenant 42",
            "the build failed",
        ] {
            assert!(!descriptive(line.as_bytes()), "{line}");
        }
        // A real failure in a JSON line keeps its quoted marker.
        assert!(classify(br#"{"message":"error: mismatched types"}"#).is_some());
    }

    #[test]
    fn documentation_and_history_lines_are_descriptive() {
        for line in [
            "     |      Called when an expected failure/error occurred.",
            "     |      Assertion failed.",
            "    error(msg, *args, **kwargs)",
            "     |  fail(self, msg=None)",
            "   Redirecting Standard Output and Standard Error",
            "    FATAL = 50",
            "bd155ba search: saturating context arithmetic (not an overflow)",
            "        setUpModule fails (unlike tearDownModule).",
        ] {
            assert!(descriptive(line.as_bytes()), "{line}");
            assert_eq!(strength(line), None, "{line}");
        }
        // Not descriptive: a compiler's annotation under its gutter, a count, a real report.
        for line in [
            "    |                        ---   ^^^^^^^ expected `u32`, found `&str`",
            "1234567 errors found",
            "       ^--------^ SC2115 (warning): Use \"${var:?}\" to ensure this never expands to / .",
            "Build failed",
        ] {
            assert!(!descriptive(line.as_bytes()), "{line}");
        }
        // A strong marker at a subject's message start still counts; reST's ``errors`` quotes.
        assert_eq!(
            strength("      Added the ``encoding`` and ``errors`` parameters."),
            None
        );
        assert_eq!(strength("exit status 2"), Some(Strength::Strong));
        assert_eq!(
            strength("    A harness that runs it saw exit status 137 where, without it, it saw"),
            None
        );
    }

    #[test]
    fn headers_name_their_neighbour() {
        assert_eq!(
            classify(b"--- FAIL: TestX (0.00s)").unwrap().neighbour,
            Neighbour::Before
        );
        assert_eq!(
            classify(b"Traceback (most recent call last):")
                .unwrap()
                .neighbour,
            Neighbour::After
        );
        assert_eq!(
            classify(b"error[E0425]: cannot find value")
                .unwrap()
                .neighbour,
            Neighbour::After
        );
        assert_eq!(classify(b"fatal: bad").unwrap().neighbour, Neighbour::None);
    }

    #[test]
    fn the_prefilter_finds_every_classified_line() {
        for line in [
            "error[E1]",
            "Traceback",
            "--- FAIL",
            "npm ERR!",
            "E: x",
            "exit status 1",
            "AddressSanitizer",
            "FAILED",
        ] {
            assert!(prefilter_matches(line.as_bytes()), "{line}");
        }
    }

    #[test]
    fn the_prefilter_ignores_case_and_finds_apt_errors_at_line_starts() {
        for line in [
            "ERROR x",
            "Fatal",
            "PANIC",
            "e: lower",
            "Exited With Code 3",
        ] {
            assert!(prefilter_matches(line.as_bytes()), "{line}");
        }
        assert!(!prefilter_matches(b"the quick brown fox"));
        assert!(!prefilter_matches(b"note: done"));
        let lower = b"ok\nnote: done\ne: broken\n";
        // The hit lies on the `E: ` line, not on the line whose newline precedes it.
        assert_eq!(prefilter_find(lower, 0), Some(14));
        assert_eq!(prefilter_find(lower, 14), Some(14));
        assert_eq!(prefilter_find(lower, 24), None);
    }

    proptest::proptest! {
        /// Every line the markers' regexes accept is found by the prefilter, whatever its case
        /// (what lets [`classify`] reject a line the prefilter finds nothing in).
        #[test]
        fn the_prefilter_is_a_superset_of_classify(
            words in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just("Error:"), proptest::strategy::Just("FAILED"),
                    proptest::strategy::Just("E: "), proptest::strategy::Just("panicked"),
                    proptest::strategy::Just("exit status 2"), proptest::strategy::Just("Exception"),
                    proptest::strategy::Just("cannot stat"), proptest::strategy::Just("x"),
                    proptest::strategy::Just(" "), proptest::strategy::Just("fAtAl"),
                ], 0..6),
        ) {
            let line = words.concat();
            if classify_hit(line.as_bytes()).is_some() {
                proptest::prop_assert!(prefilter_matches(line.as_bytes()), "{}", line);
            }
        }
    }
}
