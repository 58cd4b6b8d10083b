//! Live output (`wrap --detach-after`): a command that is still running is a ref that can be
//! read, waited on and stopped.
//!
//! One supervisor design for every surface. `wrap --detach-after D -- CMD` starts a
//! supervisor: the `spill` binary itself, re-executed in a new session (`setsid`, so a harness
//! that kills `wrap`'s process group on its own tool timeout does not reach it) with its stdio
//! on `/dev/null` (so nobody waiting for `wrap`'s stdout to close waits for it). The supervisor
//! runs CMD exactly as `wrap -- CMD` does ([`run_command_observed`]: one pipe, CMD's own process
//! group, the guardian that kills that group when the supervisor dies however it dies) and
//! hands every stored chunk to a [`Writer`], which keeps the running entry's bytes so far in
//! the store (`store::running`). `wrap` itself only polls the entry's record: it returns what
//! `wrap -- CMD` would have printed when CMD ends within D, else the running envelope
//! ([`running_envelope`]). `spill wait` polls the same record; `spill stop` signals the
//! supervisor, which forwards the signal to CMD's group as `wrap` always does.
//!
//! The supervisor always stores the output (also a small one), since the ref printed while it
//! ran must keep working; it passes the bytes through only when CMD ends before D and the
//! output fits `--max-inline`, as `wrap` would.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::store::running::{self, End, Liveness, Opened, Record, Snapshot, State, Writer};
use crate::store::{Meta, Ref, Store, StoreConfig};
use crate::text::analyze::TextAnalyzer;
use crate::wire::envelope::Envelope;

use super::capture::Stored;
use super::child::{CommandSpec, Ran, run_command_observed};
use super::{Capture, Spilled, WrapOptions};

/// How often a waiting reader looks at the record again.
const POLL: Duration = Duration::from_millis(20);

/// What the supervisor renders at the end: the envelope as JSON or as text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `--format json`.
    Json,
    /// `--format text`.
    Text,
}

/// The supervisor's whole job: runs `command` with its output kept in the running entry `id`,
/// then seals the entry. `opts` are `wrap`'s own (its `--max-inline` bounds the final envelope;
/// the output itself is always stored). Returns once the entry is sealed.
pub fn supervise(
    id: Ref,
    command: &CommandSpec,
    command_line: String,
    opts: &WrapOptions,
    config: &StoreConfig,
    format: Format,
    restricted: bool,
) -> Result<()> {
    let store = Store::new(config.clone());
    let cap = super::policy::file_cap(config);
    let writer = Writer::create(&store, id, cap, command_line, opts.label.clone())?;
    let writer = Arc::new(Mutex::new(Some(writer)));
    let beat = Arc::clone(&writer);
    // Temporary files untouched for an hour count as abandoned; a quiet command keeps its own.
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_secs(600));
            match beat.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
                Some(w) => w.touch(),
                None => return,
            }
        }
    });
    let started = Instant::now();
    let stored_opts = WrapOptions {
        max_inline: 0,
        turn: None,
        ..opts.clone()
    };
    // A live view that cannot grow (a full disk) stops growing; the capture goes on and its
    // own publish reports the failure.
    let mut broken = false;
    let mut observer = |chunk: &[u8]| {
        if broken {
            return;
        }
        let mut guard = writer.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(w) = guard.as_mut()
            && w.append(chunk).is_err()
        {
            broken = true;
        }
    };
    let ran = run_command_observed(command, &stored_opts, config, &mut observer);
    let duration_ms = started.elapsed().as_millis() as u64;
    let mut end = End {
        state: State::Exited,
        duration_ms,
        ..End::default()
    };
    match ran {
        Err(e) => end.error = Some(e.to_string()),
        Ok(Ran::NotStarted(why)) => {
            end.state = State::NotStarted;
            end.code = Some(i32::from(why.status));
            end.error = Some(why.to_string());
        }
        Ok(Ran::Exited(exited)) => {
            let code = exited.code();
            end.code = Some(code);
            use std::os::unix::process::ExitStatusExt;
            end.signal = exited
                .status
                .signal()
                .filter(|n| !exited.timed_out && (1..128).contains(n));
            // Only an empty output is not spilled with --max-inline 0: stored all the same, so
            // the ref keeps working.
            end_with(
                &mut end,
                &exited.capture,
                &store,
                opts,
                Some(code),
                format,
                restricted,
            );
        }
    }
    let writer = writer
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .expect("the writer is kept until it seals");
    writer.seal(end)
}

