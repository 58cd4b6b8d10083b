//! `spill ls`: glue from the command line to [`crate::ops::ls`].

use crate::cli::LsArgs;
use crate::error::Result;
use crate::store::StoreConfig;
use crate::{ops, output};

use super::Outcome;

/// Runs `spill ls`.
pub fn run(config: &StoreConfig, args: LsArgs) -> Result<Outcome> {
    let listing = ops::ls::run(
        config,
        &ops::ls::Request {
            all_scopes: args.all_scopes,
        },
    )?;
    let mut out = output::stdout();
    if args.json {
        ops::write_json(&listing, &mut out)?;
    } else {
        let escape = output::stdout_is_terminal();
        ops::ls::write_text(&listing, args.all_scopes, escape, &mut out)?;
    }
    output::flush(&mut out)?;
    Ok(Outcome::Found)
}
