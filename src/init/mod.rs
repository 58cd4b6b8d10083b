//! What every harness's `spill init` shares: merging spill's hooks into a settings file, and
//! taking them out again ([`HookSet`], for the harnesses whose settings hold
//! `hooks[EVENT] = [{matcher?, hooks: [{type, command}]}]`), the [`Edit`] and `--dry-run`'s
//! [`diff`]. Each harness's own part is its folder's `init.rs` (`crate::harness`).
//!
//! The functions here take a file's text and return the new text; reading, backing up and
//! writing are the command layer's. The user's text is never re-serialised: spill's entries are
//! spliced in at located places, laid out as the file lays out its own (`splice.rs`), and
//! `--uninstall` cuts out exactly those bytes, so every other byte (number spellings, escapes,
//! comments, key order, indentation) stays as it was. A hook is spill's only when its command is
//! exactly the one `spill init` writes: the absolute path of a `spill` binary, quoted as a shell
//! word where needed, then ` hook HARNESS`. `nice spill hook claude-code`, `SPILL_MAX_INLINE=4096
//! spill hook claude-code` or a bare `spill hook claude-code` are the user's own, and stay.

pub mod mcp_servers;
pub mod server;
pub(crate) mod splice;

use serde_json::{Map, Value};
use splice::{Kind, Member, Node, Style};

/// The arguments that put `spill mcp proxy` in front of an MCP server's command: the route
/// `spill init HARNESS --proxy-mcp` writes (`spill MCP PROXY -- ORIGINAL…`).
pub const PROXY: [&str; 3] = ["mcp", "proxy", "--"];

/// Whether `path` is a spill binary as `spill init` writes it into a command: an absolute path
/// whose file name starts with `spill`. A route or hook with a bare `spill` is the user's own.
pub fn is_spill_path(path: &str) -> bool {
    path.starts_with('/') && runs_spill(path)
}

/// Whether a server's program is spill (any path whose file name starts with `spill`): such a
/// server is not routed through spill's proxy again.
pub fn runs_spill(program: &str) -> bool {
    std::path::Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("spill"))
}

/// A change to a file: its new text, and what the user should know about it.
#[derive(Debug, PartialEq, Eq)]
pub struct Edit {
    /// The file's new text (empty: the file goes).
    pub text: String,
    /// Lines to tell the user (what spill left alone, and why).
    pub notes: Vec<String>,
}

impl From<String> for Edit {
    fn from(text: String) -> Edit {
        Edit::plain(text)
    }
}

impl Edit {
    /// An edit with nothing to tell.
    pub fn plain(text: String) -> Edit {
        Edit {
            text,
            notes: Vec::new(),
        }
    }
}

/// What an install or uninstall comes to: the edit, `None` when there is nothing to change, or
/// why the file is refused.
pub type Change = std::result::Result<Option<Edit>, String>;

/// How `spill init` changes a harness's hook file: spill's entries in and out, text in and text
/// out.
pub trait Entries: Sync {
    /// The file's text with spill's entries for this spill binary (`file` names the file as
    /// the harness does), or `None` when it already has exactly them. `Err` refuses the file.
    fn install(&self, text: &str, spill: &str, file: &str) -> Change;
    /// The file's text without spill's entries (`backup`: the file before the first `init`), or
    /// `None` when it has none.
    fn uninstall(&self, text: &str, backup: Option<&str>) -> Change;
    /// Whether the file is spill's own (opencode's plugin): `--uninstall` removes it when
    /// nothing is left, and `spill doctor` looks for no hook command in it.
    fn owns_file(&self) -> bool {
        false
    }
    /// Why a harness has no entries spill can write, for one with no hook that could act
    /// (Kimi CLI's hooks can only allow or block a call): `spill init` then writes none and says
    /// so, and routes MCP servers only (`--proxy-mcp`); `spill doctor` reports it instead of a
    /// missing hook.
    fn hookless(&self) -> Option<&'static str> {
        None
    }
    /// What the entries are, for `init`'s messages (`spill's hooks`).
    fn what(&self) -> &'static str {
        "hooks"
    }
    /// [`install`](Self::install) for a store at `root`, for a harness whose sandbox must be
    /// told where spill writes (Claude Code's); the others ignore the root.
    fn install_at(&self, text: &str, spill: &str, file: &str, root: &str) -> Change {
        let _ = root;
        self.install(text, spill, file)
    }
    /// [`uninstall`](Self::uninstall) of what [`install_at`](Self::install_at) added for
    /// `root`.
    fn uninstall_at(&self, text: &str, backup: Option<&str>, root: &str) -> Change {
        let _ = root;
        self.uninstall(text, backup)
    }
}

