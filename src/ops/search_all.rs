//! `spill search --all`: one page of matches over every stored output of the scope, newest
//! first, each hit labelled with its ref (README, "Searching every output").
//!
//! The outputs are read in `ls`'s order (newest created first, ties by ref), at most
//! [`Request::max_outputs`] of them per call, each exactly as `spill search REF` reads it (the
//! cleaned view unless `--raw`), with the page's `--limit` and `--max-bytes` spent across
//! them. A page is continued by a cursor, `REF:SKIP:CREATED`: the output the page stopped in,
//! the matches of it already shown and its creation time in microseconds, so the next page
//! starts exactly there, and still starts in the right place when that output was removed in
//! between (with the next older one) or newer ones were stored (they come later, on a search
//! without the cursor). Running entries are not searched (a note counts them): their bytes are
//! still changing, and `search ID` pages them as they stand.

use std::io::Write;

use crate::error::{Error, Result};
use crate::limits::group_digits;
use crate::search::printer::{self, TextStyle};
use crate::search::{self, Page, SearchResult};
use crate::store::running::{self, Opened};
use crate::store::{Entry, Ref, Store, StoreConfig, meta::now_secs};
use crate::wire::SearchPage;

use super::search::Request;
use super::{Notice, Outcome, Report};

/// Where a page of `search --all` starts: in `reference` (created at `created_us`), after its
/// first `skip` matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    /// The output the page starts in.
    pub reference: Ref,
    /// The matches to pass over from its start: those already shown, or (when a page's
    /// `--offset` went past the outputs it read) the rest of that offset, which runs on into
    /// the older outputs.
    pub skip: u64,
    /// Its creation time, microseconds since the Unix epoch (its place in the order).
    pub created_us: i64,
}

impl Cursor {
    /// Parses `sp_HEX:SKIP:CREATED`, the form the footer's `next: --resume` gives.
    pub fn parse(text: &str) -> Result<Cursor> {
        let bad = || {
            Error::Usage(format!(
                "--resume {:?} is not a cursor: give the REF:SKIP:CREATED a page's `next:` names",
                crate::diag::echo(text)
            ))
        };
        let mut parts = text.split(':');
        let (Some(r), Some(skip), Some(created), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(skip) || !digits(created) {
            return Err(bad());
        }
        Ok(Cursor {
            reference: Ref::parse(r).ok_or_else(bad)?,
            skip: skip.parse().map_err(|_| bad())?,
            created_us: created.parse().map_err(|_| bad())?,
        })
    }
}

impl std::fmt::Display for Cursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.reference, self.skip, self.created_us)
    }
}

/// An entry's place in the order, in the cursor's unit.
fn created_us(e: &Entry) -> i64 {
    (e.meta.created * 1e6).round() as i64
}

/// What one output gave the page.
struct Part {
    reference: Ref,
    result: SearchResult,
}

