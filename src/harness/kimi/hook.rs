//! `spill hook kimi`: there is nothing for it to do. Kimi CLI's hooks (`[[hooks]]` in
//! `~/.kimi/config.toml`, from 1.28.0) can only allow or block a call: its hook runner reads a
//! hook's exit status (2 blocks) and `hookSpecificOutput.permissionDecision` (`deny` blocks)
//! and nothing else, so a rewritten command or a replaced result is ignored
//! (`kimi_cli/hooks/runner.py`, kimi-cli 1.50.0); its `PostToolUse` runs in the background on
//! the first 2,000 characters of the result (`str(ret)[:2000]`, `kimi_cli/soul/toolset.py`).
//! `spill init kimi` installs no hook, and a call that arrives anyway (a hook the user wrote
//! by hand) is let through unchanged, saying why, never blocked.

use crate::hook::{Response, through};

/// The answer to every call: let it through, with the reason spill does nothing.
pub fn respond() -> Response {
    through(
        "Kimi CLI's hooks can only allow or block a call, so spill has no hook there; it \
         covers Kimi CLI's MCP results through `spill init kimi --proxy-mcp`"
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_call_is_let_through_unchanged() {
        let answer = respond();
        assert_eq!(answer.stdout, "");
        assert!(answer.spill.is_none() && answer.remove_scope.is_none());
        assert!(answer.note.unwrap().contains("--proxy-mcp"));
    }
}
