//! `spill mcp proxy`: stands between an MCP client and a downstream MCP server it starts (stdio).
//!
//! Every message passes through byte for byte, except:
//! - the result of a `tools/call` whose text or `structuredContent` is larger than
//!   `--max-inline`: stored, and replaced by spill's envelope plus a `resource_link`
//!   ([`super::spill::replace`]);
//! - the first page of `tools/list`: spill's reading tools are added (`spill_cat`, …) and the
//!   downstream tools' `outputSchema` is dropped, since a replaced structured result no longer
//!   matches it and a validating client would reject the envelope;
//! - `tools/call` of a spill tool and `resources/read` of a `spill://` URI: answered here.
//!
//! Faults never hang the client: a downstream that exits fails its pending requests with a
//! JSON-RPC error (and every later one at once); one that does not answer within `--timeout`
//! fails that request; a line that is not JSON-RPC fails the requests pending at that moment
//! (their answers can no longer be trusted) and is reported on stderr. The proxy ends when the
//! client closes its input: it waits for the pending answers while the client can still read
//! them, closes the downstream's input, and stops the downstream (SIGTERM, then SIGKILL) if it
//! does not exit by itself.
//!
//! No orphans, by `wrap -- CMD`'s mechanism ([`crate::wrap::die_with_parent`],
//! [`crate::wrap::Guardian`]): the downstream runs in a process group of its own, the kernel
//! kills it when the proxy dies (`PR_SET_PDEATHSIG`), and a guardian in that group kills the
//! whole group as soon as the proxy is gone, even by SIGKILL. SIGTERM, SIGINT and SIGHUP are
//! caught: the pending requests get a JSON-RPC error, the group is stopped (SIGTERM, SIGKILL
//! within half a second) and the proxy then dies by the same signal. A client that goes away
//! (its end of the proxy's output closed) ends the proxy the same way, without the errors no
//! one would read.
//!
//! Threads, not an async runtime: one reads the client, one reads the downstream, one writes to
//! the downstream (so a downstream that stops reading never blocks the client's side), and one
//! fails requests past their deadline.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::rpc::{self, Bytes, Head, Line, Message, code};

/// A downstream line longer than this is written on to an unnamed file in the store's root as
/// it is read and handled from a map of it, so the proxy's heap stays within about this much
/// (plus its 1 MiB read buffer and the capture pipeline's buffers) whatever a message's size.
pub const SPOOL_AT: usize = 8 << 20;
use crate::error::{Error, Result};
use crate::store::StoreConfig;
use crate::wrap::WrapOptions;

/// How the proxy behaves.
#[derive(Debug, Clone)]
pub struct ProxyOptions {
    /// Text or structured content larger than this is stored.
    pub max_inline: u64,
    /// A downstream request unanswered this long gets an error.
    pub timeout: Duration,
    /// The downstream server's program and arguments.
    pub command: Vec<OsString>,
    /// Store each result in the scope a hook bound to the nearest ancestor process (the
    /// harness's conversation, `crate::store::binding`), resolved per result; the configured
    /// scope while there is none.
    pub follow_bindings: bool,
    /// A remote downstream (Streamable HTTP) instead of `command` ([`super::remote`]).
    #[cfg(feature = "http")]
    pub remote: Option<super::remote::Remote>,
}

/// What the proxy answers itself: spill's reading tools and `spill://` resources (the same
/// ones `spill mcp` serves).
pub trait Local: Send + Sync {
    /// The tool definitions added to `tools/list`.
    fn tools(&self) -> Vec<Value>;
    /// The result of `tools/call` for one of [`Local::tools`], `None` for any other tool.
    fn call_tool(
        &self,
        name: &str,
        arguments: &Value,
    ) -> Option<std::result::Result<Value, (i64, String)>>;
    /// The result of `resources/read` for a `spill://` URI.
    fn read_resource(&self, params: &Value) -> std::result::Result<Value, (i64, String)>;
}

/// What a forwarded request is, for handling its response.
#[derive(Debug, Clone)]
enum Kind {
    Initialize,
    ResourcesRead,
    ToolsCall { tool: String },
    ToolsList { first_page: bool },
    Other,
}

struct Pending {
    kind: Kind,
    /// The revision the request names in its `_meta` (2026-07-28); otherwise its answer
    /// follows the one negotiated by then.
    revision: Option<String>,
    deadline: Instant,
}

