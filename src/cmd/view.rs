//! `spill view`: a stored output (or a file) opened for reading at a terminal — JSON in a JSON
//! viewer (`SPILL_VIEWER`, else `jless`, else `fx`, when installed); without one, the whole
//! document pretty-printed into the pager by `extract`'s renderer (streamed, and coloured as
//! `extract` colours it); binary as the hex dump `cat` shows at a terminal, all of it, into the
//! pager; other text handed to the pager as a file (`output::pager_command`). Refused in
//! restricted mode: a viewer or a pager can open other files and run commands.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cli::{FooterTo, ViewArgs};
use crate::error::{Error, Result};
use crate::source::SourceSpec;
use crate::store::{Store, StoreConfig};
use crate::{ops, output};

use super::Outcome;

/// The JSON viewers tried, in order, when `SPILL_VIEWER` is unset.
pub const JSON_VIEWERS: [&str; 2] = ["jless", "fx"];

/// The bytes dumped per write of a binary's hex dump: the dump is streamed, never held whole.
const HEX_CHUNK: usize = 64 * 1024;

/// Runs `spill view`.
pub fn run(store: &StoreConfig, args: ViewArgs) -> Result<Outcome> {
    if store.restricted {
        return Err(Error::Usage(
            "view is not available in restricted mode (SPILL_RESTRICTED=1): a viewer can open other files and run commands; use spill cat, search or extract".into(),
        ));
    }
    // `source` is what the readers are given again: the full ref, or the path.
    let (path, source) = match crate::source::resolve(&args.source, store)? {
        SourceSpec::Ref(r) => (Store::new(store.clone()).open(&r)?.1, r.to_string()),
        SourceSpec::Path(path) => {
            if !path.is_file() {
                return Err(Error::Usage(format!(
                    "{}: no such file (view opens a ref or a regular file)",
                    crate::diag::echo(&args.source)
                )));
            }
            (path, args.source.clone())
        }
        SourceSpec::Stdin => {
            return Err(Error::Usage(
                "view opens a ref or a file, not stdin (spill wrap stores it first)".into(),
            ));
        }
    };
    let input = crate::source::open(&path.to_string_lossy(), store)?;
    let is_json = crate::json::sniff::looks_like_json(&input);
    if is_json && let Some(viewer) = json_viewer() {
        drop(input);
        return run_viewer(&viewer, &path);
    }
    let Some(pager) = output::pager_command() else {
        return Err(Error::Usage(
            "no pager to view with: PAGER or SPILL_PAGER is empty or cat (spill cat reads it in pages)".into(),
        ));
    };
    if is_json {
        drop(input);
        output::start_pager(output::Paging::Always, false);
        return page_json(store, source);
    }
    if crate::text::is_binary(&input) {
        output::start_pager(output::Paging::Always, false);
        return page_hex(&input);
    }
    drop(input);
    run_viewer(&pager, &path)
}

/// The whole document as `spill extract SOURCE '$' --unbounded` prints it (pretty-printed,
/// coloured when the pager shows on a colour terminal), into the running pager. A document
/// that turns out not to be JSON ends with extract's error, after the pager.
fn page_json(store: &StoreConfig, source: String) -> Result<Outcome> {
    let req = ops::extract::Request {
        unbounded: true,
        ..ops::extract::Request::new(source, "$")
    };
    let mut out = output::stdout();
    let report = output::json(&mut out, |w| ops::extract::run(store, &req, w))?;
    super::print_report(&mut out, FooterTo::Stderr, &report)?;
    Ok(report.outcome)
}

/// A binary source as `cat` dumps it at a terminal (`hexdump -C`'s format), all of it, a chunk
/// at a time.
fn page_hex(input: &crate::source::Input) -> Result<Outcome> {
    let mut out = output::stdout();
    let mut offset = 0;
    for chunk in input.chunks(HEX_CHUNK) {
        let dump = crate::text::hex::dump(chunk, offset as u64);
        offset += chunk.len();
        // Every chunk's dump ends with its end offset; only the last one's is the dump's end.
        let dump = match offset < input.len() {
            true => dump.trim_end_matches(|c| c != '|'),
            false => dump.as_str(),
        };
        output::write_all(&mut out, dump.as_bytes())?;
        if offset < input.len() {
            output::write_all(&mut out, b"\n")?;
        }
    }
    input.check_unchanged()?;
    output::flush(&mut out)?;
    Ok(Outcome::Found)
}

/// Runs a viewer or the pager on the file; one that fails is an error naming it.
fn run_viewer(line: &str, path: &PathBuf) -> Result<Outcome> {
    let status = viewer_command(line, path)
        .status()
        .map_err(|e| Error::stream("start the viewer", e))?;
    match status.code() {
        Some(0) => Ok(Outcome::Found),
        _ => Err(Error::Usage(format!(
            "the viewer ({}) ended with {status}",
            crate::diag::echo(line)
        ))),
    }
}

/// `SPILL_VIEWER`, else the first of [`JSON_VIEWERS`] on the PATH.
fn json_viewer() -> Option<String> {
    if let Ok(chosen) = std::env::var("SPILL_VIEWER")
        && !chosen.trim().is_empty()
    {
        return Some(chosen.trim().to_string());
    }
    let path = std::env::var_os("PATH")?;
    JSON_VIEWERS
        .iter()
        .find(|name| std::env::split_paths(&path).any(|dir| is_executable(&dir.join(name))))
        .map(|name| name.to_string())
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The command line run by `sh`, with the file as its last argument (never spliced into the
/// line, so no file name is parsed by the shell).
fn viewer_command(line: &str, path: &PathBuf) -> Command {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("{line} \"$1\""))
        .arg("spill-view")
        .arg(path);
    crate::output::pager_env(&mut command);
    command
}
