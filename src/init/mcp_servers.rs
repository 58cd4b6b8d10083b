//! `spill init NAME --proxy-mcp` for a harness whose MCP servers are registered in JSON as
//! `{"mcpServers": {NAME: {"command": "…", "args": […], "env": {…}}}}` (Kimi CLI's `mcp.json`;
//! the shape Claude Code, Gemini CLI and others share): each stdio server routed through
//! `spill mcp proxy`, and back again. Names no harness: a harness's `route.rs` gives it its
//! settings ([`McpServers`]).
//!
//! A routed entry keeps every member but two, changed in the text at their spans: `command`
//! becomes the spill binary, and `args` gains spill's words and the original command in front
//! of its own arguments, `"mcp", "proxy", "--", ORIGINAL, …` (with [`McpServers::dir`],
//! `"mcp", "proxy", "--dir", ROOT, "--", ORIGINAL, …`). The original command's literal moves
//! into `args` verbatim, so `--uninstall` puts it back byte for byte and cuts exactly the words
//! `init` inserted, also when the backup no longer matches the file. An entry without `args`
//! gets the member right after its command (`, "args": [...]`); an entry with `"args": []` gets
//! the words inside it without spaces (`["mcp","proxy","--","x"]`), which is how `--uninstall`
//! tells the two apart. Remote servers (`url`) are not routed (the stdio proxy cannot front
//! them) and said so; a server that already runs spill is left alone.

use serde_json::Value;

use super::splice::{self, Kind, Node};
use super::string_at as string;
use super::{Change, Cut, Edit, Entries};

/// The routes of one harness's `mcpServers` file.
pub struct McpServers {
    /// Whether the harness reads the file with comments (JSONC).
    pub comments: bool,
    /// Whether the route names the store root (`--dir ROOT`, the root `spill init` resolves):
    /// for a harness that starts its MCP servers without the user's environment (Kimi CLI
    /// passes a stdio server `HOME`, `PATH` and four more, no `TMPDIR` or `SPILL_DIR`), whose
    /// proxy would otherwise store under another root than its shell's commands read.
    pub dir: bool,
}

impl Entries for McpServers {
    fn install(&self, text: &str, spill: &str, _file: &str) -> Change {
        route(text, spill, None, self.comments)
    }

    fn uninstall(&self, text: &str, backup: Option<&str>) -> Change {
        unroute(text, backup, self.comments)
    }

    fn install_at(&self, text: &str, spill: &str, _file: &str, root: &str) -> Change {
        route(text, spill, self.dir.then_some(root), self.comments)
    }

    fn what(&self) -> &'static str {
        "MCP proxy routes"
    }
}

/// A JSON string literal.
fn quoted(s: &str) -> String {
    Value::from(s).to_string()
}

/// The entries of the object `key` of the root (`mcpServers`; opencode's `mcp`) that are
/// objects: name, entry.
pub fn servers<'n>(root: &'n Node, key: &str) -> Vec<(&'n str, &'n Node)> {
    root.get(key)
        .map(|m| {
            m.value
                .members()
                .iter()
                .filter(|s| matches!(s.value.kind, Kind::Object(_)))
                .map(|s| (s.key.as_str(), &s.value))
                .collect()
        })
        .unwrap_or_default()
}

/// spill's words at the head of a routed entry's `args`.
fn words(dir: Option<&str>) -> Vec<String> {
    let mut out = vec!["mcp".to_string(), "proxy".to_string()];
    if let Some(dir) = dir {
        out.extend(["--dir".to_string(), dir.to_string()]);
    }
    out.push("--".into());
    out
}

/// [`words`] as JSON string literals.
fn quoted_words(dir: Option<&str>) -> Vec<String> {
    words(dir).iter().map(|w| quoted(w)).collect()
}

/// A routed entry as `init` wrote it: its command (the spill binary), its `args` (spill's words,
/// the original command, its own arguments), the root its words name, and how many words are
/// spill's (the original command's index).
struct Routed<'n> {
    command: &'n Node,
    args: &'n Node,
    spill: String,
    dir: Option<String>,
    ours: usize,
}

fn routed<'n>(text: &str, server: &'n Node) -> Option<Routed<'n>> {
    let command = &server.get("command")?.value;
    let spill = string(text, command)?;
    if !super::is_spill_path(&spill) {
        return None;
    }
    let args = &server.get("args")?.value;
    let list: Vec<String> = args
        .elements()
        .iter()
        .take(6)
        .map_while(|n| string(text, n))
        .collect();
    let (dir, ours) = match list.as_slice() {
        [m, p, d, dir, end, _, ..] if [m, p, d, end] == ["mcp", "proxy", "--dir", "--"] => {
            (Some(dir.clone()), 5)
        }
        [m, p, end, _, ..] if [m, p, end] == super::PROXY => (None, 3),
        _ => return None,
    };
    Some(Routed {
        command,
        args,
        spill,
        dir,
        ours,
    })
}

