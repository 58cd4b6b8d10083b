//! opencode: its plugin (`plugin.js` beside this file, installed by `spill init opencode`)
//! hands each `bash` call to `spill hook opencode`, which answers with the arguments to run.
//!
//! The plugin sends `{"hook_event_name": "tool.execute.before", "session_id", "tool", "cwd",
//! "args"}` for a tool call and `{"hook_event_name": "session.deleted", "session_id"}` when a
//! session is deleted; the answer is `{"args": {…}}` (the plugin assigns it to the call's
//! arguments) or nothing.
//!
//! opencode checks its `permission` rules after `tool.execute.before`, on the rewritten command
//! (measured with 1.18.33: a `"printf *": "deny"` rule did not stop `bash -c 'printf …'`). So
//! the hook reads the rules itself and rewrites only when every rule that could apply to the
//! command allows it; otherwise the call goes through unchanged and opencode applies its rules
//! exactly as without spill (README, "opencode").

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::hook::{
    Live, Response, call_timeout_ms, detach_after, normalise, open_call, shell_command, through,
    too_long, wrapped_command_detaching,
};

/// The scope prefix of opencode sessions.
pub const SCOPE_PREFIX: &str = "opencode";

/// What the hook knows besides its input.
pub struct Context<'a> {
    /// The spill binary the rewritten command runs.
    pub spill: &'a str,
    /// The prefix of the harness's session scopes: [`SCOPE_PREFIX`], or a fork's own.
    pub scope_prefix: &'a str,
    /// The harness's name as notes write it (`opencode`, or a fork's).
    pub product: &'a str,
    /// The `permission` values of the configuration files for a session in this directory,
    /// or why they cannot be read.
    pub permissions: &'a dyn Fn(&Path) -> std::result::Result<Vec<Value>, String>,
    /// `OPENCODE_EXPERIMENTAL_BASH_DEFAULT_TIMEOUT_MS`, when set: the bash tool's timeout for a
    /// call that gives none.
    pub default_timeout_ms: Option<u64>,
    /// The most a call's timeout can be, where the harness caps it (Kilo Code's
    /// `KILO_COMMAND_TIMEOUT_MAX_MS`).
    pub timeout_cap_ms: Option<u64>,
}

/// The variable that sets opencode's bash timeout for calls that give none (milliseconds).
pub const DEFAULT_TIMEOUT_VAR: &str = "OPENCODE_EXPERIMENTAL_BASH_DEFAULT_TIMEOUT_MS";

/// opencode's bash timeout when neither the call nor the variable gives one: 2 minutes.
const DEFAULT_TIMEOUT_MS: u64 = 120_000;

/// Answers one call of spill's opencode plugin.
pub fn respond(input: &[u8], ctx: &Context) -> std::result::Result<Response, String> {
    let (input, event, scope) = match open_call(input, ctx.scope_prefix)? {
        Ok(call) => call,
        Err(through) => return Ok(through),
    };
    match event.as_str() {
        "tool.execute.before" => Ok(before(&input, &scope, ctx)),
        "session.deleted" => Ok(Response {
            remove_scope: Some(scope),
            ..Response::default()
        }),
        other => Ok(through(format!(
            "{other:?} is not an event spill handles for {}; nothing done",
            ctx.product
        ))),
    }
}

