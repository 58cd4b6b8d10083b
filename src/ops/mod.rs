//! The commands as library calls: one function per reading and store command, over a
//! [`StoreConfig`] and a plain request struct, writing the answer to
//! an injected [`Write`] (or returning typed values), never printing and never reading the
//! environment.
//!
//! The command line is the first caller: `src/cmd/` turns parsed arguments into a request
//! (deciding from the environment and the terminal what the request says: restricted mode
//! through [`StoreConfig::restricted`](crate::store::StoreConfig::restricted), colour, escaping),
//! calls the function with its stdout, and prints the [`Report`]'s footer and notices on
//! stderr (or the footer at the end of stdout with `--footer stdout`). Another caller gets
//! exactly the text the command prints by writing into a `Vec<u8>` and appending
//! [`Report::trailer`].
//!
//! | command | function |
//! |---|---|
//! | `cat` | [`cat::run`] |
//! | `shape` | [`shape::run`] |
//! | `extract` | [`extract::run`] |
//! | `search` | [`search::run`] |
//! | `ls` | [`ls::run`] (typed), [`ls::write_text`] |
//! | `rm` | [`rm::run`] (typed), [`rm::write_text`] |
//! | `gc` | [`gc::run`] (typed), [`gc::write_text`] |
//! | `schema` | [`schema::schema`] |

pub mod cat;
pub mod extract;
pub mod gc;
pub mod ls;
pub mod rm;
pub mod schema;
pub mod search;
mod search_all;
pub mod shape;
pub mod since;

use std::fmt;
use std::io::Write;

use crate::diag;
use crate::error::{Error, Result};
use crate::limits::group_digits;
use crate::store::StoreConfig;

/// How a command ended, before it becomes an exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Success, or something was found: 0.
    Found,
    /// Nothing found: 1.
    NotFound,
    /// A status decided by the command (`wrap -- CMD` exits with CMD's).
    Status(u8),
    /// The command was killed by this signal: `wrap -- CMD` ends the same way (the `spill`
    /// binary raises it on itself after its output is written), so whoever ran it sees what
    /// it would have seen without spill; its status as a number is 128 + the signal, as a
    /// shell reports it.
    Signal(u8),
}

impl Outcome {
    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            Outcome::Found => 0,
            Outcome::NotFound => 1,
            Outcome::Status(s) => s,
            Outcome::Signal(n) => 128u8.saturating_add(n),
        }
    }
}

/// What a reading command reports beside the bytes it wrote: the exit outcome, the footer
/// (`lines 1–200 of 48,213 · next: --lines 201:400`) and the notices, as values. Nothing of
/// it is written to the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// How the command ended.
    pub outcome: Outcome,
    /// The footer line (without a newline): what was shown and the command continuing it.
    /// The command line writes it on stderr, or at the end of stdout with `--footer stdout`.
    pub footer: Option<String>,
    /// Notices, in the order the command line writes them: those whose
    /// [`Notice::after_footer`] is false come before the footer, the others after it.
    pub notices: Vec<Notice>,
}

impl Report {
    /// A report with this outcome and nothing else.
    pub fn new(outcome: Outcome) -> Report {
        Report {
            outcome,
            footer: None,
            notices: Vec::new(),
        }
    }

    /// The notices written before the footer.
    pub fn before_footer(&self) -> impl Iterator<Item = &Notice> {
        self.notices.iter().filter(|n| !n.after_footer())
    }

    /// The notices written after the footer.
    pub fn after_footer(&self) -> impl Iterator<Item = &Notice> {
        self.notices.iter().filter(|n| n.after_footer())
    }

    /// The lines the command line writes on stderr after the output, in its order and with its
    /// prefixes (`spill: note: …`), without colour: the notices before the footer, the footer,
    /// the notices after it. Each line ends in a newline; empty when there is nothing to say.
    pub fn trailer(&self) -> String {
        let mut text = String::new();
        for n in self.before_footer() {
            text.push_str(&format!("{}{n}\n", n.level().prefix()));
        }
        if let Some(footer) = &self.footer {
            text.push_str(footer);
            text.push('\n');
        }
        for n in self.after_footer() {
            text.push_str(&format!("{}{n}\n", n.level().prefix()));
        }
        text
    }
}

