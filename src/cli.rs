//! The command line, declared with clap derive. This is the only file that knows clap: the first
//! doc line of each item is its `-h` text, the whole doc comment its `--help`.
// These doc comments are terminal help first (shown verbatim by clap and in the man pages), so
// the Markdown reading of `<uid>`, `[REDACTED]` and bare URLs does not apply to them.
#![allow(
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls,
    rustdoc::broken_intra_doc_links
)]

use std::path::PathBuf;
use std::sync::LazyLock;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::harness::{self, Harness};
use crate::limits::{self, flag_size};

// The defaults shown in the help come from `limits`, where each is written once. A flag with a
// clap default renders it from these strings; a flag whose default is resolved later (from the
// environment) names it in its help line, built by `with_default`. The doc comment of such a
// field is its API documentation; the `help` attribute replaces it in the rendered help.

/// `--preview`'s default as the flag takes it (`2KiB`).
static PREVIEW_DEFAULT: LazyLock<String> = LazyLock::new(|| flag_size(limits::PREVIEW));
/// `cat --max-bytes`'s default (`1MiB`).
static CAT_MAX_BYTES_DEFAULT: LazyLock<String> = LazyLock::new(|| flag_size(limits::CAT_MAX_BYTES));
/// `search --max-bytes`'s default (`1MiB`).
static SEARCH_MAX_BYTES_DEFAULT: LazyLock<String> =
    LazyLock::new(|| flag_size(limits::SEARCH_MAX_BYTES));
/// `mcp proxy --timeout`'s default (`10m`).
static PROXY_TIMEOUT_DEFAULT: LazyLock<String> =
    LazyLock::new(|| limits::human_duration(limits::PROXY_TIMEOUT));

/// `spill cat --help`'s description: its default page comes from `limits` (the doc comment of
/// [`CatArgs`] is its first line, the `-h` text).
static CAT_ABOUT: LazyLock<String> = LazyLock::new(|| {
    let (lines, bytes) = (limits::CAT_LINES, limits::prose_size(limits::CAT_BYTES));
    format!(
        "\
Print part of a stored output or a file, bounded and paged.

Without a range prints the first {lines} lines or {bytes}, whichever is smaller, and says on stderr
how to read on (`lines 1–{lines} of 48,213 · next: --lines {}:{}`).

A source holding ANSI escape sequences (colour) or `\\r` progress frames is read as the
envelope shows it: each line without its escape sequences and with only its last `\\r` frame,
line numbers unchanged; the footer says so. --raw (and --hex) read the stored bytes.",
        lines + 1,
        2 * lines
    )
});

/// A help line naming the default it ends with: `TEXT [default: VALUE]`.
fn with_default(text: &str, value: &str) -> String {
    format!("{text} [default: {value}]")
}

/// What spill colours, stated once. `spill --help`, `man spill` and the README all carry this
/// sentence word for word (`tests/docs_agree.rs` checks it, and that no text there says
/// otherwise); the painter that makes it true is `paint::Painter`.
pub const COLOUR_STATEMENT: &str = "JSON that extract and shape print is coloured like jq's \
when stdout is a terminal (or a pager on one), as --color and NO_COLOR decide; extract -r, \
envelopes, --json output and schemas are written without colour.";

/// Which commands page, stated once (as [`COLOUR_STATEMENT`]); `cmd::dispatch` starts the pager.
pub const PAGING_STATEMENT: &str = "cat, shape, extract, search, ls and schema show their \
output through a pager when stdout is a terminal (--paging auto|always|never; SPILL_PAGER, \
then PAGER, else less -FRX); view opens one itself; wrap, wait, stop, stats, rm, gc and the harness \
commands never page, and nothing is paged in restricted mode.";

/// The short forms of a ref, stated once (as [`COLOUR_STATEMENT`]); `store::shorthand` parses
/// them and `source::resolve` applies the rule.
pub const SHORT_REFS_STATEMENT: &str = "A SOURCE may be a short ref: @1 (or @last) is the \
newest entry of the scope, @2 the one before, and sp_ with 4 to 15 hex digits the one entry \
whose ref starts with them. Every SOURCE that starts with @ is a short ref, and one that is \
not valid is an error (exit 2) naming the valid forms; read a file named @1 as ./@1. A prefix \
that is also the name of an existing file reads the file.";

/// `text` cut into lines of at most `width` characters (words are never split), each indented
/// by two spaces, as the sections of `spill --help` are written.
fn indented(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && 2 + line.chars().count() + 1 + word.chars().count() > width {
            out.push_str("  ");
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str("  ");
        out.push_str(&line);
    }
    out
}

/// The end of `spill --help`: exit statuses, streams, colour and paging, sources, environment
/// and examples. The man page `spill.1` renders each `Heading:` as a section.
pub static EXIT_CODES: LazyLock<String> = LazyLock::new(|| {
    format!(
        "\
Exit status:
  0  success, or something was found; also when a bound was hit (the output says what was cut)
  1  nothing found: extract selected no node, search found no match, search --count counted 0
  2  an error: usage, bad query, bad input, unknown or expired ref, store error
  wrap -- CMD exits with CMD's status, and dies by the same signal when a signal killed it
  (a shell shows 128+signal); 127 not found, 126 not executable, 124 after --timeout.

Streams:
  Data goes to stdout. Notices (truncation, `next:` lines) and warnings go to stderr after
  stdout has been flushed, so `2>&1` shows them in order; `--footer stdout` moves `next:` lines
  to the end of stdout. With --json, notices go inside the JSON object and stderr stays silent
  on success. Errors are one `spill: ...` line on stderr. `spill ... | head -1` exits quietly
  with 0.

At a terminal:
{colour}
{paging}

Sources:
{short}

Environment (a flag wins over its variable):
  SPILL_DIR  SPILL_SCOPE  SPILL_TTL  SPILL_QUOTA  SPILL_MAX_FILE  SPILL_MAX_INLINE  SPILL_FORMAT
  SPILL_FOOTER  SPILL_REDACT=1  SPILL_TURN  SPILL_TURN_BUDGET  NO_COLOR
  SPILL_RESTRICTED (no flag) is on for any value but 0, false, no, off or empty: refs and
  stdin only, no store flags, no paths in envelopes or messages, gc sees only its scope, and
  `wrap -- CMD` is refused unless SPILL_ALLOW_RUN is 1, true, yes or on.

Numbers: sizes (16384, 16K, 1MiB) up to 1024T, counts up to 10^15, durations (90s, 30m, 24h,
  7d) up to 36500d. A larger value is an error, never a wrap-around.

Examples:
  cargo test 2>&1 | spill wrap
  spill wrap -- make check
  spill search sp_9f2c4a1b7e3d0c55 -i 'error|fail' -C 2
  spill extract sp_9f2c4a1b7e3d0c55 '$.items[0:5]'
  spill schema envelope
  spill wrap --help          # every command explains its options, with examples",
        colour = indented(COLOUR_STATEMENT, 96),
        paging = indented(PAGING_STATEMENT, 96),
        short = indented(SHORT_REFS_STATEMENT, 96),
    )
});

