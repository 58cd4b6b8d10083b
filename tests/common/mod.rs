//! The integration test harness: the real binary, a unique temporary directory per test, and a
//! scrubbed environment (no inherited SPILL_*, NO_COLOR or TMPDIR).

#![allow(dead_code)]

pub mod cts;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One test's sandbox: its own TMPDIR (so the default store root is private to the test).
pub struct Sandbox {
    dir: tempfile::TempDir,
}

/// An exit status as [`Run::code`] holds it: the code, or minus the signal that killed it.
pub fn code_of(status: std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.code().or(status.signal().map(|s| -s))
}

/// The result of one run of the binary.
#[derive(Debug)]
pub struct Run {
    /// Exit status; minus the signal's number when a signal killed it (`Some(-15)`).
    pub code: Option<i32>,
    /// Raw stdout.
    pub stdout: Vec<u8>,
    /// Stderr as text.
    pub stderr: String,
}

impl Run {
    /// Stdout as text.
    pub fn out(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Asserts the exit status, showing both streams when it differs.
    #[track_caller]
    pub fn status(&self, want: i32) -> &Run {
        assert_eq!(
            self.code,
            Some(want),
            "stdout:\n{}\nstderr:\n{}",
            self.out(),
            self.stderr
        );
        self
    }

    /// Parses stdout as one JSON value.
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.out()))
    }
}

/// A command being built.
pub struct Cmd {
    command: Command,
    stdin: Option<Vec<u8>>,
}

