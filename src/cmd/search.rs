//! `spill search`: wires SOURCE, the pattern flags and the page to the search library and its
//! printer.

use std::io::Write;

use crate::cli::{ColorWhen, Global, SearchArgs};
use crate::error::{Error, Result};
use crate::search::printer::{self, TextStyle};
use crate::search::{self, Page, Pattern, PatternError, PatternOptions};
use crate::{diag, output};

use super::Outcome;

/// Runs `spill search`.
pub fn run(global: &Global, args: SearchArgs) -> Result<Outcome> {
    let footer_to = super::footer_to(args.footer)?;
    let patterns: Vec<String> = args.pattern.into_iter().chain(args.regexp).collect();
    let no_matches = no_matches_message(&patterns);
    let pattern = Pattern::new(&PatternOptions {
        patterns,
        fixed_strings: args.fixed_strings,
        ignore_case: args.ignore_case,
        word: args.word,
    })
    .map_err(|e| match e {
        PatternError::Empty => Error::Usage(
            "the search pattern is empty: give a PATTERN (or -e PATTERN) of at least one character"
                .into(),
        ),
        PatternError::Unsearchable(why) => Error::Usage(format!("cannot search: {why}")),
    })?;
    let page = Page {
        offset: args.offset,
        limit: args.limit,
        before_context: args.before_context.or(args.context).unwrap_or(0),
        after_context: args.after_context.or(args.context).unwrap_or(0),
        max_columns: if args.unbounded { 0 } else { args.max_columns },
        max_bytes: if args.unbounded { 0 } else { args.max_bytes },
    };
    // Only a ref needs the store; a path or `-` never opens it.
    let store = super::store_config(global)?;
    let source = crate::source::open(&args.source, &store)?;
    // Lines as the envelope shows them (same numbers); --paths reads JSON, so stored bytes.
    let cleaned = (!args.raw && !args.paths)
        .then(|| crate::text::clean::view(&source))
        .flatten();
    let input: &[u8] = cleaned.as_deref().unwrap_or(&source);
    let searching = |e| Error::stream("search the source", e);
    let writing = |e| Error::stream("write to stdout", e);
    let mut out = output::stdout();

    let total = if args.count {
        let total = search::count_slice(input, &pattern);
        source.check_unchanged()?;
        let total = total.map_err(searching)?;
        if args.json {
            let mode = literal_mode_field(&pattern);
            writeln!(out, "{{\"totalMatches\":{total}{mode}}}").map_err(writing)?;
        } else {
            printer::write_count(&mut out, total, false).map_err(writing)?;
        }
        output::flush(&mut out)?;
        if !args.json {
            note_fallback(&pattern);
            if cleaned.is_some() {
                diag::note(CLEANED);
            }
        }
        total
    } else {
        let mut result = search::search_slice(input, &pattern, &page).map_err(searching)?;
        let mut notes = Vec::new();
        if cleaned.is_some() {
            notes.push(CLEANED.to_string());
        }
        if args.paths
            && let Err(e) = search::attach_paths(input, &mut result, args.skip_invalid)
        {
            notes.push(paths_ignored(input, &e));
        }
        source.check_unchanged()?;
        if args.json {
            printer::write_json(&mut out, &result, &notes).map_err(writing)?;
            output::flush(&mut out)?;
        } else {
            let on_terminal = output::stdout_is_terminal();
            let style = TextStyle {
                color: colour(global.color),
                escape: on_terminal && !args.raw,
                separators: page.before_context > 0 || page.after_context > 0,
            };
            printer::write_text(&mut out, &result, style).map_err(writing)?;
            output::flush(&mut out)?;
            note_fallback(&pattern);
            for note in &notes {
                diag::note(note);
            }
            if let Some(n) = result.skipped_lines.filter(|&n| n > 0) {
                diag::note(&super::shape::skipped_note(n));
            }
            if let Some(line) = printer::footer(&result) {
                super::emit_footer(&mut out, footer_to, &line)?;
            }
            // Like extract's "nothing selected": in text mode an empty stdout is explained.
            // --json (`"totalMatches":0`) and --count (`0`) say it on stdout already.
            if result.total_matches == 0 {
                diag::message(&no_matches);
            }
        }
        result.total_matches
    };
    Ok(if total > 0 {
        Outcome::Found
    } else {
        Outcome::NotFound
    })
}

/// `no matches for 'PATTERN'` (or for any of N patterns), escaped for the terminal.
fn no_matches_message(patterns: &[String]) -> String {
    match patterns {
        [one] => format!("no matches for '{}'", diag::echo(one)),
        many => format!("no matches for any of the {} patterns", many.len()),
    }
}
/// The note when the cleaned view was searched.
const CLEANED: &str = "searched the text as the envelope shows it: escape sequences and \\r frames removed (--raw searches the stored bytes)";

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

/// `,"patternMode":"literal"` when a pattern fell back to a literal search, else nothing.
fn literal_mode_field(pattern: &Pattern) -> &'static str {
    match pattern.mode() {
        search::PatternMode::Literal => ",\"patternMode\":\"literal\"",
        search::PatternMode::Regex => "",
    }
}

fn note_fallback(pattern: &Pattern) {
    if let Some(why) = pattern.fallback_reason() {
        diag::note(&format!(
            "pattern is not a valid regex ({}); searched it as a literal",
            diag::escape(why)
        ));
    }
}

/// Highlighting: `always`, or `auto` when anstream finds stdout a colour terminal (NO_COLOR,
/// CLICOLOR and TERM honoured). The bytes themselves never pass through anstream's stripper,
/// which would also strip escape sequences that belong to the source.
fn colour(when: ColorWhen) -> bool {
    crate::output::colour_stdout(when)
}