/// Keep oversized command output out of a model's context, without losing any of it.
///
/// Small output passes through byte for byte; large output is stored under a ref and replaced by
/// a compact envelope. Read the stored output with bounded commands.
#[derive(Debug, Parser)]
#[command(
    name = "spill",
    version,
    arg_required_else_help = true,
    after_long_help = EXIT_CODES.as_str(),
    after_help = "Exit status: 0 found, 1 nothing found, 2 error. `spill --help` says more."
)]
pub struct Cli {
    /// Options shared by every command.
    #[command(flatten)]
    pub global: Global,
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Options accepted before or after any command.
#[derive(Debug, Args)]
pub struct Global {
    /// Store root directory [env: SPILL_DIR] [default: ${TMPDIR:-/tmp}/spill-<uid>].
    #[arg(long, global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Object store: s3://BUCKET/PREFIX, read through a local cache (built with `--features s3`) [env: SPILL_STORE].
    #[arg(long, global = true, value_name = "URL", conflicts_with = "dir")]
    pub store: Option<String>,
    /// Store scope: one conversation or agent [env: SPILL_SCOPE] [default: default].
    #[arg(long, global = true, value_name = "NAME")]
    pub scope: Option<String>,
    /// Entries expire this long after their last access [env: SPILL_TTL] (default
    /// [`limits::TTL`]).
    #[arg(long, global = true, value_name = "DURATION", value_parser = parse_duration,
        help = with_default("Entries expire this long after their last access [env: SPILL_TTL]",
            // In hours, as the README spells it (human_duration would say 1d).
            &format!("{}h", limits::TTL.as_secs() / 3600)))]
    pub ttl: Option<Duration>,
    /// The most bytes the store root holds [env: SPILL_QUOTA] (default [`limits::QUOTA`]).
    #[arg(long, global = true, value_name = "SIZE", value_parser = parse_size,
        help = with_default("The most bytes the store root holds [env: SPILL_QUOTA]",
            &flag_size(limits::QUOTA)))]
    pub quota: Option<u64>,
    /// Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE] (default
    /// [`limits::MAX_FILE`]).
    #[arg(long, global = true, value_name = "SIZE", value_parser = parse_size,
        help = with_default("Payloads larger than this are stored as head + tail [env: SPILL_MAX_FILE]",
            &flag_size(limits::MAX_FILE)))]
    pub max_file: Option<u64>,
    /// When to colour: human text, and the JSON of extract and shape (NO_COLOR is honoured).
    #[arg(long, global = true, value_name = "WHEN", value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    /// When the reading commands show their output through a pager (SPILL_PAGER, then PAGER,
    /// else `less -FRX`); never in restricted mode.
    #[arg(long, global = true, value_name = "WHEN", value_enum, default_value_t = PagingWhen::Auto)]
    pub paging: PagingWhen,
}

/// `--paging` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PagingWhen {
    /// Page when stdout is a terminal.
    Auto,
    /// Page even into a pipe.
    Always,
    /// Never page.
    Never,
}

/// `--color` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// Colour only when writing to a terminal.
    Auto,
    /// Colour even into a pipe, despite NO_COLOR.
    Always,
    /// Never colour.
    Never,
}

/// The commands.
// Variants carry no doc comments on purpose: clap would show them instead of the help text
// (with examples) written on each command's Args struct.
#[allow(missing_docs)]
#[derive(Debug, Subcommand)]
pub enum Command {
    Wrap(WrapArgs),
    Shape(ShapeArgs),
    Extract(ExtractArgs),
    Search(SearchArgs),
    Cat(CatArgs),
    Ls(LsArgs),
    Rm(RmArgs),
    Gc(GcArgs),
    Schema(SchemaArgs),
    View(ViewArgs),
    Hook(HookArgs),
    Init(InitArgs),
    Mcp(McpArgs),
    Wait(WaitArgs),
    Stop(StopArgs),
    Stats(StatsArgs),
    Doctor(DoctorArgs),
}

/// The value parser of a HARNESS argument: the names of the registry (`crate::harness::ALL`),
/// each with its line of help, parsed and refused as clap parses and refuses a value enum.
#[derive(Clone)]
struct HarnessParser;

impl clap::builder::TypedValueParser for HarnessParser {
    type Value = &'static Harness;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Self::Value, clap::Error> {
        let names = harness::ALL.iter().map(|h| h.name);
        let name = clap::builder::PossibleValuesParser::new(names).parse_ref(cmd, arg, value)?;
        harness::find(&name).ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidValue))
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(harness::ALL.iter().map(|h| {
            clap::builder::PossibleValue::new(h.name).help(h.about)
        })))
    }
}

/// Each harness's help lines (`hook_help` or `init_help` of the registry), after its product's
/// name, one harness after the other.
fn harness_lines(text: fn(&Harness) -> &'static str) -> String {
    harness::ALL
        .iter()
        .map(|h| format!("{}: {}\n", h.product, text(h)))
        .collect()
}

/// `spill hook --help`'s description: what the hook does in each harness of the registry.
static HOOK_ABOUT: LazyLock<String> = LazyLock::new(|| {
    format!(
        "\
Answer one hook call of an agent harness (reads its hook JSON on stdin).

`spill init` registers this command; you do not run it yourself.
{}When the call cannot be wrapped safely (no session id, a deny, ask or exec-policy rule that
may apply, unreadable settings) the hook prints nothing, so the call goes through
unchanged, and says why on stderr. Input that is not JSON is let through the same way, with
a warning. Exit status 0.",
        harness_lines(|h| h.hook_help)
    )
});

