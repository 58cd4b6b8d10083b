//! Compiles the search patterns (`-e`, `-F`, `-i`, `-w`) into one line-oriented matcher.

use grep_matcher::{LineMatchKind, LineTerminator, Match, Matcher, NoCaptures, NoError};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};

/// What the user asked to search for.
#[derive(Debug, Clone, Default)]
pub struct PatternOptions {
    /// The patterns; a match of any of them is a match (`PATTERN` and each `-e`).
    pub patterns: Vec<String>,
    /// Treat every pattern as a literal string (`-F`).
    pub fixed_strings: bool,
    /// Match case-insensitively (`-i`).
    pub ignore_case: bool,
    /// Match only whole words (`-w`).
    pub word: bool,
}

/// How the patterns were finally interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternMode {
    /// As regular expressions (or as literals because `-F` asked for it).
    Regex,
    /// At least one pattern was not a valid regex and was searched as a literal string.
    Literal,
}

/// Why the patterns could not be compiled at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternError {
    /// No pattern, or an empty one: searching for nothing is a usage error.
    Empty,
    /// Even read literally, a pattern cannot be searched (e.g. it contains a line break).
    Unsearchable(String),
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PatternError::Empty => f.write_str("the search pattern is empty"),
            PatternError::Unsearchable(why) => write!(f, "cannot search for the pattern: {why}"),
        }
    }
}

impl std::error::Error for PatternError {}

/// A compiled pattern set: the matcher the searcher and the paging sink share.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub(crate) matcher: SpillMatcher,
    mode: PatternMode,
    fallback_reason: Option<String>,
}

impl Pattern {
    /// Compiles `options`. A pattern that is not a valid regex is searched as a literal
    /// string instead (see [`Pattern::mode`] and [`Pattern::fallback_reason`]).
    pub fn new(options: &PatternOptions) -> Result<Pattern, PatternError> {
        if options.patterns.is_empty() || options.patterns.iter().any(String::is_empty) {
            return Err(PatternError::Empty);
        }
        let mut builder = RegexMatcherBuilder::new();
        builder
            .case_insensitive(options.ignore_case)
            .word(options.word)
            .fixed_strings(options.fixed_strings)
            // `^` and `$` anchor at line boundaries, as in grep; the line terminator
            // lets the searcher look for candidate lines over whole buffers.
            .multi_line(true)
            .line_terminator(Some(b'\n'));
        if let Ok(matcher) = builder.build_many(&options.patterns) {
            return Ok(Pattern {
                matcher: SpillMatcher::new(matcher, options, &options.patterns),
                mode: PatternMode::Regex,
                fallback_reason: None,
            });
        }
        // Only the patterns that fail on their own are read literally; the others keep
        // their regex meaning.
        let mut reasons = Vec::new();
        let patterns: Vec<String> = options
            .patterns
            .iter()
            .map(|p| match builder.build(p) {
                Ok(_) => p.clone(),
                Err(err) => {
                    reasons.push(first_line(&err.to_string()));
                    regex::escape(p)
                }
            })
            .collect();
        let matcher = builder
            .build_many(&patterns)
            .map_err(|err| PatternError::Unsearchable(first_line(&err.to_string())))?;
        Ok(Pattern {
            matcher: SpillMatcher::new(matcher, options, &patterns),
            mode: PatternMode::Literal,
            fallback_reason: Some(reasons.join("; ")),
        })
    }

    /// Whether the patterns were searched as regexes or (some) as literal strings.
    pub fn mode(&self) -> PatternMode {
        self.mode
    }

    /// Why a pattern was searched as a literal string, when one was.
    pub fn fallback_reason(&self) -> Option<&str> {
        self.fallback_reason.as_deref()
    }
}

/// The matcher every search runs: grep-regex's, and for `-w` the fix-up that makes a byte that
/// is not UTF-8 a non-word neighbour, as `grep -w`, ripgrep's `\b` and spill's own `\bword\b`
/// have it.
///
/// grep-regex's `-w` puts Unicode half word boundaries around the patterns (`\b{start-half}`:
/// no word character before), and regex-automata's half boundaries fail next to a byte that is
/// not UTF-8 instead of treating it as a non-word character; which engine runs decides the rest
/// (`\x80Error` counted as a word, `\xffError` not). So with `-w` a second matcher, `loose`,
/// puts ASCII half boundaries around the same patterns (a byte of 0x80 or more is a non-word
/// neighbour there, so it finds every match `-w` should find and some more), and each of its
/// matches is checked: the character before and after must not be a Unicode word character,
/// a byte that is not UTF-8 being none. A match that fails the check has a non-ASCII word
/// character beside it, where grep-regex's own `-w` matcher is exact: it answers from there.
#[derive(Debug, Clone)]
pub struct SpillMatcher {
    regex: RegexMatcher,
    /// With `-w`: the patterns between ASCII half word boundaries.
    loose: Option<RegexMatcher>,
}