/// The [`Entries`] of a harness's MCP proxy routes (`spill init --proxy-mcp`): its `route` puts
/// spill's proxy in front of each server of a file's text, its `unroute` takes it out again.
pub struct Routes {
    /// The text with every server routed (for this spill binary).
    pub route: fn(text: &str, spill: &str) -> Change,
    /// The text without spill's routes (`backup`: the file before the first `init`).
    pub unroute: fn(text: &str, backup: Option<&str>) -> Change,
}

impl Entries for Routes {
    fn install(&self, text: &str, spill: &str, _file: &str) -> Change {
        (self.route)(text, spill)
    }

    fn uninstall(&self, text: &str, backup: Option<&str>) -> Change {
        (self.unroute)(text, backup)
    }

    fn what(&self) -> &'static str {
        "MCP proxy routes"
    }
}

/// A byte range of a file's text and what replaces it.
pub type Cut = (usize, usize, String);

/// The text with every cut made (cuts do not overlap; they are made from the last).
pub fn apply_cuts(text: &str, mut cuts: Vec<Cut>) -> String {
    cuts.sort_by_key(|c| std::cmp::Reverse(c.0));
    let mut out = text.to_string();
    for (start, end, new) in cuts {
        out.replace_range(start..end, &new);
    }
    out
}

/// What a route's `cuts` and `notes` make of `text`: the cut text with the notes, the unchanged
/// text with them when there is nothing to cut (the servers left alone are still told), `None`
/// when there are neither.
pub fn route_edit(text: &str, cuts: Vec<Cut>, notes: Vec<String>) -> Change {
    if cuts.is_empty() {
        return Ok((!notes.is_empty()).then(|| Edit {
            text: text.to_string(),
            notes,
        }));
    }
    Ok(Some(Edit {
        text: apply_cuts(text, cuts),
        notes,
    }))
}

/// What taking spill's words out of a file comes to: the backup's bytes when `text` is exactly
/// what `route` made of the backup for one of the `spills` found in it, else `text` with the
/// `cuts` made; `None` when there is nothing to cut.
pub fn unroute(
    text: &str,
    backup: Option<&str>,
    spills: &[String],
    cuts: Vec<Cut>,
    route: fn(&str, &str) -> Change,
) -> Change {
    if cuts.is_empty() {
        return Ok(None);
    }
    if let Some(old) = backup {
        for spill in spills {
            if let Ok(Some(made)) = route(old, spill)
                && made.text == text
            {
                return Ok(Some(Edit::plain(old.to_string())));
            }
        }
    }
    Ok(Some(Edit::plain(apply_cuts(text, cuts))))
}

/// The text with the string `value` in the array at `path` (its objects and the array made as
/// needed, laid out as the file is), or `None` when the array holds it already. `Err` when a
/// value on the way is not an object, or the array is not one.
pub fn grant(
    text: &str,
    comments: bool,
    path: &[&str],
    value: &str,
) -> std::result::Result<Option<String>, String> {
    let root = splice::parse(text, comments)?
        .ok_or_else(|| "the settings file holds no JSON object".to_string())?;
    if !is_object(&root) {
        return Err("the settings file is not a JSON object".into());
    }
    let style = Style::of(text, &root);
    let mut node = &root;
    for (depth, key) in path.iter().enumerate() {
        let last = depth + 1 == path.len();
        let Some(member) = node.get(key) else {
            let mut new = Value::Array(vec![Value::from(value)]);
            for k in path[depth + 1..].iter().rev() {
                let mut object = Map::new();
                object.insert((*k).into(), new);
                new = Value::Object(object);
            }
            return Ok(Some(splice::insert(text, node, &style, Some(key), &new)));
        };
        let name = path[..=depth].join(".");
        node = &member.value;
        if last {
            if !matches!(node.kind, Kind::Array(_)) {
                return Err(format!("\"{name}\" in the settings file is not an array"));
            }
            if node
                .elements()
                .iter()
                .any(|e| string_at(text, e).as_deref() == Some(value))
            {
                return Ok(None);
            }
            return Ok(Some(splice::insert(
                text,
                node,
                &style,
                None,
                &Value::from(value),
            )));
        }
        if !is_object(node) {
            return Err(format!("\"{name}\" in the settings file is not an object"));
        }
    }
    Ok(None)
}

