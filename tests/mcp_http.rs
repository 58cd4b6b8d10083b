//! `spill mcp --http` through the real binary: a raw HTTP/1.1 client over a TCP socket (no
//! client library), so every status, header and body the tests check is the server's own.
//! The SDK clients and the conformance suite drive it in `tests/mcp/run.py`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::Child;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Sandbox, spilled};

/// A running `spill mcp --http`; killed (SIGKILL) when dropped.
struct Server {
    child: Child,
    /// `127.0.0.1:PORT`.
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `spill mcp --http 127.0.0.1:0 EXTRA…` in scope `web` and reads the port it chose
/// from its first line on stderr.
fn serve(sb: &Sandbox, extra: &[&str], env: &[(&str, &str)]) -> Server {
    let mut args = vec!["mcp", "--http", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    let mut cmd = sb.cmd(&args).env("SPILL_SCOPE", "web");
    for (k, v) in env {
        cmd = cmd.env(k, v);
    }
    let mut child = cmd.spawn_piped();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("spill: note: mcp: serving http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("no address on stderr: {line:?}"))
        .to_string();
    Server { child, addr }
}

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC messages of the body: the body itself (JSON) or its SSE events' data.
    fn messages(&self) -> Vec<Value> {
        let text = String::from_utf8_lossy(&self.body);
        if self
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
        {
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(|d| serde_json::from_str(d).unwrap())
                .collect()
        } else {
            vec![serde_json::from_str(&text).unwrap()]
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// One HTTP/1.1 exchange (`Connection: close`), the body de-chunked.
fn exchange(addr: &str, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut head = format!(
        "{method} /mcp HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    // A server may refuse before it has read all of a large body.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    parse(&raw)
}

fn parse(raw: &[u8]) -> Answer {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP head in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[end + 4..].to_vec();
    let chunked = headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        let mut out = Vec::new();
        let mut rest = &body[..];
        while let Some(at) = rest.windows(2).position(|w| w == b"\r\n") {
            let size = usize::from_str_radix(std::str::from_utf8(&rest[..at]).unwrap().trim(), 16)
                .unwrap();
            if size == 0 {
                break;
            }
            out.extend_from_slice(&rest[at + 2..at + 2 + size]);
            rest = &rest[at + 2 + size + 2..];
        }
        body = out;
    }
    Answer {
        status,
        headers,
        body,
    }
}

const ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");
const JSON: (&str, &str) = ("Content-Type", "application/json");

fn initialize() -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
           "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "test", "version": "1"}}})
    .to_string()
    .into_bytes()
}

/// `initialize` and `notifications/initialized`: the session's id.
fn session(server: &Server, extra: &[(&str, &str)]) -> String {
    let mut headers = vec![ACCEPT, JSON];
    headers.extend_from_slice(extra);
    let init = exchange(&server.addr, "POST", &headers, &initialize());
    assert_eq!(init.status, 200, "{}", init.text());
    assert_eq!(
        init.messages()[0]["result"]["protocolVersion"],
        "2025-06-18"
    );
    let id = init
        .header("mcp-session-id")
        .expect("a session id")
        .to_string();
    headers.push(("Mcp-Session-Id", &id));
    headers.push(("MCP-Protocol-Version", "2025-06-18"));
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let done = exchange(&server.addr, "POST", &headers, note.as_bytes());
    assert_eq!(done.status, 202, "{}", done.text());
    id
}

fn call(server: &Server, session: &str, id: u64, tool: &str, arguments: Value) -> Answer {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": tool, "arguments": arguments}});
    exchange(
        &server.addr,
        "POST",
        &[
            ACCEPT,
            JSON,
            ("Mcp-Session-Id", session),
            ("MCP-Protocol-Version", "2025-06-18"),
        ],
        body.to_string().as_bytes(),
    )
}

#[test]
fn a_tool_call_over_http_reads_a_stored_output_and_delete_ends_the_session() {
    let sb = Sandbox::new();
    let rows: String = (1..=5000).map(|i| format!("row {i}\n")).collect();
    let reference = spilled(sb.cmd(&["wrap"]).env("SPILL_SCOPE", "web").stdin(rows));
    let server = serve(&sb, &[], &[]);
    let id = session(&server, &[]);
    let answer = call(
        &server,
        &id,
        1,
        "cat",
        json!({"source": reference, "lines": "4999:5000"}),
    );
    assert_eq!(answer.status, 200, "{}", answer.text());
    let result = &answer.messages()[0]["result"];
    assert_eq!(
        result["content"][0]["text"],
        "row 4999\nrow 5000\nlines 4,999–5,000 of 5,000\n"
    );
    let listed = exchange(
        &server.addr,
        "POST",
        &[
            ACCEPT,
            JSON,
            ("Mcp-Session-Id", &id),
            ("MCP-Protocol-Version", "2025-06-18"),
        ],
        br#"{"jsonrpc":"2.0","id":2,"method":"resources/list"}"#,
    );
    assert_eq!(
        listed.messages()[0]["result"]["resources"][0]["uri"],
        format!("spill://web/{reference}")
    );
    let deleted = exchange(
        &server.addr,
        "DELETE",
        &[
            ("Mcp-Session-Id", &id),
            ("MCP-Protocol-Version", "2025-06-18"),
        ],
        b"",
    );
    assert!(
        deleted.status / 100 == 2,
        "{} {}",
        deleted.status,
        deleted.text()
    );
    let after = call(&server, &id, 3, "ls", json!({}));
    assert_eq!(
        after.status,
        404,
        "a deleted session is gone: {}",
        after.text()
    );
}

#[test]
fn the_default_address_is_loopback_and_other_paths_are_not_found() {
    let sb = Sandbox::new();
    let mut child = sb
        .cmd(&["mcp", "--http", "0"])
        .env("SPILL_SCOPE", "web")
        .spawn_piped();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        line.starts_with("spill: note: mcp: serving http://127.0.0.1:")
            && line.trim().ends_with("/mcp"),
        "{line:?}"
    );
    let server = serve(&sb, &[], &[]);
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    write!(
        stream,
        "GET /other HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        server.addr
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    assert_eq!(parse(&raw).status, 404);
}

#[test]
fn an_address_off_loopback_needs_a_token_and_argv_never_carries_one() {
    let sb = Sandbox::new();
    let run = sb.cmd(&["mcp", "--http", "0.0.0.0:0"]).run();
    run.status(2);
    assert!(
        run.stderr.contains("not a loopback address") && run.stderr.contains("SPILL_MCP_TOKEN"),
        "{}",
        run.stderr
    );
    let run = sb
        .cmd(&["mcp", "--http", "0.0.0.0:0", "--token", "hunter2"])
        .run();
    run.status(2);
    assert!(run.stderr.contains("--token is refused"), "{}", run.stderr);
    assert!(!run.stderr.contains("hunter2"), "{}", run.stderr);
    let empty = sb.file("empty-token", "\n");
    let run = sb
        .cmd(&[
            "mcp",
            "--http",
            "0.0.0.0:0",
            "--token-file",
            empty.to_str().unwrap(),
        ])
        .run();
    run.status(2);
    assert!(run.stderr.contains("empty"), "{}", run.stderr);
    let run = sb.cmd(&["mcp", "--http", "example.com:80"]).run();
    run.status(2);
}

#[test]
fn requests_without_the_token_get_401() {
    let sb = Sandbox::new();
    let file = sb.file("token", "s3cret-token\n");
    for server in [
        serve(&sb, &["--token-file", file.to_str().unwrap()], &[]),
        serve(&sb, &[], &[("SPILL_MCP_TOKEN", "s3cret-token")]),
    ] {
        for auth in [
            None,
            Some("Bearer wrong"),
            Some("Bearer s3cret-toke"),
            Some("s3cret-token"),
        ] {
            let mut headers = vec![ACCEPT, JSON];
            if let Some(auth) = auth {
                headers.push(("Authorization", auth));
            }
            let refused = exchange(&server.addr, "POST", &headers, &initialize());
            assert_eq!(refused.status, 401, "{auth:?}: {}", refused.text());
            assert_eq!(refused.header("www-authenticate"), Some("Bearer"));
            assert!(!refused.text().contains("s3cret"));
        }
        session(&server, &[("Authorization", "Bearer s3cret-token")]);
    }
}

#[test]
fn a_foreign_origin_is_refused() {
    let sb = Sandbox::new();
    let server = serve(&sb, &[], &[]);
    for origin in [
        "http://evil.example",
        "https://localhost.evil.example",
        "null",
    ] {
        let refused = exchange(
            &server.addr,
            "POST",
            &[ACCEPT, JSON, ("Origin", origin)],
            &initialize(),
        );
        assert_eq!(refused.status, 403, "{origin}: {}", refused.text());
    }
    let rebound = exchange(
        &server.addr,
        "POST",
        &[ACCEPT, JSON, ("Host", "attacker.example")],
        &initialize(),
    );
    assert_eq!(rebound.status, 403, "a foreign Host: {}", rebound.text());
    session(&server, &[("Origin", "http://localhost:6274")]);
}

#[test]
fn bad_input_gets_a_bounded_error_and_the_server_goes_on() {
    let sb = Sandbox::new();
    let server = serve(&sb, &[], &[]);
    let garbage = exchange(&server.addr, "POST", &[ACCEPT, JSON], b"{not json at all");
    assert_eq!(garbage.status, 400, "{}", garbage.text());
    assert_eq!(garbage.messages()[0]["error"]["code"], -32700);
    let huge = vec![b' '; 3 << 20];
    let refused = exchange(&server.addr, "POST", &[ACCEPT, JSON], &huge);
    assert_eq!(refused.status, 413, "{}", refused.text());
    assert!(refused.body.len() < 200);
    let typed = exchange(
        &server.addr,
        "POST",
        &[ACCEPT, ("Content-Type", "text/plain")],
        &initialize(),
    );
    assert_eq!(typed.status, 415, "{}", typed.text());
    let unaccepted = exchange(
        &server.addr,
        "POST",
        &[("Accept", "text/html"), JSON],
        &initialize(),
    );
    assert_eq!(unaccepted.status, 406, "{}", unaccepted.text());
    let id = session(&server, &[]);
    let long = "x".repeat(100_000);
    let unknown = call(&server, &id, 7, &long, json!({}));
    let message = unknown.messages()[0]["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.len() < 400, "{} bytes", message.len());
}

#[test]
fn kill_9_of_the_http_server_leaves_nothing_behind() {
    let sb = Sandbox::new();
    let server = serve(&sb, &[], &[]);
    let id = session(&server, &[]);
    assert_eq!(call(&server, &id, 1, "ls", json!({})).status, 200);
    let pid = server.child.id() as libc::pid_t;
    // SAFETY: SIGKILL of the child this test started.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    let addr = server.addr.clone();
    drop(server);
    // Nothing listens on its port any more, and no child of it is left.
    let deadline = Instant::now() + Duration::from_secs(1);
    while TcpStream::connect(&addr).is_ok() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(TcpStream::connect(&addr).is_err(), "{addr} still answers");
    let survivors = std::process::Command::new("pgrep")
        .args(["-P", &pid.to_string()])
        .output()
        .unwrap();
    assert!(
        survivors.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&survivors.stdout)
    );
    // It wrote nothing into the store's root but the store itself.
    let leftovers: Vec<_> = std::fs::read_dir(sb.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with("spill-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// `tests/mcp/http_downstream.py LOG`, killed when dropped: its port and the log of what it got.
struct Downstream {
    child: Child,
    url: String,
    log: std::path::PathBuf,
}

impl Drop for Downstream {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Downstream {
    fn start(sb: &Sandbox) -> Downstream {
        let log = sb.path().join("downstream.log");
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/http_downstream.py");
        let mut child = std::process::Command::new("python3")
            .arg(script)
            .arg(&log)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3");
        let mut port = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut port)
            .unwrap();
        Downstream {
            child,
            url: format!("http://127.0.0.1:{}/mcp", port.trim()),
            log,
        }
    }

    /// What the server got, one entry per HTTP request.
    fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// A stdio client of `spill mcp proxy --url …`: one line out, its answer back.
struct Client {
    child: Child,
    output: BufReader<std::process::ChildStdout>,
}

impl Client {
    fn send(&mut self, message: &Value) {
        let input = self.child.stdin.as_mut().unwrap();
        writeln!(input, "{message}").unwrap();
        input.flush().unwrap();
    }

    fn ask(&mut self, message: Value) -> Value {
        self.send(&message);
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    /// Closes the proxy's input and returns its exit status and stderr.
    fn finish(mut self) -> (Option<i32>, String) {
        drop(self.child.stdin.take());
        let mut rest = String::new();
        let _ = self.output.read_to_string(&mut rest);
        assert!(
            crate::common::exits_within(&mut self.child, Duration::from_secs(10)),
            "the proxy did not exit"
        );
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        (self.child.wait().unwrap().code(), stderr)
    }
}

fn proxy_to(sb: &Sandbox, url: &str, extra: &[&str]) -> Client {
    let mut args = vec!["mcp", "proxy", "--url", url];
    args.extend_from_slice(extra);
    let mut child = sb
        .cmd(&args)
        .env("SPILL_SCOPE", "remote")
        .env("REMOTE_TOKEN", "tok-81c2e")
        .spawn_piped();
    let output = BufReader::new(child.stdout.take().unwrap());
    Client { child, output }
}

fn rpc(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[test]
fn the_proxy_stands_in_front_of_a_remote_server_with_its_headers_and_stores_large_results() {
    let sb = Sandbox::new();
    let downstream = Downstream::start(&sb);
    let mut client = proxy_to(
        &sb,
        &downstream.url,
        &[
            "--header",
            "Authorization: Bearer ${REMOTE_TOKEN}",
            "--header",
            "X-Team: blue",
            "--max-inline",
            "16K",
        ],
    );
    let init = client.ask(rpc(
        0,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    ));
    assert_eq!(init["result"]["serverInfo"]["name"], "http-downstream");
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let listed = client.ask(rpc(1, "tools/list", json!({})));
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.starts_with(&["headers", "big", "fail", "progress"]) && names.contains(&"spill_cat"),
        "{names:?}"
    );
    // What the server received: the user's headers, the transport's, nothing else of spill's.
    let seen = client.ask(rpc(
        2,
        "tools/call",
        json!({"name": "headers", "arguments": {}}),
    ));
    let headers: Value =
        serde_json::from_str(seen["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(headers["authorization"], "Bearer tok-81c2e");
    assert_eq!(headers["x-team"], "blue");
    assert_eq!(headers["mcp-session-id"], "session-7f3a");
    assert_eq!(headers["mcp-protocol-version"], "2025-06-18");
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(headers["accept"], "application/json, text/event-stream");
    // A large result, sent as a multi-line SSE event: stored and replaced.
    let big = client.ask(rpc(
        3,
        "tools/call",
        json!({"name": "big", "arguments": {}}),
    ));
    let envelope: Value =
        serde_json::from_str(big["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    let reference = envelope["ref"].as_str().expect("an envelope").to_string();
    let back = client.ask(rpc(
        4,
        "tools/call",
        json!({"name": "spill_cat", "arguments": {"source": reference, "lines": "12500:12500"}}),
    ));
    assert!(
        back["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("big line 012500\n"),
        "{back}"
    );
    // Progress on the request's SSE stream, then its result.
    client.send(&rpc(
        5,
        "tools/call",
        json!({"name": "progress", "arguments": {}, "_meta": {"progressToken": "p1"}}),
    ));
    let mut line = String::new();
    client.output.read_line(&mut line).unwrap();
    let note: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(note["method"], "notifications/progress");
    line.clear();
    client.output.read_line(&mut line).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&line).unwrap()["id"], 5);
    // An HTTP error is the request's JSON-RPC error; a JSON-RPC error body passes as it is.
    let failed = client.ask(rpc(
        6,
        "tools/call",
        json!({"name": "fail", "arguments": {}}),
    ));
    assert_eq!(failed["error"]["code"], -32000);
    let message = failed["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("HTTP 500") && message.contains("the tool broke"),
        "{message}"
    );
    let unknown = client.ask(rpc(7, "prompts/list", json!({})));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    // A redirect is not followed: the headers go to --url only.
    let moved = client.ask(rpc(
        8,
        "tools/call",
        json!({"name": "moved", "arguments": {}}),
    ));
    assert_eq!(moved["error"]["code"], -32000, "{moved}");
    let (status, stderr) = client.finish();
    assert_eq!(status, Some(0), "{stderr}");
    assert!(!stderr.contains("tok-81c2e"), "{stderr}");
    // The session ended with a DELETE; the server's stream was asked for once (405).
    let requests = downstream.requests();
    let last = requests.last().unwrap();
    assert_eq!(last["method"], "DELETE", "{requests:?}");
    assert_eq!(last["headers"]["mcp-session-id"], "session-7f3a");
    assert_eq!(
        requests.iter().filter(|r| r["method"] == "GET").count(),
        1,
        "{requests:?}"
    );
    assert!(
        requests
            .iter()
            .all(|r| r["headers"]["authorization"] == "Bearer tok-81c2e"),
        "every request carries the user's header"
    );
    assert!(requests.iter().all(|r| r["path"] == "/mcp"), "{requests:?}");
}

#[test]
fn an_unreachable_url_is_a_json_rpc_error_and_exit_status_2_never_a_hang() {
    let sb = Sandbox::new();
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let started = Instant::now();
    let mut client = proxy_to(
        &sb,
        &format!("http://127.0.0.1:{port}/mcp?api_key=k-55"),
        &["--header", "Authorization: Bearer ${REMOTE_TOKEN}"],
    );
    let answer = client.ask(rpc(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    ));
    assert_eq!(answer["error"]["code"], -32000, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap().to_string();
    assert!(
        message.contains(&format!(
            "cannot reach the MCP server at http://127.0.0.1:{port}/mcp"
        )),
        "{message}"
    );
    let (status, stderr) = client.finish();
    assert_eq!(status, Some(2), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(10));
    for secret in ["k-55", "tok-81c2e"] {
        assert!(
            !message.contains(secret) && !stderr.contains(secret),
            "{message} {stderr}"
        );
    }
}

#[test]
fn proxy_url_refuses_bad_urls_and_headers_without_echoing_values() {
    let sb = Sandbox::new();
    for (args, says) in [
        (
            vec!["--url", "ftp://h/mcp"],
            "not an http:// or https:// URL",
        ),
        (
            vec![
                "--url",
                "http://h/mcp",
                "--header",
                "Authorization: Bearer ${NOT_SET_ANYWHERE}",
            ],
            "NOT_SET_ANYWHERE is not set",
        ),
        (
            vec!["--url", "http://h/mcp", "--header", "Mcp-Session-Id: x"],
            "belongs to the transport",
        ),
        (
            vec!["--url", "http://h/mcp", "--header", "no-colon-secret"],
            "without a colon",
        ),
    ] {
        let mut full = vec!["mcp", "proxy"];
        full.extend(args);
        let run = sb.cmd(&full).run();
        run.status(2);
        assert!(run.stderr.contains(says), "{full:?}: {}", run.stderr);
        assert!(!run.stderr.contains("no-colon-secret"), "{}", run.stderr);
    }
    // --url and a command are one or the other.
    let run = sb
        .cmd(&["mcp", "proxy", "--url", "http://h/mcp", "--", "true"])
        .run();
    run.status(2);
}
