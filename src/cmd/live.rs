//! `wrap --detach-after` (start the supervisor, wait for the end or the deadline) and the
//! supervisor itself (`wrap --supervise ID`, internal), over [`crate::wrap::live`].

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::cli::{Global, WrapArgs, WrapFormat};
use crate::error::{Error, Result};
use crate::store::running::{self, Liveness, Record, State};
use crate::store::{Ref, Store, StoreConfig};
use crate::wrap::live::{self, Format, Waited};
use crate::wrap::{CommandSpec, WrapOptions};
use crate::{diag, output};

use super::Outcome;

/// `spill wrap --detach-after D -- CMD`: starts the supervisor in its own session and returns
/// what `wrap -- CMD` would print if CMD ends within D, else the running envelope (exit 0).
///
/// `Ok(None)` when there can be no running entry — the store is unusable, or the supervisor
/// could not make the entry (a read-only file system: Codex's read-only sandbox) and so never
/// started CMD: the caller then runs CMD as `wrap -- CMD` does, which says what it could not
/// store. A hook that sets `--detach-after` on every call so never costs a command.
///
/// With `stay` (`--report-after`), `wrap` prints the running envelope at D and goes on waiting:
/// CMD is never handed over (it lives as long as `wrap`), and the final envelope follows at the
/// end, with CMD's status.
pub fn detach(
    global: &Global,
    args: &WrapArgs,
    opts: &WrapOptions,
    format: WrapFormat,
    config: &StoreConfig,
    after: Duration,
    stay: bool,
) -> Result<Option<Outcome>> {
    if opts.store_error.is_some() {
        return Ok(None);
    }
    let id = running::new_id();
    let exe = std::env::current_exe().map_err(|e| Error::stream("find the spill binary", e))?;
    let mut supervisor = Command::new(exe);
    // Its stdin is the hand-over pipe: `wrap` writes one byte at the deadline and closes it;
    // a pipe that closes without that byte means `wrap` ended first (killed, interrupted), and
    // the supervisor then stops CMD, as `wrap -- CMD`'s guardian would ([`HANDED_OVER`]).
    supervisor
        .args(forwarded(global, args, &id))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: setsid is async-signal-safe and allocates nothing; it runs between fork and exec.
    unsafe {
        supervisor.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let mut child = supervisor
        .spawn()
        .map_err(|e| Error::stream("start the supervisor", e))?;
    let mut hand_over = child.stdin.take();
    let store = Store::new(config.clone());
    let deadline = Instant::now().checked_add(after);
    let mut starting = || matches!(child.try_wait(), Ok(None));
    // The hand-over pipe's write end reports an error once its reader, the supervisor, is gone
    // (it exits right after the final record): a pause ends then, not at its full length.
    let pipe_fd = {
        use std::os::fd::AsRawFd;
        hand_over.as_ref().map(|p| p.as_raw_fd())
    };
    let mut pause = |d: Duration| match pipe_fd {
        Some(fd) => {
            let mut pfd = libc::pollfd {
                fd,
                events: 0,
                revents: 0,
            };
            let ms = d.as_millis().min(i32::MAX as u128) as i32;
            // SAFETY: poll(2) of one descriptor this process holds open.
            let ready = unsafe { libc::poll(&mut pfd, 1, ms) };
            if ready > 0 {
                // Gone: nothing more to wait for but the record, which is final by now; a
                // short sleep keeps a loop that sees no record yet from spinning.
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        None => std::thread::sleep(d),
    };
    let waited = match live::wait_with(&store, &id, deadline, &mut starting, &mut pause) {
        Ok(waited) => waited,
        // No record: the supervisor failed before it made the entry, so before CMD started.
        Err(_) if store.running_record(&id).is_none() => return Ok(None),
        Err(e) => return Err(e),
    };
    let release = |hand_over: &mut Option<std::process::ChildStdin>| {
        if let Some(mut pipe) = hand_over.take() {
            use std::io::Write;
            // A supervisor that is gone already cannot read it (an envelope then says
            // interrupted).
            let _ = pipe.write_all(&[HANDED_OVER]);
        }
    };
    if !stay || matches!(waited, Waited::Ended(_)) {
        release(&mut hand_over);
    }
    match waited {
        Waited::Ended(record) => print_end(&store, &record, Some(opts.max_inline), true).map(Some),
        Waited::Live(snap) => {
            // With --report-every nothing is printed while CMD has printed nothing: a harness
            // that cancels a silent command (Gemini CLI) still sees it silent.
            let mut reports =
                Reports::new(args.report_every.is_some() && snap.liveness == Liveness::Running);
            reports.report(&snap, opts, format)?;
            match snap.liveness {
                Liveness::Running if stay => {
                    drop(snap);
                    // With --report-every, at each interval in which the output grew.
                    let end = loop {
                        let next = args
                            .report_every
                            .and_then(|e| Instant::now().checked_add(e));
                        match live::wait_with(&store, &id, next, &mut || false, &mut pause) {
                            Ok(Waited::Live(snap))
                                if next.is_some() && snap.liveness == Liveness::Running =>
                            {
                                reports.report(&snap, opts, format)?;
                            }
                            other => break other,
                        }
                    };
                    release(&mut hand_over);
                    match end? {
                        Waited::Ended(record) => print_end(&store, &record, None, true).map(Some),
                        Waited::Live(_) => {
                            diag::error(&Error::Store(format!(
                                "the supervisor of {id} died before the command ended; its output so far stays readable"
                            )));
                            Ok(Some(Outcome::Status(2)))
                        }
                    }
                }
                Liveness::Running => Ok(Some(Outcome::Found)),
                Liveness::Interrupted => {
                    diag::error(&Error::Store(format!(
                        "the supervisor of {id} died before the command ended; its output so far stays readable"
                    )));
                    Ok(Some(Outcome::Status(2)))
                }
            }
        }
    }
}

/// Waits on `wake` until the flag `ended` guards is set or `deadline` passes; the guard back.
fn wait_until<'a>(
    wake: &std::sync::Condvar,
    mut ended: std::sync::MutexGuard<'a, bool>,
    deadline: Instant,
) -> std::sync::MutexGuard<'a, bool> {
    while !*ended && Instant::now() < deadline {
        let left = deadline.saturating_duration_since(Instant::now());
        ended = wake
            .wait_timeout(ended, left)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
    ended
}

/// What `wrap --report-after` (and `--report-every`) has printed of a running entry, so each
/// report knows what is due ([`Reports::report`]).
struct Reports {
    /// `--report-every`: report only when the output grew since the last report (so nothing at
    /// all while the command is silent).
    every: bool,
    /// The running envelope was printed.
    shown: bool,
    /// The output's size at the last report.
    last: u64,
}

impl Reports {
    fn new(every: bool) -> Reports {
        Reports {
            every,
            shown: false,
            last: 0,
        }
    }

    /// Prints what is due for `snap`: the running envelope the first time, a line after it;
    /// with `every`, nothing while the output has not grown.
    fn report(
        &mut self,
        snap: &running::Snapshot,
        opts: &WrapOptions,
        format: WrapFormat,
    ) -> Result<()> {
        if self.every && snap.total <= self.last {
            return Ok(());
        }
        self.last = snap.total;
        let text = if self.shown {
            live::progress_line(snap)
        } else {
            live::render(&live::running_envelope(snap, opts)?, live_format(format))
        };
        let mut out = output::stdout();
        output::write_all(&mut out, text.as_bytes())?;
        output::flush(&mut out)?;
        self.shown = true;
        Ok(())
    }
}

/// `spill wrap --report-after D` reading stdin (no CMD: Claude Code's in-shell route, where the
/// harness's shell runs the command and pipes its output here). The output is a running entry
/// from the start, fed as it arrives ([`live::Fed`]); if the input has not ended at D, the
/// running envelope is printed then (the harness shows it when it moves the call to the
/// background at its timeout) and the final envelope at the end; if it ends first, `wrap`
/// prints what `wrap` would (the output itself when it fits `--max-inline`). `Ok(None)` when
/// no running entry can be made: the caller reads stdin as `wrap` does.
pub fn report_stdin(
    opts: &WrapOptions,
    format: WrapFormat,
    config: &StoreConfig,
    after: Duration,
    every: Option<Duration>,
) -> Result<Option<Reported>> {
    use std::sync::{Arc, Condvar, Mutex};
    if opts.store_error.is_some() {
        return Ok(None);
    }
    // With --redact the observer sees only the stored (redacted) chunks, so the entry is made
    // at the first byte and every output is stored, as --detach-after's are.
    let stored_opts = WrapOptions {
        max_inline: if opts.redact { 0 } else { opts.max_inline },
        turn: None,
        ..opts.clone()
    };
    let fed = live::Fed::new(running::new_id(), opts, config, stored_opts.max_inline);
    let id = fed.id();
    let done = Arc::new((Mutex::new(false), Condvar::new()));
    // The reporter says whether it printed anything (then the end is always the envelope).
    let reporter = {
        let (done, fed) = (Arc::clone(&done), fed.clone());
        let (opts, config) = (opts.clone(), config.clone());
        std::thread::spawn(move || {
            let (lock, wake) = &*done;
            let ended = lock.lock().unwrap_or_else(|e| e.into_inner());
            let mut ended = wait_until(wake, ended, Instant::now() + after);
            if *ended || !fed.start() {
                return false;
            }
            // Still reading: the running envelope, printed under the lock, so the end (which
            // takes it to say so) comes after it; with --report-every, at each interval in
            // which the output grew (the envelope at the first, a line after it).
            let store = Store::new(config);
            let mut reports = Reports::new(every.is_some());
            loop {
                let Ok(Some(running::Opened::Live(snap))) = running::open(&store, &id) else {
                    break;
                };
                if reports.report(&snap, &opts, format).is_err() {
                    break;
                }
                drop(snap);
                let Some(every) = every else {
                    break;
                };
                ended = wait_until(wake, ended, Instant::now() + every);
                if *ended {
                    break;
                }
            }
            reports.shown
        })
    };
    let captured = {
        let mut observer = fed.observer();
        crate::wrap::capture_stdin_observed(&stored_opts, config, &mut observer).map(|(c, _)| c)
    };
    {
        let (lock, wake) = &*done;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_all();
    }
    let printed = reporter.join().unwrap_or(false);
    let captured = captured?;
    let restricted = config.restricted || config.is_remote();
    let fmt = live_format(format);
    if !fed.clone().seal(&captured, opts, fmt, restricted)? {
        // No entry was made (a small output that ended first, or a store that could not take
        // it): printed as `wrap` prints it, with its message about what it could not store.
        return Ok(Some(Reported::Plain(captured)));
    }
    if let crate::wrap::Capture::Inline(bytes) = &captured {
        // A small output still running at D: after its running envelope, itself (its ref
        // reads the same bytes).
        let mut out = output::stdout();
        match output::write_all(&mut out, bytes).and_then(|()| output::flush(&mut out)) {
            Ok(()) => {}
            Err(e) if e.is_broken_pipe() => {}
            Err(e) => return Err(e),
        }
        return Ok(Some(Reported::Done(Outcome::Found)));
    }
    let store = Store::new(config.clone());
    let record = match running::open(&store, &id)? {
        Some(running::Opened::Sealed(_, record)) | Some(running::Opened::Ended(record)) => record,
        _ => {
            return Err(Error::Store(format!(
                "{id} did not seal; its output so far stays readable"
            )));
        }
    };
    let pass_through = (!printed).then_some(opts.max_inline);
    print_end(&store, &record, pass_through, false).map(|o| Some(Reported::Done(o)))
}

/// How [`report_stdin`] ended.
pub enum Reported {
    /// It printed everything: exit so.
    Done(Outcome),
    /// No running entry was made: the caller prints the capture as `wrap` prints one.
    Plain(crate::wrap::Capture),
}

/// `wrap --format` as the running entries' renderer takes it.
fn live_format(format: WrapFormat) -> Format {
    match format {
        WrapFormat::Json => Format::Json,
        WrapFormat::Text => Format::Text,
    }
}

/// The byte `wrap` writes to its supervisor's stdin when it returns with the running envelope:
/// from then on CMD outlives `wrap`.
pub const HANDED_OVER: u8 = b'd';

/// The supervisor's command line: `wrap` with the options as given (the environment, which it
/// inherits, supplies the rest), `--supervise ID` instead of `--detach-after`, and CMD.
fn forwarded(global: &Global, args: &WrapArgs, id: &Ref) -> Vec<OsString> {
    let mut v: Vec<OsString> = vec!["wrap".into()];
    let mut push = |flag: &str, value: String| {
        v.push(flag.into());
        v.push(value.into());
    };
    if let Some(d) = &global.dir {
        push("--dir", d.to_string_lossy().into_owned());
    }
    if let Some(s) = &global.store {
        push("--store", s.clone());
    }
    if let Some(s) = &global.scope {
        push("--scope", s.clone());
    }
    if let Some(t) = global.ttl {
        push("--ttl", format!("{}s", t.as_secs().max(1)));
    }
    if let Some(q) = global.quota {
        push("--quota", q.to_string());
    }
    if let Some(m) = global.max_file {
        push("--max-file", m.to_string());
    }
    if let Some(m) = args.max_inline {
        push("--max-inline", m.to_string());
    }
    if let Some(f) = args.format {
        let word = match f {
            WrapFormat::Json => "json",
            WrapFormat::Text => "text",
        };
        push("--format", word.to_string());
    }
    push("--preview", args.preview.to_string());
    if let Some(n) = args.head_lines {
        push("--head-lines", n.to_string());
    }
    if let Some(n) = args.tail_lines {
        push("--tail-lines", n.to_string());
    }
    if let Some(l) = &args.label {
        push("--label", l.clone());
    }
    if let Some(t) = args.timeout {
        push("--timeout", format!("{}s", t.as_secs().max(1)));
    }
    push("--supervise", id.to_string());
    if args.redact {
        v.push("--redact".into());
    }
    if args.skip_invalid {
        v.push("--skip-invalid".into());
    }
    v.push("--".into());
    v.extend(args.command.iter().cloned());
    v
}

/// `spill wrap --supervise ID -- CMD`: the supervisor (its stdio is `/dev/null`).
pub fn supervise(
    args: &WrapArgs,
    opts: &WrapOptions,
    format: WrapFormat,
    config: &StoreConfig,
    id: &str,
) -> Result<Outcome> {
    let id = Ref::parse(id)
        .ok_or_else(|| Error::Usage(format!("--supervise: {:?} is not a ref", diag::escape(id))))?;
    let command = CommandSpec {
        argv: args.command.clone(),
        timeout: args.timeout,
    };
    let line = args
        .command
        .iter()
        .map(|a| crate::wrap::shell_quote(&a.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ");
    let format = live_format(format);
    let restricted = config.restricted || config.is_remote();
    watch_the_front();
    live::supervise(id, &command, line, opts, config, format, restricted)?;
    Ok(Outcome::Found)
}

/// Until `wrap` hands CMD over (one byte on stdin, [`HANDED_OVER`]), CMD lives only as long as
/// `wrap`: when stdin closes without it (`wrap` killed or interrupted before the deadline), the
/// supervisor sends itself SIGTERM, which its handler forwards to CMD's group as `spill stop`
/// does; a CMD still running 5 s later is killed with the supervisor (its guardian kills the
/// group). A supervisor started without a pipe (stdin not a pipe) is never stopped this way.
fn watch_the_front() {
    use std::os::fd::FromRawFd;
    use std::os::unix::fs::FileTypeExt;
    let is_pipe = std::fs::metadata("/proc/self/fd/0").is_ok_and(|m| m.file_type().is_fifo());
    if !is_pipe {
        return;
    }
    // The pipe moves to a descriptor CMD does not inherit; CMD's stdin is /dev/null, as it was
    // before the pipe (so it can neither read the byte nor wait on it).
    // SAFETY: F_DUPFD_CLOEXEC of descriptor 0, which is open (it is the pipe).
    let fd = unsafe { libc::fcntl(0, libc::F_DUPFD_CLOEXEC, 3) };
    let Ok(null) = std::fs::File::open("/dev/null") else {
        return;
    };
    use std::os::fd::AsRawFd;
    // SAFETY: dup2 onto descriptor 0 of a file we hold open.
    if fd < 0 || unsafe { libc::dup2(null.as_raw_fd(), 0) } < 0 {
        return;
    }
    // SAFETY: `fd` was just made by fcntl and nothing else owns it.
    let mut pipe = unsafe { std::fs::File::from_raw_fd(fd) };
    std::thread::spawn(move || {
        let mut byte = [0u8; 1];
        let handed = matches!(pipe.read(&mut byte), Ok(1) if byte[0] == HANDED_OVER);
        if handed {
            return;
        }
        // SAFETY: signalling this process; its handler (installed by the runner) forwards it.
        unsafe { libc::kill(libc::getpid(), libc::SIGTERM) };
        std::thread::sleep(Duration::from_secs(5));
        // SAFETY: as above; the kernel then releases the lock and the guardian ends the group.
        unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
    });
}

/// The final envelope as the supervisor rendered it, for a restricted reader: a JSON envelope
/// loses its `path` (restricted mode names no path, and the supervisor rendered it for the
/// command line that started it, which may not have been restricted); text names none.
fn without_path(rendered: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(rendered) {
        Ok(serde_json::Value::Object(mut envelope)) if envelope.contains_key("path") => {
            envelope.shift_remove("path");
            let mut line = serde_json::Value::Object(envelope).to_string();
            line.push('\n');
            line
        }
        _ => rendered.to_string(),
    }
}

/// Prints how a running entry ended, as `wrap -- CMD` would have: the output itself when it
/// fits `pass_through` (`wrap`'s `--max-inline`; `None` for `spill wait`, which prints the
/// final envelope of an output that was one) or when it ended without an envelope (it fitted
/// the `--max-inline` of the `wrap` that ran it), else the final envelope; then exits with the
/// command's status.
/// With `by_signal` (`wrap`), a CMD killed by a signal ends the caller by it too.
pub fn print_end(
    store: &Store,
    record: &Record,
    pass_through: Option<u64>,
    by_signal: bool,
) -> Result<Outcome> {
    let code = record.code.unwrap_or(2).clamp(0, 255) as u8;
    // `wrap` ends by the signal that killed CMD, as `wrap -- CMD` does; `spill wait` exits 128+N.
    let ended = match record.signal {
        Some(n) if by_signal && (1..128).contains(&n) => Outcome::Signal(n as u8),
        _ => Outcome::Status(code),
    };
    if record.state == State::NotStarted {
        let why = record.error.as_deref().unwrap_or("it could not be started");
        diag::error(&Error::Usage(format!("{}: {why}", record.command)));
        return Ok(Outcome::Status(code));
    }
    let mut out = output::stdout();
    let small = pass_through.and_then(|limit| {
        let r = record.sealed_ref()?;
        let meta = store.meta(&r)?;
        (meta.size_bytes <= limit && meta.stored_bytes == meta.size_bytes).then_some(r)
    });
    let printed = match (small, &record.output) {
        (Some(r), _) => output::write_all(&mut out, &live::read_payload(store, &r)?),
        (None, Some(text)) if store.config().restricted => {
            output::write_all(&mut out, without_path(text).as_bytes())
        }
        (None, Some(text)) => output::write_all(&mut out, text.as_bytes()),
        (None, None) => match live::inline_output(store, record)? {
            Some(bytes) => output::write_all(&mut out, &bytes),
            None => Ok(()),
        },
    };
    match printed.and_then(|()| output::flush(&mut out)) {
        Ok(()) => {}
        Err(e) if e.is_broken_pipe() => {}
        Err(e) => diag::error(&e),
    }
    if let Some(reason) = &record.error {
        diag::warning(&format!(
            "the output was not stored ({reason}); printed a preview only"
        ));
    }
    Ok(ended)
}