/// How a [`Notice`] is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// `spill: note: TEXT`.
    Note,
    /// `spill: TEXT` (an outcome that is not an error, such as nothing selected).
    Message,
    /// `TEXT` alone, like a footer.
    Plain,
}

impl Level {
    /// The prefix the command line writes before the text (uncoloured).
    pub fn prefix(self) -> &'static str {
        match self {
            Level::Note => "spill: note: ",
            Level::Message => "spill: ",
            Level::Plain => "",
        }
    }
}

/// A notice a reading command gives beside its output. `Display` is the text the command line
/// writes after the [`Level::prefix`]; untrusted parts (patterns, messages) are escaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// NDJSON lines skipped with `--skip-invalid` (shape, extract, search `--paths`).
    SkippedLines(u64),
    /// `shape --paths`: distinct paths that were not listed.
    PathsOmitted(u64),
    /// `cat`: the range selects nothing; the source's size (in lines when selecting by lines).
    /// The command line gives it only when the footer goes to stderr.
    NothingInRange {
        /// The source's size in bytes.
        bytes: u64,
        /// Its lines, when the range was one of lines.
        lines: Option<u64>,
    },
    /// `extract`: the query selected nothing; why (the deepest part that resolved).
    NoMatch(String),
    /// `extract`: `--offset` skipped every selected node.
    NothingPastOffset {
        /// The `--offset` given.
        offset: usize,
        /// Nodes the query selects.
        selected: u64,
    },
    /// `extract`: a `match()`/`search()` pattern of the query is not valid I-Regexp, so the
    /// call is false for every value.
    InvalidPattern {
        /// `match` or `search`.
        function: String,
        /// The pattern.
        pattern: String,
        /// Why it is invalid.
        reason: String,
        /// How many more patterns of the query are invalid.
        more: usize,
    },
    /// `search`: the pattern is not a valid regex and was searched as a literal; why.
    LiteralFallback(String),
    /// `search`: the cleaned view (escape sequences and `\r` frames removed) was searched.
    SearchedCleaned,
    /// `search --paths` on a source that is not JSON or NDJSON (the text says where a source
    /// that looks like JSON stops being valid).
    PathsIgnored(String),
    /// `search`: nothing matched (text output only; `--json` and `--count` say it on stdout).
    NoMatches(Vec<String>),
    /// `search --all`: the output the `--resume` cursor was in is gone; the page starts with
    /// the next older one.
    CursorGone(String),
    /// `search --all`: running entries of the scope were not searched.
    RunningNotSearched(u64),
    /// `search --all`: older outputs past `--max-outputs` (unsearched, searched).
    OutputsUnsearched(u64, u64),
    /// `shape`, `extract`: the ref holds JSON behind other output, and only its JSON part was
    /// read (`source::json_part`); the text says which lines.
    JsonPart(String),
}

impl Notice {
    /// How the notice is written.
    pub fn level(&self) -> Level {
        match self {
            Notice::NoMatch(_) | Notice::NoMatches(_) => Level::Message,
            Notice::NothingInRange { .. } => Level::Plain,
            _ => Level::Note,
        }
    }

