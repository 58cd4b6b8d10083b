//! `spill gc`: glue from the command line to [`crate::ops::gc`].

use crate::cli::GcArgs;
use crate::error::Result;
use crate::store::StoreConfig;
use crate::{ops, output};

use super::Outcome;

/// Runs `spill gc`.
pub fn run(config: &StoreConfig, args: GcArgs) -> Result<Outcome> {
    let report = ops::gc::run(
        config,
        &ops::gc::Request {
            dry_run: args.dry_run,
            all_scopes: args.all_scopes,
        },
    )?;
    let mut out = output::stdout();
    if args.json {
        ops::write_json(&report, &mut out)?;
    } else {
        ops::gc::write_text(&report, output::stdout_is_terminal(), &mut out)?;
    }
    output::flush(&mut out)?;
    // What the store refused to remove is reported after what was removed: exit 2.
    for failure in &report.failures {
        crate::diag::error(&crate::error::Error::Store(failure.clone()));
    }
    match report.failures.is_empty() {
        true => Ok(Outcome::Found),
        false => Ok(Outcome::Status(2)),
    }
}
