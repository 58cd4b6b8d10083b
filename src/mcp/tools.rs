//! spill's reading commands as MCP tools: `cat`, `shape`, `extract`, `search`, `ls`, each a call
//! of the command's library function ([`crate::ops`]) in this process, with the command's
//! arguments (flag names with `_` for `-`), defaults and bounds.
//!
//! A result's text is exactly what the command prints (stdout, then the footer and notices it
//! writes on stderr); `structuredContent` is the command's JSON form, an object at the top level
//! as MCP requires (`{"shape": …}`, `{"nodes": […]}`, the `search --json` object, the `ls
//! --json` object, `{"text": …}` for `cat`), declared by an `outputSchema` built from spill's own
//! schemas (`spill schema NAME`); a `resource_link` names the stored output read. A failed
//! command is a result with `isError` and the `spill: …` message the command prints.
//!
//! Sources are refs only (`sp_` + 16 hex digits): the server's store is restricted, so no path,
//! no `-` (stdin is the protocol) and no store flag can be named.
//!
//! Live output: on a running entry's id (`wrap --detach-after`) every answer says where it
//! stands, in its text (the note the command line writes: still running, how far it has grown,
//! the cursor) and in `structuredContent.live` ([`ops::since::Status`]); `cat` with `since` is
//! `cat --since` ([`ops::since`]). `wait` and `stop` ([`LIVE_NAMES`]) are `spill wait` and
//! `spill stop`; only `spill mcp` serves them (their waiting is asynchronous there, see
//! [`super::server`]), the proxy, which answers its own tools inline, does not.

use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::ops::since::{Standing, Status};
use crate::ops::{self, Report, schema::Schema};
use crate::store::running::{self, Record, State};
use crate::store::{Ref, StoreConfig};
use crate::wrap::live::{Stopped, Waited};

/// A tool's arguments, read one by one; anything left over is an unknown argument.
struct Args {
    map: Map<String, Value>,
}

impl Args {
    fn new(arguments: &Value) -> Result<Args> {
        match arguments {
            Value::Null => Ok(Args { map: Map::new() }),
            Value::Object(map) => Ok(Args { map: map.clone() }),
            _ => Err(Error::Usage("the arguments must be an object".into())),
        }
    }

    fn string(&mut self, name: &str) -> Result<Option<String>> {
        match self.map.remove(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(Error::Usage(format!("{name}: expected a string"))),
        }
    }

    fn required(&mut self, name: &str) -> Result<String> {
        self.string(name)?
            .ok_or_else(|| Error::Usage(format!("{name} is required")))
    }

    fn flag(&mut self, name: &str, default: bool) -> Result<bool> {
        match self.map.remove(name) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(b),
            Some(_) => Err(Error::Usage(format!("{name}: expected true or false"))),
        }
    }

    /// A count: a whole number, or a string the command line would take (`1000`).
    fn count<T: TryFrom<u64>>(&mut self, name: &str, default: T) -> Result<T> {
        self.number(name, default, crate::limits::parse_count::<T>)
    }

    /// A size: bytes, or a string with a suffix (`16K`, `1MiB`).
    fn size(&mut self, name: &str, default: u64) -> Result<u64> {
        self.number(name, default, crate::limits::parse_size)
    }

    /// A duration: seconds as a number (`1.5`), or a string the command line would take
    /// (`90s`, `500ms`, `2m`).
    fn duration(&mut self, name: &str, default: Duration) -> Result<Duration> {
        let bad = |why: String| {
            Error::Usage(format!(
                "{name}: {}",
                crate::diag::cut(&why, 2 * crate::diag::ECHO_MAX)
            ))
        };
        match self.map.remove(name) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(secs) if secs.is_finite() && secs >= 0.0 => {
                    Ok(Duration::try_from_secs_f64(secs)
                        .unwrap_or(crate::limits::MAX_DURATION)
                        .min(crate::limits::MAX_DURATION))
                }
                _ => Err(bad(format!(
                    "invalid duration {n}: expected seconds (a number at least 0)"
                ))),
            },
            Some(Value::String(text)) => match text.strip_suffix("ms") {
                Some(ms) if !ms.is_empty() && ms.bytes().all(|b| b.is_ascii_digit()) => ms
                    .parse::<u64>()
                    .map(Duration::from_millis)
                    .map_err(|_| bad(format!("invalid duration {text:?}: too large"))),
                _ => crate::limits::parse_duration(&text).map_err(bad),
            },
            Some(_) => Err(Error::Usage(format!(
                "{name}: expected a duration (seconds, or \"90s\", \"500ms\")"
            ))),
        }
    }

    fn number<T>(
        &mut self,
        name: &str,
        default: T,
        parse: fn(&str) -> std::result::Result<T, String>,
    ) -> Result<T> {
        let text = match self.map.remove(name) {
            None | Some(Value::Null) => return Ok(default),
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::String(s)) => s,
            Some(_) => return Err(Error::Usage(format!("{name}: expected a number"))),
        };
        // The parser's message quotes the input whole.
        parse(&text).map_err(|why| {
            Error::Usage(format!(
                "{name}: {}",
                crate::diag::cut(&why, 2 * crate::diag::ECHO_MAX)
            ))
        })
    }

    fn strings(&mut self, name: &str) -> Result<Vec<String>> {
        match self.map.remove(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s),
                    _ => Err(Error::Usage(format!("{name}: expected strings"))),
                })
                .collect(),
            Some(_) => Err(Error::Usage(format!(
                "{name}: expected an array of strings"
            ))),
        }
    }

    /// The source: a ref, and nothing else.
    fn source(&mut self) -> Result<String> {
        let source = self.required("source")?;
        if Ref::parse(&source).is_none() {
            return Err(Error::Usage(format!(
                "source {:?}: must be a ref (sp_ + 16 hex digits); paths and - are refused here",
                crate::diag::echo(&source)
            )));
        }
        Ok(source)
    }

    /// The source, parsed.
    fn source_ref(&mut self) -> Result<Ref> {
        let source = self.source()?;
        Ref::parse(&source).ok_or_else(|| Error::Usage("source: not a ref".into()))
    }

    fn finish(self) -> Result<()> {
        match self.map.keys().next() {
            None => Ok(()),
            Some(name) => Err(Error::Usage(format!(
                "unknown argument {:?}",
                crate::diag::echo(name)
            ))),
        }
    }
}

