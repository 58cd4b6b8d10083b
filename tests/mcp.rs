//! `spill mcp` and `spill mcp proxy` through the real binary, speaking newline-delimited
//! JSON-RPC on stdio: the proxy in front of a small Python MCP server (`tests/mcp/downstream.py`,
//! standard library only), and the server on its own. The SDK clients and the real npm servers
//! are exercised by `tests/mcp/run.sh` (run by CI), which needs the network for its first install.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::common::Sandbox;

fn downstream() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/downstream.py")
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn call(id: u64, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
    .to_string()
}

fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn script(lines: &[String]) -> Vec<u8> {
    let mut all = vec![INIT.to_string(), INITIALIZED.to_string()];
    all.extend(lines.iter().cloned());
    (all.join("\n") + "\n").into_bytes()
}

/// The proxy's output lines (raw), in order.
struct Transcript {
    lines: Vec<Vec<u8>>,
    stderr: String,
}

impl Transcript {
    fn by_id(&self, id: u64) -> Value {
        self.raw_by_id(id)
            .map(|l| serde_json::from_slice(l).unwrap())
            .unwrap_or_else(|| panic!("no answer to {id}; stderr:\n{}", self.stderr))
    }

    fn raw_by_id(&self, id: u64) -> Option<&Vec<u8>> {
        self.lines
            .iter()
            .find(|l| serde_json::from_slice::<Value>(l).is_ok_and(|v| v["id"] == json!(id)))
    }
}

fn split(stdout: &[u8]) -> Vec<Vec<u8>> {
    stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

fn proxy(sb: &Sandbox, mode: &str, extra: &[&str], lines: &[String]) -> Transcript {
    let ds = downstream();
    let mut args = vec!["mcp", "proxy"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "python3", ds.to_str().unwrap(), mode]);
    let run = sb
        .cmd(&args)
        .env("SPILL_SCOPE", "proxy-test")
        .stdin(script(lines))
        .run();
    run.status(0);
    Transcript {
        lines: split(&run.stdout),
        stderr: run.stderr,
    }
}

/// The downstream alone, fed the same lines: what a client sees without the proxy.
fn direct(mode: &str, lines: &[String]) -> Vec<Vec<u8>> {
    let output = std::process::Command::new("python3")
        .arg(downstream())
        .arg(mode)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&script(lines))?;
            child.wait_with_output()
        })
        .expect("python3 runs the downstream");
    split(&output.stdout)
}

fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "text")
        .map(|b| b["text"].as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn link_of(result: &Value) -> Value {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "resource_link")
        .cloned()
        .unwrap_or_else(|| panic!("no resource_link in {result}"))
}

#[test]
fn proxy_passes_small_messages_through_byte_for_byte() {
    let sb = Sandbox::new();
    let lines = [
        call(1, "small", json!({})),
        request(2, "prompts/list", json!({})),
        r#"{"jsonrpc":"2.0","method":"notifications/ping-me"}"#.to_string(),
    ];
    let through = proxy(&sb, "normal", &[], &lines);
    let alone = direct("normal", &lines);
    assert_eq!(through.lines, alone, "stderr: {}", through.stderr);
    // A downstream that exits because its input closed is no news.
    assert!(
        !through.stderr.contains("closed its output"),
        "{}",
        through.stderr
    );
}

#[test]
fn proxy_stores_an_oversized_text_result_and_the_ref_reads_it_back() {
    let sb = Sandbox::new();
    let t = proxy(&sb, "normal", &[], &[call(1, "text", json!({"n": 5000}))]);
    let result = &t.by_id(1)["result"];
    let envelope: Value = serde_json::from_str(&text_of(result)).unwrap();
    assert_eq!(envelope["spilled"], true, "{result}");
    assert!(
        envelope.get("path").is_none(),
        "restricted: no path in {envelope}"
    );
    let reference = envelope["ref"].as_str().unwrap();
    let link = link_of(result);
    assert_eq!(link["uri"], format!("spill://proxy-test/{reference}"));
    assert_eq!(link["mimeType"], "text/plain");
    // The stored bytes are the tool's text exactly.
    let original = direct("normal", &[call(1, "text", json!({"n": 5000}))]);
    let original: Value = serde_json::from_slice(original.last().unwrap()).unwrap();
    let stored = sb
        .cmd(&[
            "cat",
            reference,
            "--raw",
            "--bytes",
            "0:",
            "--max-bytes",
            "0",
        ])
        .env("SPILL_SCOPE", "proxy-test")
        .run();
    stored.status(0);
    assert_eq!(
        stored.out(),
        original["result"]["content"][0]["text"].as_str().unwrap()
    );
    let found = sb
        .cmd(&["search", reference, "-F", "MARKER"])
        .env("SPILL_SCOPE", "proxy-test")
        .run();
    assert!(found.out().starts_with("2501:1:MARKER"), "{}", found.out());
}

