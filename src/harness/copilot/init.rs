//! Copilot CLI's hooks file: spill's `PostToolUse` and `SessionEnd` hooks in Claude Code's
//! layout, which Copilot CLI reads from every `*.json` file of its hooks directory, spliced in
//! and cut out by the shared [`HookSet`]. The file is spill's own (`spill.json`), so `spill
//! init` creates it and `--uninstall` removes it.

use crate::init::HookSet;

/// Copilot CLI's events: every tool after it ran (its shell too: the hook stores the whole
/// result Copilot CLI saved), and the end of the session.
pub static HOOKS: HookSet = HookSet {
    events: &[("PostToolUse", Some(".*")), ("SessionEnd", None)],
    harness: "copilot",
    comments: false,
    needs_enabled: false,
};
