//! Signals while wrap reads: SIGINT, SIGTERM and SIGHUP stop reading (what was read is still
//! stored and described) and are forwarded to a running CMD's process group; a self-pipe wakes
//! a read that a signal would otherwise not interrupt.
//!
//! The handlers, the last signal and the running CMD's group are process-wide: one `wrap` runs
//! at a time in a process (the `spill` binary runs exactly one).

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::Once;
use std::sync::atomic::{AtomicI32, Ordering};

use crate::error::Result;
use crate::store::StoreConfig;

use super::{Capture, Warning, WrapOptions};

/// The last terminating signal received (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// The process group of the running CMD (0: none), for forwarding signals.
pub(super) static CHILD_GROUP: AtomicI32 = AtomicI32::new(0);

/// The write end of the self-pipe that wakes [`Interruptible`] (-1: none).
static WAKE: AtomicI32 = AtomicI32::new(-1);

/// Installs the handlers once per process.
static INSTALL: Once = Once::new();

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
/// wrap can store what it has read; a running CMD's process group gets the same signal. This
/// replaces the process's handlers for those signals; only the first call does anything.
/// [`capture_stdin`] and [`run_command`](super::run_command) call it themselves.
pub fn catch_signals() {
    INSTALL.call_once(|| {
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
    });
}

/// The last signal [`catch_signals`] caught (0: none).
pub fn last_signal() -> i32 {
    SIGNAL.load(Ordering::SeqCst)
}

/// True once one of the signals [`catch_signals`] catches has arrived.
pub fn signalled() -> bool {
    SIGNAL.load(Ordering::SeqCst) != 0
}

/// Reads the process's standard input to its end (or until a signal) as [`capture`] does, with
/// the signal handlers installed, the pipe enlarged and the self-pipe reader below.
///
/// [`capture`]: super::capture()
pub fn capture_stdin(opts: &WrapOptions, store: &StoreConfig) -> Result<(Capture, Vec<Warning>)> {
    read_stdin(|input, stop| super::capture_with_warnings(input, opts, store, stop))
}

/// [`capture_stdin`], handing `observer` every byte as it is read, from the first (with
/// `--redact`, every stored chunk, after redaction): `wrap --report-after` reading stdin.
pub fn capture_stdin_observed(
    opts: &WrapOptions,
    store: &StoreConfig,
    observer: &mut dyn FnMut(&[u8]),
) -> Result<(Capture, Vec<Warning>)> {
    read_stdin(|input, stop| {
        super::capture::capture_observed_from_start(input, opts, store, stop, observer)
    })
}

/// Runs `read` on standard input with the signal handlers installed, the pipe enlarged and the
/// self-pipe reader below (plain stdin where no self-pipe can be made).
fn read_stdin<T>(read: impl FnOnce(&mut dyn std::io::Read, &dyn Fn() -> bool) -> T) -> T {
    catch_signals();
    enlarge_pipe(0);
    let stop = signalled;
    match Interruptible::stdin() {
        Some(mut input) => read(&mut input, &stop),
        None => read(&mut std::io::stdin().lock(), &stop),
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
pub(super) fn enlarge_pipe(fd: libc::c_int) {
    #[cfg(target_os = "linux")]
    // SAFETY: fcntl on a descriptor we own; failure (not a pipe, limit) is harmless.
    unsafe {
        libc::fcntl(fd, libc::F_SETPIPE_SZ, 1 << 20);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}

/// Ends the process by `signal`, as the command `wrap` ran was ended: spill's handler for it
/// (if any) back to the default, core dumps off (the command dumped its own core, if any; spill
/// has nothing to add), the signal unblocked and raised. The caller flushes its output first.
/// Returns only if the signal did not end the process (a signal whose default is to continue
/// or be ignored: the caller then exits with 128 + `signal`).
pub fn die_by(signal: i32) {
    let no_core = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain system calls on values owned here; nothing runs after the signal is
    // delivered, and each call's failure only leaves the process to exit with a status.
    unsafe {
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        libc::signal(signal, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(signal);
    }
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
