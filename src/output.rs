//! Standard output: one buffered writer per command, flushed explicitly so that stderr notices
//! follow the data they describe. Pass-through and JSON bytes are written as they are; only
//! human text may go through anstream for colour.
//!
//! The pager: a reading command whose output goes to a terminal writes through a pager, as git
//! and bat do ([`start_pager`], `--paging auto|always|never`, `SPILL_PAGER`, then `PAGER`, by
//! default `less -FRX`). While it runs, stderr messages (footers, notices, errors) are held back
//! by `diag` and written when it has exited ([`end_pager`]), so they reach the terminal after
//! the pager's screen instead of being painted over or lost.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::error::{Error, Result};

/// Where stdout's bytes go: the process's stdout, or the pager's stdin.
pub enum Sink {
    /// The process's own stdout, locked for the command's lifetime.
    Direct(io::StdoutLock<'static>),
    /// A descriptor of the running pager's stdin.
    Pager(File),
}

/// The bytes every [`Sink`] of this process has written: what a reading command answered with,
/// for its scope's tally (`spill stats`).
static WRITTEN: AtomicU64 = AtomicU64::new(0);

/// ... and those `diag` has written to stderr (footers, notes, warnings).
static WRITTEN_ERR: AtomicU64 = AtomicU64::new(0);

/// The bytes this process has written to stdout (or the pager) so far.
pub fn written() -> u64 {
    WRITTEN.load(Ordering::Relaxed)
}

/// The bytes this process has written to stderr through `diag` so far.
pub fn written_stderr() -> u64 {
    WRITTEN_ERR.load(Ordering::Relaxed)
}

/// Counts bytes `diag` wrote to stderr.
pub fn count_stderr(n: usize) {
    WRITTEN_ERR.fetch_add(n as u64, Ordering::Relaxed);
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = match self {
            Sink::Direct(out) => out.write(buf),
            Sink::Pager(pipe) => pipe.write(buf),
        }?;
        WRITTEN.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Direct(out) => out.write_all(buf),
            Sink::Pager(pipe) => pipe.write_all(buf),
        }?;
        WRITTEN.fetch_add(buf.len() as u64, Ordering::Relaxed);
        Ok(())
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Direct(out) => out.flush(),
            Sink::Pager(pipe) => pipe.flush(),
        }
    }
}

/// The buffered stdout of one command.
pub type Stdout = BufWriter<Sink>;

/// The running pager and the write end of its stdin (the command's writers use duplicates).
struct Pager {
    child: Child,
    stdin: Option<File>,
}

static PAGER: Mutex<Option<Pager>> = Mutex::new(None);
/// True while a pager runs: `diag` holds stderr messages back until [`end_pager`].
static PAGING: AtomicBool = AtomicBool::new(false);
/// True when the pager's screen is a terminal (stdout was one when it started).
static PAGING_TERMINAL: AtomicBool = AtomicBool::new(false);

/// Buffers stdout (64 KiB): the pager's stdin while one runs, else the process's stdout.
pub fn stdout() -> Stdout {
    let pipe = PAGER
        .lock()
        .ok()
        .and_then(|p| p.as_ref().and_then(|p| p.stdin.as_ref()?.try_clone().ok()));
    let sink = match pipe {
        Some(pipe) => Sink::Pager(pipe),
        None => Sink::Direct(io::stdout().lock()),
    };
    BufWriter::with_capacity(64 * 1024, sink)
}

/// True when stdout is a terminal (escaping and colour decisions) — or a pager showing on one.
pub fn stdout_is_terminal() -> bool {
    PAGING_TERMINAL.load(Ordering::Relaxed) || io::stdout().is_terminal()
}

/// Whether the data on stdout is coloured: `always`, never with `never`; with `auto` when stdout
/// is a colour terminal (or a pager on one), `NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE` and
/// `TERM=dumb` honoured as anstream honours them.
pub fn colour_stdout(when: crate::cli::ColorWhen) -> bool {
    use crate::cli::ColorWhen;
    // `--color` was passed to anstream as the process's choice (`diag::set_color`).
    let when = match (when, anstream::ColorChoice::global()) {
        (ColorWhen::Auto, anstream::ColorChoice::Always | anstream::ColorChoice::AlwaysAnsi) => {
            ColorWhen::Always
        }
        (ColorWhen::Auto, anstream::ColorChoice::Never) => ColorWhen::Never,
        (when, _) => when,
    };
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto if PAGING_TERMINAL.load(Ordering::Relaxed) => {
            let set = |name| std::env::var_os(name).is_some_and(|v| !v.is_empty());
            let off = set("NO_COLOR")
                || std::env::var_os("CLICOLOR").is_some_and(|v| v == "0")
                || std::env::var_os("TERM").is_some_and(|v| v == "dumb");
            set("CLICOLOR_FORCE") || !off
        }
        ColorWhen::Auto => {
            anstream::AutoStream::choice(&io::stdout()) != anstream::ColorChoice::Never
        }
    }
}