#[test]
fn proxy_keeps_structured_content_json_with_its_numbers_exact() {
    let sb = Sandbox::new();
    let t = proxy(
        &sb,
        "normal",
        &[],
        &[call(1, "structured", json!({"n": 400}))],
    );
    let result = &t.by_id(1)["result"];
    let structured = &result["structuredContent"];
    assert_eq!(structured["spilled"], true, "{result}");
    assert_eq!(structured["mimeType"], "application/json");
    let reference = structured["ref"].as_str().unwrap();
    let item = sb
        .cmd(&["extract", reference, "$.items[399].big", "--compact"])
        .env("SPILL_SCOPE", "proxy-test")
        .run();
    item.status(0);
    assert_eq!(item.out(), "12345678901234567890123\n");
}

#[test]
fn proxy_frames_a_line_larger_than_an_sdk_transport_takes() {
    // rmcp's stdio codec stops at 16 MiB; the proxy's framing has no such cap.
    let sb = Sandbox::new();
    let n = 20 << 20;
    let t = proxy(&sb, "normal", &[], &[call(1, "blob", json!({"n": n}))]);
    let envelope: Value = serde_json::from_str(&text_of(&t.by_id(1)["result"])).unwrap();
    assert_eq!(envelope["sizeBytes"], n, "{envelope}");
}

#[test]
fn proxy_respects_max_inline() {
    let sb = Sandbox::new();
    let lines = [call(1, "text", json!({"n": 100}))];
    let small = proxy(&sb, "normal", &[], &lines);
    assert_eq!(small.lines, direct("normal", &lines));
    let tight = proxy(&sb, "normal", &["--max-inline", "100"], &lines);
    let envelope: Value = serde_json::from_str(&text_of(&tight.by_id(1)["result"])).unwrap();
    assert_eq!(envelope["spilled"], true);
}

#[test]
fn proxy_adds_spill_tools_and_drops_output_schemas() {
    let sb = Sandbox::new();
    let t = proxy(&sb, "normal", &[], &[request(1, "tools/list", json!({}))]);
    let tools = t.by_id(1)["result"]["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "small",
            "text",
            "structured",
            "blob",
            "spill_cat",
            "spill_shape",
            "spill_extract",
            "spill_search",
            "spill_ls"
        ]
    );
    assert!(tools[2].get("outputSchema").is_none());
    assert_eq!(tools[7]["annotations"]["readOnlyHint"], true);
}

#[test]
fn proxy_answers_spill_tools_and_resources_itself() {
    let sb = Sandbox::new();
    let first = proxy(&sb, "normal", &[], &[call(1, "text", json!({"n": 5000}))]);
    let envelope: Value = serde_json::from_str(&text_of(&first.by_id(1)["result"])).unwrap();
    let reference = envelope["ref"].as_str().unwrap();
    // A downstream that would crash on any tools/call: these never reach it.
    let t = proxy(
        &sb,
        "crash",
        &[],
        &[
            call(
                1,
                "spill_search",
                json!({"source": reference, "pattern": "MARKER", "fixed_strings": true}),
            ),
            request(
                2,
                "resources/read",
                json!({"uri": format!("spill://proxy-test/{reference}?lines=2501:2501")}),
            ),
            request(
                3,
                "resources/read",
                json!({"uri": "spill://proxy-test/sp_0000000000000000"}),
            ),
        ],
    );
    let found = &t.by_id(1)["result"];
    assert_eq!(
        text_of(found),
        "2501:1:MARKER: the line in the middle\nmatches 1–1 of 1\n"
    );
    assert_eq!(found["structuredContent"]["totalMatches"], 1);
    let read = &t.by_id(2)["result"]["contents"][0];
    assert_eq!(read["text"], "MARKER: the line in the middle\n");
    let unknown = &t.by_id(3)["error"];
    assert_eq!(unknown["code"], -32002, "{unknown}");
}