/// A running entry fed by the caller instead of a supervised command: `wrap --report-after`
/// reading stdin (Claude Code's in-shell route, where the harness's own shell runs the command
/// and only its output reaches `wrap`). The caller hands every byte to the [`Fed::observer`] as
/// it is read; the entry itself is made only when it is needed — when the output outgrows
/// `--max-inline`, or when the caller asks for it at its deadline ([`Fed::start`]) to print a
/// running envelope — so a small output that ends first is passed through as `wrap` passes it,
/// with nothing stored. [`Fed::seal`] ends an entry that was made.
#[derive(Clone)]
pub struct Fed {
    inner: Arc<Mutex<FedState>>,
    id: Ref,
    started: Instant,
    config: StoreConfig,
    label: Option<String>,
    threshold: u64,
}

#[derive(Default)]
struct FedState {
    writer: Option<Writer>,
    /// The bytes read before the entry was made.
    pending: Vec<u8>,
    /// The entry could not be made, or stopped growing (a full disk): bytes are no longer kept.
    broken: bool,
}

impl Fed {
    /// A running entry `id` for an output read from stdin, made once needed; `threshold` is
    /// `--max-inline` (0 makes it at the first byte).
    pub fn new(id: Ref, opts: &WrapOptions, config: &StoreConfig, threshold: u64) -> Fed {
        Fed {
            inner: Arc::new(Mutex::new(FedState::default())),
            id,
            started: Instant::now(),
            config: config.clone(),
            label: opts.label.clone(),
            threshold,
        }
    }

    /// The entry's id.
    pub fn id(&self) -> Ref {
        self.id
    }

    fn state(&self) -> std::sync::MutexGuard<'_, FedState> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes the entry now if it is not made yet, with the bytes read so far; true when it
    /// exists.
    fn make(&self, state: &mut FedState) -> bool {
        if state.writer.is_some() {
            return true;
        }
        if state.broken {
            return false;
        }
        let store = Store::new(self.config.clone());
        let cap = super::policy::file_cap(&self.config);
        match Writer::create(&store, self.id, cap, "(stdin)".into(), self.label.clone()) {
            Ok(mut w) => {
                let pending = std::mem::take(&mut state.pending);
                state.broken = w.append(&pending).is_err();
                state.writer = Some(w);
                true
            }
            Err(_) => {
                state.broken = true;
                state.pending = Vec::new();
                false
            }
        }
    }

    /// Makes the entry (at the caller's deadline, to print its running envelope); true when it
    /// exists.
    pub fn start(&self) -> bool {
        let mut state = self.state();
        self.make(&mut state)
    }

    /// True once the entry is made.
    pub fn exists(&self) -> bool {
        self.state().writer.is_some()
    }

    /// The observer for [`capture_stdin_observed`](super::capture_stdin_observed).
    pub fn observer(&self) -> impl FnMut(&[u8]) + '_ {
        move |chunk: &[u8]| {
            let mut state = self.state();
            if state.broken {
                return;
            }
            if let Some(w) = state.writer.as_mut() {
                if w.append(chunk).is_err() {
                    state.broken = true;
                }
                return;
            }
            state.pending.extend_from_slice(chunk);
            if state.pending.len() as u64 > self.threshold {
                self.make(&mut state);
            }
        }
    }

    /// Seals a made entry with what the capture found (`wrap`'s `opts`), exit status 0, as
    /// `supervise` seals a command's; `Ok(false)` when none was made (nothing to seal).
    pub fn seal(
        self,
        captured: &Capture,
        opts: &WrapOptions,
        format: Format,
        restricted: bool,
    ) -> Result<bool> {
        let Some(writer) = self.state().writer.take() else {
            return Ok(false);
        };
        let store = Store::new(self.config.clone());
        let mut end = End {
            state: State::Exited,
            code: Some(0),
            duration_ms: self.started.elapsed().as_millis() as u64,
            ..End::default()
        };
        end_with(&mut end, captured, &store, opts, None, format, restricted);
        writer.seal(end)?;
        Ok(true)
    }
}