/// The text without the string `value` in the array at `path`, and without the containers on
/// the way that held only it, unless `backup` (the file before the first `init`) had them:
/// what [`grant`] added, no more. `None` when the array does not hold it, or when the backup's
/// array held it already (it was the user's).
pub fn revoke(
    text: &str,
    comments: bool,
    path: &[&str],
    value: &str,
    backup: Option<&str>,
) -> std::result::Result<Option<String>, String> {
    let Some(root) = splice::parse(text, comments)? else {
        return Ok(None);
    };
    let old = backup.and_then(|b| splice::parse(b, comments).ok().flatten());
    fn at<'n>(node: &'n Node, path: &[&str]) -> Option<&'n Node> {
        let mut node = Some(node);
        for key in path {
            node = node.and_then(|n| n.get(key)).map(|m| &m.value);
        }
        node
    }
    let had = |depth: usize| old.as_ref().and_then(|o| at(o, &path[..depth])).is_some();
    let mut chain = vec![&root];
    for key in path {
        match chain.last().and_then(|n| n.get(key)) {
            Some(member) => chain.push(&member.value),
            None => return Ok(None),
        }
    }
    let list = chain[path.len()];
    let holds = |node: &Node, text: &str| {
        node.elements()
            .iter()
            .position(|e| string_at(text, e).as_deref() == Some(value))
    };
    let Some(i) = holds(list, text) else {
        return Ok(None);
    };
    if let Some(b) = backup
        && old
            .as_ref()
            .and_then(|o| at(o, path))
            .is_some_and(|l| holds(l, b).is_some())
    {
        return Ok(None);
    }
    if list.len() > 1 || had(path.len()) {
        return Ok(Some(splice::remove(text, list, i)));
    }
    for depth in (0..path.len()).rev() {
        let container = chain[depth];
        if depth == 0 || container.len() > 1 || had(depth) {
            let index = container.index(path[depth]).expect("on the chain");
            return Ok(Some(splice::remove(text, container, index)));
        }
    }
    unreachable!("the loop ends at the root")
}

impl Entries for HookSet {
    fn install(&self, text: &str, spill: &str, _file: &str) -> Change {
        HookSet::install(self, text, spill)
    }

    fn uninstall(&self, text: &str, backup: Option<&str>) -> Change {
        HookSet::uninstall(self, text, backup)
    }
}

/// A harness whose settings hold hooks as `hooks[EVENT] = [{matcher?, hooks: [{type, command}]}]`
/// (Claude Code and Gemini CLI share the shape): its hook file's layout, as a value.
pub struct HookSet {
    /// The events spill registers, with their matchers (regular expressions on the tool name).
    pub events: &'static [(&'static str, Option<&'static str>)],
    /// The harness's name as `spill hook` takes it.
    pub harness: &'static str,
    /// Whether the harness reads its settings with comments (JSONC): Gemini CLI does.
    pub comments: bool,
    /// Whether the harness runs no hooks unless `hooksConfig.enabled` is `true` (Gemini CLI):
    /// `install` sets it, `uninstall` puts it back (only while no other hook needs it).
    pub needs_enabled: bool,
}

/// The text of a settings file that holds no JSON object yet (empty, or comments only) with an
/// empty object to splice into: `{}` alone, or after the comments.
pub(crate) fn with_object(text: &str) -> String {
    if text.trim().is_empty() {
        "{}\n".to_string()
    } else if text.ends_with('\n') {
        format!("{text}{{}}\n")
    } else {
        format!("{text}\n{{}}\n")
    }
}

/// The text of a JSON string value, decoded.
pub(crate) fn string_at(text: &str, node: &Node) -> Option<String> {
    matches!(node.kind, Kind::Scalar)
        .then(|| serde_json::from_str::<String>(&text[node.start..node.end]).ok())
        .flatten()
}

fn is_object(node: &Node) -> bool {
    matches!(node.kind, Kind::Object(_))
}