#[test]
fn a_crashed_downstream_gives_json_rpc_errors_not_a_hang() {
    let sb = Sandbox::new();
    let t = proxy(
        &sb,
        "crash",
        &[],
        &[
            call(1, "small", json!({})),
            request(2, "tools/list", json!({})),
        ],
    );
    assert_eq!(t.by_id(1)["error"]["code"], -32000, "{}", t.stderr);
    assert_eq!(t.by_id(2)["error"]["code"], -32000);
    assert!(t.stderr.contains("closed its output"), "{}", t.stderr);
}

#[test]
fn a_hung_downstream_times_out() {
    let sb = Sandbox::new();
    let t = proxy(
        &sb,
        "hang",
        &["--timeout", "1s"],
        &[call(1, "small", json!({}))],
    );
    let error = &t.by_id(1)["error"];
    assert_eq!(error["code"], -32001, "{error}");
    assert!(error["message"].as_str().unwrap().contains("--timeout"));
}

#[test]
fn garbage_from_the_downstream_fails_the_waiting_request() {
    let sb = Sandbox::new();
    let t = proxy(&sb, "garbage", &[], &[call(1, "small", json!({}))]);
    assert_eq!(t.by_id(1)["error"]["code"], -32603);
    assert!(t.stderr.contains("not a JSON-RPC message"), "{}", t.stderr);
}

#[test]
fn the_proxy_exits_when_its_input_closes_and_stops_a_downstream_that_does_not() {
    let sb = Sandbox::new();
    let ds = downstream();
    let mut child = sb
        .cmd(&[
            "mcp",
            "proxy",
            "--",
            "python3",
            ds.to_str().unwrap(),
            "deaf",
        ])
        .env("SPILL_SCOPE", "proxy-test")
        .spawn_piped();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&script(&[])).unwrap();
    }
    // Far beyond the proxy's 2 s + 2 s stopping sequence: a hang guard, not a timing check.
    assert!(
        crate::common::exits_within(&mut child, std::time::Duration::from_secs(60)),
        "the proxy did not exit after its input closed"
    );
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn a_proxy_without_a_scope_makes_one_and_says_so() {
    let sb = Sandbox::new();
    let ds = downstream();
    let run = sb
        .cmd(&["mcp", "proxy", "--", "python3", ds.to_str().unwrap()])
        .stdin(script(&[]))
        .run();
    run.status(0);
    assert!(run.stderr.contains("in scope mcp-"), "{}", run.stderr);
}

#[test]
fn a_downstream_that_cannot_start_is_an_error() {
    let sb = Sandbox::new();
    let run = sb
        .cmd(&["mcp", "proxy", "--", "/nonexistent/server"])
        .env("SPILL_SCOPE", "s")
        .run();
    run.status(2);
    assert!(run.stderr.contains("cannot start"), "{}", run.stderr);
}

/// `spill mcp` on its own, driven with raw JSON-RPC lines.
fn server(sb: &Sandbox, extra: &[&str], lines: &[String]) -> Transcript {
    let mut args = vec!["mcp"];
    args.extend_from_slice(extra);
    let run = sb
        .cmd(&args)
        .env("SPILL_SCOPE", "srv")
        .stdin(script(lines))
        .run();
    run.status(0);
    Transcript {
        lines: split(&run.stdout),
        stderr: run.stderr,
    }
}

fn store_text(sb: &Sandbox, scope: &str, rows: usize) -> String {
    let text: String = (1..=rows)
        .map(|i| format!("line {i} of the stored output\n"))
        .collect();
    let run = sb
        .cmd(&["wrap"])
        .env("SPILL_SCOPE", scope)
        .stdin(text)
        .run();
    run.status(0);
    run.json()["ref"].as_str().unwrap().to_string()
}

#[test]
fn the_server_names_itself_and_negotiates_the_current_revision() {
    let sb = Sandbox::new();
    let t = server(&sb, &[], &[]);
    let init = &t.by_id(0)["result"];
    assert_eq!(init["serverInfo"]["name"], "spill");
    assert_eq!(init["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(init["protocolVersion"], "2025-11-25");
    assert!(
        init["capabilities"]["tools"].is_object() && init["capabilities"]["resources"].is_object()
    );
}

fn init_as(version: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}})
    .to_string()
}

