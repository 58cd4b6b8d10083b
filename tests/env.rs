//! Hostile environment values and numbers: switches in every spelling, values that are not
//! UTF-8, invalid scopes and roots (never another scope or root), sizes, counts and durations past
//! their maximum, paths in restricted mode's messages, what restricted mode allows `wrap` and `gc`,
//! and a `wrap` killed with SIGKILL leaving nothing of its command behind.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{Run, Sandbox, lines_of_text};

/// A value that is not UTF-8.
fn not_utf8(prefix: &str) -> &'static OsStr {
    let mut bytes = prefix.as_bytes().to_vec();
    bytes.extend_from_slice(b"\xff1");
    OsStr::from_bytes(Box::leak(bytes.into_boxed_slice()))
}

/// Stores a large output in `scope` (not restricted) and returns its ref.
fn stored(s: &Sandbox, scope: &str, lines: usize) -> String {
    let env = s
        .cmd(&["wrap"])
        .env("SPILL_SCOPE", scope)
        .stdin(lines_of_text(lines))
        .run()
        .status(0)
        .json();
    env["ref"].as_str().expect("stored").to_string()
}

/// The refs stored in a scope directory of the default root (none when it does not exist).
fn payloads(s: &Sandbox, scope: &str) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(s.store_root().join(scope)) else {
        return Vec::new();
    };
    let mut names: Vec<String> = dir
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.len() == 16 && n.bytes().all(|b| b.is_ascii_hexdigit()))
        .collect();
    names.sort();
    names
}

/// Asserts that `text` names no file-system path: not the sandbox, and no word that starts
/// with `/`.
#[track_caller]
fn assert_no_path(s: &Sandbox, what: &str, text: &str) {
    let sandbox = s.path().to_string_lossy();
    assert!(
        !text.contains(sandbox.as_ref()),
        "{what} names the sandbox: {text}"
    );
    let mut previous = ' ';
    for (i, c) in text.char_indices() {
        if c == '/' && (previous.is_whitespace() || "\"'(=[,".contains(previous)) {
            let next = text[i + 1..].chars().next().unwrap_or(' ');
            assert!(
                next.is_whitespace(),
                "{what} names a path at byte {i}: {text}"
            );
        }
        previous = c;
    }
}

#[test]
fn huge_numbers_are_refused_or_kept_never_wrapped() {
    let s = Sandbox::new();
    let ten: String = (1..=10).map(|i| format!("{i}\n")).collect();
    // Past the maximum on the command line: exit 2 naming it, never an empty pass-through.
    let r = s.run(
        &["wrap", "--max-inline", "18446744073709551615"],
        ten.clone(),
    );
    r.status(2);
    assert!(r.stderr.contains("at most 1024T"), "{}", r.stderr);
    // From the environment, wrap keeps its default and passes the output through.
    let r = s
        .cmd(&["wrap"])
        .env("SPILL_MAX_INLINE", "18446744073709551615")
        .stdin(ten.clone())
        .run();
    r.status(0);
    assert_eq!(r.out(), ten);
    assert!(
        r.stderr.contains("ignoring SPILL_MAX_INLINE"),
        "{}",
        r.stderr
    );
    // The maximum itself is usable.
    let r = s.run(&["wrap", "--max-inline", "1024T"], ten.clone());
    r.status(0);
    assert_eq!(r.out(), ten);
    // A timeout past the clock's range is refused before CMD runs, not a panic after it.
    let r = s.run(
        &[
            "wrap",
            "--timeout",
            "18446744073709551615s",
            "--",
            "seq",
            "1",
            "5",
        ],
        "",
    );
    r.status(2);
    assert!(r.stderr.contains("at most 36500d"), "{}", r.stderr);
    let r = s.run(&["wrap", "--timeout", "36500d", "--", "seq", "1", "5"], "");
    r.status(0);
    assert_eq!(r.out(), "1\n2\n3\n4\n5\n");
    // Every other kind: sizes, counts (also inside `--lines A:B`), durations, from flags and
    // from the environment.
    let file = s.file("f.txt", &ten);
    let file = file.to_str().unwrap();
    for (args, env, want) in [
        (
            vec!["cat", file, "--lines", "1:18446744073709551615"],
            None,
            "10^15",
        ),
        (vec!["cat", file, "--max-bytes", "1025T"], None, "1024T"),
        (
            vec!["search", file, "1", "--limit", "18446744073709551615"],
            None,
            "10^15",
        ),
        (
            vec!["search", file, "1", "--offset", "1000000000000001"],
            None,
            "10^15",
        ),
        (
            vec!["extract", file, "$", "--max-items", "18446744073709551615"],
            None,
            "10^15",
        ),
        (
            vec!["shape", file, "--max-depth", "18446744073709551615"],
            None,
            "10^15",
        ),
        (vec!["ls", "--quota", "16777216T"], None, "1024T"),
        (vec!["gc", "--ttl", "36501d"], None, "36500d"),
        (
            vec!["ls"],
            Some(("SPILL_TTL", "18446744073709551615s")),
            "36500d",
        ),
        (
            vec!["ls"],
            Some(("SPILL_QUOTA", "18446744073709551615")),
            "1024T",
        ),
        (vec!["ls"], Some(("SPILL_MAX_FILE", "2000T")), "1024T"),
    ] {
        let mut cmd = s.cmd(&args);
        if let Some((k, v)) = env {
            cmd = cmd.env(k, v);
        }
        let r = cmd.run();
        r.status(2);
        assert!(r.stderr.contains(want), "{args:?} {env:?}: {}", r.stderr);
        if let Some((k, _)) = env {
            assert!(r.stderr.contains(k), "{args:?}: {}", r.stderr);
        }
    }
}

