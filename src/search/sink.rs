//! The paging sink: counts every occurrence, skips `offset`, keeps `limit` with their context.

use std::collections::{BTreeMap, VecDeque};
use std::io;

use grep_matcher::Matcher;
use grep_searcher::{Searcher, Sink, SinkContext, SinkMatch};

use super::matcher::SpillMatcher;
use super::window::Window;
use super::{ContextLine, Match, Page};
use crate::text::analyze::count_byte;

/// Receives the matching lines (and the context lines around them) from the searcher and
/// turns them into occurrences: one per `find_iter` match within a line.
pub(crate) struct PageSink<'a> {
    matcher: &'a SpillMatcher,
    page: &'a Page,
    /// Occurrences seen so far, kept or not.
    pub(crate) seen: u64,
    pub(crate) kept: Vec<Match>,
    /// The last `before_context` lines delivered, candidates for the before-context of a
    /// match not seen yet.
    recent: VecDeque<(u64, Recent<'a>)>,
    /// The whole source, when it is one slice: recent lines are then remembered by position
    /// and cut into windows only if a kept match needs them.
    haystack: Option<&'a [u8]>,
    /// Display forms of the lines some kept match needs as context, by line number.
    context: BTreeMap<u64, Window>,
    /// Lines up to this number are after-context of a kept match.
    after_until: u64,
    /// Stop the search once the page is complete, rather than keep counting.
    stop_when_complete: bool,
    /// Once the page is complete, only occurrences are counted.
    counting_only: bool,
    /// Where the searcher was stopped: the absolute offset just past the last line read.
    pub(crate) resume_at: Option<u64>,
    /// With a haystack the searcher runs without line numbers and the sink numbers the lines
    /// it is given: the offset up to which line breaks were counted, and how many there were.
    counted: (u64, u64),
    /// Bytes of rows the page may still show ([`Page::max_bytes`]); at 0 the page is complete.
    budget: u64,
    /// Where in the haystack the searched slice starts ([`PageSink::starting_at`]): added to
    /// the searcher's offsets, so every offset here is the haystack's.
    base: u64,
}

/// A remembered line: its window, or the haystack and where the line is in it.
enum Recent<'a> {
    Shown(Window),
    At(&'a [u8], std::ops::Range<usize>),
}