#[derive(Default)]
struct State {
    pending: HashMap<String, Pending>,
    /// Requests the proxy failed itself: a late answer from the downstream is dropped.
    failed: HashSet<String>,
    /// Set when the downstream's output ended, with why.
    gone: Option<String>,
    /// Answers taken from `pending` and not yet written (a large result being stored).
    answering: usize,
    /// The revision the downstream answered `initialize` with (none yet: a 2026-07-28 client
    /// names its revision in each request).
    revision: Option<String>,
    /// The revision the client asked for in `initialize`, while the downstream has not answered
    /// (a client that does not wait for the answer is answered in it, when spill knows it).
    requested: Option<String>,
}

impl State {
    /// The revision an answer is valid for: the request's own (`_meta`, 2026-07-28), else the
    /// one negotiated through the downstream, else the one asked for, else the newest with a
    /// handshake.
    fn revision_for(&self, own: Option<&str>) -> String {
        let requested = self
            .requested
            .as_deref()
            .filter(|v| super::revision::KNOWN.contains(v));
        own.or(self.revision.as_deref())
            .or(requested)
            .unwrap_or(super::revision::LATEST_WITH_INITIALIZE)
            .to_string()
    }
}

/// The client side's writer, one whole line at a time.
struct Client {
    out: Mutex<Box<dyn Write + Send>>,
    /// Set when a write failed: the client reads nothing more.
    broken: AtomicBool,
    /// True when the client's end of the output is closed (polled, without writing).
    closed: Box<dyn Fn() -> bool + Send + Sync>,
}

impl Client {
    fn send(&self, line: &[u8]) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        // A client that has gone away reads nothing more: there is no one left to tell.
        let sent = out
            .write_all(line)
            .and_then(|_| out.write_all(b"\n"))
            .and_then(|_| out.flush());
        if sent.is_err() {
            self.broken.store(true, Ordering::SeqCst);
        }
    }

    /// True once the client can no longer read what the proxy writes.
    fn gone(&self) -> bool {
        self.broken.load(Ordering::SeqCst) || (self.closed)()
    }
}

struct Shared {
    state: Mutex<State>,
    client: Client,
    opts: ProxyOptions,
    store: StoreConfig,
    local: Box<dyn Local>,
    warn: Box<dyn Fn(&str) + Send + Sync>,
    done: AtomicBool,
}

impl Shared {
    /// The store a result is written to now: the conversation's scope when the proxy follows
    /// bindings and a hook recorded one, else the configured scope.
    fn store(&self) -> StoreConfig {
        let mut store = self.store.clone();
        if self.opts.follow_bindings
            && let Some(scope) = crate::store::binding::resolve_for_self(&store.root)
        {
            store.scope = scope;
        }
        store
    }

    /// Runs `write` (which stores a result) with the store it should write to. Before a hook
    /// bound the conversation that is the proxy's own scope: the proxy then claims the harness
    /// process for it (`binding::claim`), so the hook that binds the conversation moves these
    /// results into the conversation's scope; one bound between the claim and the write is
    /// caught up here.
    fn storing<T>(&self, write: impl FnOnce(&StoreConfig) -> T) -> T {
        use crate::store::binding;
        let store = self.store();
        if !self.opts.follow_bindings || store.scope != self.store.scope {
            return write(&store);
        }
        let harness = binding::harness_chain().pop();
        if let Some(process) = &harness
            && let Err(e) = binding::claim(&store.root, process, &store.scope)
        {
            (self.warn)(&format!(
                "mcp proxy: cannot record results for the conversation's shell: {e}"
            ));
        }
        let written = write(&store);
        if harness.is_some()
            && let Some(bound) = binding::resolve_for_self(&store.root)
            && bound != store.scope
        {
            let target = StoreConfig {
                scope: bound,
                ..store.clone()
            };
            let _ = crate::store::Store::new(target).adopt(&store.scope);
        }
        written
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Fails every pending request with `code`/`message`.
    fn fail_pending(&self, code: i64, message: &str) {
        let ids: Vec<String> = {
            let mut state = self.state();
            let ids: Vec<String> = state.pending.drain().map(|(id, _)| id).collect();
            state.failed.extend(ids.iter().cloned());
            ids
        };
        for id in ids {
            self.client.send(&rpc::error_reply(&id, code, message));
        }
    }
}

/// The client's side of the proxy: its messages, where the answers go, and a probe that says
/// whether the client has closed its end of them (`|| false` when it cannot be known).
pub struct ClientSide<'a> {
    /// The client's messages.
    pub input: &'a mut dyn BufRead,
    /// The answers.
    pub output: Box<dyn Write + Send>,
    /// True once the client's end of `output` is closed.
    pub closed: Box<dyn Fn() -> bool + Send + Sync>,
}