#[test]
fn every_spelling_of_restricted_mode_turns_it_on_unless_explicitly_off() {
    let s = Sandbox::new();
    let file = s.file("f.txt", "visible\n");
    let file = file.to_str().unwrap();
    let cat = |value: &OsStr| s.cmd(&["cat", file]).env("SPILL_RESTRICTED", value).run();
    let on = [
        "1", "true", "yes", "on", " 1", "1 ", "\t1\n", "TRUE", "Yes", "ON", " on ",
    ];
    for v in on {
        let r = cat(OsStr::new(v));
        r.status(2);
        assert!(r.stderr.contains("restricted mode"), "{v:?}: {}", r.stderr);
        assert!(!r.stderr.contains("warning"), "{v:?}: {}", r.stderr);
    }
    // Not an explicit off: on, with a warning that says so.
    let unknown = ["01", "2", "-1", "enabled", "y", "of", "0 0", "nein"];
    for v in unknown.iter().map(OsStr::new).chain([not_utf8("1")]) {
        let r = cat(v);
        r.status(2);
        assert!(r.stderr.contains("restricted mode"), "{v:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("SPILL_RESTRICTED="),
            "{v:?}: {}",
            r.stderr
        );
        assert!(r.stderr.contains("taken as on"), "{v:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{v:?}");
    }
    for v in [
        "0", "false", "no", "off", "", " ", " 0 ", "FALSE", "No", "OFF",
    ] {
        let r = cat(OsStr::new(v));
        r.status(0);
        assert_eq!(r.out(), "visible\n", "{v:?}");
        assert!(!r.stderr.contains("warning"), "{v:?}: {}", r.stderr);
    }
}

#[test]
fn redaction_is_read_with_the_same_switch_and_fails_closed() {
    let s = Sandbox::new();
    let secret = "token ghp_a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2a1B2 here\n";
    let wrap = |value: &OsStr| {
        s.cmd(&["wrap"])
            .env("SPILL_REDACT", value)
            .stdin(secret)
            .run()
    };
    for v in ["1", "true", "yes", "on", " 1", "TRUE", "On"] {
        let r = wrap(OsStr::new(v));
        assert_eq!(r.status(0).out(), "token [REDACTED] here\n", "{v:?}");
    }
    for v in ["01", "maybe"]
        .iter()
        .map(OsStr::new)
        .chain([not_utf8("on")])
    {
        let r = wrap(v);
        assert_eq!(r.status(0).out(), "token [REDACTED] here\n", "{v:?}");
        assert!(r.stderr.contains("SPILL_REDACT="), "{v:?}: {}", r.stderr);
    }
    for v in ["0", "false", "no", "off", "", " Off "] {
        assert_eq!(wrap(OsStr::new(v)).status(0).out(), secret, "{v:?}");
    }
}