/// The names of the tools, in the order they are listed.
pub const NAMES: [&str; 5] = ["cat", "shape", "extract", "search", "ls"];

/// The tool definitions (`tools/list` entries), each name with `prefix` in front (`spill_` in
/// the proxy, nothing in `spill mcp`).
pub fn definitions(prefix: &str) -> Vec<Value> {
    NAMES.iter().map(|name| definition(prefix, name)).collect()
}

fn definition(prefix: &str, name: &str) -> Value {
    let source = json!({"type": "string", "pattern": "^sp_[0-9a-f]{16}$",
        "description": "The ref of a stored output (sp_ + 16 hex digits), as an envelope names it."});
    let int = |default: u64, what: &str| json!({"type": ["integer", "string"], "default": default, "description": what});
    let flag = |what: &str| json!({"type": "boolean", "default": false, "description": what});
    let text = |what: &str| json!({"type": "string", "description": what});
    let (description, properties, required, output) = match name {
        "cat" => (
            "Print part of a stored output, bounded and paged, as `spill cat REF` does: by default the first 200 lines or 16 KiB, whichever is smaller. The last line says what was shown and how to read on (`lines 1–200 of 48,213 · next: --lines 201:400` means lines: \"201:400\"). On a command still running (a running envelope's ref), since: CURSOR gives only the output new since that cursor (at most 16 KiB), and every answer says whether it is still running and the cursor to read on from.",
            json!({
                "source": source,
                "lines": text("Lines A:B, 1-based and inclusive; either side may be omitted (\"100:\", \":20\")."),
                "bytes": text("Bytes A:B, 0-based and end-exclusive; either side may be omitted."),
                "max_bytes": int(crate::limits::CAT_MAX_BYTES, "Cap on an explicit range in bytes (0: no limit)."),
                "max_columns": int(crate::limits::CAT_MAX_COLUMNS as u64, "Lines longer than this many characters are cut with a marker, unless raw."),
                "raw": flag("Print bytes exactly as stored (no cleaning of escape sequences, no line cutting)."),
                "hex": flag("Print a hexdump -C style dump."),
                "since": {"type": ["integer", "string"], "description": "Only the output from this cursor on, as stored (a running envelope's `cursor`, or the one the last answer gave; on a finished output, a byte offset), at most 16 KiB (less with a smaller max_bytes). Not with lines, bytes or hex."},
            }),
            vec!["source"],
            with_live(json!({"type": "object", "properties": {
                "text": {"description": "What was printed (the page, without the footer).", "type": "string"},
                "footer": {"description": "What was shown and the arguments that continue.", "type": "string"}},
                "required": ["text"], "additionalProperties": false})),
        ),
        "shape" => (
            "The structural skeleton of a stored JSON document or NDJSON stream, as `spill shape REF` prints it: one line of JSON within max_bytes. Text gets a line summary, binary its size. paths: one line per distinct path instead.",
            json!({
                "source": source,
                "max_depth": int(4, "Container levels shown; deeper ones become \"object(12 keys)\" / \"array[300]\"."),
                "max_bytes": int(1024, "The skeleton never exceeds this size (at least 256 bytes)."),
                "paths": flag("One line per distinct path instead: `$.items[*].tags[*]  string  3812`."),
                "skip_invalid": flag("NDJSON: skip and count lines that are not exactly one JSON value."),
            }),
            vec!["source"],
            with_live(wrap_schema(Schema::Shape, "shape", Some(paths_schema()))),
        ),
        "extract" => (
            "Select parts of a stored JSON document with an RFC 9535 JSONPath query, bounded, as `spill extract REF QUERY` prints them: a singular query prints the value, any other an array. Every cut is a string starting with … that says how to continue.",
            json!({
                "source": source,
                "query": text("An RFC 9535 JSONPath query, e.g. $.items[0:5] (a leading $ may be left out)."),
                "nodes": flag("Print [{\"path\": …, \"value\": …}] with normalized paths."),
                "raw": flag("Print selected strings without quotes, one per line."),
                "compact": flag("Print JSON on one line."),
                "offset": int(0, "Skip this many selected nodes."),
                "max_items": int(crate::limits::EXTRACT_MAX_ITEMS as u64, "Elements or members shown per container, and nodes per list."),
                "max_depth": int(crate::limits::EXTRACT_MAX_DEPTH as u64, "Container levels shown."),
                "max_string": int(crate::limits::EXTRACT_MAX_STRING as u64, "Characters shown per string."),
                "max_bytes": int(crate::limits::EXTRACT_MAX_BYTES, "The whole output stays within this size (0 lifts every bound)."),
                "unbounded": flag("Lift every bound."),
                "skip_invalid": flag("NDJSON: skip and count lines that are not exactly one JSON value."),
            }),
            vec!["source", "query"],
            with_live(wrap_schema(Schema::Extract, "nodes", None)),
        ),
        "search" => (
            "Find occurrences of a regex (Rust syntax) in a stored output, counted exactly, a page at a time, as `spill search REF PATTERN` prints them: LINE:COLUMN:text per match, then `matches 21–40 of 342 · next: --offset 40`. all: true searches every stored output of this scope instead (no source), newest first, at most max_outputs of them, each row labelled REF:LINE:COLUMN:text; its footer's `next: --all --resume CURSOR` means resume: \"CURSOR\". Running entries are not searched.",
            json!({
                "source": source,
                "pattern": text("The regular expression; an invalid one is searched as a literal."),
                "regexp": {"type": "array", "items": {"type": "string"}, "description": "More patterns (-e); any of them matches."},
                "fixed_strings": flag("The patterns are literal strings."),
                "ignore_case": flag("Match case-insensitively."),
                "word": flag("Match whole words only."),
                "context": int(0, "Lines before and after each match (-C)."),
                "before_context": int(0, "Lines before each match (-B)."),
                "after_context": int(0, "Lines after each match (-A)."),
                "offset": int(0, "Skip this many matches (the footer's next: gives it)."),
                "limit": int(crate::limits::SEARCH_LIMIT, "Show at most this many matches."),
                "max_columns": int(crate::limits::SEARCH_MAX_COLUMNS as u64, "Longer lines are shown as a window around the match."),
                "max_bytes": int(crate::limits::SEARCH_MAX_BYTES, "The page stays within this size (0: no limit)."),
                "unbounded": flag("Lift max_bytes and max_columns."),
                "count": flag("Print only the number of matches."),
                "json": flag("Print the JSON form (as structuredContent holds it)."),
                "paths": flag("Give each match the JSONPath of the value holding it."),
                "skip_invalid": flag("With paths on NDJSON: skip lines that are not one JSON value."),
                "raw": flag("Search the stored bytes as they are."),
                "all": flag("Search every stored output of this scope, newest first, instead of source."),
                "resume": text("With all: the cursor (REF:SKIP:CREATED) the last page's next: gave."),
                "max_outputs": int(crate::limits::SEARCH_MAX_OUTPUTS as u64, "With all: stored outputs read at most per call (0: no limit)."),
            }),
            vec![],
            with_live(object_schema(Schema::Search)),
        ),
        _ => (
            "List the stored outputs of this scope (ref, size, kind, age, label, summary), newest first, as `spill ls` does.",
            json!({}),
            vec![],
            object_schema(Schema::Ls),
        ),
    };
    json!({
        "name": format!("{prefix}{name}"),
        "title": format!("spill {name}"),
        "description": description,
        "inputSchema": {"type": "object", "properties": properties, "required": required, "additionalProperties": false},
        "outputSchema": output,
        "annotations": {"title": format!("spill {name}"), "readOnlyHint": true, "destructiveHint": false,
                        "idempotentHint": true, "openWorldHint": false},
    })
}