impl SpillMatcher {
    /// `regex` is built from `patterns` (the options' or their literal forms) with `options`.
    fn new(regex: RegexMatcher, options: &PatternOptions, patterns: &[String]) -> SpillMatcher {
        let loose = options
            .word
            .then(|| {
                let wrapped: Vec<String> = patterns
                    .iter()
                    .map(|p| {
                        let p = match options.fixed_strings {
                            true => regex::escape(p),
                            false => p.clone(),
                        };
                        format!(r"(?-u:\b{{start-half}})(?:{p})(?-u:\b{{end-half}})")
                    })
                    .collect();
                RegexMatcherBuilder::new()
                    .case_insensitive(options.ignore_case)
                    .multi_line(true)
                    .line_terminator(Some(b'\n'))
                    .build_many(&wrapped)
                    .ok()
            })
            .flatten();
        SpillMatcher { regex, loose }
    }
}

/// Whether a Unicode word character ends at `at` (`before`) or starts there; a byte that is
/// not part of a UTF-8 character is not one.
fn word_char_at(haystack: &[u8], at: usize, before: bool) -> bool {
    let byte = if before {
        at.checked_sub(1).map(|i| haystack[i])
    } else {
        haystack.get(at).copied()
    };
    let Some(byte) = byte else {
        return false;
    };
    if byte.is_ascii() {
        return byte.is_ascii_alphanumeric() || byte == b'_';
    }
    let decoded = if before {
        (2..=4.min(at)).find_map(|n| {
            std::str::from_utf8(&haystack[at - n..at])
                .ok()
                .and_then(|s| s.chars().next_back())
        })
    } else {
        (2..=4.min(haystack.len() - at)).find_map(|n| {
            std::str::from_utf8(&haystack[at..at + n])
                .ok()
                .and_then(|s| s.chars().next())
        })
    };
    decoded.is_some_and(regex_syntax::is_word_character)
}

impl Matcher for SpillMatcher {
    type Captures = NoCaptures;
    type Error = NoError;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, NoError> {
        let Some(loose) = &self.loose else {
            return self.regex.find_at(haystack, at);
        };
        // The exact matcher's answer from the first rejected match on, when there was one.
        let mut exact: Option<Option<Match>> = None;
        let mut from = at;
        while from <= haystack.len() {
            let Some(m) = loose.find_at(haystack, from)? else {
                break;
            };
            if let Some(Some(e)) = exact
                && e.start() <= m.start()
            {
                return Ok(Some(e));
            }
            if !word_char_at(haystack, m.start(), true) && !word_char_at(haystack, m.end(), false) {
                return Ok(Some(m));
            }
            if exact.is_none() {
                exact = Some(self.regex.find_at(haystack, m.start())?);
            }
            from = m.start() + 1;
        }
        Ok(exact.flatten())
    }