#[test]
fn restricted_mode_runs_no_command_unless_the_harness_allows_it() {
    let s = Sandbox::new();
    let marker = s.path().join("ran");
    let script = format!("touch '{}'; echo ran", marker.display());
    let wrap = |allow: Option<&OsStr>| {
        let mut cmd = s
            .cmd(&["wrap", "--", "sh", "-c", &script])
            .env("SPILL_RESTRICTED", "1");
        if let Some(v) = allow {
            cmd = cmd.env("SPILL_ALLOW_RUN", v);
        }
        cmd.run()
    };
    // Unset, explicitly off, or anything but an explicit on: refused, and CMD never starts.
    let refused = ["0", "off", "", "01", "allow", "y"];
    let refused = refused.iter().map(|v| Some(OsStr::new(v)));
    for v in [None]
        .into_iter()
        .chain(refused)
        .chain([Some(not_utf8("1"))])
    {
        let r = wrap(v);
        r.status(2);
        assert!(
            r.stderr
                .contains("wrap -- CMD is refused in restricted mode"),
            "{v:?}: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains("SPILL_ALLOW_RUN=1"),
            "{v:?}: {}",
            r.stderr
        );
        assert!(!marker.exists(), "{v:?}: CMD ran");
        assert!(r.stdout.is_empty(), "{v:?}");
    }
    for v in ["1", "true", "YES", " on "] {
        let r = wrap(Some(OsStr::new(v)));
        assert_eq!(r.status(0).out(), "ran\n", "{v:?}");
        assert!(marker.exists(), "{v:?}");
        std::fs::remove_file(&marker).unwrap();
    }
    // Piping into wrap stays allowed, and outside restricted mode CMD runs as always.
    let r = s
        .cmd(&["wrap"])
        .env("SPILL_RESTRICTED", "1")
        .stdin("piped\n")
        .run();
    assert_eq!(r.status(0).out(), "piped\n");
    let r = s.run(&["wrap", "--", "sh", "-c", &script], "");
    assert_eq!(r.status(0).out(), "ran\n");
}

#[test]
fn an_invalid_or_non_utf8_scope_or_root_is_never_another_one() {
    let s = Sandbox::new();
    let r = stored(&s, "default", 3000);
    let before = payloads(&s, "default");
    let dir = s.path().join("other-root");
    let mut dir_bytes = dir.as_os_str().as_bytes().to_vec();
    dir_bytes.extend_from_slice(b"\xff");
    let bad_dir = OsStr::from_bytes(&dir_bytes);
    let cases: [(&str, &OsStr, &str); 4] = [
        ("SPILL_SCOPE", not_utf8("conv"), "not valid UTF-8"),
        ("SPILL_SCOPE", OsStr::new("../x"), "invalid scope name"),
        ("SPILL_SCOPE", OsStr::new("a/b"), "invalid scope name"),
        ("SPILL_DIR", bad_dir, "not valid UTF-8"),
    ];
    for (name, value, why) in cases {
        for restricted in ["0", "1"] {
            // A reading command: exit 2 naming the variable, never the default scope's data.
            for args in [
                vec!["cat", r.as_str()],
                vec!["ls"],
                vec!["search", &r, "line"],
            ] {
                let run = s
                    .cmd(&args)
                    .env(name, value)
                    .env("SPILL_RESTRICTED", restricted)
                    .run();
                run.status(2);
                assert!(
                    run.stdout.is_empty(),
                    "{name} {value:?} {args:?}: {}",
                    run.out()
                );
                assert!(run.stderr.contains(name), "{name} {args:?}: {}", run.stderr);
                assert!(run.stderr.contains(why), "{name} {args:?}: {}", run.stderr);
            }
            // wrap: small output passes through, large output gets the degraded envelope.
            let run = s
                .cmd(&["wrap"])
                .env(name, value)
                .env("SPILL_RESTRICTED", restricted)
                .stdin("small\n")
                .run();
            assert_eq!(run.status(0).out(), "small\n");
            assert!(run.stderr.contains(name), "{}", run.stderr);
            let run = s
                .cmd(&["wrap"])
                .env(name, value)
                .env("SPILL_RESTRICTED", restricted)
                .stdin(lines_of_text(5000))
                .run();
            let env = run.status(0).json();
            assert_eq!(env["spilled"], false, "{name} {value:?}: {env}");
            assert!(
                env.get("ref").is_none() && env.get("path").is_none(),
                "{env}"
            );
            assert!(env["error"].as_str().unwrap().contains(name), "{env}");
            assert!(env["preview"].is_object(), "{env}");
            assert_eq!(run.stderr.matches("warning").count(), 1, "{}", run.stderr);
        }
    }
    // Nothing was stored anywhere else: not in `default`, not in another root.
    assert_eq!(payloads(&s, "default"), before);
    assert!(!dir.exists());
    let roots: Vec<_> = std::fs::read_dir(s.path()).unwrap().flatten().collect();
    assert!(
        roots
            .iter()
            .all(|e| !e.file_name().as_bytes().starts_with(b"other-root")),
        "a store was made under another root"
    );
}