/// The tools on running entries that only `spill mcp` serves, listed after [`NAMES`].
pub const LIVE_NAMES: [&str; 2] = ["wait", "stop"];

/// The longest `wait` (its `timeout`'s default and maximum): half the shortest default request
/// timeout of the MCP clients (the TypeScript SDK's 60 s, `DEFAULT_REQUEST_TIMEOUT_MSEC`, which
/// progress notifications extend only with `resetTimeoutOnProgress`), so a wait never fails the
/// request it answers; a longer wait is one more call.
pub const MAX_WAIT: Duration = Duration::from_secs(30);

/// `stop`'s longest `grace`: a stop answers within twice its grace (SIGTERM, then SIGKILL).
pub const MAX_GRACE: Duration = Duration::from_secs(10);

/// The definitions of [`LIVE_NAMES`] (`tools/list` entries of `spill mcp`).
pub fn live_definitions() -> Vec<Value> {
    let source = json!({"type": "string", "pattern": "^sp_[0-9a-f]{16}$",
        "description": "The running entry's ref (sp_ + 16 hex digits), as its running envelope names it."});
    let duration = |what: &str| json!({"type": ["number", "string"], "description": what});
    let wait = json!({
        "name": "wait",
        "title": "spill wait",
        "description": format!("Wait for a command still running (a running envelope's ref) to end, as `spill wait REF --timeout D` does, for at most timeout (at most {}s, the default): at the end, the final envelope (with exitCode, the command's status); at the timeout, the output new since `since` (at most max_bytes) and a footer saying it is still running, with the cursor for the next call. Progress notifications every second when the request has a progressToken.", MAX_WAIT.as_secs()),
        "inputSchema": {"type": "object", "properties": {
            "source": source,
            "timeout": duration(&format!("Seconds (or \"20s\", \"500ms\") to wait at most; at most {}s, the default.", MAX_WAIT.as_secs())),
            "since": {"type": ["integer", "string"], "default": 0, "description": "At the timeout, the output from this cursor on (the cursor the last answer gave)."},
            "max_bytes": {"type": ["integer", "string"], "default": crate::limits::CAT_BYTES, "description": "At the timeout, at most this much new output (0: no limit)."}},
            "required": ["source"], "additionalProperties": false},
        "outputSchema": {"type": "object", "properties": {
            "envelope": {"type": "object", "description": "At the end: the final envelope (`spill schema envelope`), when the command's output was stored as JSON envelope."},
            "text": {"type": "string", "description": "At the timeout: the output new since the cursor."},
            "footer": {"type": "string", "description": "At the timeout: what was shown, where it stands, the cursor reading on."},
            "live": live_schema()},
            "additionalProperties": false},
        "annotations": {"title": "spill wait", "readOnlyHint": true, "destructiveHint": false,
                        "idempotentHint": true, "openWorldHint": false},
    });
    let stop = json!({
        "name": "stop",
        "title": "spill stop",
        "description": "Stop a command still running (a running envelope's ref), as `spill stop REF` does: SIGTERM to its process group, SIGKILL after grace; its output is then stored (read it with the other tools, or wait for its final envelope). Only commands started in this conversation's scope can be named.",
        "inputSchema": {"type": "object", "properties": {
            "source": source,
            "grace": duration(&format!("Seconds (or \"500ms\") the command has after SIGTERM before SIGKILL: 2 by default, at most {}.", MAX_GRACE.as_secs()))},
            "required": ["source"], "additionalProperties": false},
        "outputSchema": {"type": "object", "properties": {
            "stopped": {"type": "string", "enum": ["ended", "already ended", "killed"],
                        "description": "ended: it ended after SIGTERM; already ended: nothing to stop; killed: SIGKILL (it did not end within grace, or its supervisor was gone), its output so far marked interrupted."},
            "live": live_schema()},
            "required": ["stopped"], "additionalProperties": false},
        "annotations": {"title": "spill stop", "readOnlyHint": false, "destructiveHint": true,
                        "idempotentHint": true, "openWorldHint": false},
    });
    vec![wait, stop]
}

