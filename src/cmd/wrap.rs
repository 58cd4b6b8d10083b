//! `spill wrap`: options, the `-- CMD` runner (one ordered stream of stdout and stderr, signals
//! forwarded to its process group, `--timeout`), and printing pass-through bytes or the envelope.

use std::fs::File;
use std::io::{IsTerminal, Read};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::cli::{Global, WrapArgs, WrapFormat};
use crate::error::{Error, Result};
use crate::text::redact::Redactor;
use crate::wrap::{self, Capture, WrapOptions};
use crate::{diag, limits, output};

use super::{Outcome, env_parsed};

/// The last terminating signal received (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// The process group of the running CMD (0: none), for forwarding signals.
static CHILD_GROUP: AtomicI32 = AtomicI32::new(0);

/// The write end of the self-pipe that wakes [`Interruptible`] (-1: none).
static WAKE: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_signal(sig: libc::c_int) {
    SIGNAL.store(sig, Ordering::SeqCst);
    let wake = WAKE.load(Ordering::SeqCst);
    if wake >= 0 {
        // SAFETY: write is async-signal-safe; the descriptor is non-blocking, and a full pipe
        // (EAGAIN) already holds a wake-up.
        unsafe { libc::write(wake, b"!".as_ptr().cast(), 1) };
    }
    let group = CHILD_GROUP.load(Ordering::SeqCst);
    if group > 0 {
        // SAFETY: kill is async-signal-safe; a stale group id only makes it fail with ESRCH.
        unsafe { libc::kill(-group, sig) };
    }
}

/// Catches SIGINT, SIGTERM and SIGHUP without SA_RESTART, so a blocked read returns EINTR and
/// wrap can store what it has read.
fn install_signal_handlers() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a zeroed sigaction with a valid handler and empty mask is a valid argument;
        // the handler only touches atomics and calls kill.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }
}

/// Standard input read through `poll` on it and on a self-pipe the signal handler writes to.
///
/// Without it a signal arriving between wrap's check of [`SIGNAL`] and its next `read` would
/// not interrupt that read, and a producer that then stays silent would keep wrap waiting.
/// With it, the read that follows such a signal finds the self-pipe readable and returns
/// `Interrupted` at once, and wrap stores what it has read.
struct Interruptible {
    /// The descriptor read (0 for stdin).
    fd: libc::c_int,
    /// The self-pipe's read end.
    wake: OwnedFd,
}

impl Interruptible {
    /// Reads `fd`, woken by writes to the returned self-pipe write end (owned by the caller:
    /// the signal handler keeps it for the life of the process). `None` when no pipe can be
    /// made.
    fn new(fd: libc::c_int) -> Option<(Interruptible, libc::c_int)> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe2 writes two descriptors into `fds` on success.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
            return None;
        }
        // SAFETY: fds[0] was just created and is owned by nobody else.
        let wake = unsafe { OwnedFd::from_raw_fd(fds[0]) };
        Some((Interruptible { fd, wake }, fds[1]))
    }

    /// Standard input, woken by the signal handler; `None` when no pipe can be made (then
    /// stdin is read directly, with the small window described above).
    fn stdin() -> Option<Interruptible> {
        let (input, wake) = Interruptible::new(0)?;
        WAKE.store(wake, Ordering::SeqCst);
        Some(input)
    }
}

impl Read for Interruptible {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::os::fd::AsRawFd;
        let mut fds = [
            libc::pollfd {
                fd: self.fd,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: self.wake.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: `fds` is a valid array of two pollfd structures.
        if unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) } < 0 {
            return Err(std::io::Error::last_os_error()); // EINTR: a signal, checked by the caller
        }
        if fds[1].revents & libc::POLLIN != 0 {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        // SAFETY: reads at most `buf.len()` bytes into `buf` from `self.fd` (a closed
        // descriptor is an error result, handled below).
        let n = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            // A closed stdin reads as empty, as `std::io::stdin` has it.
            if e.raw_os_error() == Some(libc::EBADF) {
                return Ok(0);
            }
            return Err(e);
        }
        Ok(n as usize)
    }
}