impl HookSet {
    /// The hook command `spill init` registers.
    pub fn command(&self, spill: &str) -> String {
        format!("{} hook {}", crate::wrap::shell_quote(spill), self.harness)
    }

    /// The spill binary a hook command runs, when the command is exactly one that `spill init`
    /// writes (any spill path, compared as a whole command, never as a suffix).
    fn spill_of(&self, command: &str) -> Option<String> {
        let quoted = command.strip_suffix(&format!(" hook {}", self.harness))?;
        let path = match quoted.strip_prefix('\'').and_then(|q| q.strip_suffix('\'')) {
            Some(inner) => inner.replace(r"'\''", "'"),
            None => quoted.to_string(),
        };
        let name = std::path::Path::new(&path).file_name()?.to_str()?;
        (path.starts_with('/')
            && name.starts_with("spill")
            && crate::wrap::shell_quote(&path) == quoted)
            .then_some(path)
    }

    /// The spill binary of a hook object that is spill's: `type` `command` and a command
    /// [`spill_of`](Self::spill_of) recognises.
    fn ours(&self, text: &str, hook: &Node) -> Option<String> {
        let kind = string_at(text, &hook.get("type")?.value)?;
        let command = string_at(text, &hook.get("command")?.value)?;
        (kind == "command")
            .then(|| self.spill_of(&command))
            .flatten()
    }

    /// Every hook object of the `hooks` object a harness reads (the last of that name).
    fn each_hook<'n>(&self, root: &'n Node, mut visit: impl FnMut(&'n Member, &'n Node, &'n Node)) {
        let Some(hooks) = root.get("hooks") else {
            return;
        };
        for event in hooks.value.members() {
            for group in event.value.elements() {
                let Some(list) = group.get("hooks") else {
                    continue;
                };
                for hook in list.value.elements() {
                    visit(event, group, hook);
                }
            }
        }
    }

    /// The text without the first of spill's hook objects, and the containers that held only
    /// it (its matcher group, then the event, then `hooks`, unless the backup shows the file had
    /// that event or `hooks` before `init`): what `install` added, no more.
    fn remove_first(
        &self,
        text: &str,
        root: &Node,
        had_hooks: bool,
        had_event: &dyn Fn(&str) -> bool,
    ) -> Option<String> {
        let ri = root.index("hooks")?;
        let hooks = &root.members()[ri].value;
        for (ei, event) in hooks.members().iter().enumerate() {
            for (gi, group) in event.value.elements().iter().enumerate() {
                let Some(list) = group.get("hooks") else {
                    continue;
                };
                for (hi, hook) in list.value.elements().iter().enumerate() {
                    if self.ours(text, hook).is_none() {
                        continue;
                    }
                    return Some(if list.value.len() > 1 {
                        splice::remove(text, &list.value, hi)
                    } else if event.value.len() > 1 || had_event(&event.key) {
                        splice::remove(text, &event.value, gi)
                    } else if hooks.len() > 1 || had_hooks {
                        splice::remove(text, hooks, ei)
                    } else {
                        splice::remove(text, root, ri)
                    });
                }
            }
        }
        None
    }

    /// The text without any of spill's hooks (`backup`: the file before the first `init`).
    fn remove_all(&self, text: &str, backup: Option<&str>) -> std::result::Result<String, String> {
        let old = backup.and_then(|b| splice::parse(b, self.comments).ok().flatten());
        let old_hooks = old.as_ref().and_then(|o| o.get("hooks"));
        let had_event = |event: &str| old_hooks.is_some_and(|h| h.value.get(event).is_some());
        let mut text = text.to_string();
        while let Some(root) = splice::parse(&text, self.comments)? {
            match self.remove_first(&text, &root, old_hooks.is_some(), &had_event) {
                Some(shorter) => text = shorter,
                None => break,
            }
        }
        Ok(text)
    }

    /// Whether the file holds exactly spill's hooks for this binary: one per event, in a group
    /// with spill's matcher, and no other of spill's.
    fn has_exactly(&self, text: &str, root: &Node, spill: &str) -> bool {
        let command = self.command(spill);
        let mut ours = 0;
        let mut found = Vec::new();
        self.each_hook(root, |event, group, hook| {
            if self.ours(text, hook).is_none() {
                return;
            }
            ours += 1;
            let matcher = group.get("matcher").and_then(|m| string_at(text, &m.value));
            let right = string_at(text, &hook.get("command").expect("ours").value)
                .is_some_and(|c| c == command);
            if right {
                found.push((event.key.clone(), matcher));
            }
        });
        ours == self.events.len()
            && self.events.iter().all(|&(event, matcher)| {
                found.contains(&(event.to_string(), matcher.map(str::to_string)))
            })
    }

