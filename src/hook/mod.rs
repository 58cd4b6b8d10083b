//! What every harness's hook shares (`spill hook HARNESS`): the [`Response`], the conversation's
//! scope and turn, the rewritten command, and the reading of hook input and shell commands.
//!
//! Each harness's own hook is its folder's `hook.rs` (`crate::harness`). A hook reads one JSON
//! document, decides, and answers with a [`Response`]: the bytes the harness expects on
//! stdout, a note for stderr, and any store work (dropping a finished conversation's scope) for
//! the command layer to do. Nothing here prints or exits, so the translation is tested
//! directly, and nothing here names a harness.

use crate::wrap::shell_quote;

/// What a hook answers.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Response {
    /// Written to stdout as it is (the harness's hook output format); empty lets the call through.
    pub stdout: String,
    /// One line for stderr: why the call went through unchanged.
    pub note: Option<String>,
    /// A message for the user (not the model) when spill cannot act in this conversation: the
    /// command layer shows it once per conversation, where the harness shows hook messages
    /// (Claude Code's `systemMessage`), when the call goes through unchanged.
    pub notice: Option<String>,
    /// A scope whose entries the command layer removes (the conversation has ended).
    pub remove_scope: Option<String>,
    /// A tool result for the command layer to wrap in `scope`: when it spills, the reply
    /// built from its envelope replaces `stdout`.
    pub spill: Option<SpillRequest>,
}

/// A tool result to pass through `wrap` in a conversation's scope.
#[derive(Debug, PartialEq, Eq)]
pub struct SpillRequest {
    /// The conversation's scope.
    pub scope: String,
    /// The result's bytes.
    pub bytes: Vec<u8>,
    /// The envelope's label (the tool's name).
    pub label: String,
    /// How the hook's answer carries the envelope.
    pub reply: Reply,
    /// When the harness cut the result before the hook saw it: what it kept, as a phrase
    /// ("lines 1-2000 of 18002"). The envelope then says the store holds only that.
    pub cut: Option<String>,
    /// A line the harness showed after the result, not part of it, that the model should
    /// still read after the envelope (Copilot CLI's shell status, `<shellId: N completed with
    /// exit code X>`): the reply is rendered from the envelope, a newline and this line.
    pub after: Option<String>,
}

/// An answer format that carries an envelope: the harness's function from the envelope's JSON
/// to the hook's stdout (Claude Code's `updatedMCPToolOutput`, Gemini CLI's `AfterTool` block
/// decision).
#[derive(Debug, Clone, Copy)]
pub struct Reply(pub fn(&str) -> String);

