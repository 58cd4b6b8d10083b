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
//!
//! A routed entry also gets spill's variables in `env_vars` ([`PASSED`]): Codex starts a stdio
//! MCP server with a few variables of its own only (`HOME`, `PATH`, `TMPDIR`, …, and no
//! `SPILL_*`) plus those its `env_vars` names, so without them a proxy would store under
//! another root than the hook when the user set `SPILL_DIR` (or `SPILL_STORE`), and the
//! envelope's shell commands would not find its refs. An entry without `env_vars` gets the key
//! (a line of its own, or `, env_vars = […]` in an inline table); one whose list names none of
//! them gets them appended; one that names some is left as the user wrote it. `--uninstall` cuts
//! exactly what was added, found by its text.

use toml_edit::{Item, Value};

use super::init::basic_string;
use crate::init::{self, Change, Cut, Edit};

/// spill's proxy route in `config.toml`.
pub static ROUTES: init::Routes = init::Routes { route, unroute };

/// The variables a server spill starts in Codex must see as the hook does, for both to use the
/// same store: its root (`SPILL_DIR`), object store (`SPILL_STORE`) and settings. Codex passes
/// a name its process does not have as unset (checked with codex-cli 0.131.0 and 0.171.0).
/// Not `SPILL_SCOPE`: a server given a scope no longer follows the conversation.
pub const PASSED: [&str; 6] = [
    "SPILL_DIR",
    "SPILL_STORE",
    "SPILL_TTL",
    "SPILL_QUOTA",
    "SPILL_MAX_FILE",
    "SPILL_MAX_INLINE",
];

/// [`PASSED`] as the items of a TOML array: `"SPILL_DIR", "SPILL_STORE", …`.
pub fn passed_items() -> String {
    PASSED.map(basic_string).join(", ")
}

