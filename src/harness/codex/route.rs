//! `spill init codex --proxy-mcp`: each stdio MCP server of `config.toml` (`[mcp_servers.NAME]`)
//! routed through `spill mcp proxy`, and back again.
//!
//! Codex cuts an MCP tool's result at about 12 KB and has no hook that can replace it, so the
//! only route for a large result is a proxy in front of the server. A server's entry keeps every
//! key but two: `command` becomes the spill binary and `args` gains `"mcp", "proxy", "--"` and
//! the original command in front of its own arguments (`env`, `cwd`, `enabled`, the timeouts and
//! comments stay as they are). The edit is made in the text at the values' spans, never by
//! rendering the document: the original command's spelling moves into `args` verbatim and the
//! inserted words are cut out again by `--uninstall`, so the file comes back byte for byte also
//! when the backup no longer matches. Remote servers (`url`) are not routed (the stdio proxy
//! cannot front them) and said so; a server that already runs spill is left alone.

use toml_edit::{Item, Value};

use super::init::basic_string;
use crate::init::{self, Change, Edit};

/// spill's proxy route in `config.toml`.
pub static ROUTES: init::Routes = init::Routes { route, unroute };

/// One server entry as the text holds it.
struct Server<'d> {
    name: String,
    /// `[mcp_servers.NAME]` (`Some(dotted)`), or an inline table (`None`).
    table: Option<bool>,
    command: Option<&'d Value>,
    /// The `args` value and where its key starts.
    args: Option<(&'d Value, usize)>,
    url: bool,
}

/// A server table's lookup: where a key starts, and its item.
type Lookup<'d> = Box<dyn Fn(&str) -> Option<(usize, &'d Item)> + 'd>;

/// Every entry of `[mcp_servers]`, in the file's order.
fn servers<'d>(doc: &'d toml_edit::Document<&str>) -> Vec<Server<'d>> {
    let Some(all) = doc.as_table().get("mcp_servers") else {
        return Vec::new();
    };
    let entries: Vec<(String, &Item)> = match all {
        Item::Table(t) => t.iter().map(|(k, v)| (k.to_string(), v)).collect(),
        Item::Value(Value::InlineTable(t)) => t
            .iter()
            .map(|(k, _)| (k.to_string(), t.get_key_value(k).expect("listed").1))
            .collect(),
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for (name, item) in entries {
        let (table, found): (Option<bool>, Lookup<'d>) = match item {
            Item::Table(t) => (
                Some(t.is_dotted()),
                Box::new(move |k: &str| {
                    let (key, v) = t.get_key_value(k)?;
                    Some((key.span()?.start, v))
                }),
            ),
            Item::Value(Value::InlineTable(t)) => (
                None,
                Box::new(move |k: &str| {
                    let (key, v) = t.get_key_value(k)?;
                    Some((key.span()?.start, v))
                }),
            ),
            _ => continue,
        };
        let value = |k: &str| found(k).and_then(|(at, v)| Some((v.as_value()?, at)));
        out.push(Server {
            name,
            table,
            command: value("command").map(|(v, _)| v),
            args: value("args"),
            url: found("url").is_some(),
        });
    }
    out
}

/// The spill binary of a routed entry: a command that is a spill binary as `init` writes it and
/// `args` that start with `mcp proxy --` and a command to run.
fn routed(server: &Server) -> Option<String> {
    let spill = server.command?.as_str()?;
    let args = server.args?.0.as_array()?;
    let words: Vec<&str> = args.iter().take(4).filter_map(Value::as_str).collect();
    (init::is_spill_path(spill) && words.len() == 4 && words[..3] == init::PROXY)
        .then(|| spill.to_string())
}

fn parse(text: &str) -> std::result::Result<toml_edit::Document<&str>, String> {
    toml_edit::Document::parse(text).map_err(|e| {
        let why = e.to_string();
        format!(
            "config.toml is not valid TOML: {}",
            why.lines().last().unwrap_or("").trim()
        )
    })
}