/// Runs the proxy until the client closes its input. `warn` receives the messages meant for
/// a person (stderr). Errors only when the downstream cannot be started. Installs the
/// process's handlers for SIGTERM, SIGINT and SIGHUP ([`crate::wrap::catch_signals`]); one of
/// them ends the process by that signal once the downstream is stopped.
pub fn run(
    store: StoreConfig,
    opts: ProxyOptions,
    local: Box<dyn Local>,
    client: ClientSide<'_>,
    warn: Box<dyn Fn(&str) + Send + Sync>,
) -> Result<()> {
    #[cfg(feature = "http")]
    if let Some(remote) = opts.remote.clone() {
        return run_remote(store, opts, local, client, warn, remote);
    }
    let (program, args) = opts
        .command
        .split_first()
        .ok_or_else(|| Error::Usage("mcp proxy: name the downstream server after --".into()))?;
    crate::wrap::catch_signals();
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0);
    crate::wrap::die_with_parent(&mut command);
    let mut child = command.spawn().map_err(|e| {
        Error::Usage(format!(
            "mcp proxy: cannot start {}: {e}",
            crate::diag::echo(&program.to_string_lossy())
        ))
    })?;
    let group = child.id() as libc::pid_t;
    // Dropped when `run` returns, killing what is left of the group; a dead proxy's guardian
    // does the same.
    let guardian = crate::wrap::Guardian::start(group);
    let child_in = child.stdin.take().expect("piped");
    let child_out = child.stdout.take().expect("piped");
    let client_in = client.input;
    let shared = Arc::new(Shared::new(
        store,
        opts,
        local,
        client.output,
        client.closed,
        warn,
    ));
    let (to_downstream, queue) = mpsc::channel::<Vec<u8>>();
    thread::spawn(move || write_downstream(child_in, queue));
    let reader = {
        let shared = Arc::clone(&shared);
        thread::spawn(move || read_downstream(&shared, child_out))
    };
    {
        let shared = Arc::clone(&shared);
        thread::spawn(move || expire(&shared, Some(group)));
    }
    read_client(&shared, client_in, &to_downstream);
    let gone = drain(&shared);
    // From here the downstream's end of output is expected, not news.
    shared.done.store(true, Ordering::SeqCst);
    drop(to_downstream);
    if gone {
        // No one is waiting: the downstream gets the short sequence a signal gets.
        stop_group(
            group,
            Duration::from_millis(300),
            Duration::from_millis(300),
        );
        let _ = child.wait();
    } else {
        stop(&mut child);
    }
    // The reader ends at the downstream's end of output; a grandchild still holding that pipe
    // open must not keep the proxy alive, so it is waited for only briefly.
    let deadline = Instant::now() + Duration::from_secs(1);
    while !reader.is_finished() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(10));
    }
    drop(guardian);
    if crate::wrap::signalled() {
        // A signal that came while the downstream was being stopped still ends the proxy.
        die_by(crate::wrap::last_signal());
    }
    Ok(())
}

impl Shared {
    fn new(
        store: StoreConfig,
        opts: ProxyOptions,
        local: Box<dyn Local>,
        output: Box<dyn Write + Send>,
        closed: Box<dyn Fn() -> bool + Send + Sync>,
        warn: Box<dyn Fn(&str) + Send + Sync>,
    ) -> Shared {
        Shared {
            state: Mutex::new(State::default()),
            client: Client {
                out: Mutex::new(output),
                broken: AtomicBool::new(false),
                closed,
            },
            opts,
            store,
            local,
            warn,
            done: AtomicBool::new(false),
        }
    }
}

