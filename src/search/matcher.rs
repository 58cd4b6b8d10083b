//! Compiles the search patterns (`-e`, `-F`, `-i`, `-w`) into one line-oriented matcher.

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
    pub(crate) matcher: RegexMatcher,
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
                matcher,
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
            matcher,
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
    use grep_matcher::Matcher;

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
