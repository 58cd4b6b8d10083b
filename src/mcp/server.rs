//! `spill mcp`: the MCP server (rmcp over stdio) for one scope's stored outputs: the tools of
//! [`super::tools`] and the resources of [`super::resources`].
//!
//! rmcp is asynchronous; its runtime (tokio, one thread) is built only here, so no other
//! command pays for it. The tools are synchronous library calls, run one at a time.
//!
//! Protocol revisions: 2025-11-25 (what current clients negotiate over `initialize`) and
//! 2026-07-28 (rmcp's newest, without the handshake); a client asking for an older one is
//! answered with 2025-11-25, which it may accept or refuse.

use std::borrow::Cow;
use std::process::Command;

use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorCode, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Value, json};

use super::proxy::Local;
use super::resources::{self, RpcError};
use super::tools;
use crate::error::{Error, Result};
use crate::store::StoreConfig;

/// The protocol revisions served: the previous one and the current one.
pub const PROTOCOL_VERSIONS: [ProtocolVersion; 2] =
    [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

/// How the server is set up.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The store and scope served (restricted whatever the environment says).
    pub store: StoreConfig,
    /// Offer the `run` tool.
    pub allow_run: bool,
    /// Resources per `resources/list` page.
    pub page_size: usize,
    /// Serve, per request, the scope a hook bound to the nearest ancestor process (the harness
    /// that started this server), else `store`'s (`crate::store::binding`).
    pub follow_bindings: bool,
}

/// spill's reading side, for the server and for the proxy ([`Local`]): tools named with a
/// prefix (`spill_` in the proxy) and `spill://` resources, over a restricted store.
pub struct Reader {
    store: StoreConfig,
    prefix: &'static str,
    follow_bindings: bool,
}

impl Reader {
    /// The reader of this store's scope; sources are refs only.
    pub fn new(mut store: StoreConfig, prefix: &'static str) -> Reader {
        store.restricted = true;
        Reader {
            store,
            prefix,
            follow_bindings: false,
        }
    }

    /// The store and scope this request reads: the conversation's, when the server follows
    /// bindings and a hook recorded one for an ancestor, else the configured scope.
    fn store(&self) -> StoreConfig {
        let mut store = self.store.clone();
        if self.follow_bindings
            && let Some(scope) = crate::store::binding::resolve_for_self(&store.root)
        {
            store.scope = scope;
        }
        store
    }
}

impl Local for Reader {
    fn tools(&self) -> Vec<Value> {
        tools::definitions(self.prefix)
    }

    fn call_tool(
        &self,
        name: &str,
        arguments: &Value,
    ) -> Option<std::result::Result<Value, RpcError>> {
        let bare = name.strip_prefix(self.prefix)?;
        tools::call(&self.store(), bare, arguments).map(Ok)
    }

    fn read_resource(&self, params: &Value) -> std::result::Result<Value, RpcError> {
        let uri = params["uri"].as_str().unwrap_or("");
        resources::read(&self.store(), uri)
    }
}

struct Handler {
    reader: Reader,
    allow_run: bool,
    page_size: usize,
}

fn rpc_error((code, message): RpcError) -> ErrorData {
    ErrorData::new(ErrorCode(code as i32), message, None)
}

fn convert<T: serde::de::DeserializeOwned>(value: Value) -> std::result::Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        ServerConfig::new(capabilities)
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
            .with_server_info(Implementation::new("spill", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Stored command outputs of this conversation. An envelope names a ref (sp_…); \
                 read it with the tools (search, cat, extract, shape) or as the resource \
                 spill://SCOPE/REF. The hint's `spill CMD REF …` commands map onto the tools of \
                 the same name.",
            )
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(&PROTOCOL_VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        let mut list = self.reader.tools();
        if self.allow_run {
            list.push(run_definition());
        }
        convert(json!({ "tools": list }))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let answer = match self.reader.call_tool(&request.name, &arguments) {
            Some(answer) => answer.map_err(rpc_error)?,
            None if self.allow_run && request.name == "run" => {
                run(&self.reader.store(), &arguments).unwrap_or_else(|e| tools::failure(&e))
            }
            None => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool {:?}", crate::diag::echo(&request.name)),
                    None,
                ));
            }
        };
        convert::<CallToolResult>(answer).map(Into::into)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        let page = resources::list(&self.reader.store(), cursor.as_deref(), self.page_size)
            .map_err(rpc_error)?;
        convert(page)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourceTemplatesResult, ErrorData> {
        convert(resources::templates(&self.reader.store()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        let result = resources::read(&self.reader.store(), &request.uri).map_err(rpc_error)?;
        convert::<ReadResourceResult>(result).map(Into::into)
    }
}

fn run_definition() -> Value {
    json!({
        "name": "run",
        "title": "spill wrap -- sh -c COMMAND",
        "description": "Run a shell command under `spill wrap`: output up to 16 KiB comes back as it is, larger output is stored in this scope and replaced by spill's envelope (read it with the other tools).",
        "inputSchema": {"type": "object", "properties": {
            "command": {"type": "string", "description": "The shell command (sh -c)."}},
            "required": ["command"], "additionalProperties": false},
        "annotations": {"title": "run a command", "readOnlyHint": false, "destructiveHint": true,
                        "openWorldHint": true},
    })
}

/// The `run` tool: `spill wrap -- sh -c COMMAND` in this scope. The command is a process of its
/// own in any case; running it under spill's own binary keeps one command runner.
fn run(store: &StoreConfig, arguments: &Value) -> Result<Value> {
    let command = match arguments.get("command") {
        Some(Value::String(c)) => c.clone(),
        _ => return Err(Error::Usage("command is required (a string)".into())),
    };
    if arguments.as_object().is_some_and(|m| m.len() > 1) {
        return Err(Error::Usage("run takes only command".into()));
    }
    let exe = std::env::current_exe().map_err(|e| Error::stream("find the spill binary", e))?;
    let output = Command::new(exe)
        .args(["wrap", "--", "sh", "-c", &command])
        .env("SPILL_DIR", &store.root)
        .env("SPILL_SCOPE", &store.scope)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| Error::stream("run spill wrap", e))?;
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    let status = output.status.code().unwrap_or(128);
    Ok(json!({"content": [{"type": "text", "text": text}],
              "structuredContent": {"exitCode": status}, "isError": status != 0}))
}

/// Serves MCP on stdin/stdout until the client closes stdin.
pub fn serve(settings: Settings) -> Result<()> {
    let handler = Handler {
        reader: Reader {
            follow_bindings: settings.follow_bindings,
            ..Reader::new(settings.store, "")
        },
        allow_run: settings.allow_run,
        page_size: settings.page_size.max(1),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::stream("start the MCP server's runtime", e))?;
    runtime.block_on(async move {
        let service = handler
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Error::Usage(format!("mcp: the client's initialization failed: {e}")))?;
        service
            .waiting()
            .await
            .map_err(|e| Error::Usage(format!("mcp: the server stopped: {e}")))?;
        Ok::<(), Error>(())
    })
}