#[test]
fn a_relative_store_root_without_a_working_directory_stores_nothing_elsewhere() {
    let s = Sandbox::new();
    let gone = s.path().join("gone");
    for restricted in ["0", "1"] {
        std::fs::create_dir(&gone).unwrap();
        let mut cmd = s
            .cmd(&["wrap"])
            .env("SPILL_DIR", "relative-store")
            .env("SPILL_RESTRICTED", restricted)
            .into_command();
        let gone_for_child = gone.clone();
        // SAFETY: chdir and rmdir are async-signal-safe; the child then runs wrap in a working
        // directory that no longer exists.
        unsafe {
            cmd.pre_exec(move || {
                std::env::set_current_dir(&gone_for_child)?;
                std::fs::remove_dir(&gone_for_child)?;
                Ok(())
            });
        }
        let env = run_feeding(cmd, lines_of_text(5000)).status(0).json();
        assert_eq!(env["spilled"], false, "restricted={restricted}: {env}");
        assert!(
            env.get("path").is_none() && env.get("ref").is_none(),
            "{env}"
        );
        let error = env["error"].as_str().unwrap();
        assert!(error.contains("current directory"), "{error}");
        // Not the default store instead.
        assert!(
            payloads(&s, "default").is_empty(),
            "stored in the default store"
        );
        assert!(!s.store_root().exists());
    }
}

