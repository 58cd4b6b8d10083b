//! `spill stop REF`: ends a running command's process group.

use crate::cli::StopArgs;
use crate::diag;
use crate::error::Result;
use crate::store::{Store, StoreConfig};
use crate::wrap::live;

use super::Outcome;

/// Runs `spill stop`: 0 once the command has ended (also when it already had).
pub fn run(config: &StoreConfig, args: StopArgs) -> Result<Outcome> {
    let id = super::wait::parse_ref(&args.reference, "stop")?;
    let store = Store::new(config.clone());
    let stopped = live::stop(&store, &id, args.grace)?;
    diag::note(&stopped.sentence(&id));
    Ok(Outcome::Found)
}
