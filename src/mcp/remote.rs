//! `spill mcp proxy --url URL`: the proxy's downstream is a remote MCP server on the Streamable
//! HTTP transport instead of a child on stdio.
//!
//! The proxy's handling of messages ([`super::proxy`]) is unchanged: this module turns HTTP
//! into the newline-delimited stream a child would write. Each client line is POSTed to the URL
//! (`Accept: application/json, text/event-stream`, the session's `Mcp-Session-Id` and, once
//! negotiated, `MCP-Protocol-Version`, plus the user's `--header`s and nothing else of
//! spill's), each request on a thread of its own so a slow tool never holds up the others
//! (notifications and responses in order, before what follows them). What comes
//! back is written, one message a line, into a pipe the proxy reads as it reads a child's
//! output: a JSON body, or each event of an SSE body, streamed (raw line breaks, which JSON
//! allows only as whitespace, become spaces), so a large message is never held in memory here
//! and reaches the proxy's spooling and replacement like any other. After `initialize`, a GET
//! opens the server's own stream (its requests and notifications), when it offers one. When
//! the client is done, the session is ended with a DELETE.
//!
//! Faults are answers: a request that cannot be sent, or that gets an HTTP error, is answered
//! with a JSON-RPC error naming the server (scheme, host and path only: a query may hold a
//! key) and the status; the `--timeout` of the proxy bounds every request, and connecting is
//! bounded by [`CONNECT_TIMEOUT`]. Header values are never printed.

use std::io::{self, BufRead, BufReader, PipeWriter, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Duration;

use super::rpc::{self, Head, code};

/// How long connecting to the server may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Headers that belong to the transport: `--header` cannot set them.
const TRANSPORT_HEADERS: &[&str] = &[
    "accept",
    "connection",
    "content-length",
    "content-type",
    "host",
    "last-event-id",
    "mcp-protocol-version",
    "mcp-session-id",
    "transfer-encoding",
];

/// The remote server and what to send it.
#[derive(Clone)]
pub struct Remote {
    /// The endpoint (`http://` or `https://`).
    pub url: String,
    /// The user's headers, values already expanded (never printed).
    pub headers: Vec<(String, String)>,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        write!(f, "Remote({}, headers {names:?})", shown(&self.url))
    }
}

impl Remote {
    /// A remote at `url` with these `NAME: VALUE` headers; `${VAR}` in a value is replaced by
    /// the environment variable's value (`env` looks it up). The error names the header or the
    /// variable, never a value.
    pub fn new(
        url: &str,
        lines: &[String],
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Remote, String> {
        let parsed: ureq::http::Uri = url
            .parse()
            .map_err(|_| format!("--url: \"{}\" is not a URL", crate::diag::echo(url)))?;
        if !matches!(parsed.scheme_str(), Some("http" | "https")) || parsed.host().is_none() {
            return Err(format!(
                "--url: \"{}\" is not an http:// or https:// URL",
                crate::diag::echo(url)
            ));
        }
        let mut headers = Vec::new();
        for line in lines {
            headers.push(header(line, env)?);
        }
        Ok(Remote {
            url: url.to_string(),
            headers,
        })
    }
}

/// Parses one `NAME: VALUE` header.
fn header(line: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<(String, String), String> {
    let Some((name, value)) = line.split_once(':') else {
        // Not echoed: a header line is where a token is.
        return Err("--header: expected NAME: VALUE, got a line without a colon".to_string());
    };
    let name = name.trim();
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Err(format!(
            "--header: \"{}\" is not a header name",
            crate::diag::echo(name)
        ));
    }
    if TRANSPORT_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
        return Err(format!(
            "--header: {name} belongs to the transport and is set by the proxy"
        ));
    }
    let mut expanded = String::new();
    let mut rest = value.trim();
    while let Some(start) = rest.find("${") {
        expanded.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("--header {name}: an unclosed ${{ in its value"))?;
        let var = &after[..end];
        let found = env(var).ok_or_else(|| {
            format!(
                "--header {name}: the environment variable {} is not set",
                crate::diag::echo(var)
            )
        })?;
        expanded.push_str(&found);
        rest = &after[end + 1..];
    }
    expanded.push_str(rest);
    if expanded
        .bytes()
        .any(|b| b < 0x20 && b != b'\t' || b == 0x7f)
    {
        return Err(format!(
            "--header {name}: its value holds a control character"
        ));
    }
    Ok((name.to_string(), expanded))
}