/// What a capture adds to a running entry's end: a spilled output's envelope (rendered in
/// `format`, with `code`) and its payload, or a small one stored as an ordinary payload, so the
/// running ref keeps working; a store failure as the reason.
fn end_with(
    end: &mut End,
    captured: &Capture,
    store: &Store,
    opts: &WrapOptions,
    code: Option<i32>,
    format: Format,
    restricted: bool,
) {
    match captured {
        Capture::Spilled(s) => {
            end.interrupted = s.interrupted;
            let restricted = restricted || store.config().is_remote();
            end.output = Some(render(&super::envelope(s, opts, code, restricted), format));
            match &s.stored {
                Ok(st) => end.sealed = Some(st.reference),
                Err(reason) => end.error = Some(reason.clone()),
            }
        }
        Capture::Inline(bytes) => match store_small(store, bytes, opts) {
            Ok(r) => end.sealed = Some(r),
            Err(e) => end.error = Some(e.to_string()),
        },
    }
}

/// An envelope as `wrap` prints it in `format`: JSON on one line, or the text form.
pub fn render(env: &Envelope, format: Format) -> String {
    match format {
        Format::Json => env.to_json() + "\n",
        Format::Text => super::render_text(env),
    }
}

/// Publishes a small output (the empty one) as an ordinary payload.
pub(crate) fn store_small(store: &Store, bytes: &[u8], opts: &WrapOptions) -> Result<Ref> {
    store.prepare()?;
    let mut temp = store.create_temp()?;
    temp.write_all(bytes)?;
    let finished = temp.finish()?;
    let mut meta = Meta {
        size_bytes: bytes.len() as u64,
        stored_bytes: bytes.len() as u64,
        mime_type: "text/plain".into(),
        lines: memchr::memchr_iter(b'\n', bytes).count() as u64
            + u64::from(!bytes.is_empty() && !bytes.ends_with(b"\n")),
        summary: match bytes.len() {
            0 => "empty output".into(),
            n => format!("text, {n} bytes"),
        },
        label: opts.label.clone().filter(|l| !l.is_empty()),
        created: crate::store::meta::now_secs(),
        ..Meta::default()
    };
    Ok(store.publish(finished, &mut meta)?.reference)
}

/// The output of an ended entry that `wrap` would have printed itself: one at most `--max-inline`
/// (its record holds no envelope, only the sealed ref), read back whole. `None` when the record
/// holds an envelope, or nothing was sealed (the store refused it: the record's error says why).
/// `spill wait` and the MCP `wait` answer with it, so a short command that ended reads as what
/// it printed, never as an empty answer.
pub fn inline_output(store: &Store, record: &Record) -> Result<Option<Vec<u8>>> {
    if record.output.is_some() {
        return Ok(None);
    }
    record
        .sealed_ref()
        .map(|r| read_payload(store, &r))
        .transpose()
}

/// A stored payload read whole (an ended entry's output small enough to print).
pub fn read_payload(store: &Store, r: &Ref) -> Result<Vec<u8>> {
    let (mut file, path) = store.open(r)?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut file, &mut bytes).map_err(|e| Error::io("read", &path, e))?;
    Ok(bytes)
}

/// What waiting on a running entry found.
#[derive(Debug)]
pub enum Waited {
    /// It ended: its final record.
    Ended(Box<Record>),
    /// Still running (or interrupted) when the time was up: its bytes so far.
    Live(Box<Snapshot>),
}