/// The client is done sending: lets the answers it is waiting for arrive (each bounded by
/// --timeout) while it can still read them. True when the client went away meanwhile.
fn drain(shared: &Shared) -> bool {
    loop {
        let gone = shared.client.gone();
        let state = shared.state();
        if gone || (state.pending.is_empty() && state.answering == 0) {
            return gone;
        }
        drop(state);
        thread::sleep(Duration::from_millis(10));
    }
}

/// [`run`] in front of a remote server: the same handling, with [`super::remote`] turning the
/// HTTP exchanges into the lines a child would write (through a pipe). Errors when the server
/// could never be reached (the client got a JSON-RPC error for each request meanwhile).
#[cfg(feature = "http")]
fn run_remote(
    store: StoreConfig,
    opts: ProxyOptions,
    local: Box<dyn Local>,
    client: ClientSide<'_>,
    warn: Box<dyn Fn(&str) + Send + Sync>,
    remote: super::remote::Remote,
) -> Result<()> {
    crate::wrap::catch_signals();
    let (answers, pipe) =
        std::io::pipe().map_err(|e| Error::stream("create the proxy's pipe", e))?;
    let timeout = opts.timeout;
    let shared = Arc::new(Shared::new(
        store,
        opts,
        local,
        client.output,
        client.closed,
        warn,
    ));
    let (to_downstream, queue) = mpsc::channel::<Vec<u8>>();
    let revision = {
        let shared = Arc::clone(&shared);
        Box::new(move || shared.state().revision.clone())
    };
    let warn = {
        let shared = Arc::clone(&shared);
        Box::new(move |m: &str| (shared.warn)(m))
    };
    let running = remote.start(timeout, queue, pipe, revision, warn);
    let reader = {
        let shared = Arc::clone(&shared);
        thread::spawn(move || read_downstream(&shared, answers))
    };
    {
        let shared = Arc::clone(&shared);
        thread::spawn(move || expire(&shared, None));
    }
    read_client(&shared, client.input, &to_downstream);
    drain(&shared);
    shared.done.store(true, Ordering::SeqCst);
    drop(to_downstream);
    let unreachable = running.finish();
    let deadline = Instant::now() + Duration::from_millis(200);
    while !reader.is_finished() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(10));
    }
    if crate::wrap::signalled() {
        die_by(crate::wrap::last_signal());
    }
    match unreachable {
        Some(why) => Err(Error::Usage(format!("mcp proxy: {why}"))),
        None => Ok(()),
    }
}

/// Reads the client's messages to the end of its input.
fn read_client(shared: &Shared, input: &mut dyn BufRead, to_downstream: &mpsc::Sender<Vec<u8>>) {
    loop {
        let line = match rpc::read_line(input) {
            Ok(Line::Message(line)) => line,
            Ok(Line::TooLong(n)) => {
                (shared.warn)(&format!(
                    "mcp proxy: skipped a client message of {n} bytes (longer than {} bytes)",
                    rpc::MAX_LINE
                ));
                continue;
            }
            Ok(Line::End) | Err(_) => return,
        };
        let Some(head) = Head::parse(&line) else {
            // Not ours to judge: the downstream answers it (with a parse error).
            forward(shared, to_downstream, None, line);
            continue;
        };
        if !head.is_request() {
            forward(shared, to_downstream, None, line);
            continue;
        }
        let id = rpc::id_key(head.id.expect("a request has an id"));
        let method = head.method.as_deref().unwrap_or("");
        let params: Value = head
            .params
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or(Value::Null);
        let own = super::revision::of_request(&params).map(str::to_string);
        if method == "initialize" {
            shared.state().requested = params["protocolVersion"].as_str().map(str::to_string);
        }
        let revision = shared.state().revision_for(own.as_deref());
        let kind = match method {
            "initialize" => Kind::Initialize,
            "tools/call" => {
                let tool = params["name"].as_str().unwrap_or("").to_string();
                if let Some(answer) = shared.local.call_tool(&tool, &params["arguments"]) {
                    let answer = answer.map(|mut result| {
                        super::revision::call_result(&mut result, &revision);
                        super::revision::complete(&mut result, &revision, false);
                        result
                    });
                    reply(shared, &id, answer);
                    continue;
                }
                Kind::ToolsCall { tool }
            }
            "resources/read" if params["uri"].as_str().is_some_and(super::is_spill_uri) => {
                let answer = shared.local.read_resource(&params);
                let answer = match answer {
                    Ok(mut result) => {
                        super::revision::read_result(&mut result, &revision);
                        super::revision::complete(&mut result, &revision, true);
                        Ok(result)
                    }
                    // 2026-07-28 names an unknown resource with invalid-params, as rmcp does.
                    Err((code::RESOURCE_NOT_FOUND, message))
                        if super::revision::at_least(&revision, super::revision::NO_INITIALIZE) =>
                    {
                        Err((code::INVALID_PARAMS, message))
                    }
                    Err(e) => Err(e),
                };
                reply(shared, &id, answer);
                continue;
            }
            "resources/read" => Kind::ResourcesRead,
            "tools/list" => Kind::ToolsList {
                first_page: params.get("cursor").is_none_or(Value::is_null),
            },
            _ => Kind::Other,
        };
        forward(shared, to_downstream, Some((id, kind, own)), line);
    }
}