/// `spill init --help`'s description: what `init` writes where, for each harness of the
/// registry.
static INIT_ABOUT: LazyLock<String> = LazyLock::new(|| {
    format!(
        "\
Register spill's hooks in an agent harness's configuration.

Merges the hook entries into the harness's settings file, keeping every other setting and
the order of its keys; running it again changes nothing. The file is backed up first, as
FILE.spill-backup. `--uninstall` removes spill's entries again and, when nothing else
changed since, restores the file byte for byte from the backup.
{}

--proxy-mcp (off by default: it rewrites the servers you registered) also routes each stdio MCP
server of Codex's config.toml or opencode's opencode.json through `spill mcp proxy`, where no
hook can replace a large MCP result: the entry's command becomes `SPILL mcp proxy -- COMMAND
ARGS...`, its other keys (env, cwd, ...) stay, and the proxy stores in the conversation's scope,
so the envelope's commands read it from the shell. Remote (URL) servers are not routed, and
said so. Without it, `init` says when such servers are left unrouted. `--uninstall` takes the
routes out again, byte for byte.

--mcp (off by default: each tool a harness lists is sent with every request to the model)
also registers `spill mcp` as the harness's MCP server `spill`, without a scope: it serves the
conversation whose hooks started it, so the model reads an envelope's ref through the tools as
through the shell (Codex: with spill's variables in env_vars, its tools approved in advance).
A server of yours that already runs `spill mcp` is left as it is. `--uninstall` takes it out
again.",
        harness_lines(|h| h.init_help).trim_end()
    )
});

/// `spill doctor --help`'s description, naming the harnesses of the registry.
static DOCTOR_ABOUT: LazyLock<String> = LazyLock::new(|| {
    let products: Vec<&str> = harness::ALL.iter().map(|h| h.product).collect();
    format!(
        "\
Report, for each agent harness found, what spill does in it; change nothing.

For {}, found on PATH or by their configuration
directory: the version (from the npm package the binary belongs to), whether spill's hooks
are installed and the spill they run exists, whether the hooks can wrap (Claude Code's
permission flags readable), whether `spill mcp` is registered and follows the conversation,
which results spill covers there, and what to do about what is not. Reads files only: it
runs no harness and writes nothing. Exit status 0.",
        harness::in_words(&products, "and")
    )
});

/// Answer one hook call of an agent harness (reads its hook JSON on stdin).
///
/// `--help` renders the rest from `HOOK_ABOUT`, with each harness's `hook_help`.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    long_about = HOOK_ABOUT.as_str(),
    after_long_help = "\
Examples:
  spill init claude-code       # registers `spill hook claude-code` in ~/.claude/settings.json
  spill init codex             # registers `spill hook codex` in ~/.codex/config.toml
  spill init gemini            # registers `spill hook gemini` in ~/.gemini/settings.json
  echo '{\"session_id\":\"s1\",\"hook_event_name\":\"SessionEnd\"}' | spill hook claude-code"
)]
pub struct HookArgs {
    /// The harness whose hook format to read and answer.
    #[arg(value_name = "HARNESS", value_parser = HarnessParser)]
    pub harness: &'static Harness,
}

/// Register spill's hooks in an agent harness's configuration.
///
/// `--help` renders the rest from `INIT_ABOUT`, with each harness's `init_help`.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    long_about = INIT_ABOUT.as_str(),
    after_long_help = "\
Examples:
  spill init claude-code                 # ~/.claude/settings.json
  spill init claude-code --project       # .claude/settings.json in this directory
  spill init claude-code --dry-run       # print the change as a diff, write nothing
  spill init claude-code --uninstall
  spill init codex                       # $CODEX_HOME/config.toml (~/.codex/config.toml)
  spill init gemini                      # ~/.gemini/settings.json
  spill init opencode                    # ~/.config/opencode/plugin/spill.js
  spill init codex --proxy-mcp --dry-run # also route config.toml's MCP servers, as a diff
  spill init gemini --mcp                # also register `spill mcp` in settings.json"
)]
pub struct InitArgs {
    /// The harness to configure.
    #[arg(value_name = "HARNESS", value_parser = HarnessParser)]
    pub harness: &'static Harness,
    /// Configure the project in the current directory.
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// Configure the user's settings (the default).
    #[arg(long)]
    pub user: bool,
    /// Print what would change as a unified diff; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove spill's hooks instead (and its MCP proxy routes and `spill mcp` server, with or
    /// without --proxy-mcp and --mcp).
    #[arg(long)]
    pub uninstall: bool,
    /// Also route each stdio MCP server the harness registers through `spill mcp proxy`
    /// (Codex, opencode, Kilo Code: their MCP results have no hook that can replace them).
    #[arg(long)]
    pub proxy_mcp: bool,
    /// Also register `spill mcp` as the harness's MCP server `spill`, so the model can read
    /// stored outputs through its tools as well as through the shell.
    #[arg(long)]
    pub mcp: bool,
}

/// Report, for each agent harness found, what spill does in it; change nothing.
///
/// `--help` renders the rest from `DOCTOR_ABOUT`, with the registry's harnesses.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    long_about = DOCTOR_ABOUT.as_str(),
    after_long_help = "Examples:\n  spill doctor"
)]
pub struct DoctorArgs {}

/// Serve stored outputs to an MCP client over stdio, or stand in front of an MCP server.
///
/// Without a subcommand: an MCP server (stdio) for the current scope (SPILL_SCOPE). Its tools
/// are spill's reading commands, `cat`, `shape`, `extract`, `search` and `ls`, with the
/// commands' arguments, defaults and bounds, and `wait` and `stop` for a command still running
/// (wrap --detach-after; a wait lasts at most 30s a call); each result is the text the command
/// prints plus structured content and a link to the stored output. Stored outputs are the resources
/// `spill://SCOPE/REF` (template `spill://SCOPE/{ref}{?lines,bytes}`, bounded like `cat`).
/// Sources are refs only: no paths, no store flags. --allow-run adds a `run` tool (a command
/// under `spill wrap`), never in restricted mode (SPILL_RESTRICTED).
///
/// `spill mcp proxy -- CMD ARGS...` starts the MCP server CMD and passes everything through,
/// except that a tool result larger than --max-inline is stored and replaced by spill's
/// envelope and a link; spill's tools (`spill_search`, ...) are added to its tools.
/// `spill mcp proxy --url URL` does the same in front of a remote Streamable HTTP server.
///
/// `spill mcp --http ADDR` serves the same tools and resources over Streamable HTTP (endpoint
/// /mcp); off loopback every request needs `Authorization: Bearer TOKEN`, the token read from
/// --token-file or SPILL_MCP_TOKEN.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    args_conflicts_with_subcommands = true,
    after_long_help = "\
Examples:
  SPILL_SCOPE=conversation-1 spill mcp
  spill mcp --http 8931
  SPILL_MCP_TOKEN=$(cat ~/.spill-token) spill mcp --http 0.0.0.0:8931
  spill mcp proxy -- npx -y @modelcontextprotocol/server-filesystem /srv/data
  claude mcp add files -- spill mcp proxy -- npx -y @modelcontextprotocol/server-filesystem ."
)]
pub struct McpArgs {
    /// Also offer a `run` tool that runs a command under `spill wrap` (refused in restricted
    /// mode).
    #[arg(long)]
    pub allow_run: bool,
    /// Resources listed per `resources/list` page (the rest follow by cursor).
    #[arg(long, value_name = "N", value_parser = parse_count::<usize>, default_value_t = 50)]
    pub page_size: usize,
    /// Serve over Streamable HTTP at ADDR (PORT on 127.0.0.1, IP:PORT, localhost:PORT), endpoint
    /// /mcp, instead of stdio. Any address that is not loopback needs a bearer token.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// The bearer token for --http, read from FILE [env: SPILL_MCP_TOKEN]; never from argv.
    #[arg(long, value_name = "FILE", requires = "http")]
    pub token_file: Option<std::path::PathBuf>,
    /// Refused: a token on the command line is visible to every user (ps).
    #[arg(long, hide = true, value_name = "TOKEN")]
    pub token: Option<String>,
    /// `proxy`, or nothing for the server.
    #[command(subcommand)]
    pub action: Option<McpAction>,
}

/// The subcommands of `spill mcp`.
#[allow(missing_docs)]
#[derive(Debug, Subcommand)]
pub enum McpAction {
    Proxy(ProxyArgs),
}

/// Start an MCP server (stdio), or reach one over HTTP, and store its oversized tool results.
///
/// Passes every message through byte for byte, except: a `tools/call` result whose text
/// (all text blocks joined) or structuredContent is larger than --max-inline is stored, and
/// each stored part is replaced by spill's envelope as text plus a `resource_link`
/// (`spill://SCOPE/REF`); `tools/list` gains spill's reading tools (`spill_cat`, `spill_shape`,
/// `spill_extract`, `spill_search`, `spill_ls`) and loses the downstream tools' outputSchema
/// (a replaced structured result would not match it); `resources/read` of a `spill://` URI is
/// answered by the proxy. The scope is SPILL_SCOPE; without it, the conversation's scope that a
/// harness's hook bound to the harness process which started the proxy (as `spill mcp`), so
/// the envelope's shell commands read the refs, else a new `mcp-…` scope named on stderr.
/// A downstream that exits, hangs past --timeout or writes something that is not JSON-RPC
/// gives the waiting requests a JSON-RPC error. The proxy exits when its input closes.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_long_help = "\
Examples:
  spill mcp proxy -- npx -y @modelcontextprotocol/server-filesystem /srv/data
  spill mcp proxy --max-inline 8K -- python3 my_server.py
  SPILL_SCOPE=run-42 spill mcp proxy --timeout 30m -- ./server --stdio
  spill mcp proxy --url https://mcp.example.com/mcp --header 'Authorization: Bearer ${TOKEN}'"
)]
pub struct ProxyArgs {
    /// Results up to this size pass through untouched [env: SPILL_MAX_INLINE] (default
    /// [`limits::MAX_INLINE`]).
    #[arg(long, value_name = "SIZE", value_parser = parse_size,
        help = with_default("Results up to this size pass through untouched [env: SPILL_MAX_INLINE]",
            &flag_size(limits::MAX_INLINE)))]
    pub max_inline: Option<u64>,
    /// A request the downstream has not answered after this long gets an error.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = PROXY_TIMEOUT_DEFAULT.as_str())]
    pub timeout: Duration,
    /// The downstream is the Streamable HTTP MCP server at URL (http or https), not a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Option<String>,
    /// A header sent to --url with every request, `NAME: VALUE`; `${VAR}` in VALUE is the
    /// environment variable's value (keep tokens out of argv). Repeatable.
    #[arg(long = "header", value_name = "NAME: VALUE", requires = "url")]
    pub headers: Vec<String>,
    /// Headers for --url from FILE, one `NAME: VALUE` a line (# starts a comment).
    #[arg(long, value_name = "FILE", requires = "url")]
    pub headers_file: Option<std::path::PathBuf>,
    /// The downstream MCP server and its arguments.
    #[arg(last = true, required_unless_present = "url", value_name = "CMD")]
    pub command: Vec<std::ffi::OsString>,
}