/// The JSON colours: `SPILL_COLORS` (in `JQ_COLORS`' format) over jq's defaults; an invalid
/// value is a warning, and the defaults are used.
pub fn palette() -> crate::paint::Palette {
    match std::env::var("SPILL_COLORS") {
        Ok(spec) if !spec.is_empty() => crate::paint::Palette::parse(&spec).unwrap_or_else(|why| {
            crate::diag::warning(&format!("SPILL_COLORS: {why}; using the default colours"));
            crate::paint::Palette::default()
        }),
        _ => crate::paint::Palette::default(),
    }
}

/// Writes JSON text to `out`, in colour when stdout is coloured (see [`colour_stdout`]):
/// `write` is given the writer to write the JSON to.
pub fn json<R>(out: &mut Stdout, write: impl FnOnce(&mut dyn Write) -> Result<R>) -> Result<R> {
    if !colour_stdout(crate::cli::ColorWhen::Auto) {
        return write(out);
    }
    let mut painter = crate::paint::Painter::new(&mut *out, palette());
    let result = write(&mut painter);
    painter
        .finish()
        .map_err(|e| Error::stream("write to stdout", e))?;
    result
}

/// True while a pager runs (diag holds stderr back).
pub fn paging() -> bool {
    PAGING.load(Ordering::Relaxed)
}

/// When the reading commands page their output (`--paging`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paging {
    /// When stdout is a terminal.
    Auto,
    /// Whenever a pager is configured, even into a pipe.
    Always,
    /// Never.
    Never,
}

/// The pager command line: `SPILL_PAGER`, then `PAGER`, else `less -FRX`. Empty, or `cat`,
/// means none.
pub fn pager_command() -> Option<String> {
    let chosen = ["SPILL_PAGER", "PAGER"]
        .iter()
        .find_map(|name| std::env::var(name).ok())
        .unwrap_or_else(|| DEFAULT_PAGER.to_string());
    let chosen = chosen.trim();
    (!chosen.is_empty() && chosen != "cat").then(|| chosen.to_string())
}

/// The pager when neither `SPILL_PAGER` nor `PAGER` names one: `-F` quits at once when the
/// output fits one screen, `-R` shows colours, `-X` leaves the text on the screen.
pub const DEFAULT_PAGER: &str = "less -FRX";

/// Starts the pager for this command's stdout when `paging` asks for one (never in restricted
/// mode: a pager can open files and run commands). A pager that cannot be started leaves
/// stdout as it was, as git does.
pub fn start_pager(paging: Paging, restricted: bool) {
    let terminal = io::stdout().is_terminal();
    let wanted = match paging {
        Paging::Never => false,
        Paging::Auto => terminal,
        Paging::Always => true,
    };
    if !wanted || restricted {
        return;
    }
    let Some(line) = pager_command() else {
        return;
    };
    let mut command = Command::new("sh");
    command.arg("-c").arg(&line).stdin(Stdio::piped());
    pager_env(&mut command);
    let Ok(mut child) = command.spawn() else {
        return;
    };
    let stdin = child
        .stdin
        .take()
        .map(|pipe| File::from(std::os::fd::OwnedFd::from(pipe)));
    if let Ok(mut slot) = PAGER.lock() {
        *slot = Some(Pager { child, stdin });
        PAGING.store(true, Ordering::Relaxed);
        PAGING_TERMINAL.store(terminal, Ordering::Relaxed);
    }
}

/// As git does: less gets `-FRX` and lv `-c` unless the user set their own (`LESS`, `LV`).
pub fn pager_env(command: &mut Command) {
    if std::env::var_os("LESS").is_none() {
        command.env("LESS", "FRX");
    }
    if std::env::var_os("LV").is_none() {
        command.env("LV", "-c");
    }
}

/// Closes the pager's stdin, waits for the pager to exit (the user quits it), then writes the
/// stderr messages held back meanwhile. Does nothing when no pager runs.
pub fn end_pager() {
    let pager = PAGER.lock().ok().and_then(|mut slot| slot.take());
    if let Some(mut pager) = pager {
        drop(pager.stdin.take());
        let _ = pager.child.wait();
    }
    PAGING.store(false, Ordering::Relaxed);
    crate::diag::release_held();
}

/// Writes all bytes, mapping failures (a closed pipe included) to [`Error`].
pub fn write_all(out: &mut impl Write, bytes: &[u8]) -> Result<()> {
    out.write_all(bytes)
        .map_err(|e| Error::stream("write to stdout", e))
}

/// Flushes, mapping failures to [`Error`].
pub fn flush(out: &mut impl Write) -> Result<()> {
    out.flush().map_err(|e| Error::stream("write to stdout", e))
}