/// One server entry as the text holds it.
struct Server<'d> {
    name: String,
    /// `[mcp_servers.NAME]` (`Some(dotted)`), or an inline table (`None`).
    table: Option<bool>,
    command: Option<&'d Value>,
    /// The `args` value and where its key starts.
    args: Option<(&'d Value, usize)>,
    /// The `env_vars` value and where its key starts.
    env_vars: Option<(&'d Value, usize)>,
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
            env_vars: value("env_vars"),
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
            // Routed by a spill that passed no variables: they are added now.
            cuts.extend(pass_env(text, &server, newline, &mut notes));
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
                cuts.extend(pass_env(text, &server, newline, &mut notes));
            }
            None => match server.table {
                Some(false) => {
                    // The variables' line follows the new args line (one insertion), unless the
                    // entry has its own env_vars, which gets them appended.
                    let mut lines = vec![format!("args = [{words}, {original}]")];
                    match server.env_vars {
                        None => lines.push(format!("env_vars = [{}]", passed_items())),
                        Some(_) => cuts.extend(pass_env(text, &server, newline, &mut notes)),
                    }
                    cuts.push(line_after(text, span.end, newline, &lines.join(newline)));
                }
                None => {
                    let mut added = format!(", args = [{words}, {original}]");
                    match server.env_vars {
                        None => added.push_str(&format!(", env_vars = [{}]", passed_items())),
                        Some(_) => cuts.extend(pass_env(text, &server, newline, &mut notes)),
                    }
                    cuts.push((span.end, span.end, added));
                }
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

/// The cut that gives a routed server spill's variables in `env_vars` (the module's doc), or
/// `None` when it has them (or its list is left as the user wrote it, said in `notes`). An
/// entry without `env_vars` gets the key after its `args` (which a routed entry has).
fn pass_env(text: &str, server: &Server, newline: &str, notes: &mut Vec<String>) -> Option<Cut> {
    let items = passed_items();
    let name = &server.name;
    let Some((list, _)) = server.env_vars else {
        let (args, key_at) = server.args?;
        let end = args.span()?.end;
        return Some(match server.table {
            None => (end, end, format!(", env_vars = [{items}]")),
            // On a line of its own, after the args line, written as the args key is (its
            // indentation, or the dotted path `NAME.` before it).
            Some(_) => {
                let line = text[..key_at].rfind('\n').map_or(0, |n| n + 1);
                let prefix = &text[line..key_at];
                line_after(text, end, newline, &format!("{prefix}env_vars = [{items}]"))
            }
        });
    };
    // Codex takes a name, or a table with a `name`, for each variable.
    let names: Option<Vec<&str>> = list.as_array().and_then(|a| {
        a.iter()
            .map(|v| {
                v.as_str()
                    .or_else(|| v.as_inline_table()?.get("name")?.as_str())
            })
            .collect()
    });
    let Some(names) = names else {
        notes.push(format!(
            "MCP server {name} has env_vars that are not a list of names: left as it is; add \
             {items} to it, or its proxy stores under another root than the hook when SPILL_DIR \
             is set"
        ));
        return None;
    };
    if names.iter().any(|n| PASSED.contains(n)) {
        if !names.contains(&"SPILL_DIR") {
            notes.push(format!(
                "MCP server {name}'s env_vars names some of spill's variables but not SPILL_DIR: \
                 left as it is; add \"SPILL_DIR\" so its proxy uses the hook's store"
            ));
        }
        return None;
    }
    let array = list.as_array()?;
    Some(match array.iter().last() {
        Some(last) => {
            let at = last.span()?.end;
            (at, at, format!(", {items}"))
        }
        // Inside `[]`, with a trailing comma, as for args.
        None => {
            let at = list.span()?.start + 1;
            (at, at, format!("{items},"))
        }
    })
}

/// The cut that takes out what [`pass_env`] added to a routed server, found by its exact text;
/// `None` when there is none (or the user changed it).
fn unpass_env(text: &str, server: &Server) -> Option<Cut> {
    let (list, key_at) = server.env_vars?;
    let array = list.as_array()?;
    let span = list.span()?;
    let items = passed_items();
    let spans: Vec<std::ops::Range<usize>> =
        array.iter().map(Value::span).collect::<Option<_>>()?;
    if text[span.clone()] == format!("[{items}]") {
        // The key spill added: `, env_vars = […]` in an inline table, else its line.
        return match server.table {
            None => (key_at >= 2 && &text[key_at - 2..key_at] == ", ")
                .then(|| (key_at - 2, span.end, String::new())),
            Some(_) => {
                let rest = &text[span.end..];
                if !(rest.is_empty() || rest.starts_with('\n') || rest.starts_with("\r\n")) {
                    return None;
                }
                let start = text[..key_at].rfind('\n').map_or(0, |n| n + 1);
                let end = rest.find('\n').map_or(text.len(), |n| span.end + n + 1);
                let start = if end == text.len() && !text.ends_with('\n') {
                    start.saturating_sub(1 + usize::from(text[..start].ends_with("\r\n")))
                } else {
                    start
                };
                Some((start, end, String::new()))
            }
        };
    }
    let n = PASSED.len();
    if spans.len() > n {
        let (from, to) = (spans[spans.len() - n - 1].end, spans[spans.len() - 1].end);
        return (text[from..to] == format!(", {items}")).then(|| (from, to, String::new()));
    }
    if spans.len() == n && array.trailing_comma() {
        let from = span.start + 1;
        let comma = spans[n - 1].end + text[spans[n - 1].end..].find(',')?;
        return (text[from..=comma] == format!("{items},"))
            .then(|| (from, comma + 1, String::new()));
    }
    None
}

/// An insertion of `lines` on lines of their own after the line on which `end` lies (a file
/// that does not end with a newline gets one before them instead of after).
fn line_after(text: &str, end: usize, newline: &str, lines: &str) -> Cut {
    let at = text[end..].find('\n').map_or(text.len(), |n| end + n + 1);
    let lead = if at == text.len() && !text.ends_with('\n') {
        newline
    } else {
        ""
    };
    let trail = if lead.is_empty() { newline } else { "" };
    (at, at, format!("{lead}{lines}{trail}"))
}

/// The cuts with deletions that overlap or touch merged into one: taking out the args line
/// spill added and the `env_vars` line after it, at the end of a file without a final newline,
/// both claim the newline between them. Such merged lines that end the file take the newline
/// before them instead, as one line alone does.
fn merge_deletions(text: &str, mut cuts: Vec<Cut>) -> Vec<Cut> {
    cuts.sort_by_key(|c| c.0);
    let mut out: Vec<Cut> = Vec::with_capacity(cuts.len());
    for cut in cuts {
        match out.last_mut() {
            Some(last) if last.2.is_empty() && cut.2.is_empty() && cut.0 <= last.1 => {
                last.1 = last.1.max(cut.1);
                let line_start = last.0 == 0 || text[..last.0].ends_with('\n');
                if last.1 == text.len() && !text.ends_with('\n') && line_start && last.0 > 0 {
                    last.0 -= 1 + usize::from(text[..last.0].ends_with("\r\n"));
                }
            }
            _ => out.push(cut),
        }
    }
    out
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
        cuts.extend(unpass_env(text, &server));
        if !spills.contains(&spill) {
            spills.push(spill);
        }
    }
    init::unroute(text, backup, &spills, merge_deletions(text, cuts), route)
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
            "[mcp_servers.f]\ncommand = \"/usr/bin/spill\"\nargs = [\"mcp\", \"proxy\", \"--\", 'npx', \"-y\"]\n\
             env_vars = [\"SPILL_DIR\", \"SPILL_STORE\", \"SPILL_TTL\", \"SPILL_QUOTA\", \"SPILL_MAX_FILE\", \"SPILL_MAX_INLINE\"]\n"
        );
    }

    /// The names `env_vars` gives the server `name` in `text` (as Codex reads the file).
    fn passed(text: &str, name: &str) -> Vec<String> {
        let doc: toml_edit::DocumentMut = text.parse().unwrap();
        let Some(list) = doc["mcp_servers"][name].get("env_vars") else {
            return Vec::new();
        };
        list.as_array()
            .unwrap()
            .iter()
            .map(|v| match v.as_str() {
                Some(n) => n.to_string(),
                None => v.as_inline_table().unwrap()["name"]
                    .as_str()
                    .unwrap()
                    .into(),
            })
            .collect()
    }

    #[test]
    fn a_routed_server_is_passed_spills_variables_in_each_form_and_given_back() {
        for text in [
            "[mcp_servers.files]\ncommand = \"npx\"\nargs = [\"-y\", \"srv\"]\nenv = { A = \"1\" }\n",
            "[mcp_servers.files]\ncommand = 'npx'   # literal\nargs = [\n  '-y', # why\n  \"srv\",\n]  # end\ncwd = \"/w\"\n",
            "[mcp_servers.files]\n  command = \"npx\"\n  args = []\n",
            "[mcp_servers.files]\ncommand = \"npx\"\n\n[mcp_servers.files.env]\nA = \"1\"\n",
            "[mcp_servers.files]\ncommand = \"npx\"",
            "[mcp_servers.files]\ncommand = \"npx\"\nargs = [\"a\"]",
            "[mcp_servers.files]\r\ncommand = \"npx\"\r\n",
            "[mcp_servers.files]\r\ncommand = \"npx\"\r\nargs = [\"a\"]\r\n",
            "[mcp_servers]\nfiles = { command = \"npx\" }\n",
            "mcp_servers = { files = { command = \"npx\", args = [\"-y\"] } }\n",
            "[mcp_servers]\nfiles.command = \"npx\"\nfiles.args = [\"-y\"]\n",
            "mcp_servers.files.command = \"npx\"\nmcp_servers.files.args = [\"-y\"]\n",
        ] {
            let new = routed_text(text);
            assert_eq!(passed(&new, "files"), PASSED, "{new}");
            assert_eq!(route(&new, SPILL).unwrap(), None, "{new}");
            assert_eq!(unroute(&new, None).unwrap().unwrap().text, text, "{new}");
            assert_eq!(unroute(&new, Some(text)).unwrap().unwrap().text, text);
        }
    }

    #[test]
    fn a_servers_own_env_vars_get_spills_appended_or_are_left_as_written() {
        let all = |theirs: &[&str]| -> Vec<String> {
            theirs
                .iter()
                .chain(PASSED.iter())
                .map(|n| n.to_string())
                .collect()
        };
        for (list, want) in [
            ("[\"GEM_HOME\"]", all(&["GEM_HOME"])),
            ("[\"A\", \"B\",]", all(&["A", "B"])),
            ("[]", all(&[])),
            ("[ ]", all(&[])),
            ("[{ name = \"A\", source = \"local\" }]", all(&["A"])),
        ] {
            for text in [
                format!(
                    "[mcp_servers.files]\ncommand = \"npx\"\nenv_vars = {list}\nargs = [\"-y\"]\n"
                ),
                format!("[mcp_servers.files]\ncommand = \"npx\"\nenv_vars = {list}\n"),
                format!("[mcp_servers]\nfiles = {{ command = \"npx\", env_vars = {list} }}\n"),
            ] {
                let edit = route(&text, SPILL).unwrap().unwrap();
                assert!(edit.notes.is_empty(), "{:?}", edit.notes);
                assert_eq!(passed(&edit.text, "files"), want, "{}", edit.text);
                assert_eq!(route(&edit.text, SPILL).unwrap(), None);
                assert_eq!(unroute(&edit.text, None).unwrap().unwrap().text, text);
            }
        }
        // Names of spill's already there: the list is the user's, told when SPILL_DIR is missing.
        for (list, told) in [
            ("[\"SPILL_DIR\"]", false),
            ("[\"SPILL_TTL\", \"X\"]", true),
            ("[1]", true),
            ("\"SPILL_DIR\"", true),
        ] {
            let text = format!(
                "[mcp_servers.files]\ncommand = \"npx\"\nargs = [\"-y\"]\nenv_vars = {list}\n"
            );
            let edit = route(&text, SPILL).unwrap().unwrap();
            assert!(
                edit.text.ends_with(&format!("\nenv_vars = {list}\n")),
                "{}",
                edit.text
            );
            assert_eq!(
                edit.notes.len(),
                usize::from(told),
                "{list}: {:?}",
                edit.notes
            );
            assert_eq!(unroute(&edit.text, None).unwrap().unwrap().text, text);
        }
        // A list the user changed after the route keeps spill's names: nothing of it is cut.
        let routed = routed_text("[mcp_servers.f]\ncommand = \"npx\"\nargs = [\"-y\"]\n");
        let changed = routed.replace("\"SPILL_MAX_INLINE\"]", "\"SPILL_MAX_INLINE\", \"MINE\"]");
        let back = unroute(&changed, None).unwrap().unwrap().text;
        assert!(
            back.contains("\"MINE\"]") && back.contains("args = [\"-y\"]"),
            "{back}"
        );
    }

    #[test]
    fn a_route_an_older_spill_wrote_gets_the_variables_and_still_comes_back() {
        let plain = "[mcp_servers.f]\ncommand = \"npx\"\nargs = [\"-y\"]\n";
        let old = format!(
            "[mcp_servers.f]\ncommand = \"{SPILL}\"\nargs = [\"mcp\", \"proxy\", \"--\", \"npx\", \"-y\"]\n"
        );
        let edit = route(&old, SPILL).unwrap().unwrap();
        assert!(
            edit.text.starts_with(&old) && edit.notes.is_empty(),
            "{}",
            edit.text
        );
        assert_eq!(passed(&edit.text, "f"), PASSED);
        assert_eq!(edit.text, routed_text(plain));
        assert_eq!(unroute(&edit.text, None).unwrap().unwrap().text, plain);
        assert_eq!(unroute(&old, None).unwrap().unwrap().text, plain);
    }

    #[test]
    fn touching_deletions_are_merged_and_others_kept() {
        let cuts = vec![
            (10, 14, String::new()),
            (2, 5, "x".into()),
            (5, 11, String::new()),
            (14, 16, String::new()),
        ];
        let text = "0123456789abcdefghij";
        assert_eq!(
            merge_deletions(text, cuts),
            [(2, 5, "x".into()), (5, 16, String::new())]
        );
        // Two lines ending a file without a final newline: the newline before them goes too.
        let text = "a\nb\nc";
        assert_eq!(
            merge_deletions(text, vec![(2, 4, String::new()), (3, 5, String::new())]),
            [(1, 5, String::new())]
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