/// `--format` values of `wrap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WrapFormat {
    /// One JSON object on one line.
    Json,
    /// The same facts for a person.
    Text,
}

/// Read stdin (or run CMD) and pass it through, or store it and print an envelope.
///
/// Output up to --max-inline bytes (inclusive) is copied to stdout byte for byte. Larger output
/// is streamed into the store and replaced by an envelope: its ref, size, kind, a preview of the
/// head and the tail, failure signals, and the exact commands that read the rest.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_long_help = "\
Examples:
  cargo test 2>&1 | spill wrap
  spill wrap -- cargo build --release
  curl -s https://api.example.com/items | spill wrap --label 'items API'
  make 2>&1 | spill wrap --format text --max-inline 4K"
)]
pub struct WrapArgs {
    /// Outputs up to this size pass through untouched [env: SPILL_MAX_INLINE] (default
    /// [`limits::MAX_INLINE`]).
    #[arg(long, value_name = "SIZE", value_parser = parse_size,
        help = with_default("Outputs up to this size pass through untouched [env: SPILL_MAX_INLINE]",
            &flag_size(limits::MAX_INLINE)))]
    pub max_inline: Option<u64>,
    /// Envelope format [env: SPILL_FORMAT] [default: json].
    #[arg(long, value_name = "FORMAT", value_enum)]
    pub format: Option<WrapFormat>,
    /// Budget shared by the preview and the signals.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = PREVIEW_DEFAULT.as_str())]
    pub preview: u64,
    /// Lines shown from the start of a text preview (overrides the 1/3 head budget).
    #[arg(long, value_name = "N", value_parser = parse_count::<usize>)]
    pub head_lines: Option<usize>,
    /// Lines shown from the end of a text preview (overrides the 2/3 tail budget).
    #[arg(long, value_name = "N", value_parser = parse_count::<usize>)]
    pub tail_lines: Option<usize>,
    /// A free-form label (e.g. the command), stored and echoed in the envelope.
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,
    /// Replace secrets (API keys, tokens, private keys, secret env values) with [REDACTED]
    /// [env: SPILL_REDACT=1].
    ///
    /// Applies to the inline output, the stored file and the envelope; the envelope counts the
    /// replacements in "redacted". Off by default: a false positive changes the bytes.
    #[arg(long)]
    pub redact: bool,
    /// The turn this output belongs to: outputs of one turn share --turn-budget [env: SPILL_TURN].
    #[arg(long, value_name = "ID")]
    pub turn: Option<String>,
    /// The most bytes one turn passes through inline; later outputs are stored instead
    /// [env: SPILL_TURN_BUDGET] (default [`limits::TURN_BUDGET`]).
    #[arg(long, value_name = "SIZE", value_parser = parse_size,
        help = with_default("The most bytes one turn passes through inline; later outputs are stored \
            instead [env: SPILL_TURN_BUDGET]", &flag_size(limits::TURN_BUDGET)))]
    pub turn_budget: Option<u64>,
    /// Print an output that would pass through (1 KiB up to --max-inline) as its condensed view
    /// when that is at most half of it: runs of similar lines collapse to their first and last
    /// line and a marker with the command that prints the rest; every other line is shown; the
    /// whole is stored and the view ends with its ref [env: SPILL_CONDENSE=1].
    #[arg(long)]
    pub condense: bool,
    /// NDJSON: skip and count the lines that are not exactly one JSON value ("skippedLines"),
    /// instead of describing the output as text.
    #[arg(long)]
    pub skip_invalid: bool,
    /// With CMD: kill it after this long and exit 124, like timeout(1).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "command")]
    pub timeout: Option<Duration>,
    /// With CMD: return after this long even if CMD is still running, with a running envelope
    /// (its ref, the output so far, the commands that read on, wait and stop); CMD goes on under
    /// a supervisor and its output into the store (e.g. 100s, 500ms).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_ms, requires = "command")]
    pub detach_after: Option<Duration>,
    /// After this long, if CMD is still running (or stdin has not ended), print a running
    /// envelope (as --detach-after does) and go on waiting: the final envelope follows at the
    /// end, and wrap exits with CMD's status (for a harness that keeps a long command running
    /// and reads its output as it comes, like Codex and Claude Code).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_ms,
        conflicts_with = "detach_after")]
    pub report_after: Option<Duration>,
    /// With --report-after: while CMD runs on (or stdin has not ended), print one line every
    /// this long after the running envelope, with the bytes and lines so far and the command
    /// that reads what is new (for a harness that cancels a command that prints nothing for a
    /// while, like Gemini CLI).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_ms,
        requires = "report_after")]
    pub report_every: Option<Duration>,
    /// Internal: run as the supervisor of the running entry ID (started by --detach-after).
    #[arg(long, value_name = "ID", hide = true, requires = "command")]
    pub supervise: Option<String>,
    /// Run this command and capture its stdout and stderr in order, instead of reading stdin.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<std::ffi::OsString>,
}