fn reply(shared: &Shared, id: &str, answer: std::result::Result<Value, (i64, String)>) {
    let line = match answer {
        Ok(result) => rpc::result_reply(id, &result),
        Err((code, message)) => rpc::error_reply(id, code, &message),
    };
    shared.client.send(&line);
}

/// Sends a line to the downstream, remembering a request's kind for its answer.
fn forward(
    shared: &Shared,
    to_downstream: &mpsc::Sender<Vec<u8>>,
    request: Option<(String, Kind, Option<String>)>,
    line: Vec<u8>,
) {
    let mut state = shared.state();
    if let Some(why) = state.gone.clone() {
        drop(state);
        if let Some((id, _, _)) = request {
            shared
                .client
                .send(&rpc::error_reply(&id, code::CONNECTION_CLOSED, &why));
        }
        return;
    }
    if let Some((id, kind, revision)) = request {
        state.failed.remove(&id);
        let deadline = Instant::now() + shared.opts.timeout;
        state.pending.insert(
            id,
            Pending {
                kind,
                revision,
                deadline,
            },
        );
    }
    drop(state);
    // A closed queue means the writer saw the downstream's input close: the reader reports it.
    let _ = to_downstream.send(line);
}

fn write_downstream(mut input: std::process::ChildStdin, queue: mpsc::Receiver<Vec<u8>>) {
    for mut line in queue {
        line.push(b'\n');
        if input.write_all(&line).and_then(|_| input.flush()).is_err() {
            return;
        }
    }
}

/// Reads the downstream's messages until its output ends.
fn read_downstream(shared: &Shared, output: impl std::io::Read) {
    let mut output = BufReader::with_capacity(1 << 20, output);
    loop {
        let line = match rpc::read_message(&mut output, SPOOL_AT, &shared.store.root) {
            Ok(Message::Line(line)) => line,
            Ok(Message::TooLong(n)) => {
                garbage(
                    shared,
                    &format!("a line of {n} bytes (the limit is {})", rpc::MAX_LINE),
                );
                continue;
            }
            Ok(Message::End) | Err(_) => break,
        };
        let Some(head) = Head::parse(&line) else {
            garbage(shared, &format!("\"{}\"", rpc::excerpt(&line)));
            continue;
        };
        if !head.is_response() {
            match (&head.method, head.id) {
                (Some(method), None) if line.len() as u64 > shared.opts.max_inline => {
                    let replaced = notification(shared, method, head.params);
                    shared.client.send(replaced.as_deref().unwrap_or(&line));
                }
                _ => shared.client.send(&line),
            }
            continue;
        }
        let id = rpc::id_key(head.id.expect("a response has an id"));
        let pending = {
            let mut state = shared.state();
            match state.pending.remove(&id) {
                Some(p) => {
                    state.answering += 1;
                    let revision = state.revision_for(p.revision.as_deref());
                    Some((p.kind, revision))
                }
                None if state.failed.remove(&id) => continue,
                None => None,
            }
        };
        let answered = pending.is_some();
        let line = match pending {
            Some((Kind::Initialize, _)) => {
                // The downstream chose the revision; the proxy's own answers follow it.
                if let Some(version) = head.result.and_then(negotiated) {
                    shared.state().revision = Some(version);
                }
                line
            }
            Some((Kind::ToolsCall { tool }, revision)) if head.result.is_some() => {
                tool_result(shared, line, &tool, &revision)
            }
            Some((Kind::ResourcesRead, _))
                if head.result.is_some() && line.len() as u64 > shared.opts.max_inline =>
            {
                resource_contents(shared, line)
            }
            Some((Kind::ToolsList { first_page: true }, revision)) if head.result.is_some() => {
                tools_list(shared, line, &revision)
            }
            _ => line,
        };
        shared.client.send(&line);
        if answered {
            shared.state().answering -= 1;
        }
    }
    let why = "the downstream MCP server closed its output (it exited or crashed)".to_string();
    shared.state().gone = Some(why.clone());
    if !shared.done.load(Ordering::SeqCst) {
        (shared.warn)(&format!("mcp proxy: {why}"));
    }
    shared.fail_pending(code::CONNECTION_CLOSED, &why);
}