fn before(input: &Value, scope: &str, ctx: &Context) -> Response {
    if input["tool"] != "bash" {
        return Response::default();
    }
    let (args, command) = match shell_command(&input["args"]) {
        Ok(call) => call,
        Err(through) => return *through,
    };
    let cwd = PathBuf::from(input["cwd"].as_str().unwrap_or("."));
    let permissions = match (ctx.permissions)(&cwd) {
        Ok(p) => p,
        Err(why) => return through(format!("{why}; the command runs without spill")),
    };
    if let Some(rule) = permissions.iter().find_map(|p| restricts(p, command)) {
        return through(format!(
            "the permission rule {rule} may apply to this command; it runs without spill so {} applies the rule",
            ctx.product
        ));
    }
    // The call's own timeout (milliseconds), else the variable's, else opencode's default; no
    // more than the harness's cap.
    let timeout_ms = call_timeout_ms(args, ctx.default_timeout_ms, DEFAULT_TIMEOUT_MS)
        .min(ctx.timeout_cap_ms.unwrap_or(u64::MAX));
    // opencode kills the process group 100 ms after the timeout and keeps what was printed.
    let detach = detach_after(timeout_ms).map(Live::Detach);
    let rewritten = wrapped_command_detaching(ctx.spill, scope, None, None, detach, command);
    // opencode spawns it through its shell (`SHELL -c CMD`): one argument.
    if let Some(unchanged) = too_long(&rewritten) {
        return unchanged;
    }
    let mut updated: Map<String, Value> = args.clone();
    updated.insert("command".into(), Value::String(rewritten));
    let reply = serde_json::json!({ "args": Value::Object(updated) });
    Response {
        stdout: format!("{reply}\n"),
        ..Response::default()
    }
}

/// A rule of a `permission` value that is not `allow` and could apply to `command` (its
/// pattern's text before the first `*` appears anywhere in it, quotes and spacing ignored),
/// as text for the note. A value spill does not understand counts as such a rule.
fn restricts(permission: &Value, command: &str) -> Option<String> {
    let bash = match permission {
        Value::Null => return None,
        Value::String(action) => permission_value_for_all(action)?,
        Value::Object(map) => match map.get("bash") {
            None => map
                .get("*")
                .and_then(Value::as_str)
                .and_then(permission_value_for_all)?,
            Some(bash) => bash.clone(),
        },
        other => return Some(other.to_string()),
    };
    let text = normalise(command);
    match &bash {
        Value::String(action) if action == "allow" => None,
        Value::String(action) => Some(format!("bash: {action:?}")),
        Value::Object(patterns) => patterns.iter().find_map(|(pattern, action)| {
            if action == "allow" {
                return None;
            }
            let literal = normalise(pattern.split('*').next().unwrap_or(""));
            (literal.is_empty() || text.contains(&literal))
                .then(|| format!("bash: {{{pattern:?}: {action}}}"))
        }),
        other => Some(format!("bash: {other}")),
    }
}

/// A `permission` string (one action for every tool) as the bash value.
fn permission_value_for_all(action: &str) -> Option<Value> {
    (action != "allow").then(|| Value::String(action.to_string()))
}

/// The configuration files opencode reads for a session in `cwd` (those that exist): the
/// global `opencode.json`/`opencode.jsonc`/`config.json` in `config_dir`, `$OPENCODE_CONFIG`,
/// and `opencode.json`/`opencode.jsonc` and `.opencode/opencode.json(c)` in `cwd` and each
/// directory above it.
pub fn config_files(config_dir: Option<&Path>, extra: Option<&Path>, cwd: &Path) -> Vec<PathBuf> {
    let names = ["opencode.json", "opencode.jsonc", "config.json"];
    let mut files: Vec<PathBuf> = config_dir
        .into_iter()
        .flat_map(|d| names.iter().map(move |n| d.join(n)))
        .collect();
    files.extend(extra.map(Path::to_path_buf));
    for dir in cwd.ancestors() {
        for name in &names[..2] {
            files.push(dir.join(name));
            files.push(dir.join(".opencode").join(name));
        }
    }
    files.retain(|f| f.is_file());
    files
}

