//! `spill search`: SOURCE, the pattern and the page, through the search library and its
//! printer.

use std::io::Write;

use crate::diag;
use crate::error::{Error, Result};
use crate::limits;
use crate::search::printer::{self, TextStyle};
use crate::search::{self, Page, Pattern, PatternError, PatternOptions};
use crate::store::StoreConfig;

use super::{Notice, Outcome, Report};

/// What to find and how to print it (`spill search`'s flags); `Default` is the command line's
/// defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// A ref (`sp_…`), a file path, or `-` for stdin (paths are refused in restricted mode).
    pub source: String,
    /// The patterns (PATTERN and every `-e`); an occurrence of any of them matches.
    pub patterns: Vec<String>,
    /// `--fixed-strings`: the patterns are literal strings.
    pub fixed_strings: bool,
    /// `--ignore-case`.
    pub ignore_case: bool,
    /// `--word`: whole words only.
    pub word: bool,
    /// Lines of context before each match (`-B`, or `-C`).
    pub before_context: usize,
    /// Lines of context after each match (`-A`, or `-C`).
    pub after_context: usize,
    /// `--offset`: matches skipped.
    pub offset: u64,
    /// `--limit`: matches shown at most.
    pub limit: u64,
    /// `--max-columns`: longer lines are shown as a window around the match (0: whole lines).
    pub max_columns: usize,
    /// `--max-bytes`: the page's rows stay within this size (0: no limit).
    pub max_bytes: u64,
    /// `--unbounded`: lift `max_bytes` and `max_columns`.
    pub unbounded: bool,
    /// `--count`: only the number of matches.
    pub count: bool,
    /// `--json`: one JSON object.
    pub json: bool,
    /// `--paths`: each match gets the JSONPath of the value holding it.
    pub paths: bool,
    /// `--skip-invalid` (with `paths`, on NDJSON).
    pub skip_invalid: bool,
    /// `--raw`: search the stored bytes, not the cleaned view; no escaping.
    pub raw: bool,
    /// Highlight matches and line numbers with ANSI colours (text output).
    pub color: bool,
    /// The output is a terminal: control characters of the source are escaped (unless `raw`).
    pub escape_terminal: bool,
    /// `--all`: search every stored output of the scope, newest first (`source` is not read).
    pub all: bool,
    /// `--resume`: with `all`, the cursor a page's `next:` gave (`REF:SKIP:CREATED`).
    pub resume: Option<String>,
    /// `--max-outputs`: with `all`, the stored outputs read at most per call (0: no limit).
    pub max_outputs: usize,
}

impl Default for Request {
    fn default() -> Request {
        Request {
            source: String::new(),
            patterns: Vec::new(),
            fixed_strings: false,
            ignore_case: false,
            word: false,
            before_context: 0,
            after_context: 0,
            offset: 0,
            limit: limits::SEARCH_LIMIT,
            max_columns: limits::SEARCH_MAX_COLUMNS,
            max_bytes: limits::SEARCH_MAX_BYTES,
            unbounded: false,
            count: false,
            json: false,
            paths: false,
            skip_invalid: false,
            raw: false,
            color: false,
            escape_terminal: false,
            all: false,
            resume: None,
            max_outputs: limits::SEARCH_MAX_OUTPUTS,
        }
    }
}

impl Request {
    /// The default request for this source and one pattern.
    pub fn new(source: impl Into<String>, pattern: impl Into<String>) -> Request {
        Request {
            source: source.into(),
            patterns: vec![pattern.into()],
            ..Request::default()
        }
    }
}

/// The note when the cleaned view was searched.
pub(super) const CLEANED: &str = "searched the text as the envelope shows it: escape sequences and \\r frames removed (--raw searches the stored bytes)";