/// Wait for a running command (`wrap --detach-after`) to end, and print its envelope.
///
/// At the end prints the final envelope and exits with the command's status, as `wrap -- CMD`
/// does. At --timeout prints the output that is new since --since (bounded by --max-bytes) with a
/// footer saying it is still running and the cursor to read on from, and exits 124.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_long_help = "\
Examples:
  spill wait sp_9f2c4a1b7e3d0c55
  spill wait sp_9f2c4a1b7e3d0c55 --timeout 60s --since 48213"
)]
pub struct WaitArgs {
    /// The running entry's ref (sp_…), as its envelope gave it.
    #[arg(value_name = "REF")]
    pub reference: String,
    /// Give up after this long (e.g. 90s, 500ms) and show what is new; without it, wait for the end.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_ms)]
    pub timeout: Option<Duration>,
    /// At the timeout, show the output from this cursor on (a `cursor` an earlier answer gave).
    #[arg(long, value_name = "CURSOR", value_parser = parse_count::<u64>, default_value_t = 0)]
    pub since: u64,
    /// At the timeout, show at most this much new output.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value_t = limits::CAT_BYTES)]
    pub max_bytes: u64,
}

/// Stop a running command (`wrap --detach-after`): end its process group and seal its output.
///
/// Sends SIGTERM to the command's process group (through its supervisor, which then stores the
/// output as an ordinary entry, exit status 143) and waits up to --grace; a command still running
/// then is killed with SIGKILL, and its output so far stays readable, marked interrupted.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_long_help = "\
Examples:
  spill stop sp_9f2c4a1b7e3d0c55"
)]
pub struct StopArgs {
    /// The running entry's ref (sp_…), as its envelope gave it.
    #[arg(value_name = "REF")]
    pub reference: String,
    /// How long the command has to end after SIGTERM before SIGKILL.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_ms, default_value = "2s")]
    pub grace: Duration,
}

/// Where `next:` footers go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FooterTo {
    /// After stdout is flushed, on stderr.
    Stderr,
    /// At the end of stdout, for harnesses that show the model stdout only.
    Stdout,
}

/// Print part of a stored output or a file, bounded and paged.
///
/// Without a range, the first [`limits::CAT_LINES`] lines or [`limits::CAT_BYTES`] bytes,
/// whichever is smaller; `--help` renders the rest from `CAT_ABOUT`.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    long_about = CAT_ABOUT.as_str(),
    after_long_help = "\
Examples:
  spill cat sp_9f2c4a1b7e3d0c55
  spill cat sp_9f2c4a1b7e3d0c55 --lines 4800:4900
  spill cat sp_9f2c4a1b7e3d0c55 --bytes 0:512 --hex
  spill cat build.log --lines 100:"
)]
pub struct CatArgs {
    /// A ref (sp_…; or @1 for the newest entry, @2 the one before, sp_4f9e a unique prefix), a file path, or - for stdin.
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// Lines A to B, 1-based and inclusive; either side may be omitted (`100:`, `:20`).
    #[arg(long, value_name = "A:B", conflicts_with = "bytes")]
    pub lines: Option<String>,
    /// Bytes A to B, 0-based and end-exclusive; either side may be omitted.
    #[arg(long, value_name = "A:B")]
    pub bytes: Option<String>,
    /// Cap on an explicit range (0: no limit).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = CAT_MAX_BYTES_DEFAULT.as_str())]
    pub max_bytes: u64,
    /// Lines longer than this many characters are cut with a marker, unless --raw (0: no limit;
    /// --max-bytes still bounds the page).
    #[arg(long, value_name = "N", value_parser = parse_count::<usize>, default_value_t = limits::CAT_MAX_COLUMNS)]
    pub max_columns: usize,
    /// Print bytes exactly as stored: no cleaning of escape sequences and `\r` frames, no line
    /// cutting, no escaping on a terminal.
    #[arg(long, conflicts_with = "hex")]
    pub raw: bool,
    /// Print a hexdump -C style dump.
    #[arg(long)]
    pub hex: bool,
    /// Where the `next:` footer goes [env: SPILL_FOOTER] [default: stderr].
    #[arg(long, value_name = "WHERE", value_enum)]
    pub footer: Option<FooterTo>,
    /// Print only the output from this cursor on, as stored (a running entry's envelope and
    /// footers give the cursor; a file's is its byte offset); the footer gives the next one.
    #[arg(long, value_name = "CURSOR", value_parser = parse_count::<u64>,
        conflicts_with_all = ["lines", "bytes", "hex"])]
    pub since: Option<u64>,
}

/// Print the structural skeleton of a JSON document or NDJSON stream as one line of JSON.
///
/// Scalars become type names (`"string"`, `"integer"`, `"number"`, `"boolean"`, `"null"`; long
/// strings `"string(2.4 KiB)"`), keys missing from some objects end in `?`, mixed types join
/// with `|`, arrays merge all their elements (`{"array[1250]": {…}}`, `"array[3] of string"`),
/// id-keyed objects collapse to `{"map[N]": …}`. The output never exceeds --max-bytes and is
/// always valid JSON. Text input gets a line summary, binary input its size.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_long_help = "\
Examples:
  spill shape sp_9f2c4a1b7e3d0c55
  spill shape sp_9f2c4a1b7e3d0c55 --depth 2
  spill shape sp_9f2c4a1b7e3d0c55 --paths
  curl -s https://api.example.com/items | spill shape -"
)]
pub struct ShapeArgs {
    /// A ref (sp_…; or @1 for the newest entry, @2 the one before, sp_4f9e a unique prefix), a file path, or - for stdin.
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// Container levels shown; deeper ones become `"object(12 keys)"` / `"array[300]"`.
    #[arg(long, visible_alias = "depth", value_name = "N", value_parser = parse_count::<usize>, default_value_t = limits::SHAPE_MAX_DEPTH)]
    pub max_depth: usize,
    /// The skeleton never exceeds this size (at least 256 bytes).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value_t = limits::SHAPE_MAX_BYTES)]
    pub max_bytes: u64,
    /// Print one line per distinct path instead: `$.items[*].tags[*]  string  3812`.
    #[arg(long)]
    pub paths: bool,
    /// NDJSON: skip and count the lines that are not exactly one JSON value, instead of
    /// failing at the first (indexes count only the records).
    #[arg(long)]
    pub skip_invalid: bool,
}

