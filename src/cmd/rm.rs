//! `spill rm`: delete entries by ref, or every entry of the current scope.

use serde::Serialize;

use crate::cli::RmArgs;
use crate::diag;
use crate::error::{Error, Result};
use crate::output;
use crate::store::{Ref, Shorthand, Store, StoreConfig};

use super::Outcome;

/// `spill rm --json` output.
#[derive(Debug, Default, Serialize)]
pub struct RmOutput {
    /// Refs removed.
    pub removed: Vec<String>,
    /// Refs that were not stored (or not refs at all).
    pub unknown: Vec<String>,
}

/// Runs `spill rm`.
pub fn run(config: &StoreConfig, args: RmArgs) -> Result<Outcome> {
    let store = Store::new(config.clone());
    let mut result = RmOutput::default();
    let targets: Vec<(String, Option<Ref>)> = if args.all {
        store
            .entries()?
            .into_iter()
            .map(|e| (e.reference.to_string(), Some(e.reference)))
            .collect()
    } else {
        // Short forms (`@1`, `sp_4f9e`) are all resolved before anything is removed, so that
        // `rm @1 @2` removes the two newest; an ambiguous prefix stops the command.
        let resolved = |t: &String| match Shorthand::parse(t) {
            Some(short) => match store.resolve(&short, t) {
                Ok(r) => Ok(Some(r)),
                Err(Error::UnknownRef(_)) => Ok(None),
                Err(e) => Err(e),
            },
            None => Ok(Ref::parse(t)),
        };
        args.refs
            .iter()
            .map(|t| Ok((t.clone(), resolved(t)?)))
            .collect::<Result<_>>()?
    };
    for (text, parsed) in targets {
        match parsed {
            Some(r) if store.remove(&r, "removed")? => result.removed.push(r.to_string()),
            _ => result.unknown.push(text),
        }
    }
    if args.all {
        // Half-written entries and stale temporary files go too; they were never entries, so
        // they are not listed.
        store.remove_leftovers()?;
    }
    let mut out = output::stdout();
    if args.json {
        let mut text = serde_json::to_string(&result).expect("rm output serialises");
        text.push('\n');
        output::write_all(&mut out, text.as_bytes())?;
    } else {
        for r in &result.removed {
            output::write_all(&mut out, format!("removed {r}\n").as_bytes())?;
        }
    }
    output::flush(&mut out)?;
    if result.unknown.is_empty() {
        return Ok(Outcome::Found);
    }
    if args.json {
        return Ok(Outcome::Status(2));
    }
    let list: Vec<String> = result.unknown.iter().map(|u| diag::echo(u)).collect();
    Err(Error::Usage(format!(
        "not removed (unknown ref in this scope): {}; `spill ls` lists what is stored",
        list.join(", ")
    )))
}