/// Lines fed after an `initialize` for `version` (instead of [`script`]'s 2025-11-25).
fn script_as(version: &str, lines: &[String]) -> Vec<u8> {
    let mut all = vec![init_as(version), INITIALIZED.to_string()];
    all.extend(lines.iter().cloned());
    (all.join("\n") + "\n").into_bytes()
}

fn server_as(sb: &Sandbox, stdin: Vec<u8>) -> Transcript {
    let run = sb
        .cmd(&["mcp"])
        .env("SPILL_SCOPE", "srv")
        .stdin(stdin)
        .run();
    run.status(0);
    Transcript {
        lines: split(&run.stdout),
        stderr: run.stderr,
    }
}

#[test]
fn the_server_answers_each_published_revision_with_itself_and_an_unknown_one_with_its_latest() {
    let sb = Sandbox::new();
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let t = server_as(&sb, script_as(version, &[]));
        assert_eq!(
            t.by_id(0)["result"]["protocolVersion"],
            version,
            "{}",
            t.stderr
        );
    }
    // A revision spill does not know, and 2026-07-28 over the old handshake (that revision has
    // none): the newest revision that has one.
    for version in ["2099-01-01", "2026-07-28"] {
        let t = server_as(&sb, script_as(version, &[]));
        assert_eq!(t.by_id(0)["result"]["protocolVersion"], "2025-11-25");
    }
}

#[test]
fn results_hold_only_what_the_negotiated_revision_defines() {
    let sb = Sandbox::new();
    let reference = store_text(&sb, "srv", 3000);
    let lines = [
        request(1, "tools/list", json!({})),
        call(2, "cat", json!({"source": reference, "lines": "1:2"})),
        request(3, "resources/list", json!({})),
        request(
            4,
            "resources/read",
            json!({"uri": format!("spill://srv/{reference}")}),
        ),
    ];
    let old = server_as(&sb, script_as("2025-03-26", &lines));
    let tools = old.by_id(1)["result"]["tools"].as_array().unwrap().clone();
    assert!(
        tools.iter().all(|t| t.get("outputSchema").is_none()
            && t.get("title").is_none()
            && t["annotations"]["readOnlyHint"] == (t["name"] != "stop")),
        "{tools:?}"
    );
    let cat = &old.by_id(2)["result"];
    assert!(cat.get("structuredContent").is_none(), "{cat}");
    assert!(
        cat["content"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["type"] == "text"),
        "{cat}"
    );
    assert!(old.by_id(4)["result"]["contents"][0].get("_meta").is_none());
    for id in 1..=4 {
        assert!(old.by_id(id)["result"].get("resultType").is_none());
    }
    let oldest = server_as(&sb, script_as("2024-11-05", &lines[..1]));
    let tools = oldest.by_id(1)["result"]["tools"]
        .as_array()
        .unwrap()
        .clone();
    assert!(tools.iter().all(|t| t.get("annotations").is_none()));
    // 2025-06-18 has them all.
    let current = server_as(&sb, script_as("2025-06-18", &lines));
    assert!(current.by_id(1)["result"]["tools"][0]["outputSchema"].is_object());
    assert!(current.by_id(2)["result"]["structuredContent"].is_object());
    link_of(&current.by_id(2)["result"]);
}

/// A 2026-07-28 request: no `initialize`, the revision and capabilities in `_meta`.
fn stateless(id: u64, method: &str, mut params: Value) -> String {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}});
    request(id, method, params)
}

#[test]
fn revision_2026_07_28_is_served_without_initialize_and_marks_every_result() {
    let sb = Sandbox::new();
    let reference = store_text(&sb, "srv", 3000);
    let lines = [
        stateless(1, "tools/list", json!({})),
        stateless(
            2,
            "tools/call",
            json!({"name": "cat", "arguments": {"source": reference, "lines": "1:1"}}),
        ),
        stateless(3, "resources/list", json!({})),
        stateless(4, "resources/templates/list", json!({})),
        stateless(
            5,
            "resources/read",
            json!({"uri": format!("spill://srv/{reference}?lines=2:2")}),
        ),
    ];
    let t = server_as(&sb, (lines.join("\n") + "\n").into_bytes());
    for id in 1..=5 {
        let result = &t.by_id(id)["result"];
        assert_eq!(result["resultType"], "complete", "{id}: {result}");
    }
    assert_eq!(t.by_id(1)["result"]["tools"].as_array().unwrap().len(), 7);
    assert_eq!(t.by_id(1)["result"]["cacheScope"], "private");
    assert_eq!(
        text_of(&t.by_id(2)["result"]),
        "line 1 of the stored output\nlines 1–1 of 3,000 · next: --lines 2:2\n"
    );
    assert_eq!(
        t.by_id(5)["result"]["contents"][0]["text"],
        "line 2 of the stored output\n"
    );
}

