//! `spill wait REF`: the end of a running command, or what is new at `--timeout`.

use std::time::Instant;

use crate::cli::{FooterTo, WaitArgs};
use crate::error::{Error, Result};
use crate::store::running::Liveness;
use crate::store::{Ref, Store, StoreConfig};
use crate::wrap::live::{self, Waited};
use crate::{diag, output};

use super::Outcome;

/// The status `spill wait` exits with when its timeout passes first (as timeout(1)).
const STILL_RUNNING: u8 = 124;

/// Runs `spill wait`.
pub fn run(config: &StoreConfig, args: WaitArgs) -> Result<Outcome> {
    let id = parse_ref(&args.reference, "wait")?;
    let store = Store::new(config.clone());
    let until = args.timeout.and_then(|t| Instant::now().checked_add(t));
    match live::wait(&store, &id, until, &mut || false)? {
        Waited::Ended(record) => super::live::print_end(&store, &record, None, false),
        Waited::Live(snap) => {
            let interrupted = snap.liveness == Liveness::Interrupted;
            drop(snap);
            let mut out = output::stdout();
            let page = crate::ops::since::run(
                config,
                &id.to_string(),
                args.since,
                args.max_bytes,
                "wait",
                &mut out,
            )?;
            let report = page.report;
            super::print_report(&mut out, FooterTo::Stderr, &report)?;
            if interrupted {
                diag::error(&Error::Store(format!(
                    "{id} was interrupted: its supervisor died before the command ended"
                )));
                return Ok(Outcome::Status(2));
            }
            Ok(Outcome::Status(STILL_RUNNING))
        }
    }
}

/// A running entry's ref, exactly (`@1` and prefixes name stored outputs, not running ones).
pub(super) fn parse_ref(text: &str, command: &str) -> Result<Ref> {
    Ref::parse(text).ok_or_else(|| {
        Error::Usage(format!(
            "{command} takes a running entry's ref as its envelope gave it (sp_ and 16 hex digits), not {:?}",
            diag::escape(text)
        ))
    })
}
