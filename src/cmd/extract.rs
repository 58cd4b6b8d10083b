//! `spill extract`: glue from the command line to [`crate::ops::extract`].

use crate::cli::ExtractArgs;
use crate::error::Result;
use crate::extract::Mode;
use crate::store::StoreConfig;
use crate::{limits, ops, output};

use super::Outcome;

/// Runs `spill extract`.
pub fn run(store: &StoreConfig, args: ExtractArgs) -> Result<Outcome> {
    let footer_to = super::footer_to(args.footer)?;
    let mode = if args.nodes {
        Mode::Nodes
    } else if args.raw {
        Mode::Raw
    } else {
        Mode::Values
    };
    let req = ops::extract::Request {
        source: args.source,
        query: args.query,
        from_file: args.from_file,
        mode,
        compact: args.compact,
        offset: args.offset,
        max_items: args.max_items,
        max_depth: args.max_depth,
        max_string: args.max_string,
        max_bytes: args.max_bytes.unwrap_or(limits::EXTRACT_MAX_BYTES),
        unbounded: args.unbounded,
        skip_invalid: args.skip_invalid,
    };
    let mut out = output::stdout();
    // Values and nodes are JSON, coloured at a terminal; raw strings are not.
    let report = match req.mode {
        Mode::Raw => ops::extract::run(store, &req, &mut out)?,
        _ => output::json(&mut out, |w| ops::extract::run(store, &req, w))?,
    };
    super::print_report(&mut out, footer_to, &report)?;
    Ok(report.outcome)
}
