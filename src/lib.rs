//! spill keeps oversized command output out of a language model's context window without
//! losing any of it.
//!
//! Small output passes through byte for byte; large output is streamed into a private,
//! content-addressed [store] and replaced by a compact envelope. The reading commands then
//! take it back in bounded pieces. Every capability is a library function over readers and
//! byte slices that returns typed results and never prints; the `spill` binary is a thin layer
//! over [`run`].
//!
//! | capability | functions |
//! |---|---|
//! | `wrap` | [`wrap::capture`] reads an output to its end, passes it back or stores it ([`wrap::capture_with_warnings`] also returns the warnings); [`wrap::run_command`] runs a command and captures its output; [`wrap::envelope`] describes a stored one ([`envelope::Envelope`]) |
//! | `cat` | [`ops::cat::run`]: a page by lines or bytes, the cleaned view, a hex dump |
//! | `shape` | [`ops::shape::run`]; underneath, [`json::shape::shape`] (the skeleton) and [`json::shape::shape_paths`] (`--paths`) |
//! | `extract` | [`ops::extract::run`]; underneath, [`json::path::Query::parse_lenient`] then [`extract::extract`] |
//! | `search` | [`ops::search::run`]; underneath, [`search::search_slice`] (a page with the exact total), [`search::count_slice`], [`search::attach_paths`] |
//! | `ls`, `rm`, `gc` | [`ops::ls::run`], [`ops::rm::run`], [`ops::gc::run`] return the [`wire`] values that `--json` prints |
//! | `schema` | [`ops::schema::schema`]: the JSON Schema of each JSON output |
//! | reading back | [`source::open`] opens a ref, a path or `-` as bytes; [`store::Store`] lists, finds and removes entries |
//!
//! The [`ops`] functions take a [`store::StoreConfig`] and a request struct whose `Default` is
//! the command line's defaults, write what the command prints to any [`std::io::Write`], and
//! return an [`ops::Report`] with the exit outcome, the footer and the notices as values (the
//! command line writes those on stderr). Every type printed as JSON is in [`wire`].
//!
//! # Example: spill an output and read it back
//!
//! ```
//! use spill::store::StoreConfig;
//! use spill::wrap::{self, Capture, WrapOptions};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let store = StoreConfig::new(dir.path().join("store"), "default".to_string());
//! let output = "building…\n".repeat(10_000);
//! let opts = WrapOptions::default();
//!
//! // 110,000 bytes is more than `--max-inline` (16 KiB): stored, and described.
//! let Capture::Spilled(spilled) = wrap::capture(&mut output.as_bytes(), &opts, &store, &|| false)?
//! else {
//!     unreachable!("larger than --max-inline")
//! };
//! let envelope = wrap::envelope(&spilled, &opts, None, false);
//! assert!(envelope.spilled);
//! assert_eq!(envelope.lines, 10_000);
//! assert!(envelope.to_json().starts_with(r#"{"spilled":true,"ref":"sp_"#));
//!
//! // The ref reads back exactly the bytes that were stored.
//! let reference = envelope.reference.as_deref().unwrap();
//! let stored = spill::source::open(reference, &store)?;
//! assert_eq!(&stored[..], output.as_bytes());
//!
//! // Small output comes back as it is, and nothing touches the store.
//! let small = wrap::capture(&mut &b"ok\n"[..], &opts, &store, &|| false)?;
//! assert!(matches!(small, Capture::Inline(bytes) if bytes == b"ok\n"));
//! # Ok(())
//! # }
//! ```
//!
//! # Example: wrap a reader, then extract and search what was stored
//!
//! ```
//! use spill::ops::{self, Notice, Outcome};
//! use spill::store::StoreConfig;
//! use spill::wrap::{self, Capture, WrapOptions};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let store = StoreConfig::new(dir.path().join("store"), "default".to_string());
//! let items: Vec<String> = (0..1000)
//!     .map(|i| format!(r#"{{"id":{i},"status":"{}"}}"#, if i % 250 == 7 { "failed" } else { "ok" }))
//!     .collect();
//! let output = format!("{{\"items\":[\n{}\n]}}\n", items.join(",\n"));
//! let opts = WrapOptions::default();
//! let Capture::Spilled(spilled) = wrap::capture(&mut output.as_bytes(), &opts, &store, &|| false)?
//! else {
//!     unreachable!("larger than --max-inline")
//! };
//! let envelope = wrap::envelope(&spilled, &opts, None, false);
//! let reference = envelope.reference.as_deref().unwrap();
//!
//! // `spill extract REF '$.items[7].status'`: the bytes it prints, and nothing was cut.
//! let mut out = Vec::new();
//! let req = ops::extract::Request::new(reference, "$.items[7].status");
//! let report = ops::extract::run(&store, &req, &mut out)?;
//! assert_eq!(out, b"\"failed\"\n");
//! assert_eq!((report.outcome, report.footer), (Outcome::Found, None));
//!
//! // `spill search REF failed --limit 2`: a page, and the footer that continues it.
//! let mut out = Vec::new();
//! let req = ops::search::Request {
//!     limit: 2,
//!     ..ops::search::Request::new(reference, "failed")
//! };
//! let report = ops::search::run(&store, &req, &mut out)?;
//! assert_eq!(
//!     String::from_utf8(out)?,
//!     "9:19:{\"id\":7,\"status\":\"failed\"},\n259:21:{\"id\":257,\"status\":\"failed\"},\n"
//! );
//! assert_eq!(
//!     report.footer.as_deref(),
//!     Some("matches 1–2 of 4 · next: --offset 2")
//! );
//!
//! // Nothing found is an outcome with a notice, not an error.
//! let req = ops::search::Request::new(reference, "timeout");
//! let report = ops::search::run(&store, &req, &mut Vec::new())?;
//! assert_eq!(report.outcome, Outcome::NotFound);
//! assert_eq!(report.notices, [Notice::NoMatches(vec!["timeout".into()])]);
//! assert_eq!(report.trailer(), "spill: no matches for 'timeout'\n");
//! # Ok(())
//! # }
//! ```
//!
//! # Example: the shape of a JSON document
//!
//! ```
//! use spill::json::shape::{shape, ShapeOptions};
//!
//! let doc = br#"{"items":[{"id":1,"tags":["a"]},{"id":2,"email":null,"tags":[]}],"next":null}"#;
//! let skeleton = shape(doc, &ShapeOptions::default());
//! assert_eq!(
//!     skeleton.to_json(),
//!     r#"{"items":{"array[2]":{"id":"integer","tags":"array[0..1] of string","email?":"null"}},"next":"null"}"#
//! );
//! ```
//!
//! The command-line layer ([`cli`], [`cmd`], [`diag`], [`output`]) is public so that the
//! binary stays thin and the tests can render completions and man pages from the same
//! definition; embedders need only the functions above.
#![warn(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cli;
pub mod cmd;
pub mod diag;
pub mod error;
pub mod extract;
// Panicking invariant checks for the fuzz targets: never in a user's build (ARCHITECTURE.md,
// "Fuzzing").
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzzing;
pub mod harness;
pub mod hook;
pub mod init;
pub mod json;
pub mod limits;
pub mod mcp;
pub mod ops;
pub mod output;
pub mod paint;
pub mod search;
pub mod source;
pub mod store;
pub mod text;
pub mod wire;
// The envelope at its old path, `crate::envelope`.
pub use wire::envelope;
pub mod wrap;