/// Select parts of a JSON document with a JSONPath query (RFC 9535) and print them, bounded.
///
/// A singular query (names and indexes only) prints the value itself; any other query prints a
/// JSON array of the selected values in document order. Numbers and strings are printed exactly
/// as written in the source. A query not starting with `$` is read as if it did (`items[0]`,
/// `.items`). NDJSON sources are an array of records: `$[3]` is the fourth line's record.
///
/// Output is bounded; every cut shows in the output as a string starting with `…` that says what
/// was cut and the command that continues it, and one notice line on stderr says what was cut.
/// --unbounded (or --max-bytes 0) lifts every bound.
///
/// Exit status 1 when the query selects nothing, with a message naming the deepest part of the
/// query that resolved and what is there.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_long_help = "\
Examples:
  spill extract sp_9f2c4a1b7e3d0c55 '$.items[0:5]'
  spill extract sp_9f2c4a1b7e3d0c55 'items[?@.status >= 500].id' --compact
  spill extract sp_9f2c4a1b7e3d0c55 '$..error' --nodes
  spill extract sp_9f2c4a1b7e3d0c55 '$.items[*].name' -r
  kubectl get pods -o json | spill extract - '$.items[*].metadata.name' -r"
)]
pub struct ExtractArgs {
    /// A ref (sp_…; or @1 for the newest entry, @2 the one before, sp_4f9e a unique prefix), a file path, or - for stdin.
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// An RFC 9535 JSONPath query, e.g. '$.items[0:5]'.
    #[arg(
        value_name = "QUERY",
        allow_hyphen_values = true,
        required_unless_present = "from_file"
    )]
    pub query: Option<String>,
    /// Read the query from FILE (one trailing line break ignored), like `jq -f`: for queries
    /// holding characters a command line cannot carry.
    #[arg(short = 'f', long, value_name = "FILE", conflicts_with = "query")]
    pub from_file: Option<std::path::PathBuf>,
    /// Print [{"path": …, "value": …}] with RFC 9535 normalized paths.
    #[arg(long, conflicts_with = "raw")]
    pub nodes: bool,
    /// Print selected strings without quotes, one per line; other values compact.
    #[arg(short = 'r', long)]
    pub raw: bool,
    /// Print JSON on one line instead of indenting by 2 spaces.
    #[arg(long)]
    pub compact: bool,
    /// Skip this many selected nodes (to page through a long list).
    #[arg(long, value_name = "N", value_parser = parse_count::<usize>, default_value_t = 0)]
    pub offset: usize,
    /// Elements or members shown per container, and nodes per list.
    #[arg(long, value_name = "N", value_parser = parse_count::<usize>, default_value_t = limits::EXTRACT_MAX_ITEMS)]
    pub max_items: usize,
    /// Container levels shown; deeper ones become "… object(12 keys): …" / "… array[300]: …".
    #[arg(long, value_name = "N", value_parser = parse_count::<usize>, default_value_t = limits::EXTRACT_MAX_DEPTH)]
    pub max_depth: usize,
    /// Characters shown per string.
    #[arg(long, value_name = "N", value_parser = parse_count::<usize>, default_value_t = limits::EXTRACT_MAX_STRING)]
    pub max_string: usize,
    /// The whole output stays within this size, at least 128 bytes (0 lifts every bound)
    /// (default [`limits::EXTRACT_MAX_BYTES`]).
    #[arg(long, value_name = "SIZE", value_parser = parse_size,
        help = with_default("The whole output stays within this size, at least 128 bytes (0 lifts \
            every bound)", &flag_size(limits::EXTRACT_MAX_BYTES)))]
    pub max_bytes: Option<u64>,
    /// Lift every bound: print everything selected.
    #[arg(long)]
    pub unbounded: bool,
    /// NDJSON: skip and count the lines that are not exactly one JSON value, instead of
    /// failing at the first (indexes count only the records).
    #[arg(long)]
    pub skip_invalid: bool,
    /// Where the notice about cuts goes [env: SPILL_FOOTER] [default: stderr].
    #[arg(long, value_name = "WHERE", value_enum)]
    pub footer: Option<FooterTo>,
}

/// List stored outputs: ref, size, kind, age, label, summary; newest first.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_long_help = "\
Examples:
  spill ls
  spill ls --json --all-scopes"
)]
pub struct LsArgs {
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// List every scope of the root, not only the current one.
    #[arg(long)]
    pub all_scopes: bool,
    /// For shell completion: one `REF<TAB>LABEL` line per entry (the label, or the summary when
    /// there is none, on one line of at most 60 characters).
    #[arg(long, conflicts_with_all = ["json", "all_scopes"])]
    pub complete: bool,
}

/// What spill saved a scope: the bytes its commands printed, the bytes the model was sent for
/// them (small outputs whole, envelopes), and the reads that followed and their bytes.
///
/// Counted by every `wrap` and every reading command (cat, search, extract, shape, wait, and the
/// MCP server's tools) whose answer did not go to a terminal, in a ledger in the scope
/// directory; it outlives the scope's entries and expires with --ttl like them.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_long_help = "\
Examples:
  spill stats
  spill --scope claude-9c248b37 stats
  spill stats --all-scopes --json"
)]
pub struct StatsArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Every scope of the root with a tally, and their total.
    #[arg(long)]
    pub all_scopes: bool,
}

