//! `spill wrap`: options from flags and the environment, then the library's capture of stdin or
//! its `-- CMD` runner ([`crate::wrap::run_command`]), then printing the pass-through bytes or the
//! envelope and the warnings.

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::cli::{Global, WrapArgs, WrapFormat};
use crate::error::{Error, Result};
use crate::harness::{self, Harness};
use crate::store::StoreConfig;
use crate::store::stats::Tally;
use crate::text::redact::{Redactor, secrets_from_env};
use crate::wrap::{self, Capture, CommandSpec, PassThrough, PassedThrough, Ran, WrapOptions};
use crate::{diag, limits, output};

use super::{Outcome, env_parsed};

/// Resolves wrap's options: flag > environment > default, never failing on the environment.
fn options(args: &WrapArgs) -> Result<(WrapOptions, WrapFormat)> {
    let max_inline = match args.max_inline {
        Some(v) => v,
        None => {
            env_parsed("SPILL_MAX_INLINE", limits::parse_size, true)?.unwrap_or(limits::MAX_INLINE)
        }
    };
    let format = match args.format {
        Some(f) => f,
        None => {
            let parse = |s: &str| match s {
                "json" => Ok(WrapFormat::Json),
                "text" => Ok(WrapFormat::Text),
                other => Err(format!("invalid value {other:?}: use json or text")),
            };
            env_parsed("SPILL_FORMAT", parse, true)?.unwrap_or(WrapFormat::Json)
        }
    };
    // A safety switch: anything but an explicit off turns redaction on.
    let redact = args.redact || super::env_switch("SPILL_REDACT", true);
    let turn = match &args.turn {
        Some(t) => Some(t.clone()),
        None => env_parsed("SPILL_TURN", |s| Ok(s.to_string()), true)?,
    };
    let turn_budget = match args.turn_budget {
        Some(v) => v,
        None => env_parsed("SPILL_TURN_BUDGET", limits::parse_size, true)?
            .unwrap_or(limits::TURN_BUDGET),
    };
    // Besides the built-in shapes, the values of spill's own secret-looking variables.
    let secrets = if redact {
        secrets_from_env(std::env::vars_os())
    } else {
        Vec::new()
    };
    // The label is echoed in the envelope and stored: with --redact it is redacted too.
    let label = match &args.label {
        Some(l) if redact => Some(
            String::from_utf8_lossy(&Redactor::new(&secrets).redact_all(l.as_bytes())).into_owned(),
        ),
        other => other.clone(),
    };
    let opts = WrapOptions {
        max_inline,
        preview: args.preview,
        head_lines: args.head_lines,
        tail_lines: args.tail_lines,
        label,
        redact,
        secrets,
        turn,
        turn_budget,
        store_error: None,
        skip_invalid: args.skip_invalid,
        pass_unstored: None,
        condense: args.condense || super::env_switch("SPILL_CONDENSE", false),
    };
    Ok((opts, format))
}

/// The harness whose tool call runs this `wrap` (`SPILL_HARNESS`, which its hook sets in the
/// command it writes), if any. Under a harness, an output that cannot be stored at all passes
/// through unchanged, followed by one line naming the harness's setting that would let spill
/// store it: the harness then cuts it as it would without spill, so the model never gets less
/// than the harness's own cut (README, "Codex"). Without one, the degraded envelope keeps the
/// output bounded (README, "Degraded envelope").
fn harness_of_call() -> Result<Option<&'static Harness>> {
    let find = |name: &str| {
        harness::find(name).ok_or_else(|| {
            let names: Vec<&str> = harness::ALL.iter().map(|h| h.name).collect();
            format!(
                "unknown harness {:?}: use {}",
                diag::escape(name),
                harness::in_words(&names, "or")
            )
        })
    };
    super::env_parsed("SPILL_HARNESS", find, true)
}