/// Runs `spill search`: writes the page (or the count) to `out`; the pagination footer and the
/// notes are in the report. No match is [`Outcome::NotFound`].
///
/// With [`Request::all`], every stored output of the scope is searched instead (README,
/// "Searching every output"): rows are labelled with their ref and the footer's `next:` is a
/// `--resume` cursor.
pub fn run(store: &StoreConfig, req: &Request, out: &mut dyn Write) -> Result<Report> {
    if req.all {
        return super::search_all::run(store, req, out);
    }
    if req.resume.is_some() {
        return Err(Error::Usage(
            "--resume continues a search --all page: give --all with it".into(),
        ));
    }
    let pattern = pattern(req)?;
    let page = Page {
        offset: req.offset,
        limit: req.limit,
        before_context: req.before_context,
        after_context: req.after_context,
        max_columns: if req.unbounded { 0 } else { req.max_columns },
        max_bytes: if req.unbounded { 0 } else { req.max_bytes },
    };
    let source = crate::source::open(&req.source, store)?;
    // Lines as the envelope shows them (same numbers); --paths reads JSON, so stored bytes.
    let clean = !req.raw && !req.paths;
    let input: &[u8] = &source;
    let searching = |e| Error::stream("search the source", e);
    let writing = |e| Error::stream("write to stdout", e);
    let fallback = pattern
        .fallback_reason()
        .map(|why| Notice::LiteralFallback(why.to_string()));
    let mut report = Report::new(Outcome::Found);

    let total = if req.count {
        let counted = search::count_source(input, &pattern, clean);
        source.check_unchanged()?;
        let (total, cleaned) = counted.map_err(searching)?;
        if req.json {
            printer::write_count_json(out, total, pattern.mode()).map_err(writing)?;
        } else {
            printer::write_count(out, total, false).map_err(writing)?;
            report.notices.extend(fallback);
            if cleaned {
                report.notices.push(Notice::SearchedCleaned);
            }
        }
        total
    } else {
        let (mut result, cleaned) =
            search::search_source(input, &pattern, &page, clean).map_err(searching)?;
        let mut notes = Vec::new();
        if cleaned {
            notes.push(Notice::SearchedCleaned);
        }
        if req.paths
            && let Err(e) = search::attach_paths(input, &mut result, req.skip_invalid)
        {
            notes.push(Notice::PathsIgnored(paths_ignored(input, &e)));
        }
        source.check_unchanged()?;
        if req.json {
            let notes: Vec<String> = notes.iter().map(Notice::to_string).collect();
            printer::write_json(out, &result, &notes).map_err(writing)?;
        } else {
            let style = TextStyle {
                color: req.color,
                escape: req.escape_terminal && !req.raw,
                separators: page.before_context > 0 || page.after_context > 0,
            };
            printer::write_text(out, &result, style).map_err(writing)?;
            report.notices.extend(fallback);
            report.notices.extend(notes);
            if let Some(n) = result.skipped_lines.filter(|&n| n > 0) {
                report.notices.push(Notice::SkippedLines(n));
            }
            report.footer = printer::footer(&result);
            // Like extract's "nothing selected": in text mode an empty output is explained.
            // --json (`"totalMatches":0`) and --count (`0`) say it in the output already.
            if result.total_matches == 0 {
                report.notices.push(Notice::NoMatches(req.patterns.clone()));
            }
        }
        result.total_matches
    };
    if total == 0 {
        report.outcome = Outcome::NotFound;
    }
    Ok(report)
}

/// Checks the request's patterns (an empty or unsearchable one is a usage error) without
/// reading anything: the command line reports these before the store's own errors.
pub fn check(req: &Request) -> Result<()> {
    pattern(req).map(|_| ())
}

pub(super) fn pattern(req: &Request) -> Result<Pattern> {
    Pattern::new(&PatternOptions {
        patterns: req.patterns.clone(),
        fixed_strings: req.fixed_strings,
        ignore_case: req.ignore_case,
        word: req.word,
    })
    .map_err(|e| match e {
        PatternError::Empty => Error::Usage(
            "the search pattern is empty: give a PATTERN (or -e PATTERN) of at least one character"
                .into(),
        ),
        PatternError::Unsearchable(why) => Error::Usage(format!("cannot search: {why}")),
    })
}