/// The schema of `structuredContent.live`: where a running entry stands.
fn live_schema() -> Value {
    let count = |what: &str| json!({"type": "integer", "minimum": 0, "description": what});
    json!({"type": "object", "description": "On a running entry's ref (wrap --detach-after): where the command stands when this answer was made.",
        "properties": {
            "ref": {"type": "string", "description": "The running entry's ref."},
            "state": {"type": "string", "enum": ["running", "interrupted", "exited"],
                      "description": "running: still running; interrupted: spill's supervisor died before the command ended (these bytes are all there is); exited: it ended, its output is stored whole."},
            "exitCode": {"type": "integer", "description": "exited: the command's status as wrap reports it (128+N for signal N)."},
            "sizeBytes": count("Bytes of the output so far (the whole output once exited)."),
            "lines": count("Lines of the output so far."),
            "cursor": count("Read on from here: cat with since: CURSOR returns only what is new."),
            "droppedBytes": count("Bytes --max-file cut (so far).")},
        "required": ["ref", "state", "sizeBytes", "lines", "cursor"], "additionalProperties": false})
}

/// `structuredContent.live` of an answer on a running entry.
fn live_value(status: &Status) -> Value {
    let (state, code) = match status.standing {
        Standing::Running => ("running", None),
        Standing::Interrupted => ("interrupted", None),
        Standing::Exited(code) => ("exited", code),
        Standing::Complete => ("exited", None),
    };
    let mut live = json!({"ref": status.id.to_string(), "state": state, "sizeBytes": status.total,
                          "lines": status.lines, "cursor": status.cursor});
    if let Some(code) = code {
        live["exitCode"] = json!(code);
    }
    if status.dropped > 0 {
        live["droppedBytes"] = json!(status.dropped);
    }
    live
}

/// A tool's output schema with the optional `live` member (in each choice of a `oneOf`).
fn with_live(mut schema: Value) -> Value {
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        props.insert("live".into(), live_schema());
    }
    if let Some(choices) = schema.get_mut("oneOf").and_then(Value::as_array_mut) {
        for choice in choices {
            if let Some(props) = choice.get_mut("properties").and_then(Value::as_object_mut) {
                props.insert("live".into(), live_schema());
            }
        }
    }
    schema
}

fn schema_value(which: Schema) -> Value {
    serde_json::from_str(ops::schema::schema(which)).expect("the schemas are valid JSON")
}

/// A schema whose top level is already an object (or a choice of objects): said so at the top.
fn object_schema(which: Schema) -> Value {
    let mut schema = schema_value(which);
    schema["type"] = json!("object");
    schema
}

/// `{"KEY": <spill's schema>}`, its `$defs` moved to the top so that `#/$defs/…` still resolve;
/// `also` is a second, optional property (shape's `paths`).
fn wrap_schema(which: Schema, key: &str, also: Option<(&str, Value)>) -> Value {
    let mut inner = schema_value(which);
    let inner_map = inner.as_object_mut().expect("a schema is an object");
    let defs = inner_map.remove("$defs");
    let schema = inner_map.remove("$schema");
    // `minContains: 0` (extract: at most one continuation string) is a 2020-12 keyword; a
    // draft-07 validator (the TypeScript SDK's) reads the bare `contains` as "at least one".
    for keyword in ["contains", "minContains", "maxContains"] {
        inner_map.remove(keyword);
    }
    let mut properties = Map::new();
    properties.insert(key.to_string(), inner);
    let mut required = vec![key.to_string()];
    if let Some((name, value)) = also {
        properties.insert(name.to_string(), value);
        required.clear();
    }
    let mut out =
        json!({"type": "object", "properties": properties, "additionalProperties": false});
    if !required.is_empty() {
        out["required"] = json!(required);
    }
    if let Some(schema) = schema {
        out["$schema"] = schema;
    }
    if let Some(defs) = defs {
        out["$defs"] = defs;
    }
    out
}

fn paths_schema() -> (&'static str, Value) {
    (
        "paths",
        json!({"description": "With paths: one entry per distinct path.", "type": "array", "items": {
            "type": "object", "properties": {
                "path": {"type": "string"}, "types": {"type": "string"}, "count": {"type": "integer", "minimum": 0}},
            "required": ["path", "types", "count"], "additionalProperties": false}}),
    )
}

/// Calls the tool `name` (without its prefix); `None` when there is no such tool.
pub fn call(store: &StoreConfig, name: &str, arguments: &Value) -> Option<Value> {
    // What an earlier call in this process left unread.
    let _ = running::take_seen();
    let answer = match name {
        "cat" => cat(store, arguments),
        "shape" => shape(store, arguments),
        "extract" => extract(store, arguments),
        "search" => search(store, arguments),
        "ls" => ls(store, arguments),
        _ => return None,
    };
    let answer = answer.unwrap_or_else(|e| failure(&e));
    if name != "ls" {
        count_read(store, &answer);
    }
    Some(answer)
}

/// Adds a reading tool's answer (its JSON, as the client gets it) to the scope's tally (`spill
/// stats`), best effort and silent.
fn count_read(store: &StoreConfig, answer: &Value) {
    let bytes = answer.to_string().len() as u64;
    let _ = crate::store::stats::add_read(&crate::store::Store::new(store.clone()), bytes);
}

/// A `wait` call's arguments.
#[derive(Debug, Clone)]
pub struct WaitCall {
    /// The running entry.
    pub id: Ref,
    /// How long to wait at most (at most [`MAX_WAIT`]).
    pub timeout: Duration,
    /// At the timeout, the page from this cursor on.
    pub since: u64,
    /// At the timeout, at most this many bytes (0: no limit).
    pub max_bytes: u64,
}

impl WaitCall {
    /// Reads `wait`'s arguments; a timeout longer than [`MAX_WAIT`] waits [`MAX_WAIT`].
    pub fn parse(arguments: &Value) -> Result<WaitCall> {
        let mut args = Args::new(arguments)?;
        let call = WaitCall {
            id: args.source_ref()?,
            timeout: args.duration("timeout", MAX_WAIT)?.min(MAX_WAIT),
            since: args.count("since", 0)?,
            max_bytes: args.size("max_bytes", crate::limits::CAT_BYTES)?,
        };
        args.finish()?;
        Ok(call)
    }