/// The `permission` values of a configuration document (JSON, or JSONC with comments): its
/// own, every agent's and every mode's (a mode is an agent), and a legacy `"tools": {"bash":
/// false}` as the rule it stands for, `{"bash": "deny"}`.
pub fn permissions_of(text: &str, name: &str) -> std::result::Result<Vec<Value>, String> {
    let unknown = |e: String| format!("cannot parse {name} ({e}), so its permissions are unknown");
    let plain = crate::init::splice::blank_comments(text).map_err(unknown)?;
    let plain = crate::init::splice::blank_trailing_commas(&plain);
    let doc: Value = serde_json::from_str(&plain).map_err(|e| unknown(e.to_string()))?;
    let mut out = vec![doc["permission"].clone()];
    for key in ["agent", "mode"] {
        if let Some(agents) = doc[key].as_object() {
            for agent in agents.values() {
                out.push(agent["permission"].clone());
                if agent["tools"]["bash"] == false {
                    out.push(serde_json::json!({"bash": "deny"}));
                }
            }
        }
    }
    if doc["tools"]["bash"] == false {
        out.push(serde_json::json!({"bash": "deny"}));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(command: &str) -> Vec<u8> {
        serde_json::json!({
            "hook_event_name": "tool.execute.before", "session_id": "ses_dce800ec4fferoOMpB9FxDdv0C",
            "tool": "bash", "call_id": "call_2", "cwd": "/tmp",
            "args": {"command": command, "description": "d"}
        })
        .to_string()
        .into_bytes()
    }

    fn answer(command: &str, permissions: Vec<Value>) -> Response {
        let get = move |_: &Path| Ok(permissions.clone());
        let ctx = Context {
            spill: "/usr/bin/spill",
            scope_prefix: SCOPE_PREFIX,
            product: "opencode",
            permissions: &get,
            default_timeout_ms: None,
            timeout_cap_ms: None,
        };
        respond(&call(command), &ctx).unwrap()
    }

    #[test]
    fn a_bash_call_is_rewritten_when_every_rule_allows_it() {
        let reply = answer(
            "ls",
            vec![Value::Null, serde_json::json!({"bash": "allow"})],
        );
        let v: Value = serde_json::from_str(&reply.stdout).unwrap();
        assert_eq!(v["args"]["description"], "d");
        assert_eq!(
            v["args"]["command"],
            "SPILL_SCOPE=opencode-ses_dce800ec4fferoOMpB9FxDdv0C SPILL_ALLOW_RUN=1 \
             /usr/bin/spill wrap --label ls --detach-after 115000ms -- bash -c ls"
        );
    }

    #[test]
    fn a_rule_that_is_not_allow_and_could_apply_keeps_the_call_unchanged() {
        let deny = serde_json::json!({"bash": {"*": "allow", "git push *": "deny"}});
        assert_eq!(answer("cd a && git  push x", vec![deny.clone()]).stdout, "");
        assert!(!answer("git status", vec![deny]).stdout.is_empty());
        for p in [
            serde_json::json!("ask"),
            serde_json::json!({"bash": "ask"}),
            serde_json::json!({"*": "deny"}),
            serde_json::json!({"bash": {"*": "ask", "ls": "allow"}}),
            serde_json::json!({"bash": 3}),
            serde_json::json!([1]),
        ] {
            let reply = answer("ls", vec![p.clone()]);
            assert_eq!(reply.stdout, "", "{p}");
            assert!(reply.note.unwrap().contains("permission rule"), "{p}");
        }
        assert!(
            !answer("ls", vec![serde_json::json!({"edit": "deny"})])
                .stdout
                .is_empty()
        );
    }

    #[test]
    fn other_tools_sessions_and_events() {
        let get = |_: &Path| Ok(Vec::new());
        let ctx = Context {
            spill: "spill",
            scope_prefix: SCOPE_PREFIX,
            product: "opencode",
            permissions: &get,
            default_timeout_ms: None,
            timeout_cap_ms: None,
        };
        let read = br#"{"hook_event_name":"tool.execute.before","session_id":"s","tool":"read","args":{}}"#;
        assert_eq!(respond(read, &ctx).unwrap(), Response::default());
        let gone = br#"{"hook_event_name":"session.deleted","session_id":"s"}"#;
        assert_eq!(
            respond(gone, &ctx).unwrap().remove_scope.as_deref(),
            Some("opencode-s")
        );
        let blank = br#"{"hook_event_name":"session.deleted","session_id":""}"#;
        assert_eq!(respond(blank, &ctx).unwrap().remove_scope, None);
        let broken = |_: &Path| Err("cannot parse opencode.json".to_string());
        let ctx = Context {
            spill: "spill",
            scope_prefix: SCOPE_PREFIX,
            product: "opencode",
            permissions: &broken,
            default_timeout_ms: None,
            timeout_cap_ms: None,
        };
        assert_eq!(respond(&call("ls"), &ctx).unwrap().stdout, "");
        assert!(
            permissions_of("{\"agent\": {\"b\": {\"permission\": \"ask\"}}}", "x")
                .unwrap()
                .contains(&serde_json::json!("ask"))
        );
        // JSONC's comments are read as opencode reads them; what is not JSON is an error.
        assert_eq!(
            permissions_of("// jsonc\n{\"permission\": /* all */ \"ask\"}", "x").unwrap(),
            [serde_json::json!("ask")]
        );
        assert!(permissions_of("{permission: 1}", "x").is_err());
        // Trailing commas too, and a comma inside a string stays.
        assert_eq!(
            permissions_of(
                "{\"permission\": {\"bash\": {\"a ,}\": \"deny\",\n},}, }",
                "x"
            )
            .unwrap(),
            [serde_json::json!({"bash": {"a ,}": "deny"}})]
        );
        assert!(permissions_of("{\"permission\": [,]}", "x").is_err());
        let legacy = permissions_of(
            r#"{"tools": {"bash": false}, "mode": {"m": {"permission": {"bash": "ask"}}}}"#,
            "x",
        )
        .unwrap();
        assert!(
            legacy.contains(&serde_json::json!({"bash": "deny"})),
            "{legacy:?}"
        );
        assert!(
            legacy.contains(&serde_json::json!({"bash": "ask"})),
            "{legacy:?}"
        );
    }

    #[test]
    fn a_call_is_handed_over_before_opencode_s_timeout_kills_it() {
        assert_eq!(
            detach_after(120_000),
            Some(std::time::Duration::from_secs(115))
        );
        assert_eq!(
            detach_after(6_000),
            Some(std::time::Duration::from_millis(4_800))
        );
        assert_eq!(
            detach_after(3_000),
            Some(std::time::Duration::from_millis(2_000))
        );
        assert_eq!(detach_after(2_000), None);
        let get = |_: &Path| Ok(Vec::new());
        let answer = |args: Value, default| {
            let ctx = Context {
                spill: "spill",
                scope_prefix: SCOPE_PREFIX,
                product: "opencode",
                permissions: &get,
                default_timeout_ms: default,
                timeout_cap_ms: None,
            };
            let input = serde_json::json!({"hook_event_name": "tool.execute.before",
                "session_id": "s", "tool": "bash", "args": args});
            let reply: Value =
                serde_json::from_str(&respond(input.to_string().as_bytes(), &ctx).unwrap().stdout)
                    .unwrap();
            reply["args"]["command"].as_str().unwrap().to_string()
        };
        let plain = answer(serde_json::json!({"command": "make"}), None);
        assert!(
            plain.contains(" --detach-after 115000ms -- bash -c make"),
            "{plain}"
        );
        let own = answer(
            serde_json::json!({"command": "make", "timeout": 6000}),
            Some(60_000),
        );
        assert!(own.contains(" --detach-after 4800ms -- "), "{own}");
        let set = answer(serde_json::json!({"command": "make"}), Some(60_000));
        assert!(set.contains(" --detach-after 55000ms -- "), "{set}");
        // The model's wait answers before the timeout; one with its own timeout is left alone.
        let wait = answer(
            serde_json::json!({"command": "spill wait sp_0123456789abcdef"}),
            None,
        );
        assert!(
            wait.ends_with("bash -c 'spill wait sp_0123456789abcdef --timeout 115000ms'"),
            "{wait}"
        );
        let own_wait = answer(
            serde_json::json!({"command": "spill wait sp_0 --timeout 5s"}),
            None,
        );
        assert!(
            own_wait.ends_with("bash -c 'spill wait sp_0 --timeout 5s'"),
            "{own_wait}"
        );
    }
}