    fn new_captures(&self) -> Result<NoCaptures, NoError> {
        Ok(NoCaptures::new())
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, NoError> {
        match &self.loose {
            None => self.regex.shortest_match_at(haystack, at),
            Some(_) => Ok(self.find_at(haystack, at)?.map(|m| m.end())),
        }
    }

    fn non_matching_bytes(&self) -> Option<&grep_matcher::ByteSet> {
        self.loose
            .as_ref()
            .unwrap_or(&self.regex)
            .non_matching_bytes()
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        self.regex.line_terminator()
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, NoError> {
        match &self.loose {
            None => self.regex.find_candidate_line(haystack),
            // The loose matcher finds a superset: its lines are candidates to check.
            Some(loose) => Ok(loose.find_candidate_line(haystack)?.map(|kind| match kind {
                LineMatchKind::Confirmed(at) | LineMatchKind::Candidate(at) => {
                    LineMatchKind::Candidate(at)
                }
            })),
        }
    }
}

/// Regex errors span several lines (pattern, caret, message); a note needs the message.
fn first_line(message: &str) -> String {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    // regex-syntax puts the explanation on the last line ("error: unclosed group").
    let best = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("error:"))
        .or(lines.last())
        .copied()
        .unwrap_or("invalid pattern");
    best.trim_start_matches("error:").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(patterns: &[&str]) -> PatternOptions {
        PatternOptions {
            patterns: patterns.iter().map(|p| p.to_string()).collect(),
            ..PatternOptions::default()
        }
    }

    fn count(pattern: &Pattern, haystack: &[u8]) -> usize {
        let mut n = 0;
        pattern
            .matcher
            .find_iter(haystack, |_| {
                n += 1;
                true
            })
            .unwrap();
        n
    }

    #[test]
    fn empty_patterns_are_refused() {
        assert_eq!(
            Pattern::new(&options(&[])).unwrap_err(),
            PatternError::Empty
        );
        assert_eq!(
            Pattern::new(&options(&["a", ""])).unwrap_err(),
            PatternError::Empty
        );
    }

    #[test]
    fn invalid_regexes_become_literals() {
        let p = Pattern::new(&options(&["foo(", "ba+r"])).unwrap();
        assert_eq!(p.mode(), PatternMode::Literal);
        assert!(
            p.fallback_reason().unwrap().contains("unclosed group"),
            "{:?}",
            p.fallback_reason()
        );
        assert_eq!(count(&p, b"foo( foo baar"), 2);
    }

    #[test]
    fn flags_apply() {
        let mut o = options(&["a.c"]);
        assert_eq!(count(&Pattern::new(&o).unwrap(), b"abc a.c"), 2);
        o.fixed_strings = true;
        assert_eq!(count(&Pattern::new(&o).unwrap(), b"abc a.c"), 1);
        let mut o = options(&["Err"]);
        o.ignore_case = true;
        assert_eq!(count(&Pattern::new(&o).unwrap(), b"ERR err Error"), 3);
        o.word = true;
        assert_eq!(count(&Pattern::new(&o).unwrap(), b"ERR err Error"), 2);
        assert_eq!(Pattern::new(&o).unwrap().mode(), PatternMode::Regex);
    }

    /// A byte that is not UTF-8 is a non-word neighbour for `-w`, whichever byte it is, as
    /// for `\b` and `grep -w`; a Unicode word character is a word neighbour.
    #[test]
    fn word_matches_treat_invalid_bytes_as_non_word() {
        let mut o = options(&["Error"]);
        o.word = true;
        let word = Pattern::new(&o).unwrap();
        let bounded = Pattern::new(&options(&[r"\bError\b"])).unwrap();
        for (line, n) in [
            (&b"\x80Error"[..], 1),
            (b"\xffError", 1),
            (b"\xc3Error", 1),
            (b"\xe2\x82Error", 1),
            (b"\xf0\x9fError\xf0", 1),
            (b"Error\xff", 1),
            (b"\xffError\xfe \x80Error\xc0", 2),
            ("\u{e9}Error".as_bytes(), 0),
            ("Error\u{e9}".as_bytes(), 0),
            ("\u{e9}Error \u{2014}Error".as_bytes(), 1),
            (b"xError Error_ _Error", 0),
            (b"-Error-", 1),
        ] {
            assert_eq!(count(&word, line), n, "-w on {line:?}");
            assert_eq!(count(&bounded, line), n, "\\b on {line:?}");
        }
        // A rejected match (a word character beside it) leaves the exact matcher to answer:
        // the longer alternative ends at a space.
        let mut o = options(&["caf|caf\u{e9}"]);
        o.word = true;
        let p = Pattern::new(&o).unwrap();
        assert_eq!(count(&p, "caf\u{e9} x".as_bytes()), 1);
        assert_eq!(count(&p, "caf\u{e9}s caf".as_bytes()), 1);
        // Patterns that start or end with a non-word character keep -w's half boundaries.
        let mut o = options(&["-2"]);
        o.word = true;
        let p = Pattern::new(&o).unwrap();
        assert_eq!(count(&p, b"x -2 \xff-2"), 2);
        assert_eq!(count(&p, b"x-2"), 0);
    }

    #[test]
    fn a_line_break_in_a_literal_cannot_be_searched() {
        let mut o = options(&["a\nb"]);
        o.fixed_strings = true;
        assert!(matches!(
            Pattern::new(&o),
            Err(PatternError::Unsearchable(_))
        ));
    }
}
