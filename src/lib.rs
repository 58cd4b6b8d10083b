//! spill keeps oversized command output out of a language model's context window without
//! losing any of it.
//!
//! Small output passes through byte for byte; large output is streamed into a private,
//! content-addressed [store] and replaced by a compact envelope. The reading commands then
//! take it back in bounded pieces. Every capability is a library function over readers and
//! byte slices; the `spill` binary is a thin layer over [`run`].
#![warn(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cli;
pub mod cmd;
pub mod diag;
pub mod envelope;
pub mod error;
pub mod extract;
pub mod fuzzing;
pub mod json;
pub mod limits;
pub mod output;
pub mod search;
pub mod source;
pub mod store;
pub mod text;
pub mod wrap;

pub use error::{Error, Result};

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;

/// Runs spill with these arguments (the first is the program name) and returns the exit status.
/// Errors are reported on stderr as `spill: …` lines; a closed stdout ends quietly with 0.
pub fn run<I: IntoIterator<Item = OsString>>(args: I) -> u8 {
    let cli = match cli::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    match cmd::dispatch(cli) {
        Ok(outcome) => outcome.code(),
        Err(e) if e.is_broken_pipe() => 0,
        Err(e) => {
            diag::error(&e);
            2
        }
    }
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
            let body = text.strip_prefix("error: ").unwrap_or(&text);
            let _ = std::io::stderr()
                .lock()
                .write_all(format!("spill: {body}").as_bytes());
            2
        }
    }
}
