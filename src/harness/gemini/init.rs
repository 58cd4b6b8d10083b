//! Gemini CLI's `settings.json` (read as JSONC): spill's `BeforeTool`, `AfterTool` and
//! `SessionEnd` hooks and `hooksConfig.enabled`, spliced in and cut out by the shared
//! [`HookSet`].

use crate::init::{Edit, HookSet};

/// Gemini CLI's events: the shell tool before it runs, every other tool after it ran (the hook
/// skips the shell tool there), and the end of the session.
const HOOKS: HookSet = HookSet {
    events: &[
        ("BeforeTool", Some("^run_shell_command$")),
        ("AfterTool", Some(".*")),
        ("SessionEnd", None),
    ],
    harness: "gemini",
    comments: true,
    needs_enabled: true,
};

/// The settings text with spill's Gemini CLI hooks and `hooksConfig.enabled = true` (Gemini runs
/// no hooks without it), or `None` when `text` already has exactly them. Comments are kept.
pub fn install(text: &str, spill: &str) -> std::result::Result<Option<Edit>, String> {
    HOOKS.install(text, spill)
}

/// The settings text without spill's Gemini CLI hooks, or `None` when it has none.
/// `hooksConfig.enabled` goes back to what the backup had (absent included) only while no other
/// hook needs it and it is still the `true` init set; otherwise it stays on, with a note.
pub fn uninstall(text: &str, backup: Option<&str>) -> std::result::Result<Option<Edit>, String> {
    HOOKS.uninstall(text, backup)
}