#[test]
fn the_server_tools_print_what_the_commands_print() {
    let sb = Sandbox::new();
    let reference = store_text(&sb, "srv", 3000);
    let t = server(
        &sb,
        &[],
        &[
            call(1, "cat", json!({"source": reference, "lines": "10:11"})),
            call(
                2,
                "search",
                json!({"source": reference, "pattern": "line 2999 ", "fixed_strings": true}),
            ),
            call(3, "cat", json!({"source": "/etc/passwd"})),
            request(4, "tools/list", json!({})),
        ],
    );
    let cat = sb
        .cmd(&["cat", &reference, "--lines", "10:11", "--footer", "stdout"])
        .env("SPILL_SCOPE", "srv")
        .run();
    let result = &t.by_id(1)["result"];
    assert_eq!(result["content"][0]["text"].as_str().unwrap(), cat.out());
    assert_eq!(link_of(result)["uri"], format!("spill://srv/{reference}"));
    let search = &t.by_id(2)["result"];
    assert_eq!(search["structuredContent"]["totalMatches"], 1);
    let refused = &t.by_id(3)["result"];
    assert_eq!(refused["isError"], true);
    assert!(text_of(refused).contains("must be a ref"), "{refused}");
    let tools = t.by_id(4)["result"]["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["cat", "shape", "extract", "search", "ls", "wait", "stop"]
    );
    assert!(tools.iter().all(|t| t["outputSchema"]["type"] == "object"));
}