/// Reads `--headers-file`: one `NAME: VALUE` a line, blank lines and `#` comments skipped.
pub fn header_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The URL as it may be printed: scheme, host, port and path (no user, no query).
pub fn shown(url: &str) -> String {
    match url.parse::<ureq::http::Uri>() {
        Ok(uri) => format!(
            "{}://{}{}",
            uri.scheme_str().unwrap_or("http"),
            uri.authority()
                .map(|a| a.as_str().rsplit('@').next().unwrap_or("").to_string())
                .unwrap_or_default(),
            uri.path()
        ),
        Err(_) => "the --url".to_string(),
    }
}

/// The connection to the server, shared by the threads that talk to it.
struct Link {
    remote: Remote,
    shown: String,
    /// Requests: bounded by the proxy's `--timeout`.
    agent: ureq::Agent,
    /// The server's stream (GET): as long as the server keeps it.
    stream_agent: ureq::Agent,
    session: Mutex<Option<String>>,
    /// The proxy's reading end gets one message a line.
    out: Mutex<PipeWriter>,
    /// The revision negotiated (the proxy's reading of the `initialize` answer).
    revision: Box<dyn Fn() -> Option<String> + Send + Sync>,
    warn: Box<dyn Fn(&str) + Send + Sync>,
    /// Set by the first HTTP answer of any status.
    reached: AtomicBool,
    /// Why the server could not be reached, while it never was.
    unreachable: Mutex<Option<String>>,
    streaming: AtomicBool,
}

/// The remote side, running: [`Remote::start`]'s result.
pub struct Running {
    link: Arc<Link>,
    dispatcher: thread::JoinHandle<()>,
}