impl<'a> PageSink<'a> {
    /// A sink for a search of `haystack` (when the source is one slice) that stops once the
    /// page is complete when `stop`, or else goes on counting.
    pub(crate) fn new(
        matcher: &'a SpillMatcher,
        page: &'a Page,
        haystack: Option<&'a [u8]>,
        stop: bool,
    ) -> PageSink<'a> {
        PageSink {
            matcher,
            page,
            haystack,
            seen: 0,
            kept: Vec::new(),
            recent: VecDeque::new(),
            context: BTreeMap::new(),
            after_until: 0,
            stop_when_complete: stop,
            counting_only: false,
            resume_at: None,
            counted: (0, 0),
            budget: page.budget(),
            base: 0,
        }
    }

    /// The sink of a search of the haystack's slice from `at`, a line start with `lines` line
    /// breaks and `seen` occurrences before it.
    pub(crate) fn starting_at(mut self, at: u64, seen: u64, lines: u64) -> PageSink<'a> {
        self.base = at;
        self.seen = seen;
        self.counted = (at, lines);
        self
    }

    /// The bytes of text a context row for `line` may show within the budget.
    fn room(&self, line: u64) -> usize {
        room(self.budget, line, None)
    }

    /// Charges a context row for `line` and keeps it.
    fn keep_context(&mut self, line: u64, window: Window) {
        let cost = row_cost(&window, line, None);
        if cost > self.budget {
            self.budget = 0;
            return;
        }
        self.budget -= cost;
        self.context.insert(line, window);
    }

    /// The number of the line starting at `offset`: the searcher's, or else counted in the
    /// haystack since the previous line asked about (lines come in order). Counting here, for
    /// the lines delivered only, with [`count_byte`], is faster than the searcher's own
    /// numbering of every line (`search -C 2` on a 1 GB log with its matches at the end:
    /// 330 → ~280 ms of CPU, ripgrep 285 ms).
    fn number_at(&mut self, reported: Option<u64>, offset: u64) -> u64 {
        if let Some(n) = reported {
            return n;
        }
        let Some(hay) = self.haystack else { return 0 };
        let (from, mut breaks) = self.counted;
        let end = (offset as usize).min(hay.len());
        if offset >= from {
            breaks += count_byte(&hay[from as usize..end], b'\n') as u64;
        } else {
            breaks = count_byte(&hay[..end], b'\n') as u64;
        }
        self.counted = (offset, breaks);
        breaks + 1
    }

    /// Handles one line; returns whether the searcher should go on.
    fn line(&mut self, number: u64, offset: u64, raw: &[u8], is_match: bool) -> io::Result<bool> {
        let text = trim_terminator(raw);
        if self.counting_only {
            if is_match {
                self.seen += count_in_line(self.matcher, text)?;
            }
            return Ok(true);
        }
        let page = self.page;
        let kept_before = self.kept.len();
        if is_match {
            let (mut seen, kept, mut budget) = (self.seen, &mut self.kept, self.budget);
            self.matcher
                .find_iter(text, |m| {
                    if seen >= page.offset && (kept.len() as u64) < page.limit && budget > 0 {
                        let column = m.start() as u64 + 1;
                        let room = room(budget, number, Some(column));
                        let window =
                            Window::around_within(text, m.start(), m.end(), page.max_columns, room);
                        let cost = row_cost(&window, number, Some(column));
                        // A page always shows its first match, so paging always moves on.
                        if cost > budget && !kept.is_empty() {
                            budget = 0;
                            seen += 1;
                            return true;
                        }
                        budget = budget.saturating_sub(cost);
                        kept.push(Match {
                            line: number,
                            column,
                            byte_offset: offset + m.start() as u64,
                            len: m.len() as u64,
                            path: None,
                            in_key: false,
                            window,
                            before: Vec::new(),
                            after: Vec::new(),
                        });
                    }
                    seen += 1;
                    true
                })
                .map_err(io::Error::other)?;
            self.seen = seen;
            self.budget = budget;
        }
        let (before, after) = (page.before_context as u64, page.after_context as u64);
        if before > 0 || after > 0 {
            if self.kept.len() > kept_before {
                // Nearest lines first, so a spent budget drops the farthest; with after-context
                // too, the lines before get at most half of what is left.
                let floor = if after > 0 { self.budget / 2 } else { 0 };
                let recent: Vec<_> = self.recent.drain(..).collect();
                for (line, recent) in recent.into_iter().rev() {
                    if line.saturating_add(before) < number || self.budget <= floor {
                        continue;
                    }
                    let window = match recent {
                        Recent::Shown(window) => window.clip(self.room(line)),
                        Recent::At(hay, range) => {
                            Window::head_within(&hay[range], page.max_columns, self.room(line))
                        }
                    };
                    self.keep_context(line, window);
                }
                if self.budget > 0 {
                    let window = Window::head_within(text, page.max_columns, self.room(number));
                    self.keep_context(number, window);
                }
                self.after_until = number.saturating_add(after);
            } else if !self.kept.is_empty() && number <= self.after_until {
                if self.budget > 0 {
                    let window = Window::head_within(text, page.max_columns, self.room(number));
                    self.keep_context(number, window);
                } else {
                    self.after_until = number;
                }
            }
            if before > 0 && (self.kept.len() as u64) < page.limit && self.budget > 0 {
                if self.recent.len() as u64 == before {
                    self.recent.pop_front();
                }
                let recent = match self.haystack {
                    Some(hay) => Recent::At(hay, offset as usize..offset as usize + text.len()),
                    None => Recent::Shown(Window::head_within(
                        text,
                        page.max_columns,
                        self.room(number),
                    )),
                };
                self.recent.push_back((number, recent));
            }
        }
        if self.budget == 0 {
            // The page is full: no more after-context either.
            self.after_until = self.after_until.min(number);
        }
        if (self.kept.len() as u64 >= page.limit || self.budget == 0) && number >= self.after_until
        {
            self.counting_only = true;
            self.recent.clear();
            if self.stop_when_complete {
                self.resume_at = Some(offset + raw.len() as u64);
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The kept matches, each with its before and after context lines.
    pub(crate) fn into_matches(self) -> Vec<Match> {
        let (before, after) = (
            self.page.before_context as u64,
            self.page.after_context as u64,
        );
        let lines = |range: std::ops::RangeInclusive<u64>| -> Vec<ContextLine> {
            self.context
                .range(range)
                .map(|(&line, window)| ContextLine {
                    line,
                    window: window.clone(),
                })
                .collect()
        };
        let mut matches = self.kept;
        for m in &mut matches {
            if before > 0 && m.line > 1 {
                m.before = lines(m.line.saturating_sub(before).max(1)..=m.line - 1);
            }
            if after > 0 {
                m.after = lines(m.line + 1..=m.line.saturating_add(after));
            }
        }
        matches
    }
}

impl Sink for PageSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> io::Result<bool> {
        let mut offset = self.base + mat.absolute_byte_offset();
        let first = self.number_at(mat.line_number(), offset);
        for (i, raw) in mat.lines().enumerate() {
            if !self.line(first + i as u64, offset, raw, true)? {
                return Ok(false);
            }
            offset += raw.len() as u64;
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> io::Result<bool> {
        let offset = self.base + ctx.absolute_byte_offset();
        let number = self.number_at(ctx.line_number(), offset);
        self.line(number, offset, ctx.bytes(), false)
    }
}

/// Counts occurrences only: the fast path for `--count` and for the rest of a source once
/// the page is complete.
pub(crate) struct CountSink<'a> {
    matcher: &'a SpillMatcher,
    pub(crate) count: u64,
    /// The search stops once the count passes this.
    limit: u64,
}

impl<'a> CountSink<'a> {
    pub(crate) fn new(matcher: &'a SpillMatcher) -> CountSink<'a> {
        CountSink::up_to(matcher, u64::MAX)
    }

    /// A sink that stops the search at the line where the count passes `limit`.
    pub(crate) fn up_to(matcher: &'a SpillMatcher, limit: u64) -> CountSink<'a> {
        CountSink {
            matcher,
            count: 0,
            limit,
        }
    }
}

impl Sink for CountSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> io::Result<bool> {
        for raw in mat.lines() {
            self.count += count_in_line(self.matcher, trim_terminator(raw))?;
        }
        Ok(self.count <= self.limit)
    }
}

/// What a row costs of the page's byte bound: its shown bytes, its cut markers, its line
/// number and (for a match) column with their separators, and its line break.
fn row_cost(window: &Window, line: u64, column: Option<u64>) -> u64 {
    let markers = 3 * (u64::from(window.cut_start) + u64::from(window.cut_end));
    window.bytes.len() as u64 + markers + numbers_cost(line, column) + 1
}

/// The line number and column of a row with their separators.
fn numbers_cost(line: u64, column: Option<u64>) -> u64 {
    let digits = |n: u64| u64::from(n.checked_ilog10().unwrap_or(0) + 1);
    digits(line) + column.map_or(1, |c| digits(c) + 2)
}

/// The bytes of text a row may show out of `budget`, leaving room for its numbers, two cut
/// markers and its line break.
fn room(budget: u64, line: u64, column: Option<u64>) -> usize {
    let rest = budget.saturating_sub(numbers_cost(line, column) + 6 + 1);
    usize::try_from(rest).unwrap_or(usize::MAX)
}

/// Occurrences of the pattern in one line (without its terminator).
fn count_in_line(matcher: &SpillMatcher, text: &[u8]) -> io::Result<u64> {
    let mut n = 0;
    matcher
        .find_iter(text, |_| {
            n += 1;
            true
        })
        .map_err(io::Error::other)?;
    Ok(n)
}

/// A line without its `\n`: `$` then matches at the line's end, and context lines print
/// without a stray line break.
fn trim_terminator(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n").unwrap_or(line)
}