/// Remove stored outputs by ref, or all outputs of the current scope.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_long_help = "\
Examples:
  spill rm sp_9f2c4a1b7e3d0c55
  spill rm --all          # a harness calls this when a conversation ends"
)]
pub struct RmArgs {
    /// The refs to remove (short forms too: @1 the newest entry, sp_4f9e a unique prefix).
    #[arg(
        value_name = "REF",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    pub refs: Vec<String>,
    /// Remove every entry of the current scope.
    #[arg(long)]
    pub all: bool,
    /// Print one JSON object instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// Find occurrences of a regex in a stored output (or a file), counted exactly, a page at a time.
///
/// A match is one occurrence, not one line: a one-line JSON file with 300 hits has 300 matches.
/// Each is printed as LINE:COLUMN:text (COLUMN is the 1-based byte column, as `rg --column`),
/// context lines as LINE-text, `--` between groups. Lines longer than --max-columns characters
/// are shown as a window centred on the match, with … where they are cut. The total is exact;
/// stderr says which matches were shown and how to get the next page
/// (`matches 21–40 of 342 · next: --offset 40`). A PATTERN that is not a valid regex is searched
/// as a literal string, with a note. Binary sources are searched too.
///
/// A source holding ANSI escape sequences (colour) or `\r` progress frames is searched as the
/// envelope shows it: each line without its escape sequences and with only its last `\r` frame,
/// line numbers unchanged, columns counted in that text; a note says so. --raw searches the stored
/// bytes (--paths always does).
///
/// --all searches every stored output of the scope instead (no SOURCE), newest first, at most
/// --max-outputs of them per call; each row is labelled with its ref (REF:LINE:COLUMN:text,
/// REF-LINE-text), --limit and --max-bytes bound the whole page, and the footer's
/// `next: --all --resume REF:SKIP:CREATED` continues exactly where the page ended. Running
/// entries are not searched (a note counts them).
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_long_help = "\
Examples:
  spill search sp_9f2c4a1b7e3d0c55 -i 'error|fail' -C 2
  spill search --all -F 'connection refused'
  spill search sp_9f2c4a1b7e3d0c55 timeout --offset 20
  spill search build.log -F '[E0308]' --count
  spill search sp_9f2c4a1b7e3d0c55 -e panicked -e FAILED --json
  spill search sp_9f2c4a1b7e3d0c55 '\"status\":\"error\"' --paths"
)]
pub struct SearchArgs {
    /// A ref (sp_…; or @1 for the newest entry, @2 the one before, sp_4f9e a unique prefix), a file path, or - for stdin; not with --all.
    #[arg(value_name = "SOURCE", required_unless_present = "all")]
    pub source: Option<String>,
    /// The regular expression (Rust regex syntax); may be omitted when -e is given.
    #[arg(value_name = "PATTERN", required_unless_present_any = ["regexp", "all"])]
    pub pattern: Option<String>,
    /// A pattern to search for; repeat to find any of several.
    #[arg(
        short = 'e',
        long = "regexp",
        value_name = "PATTERN",
        allow_hyphen_values = true
    )]
    pub regexp: Vec<String>,
    /// Treat the patterns as literal strings, not regexes.
    #[arg(short = 'F', long)]
    pub fixed_strings: bool,
    /// Match case-insensitively.
    #[arg(short = 'i', long)]
    pub ignore_case: bool,
    /// Match only whole words.
    #[arg(short = 'w', long = "word-regexp")]
    pub word: bool,
    /// Show N lines after each match.
    #[arg(short = 'A', long, value_name = "N", value_parser = parse_count::<usize>)]
    pub after_context: Option<usize>,
    /// Show N lines before each match.
    #[arg(short = 'B', long, value_name = "N", value_parser = parse_count::<usize>)]
    pub before_context: Option<usize>,
    /// Show N lines before and after each match (-A and -B take precedence).
    #[arg(short = 'C', long, value_name = "N", value_parser = parse_count::<usize>)]
    pub context: Option<usize>,
    /// Skip this many matches (the footer's `next:` gives the next page's offset).
    #[arg(long, value_name = "N", value_parser = parse_count::<u64>, default_value_t = 0)]
    pub offset: u64,
    /// Show at most this many matches.
    #[arg(long, value_name = "N", value_parser = parse_count::<u64>, default_value_t = limits::SEARCH_LIMIT)]
    pub limit: u64,
    /// Lines longer than this many characters are shown as a window around the match (0: whole
    /// lines, within --max-bytes).
    #[arg(long, value_name = "N", value_parser = parse_count::<usize>, default_value_t = limits::SEARCH_MAX_COLUMNS)]
    pub max_columns: usize,
    /// The page's rows (numbers and text of matches and context lines) stay within this size;
    /// a page that reaches it ends early and `next:` continues (0: no limit).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = SEARCH_MAX_BYTES_DEFAULT.as_str())]
    pub max_bytes: u64,
    /// Lift --max-bytes and --max-columns: whole lines, however long (--limit still pages).
    #[arg(long)]
    pub unbounded: bool,
    /// Print only the number of matches (exit 1 when 0).
    #[arg(long)]
    pub count: bool,
    /// Print one JSON object: the matches, the total and the pagination.
    #[arg(long)]
    pub json: bool,
    /// Give each match the normalized JSONPath of the value (or key) holding it
    /// (LINE:COLUMN:PATH:text), ready for `spill extract`; JSON and NDJSON sources only.
    #[arg(long)]
    pub paths: bool,
    /// With --paths on NDJSON: skip and count the lines that are not exactly one JSON value
    /// (as `extract --skip-invalid` does, so the paths index the same records).
    #[arg(long, requires = "paths")]
    pub skip_invalid: bool,
    /// Search the stored bytes as they are (no cleaning of escape sequences and `\r` frames),
    /// and print them on a terminal without escaping control characters.
    #[arg(long)]
    pub raw: bool,
    /// Where the `next:` footer goes [env: SPILL_FOOTER] [default: stderr].
    #[arg(long, value_name = "WHERE", value_enum)]
    pub footer: Option<FooterTo>,
    /// Search every stored output of the scope, newest first (no SOURCE); rows are labelled
    /// with their ref. Running entries are not searched.
    #[arg(long, conflicts_with = "paths")]
    pub all: bool,
    /// With --all: continue from this cursor (REF:SKIP:CREATED, as the footer's `next:` gives it).
    #[arg(long, value_name = "CURSOR", requires = "all")]
    pub resume: Option<String>,
    /// With --all: read at most this many stored outputs per call, newest first (0: no limit);
    /// the footer's `next:` reaches the older ones.
    #[arg(long, value_name = "N", value_parser = parse_count::<usize>, default_value_t = limits::SEARCH_MAX_OUTPUTS, requires = "all")]
    pub max_outputs: usize,
}

/// Remove expired entries and stale temporary files, then enforce the quota.
///
/// Prints one line per removal (`REF  SCOPE  SIZE  expired|evicted|temp`), then
/// `freed N bytes (X MiB)`. Expiry and temporary files cover the current scope (every scope
/// with --all-scopes); the quota is the root's, so eviction considers every scope. In restricted
/// mode gc sees only the current scope: its usage, its evictions. --ttl overrides the lifetime
/// for this run.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_long_help = "\
Examples:
  spill gc --dry-run
  spill gc --all-scopes --ttl 1h
  spill gc --json"
)]
pub struct GcArgs {
    /// Report what would be removed; remove nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Expire entries and sweep temporary files in every scope of the root.
    #[arg(long)]
    pub all_scopes: bool,
    /// Print one JSON object instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// Print the JSON Schema (draft 2020-12) of one of spill's JSON outputs.
///
/// Each schema describes exactly what this version prints (closed objects, required fields),
/// so a script can validate what it reads. Fields are only ever added, never renamed or
/// retyped; read unknown fields as a newer spill's additions. Without OUTPUT, lists the
/// schemas.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_long_help = "\
Examples:
  spill schema
  spill schema envelope > spill-envelope.schema.json
  spill schema ls"
)]
pub struct SchemaArgs {
    /// The output whose schema to print.
    #[arg(value_name = "OUTPUT", value_enum)]
    pub output: Option<SchemaName>,
}

