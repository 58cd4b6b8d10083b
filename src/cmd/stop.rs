//! `spill stop REF`: ends a running command's process group.

use crate::cli::StopArgs;
use crate::diag;
use crate::error::Result;
use crate::store::{Store, StoreConfig};
use crate::wrap::live::{self, Stopped};

use super::Outcome;

/// Runs `spill stop`: 0 once the command has ended (also when it already had).
pub fn run(config: &StoreConfig, args: StopArgs) -> Result<Outcome> {
    let id = super::wait::parse_ref(&args.reference, "stop")?;
    let store = Store::new(config.clone());
    match live::stop(&store, &id, args.grace)? {
        Stopped::AlreadyEnded(record) => diag::note(&format!(
            "{id} had already ended{}; `spill wait {id}` prints its envelope",
            record
                .code
                .map(|c| format!(" with status {c}"))
                .unwrap_or_default()
        )),
        Stopped::Ended(record) => diag::note(&format!(
            "stopped {id}{}; its output is stored: `spill wait {id}` prints its envelope",
            record
                .code
                .map(|c| format!(" (status {c})"))
                .unwrap_or_default()
        )),
        Stopped::Killed => diag::note(&format!(
            "killed {id} (it did not end within --grace, or its supervisor was gone); its output so far stays readable, marked interrupted: spill cat {id}"
        )),
    }
    Ok(Outcome::Found)
}
