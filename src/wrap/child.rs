//! Running a command under wrap (`wrap -- CMD`): one pipe for its stdout and stderr (one ordered
//! stream), its own process group (signals are forwarded to the group), a guardian that ends
//! the group when wrap ends however it ends, and a watchdog for `--timeout`.

use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::store::StoreConfig;

use super::signals::{CHILD_GROUP, catch_signals, enlarge_pipe, signalled};
use super::{Capture, Warning, WrapOptions};

/// The status `wrap -- CMD` reports when `--timeout` ended CMD, as timeout(1) does.
const TIMED_OUT: i32 = 124;
/// How long the watchdog waits after SIGTERM before SIGKILL.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// The command to run: `argv[0]` is the program (looked up in `PATH` as a shell would).
#[derive(Debug, Clone, Default)]
pub struct CommandSpec {
    /// The program and its arguments.
    pub argv: Vec<OsString>,
    /// `--timeout`: the process group gets SIGTERM after this long, then SIGKILL two seconds
    /// later.
    pub timeout: Option<Duration>,
}

/// What running a command produced.
#[derive(Debug)]
pub enum Ran {
    /// It ran (to its end, or until a signal or the timeout ended it) and its output was read.
    Exited(Box<Exited>),
    /// It could not be started: nothing ran and nothing was read.
    NotStarted(NotStarted),
}

/// A command that ran, and its output.
#[derive(Debug)]
pub struct Exited {
    /// The output, as [`capture`](super::capture()) returns it; a signal to wrap marks a spilled
    /// one `interrupted`.
    pub capture: Capture,
    /// How the command ended.
    pub status: ExitStatus,
    /// True when `--timeout` ended it.
    pub timed_out: bool,
    /// What went wrong without failing the call.
    pub warnings: Vec<Warning>,
}

impl Exited {
    /// The status `wrap -- CMD` reports: the command's own exit code, 128 + N when signal N
    /// ended it, 124 when the timeout did.
    pub fn code(&self) -> i32 {
        if self.timed_out {
            TIMED_OUT
        } else {
            self.status
                .code()
                .unwrap_or_else(|| 128 + self.status.signal().unwrap_or(0))
        }
    }
}

/// Why a command could not be started. `Display` is the reason and the system's error, e.g.
/// `command not found: No such file or directory (os error 2)`.
#[derive(Debug)]
pub struct NotStarted {
    /// The status a shell reports for it: 127 when the program is not found, else 126.
    pub status: u8,
    /// `command not found`, `permission denied (not executable)` or `cannot run it`.
    pub reason: &'static str,
    /// The error from starting it.
    pub error: std::io::Error,
}

impl std::fmt::Display for NotStarted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.reason, self.error)
    }
}

/// Runs `command` with its stdout and stderr on one pipe, reads that pipe as
/// [`capture`](super::capture()) does, and waits for it. Installs the signal handlers
/// ([`catch_signals`]): SIGINT, SIGTERM and SIGHUP are forwarded to the command's process
/// group, and nothing the command started outlives the call (or wrap). One command runs at a
/// time per process. A read error fails the call, after the command has ended.
pub fn run_command(command: &CommandSpec, opts: &WrapOptions, store: &StoreConfig) -> Result<Ran> {
    run_command_observed(command, opts, store, &mut |_| {})
}

/// [`run_command`], handing `observer` every chunk of a spilled output as it is stored (see
/// [`capture_observed`](super::capture::capture_observed)).
pub fn run_command_observed(
    command: &CommandSpec,
    opts: &WrapOptions,
    store: &StoreConfig,
    observer: &mut dyn FnMut(&[u8]),
) -> Result<Ran> {
    let Some((program, args)) = command.argv.split_first() else {
        return Err(Error::Usage("wrap --: no command to run".into()));
    };
    catch_signals();
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
    let mut child = Command::new(program);
    child
        .args(args)
        .stdout(Stdio::from(write_end))
        .stderr(Stdio::from(write_err))
        .process_group(0);
    die_with_parent(&mut child);
    let spawned = child.spawn();
    // The command holds our copies of the pipe's write end: they must be gone for EOF.
    drop(child);
    let mut child = match spawned {
        Ok(c) => c,
        Err(error) => {
            let (status, reason) = match error.kind() {
                std::io::ErrorKind::NotFound => (127, "command not found"),
                std::io::ErrorKind::PermissionDenied => (126, "permission denied (not executable)"),
                _ => (126, "cannot run it"),
            };
            return Ok(Ran::NotStarted(NotStarted {
                status,
                reason,
                error,
            }));
        }
    };
    let group = child.id() as i32;
    CHILD_GROUP.store(group, Ordering::SeqCst);
    // Dropped on every way out of this function; a SIGKILL closes its pipe all the same.
    let _guardian = Guardian::start(group);
    // The command's own handle to the pipe was moved into it; ours must be gone for EOF.
    let timed_out = Arc::new(AtomicBool::new(false));
    let done = Arc::new((Mutex::new(false), Condvar::new()));
    let watchdog = command
        .timeout
        .map(|limit| spawn_watchdog(group, limit, Arc::clone(&timed_out), Arc::clone(&done)));
    let never = || false;
    let mut reader: Box<dyn Read> = Box::new(read_end);
    let captured = super::capture::capture_observed(&mut reader, opts, store, &never, observer);
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
    let (mut capture, warnings) = captured?;
    if let Capture::Spilled(s) = &mut capture {
        s.interrupted |= signalled();
    }
    Ok(Ran::Exited(Box::new(Exited {
        capture,
        status,
        timed_out: timed_out.load(Ordering::SeqCst),
        warnings,
    })))
}