impl Cmd {
    /// Feeds these bytes on stdin (otherwise stdin is empty).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Cmd {
        self.stdin = Some(bytes.into());
        self
    }

    /// Sets an environment variable.
    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Cmd {
        self.command.env(key, value);
        self
    }

    /// Runs in this working directory (otherwise the test's own).
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Cmd {
        self.command.current_dir(dir);
        self
    }

    /// Runs to completion.
    pub fn run(mut self) -> Run {
        self.command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = self.command.spawn().expect("spawn spill");
        let mut stdin = child.stdin.take().unwrap();
        let input = self.stdin.take().unwrap_or_default();
        let writer = std::thread::spawn(move || {
            // The binary may legitimately stop reading early (usage errors).
            let _ = stdin.write_all(&input);
        });
        let output = child.wait_with_output().expect("wait for spill");
        writer.join().unwrap();
        Run {
            code: code_of(output.status),
            stdout: output.stdout,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Runs with stdout closed by the reader after its first `n` bytes, as `spill … | head -c N`
    /// does; returns the exit status and stderr (stdout holds the bytes read).
    pub fn run_closing_stdout_after(self, n: usize) -> Run {
        use std::io::Read;
        let mut child = self.command_with_pipes().spawn().expect("spawn spill");
        let mut stdout = child.stdout.take().unwrap();
        let mut first = vec![0u8; n];
        stdout
            .read_exact(&mut first)
            .expect("the first bytes of stdout");
        drop(stdout);
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = child.wait().unwrap();
        Run {
            code: code_of(status),
            stdout: first,
            stderr,
        }
    }

    fn command_with_pipes(mut self) -> Command {
        self.command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        self.command
    }

    /// The underlying command, for tests that need more control.
    pub fn into_command(self) -> Command {
        self.command
    }

    /// Starts the command with stdin, stdout and stderr all piped, for tests that feed it,
    /// signal it or watch it while it runs.
    pub fn spawn_piped(mut self) -> std::process::Child {
        self.command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        self.command.spawn().expect("spawn spill")
    }
}

/// Waits up to `limit` for `child` to exit; kills it if it has not (so the test can go on to
/// report) and says whether it exited by itself.
pub fn exits_within(child: &mut std::process::Child, limit: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + limit;
    while child.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let exited = child.try_wait().unwrap().is_some();
    if !exited {
        child.kill().unwrap();
    }
    exited
}

impl Sandbox {
    /// A fresh sandbox.
    pub fn new() -> Sandbox {
        Sandbox {
            dir: tempfile::Builder::new()
                .prefix("spill-test-")
                .tempdir()
                .expect("temp dir"),
        }
    }

    /// The sandbox directory (also TMPDIR and HOME of every run).
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The default store root inside this sandbox.
    pub fn store_root(&self) -> PathBuf {
        self.path()
            .join(format!("spill-{}", unsafe { libc::geteuid() }))
    }

    /// Writes a file in the sandbox and returns its path.
    pub fn file(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// `spill ARGS…` with a scrubbed environment.
    pub fn cmd(&self, args: &[&str]) -> Cmd {
        let mut command = Command::new(env!("CARGO_BIN_EXE_spill"));
        command
            .args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default());
        command
            .env("HOME", self.path())
            .env("TMPDIR", self.path())
            .env("LANG", "C.UTF-8");
        Cmd {
            command,
            stdin: None,
        }
    }

    /// Runs a command line as a user would paste it into a shell (`sh -c`), with `spill` on
    /// the PATH and the same scrubbed environment.
    pub fn shell(&self, line: &str) -> Run {
        let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_spill"))
            .parent()
            .unwrap()
            .to_path_buf();
        let mut path = std::ffi::OsString::from(bin_dir);
        path.push(":");
        path.push(std::env::var_os("PATH").unwrap_or_default());
        let mut command = Command::new("sh");
        command.args(["-c", line]).env_clear().env("PATH", path);
        command
            .env("HOME", self.path())
            .env("TMPDIR", self.path())
            .env("LANG", "C.UTF-8");
        Cmd {
            command,
            stdin: None,
        }
        .run()
    }

    /// Shorthand: run `spill ARGS…` with `stdin`.
    pub fn run(&self, args: &[&str], stdin: impl Into<Vec<u8>>) -> Run {
        self.cmd(args).stdin(stdin).run()
    }
}

/// The ref of a payload: `sp_` and the first 16 hex digits of its BLAKE3 hash.
pub fn ref_of(bytes: &[u8]) -> String {
    format!("sp_{}", &blake3::hash(bytes).to_hex()[..16])
}

/// Runs a `wrap` that must store its input (exit 0, `"spilled": true`); returns the ref.
#[track_caller]
pub fn spilled(cmd: Cmd) -> String {
    let env = cmd.run().status(0).json();
    assert_eq!(env["spilled"], true, "{env}");
    env["ref"].as_str().unwrap().to_string()
}

/// Every file under a final name in the scope directory `dir` holds exactly the bytes its name
/// promises: no partial or wrong-hash payload.
#[track_caller]
pub fn assert_no_partial_payload(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.len() == 16 && name.bytes().all(|b| b.is_ascii_hexdigit()) {
            let bytes = std::fs::read(e.path()).unwrap();
            assert_eq!(
                ref_of(&bytes),
                format!("sp_{name}"),
                "a partial or wrong payload under a final name"
            );
        }
    }
}

/// Deterministic pseudo-random bytes for big inputs (no committed fixtures).
pub fn lines_of_text(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        out.extend_from_slice(
            format!("line {i:06} the quick brown fox jumps over the lazy dog\n").as_bytes(),
        );
    }
    out
}

/// Everything a pseudo-terminal's master received until the other side closed (EIO), with
/// the terminal's `\r\n` turned back into `\n`.
pub fn read_terminal(master: &mut std::fs::File) -> String {
    use std::io::Read;
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match master.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&out).replace("\r\n", "\n")
}

/// A new pseudo-terminal as (master, slave), for tests of what spill does on a terminal.
pub fn openpty() -> (std::fs::File, std::fs::File) {
    use std::os::fd::FromRawFd;
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two new descriptors into the integers we pass; both are then
    // owned by `File`s, which close them.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty failed");
    // SAFETY: both descriptors were just created and are owned by nothing else.
    unsafe {
        (
            std::fs::File::from_raw_fd(master),
            std::fs::File::from_raw_fd(slave),
        )
    }
}

/// The `text` of every signal an envelope shows, in order.
pub fn signal_texts(env: &serde_json::Value) -> Vec<&str> {
    env["signals"]["matches"]
        .as_array()
        .map(|m| m.iter().filter_map(|x| x["text"].as_str()).collect())
        .unwrap_or_default()
}