#[test]
fn the_server_pages_resources_and_bounds_reads() {
    let sb = Sandbox::new();
    let refs: Vec<String> = (0..3).map(|i| store_text(&sb, "srv", 1000 + i)).collect();
    let t = server(
        &sb,
        &["--page-size", "2"],
        &[request(1, "resources/list", json!({}))],
    );
    let page = &t.by_id(1)["result"];
    assert_eq!(page["resources"].as_array().unwrap().len(), 2);
    let cursor = page["nextCursor"].as_str().unwrap().to_string();
    let t = server(
        &sb,
        &["--page-size", "2"],
        &[
            request(1, "resources/list", json!({"cursor": cursor})),
            request(
                2,
                "resources/read",
                json!({"uri": format!("spill://srv/{}", refs[0])}),
            ),
            request(
                3,
                "resources/read",
                json!({"uri": "spill://srv/sp_0000000000000000"}),
            ),
            request(
                4,
                "resources/read",
                json!({"uri": format!("spill://other/{}", refs[0])}),
            ),
        ],
    );
    let rest = t.by_id(1)["result"]["resources"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(rest.len(), 1);
    assert!(t.by_id(1)["result"].get("nextCursor").is_none());
    let read = &t.by_id(2)["result"]["contents"][0];
    // The default page of cat: 200 lines or 16 KiB, whichever is smaller.
    assert_eq!(read["text"].as_str().unwrap().lines().count(), 200);
    assert!(
        read["_meta"]["spill/footer"]
            .as_str()
            .unwrap()
            .contains("next: --lines 201:400")
    );
    assert_eq!(t.by_id(3)["error"]["code"], -32002);
    assert_eq!(t.by_id(4)["error"]["code"], -32002);
}

#[test]
fn the_run_tool_exists_only_with_allow_run_and_never_in_restricted_mode() {
    let sb = Sandbox::new();
    let t = server(
        &sb,
        &["--allow-run"],
        &[call(1, "run", json!({"command": "echo hello"}))],
    );
    assert_eq!(text_of(&t.by_id(1)["result"]), "hello\n");
    let t = server(
        &sb,
        &[],
        &[call(1, "run", json!({"command": "echo hello"}))],
    );
    assert!(t.by_id(1).get("error").is_some());
    let refused = sb
        .cmd(&["mcp", "--allow-run"])
        .env("SPILL_RESTRICTED", "1")
        .stdin(script(&[]))
        .run();
    refused.status(2);
    assert!(
        refused.stderr.contains("restricted mode"),
        "{}",
        refused.stderr
    );
}

fn proxy_raw(sb: &Sandbox, stdin: Vec<u8>) -> Transcript {
    let ds = downstream();
    let run = sb
        .cmd(&[
            "mcp",
            "proxy",
            "--",
            "python3",
            ds.to_str().unwrap(),
            "normal",
        ])
        .env("SPILL_SCOPE", "proxy-test")
        .stdin(stdin)
        .run();
    run.status(0);
    Transcript {
        lines: split(&run.stdout),
        stderr: run.stderr,
    }
}

#[test]
fn the_proxy_follows_the_revision_the_downstream_chose() {
    let sb = Sandbox::new();
    let lines = [
        request(1, "tools/list", json!({})),
        call(2, "text", json!({"n": 5000})),
    ];
    let t = proxy_raw(&sb, script_as("2025-03-26", &lines));
    assert_eq!(t.by_id(0)["result"]["protocolVersion"], "2025-03-26");
    let tools = t.by_id(1)["result"]["tools"].as_array().unwrap().clone();
    let spill_cat = tools.iter().find(|t| t["name"] == "spill_cat").unwrap();
    assert!(
        spill_cat.get("outputSchema").is_none() && spill_cat.get("title").is_none(),
        "{spill_cat}"
    );
    // The envelope names the ref; 2025-03-26 has no resource_link block.
    let result = &t.by_id(2)["result"];
    let envelope: Value = serde_json::from_str(&text_of(result)).unwrap();
    assert_eq!(envelope["spilled"], true);
    assert!(
        result["content"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["type"] == "text"),
        "{result}"
    );
    let reference = envelope["ref"].as_str().unwrap().to_string();
    // 2026-07-28: no initialize; the proxy's own answers carry resultType.
    let lines = [
        stateless(
            1,
            "tools/call",
            json!({"name": "spill_cat", "arguments": {"source": reference, "lines": "1:1"}}),
        ),
        stateless(
            2,
            "resources/read",
            json!({"uri": format!("spill://proxy-test/{reference}?lines=1:1")}),
        ),
        stateless(
            3,
            "resources/read",
            json!({"uri": "spill://proxy-test/sp_0000000000000000"}),
        ),
    ];
    let t = proxy_raw(&sb, (lines.join("\n") + "\n").into_bytes());
    assert_eq!(t.by_id(1)["result"]["resultType"], "complete");
    assert_eq!(t.by_id(2)["result"]["resultType"], "complete");
    assert_eq!(t.by_id(2)["result"]["cacheScope"], "private");
    assert_eq!(t.by_id(3)["error"]["code"], -32602);
}

/// The processes whose command line holds `token` (the proxy's own, which names them all, is
/// left out by the callers that need it).
fn processes_with(token: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        // A zombie has an empty command line and is gone for every purpose here.
        // Arguments are NUL-separated: `sleep\0N` is looked for as `sleep N`.
        if String::from_utf8_lossy(&cmdline)
            .replace('\0', " ")
            .contains(token)
        {
            found.push(pid);
        }
    }
    found
}

/// Waits up to `limit` for `check` to hold.
fn within(limit: std::time::Duration, check: impl Fn() -> bool) -> bool {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if check() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// A number of seconds for `sleep` that names test `n` of this run (tests of other runs may be
/// looking for their own at the same time).
fn family(n: u64) -> u64 {
    10_000_000 + u64::from(std::process::id()) * 4 + n
}

/// A proxy in front of a downstream that never answers `tools/call` and has a child of its own
/// (`sleep SECONDS`, the token to look for), with one `tools/call` pending.
fn proxy_with_a_family(sb: &Sandbox, seconds: u64) -> std::process::Child {
    let ds = downstream();
    let family = format!(
        "sleep {seconds} & exec python3 {} hang spill-family-{seconds}",
        ds.display()
    );
    let mut child = sb
        .cmd(&["mcp", "proxy", "--", "sh", "-c", &family])
        .env("SPILL_SCOPE", "proxy-test")
        .spawn_piped();
    {
        use std::io::Write;
        let stdin = child.stdin.as_mut().unwrap();
        stdin
            .write_all(&script(&[call(1, "small", json!({}))]))
            .unwrap();
        stdin.flush().unwrap();
    }
    let token = format!("spill-family-{seconds}");
    // The proxy's guardian is a fork of it, with its command line: the downstream is told
    // apart by its program's name.
    let running = |name: &str, token: &str| {
        processes_with(token).into_iter().any(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.starts_with(name))
        })
    };
    let started = within(std::time::Duration::from_secs(20), || {
        running("python", &token) && running("sleep", &format!("sleep {seconds}"))
    });
    if !started {
        let seen: Vec<String> = processes_with(&format!("{seconds}"))
            .into_iter()
            .map(|pid| std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default())
            .collect();
        child.kill().unwrap();
        panic!("the downstream and its child did not start (seen: {seen:?})");
    }
    child
}