impl PartialEq for Reply {
    fn eq(&self, other: &Reply) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for Reply {}

impl Reply {
    /// The hook's answer (stdout) for this envelope JSON.
    pub fn render(self, envelope: &str) -> String {
        (self.0)(envelope)
    }
}

/// A hook call as every harness's starts: its JSON, its event name and the conversation's scope
/// (`PREFIX-SESSION`), or (`Err` inside) the response that lets the call through because the
/// input names no session.
pub(crate) type Call = std::result::Result<(serde_json::Value, String, String), Response>;

/// Parses a hook call; `Err` when the input is not JSON.
pub(crate) fn open_call(input: &[u8], prefix: &str) -> std::result::Result<Call, String> {
    let input: serde_json::Value =
        serde_json::from_slice(input).map_err(|e| format!("hook input is not JSON: {e}"))?;
    let event = input["hook_event_name"].as_str().unwrap_or("").to_string();
    let session = input["session_id"].as_str().unwrap_or("");
    Ok(match scope_for(prefix, session) {
        Some(scope) => Ok((input, event, scope)),
        None => Err(through(format!(
            "{event}: no session_id in the hook input, so no conversation scope; the call goes through unchanged"
        ))),
    })
}

/// The arguments of a shell call and their `command`; or the response that lets the call
/// through (no arguments or command: saying so; an empty command: silently).
pub(crate) fn shell_command(
    args: &serde_json::Value,
) -> std::result::Result<(&serde_json::Map<String, serde_json::Value>, &str), Box<Response>> {
    let Some(map) = args.as_object() else {
        return Err(Box::new(through(
            "shell call without arguments; unchanged".into(),
        )));
    };
    let Some(command) = map.get("command").and_then(serde_json::Value::as_str) else {
        return Err(Box::new(through(
            "shell call without a command; unchanged".into(),
        )));
    };
    if command.trim().is_empty() {
        return Err(Box::default());
    }
    Ok((map, command))
}

/// The most bytes one argument of a program may have on Linux (`MAX_ARG_STRLEN`: 32 pages of
/// 4 KiB, its closing NUL included). A harness hands its shell the command as one argument
/// (`bash -c CMD`, `sh -c CMD`), so a rewritten command longer than this fails to start with
/// "Argument list too long".
pub const MAX_ARG_BYTES: usize = 32 * 4096 - 1;

/// The response that lets a call through unchanged when its rewrite (`rewritten`, which quotes
/// the command once more: a `'` becomes `'\''`) would not fit in one argument; `None` when it
/// fits. A command that ran without spill then runs as it did, unwrapped.
pub(crate) fn too_long(rewritten: &str) -> Option<Response> {
    (rewritten.len() > MAX_ARG_BYTES).then(|| {
        through(format!(
            "the command would be {} bytes once wrapped, more than one argument may have \
             ({MAX_ARG_BYTES}); it runs without spill",
            rewritten.len()
        ))
    })
}

/// A response that lets the call through unchanged, saying why.
pub(crate) fn through(note: String) -> Response {
    Response {
        note: Some(note),
        ..Response::default()
    }
}

/// A command's text as bash reads its words, white space runs as one space: quoting (`'…'`,
/// `"…"`, `$'…'` with its escapes), backslash escapes and line joins (backslash-newline, which
/// joins the words around it: `rm -r\⏎f x` is `rm -rf x`) are undone as bash undoes them. A
/// rule's text and a command compared this way cannot differ by quoting alone. Expansions
/// (`$VAR`, `$(…)`) are left as written: what they produce is known only when they run.
pub(crate) fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push(next),
            },
            '\'' => {
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    out.push(c);
                }
            }
            '$' if chars.peek() == Some(&'\'') => {
                chars.next();
                ansi_c(&mut chars, &mut out);
            }
            '$' if chars.peek() == Some(&'"') => {}
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some('\n') => {
                                chars.next();
                            }
                            Some(&next @ ('$' | '`' | '"' | '\\')) => {
                                chars.next();
                                out.push(next);
                            }
                            _ => out.push('\\'),
                        },
                        _ => out.push(c),
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The rest of a `$'…'` word (after its opening quote), its escapes decoded as bash decodes them.
fn ansi_c(chars: &mut std::iter::Peekable<std::str::Chars>, out: &mut String) {
    while let Some(c) = chars.next() {
        match c {
            '\'' => return,
            '\\' => {
                let Some(e) = chars.next() else { return };
                let simple = match e {
                    'n' => Some('\n'),
                    't' => Some('\t'),
                    'r' => Some('\r'),
                    'a' => Some('\x07'),
                    'b' => Some('\x08'),
                    'e' | 'E' => Some('\x1b'),
                    'f' => Some('\x0c'),
                    'v' => Some('\x0b'),
                    '\\' | '\'' | '"' | '?' => Some(e),
                    _ => None,
                };
                if let Some(s) = simple {
                    out.push(s);
                    continue;
                }
                let (radix, max) = match e {
                    'x' => (16, 2),
                    'u' => (16, 4),
                    'U' => (16, 8),
                    '0'..='7' => (8, 2),
                    _ => {
                        out.push('\\');
                        out.push(e);
                        continue;
                    }
                };
                let mut value = if radix == 8 {
                    e.to_digit(8).unwrap_or(0)
                } else {
                    0
                };
                let mut digits = 0;
                while digits < max {
                    match chars.peek().and_then(|d| d.to_digit(radix)) {
                        Some(d) => {
                            value = value.saturating_mul(radix).saturating_add(d);
                            chars.next();
                            digits += 1;
                        }
                        None => break,
                    }
                }
                if radix == 16 && digits == 0 {
                    out.push('\\');
                    out.push(e);
                } else if let Some(c) = char::from_u32(value) {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
}

/// The scope of the conversation a hook input names (its `session_id`), as [`scope_for`] makes
/// it; `None` for input that is not a JSON object with a session id.
pub fn conversation_scope(input: &[u8], prefix: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Session<'a> {
        #[serde(borrow)]
        session_id: Option<std::borrow::Cow<'a, str>>,
    }
    let session: Session = serde_json::from_slice(input).ok()?;
    scope_for(prefix, session.session_id.as_deref()?)
}

/// The store scope of a conversation: `PREFIX-` and the harness's session id with every byte
/// outside `A-Z a-z 0-9 . _ -` replaced by `_`. When that changed the id or made it longer
/// than a scope may be, the first 16 hex digits of the id's BLAKE3 hash end the name instead,
/// so two different ids never share a scope. `None` for an empty or blank id.
pub fn scope_for(prefix: &str, session_id: &str) -> Option<String> {
    if session_id.trim().is_empty() {
        return None;
    }
    let clean: String = session_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let plain = format!("{prefix}-{clean}");
    if clean == session_id && plain.len() <= crate::store::MAX_SCOPE_LEN {
        return Some(plain);
    }
    let hash = blake3::hash(session_id.as_bytes()).to_hex();
    // prefix, '-', at most 40 bytes of the cleaned id (ASCII by now), '-', 16 hex digits.
    let keep = 40.min(clean.len());
    Some(format!("{prefix}-{}-{}", &clean[..keep], &hash[..16]))
}

/// The shell command that runs `command` under `spill wrap` in `scope` (and `turn`), with the
/// scope and turn exported to it, so `spill` calls inside the command read the same scope.
/// `wrap -- bash -c` exits with the command's status; `SPILL_ALLOW_RUN=1` lets `wrap -- CMD`
/// run even where the harness sets `SPILL_RESTRICTED`.
///
/// A command that starts with `spill ` (the model reading a spill) runs in the same
/// environment but not under `wrap`: its output is bounded already, and a full page (16 KiB
/// plus its `next:` line) would otherwise be stored again instead of shown.
pub fn wrapped_command(spill: &str, scope: &str, turn: Option<&str>, command: &str) -> String {
    wrapped_command_in(spill, scope, turn, None, command)
}

/// [`wrapped_command`], with `SPILL_HARNESS=HARNESS` exported too when `harness` names one: a
/// `wrap` that then cannot store an output at all passes it through unchanged, with one line
/// naming the harness's setting that would let spill store it (for a harness whose sandbox can
/// forbid every write, so the model still gets the harness's own cut; README, "Codex").
pub fn wrapped_command_in(
    spill: &str,
    scope: &str,
    turn: Option<&str>,
    harness: Option<&str>,
    command: &str,
) -> String {
    wrapped_command_detaching(spill, scope, turn, harness, None, command)
}

/// A shell call's timeout in milliseconds, as both Claude Code and opencode choose it: the
/// call's own `timeout` argument, else the harness's variable for the default (`variable`),
/// else the harness's built-in `default`; zero counts as not given.
pub fn call_timeout_ms(
    args: &serde_json::Map<String, serde_json::Value>,
    variable: Option<u64>,
    default: u64,
) -> u64 {
    args.get("timeout")
        .and_then(serde_json::Value::as_u64)
        .filter(|&t| t > 0)
        .or(variable.filter(|&t| t > 0))
        .unwrap_or(default)
}

/// When `wrap` hands a command still running over to its supervisor (`--detach-after`), for a
/// harness that ends a shell call's wait after `timeout_ms` (opencode kills it; Codex answers
/// with what it has read so far, which under `wrap` is nothing): early enough that the running
/// envelope reaches the harness first — a fifth of the timeout before it, at least 1 s and at
/// most 5 s. `None` for a timeout of 2 s or less, which is left to the harness.
pub fn detach_after(timeout_ms: u64) -> Option<std::time::Duration> {
    if timeout_ms <= 2_000 {
        return None;
    }
    let margin = (timeout_ms / 5).clamp(1_000, 5_000);
    Some(std::time::Duration::from_millis(timeout_ms - margin))
}

/// How a rewritten command meets a harness's wait for a shell call (README, "Live output").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Live {
    /// `wrap --detach-after D`: at D a command still running is handed to spill's supervisor
    /// and `wrap` answers with the running envelope, so the command outlives a harness that
    /// kills the call at its timeout (opencode).
    Detach(std::time::Duration),
    /// `wrap --report-after D`: at D `wrap` prints the running envelope and goes on waiting,
    /// for a harness that answers with the output so far and keeps the process running
    /// (Codex), where a detached command would not outlive the call's sandbox.
    Report(std::time::Duration),
}

impl Live {
    fn after(self) -> std::time::Duration {
        match self {
            Live::Detach(d) | Live::Report(d) => d,
        }
    }
}

/// [`wrapped_command_in`], for a harness whose wait for a shell call ends at a timeout: `live`
/// says what `wrap` does for a command still running then ([`Live`]). A `spill wait` without
/// `--timeout` gets the same deadline as `--timeout`, so the model's wait answers before the
/// harness's does (with what is new, and still running).
pub fn wrapped_command_detaching(
    spill: &str,
    scope: &str,
    turn: Option<&str>,
    harness: Option<&str>,
    live: Option<Live>,
    command: &str,
) -> String {
    let mut env = format!("SPILL_SCOPE={}", shell_quote(scope));
    if let Some(turn) = turn.filter(|t| !t.is_empty()) {
        env.push_str(&format!(" SPILL_TURN={}", shell_quote(turn)));
    }
    if let Some(harness) = harness {
        env.push_str(&format!(" SPILL_HARNESS={}", shell_quote(harness)));
    }
    if command.trim_start().starts_with("spill ") {
        let waits = command.trim_start().starts_with("spill wait ")
            && !command.contains("--timeout")
            && !command.contains(['\n', ';', '&', '|']);
        let command = match live {
            Some(l) if waits => format!(
                "{} --timeout {}ms",
                command.trim_end(),
                l.after().as_millis()
            ),
            _ => command.to_string(),
        };
        return format!("{env} SPILL_ALLOW_RUN=1 bash -c {}", shell_quote(&command));
    }
    let detach = match live {
        Some(Live::Detach(d)) => format!(" --detach-after {}ms", d.as_millis()),
        Some(Live::Report(d)) => format!(" --report-after {}ms", d.as_millis()),
        None => String::new(),
    };
    format!(
        "{env} SPILL_ALLOW_RUN=1 {} wrap --label {}{detach} -- bash -c {}",
        shell_quote(spill),
        shell_quote(label(command)),
        shell_quote(command)
    )
}

/// The shell script that runs `command` in the harness's own shell, with only its output (stdout
/// and stderr, one stream) piped into `spill wrap` in `scope` (and `turn`), for a harness that
/// runs each call with `bash -c` or `zsh -c` and reads the shell's state afterwards (Claude Code
/// appends `&& pwd -P >| FILE` to remember the working directory, and runs zsh when `SHELL` is
/// not bash; README, "Claude Code").
///
/// What this keeps exactly as without spill, and why:
///
/// - **The shell's state.** The command is `eval`ed by the harness's shell itself, so `cd`,
///   variables and functions stay with it, and the status the harness's `&&` chain sees is the
///   command's own (`(exit N)` after `wrap` is done).
/// - **Its jobs.** `wrap` is not a child of the shell: a coprocess starts it in the background
///   and exits at once, so the command's own `wait` (which waits for every child, and in bash
///   for process substitutions too) waits for the command's jobs only. The shell writes into a
///   dup of the coprocess's input, and knows `wrap` is done when the coprocess's output (which
///   only `wrap` holds by then, as its descriptor 3) reaches end of file. The coprocess waits
///   for one newline from the shell before it starts `wrap` and exits, so the shell has its
///   dups before bash reaps the coprocess and closes its descriptors.
/// - **The way the shell ends.** `exit 3` ends the harness's shell with 3, and `kill -9 $$`
///   kills it: the harness sees that death itself, not a status spill made up. An `EXIT` trap
///   closes the pipe to `wrap` and waits for it, so `exit` loses no output (it is left set but
///   does nothing once the command is done, so an `EXIT` trap the command sets itself is not
///   cleared; that one replaces spill's, and then `exit` can lose output); a shell killed by a
///   signal cannot wait, so what it printed before may reach the harness after the harness has
///   read the result (README, "Claude Code").
/// - **The command's length.** The command is passed once, verbatim, in a quoted here-document
///   (its delimiter is chosen so no line of the command equals it), so it grows by a constant
///   (the script around it and a label of at most 200 characters), never by its own quoting.
/// - **Its syntax.** `eval` parses the command as the harness's own `eval` would, also when it
///   does not parse: the error goes through `wrap` with the shell's status for it.
///
/// It needs bash 5 or zsh (`{fd}` redirections, `coproc`); any other shell runs the command
/// under `spill wrap -- bash -c` as [`wrapped_command`] does, without the state. A command that
/// starts with `spill ` is `eval`ed without `wrap`, in the same scope.
pub fn in_shell_command(spill: &str, scope: &str, turn: Option<&str>, command: &str) -> String {
    in_shell_command_in(spill, &Exports::new(scope, turn), command)
}

/// What a rewritten command exports besides its conversation's scope.
#[derive(Debug, Clone, Copy, Default)]
pub struct Exports<'a> {
    /// `SPILL_SCOPE`: the conversation's scope.
    pub scope: &'a str,
    /// `SPILL_TURN`, when the harness names its turns.
    pub turn: Option<&'a str>,
    /// `SPILL_HARNESS`: a `wrap` that cannot store an output at all then passes it through
    /// unchanged, with one line naming the harness's setting that would let spill store it.
    pub harness: Option<&'a str>,
    /// `SPILL_DIR`: the store root the hook itself resolved, for a harness whose sandbox gives
    /// the shell another `TMPDIR` than the hooks and the MCP server have (Claude Code's), so a
    /// conversation's root is one root on every surface.
    pub root: Option<&'a str>,
    /// `wrap --report-after`: for a harness that shows a call's output so far when it stops
    /// waiting for it (Claude Code moves it to the background at its timeout), `wrap` prints
    /// the running envelope this long after the start if the output has not ended, and the
    /// final envelope at its end.
    pub report_after: Option<std::time::Duration>,
    /// `wrap --report-every` with `report_after`: a line at each interval after the running
    /// envelope while the command runs on (for a harness that cancels a command silent for a
    /// while: Gemini CLI).
    pub report_every: Option<std::time::Duration>,
}

impl<'a> Exports<'a> {
    /// The scope and turn only.
    pub fn new(scope: &'a str, turn: Option<&'a str>) -> Exports<'a> {
        Exports {
            scope,
            turn,
            ..Exports::default()
        }
    }
}

