//! `spill wrap`: options, the `-- CMD` runner (one ordered stream of stdout and stderr, signals
//! forwarded to its process group, `--timeout`), and printing pass-through bytes or the envelope.

use std::fs::File;
use std::io::{IsTerminal, Read};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::cli::{Global, WrapArgs, WrapFormat};
use crate::error::{Error, Result};
use crate::store::StoreConfig;
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
        store_error: None,
        skip_invalid: args.skip_invalid,
    };
    Ok((opts, format))
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
    super::check_store_flags(global)?;
    // An unusable store setting never lets another scope or root stand in: the input still
    // passes through or gets the degraded envelope, and restricted mode stays on.
    let store = match super::store_config(global) {
        Ok(c) => c,
        Err(e) => {
            let reason = e.to_string();
            diag::warning(&format!(
                "{reason}; nothing is stored until it is fixed (larger output gets a preview only)"
            ));
            opts.store_error = Some(reason);
            let mut placeholder = StoreConfig::new(PathBuf::new(), String::new());
            placeholder.restricted = super::restricted();
            placeholder
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
        print(
            captured,
            &opts,
            format,
            None,
            store.restricted || store.is_remote(),
        )?;
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
            match &s.stored {
                // A store setting that is unusable was already reported, before reading.
                Err(_) if opts.store_error.is_some() => {}
                Err(reason) => diag::warning(&format!(
                    "the output was not stored ({reason}); printed a preview only. Set SPILL_DIR (or --dir) to a private, writable directory"
                )),
                Ok(stored) => stored.repaired.iter().for_each(|w| diag::warning(w)),
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
    store: &StoreConfig,
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
    let mut command = Command::new(program);
    command
        .args(&args.command[1..])
        .stdout(Stdio::from(write_end))
        .stderr(Stdio::from(write_err))
        .process_group(0);
    die_with_parent(&mut command);
    let spawned = command.spawn();
    // The command holds our copies of the pipe's write end: they must be gone for EOF.
    drop(command);
    let mut child = match spawned {
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
    // Dropped on every way out of this function; a SIGKILL closes its pipe all the same.
    let _guardian = Guardian::start(group);
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
    match print(
        captured,
        opts,
        format,
        Some(code),
        store.restricted || store.is_remote(),
    ) {
        Ok(()) => {}
        Err(e) if e.is_broken_pipe() => {}
        Err(e) => diag::error(&e),
    }
    Ok(Outcome::Status(code.clamp(0, 255) as u8))
}

/// Makes CMD die with wrap: on Linux the kernel sends it SIGKILL when wrap's thread that
/// spawned it ends, even when wrap itself is killed with SIGKILL ([`Guardian`] covers the rest of
/// its process group).
fn die_with_parent(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the closure runs in the child between fork and exec and calls only
        // async-signal-safe functions (prctl, getppid); it allocates nothing.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // wrap died before the request took effect: no signal will ever come.
                if libc::getppid() != parent {
                    return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// A small forked process in CMD's process group that kills the whole group with SIGKILL as
/// soon as wrap is gone: it waits on a pipe whose only write end wrap holds, and the kernel
/// closes that end however wrap ends — returning, failing, or killed with SIGKILL, alone or
/// with its own process group. So nothing CMD started outlives wrap (a daemon that must, leaves
/// the group with `setsid`). Dropping the guardian (when CMD is done) ends the group the same way
/// and reaps it.
struct Guardian {
    pid: libc::pid_t,
    /// The write end: closing it is the signal.
    wake: Option<OwnedFd>,
}

impl Guardian {
    /// Forks the guardian into `group`; `None` when no pipe or process can be made (CMD still
    /// dies with wrap on Linux, only its own children may not).
    fn start(group: libc::pid_t) -> Option<Guardian> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe2 writes two descriptors into `fds` on success.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return None;
        }
        // SAFETY: both descriptors were just created and are owned by nothing else.
        let (read_end, write_end) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        // SAFETY: fork has no preconditions; the child runs only `guard`, which calls
        // async-signal-safe functions and never returns.
        match unsafe { libc::fork() } {
            -1 => None,
            // SAFETY: in the forked child, with the pipe's two descriptors.
            0 => unsafe { guard(fds[0], fds[1], group) },
            pid => {
                drop(read_end);
                // Joined from both sides, so the guardian is in the group before wrap can die.
                // SAFETY: setpgid on our own child; failure leaves it in wrap's group.
                unsafe { libc::setpgid(pid, group) };
                Some(Guardian {
                    pid,
                    wake: Some(write_end),
                })
            }
        }
    }
}

impl Drop for Guardian {
    fn drop(&mut self) {
        drop(self.wake.take());
        let mut status = 0;
        // SAFETY: waits for our own child, which exits as soon as it reads end-of-file.
        while unsafe { libc::waitpid(self.pid, &mut status, 0) } < 0
            && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
        {}
    }
}

/// The guardian's whole life, in the forked child: keep only the pipe's read end (as stdin, so
/// that nobody reading wrap's stdout or stderr waits for it), ignore the signals wrap forwards
/// to the group, wait for end-of-file, then kill the group and exit.
///
/// # Safety
///
/// Only in a freshly forked child; `read_end` and `write_end` are the guardian pipe.
unsafe fn guard(read_end: libc::c_int, write_end: libc::c_int, group: libc::pid_t) -> ! {
    // SAFETY: each call is async-signal-safe and acts on this process only (kill: on `group`).
    unsafe {
        libc::close(write_end);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGPIPE] {
            libc::signal(sig, libc::SIG_IGN);
        }
        libc::setpgid(0, group);
        if read_end != 0 {
            libc::dup2(read_end, 0);
        }
        #[cfg(target_os = "linux")]
        let closed = libc::syscall(libc::SYS_close_range, 1u32, u32::MAX, 0u32) == 0;
        #[cfg(not(target_os = "linux"))]
        let closed = false;
        if !closed {
            for fd in 1..1024 {
                libc::close(fd);
            }
        }
        let mut byte = 0u8;
        while libc::read(0, (&raw mut byte).cast(), 1) != 0 {
            if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                break;
            }
        }
        libc::kill(-group, libc::SIGKILL);
        libc::_exit(0)
    }
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
        // A deadline past what the clock can hold is no deadline.
        let now = std::time::Instant::now();
        let Some(deadline) = now.checked_add(limit) else {
            return;
        };
        let grace = deadline
            .checked_add(Duration::from_secs(2))
            .unwrap_or(deadline);
        for (sig, wait_until) in [(libc::SIGTERM, deadline), (libc::SIGKILL, grace)] {
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
