//! `spill rm`: glue from the command line to [`crate::ops::rm`].

use crate::cli::RmArgs;
use crate::error::Result;
use crate::store::StoreConfig;
use crate::{ops, output};

use super::Outcome;

/// Runs `spill rm`.
pub fn run(config: &StoreConfig, args: RmArgs) -> Result<Outcome> {
    let result = ops::rm::run(
        config,
        &ops::rm::Request {
            refs: args.refs,
            all: args.all,
        },
    )?;
    let mut out = output::stdout();
    if args.json {
        ops::write_json(&result, &mut out)?;
    } else {
        ops::rm::write_text(&result, &mut out)?;
    }
    output::flush(&mut out)?;
    if result.unknown.is_empty() {
        return Ok(Outcome::Found);
    }
    if args.json {
        return Ok(Outcome::Status(2));
    }
    Err(ops::rm::not_removed(&result).expect("unknown refs"))
}