/// [`in_shell_command`] with every variable of `exports`.
pub fn in_shell_command_in(spill: &str, exports: &Exports, command: &str) -> String {
    let delimiter = heredoc_delimiter(
        format!(
            "SPILL_CMD_{}",
            &blake3::hash(command.as_bytes()).to_hex()[..16]
        ),
        command,
    );
    // bash and zsh read the here-document with one `read`; another shell line by line. Either
    // way the variable ends with one newline the command did not have; `%?` takes it off. No
    // `$(…)`: Gemini CLI refuses a command with a substitution outside quotes.
    let mut script = format!(
        "if {CAPABLE}; then IFS= read -r -d '' __spill_cmd; \
else __spill_cmd=; while IFS= read -r __spill_x; do __spill_cmd=\"$__spill_cmd$__spill_x\n\"; done; \
fi <<'{delimiter}'\n{command}\n{delimiter}\n"
    );
    script.push_str(&format!(
        "export SPILL_SCOPE={}",
        shell_quote(exports.scope)
    ));
    if let Some(turn) = exports.turn.filter(|t| !t.is_empty()) {
        script.push_str(&format!(" SPILL_TURN={}", shell_quote(turn)));
    }
    if let Some(harness) = exports.harness {
        script.push_str(&format!(" SPILL_HARNESS={}", shell_quote(harness)));
    }
    if let Some(root) = exports.root {
        script.push_str(&format!(" SPILL_DIR={}", shell_quote(root)));
    }
    script.push('\n');
    if command.trim_start().starts_with("spill ") {
        script.push_str("eval \"${__spill_cmd%?}\"");
        return script;
    }
    let (bash_start, zsh_start) = match exports.report_after {
        Some(d) => {
            let every = exports
                .report_every
                .map(|e| format!(" --report-every {}ms", e.as_millis()))
                .unwrap_or_default();
            let flag = format!("wrap --report-after {}ms{every} --label", d.as_millis());
            (
                BASH_START.replace("wrap --label", &flag),
                ZSH_START.replace("wrap --label", &flag),
            )
        }
        None => (BASH_START.to_string(), ZSH_START.to_string()),
    };
    // The coprocess is started inside a string, one per shell, so that any shell can parse the
    // script (and take the branch its shell can run). In both, `wrap` gets the coprocess's input
    // as its standard input (`<&0`: a background job's would be /dev/null), the coprocess's
    // output as descriptor 3, and the harness's output (saved as `__spill_tty`) as its own.
    script.push_str(&format!(
        "__spill_bin={} __spill_label={}\n\
if {CAPABLE}; then exec {{__spill_tty}}>&1; \
if [ -n \"${{ZSH_VERSION-}}\" ]; then eval '{zsh_start}'; else eval '{bash_start}'; fi; \
exec {{__spill_tty}}>&-; \
trap '[ -z \"${{__spill_done-}}\" ] || {{ exec {{__spill_out}}>&- >/dev/null 2>&1; IFS= read -r -u \"$__spill_done\" __spill_x; }}' EXIT; \
eval \"${{__spill_cmd%?}}\" >&\"$__spill_out\" 2>&1; __spill_status=$?; \
exec {{__spill_out}}>&-; IFS= read -r -u \"$__spill_done\" __spill_x; exec {{__spill_done}}<&-; unset __spill_done; \
(exit \"$__spill_status\"); \
else SPILL_ALLOW_RUN=1 \"$__spill_bin\" wrap --label \"$__spill_label\" -- bash -c \"${{__spill_cmd%?}}\"; fi",
        shell_quote(spill),
        shell_quote(label(command)),
    ));
    script
}

