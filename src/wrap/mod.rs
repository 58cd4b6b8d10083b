//! The library half of `spill wrap`: read an output to its end, pass it through when small,
//! otherwise stream it into the store while hashing and analysing it on a second thread, and
//! build the envelope that replaces it.
//!
//! Measured design (ARCHITECTURE.md, Early measurements): reading a pipe in 1 MiB chunks after enlarging it with
//! `F_SETPIPE_SZ` is 2.6× faster than 64 KiB reads; BLAKE3 runs at ~4–5 GB/s on one core, so
//! hashing and text analysis run on a worker thread while the main thread reads and writes,
//! and the two overlap on a 2-core machine. Nothing on the pass-through path touches the store
//! or compiles a regex, so a small output costs little more than process start-up.
//!
//! The parts, in the order an output meets them:
//!
//! | file | part |
//! |---|---|
//! | `capture.rs` | the capture pipeline: reader → redactor → capped writer + hash/analysis → publish |
//! | `policy.rs` | the storage policy: the per-file cap and the capped writer that keeps head + marker + tail |
//! | `envelope.rs` | building the envelope and the loop that shrinks it to its bound |
//! | `text.rs` | rendering an envelope for a person (`--format text`) |
//! | `signals.rs` | SIGINT/SIGTERM/SIGHUP stop reading and reach CMD; the self-pipe reader of stdin |
//! | `child.rs` | running `wrap -- CMD`: one pipe, its process group, the guardian, `--timeout` |
//! | `live.rs` | `--detach-after`: the supervisor that keeps a running command's output in the store, and its running envelope |

mod capture;
mod child;
mod envelope;
pub mod live;
mod policy;
mod signals;
mod text;

pub use capture::{
    Capture, JsonPart, PassedThrough, Spilled, Stored, capture, capture_observed,
    capture_with_warnings,
};
pub use child::{
    CommandSpec, Exited, Guardian, NotStarted, Ran, die_with_parent, run_command,
    run_command_observed,
};
pub use envelope::{envelope, hint};
pub use signals::{
    capture_stdin, capture_stdin_observed, catch_signals, die_by, last_signal, signalled,
};
pub use text::render_text;

/// Quotes a word for a POSIX shell only when it needs it (the crate's one rule, kept here for
/// the callers that name it by this path).
pub use crate::text::shell::quote as shell_quote;

use crate::limits;

/// Failure signals shown at most.
const MAX_SIGNALS: usize = 5;

/// How `wrap` behaves.
#[derive(Debug, Clone)]
pub struct WrapOptions {
    /// Outputs up to this many bytes pass through.
    pub max_inline: u64,
    /// The budget shared by the preview and the signals.
    pub preview: u64,
    /// `--head-lines`.
    pub head_lines: Option<usize>,
    /// `--tail-lines`.
    pub tail_lines: Option<usize>,
    /// `--label`.
    pub label: Option<String>,
    /// `--redact`: replace secrets with `[REDACTED]` in everything written.
    pub redact: bool,
    /// With `redact`: literal secrets replaced besides the built-in token shapes. The `spill`
    /// binary passes the secret-looking variables of its own environment
    /// ([`secrets_from_env`](crate::text::redact::secrets_from_env)); the library reads none.
    pub secrets: Vec<Vec<u8>>,
    /// `--turn`: the turn whose inline budget this output shares.
    pub turn: Option<String>,
    /// `--turn-budget`: the most bytes one turn passes through inline.
    pub turn_budget: u64,
    /// Why the store must not be used (an invalid `SPILL_SCOPE` or `SPILL_DIR`, ...), when it
    /// must not: then nothing touches the store — a large output gets the degraded envelope
    /// with this reason, and turn budgets are not applied — and no other store stands in.
    pub store_error: Option<String>,
    /// `--skip-invalid`: NDJSON lines that are not exactly one value are skipped and counted.
    pub skip_invalid: bool,
    /// Where a large output goes, unchanged, when nothing of it can be stored (`store_error`,
    /// or a store whose scope or temporary file cannot be created): streamed there as it is
    /// read (redacted with `redact`), instead of the degraded envelope's preview. `None` (the
    /// default) keeps the degraded envelope. A store that fails after taking part of the output
    /// (a full disk) still gives the degraded envelope: what it took cannot be un-read.
    pub pass_unstored: Option<PassThrough>,
    /// `--condense`: an output that would pass through inline (at least [`CONDENSE_FLOOR`]
    /// bytes), whose condensed view ([`crate::text::condense`]) is at most half of it, is
    /// stored and printed as that view instead ([`condensed`]).
    pub condense: bool,
}

