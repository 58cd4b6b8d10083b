//! `spill init HARNESS --mcp`: `spill mcp` registered as the harness's MCP server named
//! [`NAME`], in a JSON settings file whose servers are the members of one object
//! (`mcpServers`, opencode's `mcp`), and taken out again.
//!
//! The server is registered without a scope: `spill mcp` serves the scope the harness's hooks
//! bound to the harness process that started it, so an envelope's ref reads the same through
//! the shell and through its tools, and not from another conversation (README, "MCP").
//!
//! Like the hooks, the entry is spliced into the user's text laid out as the file lays out its
//! own and cut out again by `--uninstall` (byte for byte with the backup, or exactly what was
//! added). An entry is spill's only when it is named [`NAME`] and is exactly what `init` writes
//! for the absolute path of a spill binary: one the user changed (an `env` added) is theirs and
//! stays. A server of the user's that already runs `spill mcp`, under any name, is left alone
//! and no second one is added (its tools would be listed twice); a server named [`NAME`] that is
//! something else is left alone too, and said so.

use serde_json::Value;

use super::splice::{self, Kind, Node, Style};
use super::{Change, Edit, Entries, is_spill_path, runs_spill};

/// The name spill's server is registered under (its tools are `mcp__spill__search`, …).
pub const NAME: &str = "spill";

/// spill's MCP server in a JSON settings file: where the servers are, and the entry.
pub struct JsonServer {
    /// The key of the root's object of servers (`mcpServers`; opencode's `mcp`).
    pub table: &'static str,
    /// Whether the harness reads the file with comments (JSONC).
    pub comments: bool,
    /// The entry for a spill binary and the store root, as the harness's own `mcp add` would
    /// write it (the root only where the harness starts its servers without the variables that
    /// choose it: Kimi CLI).
    pub entry: fn(spill: &str, root: &str) -> Value,
}

/// The words a server entry runs: its `command` (a string, or opencode's array) and `args`.
/// `None` when they are not all strings (a remote server has none).
pub fn words(server: &Value) -> Option<Vec<String>> {
    let mut words: Vec<String> = match server.get("command")? {
        Value::String(c) => vec![c.clone()],
        Value::Array(a) => a
            .iter()
            .map(|w| w.as_str().map(String::from))
            .collect::<Option<_>>()?,
        _ => return None,
    };
    if let Some(args) = server.get("args") {
        let args = args.as_array()?;
        for a in args {
            words.push(a.as_str()?.to_string());
        }
    }
    Some(words)
}

/// Whether a command's words start spill's MCP server (`spill mcp …`, not the proxy).
pub fn serves_store(words: &[String]) -> bool {
    words.len() >= 2
        && runs_spill(&words[0])
        && words[1] == "mcp"
        && words.get(2).is_none_or(|w| w != "proxy")
}

impl JsonServer {
    /// The spill binary of an entry that is exactly spill's (what `init` writes for it and
    /// `root`).
    fn own(&self, value: &Value, root: &str) -> Option<String> {
        let first = words(value)?.into_iter().next()?;
        (is_spill_path(&first) && (self.entry)(&first, root) == *value).then_some(first)
    }

    /// The decoded value at `node` of `plain` (the text with comments blanked).
    fn value(plain: &str, node: &Node) -> Option<Value> {
        serde_json::from_str(&splice::blank_trailing_commas(&plain[node.start..node.end])).ok()
    }

    fn plain(&self, text: &str) -> std::result::Result<String, String> {
        if self.comments {
            splice::blank_comments(text)
        } else {
            Ok(text.to_string())
        }
    }