    /// The answer, from what waiting found: at the end the final envelope, as `spill wait`
    /// prints it (the command's status is `live.exitCode`, not an error); at the timeout the
    /// page since the cursor with its footer; an interrupted entry is an error, as `spill wait`
    /// exits 2 for it.
    pub fn answer(&self, store: &StoreConfig, waited: Waited) -> Result<Value> {
        let answer = self.answer_of(store, waited);
        if let Ok(answer) = &answer {
            count_read(store, answer);
        }
        answer
    }

    fn answer_of(&self, store: &StoreConfig, waited: Waited) -> Result<Value> {
        let id = self.id.to_string();
        match waited {
            Waited::Ended(record) => ended(store, &self.id, &record),
            Waited::Live(snap) => {
                let interrupted = snap.liveness == running::Liveness::Interrupted;
                drop(snap);
                let mut out = Vec::new();
                let page =
                    ops::since::run(store, &id, self.since, self.max_bytes, "wait", &mut out)?;
                let page_text = String::from_utf8_lossy(&out).into_owned();
                let mut structured = json!({"text": page_text});
                if let Some(footer) = &page.report.footer {
                    structured["footer"] = json!(footer);
                }
                let mut text = page_text + &page.report.trailer();
                if interrupted {
                    text.push_str(&format!(
                        "spill: {id} was interrupted: its supervisor died before the command ended\n"
                    ));
                }
                let live = page.status(&id).map(|s| (s, false));
                let mut answer = result(store, Some(&id), text, structured, live);
                answer["isError"] = json!(interrupted);
                Ok(answer)
            }
        }
    }
}

/// A running entry that ended, as `spill wait` reports it: its final envelope, or why it
/// could not start (an error, as `spill wait` prints it).
fn ended(store: &StoreConfig, id: &Ref, record: &Record) -> Result<Value> {
    if record.state == State::NotStarted {
        let why = record.error.as_deref().unwrap_or("it could not be started");
        return Err(Error::Usage(format!("{}: {why}", record.command)));
    }
    // An output that fitted `--max-inline` has no envelope: the answer is the output itself.
    let output = match &record.output {
        Some(text) => text.clone(),
        None => crate::wrap::live::inline_output(&crate::store::Store::new(store.clone()), record)?
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default(),
    };
    let mut structured = json!({});
    // The supervisor rendered it for the command line that started it; this store is
    // restricted, so the JSON envelope loses its `path` (the text form names none).
    let mut text = match serde_json::from_str::<Value>(&output) {
        Ok(Value::Object(mut envelope)) => {
            envelope.shift_remove("path");
            let envelope = Value::Object(envelope);
            let text = envelope.to_string() + "\n";
            structured["envelope"] = envelope;
            text
        }
        _ => output,
    };
    if let Some(reason) = &record.error {
        text.push_str(&format!(
            "spill: warning: the output was not stored ({reason}); printed a preview only\n"
        ));
    }
    let id = id.to_string();
    let live = ops::since::status(store, &id, None)?.map(|s| (s, false));
    let source = record.sealed_ref().map(|r| r.to_string());
    Ok(result(store, source.as_deref(), text, structured, live))
}

/// A `stop` call's arguments.
#[derive(Debug, Clone)]
pub struct StopCall {
    /// The running entry.
    pub id: Ref,
    /// SIGTERM's grace before SIGKILL (at most [`MAX_GRACE`]).
    pub grace: Duration,
}

impl StopCall {
    /// Reads `stop`'s arguments; a grace longer than [`MAX_GRACE`] is [`MAX_GRACE`].
    pub fn parse(arguments: &Value) -> Result<StopCall> {
        let mut args = Args::new(arguments)?;
        let call = StopCall {
            id: args.source_ref()?,
            grace: args
                .duration("grace", Duration::from_secs(2))?
                .min(MAX_GRACE),
        };
        args.finish()?;
        Ok(call)
    }

    /// The answer: what `spill stop` says, and where the entry stands now.
    pub fn answer(&self, store: &StoreConfig, stopped: &Stopped) -> Result<Value> {
        let id = self.id.to_string();
        let word = match stopped {
            Stopped::AlreadyEnded(_) => "already ended",
            Stopped::Ended(_) => "ended",
            Stopped::Killed => "killed",
        };
        let text = format!("spill: note: {}\n", stopped.sentence(&self.id));
        let live = ops::since::status(store, &id, None)?.map(|s| (s, false));
        Ok(result(store, None, text, json!({"stopped": word}), live))
    }
}

/// The longest error text a tool answers: the message echoes at most
/// [`crate::diag::ECHO_MAX`] characters of each input it names; this bounds the whole
/// whatever a message holds.
pub const MAX_ERROR: usize = 4096;