/// Runs a prepared command with `input` on stdin and collects what it printed.
fn run_feeding(mut cmd: std::process::Command, input: Vec<u8>) -> Run {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The command may stop reading early; what it printed is what counts.
    let writer = std::thread::spawn(move || {
        let _ = std::io::Write::write_all(&mut stdin, &input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Run {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `spill ARGS` in restricted mode (scope `conv`) and returns what it printed.
fn restricted(s: &Sandbox, args: &[&str], env: &[(&str, &str)], stdin: Vec<u8>) -> Run {
    let mut cmd = s
        .cmd(args)
        .env("SPILL_RESTRICTED", "1")
        .env("SPILL_SCOPE", "conv")
        .stdin(stdin);
    for (k, v) in env {
        cmd = cmd.env(k, v);
    }
    cmd.run()
}

#[test]
fn restricted_mode_names_no_path_in_any_message() {
    let s = Sandbox::new();
    let check = |what: &str, run: &Run, want: &str| {
        let text = format!("{}{}", run.out(), run.stderr);
        assert!(text.contains(want), "{what}: expected {want:?} in {text}");
        assert_no_path(&s, what, &text);
    };
    // An unsafe root (writable by others): readers exit 2, wrap degrades; both the envelope's
    // error and the warning would name the root.
    let open = s.path().join("open root");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let open_env = [("SPILL_DIR", open.to_str().unwrap())];
    let r = restricted(&s, &["cat", "sp_0000000000000000"], &open_env, Vec::new());
    check("unsafe root, cat", r.status(2), "unsafe store root <path>");
    let r = restricted(&s, &["wrap"], &open_env, lines_of_text(5000));
    check("unsafe root, wrap", r.status(0), "unsafe store root <path>");
    assert_eq!(r.json()["spilled"], false);
    assert!(r.json()["error"].as_str().unwrap().contains("<path>"));
    // A write that fails half-way (the file size limit): the temporary file's path.
    let mut cmd = s
        .cmd(&["wrap"])
        .env("SPILL_RESTRICTED", "1")
        .env("SPILL_SCOPE", "conv")
        .into_command();
    // SAFETY: setrlimit and signal are async-signal-safe and affect only the child.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 64 * 1024,
                rlim_max: 64 * 1024,
            };
            libc::setrlimit(libc::RLIMIT_FSIZE, &limit);
            Ok(())
        });
    }
    let r = run_feeding(cmd, lines_of_text(20_000));
    check("failed write, wrap", r.status(0), "cannot write <path>");
    assert_eq!(r.json()["spilled"], false);
    // A payload that is not a regular file.
    let reference = stored(&s, "conv", 3000);
    let payload = s.store_root().join("conv").join(&reference[3..]);
    std::fs::remove_file(&payload).unwrap();
    std::fs::create_dir(&payload).unwrap();
    let r = restricted(&s, &["cat", &reference], &[], Vec::new());
    check("not a regular file", r.status(2), "not a regular file");
    std::fs::remove_dir(&payload).unwrap();
    // A turn ledger that cannot be opened (a directory where the file should be).
    let ledger = format!(".turn-{}", &blake3::hash(b"t1").to_hex()[..16]);
    std::fs::create_dir(s.store_root().join("conv").join(ledger)).unwrap();
    let r = restricted(&s, &["wrap", "--turn", "t1"], &[], b"small\n".to_vec());
    check("turn ledger", r.status(0), "turn budget was not applied");
    assert!(r.out().starts_with("small\n"));
    // Another layout version.
    std::fs::write(s.store_root().join("VERSION"), "2\n").unwrap();
    let r = restricted(&s, &["cat", &reference], &[], Vec::new());
    check("layout version", r.status(2), "layout version");
    let r = restricted(&s, &["wrap"], &[], lines_of_text(5000));
    check("layout version, wrap", r.status(0), "layout version");
    std::fs::write(s.store_root().join("VERSION"), "1\n").unwrap();
    // A path given as SOURCE, and the parser's own errors echoing one.
    let file = s.file("f.txt", "x\n");
    let r = restricted(&s, &["cat", file.to_str().unwrap()], &[], Vec::new());
    check("path as SOURCE", r.status(2), "not \"<path>\"");
    let r = restricted(
        &s,
        &["cat", "sp_0000000000000000", file.to_str().unwrap()],
        &[],
        Vec::new(),
    );
    check("parser error", r.status(2), "<path>");
    // A switch whose unrecognised value is itself a path: restricted, and the warning hides it.
    let value = s.path().join("x");
    let r = s
        .cmd(&["wrap", "--", "true"])
        .env("SPILL_RESTRICTED", &value)
        .env("SPILL_ALLOW_RUN", &value)
        .run();
    check("switch values", r.status(2), "SPILL_ALLOW_RUN=\"<path>\"");
    assert!(
        r.stderr.contains("SPILL_RESTRICTED=\"<path>\""),
        "{}",
        r.stderr
    );
    // The same messages outside restricted mode do name the path (the checks above can fail).
    let r = s
        .cmd(&["cat", "sp_0000000000000000"])
        .env("SPILL_DIR", &open)
        .run();
    assert!(
        r.status(2).stderr.contains(open.to_str().unwrap()),
        "{}",
        r.stderr
    );
}

#[test]
fn restricted_gc_sees_and_evicts_only_its_own_scope() {
    let s = Sandbox::new();
    // `other` is older, so an eviction over the whole root would take it first.
    let theirs = stored(&s, "other", 3000);
    std::thread::sleep(Duration::from_millis(20));
    let mine = stored(&s, "conv", 2000);
    let size = |scope: &str, r: &str| {
        std::fs::metadata(s.store_root().join(scope).join(&r[3..]))
            .unwrap()
            .len()
    };
    let (my_size, their_size) = (size("conv", &mine), size("other", &theirs));
    let quota = (my_size + their_size / 2).to_string();
    let gc = |args: &[&str]| {
        let mut all = vec!["gc", "--json"];
        all.extend_from_slice(args);
        restricted(&s, &all, &[("SPILL_QUOTA", &quota)], Vec::new())
            .status(0)
            .json()
    };
    // The root is over the quota, this scope is not: nothing of anyone's goes.
    let report = gc(&["--dry-run"]);
    assert_eq!(report["usageBytes"], my_size, "{report}");
    assert_eq!(report["count"], 0, "{report}");
    let report = gc(&[]);
    assert_eq!(report["count"], 0, "{report}");
    let read = |scope: &str, r: &str| s.cmd(&["cat", r]).env("SPILL_SCOPE", scope).run();
    read("other", &theirs).status(0);
    read("conv", &mine).status(0);
    // This scope over its quota: only its own entries are evicted.
    let small = (my_size / 2).to_string();
    let report = restricted(
        &s,
        &["gc", "--json"],
        &[("SPILL_QUOTA", &small)],
        Vec::new(),
    )
    .status(0)
    .json();
    assert_eq!(report["count"], 1, "{report}");
    assert_eq!(report["removed"][0]["scope"], "conv", "{report}");
    assert_eq!(report["usageBytes"], 0, "{report}");
    read("other", &theirs).status(0);
    assert!(read("conv", &mine).status(2).stderr.contains("evicted"));
}

/// True once `pid` has exited (gone, or a zombie nobody has reaped yet).
fn is_dead(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state follows the command name, which is in parentheses.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Waits up to a minute for `path` to hold a pid.
fn read_pid(path: &Path) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn sigkill_of_wrap_or_its_group_leaves_no_part_of_the_command_running() {
    for whole_group in [false, true] {
        let s = Sandbox::new();
        let (shell, sleeper) = (s.path().join("shell.pid"), s.path().join("sleep.pid"));
        let script = format!(
            "echo $$ > '{}.tmp' && mv '{0}.tmp' '{0}'; sleep 1000 & echo $! > '{1}.tmp' && mv '{1}.tmp' '{1}'; wait",
            shell.display(),
            sleeper.display()
        );
        let mut cmd = s
            .cmd(&["wrap", "--timeout", "600s", "--", "sh", "-c", &script])
            .into_command();
        // wrap in a process group of its own, as a harness would run it.
        cmd.process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut wrap = cmd.spawn().unwrap();
        let pids = [read_pid(&shell), read_pid(&sleeper)];
        let wrap_pid = wrap.id() as i32;
        // SAFETY: signals the process (group) this test started.
        unsafe {
            libc::kill(
                if whole_group { -wrap_pid } else { wrap_pid },
                libc::SIGKILL,
            )
        };
        wrap.wait().unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while !pids.iter().all(|&p| is_dead(p)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let survivors: Vec<i32> = pids.iter().copied().filter(|&p| !is_dead(p)).collect();
        for &p in &survivors {
            // SAFETY: cleans up the processes this test started, so a failure leaks nothing.
            unsafe { libc::kill(p, libc::SIGKILL) };
        }
        assert!(
            survivors.is_empty(),
            "whole_group={whole_group}: {survivors:?} of {pids:?} outlived wrap"
        );
    }
}

#[test]
fn the_library_takes_any_inline_limit() {
    use spill::store::StoreConfig;
    use spill::wrap::{Capture, WrapOptions, capture};
    let dir = tempfile::tempdir().unwrap();
    let store = StoreConfig::new(dir.path().join("store"), "default".into());
    for max_inline in [u64::MAX, u64::MAX - 1] {
        let opts = WrapOptions {
            max_inline,
            ..WrapOptions::default()
        };
        let got = capture(&mut &b"1\n2\n"[..], &opts, &store, &|| false).unwrap();
        assert!(
            matches!(&got, Capture::Inline(b) if b == b"1\n2\n"),
            "{max_inline}: {got:?}"
        );
    }
}