fn garbage(shared: &Shared, what: &str) {
    (shared.warn)(&format!(
        "mcp proxy: the downstream wrote {what}, which is not a JSON-RPC message; the requests waiting for an answer get an error"
    ));
    shared.fail_pending(
        code::INTERNAL_ERROR,
        "the downstream MCP server wrote output that is not JSON-RPC, so its answer to this request is unknown",
    );
}

/// The `protocolVersion` of an `initialize` result.
fn negotiated(result: &serde_json::value::RawValue) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Init {
        #[serde(rename = "protocolVersion")]
        protocol_version: String,
    }
    serde_json::from_str::<Init>(result.get())
        .ok()
        .map(|i| i.protocol_version)
}

/// A notification larger than `--max-inline`: its params stored, and a log message naming them
/// in its place (`None`: it could not be stored, and passes through as it is).
fn notification(
    shared: &Shared,
    method: &str,
    params: Option<&serde_json::value::RawValue>,
) -> Option<Vec<u8>> {
    let opts = WrapOptions {
        max_inline: shared.opts.max_inline,
        label: Some(method.to_string()),
        ..WrapOptions::default()
    };
    let params = params.map_or("null", |p| p.get());
    match shared.storing(|store| super::spill::notification(method, params, &opts, store)) {
        Ok(line) => Some(line),
        Err(e) => {
            (shared.warn)(&format!(
                "mcp proxy: passed a {} notification through unchanged: {e}",
                crate::diag::echo(method)
            ));
            None
        }
    }
}

/// A `tools/call` answer: small ones byte for byte, oversized parts stored.
fn tool_result(shared: &Shared, line: Bytes, tool: &str, revision: &str) -> Bytes {
    if line.len() as u64 <= shared.opts.max_inline {
        return line;
    }
    let opts = WrapOptions {
        max_inline: shared.opts.max_inline,
        label: Some(tool.to_string()),
        ..WrapOptions::default()
    };
    // A revision before 2025-06-18 has no resource_link block: the envelope names the ref.
    let links = super::revision::at_least(revision, "2025-06-18");
    match shared.storing(|store| super::spill::replace(&line, &opts, store, true, links)) {
        Ok(Some(replaced)) => Bytes::Heap(replaced),
        Ok(None) => line,
        Err(e) => {
            (shared.warn)(&format!(
                "mcp proxy: passed a result of {tool} through unchanged: {e}"
            ));
            line
        }
    }
}

/// A large `resources/read` answer of the downstream's own resources: text contents over
/// `--max-inline` stored, the rest byte for byte.
fn resource_contents(shared: &Shared, line: Bytes) -> Bytes {
    let opts = WrapOptions {
        max_inline: shared.opts.max_inline,
        label: Some("resources/read".to_string()),
        ..WrapOptions::default()
    };
    match shared.storing(|store| super::spill::replace_contents(&line, &opts, store)) {
        Ok(Some(replaced)) => Bytes::Heap(replaced),
        Ok(None) => line,
        Err(e) => {
            (shared.warn)(&format!(
                "mcp proxy: passed a resources/read result through unchanged: {e}"
            ));
            line
        }
    }
}