impl Running {
    /// Waits for the queue's end (the client is done), ends the session (DELETE) and says why
    /// the server could never be reached, if it never was.
    pub fn finish(self) -> Option<String> {
        let _ = self.dispatcher.join();
        let session = self
            .link
            .session
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(session) = session {
            let mut delete = self
                .link
                .agent
                .delete(&self.link.remote.url)
                .header("Mcp-Session-Id", &session);
            for (name, value) in &self.link.remote.headers {
                delete = delete.header(name, value);
            }
            if let Some(revision) = (self.link.revision)() {
                delete = delete.header("MCP-Protocol-Version", &revision);
            }
            // A server that ends sessions itself answers 405: nothing to do either way.
            let _ = delete.call();
        }
        if self.link.reached.load(Ordering::SeqCst) {
            return None;
        }
        self.link
            .unreachable
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl Remote {
    /// Starts sending the lines of `queue` to the server, answers going to `out` one a line.
    /// `timeout` bounds each request; `revision` reads the negotiated revision.
    pub fn start(
        self,
        timeout: Duration,
        queue: mpsc::Receiver<Vec<u8>>,
        out: PipeWriter,
        revision: Box<dyn Fn() -> Option<String> + Send + Sync>,
        warn: Box<dyn Fn(&str) + Send + Sync>,
    ) -> Running {
        let agent = |global: Option<Duration>| -> ureq::Agent {
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .max_redirects(0)
                .timeout_connect(Some(CONNECT_TIMEOUT))
                .timeout_global(global)
                .user_agent(format!("spill/{}", env!("CARGO_PKG_VERSION")))
                .build()
                .into()
        };
        let link = Arc::new(Link {
            shown: shown(&self.url),
            agent: agent(Some(timeout + Duration::from_secs(1))),
            stream_agent: agent(None),
            remote: self,
            session: Mutex::new(None),
            out: Mutex::new(out),
            revision,
            warn,
            reached: AtomicBool::new(false),
            unreachable: Mutex::new(None),
            streaming: AtomicBool::new(false),
        });
        let dispatcher = {
            let link = Arc::clone(&link);
            thread::spawn(move || {
                for line in queue {
                    // A notification or a response is sent before anything that follows it
                    // (`notifications/initialized` before the first request, a cancellation
                    // after its request): its answer is an empty 202 at once. A request goes
                    // on a thread of its own, since its answer may take as long as the tool.
                    let request = Head::parse(&line).is_some_and(|h| h.is_request());
                    if request {
                        let link = Arc::clone(&link);
                        thread::spawn(move || post(&link, &line));
                    } else {
                        post(&link, &line);
                    }
                }
            })
        };
        Running { link, dispatcher }
    }
}

/// Sends one client message and passes on what comes back.
fn post(link: &Arc<Link>, line: &[u8]) {
    // The id of a request, for an error in its place; `initialize` carries no revision header.
    let (request, initialize) = match Head::parse(line) {
        Some(head) if head.is_request() => (
            head.id.map(rpc::id_key),
            head.method.as_deref() == Some("initialize"),
        ),
        _ => (None, false),
    };
    let mut post = link
        .agent
        .post(&link.remote.url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json");
    if let Some(session) = link
        .session
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
    {
        post = post.header("Mcp-Session-Id", session);
    }
    if !initialize && let Some(revision) = (link.revision)() {
        post = post.header("MCP-Protocol-Version", revision);
    }
    for (name, value) in &link.remote.headers {
        post = post.header(name, value);
    }
    let response = match post.send(line) {
        Ok(response) => response,
        Err(e) => {
            let why = format!("cannot reach the MCP server at {}: {e}", link.shown);
            if !link.reached.load(Ordering::SeqCst) {
                *link.unreachable.lock().unwrap_or_else(|e| e.into_inner()) = Some(why.clone());
            }
            fault(link, request.as_deref(), &why);
            return;
        }
    };
    link.reached.store(true, Ordering::SeqCst);
    if let Some(session) = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
    {
        *link.session.lock().unwrap_or_else(|e| e.into_inner()) = Some(session.to_string());
    }
    let status = response.status();
    let kind = content_type(response.headers());
    let mut body = BufReader::with_capacity(1 << 16, response.into_body().into_reader());
    if status.is_success() {
        let copied = match kind.as_str() {
            "text/event-stream" => events(&mut body, &link.out),
            "application/json" => json(&mut body, &link.out),
            // 202 Accepted for a notification or a response: nothing comes back.
            _ => Ok(false),
        };
        match copied {
            Ok(false) if request.is_some() && !matches!(kind.as_str(), "text/event-stream") => {
                fault(
                    link,
                    request.as_deref(),
                    &format!(
                        "the MCP server at {} answered HTTP {} without a JSON-RPC message",
                        link.shown,
                        status.as_u16()
                    ),
                );
            }
            Ok(_) => {}
            Err(e) => (link.warn)(&format!(
                "mcp proxy: the answer from {} broke off: {e}",
                link.shown
            )),
        }
        if !initialize {
            open_stream(link);
        }
        return;
    }
    // An error status: a JSON-RPC error in the body is the server's own answer.
    let mut head = Vec::new();
    let _ = body.by_ref().take(64 << 10).read_to_end(&mut head);
    if kind == "application/json"
        && let Some(parsed) = Head::parse(&head)
        && parsed.is_response()
    {
        let head: Vec<u8> = head
            .iter()
            .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
            .collect();
        send_line(&link.out, &head);
        return;
    }
    let mut why = format!("the MCP server at {} answered HTTP {}", link.shown, status);
    if status == 401 || status == 403 {
        why.push_str(
            " (give it its credentials with --header, e.g. 'Authorization: Bearer ${TOKEN}')",
        );
    } else if !head.is_empty() {
        why.push_str(&format!(": {}", rpc::excerpt(&head)));
    }
    fault(link, request.as_deref(), &why);
}

/// The server's own stream, opened once after the session started: its requests and
/// notifications arrive there. A server without one answers 405.
fn open_stream(link: &Arc<Link>) {
    if link
        .session
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .is_none()
        || link.streaming.swap(true, Ordering::SeqCst)
    {
        return;
    }
    let link = Arc::clone(link);
    thread::spawn(move || {
        let session = link
            .session
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let mut get = link
            .stream_agent
            .get(&link.remote.url)
            .header("Accept", "text/event-stream");
        if let Some(session) = session {
            get = get.header("Mcp-Session-Id", session);
        }
        if let Some(revision) = (link.revision)() {
            get = get.header("MCP-Protocol-Version", revision);
        }
        for (name, value) in &link.remote.headers {
            get = get.header(name, value);
        }
        let Ok(response) = get.call() else { return };
        if !response.status().is_success()
            || content_type(response.headers()) != "text/event-stream"
        {
            return;
        }
        let mut body = BufReader::with_capacity(1 << 16, response.into_body().into_reader());
        let _ = events(&mut body, &link.out);
    });
}

/// An error answer in place of the request `id`'s, or a warning for a message without one.
fn fault(link: &Link, id: Option<&str>, why: &str) {
    match id {
        Some(id) => send_line(
            &link.out,
            &rpc::error_reply(id, code::CONNECTION_CLOSED, why),
        ),
        None => (link.warn)(&format!("mcp proxy: {why}")),
    }
}

fn content_type(headers: &ureq::http::HeaderMap) -> String {
    headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

fn send_line(out: &Mutex<PipeWriter>, line: &[u8]) {
    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
    // The proxy's reader is gone only when the proxy is ending.
    let _ = out.write_all(line).and_then(|_| out.write_all(b"\n"));
}

/// Writes `bytes` with raw line breaks as spaces (whitespace to JSON, which escapes them in
/// strings).
fn write_flat(out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    let mut rest = bytes;
    while let Some(at) = memchr::memchr2(b'\n', b'\r', rest) {
        out.write_all(&rest[..at])?;
        out.write_all(b" ")?;
        rest = &rest[at + 1..];
    }
    out.write_all(rest)
}

/// A JSON body, as one line. True when it held a message (anything but whitespace).
fn json(body: &mut dyn BufRead, out: &Mutex<PipeWriter>) -> io::Result<bool> {
    let mut writer = None;
    loop {
        let chunk = body.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        let n = chunk.len();
        let chunk = match &writer {
            Some(_) => chunk,
            None => match chunk.iter().position(|b| !b.is_ascii_whitespace()) {
                Some(start) => &chunk[start..],
                None => {
                    body.consume(n);
                    continue;
                }
            },
        };
        let w = writer.get_or_insert_with(|| out.lock().unwrap_or_else(|e| e.into_inner()));
        write_flat(&mut **w, chunk)?;
        body.consume(n);
    }
    match writer {
        Some(mut w) => {
            w.write_all(b"\n")?;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// An SSE body: the `data` of each event as one line (its data lines joined by a space, as
/// the line break SSE joins them with is whitespace to JSON); events without data (priming
/// events, keep-alive comments) are skipped, other fields ignored. True when it held an event.
fn events(body: &mut dyn BufRead, out: &Mutex<PipeWriter>) -> io::Result<bool> {
    let mut writer: Option<std::sync::MutexGuard<'_, PipeWriter>> = None;
    let mut any = false;
    loop {
        let mut name = Vec::new();
        let end = field_name(body, &mut name)?;
        match end {
            None => break,
            Some(b'\n') => {
                if name.is_empty()
                    && let Some(mut w) = writer.take()
                {
                    w.write_all(b"\n")?;
                    any = true;
                }
            }
            Some(_) if name == b"data" => {
                if body.fill_buf()?.first() == Some(&b' ') {
                    body.consume(1);
                }
                if matches!(body.fill_buf()?.first(), None | Some(b'\n' | b'\r')) {
                    skip_line(body)?;
                    continue;
                }
                match &mut writer {
                    Some(w) => w.write_all(b" ")?,
                    None => writer = Some(out.lock().unwrap_or_else(|e| e.into_inner())),
                }
                let w = writer.as_mut().expect("opened above");
                copy_line(body, &mut **w)?;
            }
            Some(_) => skip_line(body)?,
        }
    }
    // An event the stream cut short still ends its line: the proxy sees it is not JSON-RPC.
    if let Some(mut w) = writer.take() {
        w.write_all(b"\n")?;
        any = true;
    }
    Ok(any)
}

/// Reads a field's name up to its `:` (returned as `Some(b':')`) or the end of its line
/// (`Some(b'\n')`, a `\r` before it dropped); `None` at the end of the stream. A name longer
/// than 64 bytes is cut there (it names no field SSE defines).
fn field_name(body: &mut dyn BufRead, name: &mut Vec<u8>) -> io::Result<Option<u8>> {
    loop {
        let chunk = body.fill_buf()?;
        if chunk.is_empty() {
            return Ok(if name.is_empty() { None } else { Some(b'\n') });
        }
        match memchr::memchr2(b':', b'\n', chunk) {
            Some(at) => {
                let end = chunk[at];
                if name.len() < 64 {
                    name.extend_from_slice(&chunk[..at.min(64)]);
                }
                body.consume(at + 1);
                if end == b'\n' && name.last() == Some(&b'\r') {
                    name.pop();
                }
                return Ok(Some(end));
            }
            None => {
                let n = chunk.len();
                if name.len() < 64 {
                    name.extend_from_slice(&chunk[..n.min(64)]);
                }
                body.consume(n);
            }
        }
    }
}

/// Copies the rest of the line (without its line break, `\r` as a space) to `out`.
fn copy_line(body: &mut dyn BufRead, out: &mut dyn Write) -> io::Result<()> {
    loop {
        let chunk = body.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        match memchr::memchr(b'\n', chunk) {
            Some(at) => {
                write_flat(out, &chunk[..at])?;
                body.consume(at + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                write_flat(out, chunk)?;
                body.consume(n);
            }
        }
    }
}

fn skip_line(body: &mut dyn BufRead) -> io::Result<()> {
    copy_line(body, &mut io::sink())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(
        f: fn(&mut dyn BufRead, &Mutex<PipeWriter>) -> io::Result<bool>,
        input: &[u8],
    ) -> (bool, String) {
        let (mut reader, writer) = io::pipe().unwrap();
        let out = Mutex::new(writer);
        let mut body = BufReader::with_capacity(7, input);
        let any = f(&mut body, &out).unwrap();
        drop(out);
        let mut text = String::new();
        reader.read_to_string(&mut text).unwrap();
        (any, text)
    }

    #[test]
    fn sse_events_become_lines() {
        let stream = b": keep-alive\n\nid: 1\nretry: 3000\ndata:\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\r\ndata:  \"id\":1,\"result\":{}}\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n";
        let (any, text) = through(events, stream);
        assert!(any);
        assert_eq!(
            text,
            "{\"jsonrpc\":\"2.0\",   \"id\":1,\"result\":{}} \n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n"
        );
        for line in text.lines() {
            serde_json::from_str::<serde_json::Value>(line).unwrap();
        }
        assert_eq!(
            through(events, b"id: 0\ndata:\n\n: ping\n\n"),
            (false, String::new())
        );
    }

    #[test]
    fn json_bodies_become_one_line() {
        let (any, text) = through(
            json,
            b"\n  {\n  \"jsonrpc\": \"2.0\",\r\n \"id\": \"a\\nb\"\n}\n",
        );
        assert!(any);
        assert_eq!(text.lines().count(), 1);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["id"], "a\nb");
        assert_eq!(through(json, b" \n "), (false, String::new()));
    }

    #[test]
    fn headers_expand_the_environment_and_never_echo_values() {
        let env = |name: &str| (name == "TOKEN").then(|| "s3cret".to_string());
        let remote = Remote::new(
            "https://user:pw@mcp.example.com:8443/mcp?key=k1",
            &[
                "Authorization: Bearer ${TOKEN}".into(),
                "X-Team:  a${TOKEN}b ".into(),
            ],
            &env,
        )
        .unwrap();
        assert_eq!(
            remote.headers,
            [
                ("Authorization".to_string(), "Bearer s3cret".to_string()),
                ("X-Team".to_string(), "as3cretb".to_string())
            ]
        );
        let shown = format!("{remote:?}");
        assert!(
            !shown.contains("s3cret") && !shown.contains("pw") && !shown.contains("k1"),
            "{shown}"
        );
        assert_eq!(
            shown,
            "Remote(https://mcp.example.com:8443/mcp, headers [\"Authorization\", \"X-Team\"])"
        );
        let err = Remote::new(
            "http://h/mcp",
            &["Authorization: Bearer ${NOPE}".into()],
            &env,
        )
        .unwrap_err();
        assert!(err.contains("NOPE") && err.contains("not set"), "{err}");
        assert!(Remote::new("http://h/mcp", &["Content-Type: text/plain".into()], &env).is_err());
        assert!(Remote::new("http://h/mcp", &["no colon".into()], &env).is_err());
        assert!(Remote::new("http://h/mcp", &["X: a\u{1}b".into()], &env).is_err());
        assert!(Remote::new("ftp://h/mcp", &[], &env).is_err());
        assert!(Remote::new("not a url", &[], &env).is_err());
    }
}
