//! `spill cat`: glue from the command line to [`crate::ops::cat`].

use crate::cli::{CatArgs, FooterTo};
use crate::error::Result;
use crate::ops::{self, Notice};
use crate::output;
use crate::store::StoreConfig;

use super::Outcome;

/// Runs `spill cat`.
pub fn run(store: &StoreConfig, args: CatArgs) -> Result<Outcome> {
    let footer_to = super::footer_to(args.footer)?;
    if let Some(cursor) = args.since {
        let mut out = output::stdout();
        // A poll's page: at most CAT_BYTES (16 KiB), less with a smaller --max-bytes.
        let bound = ops::since::poll_bound(args.max_bytes);
        let page = ops::since::run(store, &args.source, cursor, bound, "cat", &mut out)?;
        super::print_report(&mut out, footer_to, &page.report)?;
        return Ok(page.report.outcome);
    }
    let req = ops::cat::Request {
        source: args.source,
        lines: args.lines,
        bytes: args.bytes,
        max_bytes: args.max_bytes,
        max_columns: args.max_columns,
        raw: args.raw,
        hex: args.hex,
        escape_terminal: output::stdout_is_terminal(),
    };
    let mut out = output::stdout();
    let mut report = ops::cat::run(store, &req, &mut out)?;
    // With the footer on stdout, an empty range stays silent.
    if footer_to == FooterTo::Stdout {
        report
            .notices
            .retain(|n| !matches!(n, Notice::NothingInRange { .. }));
    }
    super::print_report(&mut out, footer_to, &report)?;
    Ok(report.outcome)
}