/// The note for `--paths` on a source that is not JSON or NDJSON; it says where a source that
/// looks like JSON stops being valid.
fn paths_ignored(doc: &[u8], e: &crate::json::SyntaxError) -> String {
    if crate::json::sniff::looks_like_json(doc) {
        format!(
            "--paths ignored: the source looks like JSON but is invalid at byte {} (line {}:{}): {}",
            e.offset,
            e.line,
            e.column,
            diag::escape(&e.message)
        )
    } else {
        "--paths ignored: the source is not JSON or NDJSON".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testing::{self, spill};

    fn log() -> Vec<u8> {
        (1..=3000)
            .flat_map(|i| match i % 100 {
                0 => format!("{i} ERROR disk full\n").into_bytes(),
                _ => format!("{i} ok\n").into_bytes(),
            })
            .collect()
    }

    #[test]
    fn a_page_of_matches_with_the_footer() {
        let (_dir, store) = testing::store();
        let r = spill(&store, &log());
        let req = Request {
            limit: 2,
            ..Request::new(r.as_str(), "ERROR")
        };
        let mut out = Vec::new();
        let report = run(&store, &req, &mut out).unwrap();
        assert_eq!(
            testing::text(out),
            "100:5:100 ERROR disk full\n200:5:200 ERROR disk full\n"
        );
        assert_eq!(report.outcome, Outcome::Found);
        assert_eq!(
            report.footer.as_deref(),
            Some("matches 1–2 of 30 · next: --offset 2")
        );
        assert!(report.notices.is_empty());
    }

    #[test]
    fn counts_and_json_say_everything_in_the_output() {
        let (_dir, store) = testing::store();
        let r = spill(&store, &log());
        let count = Request {
            count: true,
            ..Request::new(r.as_str(), "ERROR")
        };
        let mut out = Vec::new();
        let report = run(&store, &count, &mut out).unwrap();
        assert_eq!(out, b"30\n");
        assert_eq!(report, Report::new(Outcome::Found));
        let json = Request {
            json: true,
            ..count
        };
        let mut out = Vec::new();
        run(&store, &json, &mut out).unwrap();
        assert_eq!(out, b"{\"totalMatches\":30}\n");
        let literal = Request {
            patterns: vec!["ERROR(".into()],
            ..json
        };
        let mut out = Vec::new();
        let report = run(&store, &literal, &mut out).unwrap();
        assert_eq!(out, b"{\"totalMatches\":0,\"patternMode\":\"literal\"}\n");
        assert_eq!(report, Report::new(Outcome::NotFound));
    }

    #[test]
    fn no_match_is_not_found_with_a_message_after_the_notes() {
        let (_dir, store) = testing::store();
        let r = spill(&store, &log());
        let req = Request::new(r.as_str(), "zzz(");
        let mut out = Vec::new();
        let report = run(&store, &req, &mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(report.outcome, Outcome::NotFound);
        assert_eq!(report.footer, None);
        assert!(matches!(report.notices[0], Notice::LiteralFallback(_)));
        assert_eq!(report.notices[1], Notice::NoMatches(vec!["zzz(".into()]));
        let trailer = report.trailer();
        assert!(
            trailer.starts_with("spill: note: pattern is not a valid regex ("),
            "{trailer}"
        );
        assert!(
            trailer.ends_with("\nspill: no matches for 'zzz('\n"),
            "{trailer}"
        );
    }

    #[test]
    fn a_bad_pattern_is_found_before_anything_is_read() {
        let req = Request::new("/nonexistent", "");
        let err = check(&req).unwrap_err();
        assert!(
            err.to_string().contains("the search pattern is empty"),
            "{err}"
        );
    }
}