/// The lines the envelope's analysis of `bytes` shows (1-based): every signal and ranked line
/// with the lines its text spans (a numeric column's extreme, a rare value's record, a
/// diagnostic's header and continuation).
fn shown_lines(bytes: &[u8]) -> std::collections::HashSet<u64> {
    let mut analyzer = crate::text::analyze::TextAnalyzer::new(bytes.len().max(1))
        .json_fields(crate::json::analyze::severity_fields);
    analyzer.feed(bytes);
    let facts = analyzer.finish();
    let mut keep: std::collections::HashSet<u64> = facts.signals.iter().map(|s| s.line).collect();
    for s in &facts.signals {
        keep.extend(s.text_line..=s.line);
    }
    for r in &facts.ranked {
        keep.insert(r.line);
        keep.extend(r.span.0..=r.span.1);
    }
    keep
}

/// The smallest output `--condense` condenses: below it a view saves too little to be worth a
/// store and a read.
pub const CONDENSE_FLOOR: usize = 1024;

/// `--condense` for an output that would pass through (`bytes`): its condensed view and the
/// ref it is stored under, or `None` when it does not halve, is below [`CONDENSE_FLOOR`], or
/// cannot be stored (then it passes through as without `--condense`: nothing is shown that the
/// store does not hold).
pub fn condensed(
    store: &crate::store::Store,
    bytes: &[u8],
    opts: &WrapOptions,
) -> Option<(crate::text::condense::Condensed, crate::store::Ref)> {
    if !opts.condense || bytes.len() < CONDENSE_FLOOR || opts.store_error.is_some() {
        return None;
    }
    // The view names the ref, which is the hash of the bytes: condense with a stand-in of the
    // same length first, so nothing is stored for an output that does not halve.
    const STAND_IN: &str = "sp_0000000000000000";
    let keep = shown_lines(bytes);
    crate::text::condense::condense(bytes, STAND_IN, &keep)?;
    let reference = live::store_small(store, bytes, opts).ok()?;
    let view = crate::text::condense::condense(bytes, &reference.to_string(), &keep)?;
    Some((view, reference))
}

/// The writer [`WrapOptions::pass_unstored`] streams an unstorable output into (the `spill`
/// binary passes its stdout: the harness then cuts the output as it would without spill).
#[derive(Clone)]
pub struct PassThrough(std::sync::Arc<std::sync::Mutex<dyn std::io::Write + Send>>);

impl PassThrough {
    /// Passes unstorable output to `out`.
    pub fn new(out: impl std::io::Write + Send + 'static) -> PassThrough {
        PassThrough(std::sync::Arc::new(std::sync::Mutex::new(out)))
    }

    /// The writer, for one output at a time.
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, dyn std::io::Write + Send + 'static> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl std::fmt::Debug for PassThrough {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PassThrough")
    }
}

impl Default for WrapOptions {
    fn default() -> WrapOptions {
        WrapOptions {
            max_inline: limits::MAX_INLINE,
            preview: limits::PREVIEW,
            head_lines: None,
            tail_lines: None,
            label: None,
            redact: false,
            secrets: Vec::new(),
            turn: None,
            turn_budget: limits::TURN_BUDGET,
            store_error: None,
            skip_invalid: false,
            pass_unstored: None,
            condense: false,
        }
    }
}

/// Something that went wrong without failing the call: the output was still passed through or
/// stored. `Display` is the sentence `spill wrap` prints after `spill: warning: `.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// `--turn` was given, but the turn's budget could not be read or updated (the reason): the
    /// output passed through as if no turn had been named.
    TurnBudget(String),
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warning::TurnBudget(reason) => write!(f, "the turn budget was not applied: {reason}"),
        }
    }
}