/// Waits until the running entry `id` ends or `until` passes (`None`: no limit), whichever is
/// first, looking at its record every 20 ms (sooner at first). An interrupted entry returns at once (it will
/// never end). A record that does not exist yet is waited for while `starting()` says its
/// supervisor is still starting (`wrap` asks whether its child is alive); else it is an error.
pub fn wait(
    store: &Store,
    id: &Ref,
    until: Option<Instant>,
    starting: &mut dyn FnMut() -> bool,
) -> Result<Waited> {
    wait_with(store, id, until, starting, &mut std::thread::sleep)
}

/// [`wait`], pausing between looks with `pause` (at most the time it is given): `wrap`'s front
/// returns from it as soon as its supervisor exits, which it does right after the final record.
pub fn wait_with(
    store: &Store,
    id: &Ref,
    until: Option<Instant>,
    starting: &mut dyn FnMut() -> bool,
    pause_for: &mut dyn FnMut(Duration),
) -> Result<Waited> {
    // From 1 ms up to POLL: a command that ends at once costs `wrap` no 20 ms wait.
    let mut pause = Duration::from_millis(1);
    loop {
        match running::open(store, id)? {
            Some(Opened::Sealed(_, record)) | Some(Opened::Ended(record)) => {
                return Ok(Waited::Ended(Box::new(record)));
            }
            Some(Opened::Live(snap)) => {
                let over = until.is_some_and(|u| Instant::now() >= u);
                if over || snap.liveness == Liveness::Interrupted {
                    return Ok(Waited::Live(snap));
                }
            }
            // Not there (yet): only worth waiting for while its supervisor is starting, and
            // never past the deadline.
            None if starting() && until.is_none_or(|u| Instant::now() < u) => {}
            None => {
                return Err(Error::Store(format!(
                    "{id} is not a running entry in this scope (spill ls lists what is stored)"
                )));
            }
        }
        pause_for(pause);
        pause = (pause * 2).min(POLL);
    }
}

/// The line `wrap --report-every` prints while a command runs on, after its running envelope:
/// `[spill: sp_… still running: 1,234 lines, 56.7 KiB so far; what is new: spill cat sp_…
/// --since 58061]`.
pub fn progress_line(snap: &Snapshot) -> String {
    format!(
        "[spill: {id} still running: {} lines, {} so far; what is new: spill cat {id} --since {}]\n",
        crate::limits::group_digits(snap.lines),
        crate::limits::human_size(snap.total),
        snap.total,
        id = snap.id,
    )
}

/// The envelope of a running entry: the preview and signals of its bytes so far, as for a
/// finished output, with `running`, the cursor, and the commands that read on, wait and stop.
pub fn running_envelope(snap: &Snapshot, opts: &WrapOptions) -> Result<Envelope> {
    // SAFETY: the snapshot is a private copy or the head, which is only ever appended to and
    // unlinked (never truncated) while this map lives; only its first `len` bytes are read.
    let map = unsafe { memmap2::Mmap::map(&snap.file) }
        .map_err(|e| Error::stream("read the running output", e))?;
    let bytes = &map[..(snap.len() as usize).min(map.len())];
    let keep = (opts.preview as usize)
        .saturating_mul(4)
        .clamp(256 << 10, 16 << 20);
    let mut analyzer = TextAnalyzer::new(keep).json_fields(crate::json::analyze::severity_fields);
    analyzer.feed(bytes);
    let facts = analyzer.finish();
    let spilled = Spilled {
        facts,
        stored: Ok(Stored {
            reference: snap.id,
            path: snap.path.clone(),
            stored_bytes: snap.len(),
            complete: snap.dropped == 0,
            dropped_bytes: snap.dropped,
            repaired: Vec::new(),
            earlier: None,
        }),
        interrupted: snap.liveness == Liveness::Interrupted,
        redacted: None,
        json: None,
        invalid_json: None,
        passed_through: None,
    };
    let cap = opts.max_inline.max(crate::limits::ENVELOPE_FLOOR) as usize;
    let mut preview = opts.preview;
    loop {
        let sized = WrapOptions {
            preview,
            ..opts.clone()
        };
        let mut env = super::envelope(&spilled, &sized, None, true);
        let id = snap.id;
        env.size_bytes = snap.total;
        env.lines = snap.lines;
        if snap.dropped > 0 {
            env.stored_bytes = Some(snap.len());
        }
        env.commands = match snap.liveness {
            Liveness::Running => vec![
                format!("spill cat {id} --since {}", snap.total),
                format!("spill wait {id}"),
                format!("spill stop {id}"),
            ],
            Liveness::Interrupted => vec![format!("spill cat {id}")],
        };
        let g = crate::limits::group_digits;
        env.hint = Some(match snap.liveness {
            Liveness::Running => format!(
                "Still running as {id} ({} bytes, {} lines so far). New output: {}. Wait for the \
                 end: {}. Stop it: {}.",
                g(snap.total),
                g(snap.lines),
                env.commands[0],
                env.commands[1],
                env.commands[2]
            ),
            Liveness::Interrupted => format!(
                "Interrupted: the supervisor of {id} died before the command ended; the bytes so \
                 far stay readable: {}.",
                env.commands[0]
            ),
        });
        env.running = Some(snap.liveness == Liveness::Running);
        env.cursor = Some(snap.total);
        if env.to_json().len() <= cap || preview == 0 {
            return Ok(env);
        }
        preview = preview * 3 / 4;
    }
}

