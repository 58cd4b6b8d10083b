//! Qwen Code's `settings.json` (read as JSONC, like Gemini CLI's): spill's `PostToolUse` and
//! `SessionEnd` hooks, spliced in and cut out by the shared [`HookSet`]. Qwen Code runs hooks
//! unless `disableAllHooks` is set, so nothing else is switched on.

use crate::init::HookSet;

/// Qwen Code's events: every tool but the shell after it ran (the matcher leaves the shell out,
/// so its calls start no hook; Qwen Code compiles a matcher that starts with `^` as written),
/// and the end of the session.
pub static HOOKS: HookSet = HookSet {
    events: &[
        ("PostToolUse", Some("^(?!run_shell_command$).*$")),
        ("SessionEnd", None),
    ],
    harness: "qwen-code",
    comments: true,
    needs_enabled: false,
};
