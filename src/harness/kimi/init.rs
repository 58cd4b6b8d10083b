//! `spill init kimi`: no hook to write (`hook.rs` says why), so its entries are none, and say
//! so ([`Entries::hookless`]): `spill init kimi` without `--proxy-mcp` refuses with the reason
//! and the route that works, and writes nothing.

use crate::init::{Change, Entries};

/// Kimi CLI's hook entries: none.
pub struct NoHook;

/// The one value.
pub static NO_HOOK: NoHook = NoHook;

impl Entries for NoHook {
    fn install(&self, _text: &str, _spill: &str, _file: &str) -> Change {
        Ok(None)
    }

    fn uninstall(&self, _text: &str, _backup: Option<&str>) -> Change {
        Ok(None)
    }

    fn hookless(&self) -> Option<&'static str> {
        Some(
            "Kimi CLI's hooks can only allow or block a call (no rewritten command, no replaced \
             result), so spill installs no hook there",
        )
    }
}
