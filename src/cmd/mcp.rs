//! `spill mcp` (the server) and `spill mcp proxy`: settings from flags and the environment,
//! then the library's [`crate::mcp`] does the work.

use std::io::{self, BufReader};

use crate::cli::{Global, McpAction, McpArgs, ProxyArgs};
use crate::error::Result;
use crate::mcp::proxy::{self, ProxyOptions};
use crate::{diag, limits};

use super::Outcome;

/// Runs `spill mcp`.
pub fn run(global: &Global, args: McpArgs) -> Result<Outcome> {
    match args.action {
        Some(McpAction::Proxy(proxy)) => run_proxy(global, proxy),
        None => {
            crate::mcp::server::serve(server_settings(global, &args)?)?;
            Ok(Outcome::Found)
        }
    }
}

fn run_proxy(global: &Global, args: ProxyArgs) -> Result<Outcome> {
    let mut store = super::store_config(global)?;
    // Without a chosen scope the proxy follows the conversation of the harness that started it,
    // as `spill mcp` does, so the envelope's shell commands read its refs; until a hook has bound
    // one (or outside a harness) it stores in a scope of its own.
    let follow = follows_bindings(global)?;
    if follow {
        store.scope = generated_scope();
        diag::note(&format!(
            "mcp proxy: storing oversized results in the scope a harness hook bound to its \
             conversation, else in scope {} (set SPILL_SCOPE to choose one)",
            store.scope
        ));
    }
    let max_inline = match args.max_inline {
        Some(m) => m,
        None => super::env_parsed("SPILL_MAX_INLINE", limits::parse_size, false)?
            .unwrap_or(limits::MAX_INLINE),
    };
    let opts = ProxyOptions {
        max_inline,
        timeout: args.timeout,
        command: args.command,
        follow_bindings: follow,
    };
    let mut local = crate::mcp::server::Reader::new(store.clone(), "spill_");
    if follow {
        local = local.following_bindings();
    }
    let local = Box::new(local);
    let mut input = BufReader::with_capacity(1 << 16, io::stdin());
    let client = proxy::ClientSide {
        input: &mut input,
        output: Box::new(io::stdout()),
        closed: Box::new(stdout_closed),
    };
    proxy::run(
        store,
        opts,
        local,
        client,
        Box::new(|m: &str| diag::warning(m)),
    )?;
    Ok(Outcome::Found)
}

/// True when the reader of stdout is gone (a pipe whose read end is closed polls as an error).
fn stdout_closed() -> bool {
    let mut fd = libc::pollfd {
        fd: 1,
        events: 0,
        revents: 0,
    };
    // SAFETY: poll(2) of one descriptor we own, without waiting.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    ready > 0 && fd.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0
}

/// A scope of its own for a proxy started without SPILL_SCOPE: `mcp-` and 12 hex digits of a
/// hash of the process id and the time.
fn generated_scope() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let seed = format!("{}-{}", std::process::id(), now.as_nanos());
    let hash = blake3::hash(seed.as_bytes()).to_hex();
    format!("mcp-{}", &hash[..12])
}

/// Whether the server follows the conversation of the harness that started it: only when no
/// scope was chosen (`--scope`, `SPILL_SCOPE`), the case of a server a harness registered with
/// `spill init` (ARCHITECTURE.md, "Conversation bindings").
fn follows_bindings(global: &Global) -> Result<bool> {
    Ok(global.scope.is_none() && super::env_text("SPILL_SCOPE")?.is_none())
}

fn server_settings(global: &Global, args: &McpArgs) -> Result<crate::mcp::server::Settings> {
    let store = super::store_config(global)?;
    if args.allow_run && super::restricted() {
        return Err(crate::error::Error::Usage(
            "mcp: --allow-run is refused in restricted mode (SPILL_RESTRICTED=1)".into(),
        ));
    }
    Ok(crate::mcp::server::Settings {
        store,
        allow_run: args.allow_run,
        page_size: args.page_size,
        follow_bindings: follows_bindings(global)?,
    })
}