/// A failed command: the message it prints, as an error result.
pub fn failure(e: &Error) -> Value {
    let mut text = format!("spill: {e}\n");
    if let Error::Query { query, offset, .. } = e {
        text.push_str(&crate::diag::caret_lines(query, *offset));
    }
    // The cut's marker (`…[+N chars]…`) fits in the room left.
    let text = crate::diag::cut(&text, MAX_ERROR - 64);
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

/// A result: the text the command prints, its structured form, a link to the stored output;
/// on a running entry, where it stands (`live`, and the command line's note after the text
/// when `note`: a `since` page's footer says it already).
fn result(
    store: &StoreConfig,
    source: Option<&str>,
    mut text: String,
    mut structured: Value,
    live: Option<(Status, bool)>,
) -> Value {
    if let Some((status, note)) = live {
        if note {
            text.push_str(&format!("spill: note: {}\n", status.sentence()));
        }
        structured["live"] = live_value(&status);
    }
    let mut content = vec![json!({"type": "text", "text": text})];
    if let Some(source) = source
        && let Some(link) = super::resources::link(store, source)
    {
        content.push(link);
    }
    json!({"content": content, "structuredContent": structured, "isError": false})
}

/// Where `source` stands when it is a running entry's id, as the reading command just served it.
fn observed(store: &StoreConfig, source: &str) -> Result<Option<(Status, bool)>> {
    Ok(ops::since::status(store, source, running::take_seen())?.map(|s| (s, true)))
}

/// Runs a writing command into a buffer: the text it prints, and its report.
fn capture(
    run: impl FnOnce(&mut dyn std::io::Write) -> Result<Report>,
) -> Result<(String, Report)> {
    let mut out = Vec::new();
    let report = run(&mut out)?;
    let mut text = String::from_utf8_lossy(&out).into_owned();
    text.push_str(&report.trailer());
    Ok((text, report))
}

fn cat(store: &StoreConfig, arguments: &Value) -> Result<Value> {
    let mut args = Args::new(arguments)?;
    let defaults = ops::cat::Request::default();
    let since = match args.map.contains_key("since") {
        true => Some(args.count::<u64>("since", 0)?),
        false => None,
    };
    let req = ops::cat::Request {
        source: args.source()?,
        lines: args.string("lines")?,
        bytes: args.string("bytes")?,
        max_bytes: args.size("max_bytes", defaults.max_bytes)?,
        max_columns: args.count("max_columns", defaults.max_columns)?,
        raw: args.flag("raw", false)?,
        hex: args.flag("hex", false)?,
        escape_terminal: false,
    };
    args.finish()?;
    let mut out = Vec::new();
    if let Some(cursor) = since {
        if req.lines.is_some() || req.bytes.is_some() || req.hex {
            return Err(Error::Usage(
                "since cannot be used with lines, bytes or hex".into(),
            ));
        }
        // `cat --since`: the same page, bound and footer.
        let bound = ops::since::poll_bound(req.max_bytes);
        let page = ops::since::run(store, &req.source, cursor, bound, "cat", &mut out)?;
        let text = String::from_utf8_lossy(&out).into_owned();
        let mut structured = json!({"text": text});
        if let Some(footer) = &page.report.footer {
            structured["footer"] = json!(footer);
        }
        let live = page.status(&req.source).map(|s| (s, false));
        let text = text + &page.report.trailer();
        return Ok(result(store, Some(&req.source), text, structured, live));
    }
    let report = ops::cat::run(store, &req, &mut out)?;
    let live = observed(store, &req.source)?;
    let page = String::from_utf8_lossy(&out).into_owned();
    let mut structured = json!({"text": page});
    if let Some(footer) = &report.footer {
        structured["footer"] = json!(footer);
    }
    let text = page + &report.trailer();
    Ok(result(store, Some(&req.source), text, structured, live))
}

fn shape(store: &StoreConfig, arguments: &Value) -> Result<Value> {
    let mut args = Args::new(arguments)?;
    let defaults = ops::shape::Request::default();
    let req = ops::shape::Request {
        source: args.source()?,
        max_depth: args.count("max_depth", defaults.max_depth)?,
        max_bytes: args.size("max_bytes", defaults.max_bytes)?,
        paths: args.flag("paths", false)?,
        skip_invalid: args.flag("skip_invalid", false)?,
    };
    args.finish()?;
    let (text, _) = capture(|out| ops::shape::run(store, &req, out))?;
    let live = observed(store, &req.source)?;
    let printed = text.lines().take_while(|l| !l.starts_with("spill: "));
    let structured = if req.paths {
        let rows: Vec<Value> = printed
            .filter_map(|line| {
                let mut cols = line.rsplitn(3, "  ");
                let count: u64 = cols.next()?.parse().ok()?;
                let types = cols.next()?;
                let path = cols.next()?;
                Some(json!({"path": path, "types": types, "count": count}))
            })
            .collect();
        json!({"paths": rows})
    } else {
        let line = printed.into_iter().next().unwrap_or("null");
        json!({"shape": serde_json::from_str::<Value>(line).unwrap_or(Value::Null)})
    };
    Ok(result(store, Some(&req.source), text, structured, live))
}

fn extract(store: &StoreConfig, arguments: &Value) -> Result<Value> {
    let mut args = Args::new(arguments)?;
    let defaults = ops::extract::Request::default();
    let source = args.source()?;
    let query = args.required("query")?;
    let nodes = args.flag("nodes", false)?;
    let raw = args.flag("raw", false)?;
    if nodes && raw {
        return Err(Error::Usage("nodes and raw cannot be used together".into()));
    }
    let req = ops::extract::Request {
        source,
        query: Some(query),
        from_file: None,
        mode: match (nodes, raw) {
            (true, _) => crate::extract::Mode::Nodes,
            (_, true) => crate::extract::Mode::Raw,
            _ => crate::extract::Mode::Values,
        },
        compact: args.flag("compact", false)?,
        offset: args.count("offset", 0)?,
        max_items: args.count("max_items", defaults.max_items)?,
        max_depth: args.count("max_depth", defaults.max_depth)?,
        max_string: args.count("max_string", defaults.max_string)?,
        max_bytes: args.size("max_bytes", defaults.max_bytes)?,
        unbounded: args.flag("unbounded", false)?,
        skip_invalid: args.flag("skip_invalid", false)?,
    };
    args.finish()?;
    let (text, _) = capture(|out| ops::extract::run(store, &req, out))?;
    let live = observed(store, &req.source)?;
    // The structured form is the --nodes one, with the same bounds.
    let nodes_req = ops::extract::Request {
        mode: crate::extract::Mode::Nodes,
        compact: true,
        ..req.clone()
    };
    let mut out = Vec::new();
    ops::extract::run(store, &nodes_req, &mut out)?;
    let nodes: Value = serde_json::from_slice(&out).unwrap_or_else(|_| json!([]));
    Ok(result(
        store,
        Some(&req.source),
        text,
        json!({"nodes": nodes}),
        live,
    ))
}

fn search(store: &StoreConfig, arguments: &Value) -> Result<Value> {
    let mut args = Args::new(arguments)?;
    let defaults = ops::search::Request::default();
    // `all`: every stored output of the scope, newest first, as `spill search --all` (no source).
    let all = args.flag("all", false)?;
    let source = match all {
        true if args.map.contains_key("source") => {
            return Err(Error::Usage(
                "all searches every stored output: give no source with it".into(),
            ));
        }
        true => String::new(),
        false => args.source()?,
    };
    let resume = args.string("resume")?;
    if resume.is_some() && !all {
        return Err(Error::Usage(
            "resume continues an all: true search: give all with it".into(),
        ));
    }
    let max_outputs = args.count("max_outputs", defaults.max_outputs)?;
    let mut patterns: Vec<String> = args.string("pattern")?.into_iter().collect();
    patterns.extend(args.strings("regexp")?);
    if patterns.is_empty() {
        return Err(Error::Usage("pattern is required (or regexp)".into()));
    }
    let context: usize = args.count("context", 0)?;
    let before = args.map.contains_key("before_context");
    let after = args.map.contains_key("after_context");
    let mut req = ops::search::Request {
        source,
        patterns,
        fixed_strings: args.flag("fixed_strings", false)?,
        ignore_case: args.flag("ignore_case", false)?,
        word: args.flag("word", false)?,
        before_context: if before {
            args.count("before_context", 0)?
        } else {
            context
        },
        after_context: if after {
            args.count("after_context", 0)?
        } else {
            context
        },
        offset: args.count("offset", 0)?,
        limit: args.count("limit", defaults.limit)?,
        max_columns: args.count("max_columns", defaults.max_columns)?,
        max_bytes: args.size("max_bytes", defaults.max_bytes)?,
        unbounded: args.flag("unbounded", false)?,
        count: args.flag("count", false)?,
        json: args.flag("json", false)?,
        paths: args.flag("paths", false)?,
        skip_invalid: args.flag("skip_invalid", false)?,
        raw: args.flag("raw", false)?,
        all,
        resume,
        max_outputs,
        ..defaults
    };
    args.finish()?;
    if req.all {
        // Running entries are not searched (a note says so): no single entry's status applies.
        let (text, structured) = if req.json {
            let (text, report) = bounded_json(store, &req)?;
            let structured = first_json(&text);
            (text + &report.trailer(), structured)
        } else {
            let (text, _) = capture(|out| ops::search::run(store, &req, out))?;
            req.json = true;
            (text, first_json(&bounded_json(store, &req)?.0))
        };
        return Ok(result(store, None, text, structured, None));
    }
    let (text, structured, live) = if req.json {
        let (text, report) = bounded_json(store, &req)?;
        let live = observed(store, &req.source)?;
        let structured = first_json(&text);
        (text + &report.trailer(), structured, live)
    } else {
        let (text, _) = capture(|out| ops::search::run(store, &req, out))?;
        let live = observed(store, &req.source)?;
        req.json = true;
        (text, first_json(&bounded_json(store, &req)?.0), live)
    };
    Ok(result(store, Some(&req.source), text, structured, live))
}

/// `search --json` within `max_bytes`, as the text page is. The JSON repeats a line and its
/// context for every match on it, so the same page can be many times the text's size (a large
/// `context` made it 12.9 MB for a 1.2 MB input): it is written into a buffer that refuses more
/// than `max_bytes`, and a page that does not fit is asked for again with half the `limit`, down
/// to `limit: 0` (the total and `nextOffset` alone). The object says which `limit` it used and
/// its `nextOffset` continues from the matches it holds. Each try is one search of the source.
fn bounded_json(store: &StoreConfig, req: &ops::search::Request) -> Result<(String, Report)> {
    let cap = if req.unbounded || req.max_bytes == 0 {
        usize::MAX
    } else {
        usize::try_from(req.max_bytes).unwrap_or(usize::MAX)
    };
    let mut req = req.clone();
    loop {
        let mut out = Capped {
            bytes: Vec::new(),
            cap,
            over: false,
        };
        match ops::search::run(store, &req, &mut out) {
            Ok(report) => return Ok((String::from_utf8_lossy(&out.bytes).into_owned(), report)),
            Err(_) if out.over && req.limit > 0 => req.limit /= 2,
            Err(e) => return Err(e),
        }
    }
}

/// A buffer that fails a write past `cap` bytes (and says so in `over`).
struct Capped {
    bytes: Vec<u8>,
    cap: usize,
    over: bool,
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len().saturating_add(buf.len()) > self.cap {
            self.over = true;
            return Err(std::io::Error::other("over the bound"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The JSON object on the first line of a command's output.
fn first_json(text: &str) -> Value {
    text.lines()
        .next()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| json!({}))
}

fn ls(store: &StoreConfig, arguments: &Value) -> Result<Value> {
    Args::new(arguments)?.finish()?;
    let listing = ops::ls::run(store, &ops::ls::Request::default())?;
    let mut out = Vec::new();
    ops::ls::write_text(&listing, false, false, &mut out)?;
    let structured = serde_json::to_value(&listing).expect("ls output serialises");
    Ok(result(
        store,
        None,
        String::from_utf8_lossy(&out).into_owned(),
        structured,
        None,
    ))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use crate::ops::testing;

    fn text_of(result: &Value) -> String {
        result["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect()
    }

    /// Any string, from empty to 300 KB: short garbage, long runs, a query's characters.
    fn any_text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[ -~]{0,40}",
            ("[a-z$.\\[\\]*?:0-9\"]{1,8}", 1usize..40_000).prop_map(|(s, n)| s.repeat(n)),
        ]
    }

    fn any_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            any_text().prop_map(Value::String),
            any::<u32>().prop_map(|n| json!(n)),
            any::<bool>().prop_map(Value::Bool),
            Just(Value::Null),
            Just(json!([1, "x"])),
        ]
    }

    /// `wait`'s timeout is bounded by MAX_WAIT whatever is asked, `stop`'s grace by MAX_GRACE;
    /// durations read as the command line reads them, or as seconds; bad ones are refused.
    #[test]
    fn wait_and_stop_bound_their_durations() {
        use std::time::Duration;
        let source = "sp_0123456789abcdef";
        let wait =
            |timeout: Value| super::WaitCall::parse(&json!({"source": source, "timeout": timeout}));
        assert_eq!(wait(Value::Null).unwrap().timeout, super::MAX_WAIT);
        assert_eq!(wait(json!(600)).unwrap().timeout, super::MAX_WAIT);
        assert_eq!(wait(json!("2h")).unwrap().timeout, super::MAX_WAIT);
        assert_eq!(
            wait(json!(1.5)).unwrap().timeout,
            Duration::from_millis(1500)
        );
        assert_eq!(
            wait(json!("500ms")).unwrap().timeout,
            Duration::from_millis(500)
        );
        assert_eq!(wait(json!("20s")).unwrap().timeout, Duration::from_secs(20));
        assert_eq!(wait(json!(0)).unwrap().timeout, Duration::ZERO);
        assert_eq!(wait(json!(1e300)).unwrap().timeout, super::MAX_WAIT);
        for bad in [
            json!(-1),
            json!("soon"),
            json!("99999999999999999999ms"),
            json!(true),
        ] {
            let e = wait(bad.clone()).unwrap_err().to_string();
            assert!(e.starts_with("timeout"), "{bad}: {e}");
        }
        let call = super::WaitCall::parse(&json!({"source": source})).unwrap();
        assert_eq!((call.since, call.max_bytes), (0, crate::limits::CAT_BYTES));
        assert!(super::WaitCall::parse(&json!({"source": "/etc/passwd"})).is_err());
        assert!(super::WaitCall::parse(&json!({"source": source, "lines": "1:2"})).is_err());
        let stop =
            |grace: Value| super::StopCall::parse(&json!({"source": source, "grace": grace}));
        assert_eq!(stop(Value::Null).unwrap().grace, Duration::from_secs(2));
        assert_eq!(stop(json!(3600)).unwrap().grace, super::MAX_GRACE);
        assert_eq!(
            stop(json!("250ms")).unwrap().grace,
            Duration::from_millis(250)
        );
        assert!(super::StopCall::parse(&json!({})).is_err());
    }

    /// The tools `spill mcp` lists for running entries are well-formed: an object schema for
    /// both sides, wait read-only, stop not.
    #[test]
    fn the_live_tools_are_declared() {
        let tools = super::live_definitions();
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, super::LIVE_NAMES);
        for tool in &tools {
            assert_eq!(tool["inputSchema"]["type"], "object");
            assert_eq!(tool["outputSchema"]["type"], "object");
            jsonschema::validator_for(&tool["outputSchema"]).unwrap();
        }
        assert_eq!(tools[0]["annotations"]["readOnlyHint"], true);
        assert_eq!(tools[1]["annotations"]["readOnlyHint"], false);
        // Every reading tool but ls may say where a running entry stands.
        for tool in super::definitions("") {
            let schema = serde_json::to_string(&tool["outputSchema"]).unwrap();
            assert_eq!(
                schema.contains("\"live\""),
                tool["name"] != "ls",
                "{}",
                tool["name"]
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Whatever the arguments, an error names at most a bounded excerpt of them, and a
        /// search's structuredContent stays within its max_bytes as its text does.
        #[test]
        fn every_answer_stays_within_its_bounds(
            tool in 0usize..5,
            names in proptest::collection::vec(
                prop_oneof![
                    Just("pattern".to_string()), Just("query".to_string()),
                    Just("lines".to_string()), Just("max_bytes".to_string()),
                    Just("context".to_string()), Just("limit".to_string()),
                    Just("json".to_string()), Just("regexp".to_string()), Just("since".to_string()),
                    "[a-z_]{1,12}",
                    ("[a-z]", 1usize..5000).prop_map(|(s, n)| s.repeat(n)),
                ], 0..4),
            values in proptest::collection::vec(any_value(), 4),
            source_is_ref in any::<bool>(),
            context in 0u64..40,
            max_bytes in 300u64..6000,
        ) {
            let (_dir, store) = testing::store();
            let rows: String = (0..400).map(|i| format!("{} {}\n", "y".repeat(200), i)).collect();
            let reference = testing::spill(&store, rows.as_bytes());
            let name = super::NAMES[tool];
            let mut arguments = serde_json::Map::new();
            if source_is_ref {
                arguments.insert("source".into(), json!(reference));
            }
            for (key, value) in names.iter().zip(values) {
                arguments.insert(key.clone(), value);
            }
            let answer = super::call(&store, name, &Value::Object(arguments)).unwrap();
            if answer["isError"] == true {
                let text = text_of(&answer);
                prop_assert!(text.chars().count() <= super::MAX_ERROR, "{} chars", text.len());
            }
            // A search that matches on every line, with context: its JSON repeats the lines.
            let search = json!({"source": reference, "pattern": "y", "context": context,
                                "max_bytes": max_bytes, "limit": 1000});
            let answer = super::call(&store, "search", &search).unwrap();
            prop_assert_eq!(&answer["isError"], &json!(false), "{}", text_of(&answer));
            let structured = serde_json::to_string(&answer["structuredContent"]).unwrap();
            prop_assert!(structured.len() as u64 <= max_bytes, "{} > {max_bytes}", structured.len());
            prop_assert!(text_of(&answer).len() as u64 <= max_bytes + 200);
            prop_assert!(answer["structuredContent"]["totalMatches"].as_u64().unwrap() > 0);
        }

        /// A URI of any length is answered with an error that echoes at most a bounded part.
        #[test]
        fn resource_errors_echo_a_bounded_excerpt(uri in any_text(), prefix in any::<bool>()) {
            let (_dir, store) = testing::store();
            let uri = if prefix { format!("spill://default/{uri}") } else { uri };
            if let Err((_, message)) = super::super::resources::read(&store, &uri) {
                prop_assert!(message.chars().count() <= 2 * crate::diag::ECHO_MAX + 100,
                             "{} chars", message.len());
            }
        }
    }
}