/// Runs `spill wrap`.
pub fn run(global: &Global, args: WrapArgs) -> Result<Outcome> {
    // Restricted mode is for a caller that may only run spill: running any other command would
    // undo every boundary it draws. Only the harness, which runs commands anyway, says otherwise.
    if !args.command.is_empty()
        && super::restricted()
        && !super::env_switch("SPILL_ALLOW_RUN", false)
    {
        return Err(Error::Usage(
            "wrap -- CMD is refused in restricted mode (SPILL_RESTRICTED): pipe the output in instead (`CMD 2>&1 | spill wrap`), or, where the harness itself runs CMD, set SPILL_ALLOW_RUN=1".into(),
        ));
    }
    let (mut opts, format) = options(&args)?;
    let harness = harness_of_call()?;
    if harness.is_some() {
        // Not the pager's writer: wrap's stdout is the harness's pipe, and `print` flushes its
        // own writer after this one is done.
        opts.pass_unstored = Some(PassThrough::new(std::io::stdout()));
    }
    super::check_store_flags(global)?;
    // An unusable store setting never lets another scope or root stand in: the input still
    // passes through or gets the degraded envelope, and restricted mode stays on.
    let store = match super::store_config(global) {
        Ok(c) => c,
        Err(e) => {
            let reason = e.to_string();
            let larger = if opts.pass_unstored.is_some() {
                "larger output passes through unchanged"
            } else {
                "larger output gets a preview only"
            };
            diag::warning(&format!(
                "{reason}; nothing is stored until it is fixed ({larger})"
            ));
            opts.store_error = Some(reason);
            let mut placeholder = StoreConfig::new(PathBuf::new(), String::new());
            placeholder.restricted = super::restricted();
            placeholder
        }
    };
    if let Some(id) = &args.supervise {
        return super::live::supervise(&args, &opts, format, &store, id);
    }
    if !args.command.is_empty()
        && let Some((after, stay)) = args
            .detach_after
            .map(|d| (d, false))
            .or(args.report_after.map(|d| (d, true)))
        && let Some(outcome) =
            super::live::detach(global, &args, &opts, format, &store, after, stay)?
    {
        return Ok(outcome);
    }
    let print_stdin = |captured: Capture| -> Result<Outcome> {
        let mut tally = Tally::default();
        let printed = print(captured, &opts, format, None, &store, harness, &mut tally);
        count(&store, &opts, &tally);
        printed?;
        Ok(Outcome::Found)
    };
    if args.command.is_empty()
        && let Some(after) = args.report_after
        && !std::io::stdin().is_terminal()
    {
        match super::live::report_stdin(&opts, format, &store, after, args.report_every)? {
            Some(super::live::Reported::Done(outcome)) => return Ok(outcome),
            Some(super::live::Reported::Plain(captured)) => return print_stdin(captured),
            None => {}
        }
    }
    wrap::catch_signals();
    if args.command.is_empty() {
        if std::io::stdin().is_terminal() {
            return Err(Error::Usage(
                "wrap reads the output to keep from stdin, which is a terminal; pipe into it (`cmd 2>&1 | spill wrap`) or run `spill wrap -- cmd`".into(),
            ));
        }
        let (captured, warnings) = wrap::capture_stdin(&opts, &store)?;
        warn(&warnings);
        return print_stdin(captured);
    }
    run_command(&args, &opts, format, &store, harness)
}

/// Prints the library's warnings, one `spill: warning:` line each.
fn warn(warnings: &[wrap::Warning]) {
    for w in warnings {
        diag::warning(&w.to_string());
    }
}

/// Writes the pass-through bytes or the envelope, counting them in `tally`. A remote entry's
/// envelope names no local path, as in restricted mode.
fn print(
    captured: Capture,
    opts: &WrapOptions,
    format: WrapFormat,
    exit_code: Option<i32>,
    store: &StoreConfig,
    harness: Option<&'static Harness>,
    tally: &mut Tally,
) -> Result<()> {
    let remote = store.is_remote();
    let restricted = store.restricted || remote;
    let mut out = output::stdout();
    tally.outputs = 1;
    match captured {
        Capture::Inline(bytes) => {
            tally.printed = bytes.len() as u64;
            let entry = crate::store::Store::new(store.clone());
            match wrap::condensed(&entry, &bytes, opts) {
                Some((view, _)) => {
                    tally.sent = view.text.len() as u64;
                    tally.stored = 1;
                    output::write_all(&mut out, &view.text)?
                }
                None => {
                    tally.sent = tally.printed;
                    output::write_all(&mut out, &bytes)?
                }
            }
        }
        Capture::Spilled(s) if s.passed_through.is_some() => {
            let passed = s
                .passed_through
                .as_ref()
                .expect("matched as passed through");
            tally.printed = passed.bytes;
            tally.sent = passed.bytes;
            // Its reader went away: nobody is left to read the line either.
            if passed.write_error.is_none() {
                let reason = s.stored.as_ref().err().map_or("", String::as_str);
                let line = unstored_line(passed, reason, restricted, harness);
                tally.sent += line.len() as u64;
                output::write_all(&mut out, line.as_bytes())?;
            }
        }
        Capture::Spilled(s) => {
            let env = wrap::envelope(&s, opts, exit_code, restricted);
            let text = match format {
                WrapFormat::Json => env.to_json() + "\n",
                WrapFormat::Text => wrap::render_text(&env),
            };
            tally.printed = env.size_bytes;
            tally.sent = text.len() as u64;
            tally.stored = u64::from(s.stored.is_ok());
            output::write_all(&mut out, text.as_bytes())?;
            output::flush(&mut out)?;
            match &s.stored {
                // A store setting that is unusable was already reported, before reading.
                Err(_) if opts.store_error.is_some() => {}
                // The object store failed (or its cache): a directory elsewhere would not help.
                Err(reason) if remote => diag::warning(&format!(
                    "the output was not stored ({reason}); printed a preview only (the object store is tried again with the next output)"
                )),
                Err(reason) => diag::warning(&format!(
                    "the output was not stored ({reason}); printed a preview only. Set SPILL_DIR (or --dir) to a private, writable directory"
                )),
                Ok(stored) => stored.repaired.iter().for_each(|w| diag::warning(w)),
            }
        }
    }
    output::flush(&mut out)
}

