//! `spill init opencode --proxy-mcp`: each local MCP server of `opencode.json` (`mcp.NAME` of
//! `type` `local`, whose `command` is an array) routed through `spill mcp proxy`, and back.
//!
//! opencode cuts an MCP tool's result at about 51 KB and no plugin hook can replace it, so a
//! proxy in front of the server is the only route for a large result. The route is four words
//! put in front of the server's `command` array, `SPILL, "mcp", "proxy", "--"`, before its first
//! element and on its line; every other byte (`environment`, `enabled`, comments, layout) stays,
//! and `--uninstall` cuts exactly those words out again. Remote servers are not routed (the
//! stdio proxy cannot front them) and said so; a server that already runs spill is left alone.

use serde_json::Value;

use crate::init::splice::{self, Kind, Node};
use crate::init::string_at as string;
use crate::init::{self, Change};

/// `spill mcp` as a local server of opencode's config (`spill init opencode --mcp`; Kilo Code's
/// too), as `opencode mcp add` writes a local one.
pub static MCP: init::server::JsonServer = init::server::JsonServer {
    table: "mcp",
    comments: true,
    entry: |spill, _| serde_json::json!({"type": "local", "command": [spill, "mcp"]}),
};

/// spill's proxy route in opencode's config.
pub static ROUTES: init::Routes = init::Routes { route, unroute };

/// The servers of `mcp`: name, entry.
fn servers(root: &Node) -> Vec<(&str, &Node)> {
    crate::init::mcp_servers::servers(root, "mcp")
}

/// The spill binary of a routed command: a spill binary as `init` writes it, `mcp proxy --` and
/// a command to run.
fn routed(text: &str, command: &[Node]) -> Option<String> {
    let words: Vec<String> = command
        .iter()
        .take(5)
        .filter_map(|n| string(text, n))
        .collect();
    (words.len() == 5 && init::is_spill_path(&words[0]) && words[1..4] == init::PROXY)
        .then(|| words[0].clone())
}

/// The config text with every local MCP server routed through this spill's proxy, or `None`
/// when each already is (or there is none). The notes name the servers left alone and why; an
/// edit whose text is unchanged only tells them.
pub fn route(text: &str, spill: &str) -> Change {
    let Some(root) = splice::parse(text, true)? else {
        return Ok(None);
    };
    let quoted = Value::from(spill).to_string();
    let mut cuts = Vec::new();
    let mut notes = Vec::new();
    for (name, server) in servers(&root) {
        let kind = server.get("type").and_then(|t| string(text, &t.value));
        let command = server.get("command").map(|c| &c.value);
        if kind.as_deref() == Some("remote") || server.get("url").is_some() {
            notes.push(format!(
                "MCP server {name} is remote (url): not routed, the stdio proxy cannot front it"
            ));
            continue;
        }
        let Some(words) = command
            .filter(|c| matches!(c.kind, Kind::Array(_)))
            .map(|c| c.elements())
            .filter(|w| !w.is_empty() && w.iter().all(|n| string(text, n).is_some()))
        else {
            notes.push(format!(
                "MCP server {name} has no command array of strings: not routed"
            ));
            continue;
        };
        if let Some(theirs) = routed(text, words) {
            if theirs != spill {
                cuts.push((words[0].start, words[0].end, quoted.clone()));
            }
            continue;
        }
        if init::runs_spill(&string(text, &words[0]).expect("a string")) {
            notes.push(format!("MCP server {name} already runs spill: not routed"));
            continue;
        }
        let route = std::iter::once(quoted.clone())
            .chain(init::PROXY.map(|w| Value::from(w).to_string()))
            .collect::<Vec<_>>()
            .join(", ");
        cuts.push((words[0].start, words[0].start, format!("{route}, ")));
    }
    init::route_edit(text, cuts, notes)
}

/// The config text with spill's routes taken out again, or `None` when it has none. When the
/// result is what `route` made of `backup`, the backup's bytes come back.
pub fn unroute(text: &str, backup: Option<&str>) -> Change {
    // No route without the word: a file spill cannot read (broken by hand) is then no concern
    // of `--uninstall`'s.
    if !text.contains("proxy") {
        return Ok(None);
    }
    let Some(root) = splice::parse(text, true)? else {
        return Ok(None);
    };
    let mut cuts = Vec::new();
    let mut spills = Vec::new();
    for (_, server) in servers(&root) {
        let Some(command) = server.get("command") else {
            continue;
        };
        let words = command.value.elements();
        if let Some(spill) = routed(text, words) {
            cuts.push((words[0].start, words[4].start, String::new()));
            if !spills.contains(&spill) {
                spills.push(spill);
            }
        }
    }
    init::unroute(text, backup, &spills, cuts, route)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPILL: &str = "/usr/bin/spill";

    #[test]
    fn local_servers_are_routed_and_given_back_byte_for_byte() {
        for text in [
            r#"{"mcp":{"files":{"type":"local","command":["npx","-y","srv"],"environment":{"A":"1"}}}}"#,
            "{\n  // mine\n  \"mcp\": {\n    \"files\": {\n      \"type\": \"local\",\n      \"command\": [\n        \"npx\", /* why */\n        \"srv\"\n      ],\n      \"enabled\": true\n    },\n    \"b\": { \"type\": \"local\", \"command\": [\"x\"] }\n  }\n}\n",
        ] {
            let new = route(text, SPILL).unwrap().unwrap().text;
            assert!(
                new.contains(r#"["/usr/bin/spill", "mcp", "proxy", "--", "#)
                    || new.contains(r#""/usr/bin/spill", "mcp", "proxy", "--", "npx""#),
                "{new}"
            );
            let root = splice::parse(&new, true).unwrap().unwrap();
            for (_, s) in servers(&root) {
                assert!(routed(&new, s.get("command").unwrap().value.elements()).is_some());
            }
            assert_eq!(route(&new, SPILL).unwrap(), None);
            assert_eq!(unroute(&new, None).unwrap().unwrap().text, text);
            assert_eq!(unroute(&new, Some(text)).unwrap().unwrap().text, text);
            assert_eq!(unroute(text, None).unwrap(), None);
            let moved = route(&new, "/opt/spill").unwrap().unwrap().text;
            assert_eq!(unroute(&moved, None).unwrap().unwrap().text, text);
        }
    }

    #[test]
    fn remote_servers_and_spill_itself_are_left_and_named() {
        let text = r#"{"mcp":{"web":{"type":"remote","url":"https://x"},"store":{"type":"local","command":["spill","mcp"]},"odd":{"type":"local","command":"x"}}}"#;
        let told = route(text, SPILL).unwrap().unwrap();
        assert_eq!(told.text, text);
        let notes = told.notes.join("\n");
        for name in [
            "web is remote",
            "store already runs spill",
            "odd has no command",
        ] {
            assert!(notes.contains(name), "{notes}");
        }
        assert_eq!(route("", SPILL).unwrap(), None);
        assert_eq!(route("{}", SPILL).unwrap(), None);
        let theirs = r#"{"mcp":{"f":{"command":["spill","mcp","proxy","--","npx"]}}}"#;
        assert_eq!(unroute(theirs, None).unwrap(), None);
    }
}