/// The test a shell passes to run the command in itself: zsh, or bash 5.
const CAPABLE: &str = "[ -n \"${ZSH_VERSION-}\" ] || [ \"${BASH_VERSINFO:-0}\" -ge 5 ]";

/// The coprocess that starts `wrap` (see [`in_shell_command`]), in bash: the shell's dups of
/// its descriptors are taken while it waits for the newline, and `wait` then reaps it.
const BASH_START: &str = "coproc __spill_co { IFS= read -r __spill_x; \
\"$__spill_bin\" wrap --label \"$__spill_label\" <&0 3>&1 >&\"$__spill_tty\" & }; \
exec {__spill_out}>&\"${__spill_co[1]}\" {__spill_done}<&\"${__spill_co[0]}\"; \
echo >&\"$__spill_out\"; wait \"$__spill_co_PID\"";

/// The same in zsh, which keeps the coprocess's descriptors until the next `coproc`:
/// `coproc exit` (a coprocess that ends at once) makes it close them.
const ZSH_START: &str = "coproc { IFS= read -r __spill_x; \
\"$__spill_bin\" wrap --label \"$__spill_label\" <&0 3>&1 >&\"$__spill_tty\" & }; \
__spill_co_PID=$!; exec {__spill_out}>&p {__spill_done}<&p; coproc exit; \
echo >&\"$__spill_out\"; wait \"$__spill_co_PID\"";

