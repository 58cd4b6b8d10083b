//! `spill mcp`: the MCP server (rmcp over stdio) for one scope's stored outputs: the tools of
//! [`super::tools`] and the resources of [`super::resources`].
//!
//! rmcp is asynchronous; its runtime (tokio, one thread) is built only here, so no other
//! command pays for it. The reading tools are synchronous library calls, run one at a time.
//! `wait` and `stop` ([`super::tools::LIVE_NAMES`]) block for seconds, so they run on tokio's
//! blocking threads, `wait` in steps of a second between which it sends a progress
//! notification (when the request has a `progressToken`) and notices a cancellation; the other
//! requests are answered meanwhile.
//!
//! Protocol revisions: every published one, 2024-11-05 to 2026-07-28 ([`super::revision`]):
//! `initialize` is answered with the client's revision when it is one of them, otherwise with
//! 2025-11-25; 2026-07-28 requests without `initialize` are served too (rmcp reads their
//! `_meta`). Each result is cut to what the negotiated revision defines.

use std::borrow::Cow;
use std::process::Command;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorCode, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Value, json};

use super::proxy::Local;
use super::resources::{self, RpcError};
use super::revision;
use super::tools;
use crate::error::{Error, Result};
use crate::store::running::Liveness;
use crate::store::{Store, StoreConfig};
use crate::wrap::live::{self, Waited};

