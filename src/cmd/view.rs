//! `spill view`: a stored output (or a file) opened for reading at a terminal — JSON in a JSON
//! viewer (`SPILL_VIEWER`, else `jless`, else `fx`, when installed), text and JSON without a
//! viewer in the pager (`output::pager_command`). Refused in restricted mode: a viewer or a
//! pager can open other files and run commands.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cli::ViewArgs;
use crate::error::{Error, Result};
use crate::source::SourceSpec;
use crate::store::{Store, StoreConfig};

use super::Outcome;

/// The JSON viewers tried, in order, when `SPILL_VIEWER` is unset.
pub const JSON_VIEWERS: [&str; 2] = ["jless", "fx"];

/// Runs `spill view`.
pub fn run(store: &StoreConfig, args: ViewArgs) -> Result<Outcome> {
    if store.restricted {
        return Err(Error::Usage(
            "view is not available in restricted mode (SPILL_RESTRICTED=1): a viewer can open other files and run commands; use spill cat, search or extract".into(),
        ));
    }
    let path = match crate::source::resolve(&args.source, store)? {
        SourceSpec::Ref(r) => Store::new(store.clone()).open(&r)?.1,
        SourceSpec::Path(path) => {
            if !path.is_file() {
                return Err(Error::Usage(format!(
                    "{}: no such file (view opens a ref or a regular file)",
                    crate::diag::echo(&args.source)
                )));
            }
            path
        }
        SourceSpec::Stdin => {
            return Err(Error::Usage(
                "view opens a ref or a file, not stdin (spill wrap stores it first)".into(),
            ));
        }
    };
    let input = crate::source::open(&path.to_string_lossy(), store)?;
    let is_json = crate::json::sniff::looks_like_json(&input);
    drop(input);
    let viewer = if is_json { json_viewer() } else { None };
    let line = match viewer.or_else(crate::output::pager_command) {
        Some(line) => line,
        None => {
            return Err(Error::Usage(
                "no pager to view with: PAGER or SPILL_PAGER is empty or cat (spill cat reads it in pages)".into(),
            ));
        }
    };
    let status = viewer_command(&line, &path)
        .status()
        .map_err(|e| Error::stream("start the viewer", e))?;
    match status.code() {
        Some(0) => Ok(Outcome::Found),
        _ => Err(Error::Usage(format!(
            "the viewer ({}) ended with {status}",
            crate::diag::echo(&line)
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