/// The one line after an output that passed through unstored: what happened and the setting
/// that would let spill store it (the harness's, from what `spill doctor` reads of it). Preceded
/// by a newline when the output did not end with one, so the line is a line of its own.
fn unstored_line(
    passed: &PassedThrough,
    reason: &str,
    restricted: bool,
    harness: Option<&'static Harness>,
) -> String {
    let allow = harness
        .and_then(|h| (h.doctor)(&super::Process).sandbox)
        .map(|s| s.allow)
        .unwrap_or_else(|| "set SPILL_DIR (or --dir) to a private, writable directory".into());
    // Short: under the harness's own cut, every byte of the line is a byte less of the output.
    // The cause (the last part of the message: "Read-only file system (os error 30)"); the
    // whole message names paths the model has no use for.
    let cause = reason.rsplit(": ").next().unwrap_or(reason);
    let mut reason = diag::cut(&diag::escape(cause), 60);
    let mut allow = diag::escape(&allow);
    if restricted {
        reason = diag::without_paths(&reason);
        allow = diag::without_paths(&allow);
    }
    format!(
        "{}[spill: {} bytes not stored ({reason}), shown as printed; to store: {allow}]\n",
        if passed.ends_with_newline { "" } else { "\n" },
        limits::group_digits(passed.bytes),
    )
}

/// Adds one output to its scope's tally (`spill stats`), best effort: where the store cannot be
/// written (unusable, or a sandbox's read-only file system) nothing is counted, and nothing is
/// said — a message on stderr would reach the model with the output. An output that passed
/// through never makes a store: before the root exists (the first stored output, or a harness
/// hook's first call, makes it) it is not counted.
fn count(store: &StoreConfig, opts: &WrapOptions, tally: &Tally) {
    if opts.store_error.is_none() {
        // Its warnings on stderr reach the model too.
        let tally = Tally {
            sent: tally.sent + output::written_stderr(),
            ..*tally
        };
        let store = crate::store::Store::new(store.clone());
        let _ = crate::store::stats::add(&store, &tally, tally.stored > 0);
    }
}

/// `spill wrap -- CMD ARGS…`.
fn run_command(
    args: &WrapArgs,
    opts: &WrapOptions,
    format: WrapFormat,
    store: &StoreConfig,
    harness: Option<&'static Harness>,
) -> Result<Outcome> {
    let command = CommandSpec {
        argv: args.command.clone(),
        timeout: args.timeout,
    };
    let ran = match wrap::run_command(&command, opts, store)? {
        Ran::Exited(ran) => ran,
        Ran::NotStarted(why) => {
            let name = diag::escape(&args.command[0].to_string_lossy());
            diag::error(&Error::Usage(format!("{name}: {why}")));
            return Ok(Outcome::Status(why.status));
        }
    };
    warn(&ran.warnings);
    let code = ran.code();
    // CMD's status is the result, also when our stdout is a closed pipe.
    let mut tally = Tally::default();
    let printed = print(
        ran.capture,
        opts,
        format,
        Some(code),
        store,
        harness,
        &mut tally,
    );
    count(store, opts, &tally);
    match printed {
        Ok(()) => {}
        Err(e) if e.is_broken_pipe() => {}
        Err(e) => diag::error(&e),
    }
    // Killed by a signal (not by --timeout): end the same way, as a wrapper should.
    use std::os::unix::process::ExitStatusExt;
    match ran.status.signal() {
        Some(n) if !ran.timed_out && (1..128).contains(&n) => Ok(Outcome::Signal(n as u8)),
        _ => Ok(Outcome::Status(code.clamp(0, 255) as u8)),
    }
}