/// Makes CMD die with wrap: on Linux the kernel sends it SIGKILL when wrap's thread that
/// spawned it ends, even when wrap itself is killed with SIGKILL ([`Guardian`] covers the rest of
/// its process group). Also used by `spill mcp proxy` for its downstream server.
pub fn die_with_parent(command: &mut Command) {
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
/// and reaps it. Also used by `spill mcp proxy` for its downstream server's group.
pub struct Guardian {
    pid: libc::pid_t,
    /// The write end: closing it is the signal.
    wake: Option<OwnedFd>,
}

impl Guardian {
    /// Forks the guardian into `group`; `None` when no pipe or process can be made (CMD still
    /// dies with wrap on Linux, only its own children may not).
    pub fn start(group: libc::pid_t) -> Option<Guardian> {
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

/// Kills CMD's process group after `limit` (TERM, then KILL [`KILL_GRACE`] later), like
/// timeout(1).
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
        let grace = deadline.checked_add(KILL_GRACE).unwrap_or(deadline);
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

    fn run(argv: &[&str], timeout: Option<Duration>) -> Ran {
        let dir = tempfile::tempdir().unwrap();
        let config = StoreConfig::new(dir.path().join("store"), "default".into());
        let command = CommandSpec {
            argv: argv.iter().map(OsString::from).collect(),
            timeout,
        };
        run_command(&command, &WrapOptions::default(), &config).unwrap()
    }

    #[test]
    fn stdout_and_stderr_come_in_order_with_the_exit_code() {
        let Ran::Exited(ran) = run(
            &["sh", "-c", "echo out; echo err >&2; echo out2; exit 3"],
            None,
        ) else {
            panic!("sh starts");
        };
        assert!(matches!(&ran.capture, Capture::Inline(b) if b == b"out\nerr\nout2\n"));
        assert_eq!((ran.code(), ran.timed_out), (3, false));
        assert!(ran.warnings.is_empty());
    }

    #[test]
    fn a_command_ended_by_a_signal_reports_128_plus_the_signal() {
        let Ran::Exited(ran) = run(&["sh", "-c", "kill -9 $$"], None) else {
            panic!("sh starts");
        };
        assert_eq!(ran.code(), 128 + 9);
    }

    #[test]
    fn a_missing_program_is_not_started_with_the_shells_status() {
        let Ran::NotStarted(why) = run(&["/nonexistent/spill-test-program"], None) else {
            panic!("no such program");
        };
        assert_eq!((why.status, why.reason), (127, "command not found"));
        assert!(why.to_string().starts_with("command not found: "), "{why}");
        let dir = tempfile::tempdir().unwrap();
        let Ran::NotStarted(why) = run(&[dir.path().to_str().unwrap()], None) else {
            panic!("a directory does not run");
        };
        assert_eq!(why.status, 126);
    }

    #[test]
    fn the_timeout_ends_the_command_with_124() {
        let Ran::Exited(ran) = run(
            &["sh", "-c", "echo started; exec sleep 60"],
            Some(Duration::from_millis(50)),
        ) else {
            panic!("sh starts");
        };
        assert!(ran.timed_out);
        assert_eq!(ran.code(), 124);
        assert!(matches!(&ran.capture, Capture::Inline(b) if b == b"started\n"));
    }

    #[test]
    fn an_empty_command_is_a_usage_error() {
        let dir = tempfile::tempdir().unwrap();
        let config = StoreConfig::new(dir.path().join("store"), "default".into());
        let got = run_command(&CommandSpec::default(), &WrapOptions::default(), &config);
        assert!(matches!(got, Err(Error::Usage(_))), "{got:?}");
    }
}