    /// The servers' object of `root`, or `Err` when the key holds something else.
    fn servers<'n>(&self, root: &'n Node) -> std::result::Result<Option<&'n Node>, String> {
        match root.get(self.table) {
            None => Ok(None),
            Some(m) if matches!(m.value.kind, Kind::Object(_)) => Ok(Some(&m.value)),
            Some(_) => Err(format!(
                "\"{}\" in the settings file is not an object",
                self.table
            )),
        }
    }

    /// The text with spill's server, `None` when it has exactly that one already; an edit whose
    /// text is unchanged only tells why nothing was added.
    pub fn add(&self, text: &str, spill: &str, file: &str, store: &str) -> Change {
        let base = match splice::parse(text, self.comments)? {
            Some(_) => text.to_string(),
            None => super::with_object(text),
        };
        let root = splice::parse(&base, self.comments)?.expect("an object");
        let style = Style::of(&base, &root);
        let want = (self.entry)(spill, store);
        let Some(servers) = self.servers(&root)? else {
            let mut table = serde_json::Map::new();
            table.insert(NAME.into(), want);
            let new = splice::insert(
                &base,
                &root,
                &style,
                Some(self.table),
                &Value::Object(table),
            );
            return Ok(Some(Edit::plain(new)));
        };
        let plain = self.plain(&base)?;
        let left = |why: String| {
            Ok(Some(Edit {
                text: text.to_string(),
                notes: vec![format!("{why}; `spill mcp` not added to {file}")],
            }))
        };
        if let Some(m) = servers.get(NAME) {
            let value = Self::value(&plain, &m.value);
            if value.as_ref() == Some(&want) {
                return Ok(None);
            }
            // spill's own entry for another spill binary (it moved): it now names this one.
            if value.as_ref().and_then(|v| self.own(v, store)).is_some() {
                let new = splice::replace_value(&base, &m.value, &style, &want);
                return Ok(Some(Edit::plain(new)));
            }
        }
        for m in servers.members() {
            if Self::value(&plain, &m.value)
                .and_then(|v| words(&v))
                .is_some_and(|w| serves_store(&w))
            {
                return left(format!(
                    "MCP server {:?} already runs `spill mcp` (your entry, left as it is)",
                    m.key
                ));
            }
        }
        if servers.get(NAME).is_some() {
            return left(format!(
                "an MCP server named {NAME:?} is registered and is not `spill mcp` (rename it to \
                 let spill register its own)"
            ));
        }
        Ok(Some(Edit::plain(splice::insert(
            &base,
            servers,
            &style,
            Some(NAME),
            &want,
        ))))
    }

    /// The text without spill's server, `None` when it has none: the backup's bytes when the
    /// text is exactly what [`add`](Self::add) made of it, else the entry cut out (and the
    /// servers' object with it when spill's entry was its only one and the backup had none).
    pub fn remove(&self, text: &str, backup: Option<&str>, store: &str) -> Change {
        // No entry of spill's without its key as `add` writes it: a file spill cannot read
        // (broken by hand) is then no concern of `--uninstall`'s.
        if !text.contains(&format!("\"{NAME}\"")) {
            return Ok(None);
        }
        let Some(root) = splice::parse(text, self.comments)? else {
            return Ok(None);
        };
        let Some(servers) = self.servers(&root)? else {
            return Ok(None);
        };
        let plain = self.plain(text)?;
        let Some((i, spill)) = servers
            .members()
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, m)| {
                (m.key == NAME)
                    .then(|| Self::value(&plain, &m.value).and_then(|v| self.own(&v, store)))
                    .flatten()
                    .map(|spill| (i, spill))
            })
        else {
            return Ok(None);
        };
        if let Some(old) = backup
            && let Ok(Some(made)) = self.add(old, &spill, "", store)
            && made.text == text
        {
            return Ok(Some(Edit::plain(old.to_string())));
        }
        let had_table = backup
            .and_then(|b| splice::parse(b, self.comments).ok().flatten())
            .is_some_and(|old| old.get(self.table).is_some());
        let new = if servers.len() > 1 || had_table {
            splice::remove(text, servers, i)
        } else {
            let at = root
                .index(self.table)
                .expect("the servers' object is a member");
            splice::remove(text, &root, at)
        };
        Ok(Some(Edit::plain(new)))
    }
}

impl Entries for JsonServer {
    fn install(&self, text: &str, spill: &str, file: &str) -> Change {
        self.add(text, spill, file, "")
    }

    fn uninstall(&self, text: &str, backup: Option<&str>) -> Change {
        self.remove(text, backup, "")
    }

    fn install_at(&self, text: &str, spill: &str, file: &str, root: &str) -> Change {
        self.add(text, spill, file, root)
    }

    fn uninstall_at(&self, text: &str, backup: Option<&str>, root: &str) -> Change {
        self.remove(text, backup, root)
    }

    fn what(&self) -> &'static str {
        "MCP server (`spill mcp`)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPILL: &str = "/usr/local/bin/spill";

    static SERVERS: JsonServer = JsonServer {
        table: "mcpServers",
        comments: true,
        entry: |spill, _| serde_json::json!({"command": spill, "args": ["mcp"]}),
    };

    static OPENCODE: JsonServer = JsonServer {
        table: "mcp",
        comments: true,
        entry: |spill, _| serde_json::json!({"type": "local", "command": [spill, "mcp"]}),
    };

    fn parsed(text: &str) -> Value {
        serde_json::from_str(&splice::blank_comments(text).unwrap()).unwrap()
    }