/// Open a stored output (or a file) for reading at a terminal: JSON in jless or fx when one is
/// installed, else the whole document pretty-printed in the pager (coloured as extract colours
/// it); text in the pager, and binary as the hex dump cat shows. Not available in restricted
/// mode.
///
/// SPILL_VIEWER chooses the JSON viewer: a command line the file's path is appended to.
/// The pager is SPILL_PAGER, then PAGER, else less -FRX.
#[derive(Debug, Args)]
#[command(
    verbatim_doc_comment,
    after_long_help = "\
Examples:
  spill view @1
  SPILL_VIEWER='fx' spill view sp_9f2c4a1b7e3d0c55"
)]
pub struct ViewArgs {
    /// A ref (sp_…; or @1 for the newest entry, @2 the one before, sp_4f9e a unique prefix) or a file path.
    #[arg(value_name = "SOURCE")]
    pub source: String,
}

/// The machine-readable outputs that have a schema: the library's own list.
pub use crate::ops::schema::Schema as SchemaName;

impl ValueEnum for SchemaName {
    fn value_variants<'a>() -> &'a [Self] {
        crate::ops::schema::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()).help(self.help()))
    }
}

/// clap value parser for sizes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    limits::parse_size(text)
}

/// clap value parser for counts (lines, matches, items, columns).
pub fn parse_count<T: TryFrom<u64>>(text: &str) -> Result<T, String> {
    limits::parse_count(text)
}

/// clap value parser for durations.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    limits::parse_duration(text)
}

/// Parses a duration as `parse_duration` does, or a whole number of milliseconds (`500ms`).
fn parse_duration_ms(text: &str) -> Result<Duration, String> {
    match text.strip_suffix("ms") {
        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => n
            .parse::<u64>()
            .ok()
            .map(Duration::from_millis)
            .filter(|&d| d <= limits::MAX_DURATION)
            .ok_or_else(|| format!("invalid duration {text:?}: too large")),
        _ => limits::parse_duration(text),
    }
}

/// Parses a command line with only the definition of the command it names.
///
/// clap builds the whole command tree before it parses, and that grows with every command and
/// option added: with thirteen commands it was a third of `wrap`'s start-up (335 k of 1.06 M
/// instructions), and `wrap` and `hook` run once per shell command a harness sends. This
/// parser builds the global options and the one command the first argument names, so it
/// accepts no line the full definition would read differently: it returns `None` for anything
/// that is not a valid line of that command (help, version, a usage error, options before the
/// command, `help`), and the caller parses that with [`Cli`] as always, so every message and
/// help text stays the full definition's.
pub fn parse_one_command(args: &[std::ffi::OsString]) -> Option<Cli> {
    use clap::FromArgMatches;
    let name = args.get(1)?.to_str()?;
    type Augment = fn(clap::Command) -> clap::Command;
    let (name, augment): (&'static str, Augment) = match name {
        "wrap" => ("wrap", WrapArgs::augment_args),
        "shape" => ("shape", ShapeArgs::augment_args),
        "extract" => ("extract", ExtractArgs::augment_args),
        "search" => ("search", SearchArgs::augment_args),
        "cat" => ("cat", CatArgs::augment_args),
        "ls" => ("ls", LsArgs::augment_args),
        "rm" => ("rm", RmArgs::augment_args),
        "gc" => ("gc", GcArgs::augment_args),
        "schema" => ("schema", SchemaArgs::augment_args),
        "view" => ("view", ViewArgs::augment_args),
        "hook" => ("hook", HookArgs::augment_args),
        "init" => ("init", InitArgs::augment_args),
        "mcp" => ("mcp", McpArgs::augment_args),
        "wait" => ("wait", WaitArgs::augment_args),
        "stop" => ("stop", StopArgs::augment_args),
        "stats" => ("stats", StatsArgs::augment_args),
        "doctor" => ("doctor", DoctorArgs::augment_args),
        _ => return None,
    };
    let command = augment(clap::Command::new(name));
    let matches = Global::augment_args(clap::Command::new("spill"))
        .subcommand(command)
        .try_get_matches_from(args)
        .ok()?;
    Cli::from_arg_matches(&matches).ok()
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    #[test]
    fn the_command_line_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }

    fn words(line: &str) -> Vec<std::ffi::OsString> {
        line.split(' ').map(Into::into).collect()
    }

    #[test]
    fn the_one_command_parser_reads_every_line_as_the_full_definition_does() {
        for line in [
            "spill wrap",
            "spill wrap -- cargo test --locked",
            "spill wrap --label x --max-inline 4K --format text",
            "spill wrap --dir /tmp/s --scope a --ttl 2h --quota 1G -- make -j2",
            "spill wrap --redact --color never --format json",
            "spill wrap --store s3://b/p --max-file 1M",
            "spill wrap --timeout 5s -- sh -c true",
            "spill wrap --detach-after 200ms -- sh -c true",
            "spill wait sp_0123456789abcdef --timeout 2s --since 10",
            "spill stop sp_0123456789abcdef",
            "spill cat sp_0 --since 42",
            "spill hook claude-code",
            "spill hook codex --scope s1",
            "spill hook gemini --dir /tmp/s",
            "spill shape sp_0 --depth 2 --max-bytes 2K",
            "spill extract data.json $..id --unbounded --compact",
            "spill extract sp_0 $[0] -r --skip-invalid",
            "spill search sp_0 -i error -C 2 --offset 20 --count",
            "spill search sp_0 -F a.b --paths --raw",
            "spill cat @1 --lines 1:20",
            "spill cat sp_0 --bytes 0:100 --raw",
            "spill ls --json",
            "spill rm sp_0",
            "spill gc --dry-run",
            "spill schema envelope",
            "spill view sp_0",
            "spill init codex --dry-run",
            "spill init claude-code --uninstall",
            "spill mcp",
            "spill mcp proxy --timeout 30m -- ./server --stdio",
        ] {
            let full = super::Cli::try_parse_from(words(line)).expect(line);
            let fast = super::parse_one_command(&words(line)).expect(line);
            assert_eq!(format!("{full:?}"), format!("{fast:?}"), "{line}");
        }
    }

    #[test]
    fn the_one_command_parser_leaves_everything_else_to_the_full_definition() {
        for line in [
            "spill",
            "spill wrap --help",
            "spill wrap -h",
            "spill --version",
            "spill wrap --version",
            "spill wrap --no-such-flag",
            "spill wrap --dir /a --store s3://b/p",
            "spill wrap --max-inline lots",
            "spill --dir /tmp/s wrap",
            "spill wrapx",
            "spill hook",
            "spill hook nobody",
            "spill hook --help",
            "spill help",
            "spill help wrap",
            "spill extract",
            "spill cat sp_0 --lines",
            "spill mcp proxy",
            // valid, but options before the command are the full definition's to read
            "spill --scope s1 hook gemini",
        ] {
            assert!(super::parse_one_command(&words(line)).is_none(), "{line}");
        }
    }
}