/// The downstream and its child are gone. The guardian kills their group the moment the proxy
/// ends (end of file on a pipe, no polling), so they are normally gone within milliseconds; the
/// 10 s allowed is for a loaded machine's scheduler (a `sleep` of 10,000,000 s that leaked
/// would still be there), so the check cannot fail by chance (it once did with 1 s under
/// `cargo test` beside three builds).
fn no_survivor_soon(seconds: u64) {
    let gone = within(std::time::Duration::from_secs(10), || {
        processes_with(&format!("spill-family-{seconds}")).is_empty()
            && processes_with(&format!("sleep {seconds}")).is_empty()
    });
    let left = (
        processes_with(&format!("spill-family-{seconds}")),
        processes_with(&format!("sleep {seconds}")),
    );
    assert!(gone, "survivors 10 s later: {left:?}");
}

#[test]
fn kill_9_of_the_proxy_leaves_no_downstream_process() {
    let sb = Sandbox::new();
    let seconds = family(1);
    let mut child = proxy_with_a_family(&sb, seconds);
    child.kill().unwrap();
    child.wait().unwrap();
    no_survivor_soon(seconds);
}

#[test]
fn sigterm_of_the_proxy_fails_the_pending_request_and_stops_the_downstream() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let sb = Sandbox::new();
    let seconds = family(2);
    let mut child = proxy_with_a_family(&sb, seconds);
    // SAFETY: kill(2) of the proxy this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status:?}");
    no_survivor_soon(seconds);
    let t = Transcript {
        lines: split(&out),
        stderr: String::new(),
    };
    let error = &t.by_id(1)["error"];
    assert_eq!(error["code"], -32000, "{error}");
    assert!(error["message"].as_str().unwrap().contains("signal 15"));
}

#[test]
fn a_client_that_goes_away_takes_the_downstream_with_it() {
    let sb = Sandbox::new();
    let seconds = family(3);
    let mut child = proxy_with_a_family(&sb, seconds);
    // The client dies: both of its pipes close, a request still pending (--timeout is 60 s).
    drop(child.stdin.take());
    drop(child.stdout.take());
    assert!(
        crate::common::exits_within(&mut child, std::time::Duration::from_secs(2)),
        "the proxy outlived its client"
    );
    no_survivor_soon(seconds);
}

#[test]
fn an_oversized_notification_is_stored_and_replaced_by_a_log_message_naming_it() {
    let sb = Sandbox::new();
    let t = proxy(
        &sb,
        "normal",
        &[],
        &[call(1, "notify", json!({"n": 100_000}))],
    );
    assert_eq!(text_of(&t.by_id(1)["result"]), "small result\n");
    let notes: Vec<Value> = t
        .lines
        .iter()
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter(|m| m["method"] == "notifications/message")
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        t.lines.iter().all(|l| l.len() < 20_000),
        "a line over the bound passed"
    );
    let data = &notes[0]["params"]["data"];
    assert_eq!(notes[0]["params"]["logger"], "spill");
    assert_eq!(data["replaced"], "notifications/message");
    let reference = data["envelope"]["ref"].as_str().unwrap();
    let stored = sb
        .cmd(&["extract", reference, "$.data", "--unbounded"])
        .env("SPILL_SCOPE", "proxy-test")
        .run();
    stored.status(0);
    let params: Value = serde_json::from_str(&stored.out()).unwrap_or(Value::Null);
    assert_eq!(
        params.as_str().map(str::len),
        Some(100_000),
        "{}",
        stored.out()
    );
}