    /// Refuses a file whose `hooks` (or an event spill uses) has a shape spill cannot add to.
    fn check_shape(&self, root: &Node) -> std::result::Result<(), String> {
        let Some(hooks) = root.get("hooks") else {
            return Ok(());
        };
        if !is_object(&hooks.value) {
            return Err("\"hooks\" in the settings file is not an object".into());
        }
        for &(event, _) in self.events {
            if let Some(e) = hooks.value.get(event)
                && !matches!(e.value.kind, Kind::Array(_))
            {
                return Err(format!(
                    "\"hooks.{event}\" in the settings file is not an array"
                ));
            }
        }
        Ok(())
    }

    /// The settings text with spill's hooks (and, with `needs_enabled`, `hooksConfig.enabled = true`), or
    /// `None` when it already has exactly them.
    pub fn install(&self, text: &str, spill: &str) -> Change {
        let gemini = self.needs_enabled;
        let root = splice::parse(text, self.comments)?;
        let mut new = match &root {
            Some(root) => {
                self.check_shape(root)?;
                if gemini
                    && let Some(config) = root.get("hooksConfig")
                    && !is_object(&config.value)
                {
                    return Err("\"hooksConfig\" in the settings file is not an object".into());
                }
                if self.has_exactly(text, root, spill) && (!gemini || enabled(text, root)) {
                    return Ok(None);
                }
                self.remove_all(text, None)?
            }
            None => with_object(text),
        };
        let command = self.command(spill);
        for &(event, matcher) in self.events {
            let root = splice::parse(&new, self.comments)?.expect("an object");
            let style = Style::of(&new, &root);
            let mut group = Map::new();
            if let Some(m) = matcher {
                group.insert("matcher".into(), Value::from(m));
            }
            group.insert(
                "hooks".into(),
                serde_json::json!([{"type": "command", "command": command}]),
            );
            let group = Value::Object(group);
            new = match root.get("hooks") {
                None => {
                    let mut hooks = Map::new();
                    hooks.insert(event.into(), Value::Array(vec![group]));
                    splice::insert(&new, &root, &style, Some("hooks"), &Value::Object(hooks))
                }
                Some(hooks) => match hooks.value.get(event) {
                    None => splice::insert(
                        &new,
                        &hooks.value,
                        &style,
                        Some(event),
                        &Value::Array(vec![group]),
                    ),
                    Some(list) => splice::insert(&new, &list.value, &style, None, &group),
                },
            };
        }
        if gemini {
            let root = splice::parse(&new, true)?.expect("an object");
            let style = Style::of(&new, &root);
            new = match root.get("hooksConfig") {
                None => splice::insert(
                    &new,
                    &root,
                    &style,
                    Some("hooksConfig"),
                    &serde_json::json!({"enabled": true}),
                ),
                Some(config) => match config.value.get("enabled") {
                    None => splice::insert(
                        &new,
                        &config.value,
                        &style,
                        Some("enabled"),
                        &Value::Bool(true),
                    ),
                    Some(on) if &new[on.value.start..on.value.end] == "true" => new.clone(),
                    Some(on) => splice::replace(&new, &on.value, "true"),
                },
            };
        }
        Ok((new != text).then(|| Edit::plain(new)))
    }

    /// The settings text without spill's hooks, or `None` when it has none. When the text is
    /// exactly what `init` made of `backup` (the file before the first `init`), the backup's
    /// bytes come back; otherwise exactly spill's entries are cut out.
    pub fn uninstall(&self, text: &str, backup: Option<&str>) -> Change {
        let Some(root) = splice::parse(text, self.comments)? else {
            return Ok(None);
        };
        let mut spills = Vec::new();
        self.each_hook(&root, |_, _, hook| {
            if let Some(spill) = self.ours(text, hook)
                && !spills.contains(&spill)
            {
                spills.push(spill);
            }
        });
        if spills.is_empty() {
            return Ok(None);
        }
        if let Some(old) = backup {
            for spill in &spills {
                if let Ok(Some(made)) = self.install(old, spill)
                    && made.text == text
                {
                    return Ok(Some(Edit::plain(old.to_string())));
                }
            }
        }
        let mut edit = Edit::plain(self.remove_all(text, backup)?);
        if self.needs_enabled {
            self.enabled_back(&mut edit, backup)?;
        }
        Ok(Some(edit))
    }
}

