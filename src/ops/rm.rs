//! `spill rm`: delete entries by ref, or every entry of the current scope.

use std::io::Write;

use crate::diag;
use crate::error::{Error, Result};
use crate::store::{Ref, Shorthand, Store, StoreConfig};
use crate::wire::RmOutput;

use super::write_all;

/// What to remove (`spill rm`'s arguments); `Default` removes nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    /// The refs to remove.
    pub refs: Vec<String>,
    /// `--all`: every entry of the current scope (and its half-written leftovers).
    pub all: bool,
}

/// Runs `spill rm`: what was removed and what was not stored (or not a ref at all).
pub fn run(config: &StoreConfig, req: &Request) -> Result<RmOutput> {
    let store = Store::new(config.clone());
    let mut result = RmOutput::default();
    let targets: Vec<(String, Option<Ref>)> = if req.all {
        store
            .entries()?
            .into_iter()
            .map(|e| (e.reference.to_string(), Some(e.reference)))
            .collect()
    } else {
        // Short forms (`@1`, `sp_4f9e`) are all resolved before anything is removed, so that
        // `rm @1 @2` removes the two newest; an ambiguous prefix stops the command.
        let resolved = |t: &String| match Shorthand::parse(t)? {
            Some(short) => match store.resolve(&short, t) {
                Ok(r) => Ok(Some(r)),
                Err(Error::UnknownRef(_)) => Ok(None),
                Err(e) => Err(e),
            },
            None => Ok(Ref::parse(t)),
        };
        req.refs
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
    if req.all {
        // Half-written entries and stale temporary files go too; they were never entries, so
        // they are not listed.
        store.remove_leftovers()?;
    }
    Ok(result)
}

/// Writes `removed REF`, one line per ref removed.
pub fn write_text(result: &RmOutput, out: &mut dyn Write) -> Result<()> {
    for r in &result.removed {
        write_all(out, format!("removed {r}\n").as_bytes())?;
    }
    Ok(())
}

/// The error for the refs that were not removed, when there are any (text output; `--json`
/// lists them and exits 2).
pub fn not_removed(result: &RmOutput) -> Option<Error> {
    if result.unknown.is_empty() {
        return None;
    }
    let list: Vec<String> = result.unknown.iter().map(|u| diag::echo(u)).collect();
    Some(Error::Usage(format!(
        "not removed (unknown ref in this scope): {}; `spill ls` lists what is stored",
        list.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testing::{self, spill};

    #[test]
    fn removes_what_is_stored_and_names_what_is_not() {
        let (_dir, store) = testing::store();
        let r = spill(&store, "y\n".repeat(20_000).as_bytes());
        let req = Request {
            refs: vec![r.clone(), "sp_0000000000000000".into()],
            all: false,
        };
        let result = run(&store, &req).unwrap();
        assert_eq!(result.removed, std::slice::from_ref(&r));
        assert_eq!(result.unknown, ["sp_0000000000000000"]);
        let mut out = Vec::new();
        write_text(&result, &mut out).unwrap();
        assert_eq!(testing::text(out), format!("removed {r}\n"));
        let err = not_removed(&result).unwrap();
        assert!(err.to_string().contains("sp_0000000000000000"), "{err}");
        assert!(
            crate::ops::ls::run(&store, &Default::default())
                .unwrap()
                .entries
                .is_empty()
        );
        let nothing = run(
            &store,
            &Request {
                refs: vec![],
                all: true,
            },
        )
        .unwrap();
        assert_eq!(nothing, RmOutput::default());
        assert!(not_removed(&nothing).is_none());
    }
}