/// The largest anonymous (heap) resident size of `pid` seen while `running` holds.
fn peak_heap_kib(pid: u32, running: impl Fn() -> bool) -> u64 {
    let mut peak = 0;
    while running() {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status"))
            && let Some(line) = status.lines().find(|l| l.starts_with("RssAnon:"))
        {
            let kib: u64 = line
                .split_whitespace()
                .nth(1)
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            peak = peak.max(kib);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    peak
}

#[test]
fn a_100_mb_result_is_streamed_into_the_store_with_a_small_heap() {
    use std::io::{Read, Write};
    let sb = Sandbox::new();
    let ds = downstream();
    let n: u64 = 100_000_000;
    let mut child = sb
        .cmd(&[
            "mcp",
            "proxy",
            "--",
            "python3",
            ds.to_str().unwrap(),
            "normal",
        ])
        .env("SPILL_SCOPE", "proxy-test")
        .spawn_piped();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&script(&[call(1, "huge", json!({"n": n}))]))
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).unwrap();
        out
    });
    let pid = child.id();
    let peak = peak_heap_kib(pid, || !reader.is_finished());
    let out = reader.join().unwrap();
    child.wait().unwrap();
    let t = Transcript {
        lines: split(&out),
        stderr: String::new(),
    };
    let envelope: Value = serde_json::from_str(&text_of(&t.by_id(1)["result"])).unwrap();
    // 65 literal bytes (`y` × 63 and `\n`) make 64 text bytes; the rest is `z`s.
    let piece = 65 * (1 << 14);
    let text_bytes = n / piece * (64 << 14) + n % piece;
    assert_eq!(envelope["sizeBytes"], text_bytes, "{envelope}");
    // The line is 100 MB; the heap stays near the 8 MiB spool size (a debug build).
    assert!(peak < 64 << 10, "peak heap {peak} KiB");
}

#[test]
fn a_large_resource_of_the_downstream_is_stored_and_a_small_one_passes() {
    let sb = Sandbox::new();
    let lines = [
        request(1, "resources/read", json!({"uri": "test://rows/5000"})),
        request(2, "resources/read", json!({"uri": "test://rows/3"})),
    ];
    let t = proxy(&sb, "normal", &[], &lines);
    let contents = &t.by_id(1)["result"]["contents"][0];
    assert_eq!(contents["uri"], "test://rows/5000");
    assert_eq!(contents["mimeType"], "text/plain");
    let envelope: Value = serde_json::from_str(contents["text"].as_str().unwrap()).unwrap();
    assert_eq!(envelope["spilled"], true, "{envelope}");
    let found = sb
        .cmd(&["search", envelope["ref"].as_str().unwrap(), "-F", "MARKER"])
        .env("SPILL_SCOPE", "proxy-test")
        .run();
    assert!(found.out().starts_with("2501:1:MARKER"), "{}", found.out());
    let alone = direct("normal", &lines);
    assert_eq!(
        t.raw_by_id(2),
        alone
            .iter()
            .find(|l| l.starts_with(br#"{"jsonrpc": "2.0", "id": 2"#))
    );
}

#[test]
fn the_servers_reading_tools_count_in_the_scopes_tally() {
    let sb = Sandbox::new();
    let r = store_text(&sb, "srv", 20_000);
    let t = server(
        &sb,
        &[],
        &[
            call(1, "cat", json!({"source": r, "lines": "1:3"})),
            call(2, "search", json!({"source": r, "pattern": "line 19999 "})),
            call(3, "ls", json!({})),
        ],
    );
    assert!(
        t.by_id(1)["result"].is_object() && t.by_id(2)["result"].is_object(),
        "{:?} {}",
        t.lines
            .iter()
            .map(|l| String::from_utf8_lossy(l))
            .collect::<Vec<_>>(),
        t.stderr
    );
    let stats = sb.cmd(&["stats", "--json"]).env("SPILL_SCOPE", "srv").run();
    stats.status(0);
    let tally = &stats.json()["scopes"][0];
    // Two reads (ls is a listing, not a read of an output), their answers' JSON bytes.
    assert_eq!(tally["reads"], 2, "{tally}");
    let answers = t.by_id(1)["result"].to_string().len() + t.by_id(2)["result"].to_string().len();
    assert_eq!(tally["readBytes"], answers as u64, "{tally}");
}
