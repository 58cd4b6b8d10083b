//! `spill shape`: glue from the command line to [`crate::ops::shape`].

use crate::cli::{FooterTo, ShapeArgs};
use crate::error::Result;
use crate::ops;
use crate::output;
use crate::store::StoreConfig;

use super::Outcome;

/// Runs `spill shape`.
pub fn run(store: &StoreConfig, args: ShapeArgs) -> Result<Outcome> {
    let req = ops::shape::Request {
        source: args.source,
        max_depth: args.max_depth,
        max_bytes: args.max_bytes,
        paths: args.paths,
        skip_invalid: args.skip_invalid,
    };
    let mut out = output::stdout();
    // The skeleton is JSON, coloured at a terminal; the `--paths` listing is not.
    let report = match req.paths {
        true => ops::shape::run(store, &req, &mut out)?,
        false => output::json(&mut out, |w| ops::shape::run(store, &req, w))?,
    };
    // shape has no footer: its notes always go to stderr.
    super::print_report(&mut out, FooterTo::Stderr, &report)?;
    Ok(report.outcome)
}