    #[test]
    fn the_server_goes_in_and_comes_out_byte_for_byte() {
        for (format, texts) in [
            (
                &SERVERS,
                &[
                    "",
                    "{}",
                    "{\n  \"theme\": \"dark\"\n}\n",
                    "{\"mcpServers\":{\"fake\":{\"command\":\"x\"}}}",
                    "{\n    // mine\n    \"mcpServers\": {\n        \"fake\": {\"command\": \"x\", \"args\": [\"1e3\"]}\n    }\n}\n",
                    "// only a comment\n",
                    "{\r\n  \"mcpServers\": {}\r\n}\r\n",
                ][..],
            ),
            (
                &OPENCODE,
                &[
                    "{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n",
                    "{\"mcp\": {\"fake\": {\"type\": \"local\", \"command\": [\"x\"]}}}\n",
                ][..],
            ),
        ] {
            for text in texts {
                let added = format.add(text, SPILL, "f", "/r").unwrap().unwrap().text;
                let v = parsed(&added);
                assert_eq!(
                    v[format.table][NAME],
                    (format.entry)(SPILL, "/r"),
                    "{added}"
                );
                // Again: nothing to change.
                assert_eq!(format.add(&added, SPILL, "f", "/r").unwrap(), None);
                // Out with the backup: its bytes; without it: the same, cut exactly.
                let back = format
                    .remove(&added, Some(text), "/r")
                    .unwrap()
                    .unwrap()
                    .text;
                assert_eq!(back, *text);
                // Without it, spill's entry is cut, and the object of servers with it when that
                // was its only one: an empty file, a comment alone or an empty object of
                // servers before `init` are not restored.
                let cut = format.remove(&added, None, "/r").unwrap().unwrap().text;
                if !text.trim().is_empty() && !text.starts_with("//") && !text.contains("{}\r") {
                    assert_eq!(cut, *text, "{added}");
                } else {
                    assert_eq!(parsed(&cut).get(format.table), None, "{cut}");
                }
                assert_eq!(format.remove(text, Some(text), "/r").unwrap(), None);
            }
        }
    }

    #[test]
    fn other_servers_and_changes_of_the_users_stay() {
        // Another server added after init: only spill's entry goes.
        let added = SERVERS.add("{}", SPILL, "f", "/r").unwrap().unwrap().text;
        let mut v = parsed(&added);
        v["mcpServers"]["later"] = serde_json::json!({"command": "y"});
        let text = serde_json::to_string_pretty(&v).unwrap();
        let out = parsed(
            &SERVERS
                .remove(&text, Some("{}"), "/r")
                .unwrap()
                .unwrap()
                .text,
        );
        assert_eq!(
            out,
            serde_json::json!({"mcpServers": {"later": {"command": "y"}}})
        );
        // The user's own registration of spill mcp, under any name: nothing added, said so.
        for theirs in [
            r#"{"mcpServers": {"store": {"command": "spill", "args": ["mcp", "--page-size", "50"]}}}"#,
            r#"{"mcpServers": {"spill": {"command": "/opt/spill", "args": ["mcp"], "env": {"A": "1"}}}}"#,
        ] {
            let edit = SERVERS.add(theirs, SPILL, "f", "/r").unwrap().unwrap();
            assert_eq!(edit.text, theirs);
            assert!(
                edit.notes[0].contains("already runs `spill mcp`"),
                "{edit:?}"
            );
            assert_eq!(SERVERS.remove(theirs, None, "/r").unwrap(), None);
        }
        // A server of another kind named spill.
        let other = r#"{"mcpServers": {"spill": {"command": "npx", "args": ["spill-server"]}}}"#;
        let edit = SERVERS.add(other, SPILL, "f", "/r").unwrap().unwrap();
        assert_eq!(edit.text, other);
        assert!(edit.notes[0].contains("not `spill mcp`"));
        // The proxy is not spill's server.
        let routed = r#"{"mcpServers": {"files": {"command": "/bin/spill", "args": ["mcp", "proxy", "--", "x"]}}}"#;
        let added = SERVERS.add(routed, SPILL, "f", "/r").unwrap().unwrap().text;
        assert_eq!(
            parsed(&added)["mcpServers"][NAME],
            (SERVERS.entry)(SPILL, "/r")
        );
        // spill's entry for a binary that moved now names this one.
        let moved = SERVERS
            .add("{}", "/old/spill", "f", "/r")
            .unwrap()
            .unwrap()
            .text;
        let now = SERVERS.add(&moved, SPILL, "f", "/r").unwrap().unwrap().text;
        assert_eq!(
            parsed(&now)["mcpServers"][NAME],
            (SERVERS.entry)(SPILL, "/r")
        );
        assert_eq!(
            SERVERS.remove(&now, None, "/r").unwrap().unwrap().text,
            "{}"
        );
    }

    #[test]
    fn a_file_of_another_shape_is_refused() {
        for bad in [r#"{"mcpServers": []}"#, "[]", "{\"a\": "] {
            assert!(SERVERS.add(bad, SPILL, "f", "/r").is_err(), "{bad}");
        }
        assert!(
            SERVERS
                .remove(r#"{"mcpServers": 1, "x": "spill"}"#, None, "/r")
                .is_err()
        );
        // A file that cannot hold spill's entry is no concern of `--uninstall`'s.
        assert_eq!(SERVERS.remove(r#"{"mcpServers": "#, None, "/r"), Ok(None));
    }

    #[test]
    fn only_spill_mcp_serves_the_store() {
        let w =
            |words: &[&str]| serves_store(&words.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert!(w(&["spill", "mcp"]));
        assert!(w(&["/x/spill", "mcp", "--allow-run"]));
        assert!(!w(&["/x/spill", "mcp", "proxy", "--", "y"]));
        assert!(!w(&["spill"]));
        assert!(!w(&["node", "mcp"]));
        assert_eq!(
            words(&serde_json::json!({"command": ["a", "b"], "args": ["c"]})),
            Some(vec!["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(words(&serde_json::json!({"url": "http://x"})), None);
    }
}