/// Enlarges a pipe's buffer to 1 MiB: reading it then takes far fewer system calls.
fn enlarge_pipe(fd: libc::c_int) {
    #[cfg(target_os = "linux")]
    // SAFETY: fcntl on a descriptor we own; failure (not a pipe, limit) is harmless.
    unsafe {
        libc::fcntl(fd, libc::F_SETPIPE_SZ, 1 << 20);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}

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
    let redact = args.redact || env_parsed("SPILL_REDACT", parse_switch, true)?.unwrap_or(false);
    let turn = args.turn.clone().or_else(|| super::env("SPILL_TURN"));
    let turn_budget = match args.turn_budget {
        Some(v) => v,
        None => env_parsed("SPILL_TURN_BUDGET", limits::parse_size, true)?
            .unwrap_or(limits::TURN_BUDGET),
    };
    // The label is echoed in the envelope and stored: with --redact it is redacted too.
    let label = match &args.label {
        Some(l) if redact => Some(
            String::from_utf8_lossy(&Redactor::from_env().redact_all(l.as_bytes())).into_owned(),
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
        turn,
        turn_budget,
        skip_invalid: args.skip_invalid,
    };
    Ok((opts, format))
}

/// Parses an on/off environment switch such as `SPILL_REDACT`.
fn parse_switch(value: &str) -> std::result::Result<bool, String> {
    match value {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        other => Err(format!("invalid value {other:?}: use 1 or 0")),
    }
}

/// Runs `spill wrap`.
pub fn run(global: &Global, args: WrapArgs) -> Result<Outcome> {
    let (opts, format) = options(&args)?;
    let store = match super::store_config(global, true) {
        Ok(c) => c,
        Err(e @ Error::Usage(_)) => return Err(e),
        Err(e) => {
            diag::warning(&format!("{e}; using the default store"));
            crate::store::StoreConfig::new(
                crate::store::StoreConfig::default_root(),
                "default".into(),
            )
        }
    };
    install_signal_handlers();
    if args.command.is_empty() {
        if std::io::stdin().is_terminal() {
            return Err(Error::Usage(
                "wrap reads the output to keep from stdin, which is a terminal; pipe into it (`cmd 2>&1 | spill wrap`) or run `spill wrap -- cmd`".into(),
            ));
        }
        enlarge_pipe(0);
        let stop = || SIGNAL.load(Ordering::SeqCst) != 0;
        let captured = match Interruptible::stdin() {
            Some(mut input) => wrap::capture(&mut input, &opts, &store, &stop)?,
            None => wrap::capture(&mut std::io::stdin().lock(), &opts, &store, &stop)?,
        };
        print(captured, &opts, format, None, store.restricted)?;
        return Ok(Outcome::Found);
    }
    run_command(&args, &opts, format, &store)
}

/// Writes the pass-through bytes or the envelope.
fn print(
    captured: Capture,
    opts: &WrapOptions,
    format: WrapFormat,
    exit_code: Option<i32>,
    restricted: bool,
) -> Result<()> {
    let mut out = output::stdout();
    match captured {
        Capture::Inline(bytes) => output::write_all(&mut out, &bytes)?,
        Capture::Spilled(s) => {
            let env = wrap::envelope(&s, opts, exit_code, restricted);
            let text = match format {
                WrapFormat::Json => env.to_json() + "\n",
                WrapFormat::Text => wrap::render_text(&env),
            };
            output::write_all(&mut out, text.as_bytes())?;
            output::flush(&mut out)?;
            if let Err(reason) = &s.stored {
                diag::warning(&format!(
                    "the output was not stored ({reason}); printed a preview only. Set SPILL_DIR (or --dir) to a private, writable directory"
                ));
            }
        }
    }
    output::flush(&mut out)
}

/// `spill wrap -- CMD ARGS…`.
fn run_command(
    args: &WrapArgs,
    opts: &WrapOptions,
    format: WrapFormat,
    store: &crate::store::StoreConfig,
) -> Result<Outcome> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills two descriptors we then own; O_CLOEXEC keeps them out of other children.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(Error::stream(
            "create a pipe for CMD",
            std::io::Error::last_os_error(),
        ));
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    let (read_end, write_end) =
        unsafe { (File::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    enlarge_pipe(fds[0]);
    let write_err = write_end
        .try_clone()
        .map_err(|e| Error::stream("create a pipe for CMD", e))?;
    let program = &args.command[0];
    let mut child = match Command::new(program)
        .args(&args.command[1..])
        .stdout(Stdio::from(write_end))
        .stderr(Stdio::from(write_err))
        .process_group(0)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            let name = diag::escape(&program.to_string_lossy());
            let (status, why) = match e.kind() {
                std::io::ErrorKind::NotFound => (127, "command not found"),
                std::io::ErrorKind::PermissionDenied => (126, "permission denied (not executable)"),
                _ => (126, "cannot run it"),
            };
            diag::error(&Error::Usage(format!("{name}: {why}: {e}")));
            return Ok(Outcome::Status(status));
        }
    };
    let group = child.id() as i32;
    CHILD_GROUP.store(group, Ordering::SeqCst);
    // The command's own handle to the pipe was moved into it; ours must be gone for EOF.
    let timed_out = Arc::new(AtomicBool::new(false));
    let done = Arc::new((Mutex::new(false), Condvar::new()));
    let watchdog = args
        .timeout
        .map(|limit| spawn_watchdog(group, limit, Arc::clone(&timed_out), Arc::clone(&done)));
    let never = || false;
    let mut reader: Box<dyn Read> = Box::new(read_end);
    let captured = wrap::capture(&mut reader, opts, store, &never);
    drop(reader);
    let status = child.wait().map_err(|e| Error::stream("wait for CMD", e))?;
    CHILD_GROUP.store(0, Ordering::SeqCst);
    {
        let (lock, cvar) = &*done;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        cvar.notify_all();
    }
    if let Some(w) = watchdog {
        let _ = w.join();
    }
    let code = if timed_out.load(Ordering::SeqCst) {
        124
    } else {
        status
            .code()
            .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
    };
    let mut captured = captured?;
    if let Capture::Spilled(s) = &mut captured {
        s.interrupted |= SIGNAL.load(Ordering::SeqCst) != 0;
    }
    // CMD's status is the result, also when our stdout is a closed pipe.
    match print(captured, opts, format, Some(code), store.restricted) {
        Ok(()) => {}
        Err(e) if e.is_broken_pipe() => {}
        Err(e) => diag::error(&e),
    }
    Ok(Outcome::Status(code.clamp(0, 255) as u8))
}