/// The file's text with every stdio MCP server routed through this spill's proxy (naming the
/// store root `dir` where given), or `None` when each already is (or there is none). The notes
/// name the servers left alone and why; an edit whose text is unchanged only tells them.
pub fn route(text: &str, spill: &str, dir: Option<&str>, comments: bool) -> Change {
    let Some(root) = splice::parse(text, comments)? else {
        return Ok(None);
    };
    let mut cuts: Vec<Cut> = Vec::new();
    let mut notes = Vec::new();
    for (name, server) in servers(&root, "mcpServers") {
        if let Some(ours) = routed(text, server) {
            // Routed by another spill binary, or for another root: made this one's.
            if ours.spill != spill {
                cuts.push((ours.command.start, ours.command.end, quoted(spill)));
            }
            if ours.dir.as_deref() != dir {
                // Laid out as before (`,` inside what was `[]`), for `--uninstall`'s reading.
                let list = ours.args.elements();
                let sep = match &text[list[0].end..list[1].start] {
                    "," => ",",
                    _ => ", ",
                };
                let new = quoted_words(dir).join(sep);
                let end = list[ours.ours].start;
                cuts.push((list[0].start, end, format!("{new}{sep}")));
            }
            continue;
        }
        if server.get("url").is_some() {
            notes.push(format!(
                "MCP server {name} is remote (url): not routed, the stdio proxy cannot front it"
            ));
            continue;
        }
        let Some((command, program)) = server
            .get("command")
            .and_then(|c| Some((&c.value, string(text, &c.value)?)))
        else {
            notes.push(format!(
                "MCP server {name} has no command string: not routed"
            ));
            continue;
        };
        if super::runs_spill(&program) {
            notes.push(format!("MCP server {name} already runs spill: not routed"));
            continue;
        }
        let original = &text[command.start..command.end];
        let head = quoted_words(dir);
        match server.get("args").map(|a| &a.value) {
            Some(args)
                if matches!(args.kind, Kind::Array(_))
                    && args.elements().iter().all(|n| string(text, n).is_some()) =>
            {
                cuts.push((command.start, command.end, quoted(spill)));
                match args.elements().first() {
                    Some(first) => cuts.push((
                        first.start,
                        first.start,
                        format!("{}, {original}, ", head.join(", ")),
                    )),
                    // Inside `[]`, without spaces: `--uninstall` tells it from no `args`.
                    None => cuts.push((
                        args.start + 1,
                        args.start + 1,
                        format!("{},{original}", head.join(",")),
                    )),
                }
            }
            Some(_) => notes.push(format!(
                "MCP server {name} has args that are not a list of strings: not routed"
            )),
            None => {
                cuts.push((command.start, command.end, quoted(spill)));
                cuts.push((
                    command.end,
                    command.end,
                    format!(", \"args\": [{}, {original}]", head.join(", ")),
                ));
            }
        }
    }
    super::route_edit(text, cuts, notes)
}