/// The protocol revisions served: every one rmcp knows, oldest first (the same list as
/// [`super::revision::KNOWN`]).
pub const PROTOCOL_VERSIONS: &[ProtocolVersion] = ProtocolVersion::KNOWN_VERSIONS;

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
#[derive(Clone)]
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

    /// The same reader, following the conversation a hook bound to the nearest ancestor
    /// process (the proxy's, like the server's without a chosen scope).
    pub fn following_bindings(mut self) -> Reader {
        self.follow_bindings = true;
        self
    }

    /// The store and scope this request reads: the conversation's, when the server follows
    /// bindings and a hook recorded one for an ancestor; else the scope a proxy of its harness
    /// process claimed and no hook took over (`binding::claimed_for_self`: a harness with no
    /// hook, Kimi CLI); else the configured scope.
    fn store(&self) -> StoreConfig {
        let mut store = self.store.clone();
        if self.follow_bindings
            && let Some(scope) = crate::store::binding::resolve_for_self(&store.root)
                .or_else(|| crate::store::binding::claimed_for_self(&store.root))
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

#[derive(Clone)]
struct Handler {
    reader: Reader,
    allow_run: bool,
    page_size: usize,
}

fn rpc_error((code, message): RpcError) -> ErrorData {
    ErrorData::new(ErrorCode(code as i32), message, None)
}

/// A result built as JSON, typed for rmcp. It is marked `resultType: complete`, as rmcp's own
/// constructors do: rmcp strips the mark for revisions before 2026-07-28 and adds the cache
/// hints that revision requires.
fn convert<T: serde::de::DeserializeOwned>(mut value: Value) -> std::result::Result<T, ErrorData> {
    if let Some(map) = value.as_object_mut() {
        map.entry("resultType").or_insert(json!("complete"));
    }
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

/// The revision a request is answered in: its own `_meta`'s, else the negotiated one.
fn revision_of(context: &RequestContext<RoleServer>) -> ProtocolVersion {
    context
        .protocol_version()
        .unwrap_or(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        ServerConfig::new(capabilities)
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
            .with_server_info(Implementation::new("spill", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Stored command outputs of this conversation. An envelope names a ref (sp_…); \
                 read it with the tools (search, cat, extract, shape) or as the resource \
                 spill://SCOPE/REF. The hint's `spill CMD REF …` commands map onto the tools of \
                 the same name (`--since N` is since: N). A running envelope's command is still \
                 running: cat with since gives what is new, wait waits for its end ({} s at \
                 most per call), stop ends it.",
                tools::MAX_WAIT.as_secs()
            ))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(PROTOCOL_VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        let mut list = self.reader.tools();
        list.extend(tools::live_definitions());
        if self.allow_run {
            list.push(run_definition());
        }
        let mut result = json!({ "tools": list });
        revision::tools_list(&mut result, revision_of(&context).as_str());
        convert(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let mut answer = match self.reader.call_tool(&request.name, &arguments) {
            Some(answer) => answer.map_err(rpc_error)?,
            None if request.name == "wait" => wait(self.reader.store(), &arguments, &context)
                .await
                .unwrap_or_else(|e| tools::failure(&e)),
            None if request.name == "stop" => stop(self.reader.store(), &arguments)
                .await
                .unwrap_or_else(|e| tools::failure(&e)),
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
        revision::call_result(&mut answer, revision_of(&context).as_str());
        convert::<CallToolResult>(answer).map(Into::into)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        let mut page = resources::list(&self.reader.store(), cursor.as_deref(), self.page_size)
            .map_err(rpc_error)?;
        revision::resource_list(&mut page, revision_of(&context).as_str());
        convert(page)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourceTemplatesResult, ErrorData> {
        let mut templates = resources::templates(&self.reader.store());
        revision::resource_list(&mut templates, revision_of(&context).as_str());
        convert(templates)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        let mut result = resources::read(&self.reader.store(), &request.uri).map_err(rpc_error)?;
        revision::read_result(&mut result, revision_of(&context).as_str());
        convert::<ReadResourceResult>(result).map(Into::into)
    }
}

/// How often a `wait` looks up from waiting: to send progress and notice a cancellation.
const WAIT_STEP: Duration = Duration::from_secs(1);

/// Runs blocking library work on tokio's blocking threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Error::Store(format!("the tool's worker failed: {e}")))?
}

/// The `wait` tool: `spill wait REF --timeout D` (at most [`tools::MAX_WAIT`]), a second at a
/// time, with a progress notification after each second when the client gave a
/// `progressToken`; a cancelled request stops waiting (rmcp drops its answer).
async fn wait(
    store: StoreConfig,
    arguments: &Value,
    context: &RequestContext<RoleServer>,
) -> Result<Value> {
    let call = tools::WaitCall::parse(arguments)?;
    let started = Instant::now();
    let deadline = started + call.timeout;
    let token = context.meta.get_progress_token();
    loop {
        let step = (Instant::now() + WAIT_STEP).min(deadline);
        let (config, id) = (store.clone(), call.id);
        let waited =
            blocking(move || live::wait(&Store::new(config), &id, Some(step), &mut || false))
                .await?;
        match waited {
            Waited::Live(snap)
                if snap.liveness == Liveness::Running
                    && Instant::now() < deadline
                    && !context.ct.is_cancelled() =>
            {
                if let Some(token) = &token {
                    let message = format!(
                        "{} is still running: {} bytes, {} lines so far",
                        call.id,
                        crate::limits::group_digits(snap.total),
                        crate::limits::group_digits(snap.lines)
                    );
                    let mut progress = ProgressNotificationParam::new(
                        token.clone(),
                        started.elapsed().as_secs_f64(),
                    )
                    .with_total(call.timeout.as_secs_f64());
                    // A progress message is 2025-03-26's.
                    if revision::at_least(revision_of(context).as_str(), "2025-03-26") {
                        progress = progress.with_message(message);
                    }
                    // A client that cannot take it still gets the answer.
                    let _ = context.peer.notify_progress(progress).await;
                }
            }
            waited => return blocking(move || call.answer(&store, waited)).await,
        }
    }
}

/// The `stop` tool: `spill stop REF --grace D` (at most [`tools::MAX_GRACE`]).
async fn stop(store: StoreConfig, arguments: &Value) -> Result<Value> {
    let call = tools::StopCall::parse(arguments)?;
    blocking(move || {
        let stopped = live::stop(&Store::new(store.clone()), &call.id, call.grace)?;
        call.answer(&store, &stopped)
    })
    .await
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

fn handler(settings: Settings) -> Handler {
    Handler {
        reader: Reader {
            follow_bindings: settings.follow_bindings,
            ..Reader::new(settings.store, "")
        },
        allow_run: settings.allow_run,
        page_size: settings.page_size.max(1),
    }
}

/// Serves MCP over Streamable HTTP ([`super::http`]) until the process ends: the same tools,
/// resources and scope as [`serve`], a session per client. `listening` gets the endpoint's URL.
#[cfg(feature = "http")]
pub fn serve_http(
    settings: Settings,
    listen: super::http::Listen,
    listening: Box<dyn FnOnce(&str)>,
) -> Result<()> {
    super::http::serve(handler(settings), listen, listening)
}

/// Serves MCP on stdin/stdout until the client closes stdin.
pub fn serve(settings: Settings) -> Result<()> {
    let handler = handler(settings);
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