/// Kills CMD's process group after `limit` (TERM, then KILL two seconds later), like timeout(1).
fn spawn_watchdog(
    group: i32,
    limit: Duration,
    timed_out: Arc<AtomicBool>,
    done: Arc<(Mutex<bool>, Condvar)>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let (lock, cvar) = &*done;
        let mut finished = lock.lock().unwrap_or_else(|e| e.into_inner());
        let deadline = std::time::Instant::now() + limit;
        for (sig, wait_until) in [
            (libc::SIGTERM, deadline),
            (libc::SIGKILL, deadline + Duration::from_secs(2)),
        ] {
            while !*finished {
                let now = std::time::Instant::now();
                if now >= wait_until {
                    break;
                }
                finished = cvar
                    .wait_timeout(finished, wait_until - now)
                    .map(|r| r.0)
                    .unwrap_or_else(|e| e.into_inner().0);
            }
            if *finished {
                return;
            }
            timed_out.store(true, Ordering::SeqCst);
            // SAFETY: signalling the process group we created; failure means it is gone.
            unsafe { libc::kill(-group, sig) };
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    fn pipe() -> (OwnedFd, OwnedFd) {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe writes two fresh descriptors, owned from here on.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
    }

    fn write(fd: libc::c_int, bytes: &[u8]) {
        // SAFETY: writes `bytes` to a descriptor this test owns.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        assert_eq!(n, bytes.len() as isize);
    }

    #[test]
    fn a_wake_up_interrupts_a_read_on_a_silent_pipe() {
        let (read_end, write_end) = pipe();
        let (mut input, wake) = Interruptible::new(read_end.as_raw_fd()).unwrap();
        // SAFETY: the wake end was handed to us and is closed once, here.
        let wake = unsafe { OwnedFd::from_raw_fd(wake) };
        let mut buf = [0u8; 16];
        write(write_end.as_raw_fd(), b"data");
        assert_eq!(input.read(&mut buf).unwrap(), 4);
        // What the signal handler does when a signal lands just before the next read: the
        // producer stays silent with its end open, and the read returns instead of blocking.
        write(wake.as_raw_fd(), b"!");
        let e = input.read(&mut buf).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::Interrupted);
        // A closed producer is the end of input, as before.
        drop(write_end);
        let (read_end2, write_end2) = pipe();
        drop(write_end2);
        let (mut input, wake2) = Interruptible::new(read_end2.as_raw_fd()).unwrap();
        // SAFETY: as above.
        drop(unsafe { OwnedFd::from_raw_fd(wake2) });
        assert_eq!(input.read(&mut buf).unwrap(), 0);
    }
}
