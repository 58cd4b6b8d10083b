//! Gemini CLI's `settings.json` (read as JSONC): spill's `BeforeTool`, `AfterTool` and
//! `SessionEnd` hooks and `hooksConfig.enabled`, spliced in and cut out by the shared
//! [`HookSet`].

use crate::init::HookSet;
use crate::init::server::JsonServer;

/// `spill mcp` in settings.json's `mcpServers` (`spill init gemini --mcp`; Qwen Code's too), as
/// `gemini mcp add spill SPILL mcp` writes it.
pub static MCP: JsonServer = JsonServer {
    table: "mcpServers",
    comments: true,
    entry: |spill, _| serde_json::json!({"command": spill, "args": ["mcp"]}),
};

/// Gemini CLI's events: the shell tool before it runs, every other tool after it ran (the hook
/// skips the shell tool there), and the end of the session. `install` also sets
/// `hooksConfig.enabled = true` (Gemini runs no hooks without it) and keeps comments;
/// `uninstall` puts `hooksConfig.enabled` back to what the backup had (absent included) only
/// while no other hook needs it and it is still the `true` init set; otherwise it stays on, with
/// a note.
pub static HOOKS: HookSet = HookSet {
    events: &[
        ("BeforeTool", Some("^run_shell_command$")),
        ("AfterTool", Some(".*")),
        ("SessionEnd", None),
    ],
    harness: "gemini",
    comments: true,
    needs_enabled: true,
};