/// The first page of `tools/list`, with spill's tools added and output schemas dropped.
fn tools_list(shared: &Shared, line: Bytes, revision: &str) -> Bytes {
    let Ok(mut message) = serde_json::from_slice::<Value>(&line) else {
        return line;
    };
    let Some(tools) = message["result"]["tools"].as_array_mut() else {
        return line;
    };
    for tool in tools.iter_mut() {
        if let Some(tool) = tool.as_object_mut() {
            tool.remove("outputSchema");
        }
    }
    tools.extend(shared.local.tools().into_iter().map(|mut tool| {
        super::revision::tool(&mut tool, revision);
        tool
    }));
    serde_json::to_vec(&message).map_or(line, Bytes::Heap)
}

/// Fails requests past their deadline, until the proxy is done; on SIGTERM, SIGINT or SIGHUP,
/// fails every pending request, stops the downstream's group and ends the process by that
/// signal.
fn expire(shared: &Shared, group: Option<libc::pid_t>) {
    while !shared.done.load(Ordering::SeqCst) {
        thread::sleep(Duration::from_millis(20));
        if crate::wrap::signalled() {
            let signal = crate::wrap::last_signal();
            shared.fail_pending(
                code::CONNECTION_CLOSED,
                &format!("spill mcp proxy was stopped by signal {signal}"),
            );
            if let Some(group) = group {
                stop_group(
                    group,
                    Duration::from_millis(200),
                    Duration::from_millis(300),
                );
            }
            die_by(signal);
        }
        let now = Instant::now();
        let expired: Vec<String> = {
            let mut state = shared.state();
            let ids: Vec<String> = state
                .pending
                .iter()
                .filter(|(_, p)| p.deadline <= now)
                .map(|(id, _)| id.clone())
                .collect();
            for id in &ids {
                state.pending.remove(id);
                state.failed.insert(id.clone());
            }
            ids
        };
        for id in expired {
            let message = format!(
                "the downstream MCP server did not answer within {} (--timeout)",
                crate::limits::human_duration(shared.opts.timeout)
            );
            shared
                .client
                .send(&rpc::error_reply(&id, code::REQUEST_TIMEOUT, &message));
        }
    }
}

/// Stops the downstream's process group: its input is closed already or about to be; after
/// `grace`, SIGTERM to the group, after `term` more, SIGKILL. Reaps the downstream (the leader)
/// as it goes; the guardian kills whatever is left of the group when the proxy ends.
fn stop_group(group: libc::pid_t, grace: Duration, term: Duration) {
    let reaped = |within: Duration| {
        let deadline = Instant::now() + within;
        loop {
            let mut status = 0;
            // SAFETY: waitpid on our own child, without blocking.
            match unsafe { libc::waitpid(group, &mut status, libc::WNOHANG) } {
                0 if Instant::now() < deadline => thread::sleep(Duration::from_millis(10)),
                0 => return false,
                _ => return true,
            }
        }
    };
    if reaped(grace) {
        // SAFETY: kill(2) of the group; an empty group only makes it fail with ESRCH.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        return;
    }
    // SAFETY: as above.
    unsafe { libc::kill(-group, libc::SIGTERM) };
    reaped(term);
    // SAFETY: as above.
    unsafe { libc::kill(-group, libc::SIGKILL) };
}

/// Ends the process by `signal` (its default action), as if the handler had never caught it.
fn die_by(signal: i32) -> ! {
    // SAFETY: restoring the default disposition and raising the signal in this process.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
    // Not reached for SIGTERM, SIGINT and SIGHUP, whose default action ends the process.
    loop {
        thread::sleep(Duration::from_secs(1));
    }
}

/// Waits for the downstream to exit after its input closed: 2 s, then SIGTERM, then 2 s more,
/// then SIGKILL.
fn stop(child: &mut Child) {
    let exited = |child: &mut Child, within: Duration| {
        let deadline = Instant::now() + within;
        loop {
            match child.try_wait() {
                Ok(Some(_)) | Err(_) => return true,
                Ok(None) if Instant::now() >= deadline => return false,
                Ok(None) => thread::sleep(Duration::from_millis(10)),
            }
        }
    };
    if exited(child, Duration::from_secs(2)) {
        return;
    }
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) of our own child's process group, whose leader is not reaped yet.
        unsafe { libc::kill(-pid, libc::SIGTERM) };
    }
    if !exited(child, Duration::from_secs(2)) {
        let _ = child.kill();
        let _ = child.wait();
    }
}
