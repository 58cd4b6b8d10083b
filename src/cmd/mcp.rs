//! `spill mcp` (the server) and `spill mcp proxy`: settings from flags and the environment,
//! then the library's [`crate::mcp`] does the work.

use std::io::{self, BufReader};

use crate::cli::{Global, McpAction, McpArgs, ProxyArgs};
use crate::error::{Error, Result};
use crate::mcp::proxy::{self, ProxyOptions};
use crate::{diag, limits};

use super::Outcome;

/// Runs `spill mcp`.
pub fn run(global: &Global, args: McpArgs) -> Result<Outcome> {
    if args.token.is_some() {
        return Err(Error::Usage(format!(
            "mcp: --token is refused: a command line is visible to every user of the machine; put the token in a file (--token-file FILE) or in {TOKEN_VAR}"
        )));
    }
    match args.action {
        Some(McpAction::Proxy(proxy)) => run_proxy(global, proxy),
        None => {
            let settings = server_settings(global, &args)?;
            match &args.http {
                Some(addr) => serve_http(settings, addr, &args)?,
                None => crate::mcp::server::serve(settings)?,
            }
            Ok(Outcome::Found)
        }
    }
}

/// The environment variable `spill mcp --http` reads its bearer token from.
pub const TOKEN_VAR: &str = "SPILL_MCP_TOKEN";

#[cfg(feature = "http")]
fn serve_http(settings: crate::mcp::server::Settings, addr: &str, args: &McpArgs) -> Result<()> {
    let addr = crate::mcp::http::parse_addr(addr).map_err(|e| Error::Usage(format!("mcp: {e}")))?;
    let token = token(args)?;
    crate::mcp::server::serve_http(
        settings,
        crate::mcp::http::Listen { addr, token },
        Box::new(|url: &str| diag::note(&format!("mcp: serving {url}"))),
    )
}

#[cfg(not(feature = "http"))]
fn serve_http(_: crate::mcp::server::Settings, _: &str, _: &McpArgs) -> Result<()> {
    Err(without_http("--http"))
}

#[cfg(not(feature = "http"))]
fn without_http(flag: &str) -> Error {
    Error::Usage(format!(
        "mcp: {flag} needs spill built with the `http` feature (cargo install spill-cli --features http)"
    ))
}

/// The bearer token: `--token-file`'s content, else SPILL_MCP_TOKEN, without surrounding
/// whitespace; one of visible ASCII characters only (it goes in a header).
#[cfg(feature = "http")]
fn token(args: &McpArgs) -> Result<Option<String>> {
    let (token, source) = match &args.token_file {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
                op: "read the token file",
                path: Some(path.clone()),
                source: e,
            })?;
            (text, "--token-file")
        }
        None => match super::env_text(TOKEN_VAR)? {
            Some(text) => (text, TOKEN_VAR),
            None => return Ok(None),
        },
    };
    let token = token.trim();
    if token.is_empty() {
        return Err(Error::Usage(format!("mcp: the token of {source} is empty")));
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(Error::Usage(format!(
            "mcp: the token of {source} holds a character other than visible ASCII"
        )));
    }
    Ok(Some(token.to_string()))
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
    #[cfg(feature = "http")]
    let remote = remote(&args)?;
    let opts = ProxyOptions {
        max_inline,
        timeout: args.timeout,
        command: args.command,
        follow_bindings: follow,
        #[cfg(feature = "http")]
        remote,
    };
    #[cfg(not(feature = "http"))]
    if args.url.is_some() {
        return Err(without_http("--url"));
    }
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

/// `--url` and its headers (`--header`, then `--headers-file`'s).
#[cfg(feature = "http")]
fn remote(args: &ProxyArgs) -> Result<Option<crate::mcp::remote::Remote>> {
    let Some(url) = &args.url else {
        return Ok(None);
    };
    let mut lines = args.headers.clone();
    if let Some(path) = &args.headers_file {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
            op: "read the headers file",
            path: Some(path.clone()),
            source: e,
        })?;
        lines.extend(crate::mcp::remote::header_lines(&text));
    }
    let env = |name: &str| std::env::var(name).ok();
    crate::mcp::remote::Remote::new(url, &lines, &env)
        .map(Some)
        .map_err(|e| Error::Usage(format!("mcp proxy: {e}")))
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

/// A scope of its own for a proxy started without SPILL_SCOPE: the one every proxy of its
/// harness process shares (`binding::proxy_scope`: `mcp-` and 12 hex digits of a hash of that
/// process's pid and start time), so a harness with no hook of spill's (Kimi CLI) has one scope
/// per process that its shell's reading commands find (ARCHITECTURE.md, "Conversation
/// bindings"); without a harness process, a hash of this process's id and the time.
fn generated_scope() -> String {
    use crate::store::binding;
    if let Some(harness) = binding::harness_chain().pop() {
        return binding::proxy_scope(&harness);
    }
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
        return Err(Error::Usage(
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