/// `base`, lengthened until no line of `command` equals it (a here-document ends at the first
/// line equal to its delimiter).
fn heredoc_delimiter(mut base: String, command: &str) -> String {
    while command.split('\n').any(|line| line == base) {
        base.push('_');
    }
    base
}

/// The envelope label of a command: at most 200 characters of it (the envelope's own limit).
fn label(command: &str) -> &str {
    match command.char_indices().nth(200) {
        Some((at, _)) => &command[..at],
        None => command,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewrite_longer_than_one_argument_may_be_lets_the_call_through() {
        assert!(too_long(&"x".repeat(MAX_ARG_BYTES)).is_none());
        let through = too_long(&"x".repeat(MAX_ARG_BYTES + 1)).unwrap();
        assert!(through.stdout.is_empty());
        assert_eq!(
            through.note.as_deref(),
            Some(
                "the command would be 131072 bytes once wrapped, more than one argument may have (131071); it runs without spill"
            )
        );
    }

    #[test]
    fn scope_keeps_a_uuid_and_hashes_anything_it_had_to_change() {
        let uuid = "9c248b37-6480-4724-8b4a-4b4f84959f63";
        assert_eq!(scope_for("cc", uuid).unwrap(), format!("cc-{uuid}"));
        let odd = scope_for("cc", "a/b c").unwrap();
        assert!(odd.starts_with("cc-a_b_c-"), "{odd}");
        assert_ne!(odd, scope_for("cc", "a_b_c").unwrap());
        assert_ne!(odd, scope_for("cc", "a/b_c").unwrap());
        let long = scope_for("cc", &"x".repeat(300)).unwrap();
        assert!(crate::store::validate_scope(&long).is_ok(), "{long}");
        for id in ["..", ".", "é", "a\nb", "a\0b", &"ü".repeat(40)] {
            let scope = scope_for("cc", id).unwrap();
            assert!(
                crate::store::validate_scope(&scope).is_ok(),
                "{id:?} -> {scope}"
            );
        }
        assert_eq!(scope_for("cc", ""), None);
        assert_eq!(scope_for("cc", " \t"), None);
    }

    #[test]
    fn the_wrapped_command_survives_the_shell() {
        let nasty = "printf '%s\\n' \"a b\" 'c' $(printf x) `echo y`\n\\ é ✓ '\\''";
        let plain = std::process::Command::new("bash")
            .arg("-c")
            .arg(nasty)
            .output()
            .unwrap();
        // The words after `--` are the command wrap runs: a shell running them does what
        // the original command does.
        let wrapped = wrapped_command("spill", "s", Some("t"), nasty);
        let after = wrapped.split_once(" -- ").unwrap().1;
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(after)
            .output()
            .unwrap();
        assert_eq!(out.stdout, plain.stdout);
        assert!(!plain.stdout.is_empty());
    }

    #[test]
    fn the_in_shell_command_runs_the_command_verbatim_in_bash_and_in_sh() {
        let nasty = "printf '%s\\n' \"a b\" 'c' $(printf x) `echo y`\n\\ é ✓ '\\''\necho \\\nend";
        let plain = std::process::Command::new("bash")
            .arg("-c")
            .arg(nasty)
            .output()
            .unwrap();
        assert!(!plain.stdout.is_empty());
        let script = in_shell_command("spill", "s", Some("t"), nasty);
        assert!(script.contains(&format!("\n{nasty}\n")), "{script}");
        // The command as a `spill …` command would be: eval'd, no wrap needed.
        let spill_like = in_shell_command("spill", "s", None, &format!("spill {nasty}"));
        let as_eval = spill_like.replace(
            "eval \"${__spill_cmd%?}\"",
            "printf %s \"${__spill_cmd%?}\"",
        );
        for shell in ["bash", "sh"] {
            let out = std::process::Command::new(shell)
                .arg("-c")
                .arg(&as_eval)
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                format!("spill {nasty}"),
                "{shell}"
            );
        }
        // A line of the command equal to the delimiter does not end the here-document.
        assert_eq!(heredoc_delimiter("D".into(), "a\nD\nD_\nD__x"), "D__");
        assert_eq!(heredoc_delimiter("D".into(), "a D\n D"), "D");
    }

    #[test]
    fn normalise_undoes_quoting_and_line_joins_as_bash_does() {
        assert_eq!(normalise("rm -r\\\nf x"), "rm -rf x");
        assert_eq!(normalise("rm \\\n -rf x"), "rm -rf x");
        assert_eq!(normalise("r'm' \"-r\"f"), "rm -rf");
        assert_eq!(normalise("'a\\\nb'"), "a\\ b");
        assert_eq!(normalise("\"a\\\nb\\$c\\d\""), "ab$c\\d");
        assert_eq!(normalise("$'\\x72\\155' $'\\''"), "rm '");
        assert_eq!(normalise("$\"rm\"  -rf\t x"), "rm -rf x");
        assert_eq!(normalise("echo \\'"), "echo '");
    }

    #[test]
    fn the_label_is_cut_on_a_character() {
        let long = "é".repeat(300);
        assert_eq!(label(&long).chars().count(), 200);
        assert_eq!(label("ls"), "ls");
    }
}