    /// True for the notices the command line writes after the footer.
    pub fn after_footer(&self) -> bool {
        matches!(
            self,
            Notice::NoMatch(_) | Notice::InvalidPattern { .. } | Notice::NoMatches(_)
        )
    }
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::SkippedLines(n) => write!(
                f,
                "skipped {} {} that {} not exactly one JSON value (--skip-invalid)",
                group_digits(*n),
                if *n == 1 { "line" } else { "lines" },
                if *n == 1 { "is" } else { "are" }
            ),
            Notice::PathsOmitted(n) => {
                write!(f, "{} more distinct paths not listed", group_digits(*n))
            }
            Notice::NothingInRange { bytes, lines } => {
                write!(f, "nothing in that range: the source has ")?;
                match lines {
                    Some(n) => write!(
                        f,
                        "{} {} ({} bytes)",
                        group_digits(*n),
                        if *n == 1 { "line" } else { "lines" },
                        group_digits(*bytes)
                    ),
                    None => write!(f, "{} bytes", group_digits(*bytes)),
                }
            }
            Notice::JsonPart(text) => f.write_str(text),
            Notice::CursorGone(r) => write!(
                f,
                "{r}, where the previous page ended, is gone; this page starts with the next older output"
            ),
            Notice::RunningNotSearched(n) => write!(
                f,
                "{} running {} not searched: search one by its id (spill search ID PATTERN)",
                group_digits(*n),
                if *n == 1 { "entry" } else { "entries" }
            ),
            Notice::OutputsUnsearched(left, searched) => write!(
                f,
                "searched the {} newest outputs; {} older {} not (--max-outputs; next: reaches them)",
                group_digits(*searched),
                group_digits(*left),
                if *left == 1 { "one is" } else { "ones are" }
            ),
            Notice::NoMatch(why) => f.write_str(&diag::escape(why)),
            Notice::NothingPastOffset { offset, selected } => write!(
                f,
                "nothing past --offset {offset}: the query selects {} {}",
                group_digits(*selected),
                if *selected == 1 { "node" } else { "nodes" }
            ),
            Notice::InvalidPattern {
                function,
                pattern,
                reason,
                more,
            } => {
                write!(
                    f,
                    "{function}() pattern '{}' is not valid I-Regexp (RFC 9485): {}; the call is false for every value, as RFC 9535 specifies",
                    diag::echo(pattern),
                    diag::escape(reason),
                )?;
                match more {
                    0 => Ok(()),
                    1 => f.write_str(" (1 more pattern of the query is invalid too)"),
                    n => write!(f, " ({n} more patterns of the query are invalid too)"),
                }
            }
            Notice::LiteralFallback(why) => write!(
                f,
                "pattern is not a valid regex ({}); searched it as a literal",
                diag::escape(why)
            ),
            Notice::SearchedCleaned => f.write_str(search::CLEANED),
            Notice::PathsIgnored(text) => f.write_str(text),
            Notice::NoMatches(patterns) => match patterns.as_slice() {
                [one] => write!(f, "no matches for '{}'", diag::echo(one)),
                many => write!(f, "no matches for any of the {} patterns", many.len()),
            },
        }
    }
}

/// Writes all bytes to the output, mapping failures (a closed pipe included) to [`Error`].
fn write_all(out: &mut dyn Write, bytes: &[u8]) -> Result<()> {
    out.write_all(bytes)
        .map_err(|e| Error::stream("write to stdout", e))
}

/// Writes one JSON value on one line (`ls`, `rm`, `gc` with `--json`).
pub fn write_json<T: serde::Serialize>(value: &T, out: &mut dyn Write) -> Result<()> {
    let mut text = serde_json::to_string(value)
        .map_err(|e| Error::stream("serialise the output", e.into()))?;
    text.push('\n');
    write_all(out, text.as_bytes())
}

/// Fails at once when SOURCE is a ref whose payload `wrap` found to be invalid JSON (its
/// metadata records where): `extract` and `shape` then report that error, with the same offset,
/// whatever they were asked, instead of answering from an invalid document.
fn known_invalid_json(store: &StoreConfig, input: &crate::source::Input) -> Result<()> {
    let Some(r) = &input.reference else {
        return Ok(());
    };
    match crate::store::Store::new(store.clone())
        .meta(r)
        .and_then(|m| m.invalid_json)
    {
        Some(e) => Err(Error::InvalidJson {
            offset: e.offset,
            line: e.line,
            column: e.column,
            message: format!("{} (found when the output was stored)", e.message),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! A temporary store for the tests of the commands.

    use crate::store::StoreConfig;
    use crate::wrap::{self, Capture, WrapOptions};

    /// A store in a temporary directory (kept alive by the returned guard).
    pub fn store() -> (tempfile::TempDir, StoreConfig) {
        let dir = tempfile::tempdir().unwrap();
        let store = StoreConfig::new(dir.path().join("store"), "default".to_string());
        (dir, store)
    }

    /// Stores `bytes` (larger than `--max-inline`) and returns its ref.
    pub fn spill(store: &StoreConfig, bytes: &[u8]) -> String {
        let opts = WrapOptions::default();
        let Capture::Spilled(spilled) =
            wrap::capture(&mut &bytes[..], &opts, store, &|| false).unwrap()
        else {
            panic!("larger than --max-inline");
        };
        wrap::envelope(&spilled, &opts, None, false)
            .reference
            .unwrap()
    }

    /// Runs a command into a buffer and returns its text.
    pub fn text(out: Vec<u8>) -> String {
        String::from_utf8(out).unwrap()
    }
}