pub use error::{Error, Result};

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;

/// Runs spill with these arguments (the first is the program name) and returns the exit status.
/// Errors are reported on stderr as `spill: …` lines; a closed stdout ends quietly with 0.
/// `wrap -- CMD` killed by signal N returns 128 + N here; the binary ([`main`]) dies by N.
pub fn run<I: IntoIterator<Item = OsString>>(args: I) -> u8 {
    run_outcome(args).code()
}

/// The `spill` binary: [`run`], then the end its outcome calls for. When `wrap -- CMD`'s
/// command was killed by a signal, the process raises the same signal on itself (its output
/// written, core dumps off), so a harness or script that runs it sees the death it would have
/// seen without spill; a shell reports that as 128 + N, the number [`run`] returns.
pub fn main<I: IntoIterator<Item = OsString>>(args: I) -> std::process::ExitCode {
    let outcome = run_outcome(args);
    if let ops::Outcome::Signal(n) = outcome {
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        wrap::die_by(i32::from(n));
    }
    std::process::ExitCode::from(outcome.code())
}

/// [`run`]'s work: the outcome of the command line, errors already reported.
fn run_outcome<I: IntoIterator<Item = OsString>>(args: I) -> ops::Outcome {
    let args: Vec<OsString> = args.into_iter().collect();
    // Read first: restricted mode hides paths from every message, including the parser's.
    cmd::restricted();
    // With only the named command's definition first: `wrap` and `hook` run once per shell
    // command, and clap builds every definition it is given before it parses.
    let parsed = cli::parse_one_command(&args).map_or_else(|| cli::Cli::try_parse_from(&args), Ok);
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // The line did not parse, but its --color still decides how the error looks.
            if let Some(when) = color_flag(&args) {
                diag::set_color(color_choice(when));
            }
            return ops::Outcome::Status(usage_error(e));
        }
    };
    diag::set_color(color_choice(cli.global.color));
    // A source file truncated under its map ends the process with a message, not SIGBUS.
    source::catch_truncation();
    let outcome = cmd::dispatch(cli);
    // The pager (if one ran) has the screen until the user quits it; messages held back
    // meanwhile, and the error below, come after it.
    output::end_pager();
    match outcome {
        Ok(outcome) => outcome,
        Err(e) if e.is_broken_pipe() => ops::Outcome::Found,
        Err(e) => {
            diag::error(&e);
            ops::Outcome::Status(2)
        }
    }
}

fn color_choice(when: cli::ColorWhen) -> anstream::ColorChoice {
    match when {
        cli::ColorWhen::Auto => anstream::ColorChoice::Auto,
        cli::ColorWhen::Always => anstream::ColorChoice::Always,
        cli::ColorWhen::Never => anstream::ColorChoice::Never,
    }
}

/// The last valid `--color WHEN` / `--color=WHEN` of a command line that failed to parse
/// (arguments after `--` belong to a wrapped command).
fn color_flag(args: &[OsString]) -> Option<cli::ColorWhen> {
    use clap::ValueEnum;
    let mut found = None;
    let mut words = args.iter().skip(1).map(|a| a.to_str());
    while let Some(word) = words.next() {
        let value = match word {
            Some("--") => break,
            Some("--color") => words.next().flatten(),
            Some(w) => w.strip_prefix("--color="),
            None => None,
        };
        if let Some(when) = value.and_then(|v| cli::ColorWhen::from_str(v, false).ok()) {
            found = Some(when);
        }
    }
    found
}

/// Help and version go to stdout with status 0; `spill` alone prints help with status 2;
/// every other parse error becomes one `spill: …` message (plus clap's usage hint), status 2.
fn usage_error(e: clap::Error) -> u8 {
    use clap::error::ErrorKind;
    let text = e.render().to_string();
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
            0
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
            2
        }
        _ => {
            diag::usage(text.strip_prefix("error: ").unwrap_or(&text));
            2
        }
    }
}