/// The config text with every stdio MCP server routed through this spill's proxy, or `None`
/// when each already is (or there is none). The notes name the servers left alone and why; an
/// edit whose text is unchanged only tells them.
pub fn route(text: &str, spill: &str) -> Change {
    let doc = parse(text)?;
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let quoted = basic_string(spill);
    let mut cuts = Vec::new();
    let mut notes = Vec::new();
    for server in servers(&doc) {
        let name = &server.name;
        if let Some(theirs) = routed(&server) {
            // Ours for another spill binary: it runs this one now.
            if theirs != spill {
                let span = server.command.and_then(Value::span).expect("parsed");
                cuts.push((span.start, span.end, quoted.clone()));
            }
            continue;
        }
        if server.url {
            notes.push(format!(
                "MCP server {name} is remote (url): not routed, the stdio proxy cannot front it"
            ));
            continue;
        }
        let Some(command) = server.command.filter(|c| c.as_str().is_some()) else {
            notes.push(format!(
                "MCP server {name} has no command string: not routed"
            ));
            continue;
        };
        if init::runs_spill(command.as_str().expect("a string")) {
            notes.push(format!("MCP server {name} already runs spill: not routed"));
            continue;
        }
        let span = command.span().expect("parsed");
        let original = &text[span.clone()];
        cuts.push((span.start, span.end, quoted.clone()));
        let words = init::PROXY.map(basic_string).join(", ");
        match server.args {
            Some((args, _)) => {
                let Some(list) = args.as_array().filter(|a| a.iter().all(|v| v.is_str())) else {
                    notes.push(format!(
                        "MCP server {name} has args that are not a list of strings: not routed"
                    ));
                    cuts.pop();
                    continue;
                };
                match list.iter().next() {
                    // Before the first argument, on its line.
                    Some(first) => {
                        let at = first.span().expect("parsed").start;
                        cuts.push((at, at, format!("{words}, {original}, ")));
                    }
                    // Inside `[]`, with a trailing comma: `--uninstall` tells it from no args.
                    None => {
                        let at = args.span().expect("parsed").start + 1;
                        cuts.push((at, at, format!("{words}, {original},")));
                    }
                }
            }
            None => match server.table {
                Some(false) => {
                    let at = text[span.end..]
                        .find('\n')
                        .map_or(text.len(), |n| span.end + n + 1);
                    let lead = if at == text.len() && !text.ends_with('\n') {
                        newline
                    } else {
                        ""
                    };
                    let end = if lead.is_empty() { newline } else { "" };
                    cuts.push((at, at, format!("{lead}args = [{words}, {original}]{end}")));
                }
                None => cuts.push((
                    span.end,
                    span.end,
                    format!(", args = [{words}, {original}]"),
                )),
                Some(true) => {
                    notes.push(format!(
                        "MCP server {name} is written with dotted keys and has no args: not \
                         routed (write it as a [mcp_servers.{name}] table)"
                    ));
                    cuts.pop();
                }
            },
        }
    }
    if cuts.is_empty() {
        // Nothing to change; what was left alone is still said (`--dry-run` too).
        return Ok((!notes.is_empty()).then(|| Edit {
            text: text.to_string(),
            notes,
        }));
    }
    let new = init::apply_cuts(text, cuts);
    parse(&new).map_err(|e| {
        format!("routing its MCP servers would leave config.toml unreadable ({e}); nothing changed")
    })?;
    Ok(Some(Edit { text: new, notes }))
}