impl HookSet {
    /// After spill's hooks are cut out of a file that changed since `init`: puts
    /// `hooksConfig.enabled` back as the backup had it, but only while it is still the `true` that
    /// `init` set and no other hook in the file needs it (the user's hooks keep running).
    fn enabled_back(
        &self,
        edit: &mut Edit,
        backup: Option<&str>,
    ) -> std::result::Result<(), String> {
        let text = &edit.text;
        let Some(root) = splice::parse(text, true)? else {
            return Ok(());
        };
        if !enabled(text, &root) {
            return Ok(());
        }
        let mut others = false;
        self.each_hook(&root, |_, _, _| others = true);
        if others {
            edit.notes
                .push("left hooksConfig.enabled on: the file's other hooks need it to run".into());
            return Ok(());
        }
        let old = backup.map(|b| splice::parse(b, true));
        let Some(Ok(old)) = old else {
            edit.notes.push(
                "left hooksConfig.enabled on: no readable backup says what it was before `spill init`"
                    .into(),
            );
            return Ok(());
        };
        let backup = backup.expect("parsed above");
        let ci = root.index("hooksConfig").expect("enabled");
        let config = &root.members()[ci].value;
        let ei = config.index("enabled").expect("enabled");
        let old_config = old.as_ref().and_then(|o| o.get("hooksConfig"));
        edit.text = match old_config.and_then(|c| c.value.get("enabled")) {
            Some(was) => {
                let was = &backup[was.value.start..was.value.end];
                splice::replace(text, &config.members()[ei].value, was)
            }
            None if config.len() == 1 && old_config.is_none() => splice::remove(text, &root, ci),
            None => splice::remove(text, config, ei),
        };
        Ok(())
    }
}

/// Whether `hooksConfig.enabled` is `true`.
fn enabled(text: &str, root: &Node) -> bool {
    root.get("hooksConfig")
        .and_then(|c| c.value.get("enabled"))
        .is_some_and(|on| &text[on.value.start..on.value.end] == "true")
}

/// A unified diff of two texts (whole-line hunks with 3 lines of context), for `--dry-run`.
pub fn diff(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // Longest common subsequence table; settings files are small (a bound keeps it so).
    if a.len().saturating_mul(b.len()) > 25_000_000 {
        return format!(
            "--- {old_name}\n+++ {new_name}\n(files too large to compare: {} and {} lines)\n",
            a.len(),
            b.len()
        );
    }
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // The edit script: (tag, old line index, new line index).
    let mut ops: Vec<(char, usize, usize)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', i, j));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', i, j));
            i += 1;
        } else {
            ops.push(('+', i, j));
            j += 1;
        }
    }
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != ' ').collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(3);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 6 {
            end = changed[k];
            k += 1;
        }
        let end = (end + 4).min(ops.len());
        let hunk = &ops[start..end];
        let old_len = hunk.iter().filter(|o| o.0 != '+').count();
        let new_len = hunk.iter().filter(|o| o.0 != '-').count();
        let old_start = hunk[0].1 + usize::from(old_len > 0);
        let new_start = hunk[0].2 + usize::from(new_len > 0);
        out.push_str(&format!(
            "@@ -{old_start},{old_len} +{new_start},{new_len} @@\n"
        ));
        for &(tag, oi, nj) in hunk {
            let line = if tag == '+' { b[nj] } else { a[oi] };
            out.push(tag);
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_is_unified() {
        let d = diff("a\nb\nc\n", "a\nB\nc\nd\n", "old", "new");
        assert_eq!(d, "--- old\n+++ new\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n");
        assert_eq!(
            diff("", "x\n", "o", "n"),
            "--- o\n+++ n\n@@ -0,0 +1,1 @@\n+x\n"
        );
        assert_eq!(diff("same\n", "same\n", "o", "n"), "--- o\n+++ n\n");
    }
}