/// How `spill stop` ended a running entry.
#[derive(Debug)]
pub enum Stopped {
    /// It had already ended (or never started): its record.
    AlreadyEnded(Box<Record>),
    /// It ended after the signal: its final record.
    Ended(Box<Record>),
    /// Its supervisor was killed (CMD ignored SIGTERM for the grace period, or the supervisor
    /// was already dead): the entry is interrupted, its bytes so far readable.
    Killed,
}

impl Stopped {
    /// What `spill stop` says (as a note) and MCP's `stop` answers.
    pub fn sentence(&self, id: &Ref) -> String {
        let code = |record: &Record, before: &str, after: &str| {
            record
                .code
                .map(|c| format!("{before}{c}{after}"))
                .unwrap_or_default()
        };
        match self {
            Stopped::AlreadyEnded(record) => format!(
                "{id} had already ended{}; `spill wait {id}` prints its envelope",
                code(record, " with status ", "")
            ),
            Stopped::Ended(record) => format!(
                "stopped {id}{}; its output is stored: `spill wait {id}` prints its envelope",
                code(record, " (status ", ")")
            ),
            Stopped::Killed => format!(
                "killed {id} (it did not end within --grace, or its supervisor was gone); its output so far stays readable, marked interrupted: spill cat {id}"
            ),
        }
    }
}

/// Ends a running entry: SIGTERM to its supervisor, which forwards it to CMD's process group
/// and seals the output; after `grace` without an end, SIGKILL to the supervisor, whose guardian
/// then kills CMD's group with SIGKILL.
pub fn stop(store: &Store, id: &Ref, grace: Duration) -> Result<Stopped> {
    let snap = match running::open(store, id)? {
        Some(Opened::Live(snap)) => snap,
        Some(Opened::Sealed(_, record)) | Some(Opened::Ended(record)) => {
            return Ok(Stopped::AlreadyEnded(Box::new(record)));
        }
        None => {
            return Err(Error::Store(format!(
                "{id} is not a running entry in this scope (spill ls lists what is stored)"
            )));
        }
    };
    if snap.liveness == Liveness::Interrupted {
        return Ok(Stopped::Killed);
    }
    let pid = snap.record.pid as libc::pid_t;
    drop(snap);
    // The supervisor holds the head's lock until it exits, and the lock was held just now, so
    // `pid` is still the supervisor.
    // SAFETY: kill with a valid signal number.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let deadline = Instant::now() + grace;
    match wait(store, id, Some(deadline), &mut || false)? {
        Waited::Ended(record) => Ok(Stopped::Ended(record)),
        Waited::Live(snap) => {
            if snap.liveness == Liveness::Running {
                // SAFETY: as above.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                // The kernel releases the lock once the process is gone.
                let _ = wait(store, id, Some(Instant::now() + grace), &mut || false)?;
            }
            Ok(Stopped::Killed)
        }
    }
}