/// Runs `spill search --all` (see the module documentation); `req.source` is not read.
pub(super) fn run(config: &StoreConfig, req: &Request, out: &mut dyn Write) -> Result<Report> {
    if req.paths {
        return Err(Error::Usage(
            "--paths is not available with --all: search one output (spill search REF --paths)"
                .into(),
        ));
    }
    let pattern = super::search::pattern(req)?;
    let resume = req.resume.as_deref().map(Cursor::parse).transpose()?;
    let store = Store::new(config.clone());
    let mut entries = store.entries()?;
    // An output past its TTL is expired even before anything collects it, as in `ls`.
    let (now, ttl) = (now_secs(), config.ttl.as_secs_f64());
    entries.retain(|e| now - e.last_access <= ttl);
    entries.sort_by(|a, b| {
        created_us(b)
            .cmp(&created_us(a))
            .then(a.reference.cmp(&b.reference))
    });
    let mut notices = Vec::new();
    let mut first_skip = 0;
    if let Some(c) = resume {
        let key = (std::cmp::Reverse(c.created_us), c.reference);
        entries.retain(|e| (std::cmp::Reverse(created_us(e)), e.reference) >= key);
        if entries.first().is_some_and(|e| e.reference == c.reference) {
            first_skip = c.skip;
        } else {
            notices.push(Notice::CursorGone(c.reference.to_string()));
        }
    }
    let running = store
        .running_ids()
        .iter()
        .filter(|id| matches!(running::open(&store, id), Ok(Some(Opened::Live(_)))))
        .count() as u64;
    if running > 0 {
        notices.push(Notice::RunningNotSearched(running));
    }
    let max_outputs = if req.max_outputs == 0 {
        usize::MAX
    } else {
        req.max_outputs
    };
    let unsearched = entries.len().saturating_sub(max_outputs) as u64;
    let first_unsearched = entries.get(max_outputs).map(|e| Cursor {
        reference: e.reference,
        skip: 0,
        created_us: created_us(e),
    });
    entries.truncate(max_outputs);

    let unbounded = req.unbounded;
    let mut budget = if unbounded || req.max_bytes == 0 {
        u64::MAX
    } else {
        req.max_bytes
    };
    let (mut offset, mut limit) = (req.offset, req.limit);
    let style = TextStyle {
        color: req.color,
        escape: req.escape_terminal && !req.raw,
        separators: req.before_context > 0 || req.after_context > 0,
    };
    // A whole row's room: its window (up to four bytes a character), the ref and the numbers.
    let floor = match req.max_columns {
        0 => 4096,
        n => (n as u64).saturating_mul(4).saturating_add(64),
    };
    let mut parts: Vec<Part> = Vec::new();
    let mut text = Vec::new();
    let (mut total, mut searched, mut cleaned_any) = (0u64, 0u64, false);
    let mut next: Option<Cursor> = None;
    // The cursor's skip beyond its own output's matches, passed over in the older ones.
    let mut carry = 0u64;
    for (i, entry) in entries.iter().enumerate() {
        let skip = if i == 0 { first_skip } else { 0 };
        let source = match crate::source::open(&entry.reference.to_string(), config) {
            Ok(s) => s,
            // Removed, expired or evicted since the listing: it is no longer an output to search.
            Err(Error::GoneRef { .. } | Error::UnknownRef(_)) => continue,
            Err(e) => return Err(e),
        };
        let clean = !req.raw;
        let input: &[u8] = &source;
        let searching = |e| Error::stream("search the source", e);
        searched += 1;
        // Rows of a second output do not start cut to what is left: the page ends before them.
        let full = req.count || limit == 0 || budget == 0 || (!parts.is_empty() && budget < floor);
        let result = if full {
            let (n, cleaned) = search::count_source(input, &pattern, clean).map_err(searching)?;
            cleaned_any |= cleaned;
            SearchResult {
                matches: Vec::new(),
                total_matches: n,
                offset: skip,
                limit: 0,
                pattern_mode: pattern.mode(),
                skipped_lines: None,
            }
        } else {
            let page = Page {
                offset: skip + offset,
                limit,
                before_context: req.before_context,
                after_context: req.after_context,
                max_columns: if unbounded { 0 } else { req.max_columns },
                max_bytes: budget,
            };
            let (result, cleaned) =
                search::search_source(input, &pattern, &page, clean).map_err(searching)?;
            cleaned_any |= cleaned;
            result
        };
        source.check_unchanged()?;
        if i == 0 && skip > result.total_matches {
            carry = skip - result.total_matches;
            offset += carry;
        }
        let here = result.total_matches.saturating_sub(skip);
        total += here;
        if req.count {
            continue;
        }
        let shown = result.matches.len() as u64;
        // Matches of this output the page's --offset passed over.
        let passed = offset.min(here);
        offset -= passed;
        // Matches the cursor passed over are before the page: not counted from the cursor.
        let carried = carry.min(passed);
        carry -= carried;
        total -= carried;
        if next.is_none() && skip + passed + shown < result.total_matches {
            next = Some(Cursor {
                reference: entry.reference,
                skip: skip + passed + shown,
                created_us: created_us(entry),
            });
        }
        if shown > 0 {
            let label = entry.reference.to_string();
            let before = text.len();
            if style.separators && !parts.is_empty() {
                text.extend_from_slice(b"--\n");
            }
            printer::write_text_labelled(&mut text, &result, style, Some(&label))
                .map_err(|e| Error::stream("write to stdout", e))?;
            budget = budget.saturating_sub((text.len() - before) as u64);
            limit -= shown.min(limit);
            parts.push(Part {
                reference: entry.reference,
                result,
            });
        }
    }
    if next.is_none() {
        // What is left of --offset runs on into the outputs this call did not read.
        next = first_unsearched.map(|c| Cursor { skip: offset, ..c });
    }
    // Entries are counted for totalMatches only when searched; the ones the cut left say so.
    let mut report = Report::new(Outcome::Found);
    report.notices = notices;
    if unsearched > 0 {
        report
            .notices
            .push(Notice::OutputsUnsearched(unsearched, searched));
    }
    let fallback = pattern
        .fallback_reason()
        .map(|why| Notice::LiteralFallback(why.to_string()));
    let writing = |e| Error::stream("write to stdout", e);
    if req.count {
        if req.json {
            printer::write_count_json(out, total, pattern.mode()).map_err(writing)?;
            report.notices.clear();
        } else {
            printer::write_count(out, total, false).map_err(writing)?;
        }
    } else if req.json {
        let mut lossy = false;
        let mut matches = Vec::new();
        for p in &parts {
            let label = p.reference.to_string();
            matches.extend(printer::json_matches(&p.result, Some(&label), &mut lossy));
        }
        let mut notes: Vec<String> = report.notices.iter().map(Notice::to_string).collect();
        if cleaned_any {
            notes.push(Notice::SearchedCleaned.to_string());
        }
        let page = SearchPage {
            matches,
            total_matches: total,
            offset: req.offset,
            limit: req.limit,
            has_more: next.is_some(),
            next_offset: None,
            next_resume: next.map(|c| c.to_string()),
            outputs_searched: Some(searched),
            outputs_unsearched: (unsearched > 0).then_some(unsearched),
            pattern_mode: (pattern.mode() == search::PatternMode::Literal).then_some("literal"),
            lossy,
            notes,
            skipped_lines: None,
        };
        serde_json::to_writer(&mut *out, &page).map_err(|e| writing(e.into()))?;
        out.write_all(b"\n").map_err(writing)?;
        report.notices.clear();
    } else {
        out.write_all(&text).map_err(writing)?;
        let shown = parts.iter().map(|p| p.result.matches.len() as u64).sum();
        report.footer = footer(total, req, shown, searched, next.as_ref());
    }
    if !req.json {
        report.notices.extend(fallback);
        if cleaned_any {
            report.notices.push(Notice::SearchedCleaned);
        }
        if total == 0 && !req.count {
            report.notices.push(Notice::NoMatches(req.patterns.clone()));
        }
    }
    if total == 0 {
        report.outcome = Outcome::NotFound;
    }
    Ok(report)
}

