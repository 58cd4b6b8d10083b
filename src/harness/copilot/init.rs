//! Copilot CLI's hooks file: spill's `PostToolUse` and `SessionEnd` hooks in Claude Code's
//! layout, which Copilot CLI reads from every `*.json` file of its hooks directory, spliced in
//! and cut out by the shared [`HookSet`]. The file is spill's own (`spill.json`), so `spill
//! init` creates it and `--uninstall` removes it.

use crate::init::HookSet;
use crate::init::server::JsonServer;

/// `spill mcp` in `mcp-config.json` (`spill init copilot --mcp`), as Copilot CLI's `/mcp add`
/// writes a local server, with every tool enabled.
pub static MCP: JsonServer = JsonServer {
    table: "mcpServers",
    comments: false,
    entry: |spill, _| serde_json::json!({"type": "local", "command": spill, "args": ["mcp"], "tools": ["*"]}),
};

/// Copilot CLI's events: every tool after it ran (its shell too: the hook stores the whole
/// result Copilot CLI saved), and the end of the session.
pub static HOOKS: HookSet = HookSet {
    events: &[("PostToolUse", Some(".*")), ("SessionEnd", None)],
    harness: "copilot",
    comments: false,
    needs_enabled: false,
};