/// The file's text with spill's routes taken out again, or `None` when it has none. When the
/// text is what [`route`] made of `backup` (the file before the first `init`), the backup's
/// bytes come back.
pub fn unroute(text: &str, backup: Option<&str>, comments: bool) -> Change {
    // No route without the word: a file spill cannot read (broken by hand) is then no concern
    // of `--uninstall`'s.
    if !text.contains("proxy") {
        return Ok(None);
    }
    let Some(root) = splice::parse(text, comments)? else {
        return Ok(None);
    };
    let mut cuts: Vec<Cut> = Vec::new();
    let mut made: Vec<(String, Option<String>)> = Vec::new();
    for (_, server) in servers(&root, "mcpServers") {
        let Some(ours) = routed(text, server) else {
            continue;
        };
        let list = ours.args.elements();
        let original = &list[ours.ours];
        cuts.push((
            ours.command.start,
            ours.command.end,
            text[original.start..original.end].to_string(),
        ));
        let after_command = &text[ours.command.end..ours.args.start];
        if let Some(next) = list.get(ours.ours + 1) {
            cuts.push((list[0].start, next.start, String::new()));
        } else if &text[list[0].end..list[1].start] == "," {
            // The words went into the entry's own `[]`.
            cuts.push((list[0].start, original.end, String::new()));
        } else if after_command.trim_start_matches(", \"args\":").trim() == "" {
            // `args` was added right after the command: it goes as a whole.
            cuts.push((ours.command.end, ours.args.end, String::new()));
        } else {
            cuts.push((list[0].start, original.end, String::new()));
        }
        let key = (ours.spill, ours.dir);
        if !made.contains(&key) {
            made.push(key);
        }
    }
    if cuts.is_empty() {
        return Ok(None);
    }
    if let Some(old) = backup {
        for (spill, dir) in &made {
            if let Ok(Some(again)) = route(old, spill, dir.as_deref(), comments)
                && again.text == text
            {
                return Ok(Some(Edit::plain(old.to_string())));
            }
        }
    }
    Ok(Some(Edit::plain(super::apply_cuts(text, cuts))))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPILL: &str = "/usr/bin/spill";

    fn parsed(text: &str) -> Value {
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
    }

    #[test]
    fn stdio_servers_are_routed_and_given_back_byte_for_byte() {
        for text in [
            r#"{"mcpServers":{"files":{"command":"npx","args":["-y","srv"],"env":{"A":"1"}}}}"#,
            "{\n  \"mcpServers\": {\n    \"files\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"srv\"\n      ]\n    },\n    \"bare\": {\n      \"command\": \"/opt/x\\u0020y\",\n      \"env\": {}\n    },\n    \"empty\": { \"command\": \"z\", \"args\": [] }\n  },\n  \"other\": 1e3\n}\n",
        ] {
            for dir in [None, Some("/tmp/spill-0")] {
                let new = route(text, SPILL, dir, false).unwrap().unwrap().text;
                let doc = parsed(&new);
                for (_, server) in doc["mcpServers"].as_object().unwrap() {
                    let args: Vec<&str> = server["args"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|a| a.as_str().unwrap())
                        .collect();
                    assert_eq!(server["command"], SPILL, "{new}");
                    let head = match dir {
                        Some(d) => vec!["mcp", "proxy", "--dir", d, "--"],
                        None => vec!["mcp", "proxy", "--"],
                    };
                    assert_eq!(args[..head.len()], head[..], "{new}");
                }
                // The original command's literal moved verbatim (its escape decodes as before).
                if let Some(bare) = doc["mcpServers"].get("bare") {
                    assert_eq!(bare["args"][3 + 2 * usize::from(dir.is_some())], "/opt/x y");
                    assert!(new.contains(r#""--", "/opt/x\u0020y"]"#), "{new}");
                }
                assert_eq!(route(&new, SPILL, dir, false).unwrap(), None);
                assert_eq!(unroute(&new, None, false).unwrap().unwrap().text, text);
                assert_eq!(
                    unroute(&new, Some(text), false).unwrap().unwrap().text,
                    text
                );
                assert_eq!(unroute(text, None, false).unwrap(), None);
                // Another spill binary, or another root: made this one's, and still cut out.
                let moved = route(&new, "/opt/spill", Some("/elsewhere"), false)
                    .unwrap()
                    .unwrap()
                    .text;
                assert!(moved.contains(r#""--dir", "/elsewhere", "--""#), "{moved}");
                assert_eq!(unroute(&moved, None, false).unwrap().unwrap().text, text);
                let back = route(&moved, SPILL, dir, false).unwrap().unwrap().text;
                assert_eq!(back, new);
            }
        }
    }

    #[test]
    fn the_file_changed_since_init_still_loses_exactly_spills_words() {
        let text = r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y", "args": []}}}"#;
        let new = route(text, SPILL, Some("/r"), false).unwrap().unwrap().text;
        let changed = new.replace("{\"mcpServers\"", "{\"theirs\": true, \"mcpServers\"");
        let want = text.replace("{\"mcpServers\"", "{\"theirs\": true, \"mcpServers\"");
        assert_eq!(
            unroute(&changed, Some(text), false).unwrap().unwrap().text,
            want
        );
    }

    #[test]
    fn remote_servers_and_spill_itself_are_left_and_named() {
        let text = r#"{"mcpServers":{"web":{"url":"https://x","transport":"http"},"store":{"command":"spill","args":["mcp"]},"odd":{"command":["x"]},"bad":{"command":"x","args":[1]}}}"#;
        let told = route(text, SPILL, None, false).unwrap().unwrap();
        assert_eq!(told.text, text);
        let notes = told.notes.join("\n");
        for name in [
            "web is remote",
            "store already runs spill",
            "odd has no command",
            "bad has args that are not",
        ] {
            assert!(notes.contains(name), "{notes}");
        }
        assert_eq!(route("", SPILL, None, false).unwrap(), None);
        assert_eq!(route("{}", SPILL, None, false).unwrap(), None);
        // A bare `spill` is the user's own route, not spill's.
        let theirs =
            r#"{"mcpServers":{"f":{"command":"spill","args":["mcp","proxy","--","npx"]}}}"#;
        assert_eq!(unroute(theirs, None, false).unwrap(), None);
        assert!(route("{\"mcpServers\": {} // no\n}", SPILL, None, false).is_err());
    }
}