/// The footer: `matches 1–20 of 57 in 12 outputs · next: --all --resume CURSOR`.
fn footer(
    total: u64,
    req: &Request,
    shown: u64,
    outputs: u64,
    next: Option<&Cursor>,
) -> Option<String> {
    let from = if req.resume.is_some() {
        " from the cursor"
    } else {
        ""
    };
    let outputs = match outputs {
        1 => "1 output".to_string(),
        n => format!("{} outputs", group_digits(n)),
    };
    let mut line = if shown == 0 && total == 0 {
        match next {
            // Nothing in the outputs searched, but older ones remain.
            Some(_) => format!("no matches in {outputs}"),
            None => return None,
        }
    } else if shown == 0 {
        format!(
            "{} matches{from} in {outputs}; none shown (--offset {}, --limit {})",
            group_digits(total),
            req.offset,
            req.limit
        )
    } else {
        format!(
            "matches {}–{} of {}{from} in {outputs}",
            group_digits(req.offset + 1),
            group_digits(req.offset + shown),
            group_digits(total)
        )
    };
    if let Some(c) = next {
        if shown > 0 && shown < req.limit && req.offset + shown < total {
            line.push_str(" (the page reached --max-bytes)");
        }
        line.push_str(&format!(" · next: --all --resume {c}"));
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_what_it_prints_and_nothing_else() {
        let c = Cursor::parse("sp_0123456789abcdef:17:1764640000123456").unwrap();
        assert_eq!(c.skip, 17);
        assert_eq!(c.created_us, 1764640000123456);
        assert_eq!(c.to_string(), "sp_0123456789abcdef:17:1764640000123456");
        for bad in [
            "",
            "sp_0123456789abcdef",
            "sp_0123456789abcdef:1",
            "sp_0123456789abcdef:1:2:3",
            "sp_0123456789abcdef:-1:2",
            "sp_0123456789abcdef:1:+2",
            "sp_0123456789ABCDEF:1:2",
            "sp_0123456789abcdef:99999999999999999999:2",
        ] {
            let err = Cursor::parse(bad).unwrap_err().to_string();
            assert!(err.contains("is not a cursor"), "{bad}: {err}");
        }
    }
}