/// The config text with spill's routes taken out again, or `None` when it has none. When the
/// result is what `route` made of `backup`, the backup's bytes come back.
pub fn unroute(text: &str, backup: Option<&str>) -> Change {
    // No route without the word: a file spill cannot read (broken by hand) is then no concern
    // of `--uninstall`'s.
    if !text.contains("proxy") {
        return Ok(None);
    }
    let doc = parse(text)?;
    let mut cuts = Vec::new();
    let mut spills = Vec::new();
    for server in servers(&doc) {
        let Some(spill) = routed(&server) else {
            continue;
        };
        let command = server.command.and_then(Value::span).expect("parsed");
        let (args, key_at) = server.args.expect("routed");
        let list = args.as_array().expect("routed");
        let items: Vec<std::ops::Range<usize>> =
            list.iter().map(|v| v.span().expect("parsed")).collect();
        let original = &text[items[3].clone()];
        cuts.push((command.start, command.end, original.to_string()));
        if items.len() > 4 {
            cuts.push((items[0].start, items[4].start, String::new()));
        } else if list.trailing_comma() {
            let comma = items[3].end + text[items[3].end..].find(',').expect("a trailing comma");
            cuts.push((items[0].start, comma + 1, String::new()));
        } else if server.table.is_some() {
            // The line `route` added.
            let start = text[..key_at].rfind('\n').map_or(0, |n| n + 1);
            let end = args.span().expect("parsed").end;
            let end = text[end..].find('\n').map_or(text.len(), |n| end + n + 1);
            let start = if end == text.len() && !text.ends_with('\n') {
                start.saturating_sub(1 + usize::from(text[..start].ends_with("\r\n")))
            } else {
                start
            };
            cuts.push((start, end, String::new()));
        } else {
            cuts.push((command.end, args.span().expect("parsed").end, String::new()));
        }
        if !spills.contains(&spill) {
            spills.push(spill);
        }
    }
    init::unroute(text, backup, &spills, cuts, route)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPILL: &str = "/usr/bin/spill";

    fn routed_text(text: &str) -> String {
        route(text, SPILL).unwrap().unwrap().text
    }

    #[test]
    fn each_form_of_server_is_routed_and_given_back_byte_for_byte() {
        for text in [
            "[mcp_servers.files]\ncommand = \"npx\"\nargs = [\"-y\", \"srv\"]\nenv = { A = \"1\" }\n",
            "[mcp_servers.files]\ncommand = 'npx'   # literal\nargs = [\n  '-y', # why\n  \"srv\",\n]\ncwd = \"/w\"\n",
            "[mcp_servers.files]\ncommand = \"npx\"\nargs = []\n",
            "[mcp_servers.files]\ncommand = \"npx\"\nargs = [ ]\n",
            "[mcp_servers.files]\ncommand = \"npx\"\n\n[mcp_servers.files.env]\nA = \"1\"\n",
            "[mcp_servers.files]\ncommand = \"npx\"",
            "[mcp_servers.files]\r\ncommand = \"npx\"\r\n",
            "[mcp_servers]\nfiles = { command = \"npx\" }\nother = {command=\"x\",args=[\"a\"]}\n",
            "mcp_servers = { files = { command = \"npx\", args = [\"-y\"] } }\n",
            "[mcp_servers]\nfiles.command = \"npx\"\nfiles.args = [\"-y\"]\n",
        ] {
            let new = routed_text(text);
            let doc = parse(&new).unwrap();
            for server in servers(&doc) {
                assert_eq!(routed(&server).as_deref(), Some(SPILL), "{new}");
            }
            assert!(new.contains("\"mcp\", \"proxy\", \"--\", "), "{new}");
            assert_eq!(route(&new, SPILL).unwrap(), None, "{new}");
            assert_eq!(route("", SPILL).unwrap(), None);
            assert_eq!(unroute(&new, None).unwrap().unwrap().text, text, "{new}");
            assert_eq!(unroute(&new, Some(text)).unwrap().unwrap().text, text);
            assert_eq!(unroute(text, None).unwrap(), None);
        }
        let new = routed_text("[mcp_servers.f]\ncommand = 'npx'\nargs = [\"-y\"]\n");
        assert_eq!(
            new,
            "[mcp_servers.f]\ncommand = \"/usr/bin/spill\"\nargs = [\"mcp\", \"proxy\", \"--\", 'npx', \"-y\"]\n"
        );
    }

    #[test]
    fn remote_servers_spill_itself_and_odd_entries_are_left_and_named() {
        let text = "[mcp_servers.web]\nurl = \"https://x\"\n\n[mcp_servers.store]\ncommand = \"spill\"\nargs = [\"mcp\"]\n\n[mcp_servers.odd]\ncommand = \"x\"\nargs = [1]\n\n[mcp_servers.dots]\nx = 1\n";
        let told = route(text, SPILL).unwrap().unwrap();
        assert_eq!((told.text.as_str(), told.notes.len()), (text, 4));
        let with = format!("{text}\n[mcp_servers.files]\ncommand = \"npx\"\n");
        let edit = route(&with, SPILL).unwrap().unwrap();
        let notes = edit.notes.join("\n");
        for name in [
            "web is remote",
            "store already runs spill",
            "odd has args",
            "dots has no command",
        ] {
            assert!(notes.contains(name), "{notes}");
        }
        assert!(edit.text.starts_with(text));
        // A user's own proxy route (spill by name, not by path) stays theirs.
        let theirs =
            "[mcp_servers.f]\ncommand = \"spill\"\nargs = [\"mcp\", \"proxy\", \"--\", \"npx\"]\n";
        assert_eq!(unroute(theirs, None).unwrap(), None);
        // Routed for another spill binary: moved to this one, and still given back.
        let moved = route(&edit.text, "/opt/spill").unwrap().unwrap().text;
        assert!(moved.contains("command = \"/opt/spill\""));
        assert_eq!(unroute(&moved, None).unwrap().unwrap().text, with);
    }
}
