//! `spill init kimi --proxy-mcp`: each stdio MCP server of Kimi CLI's `mcp.json`
//! (`{"mcpServers": {NAME: {"command", "args", "env"}}}`, read as strict JSON) routed through
//! `spill mcp proxy`, and back, by the shared `mcpServers` route (`crate::init::mcp_servers`).
//!
//! The route names the store root (`--dir ROOT`, the root `spill init` resolves from
//! `SPILL_DIR`, else `TMPDIR`): Kimi CLI starts a stdio server with `HOME`, `LOGNAME`, `PATH`,
//! `SHELL`, `TERM` and `USER` only, plus its entry's `env` (the MCP SDK's
//! `get_default_environment`, as kimi-cli 1.50.0 pins it), so without it the proxy would store
//! under `/tmp/spill-UID` while Kimi CLI's shell, which has the whole environment, reads under
//! `$TMPDIR` or `$SPILL_DIR` (macOS always sets `TMPDIR`). Run `spill init kimi --proxy-mcp`
//! again after changing either. Kimi CLI caps an MCP result at 100,000 characters
//! (`MCP_MAX_OUTPUT_CHARS`) and no hook can replace it, so the proxy is the only route.

use crate::init::mcp_servers::McpServers;

/// spill's proxy routes in `mcp.json`.
pub static ROUTES: McpServers = McpServers {
    comments: false,
    dir: true,
};

/// `spill mcp` as Kimi CLI's MCP server `spill` (`spill init kimi --mcp`), naming the store root
/// for the reason the routes do (`--dir ROOT`): the server then reads where the proxies store.
pub static MCP: crate::init::server::JsonServer = crate::init::server::JsonServer {
    table: "mcpServers",
    comments: false,
    entry: |spill, root| serde_json::json!({"command": spill, "args": ["mcp", "--dir", root]}),
};
