//! Live output (`wrap --detach-after`): a running command is a ref that can be read while it
//! runs, waited on and stopped; its bytes stay within `--max-file`; a dead supervisor reads as
//! interrupted. Every wait here polls with a bounded deadline (no sleep stands in for an event).

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Run, Sandbox};

/// Polls `f` every 20 ms until it returns `Some`, for at most `limit`.
#[track_caller]
fn until<T>(limit: Duration, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `wrap --detach-after 200ms -- sh -c SCRIPT`, which must still be running at the deadline:
/// the running envelope and the ref.
#[track_caller]
fn detach(sb: &Sandbox, script: &str, extra: &[&str]) -> (Value, String) {
    let mut args = vec!["wrap", "--detach-after", "200ms"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "sh", "-c", script]);
    let run = sb.cmd(&args).run();
    run.status(0);
    let env = run.json();
    assert_eq!(env["running"], true, "{env}");
    let id = env["ref"].as_str().unwrap().to_string();
    (env, id)
}

/// The scope directory of the default scope.
fn scope_dir(sb: &Sandbox) -> std::path::PathBuf {
    sb.store_root().join("default")
}

/// The running record of `id`, as JSON.
fn record(sb: &Sandbox, id: &str) -> Value {
    let path = scope_dir(sb).join(format!("{}.live", &id[3..]));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// True while a process with this pid exists (a zombie counts as gone).
fn alive(pid: i32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    !stat.is_empty() && !stat.contains(") Z ")
}

fn pid_in(path: &Path) -> i32 {
    until(Duration::from_secs(10), "the pid file", || {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|s| s.trim().parse().ok())
    })
}

/// The footer's cursor: `… · cursor N · …`.
fn cursor_of(run: &Run) -> u64 {
    let at = run.stderr.find(" · cursor ").expect(&run.stderr) + " · cursor ".len();
    run.stderr[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn a_command_still_running_at_the_deadline_is_a_ref_to_read_wait_on_and_keep() {
    let sb = Sandbox::new();
    let go = sb.path().join("go");
    let script = format!(
        "echo first line; echo 'error: it broke'; while [ ! -e {} ]; do sleep 0.02; done; echo last line; exit 3",
        go.display()
    );
    let started = Instant::now();
    let (env, id) = detach(&sb, &script, &[]);
    assert!(started.elapsed() < Duration::from_secs(5));
    // The output so far, as for a finished output: size, lines, preview, signals, commands.
    assert_eq!(env["sizeBytes"], 27, "{env}");
    assert_eq!(env["lines"], 2);
    assert_eq!(env["cursor"], 27);
    assert_eq!(env["preview"]["head"][0], "first line", "{env}");
    assert_eq!(env["signals"]["total"], 1, "{env}");
    assert!(env.get("exitCode").is_none(), "{env}");
    let hint = env["hint"].as_str().unwrap();
    for command in [
        format!("spill cat {id} --since 27"),
        format!("spill wait {id}"),
        format!("spill stop {id}"),
    ] {
        assert!(hint.contains(&command), "{hint}");
    }
    // Readers work on it and say it is still running.
    let cat = sb.cmd(&["cat", &id]).run();
    cat.status(0);
    assert_eq!(cat.out(), "first line\nerror: it broke\n");
    assert!(
        cat.stderr
            .contains(&format!("{id} is still running: 27 bytes, 2 lines so far")),
        "{}",
        cat.stderr
    );
    let search = sb.cmd(&["search", &id, "broke"]).run();
    search.status(0);
    assert!(search.out().contains("error: it broke"), "{}", search.out());
    assert!(search.stderr.contains("still running"), "{}", search.stderr);
    // Nothing new since the cursor.
    let none = sb.cmd(&["cat", &id, "--since", "27"]).run();
    none.status(0);
    assert_eq!(none.out(), "");
    assert!(none.stderr.contains("nothing new"), "{}", none.stderr);
    assert!(none.stderr.contains("still running"), "{}", none.stderr);
    assert_eq!(cursor_of(&none), 27);
    // wait at its timeout: what is new (nothing yet), still running, 124.
    let early = sb
        .cmd(&["wait", &id, "--timeout", "100ms", "--since", "27"])
        .run();
    early.status(124);
    assert!(early.stderr.contains("still running"), "{}", early.stderr);
    // The end: the final envelope and the command's status, as wrap -- CMD reports them.
    std::fs::write(&go, "").unwrap();
    let end = sb.cmd(&["wait", &id, "--timeout", "20s"]).run();
    end.status(3);
    let fin = end.json();
    assert_eq!(fin["exitCode"], 3, "{fin}");
    assert_eq!(fin["sizeBytes"], 37);
    assert!(fin.get("running").is_none(), "{fin}");
    // Sealed: an ordinary content-addressed payload, and the running ref still reads it.
    let sealed = fin["ref"].as_str().unwrap();
    let whole = "first line\nerror: it broke\nlast line\n";
    assert_eq!(sealed, crate::common::ref_of(whole.as_bytes()));
    for r in [sealed, id.as_str()] {
        let cat = sb.cmd(&["cat", r]).run();
        cat.status(0);
        assert_eq!(cat.out(), whole);
        assert!(!cat.stderr.contains("running"), "{}", cat.stderr);
    }
    let new = sb.cmd(&["cat", &id, "--since", "27"]).run();
    new.status(0);
    assert_eq!(new.out(), "last line\n");
    assert!(
        new.stderr.contains("exited with status 3"),
        "{}",
        new.stderr
    );
    assert!(new.stderr.contains("the end"), "{}", new.stderr);
    // Waiting on an ended entry answers at once, the same way.
    let again = sb.cmd(&["wait", &id]).run();
    again.status(3);
    assert_eq!(again.json()["ref"], sealed);
    // No byte file of the running entry is left behind.
    let leftovers: Vec<String> = std::fs::read_dir(scope_dir(&sb))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_command_that_ends_within_the_deadline_is_reported_as_wrap_reports_it() {
    let sb = Sandbox::new();
    let started = Instant::now();
    let run = sb
        .cmd(&[
            "wrap",
            "--detach-after",
            "30s",
            "--",
            "sh",
            "-c",
            "echo small; exit 7",
        ])
        .run();
    run.status(7);
    assert_eq!(run.out(), "small\n");
    assert!(started.elapsed() < Duration::from_secs(10));
    // Larger than --max-inline: the envelope with the exit code, not a running one.
    let run = sb
        .cmd(&[
            "wrap",
            "--detach-after",
            "30s",
            "--max-inline",
            "10",
            "--",
            "sh",
            "-c",
            "echo more than ten bytes",
        ])
        .run();
    run.status(0);
    let env = run.json();
    assert_eq!(env["exitCode"], 0, "{env}");
    assert!(env.get("running").is_none(), "{env}");
    assert_eq!(
        env["ref"].as_str().unwrap(),
        crate::common::ref_of(b"more than ten bytes\n")
    );
    // A command that cannot start: wrap's message and status.
    let run = sb
        .cmd(&[
            "wrap",
            "--detach-after",
            "30s",
            "--",
            "/nonexistent/spill-live-test",
        ])
        .run();
    run.status(127);
    assert!(run.stderr.contains("command not found"), "{}", run.stderr);
}

/// Within the deadline `wrap --detach-after` is `wrap -- CMD`: a CMD killed by a signal ends
/// `wrap` by that signal, and a `wrap` killed before the deadline takes CMD with it (only the
/// hand-over lets CMD outlive it).
#[test]
fn before_the_deadline_wrap_and_its_command_live_and_die_together() {
    use std::os::unix::process::ExitStatusExt;
    let sb = Sandbox::new();
    let killed = sb
        .cmd(&[
            "wrap",
            "--detach-after",
            "30s",
            "--",
            "sh",
            "-c",
            "echo x; kill -9 $$",
        ])
        .run();
    assert_eq!(killed.code, Some(-9), "{}", killed.stderr);
    assert_eq!(killed.out(), "x\n");
    // wrap killed before the deadline: CMD's process group goes too.
    let pidfile = sb.path().join("pid");
    let script = format!("sleep 60 & echo $! > {}; wait", pidfile.display());
    let mut front = sb
        .cmd(&["wrap", "--detach-after", "60s", "--", "sh", "-c", &script])
        .spawn_piped();
    let child = pid_in(&pidfile);
    assert!(alive(child));
    front.kill().unwrap();
    let status = front.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    until(
        Duration::from_secs(15),
        "the command to die with wrap",
        || (!alive(child)).then_some(()),
    );
    // After the hand-over it outlives wrap.
    let pidfile = sb.path().join("pid2");
    let script = format!("sleep 60 & echo $! > {}; wait", pidfile.display());
    let (_, id) = detach(&sb, &script, &[]);
    let child = pid_in(&pidfile);
    std::thread::sleep(Duration::from_millis(300));
    assert!(alive(child), "the handed-over command died with wrap");
    sb.cmd(&["stop", &id]).run().status(0);
    until(
        Duration::from_secs(15),
        "the stopped command to die",
        || (!alive(child)).then_some(()),
    );
}

/// Where no running entry can be made (the store cannot be written: Codex's read-only sandbox),
/// `--detach-after` runs CMD as `wrap -- CMD` does, once: a hook that sets it never costs a
/// command.
#[test]
fn without_a_writable_store_detach_after_runs_the_command_as_wrap_does() {
    let sb = Sandbox::new();
    let file = sb.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let counter = sb.path().join("runs");
    let script = format!("echo ran >> {}; echo small; exit 4", counter.display());
    let run = sb
        .cmd(&["wrap", "--detach-after", "30s", "--", "sh", "-c", &script])
        .env("SPILL_DIR", file.join("store"))
        .run();
    run.status(4);
    assert_eq!(run.out(), "small\n");
    assert_eq!(std::fs::read_to_string(&counter).unwrap(), "ran\n");
}

/// `--report-after`: the running envelope at the deadline, then, on the same stdout, the final
/// envelope and CMD's status; CMD is never handed over.
#[test]
fn report_after_prints_the_running_envelope_then_the_end() {
    let sb = Sandbox::new();
    let run = sb
        .cmd(&[
            "wrap",
            "--report-after",
            "200ms",
            "--",
            "sh",
            "-c",
            "echo early; sleep 1; echo late; exit 5",
        ])
        .run();
    run.status(5);
    let envelopes: Vec<Value> = run
        .out()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(envelopes.len(), 2, "{}", run.out());
    assert_eq!(envelopes[0]["running"], true, "{}", envelopes[0]);
    assert_eq!(envelopes[0]["preview"]["head"][0], "early");
    assert!(envelopes[1].get("running").is_none(), "{}", envelopes[1]);
    assert_eq!(envelopes[1]["exitCode"], 5);
    assert_eq!(envelopes[1]["preview"]["head"][1], "late");
    // The running ref reads the whole output once it has ended.
    let id = envelopes[0]["ref"].as_str().unwrap();
    let cat = sb.cmd(&["cat", id]).run();
    cat.status(0);
    assert_eq!(cat.out(), "early\nlate\n");
    // A command that ends first is reported once, as wrap reports it.
    let quick = sb
        .cmd(&[
            "wrap",
            "--report-after",
            "30s",
            "--",
            "sh",
            "-c",
            "echo quick; exit 2",
        ])
        .run();
    quick.status(2);
    assert_eq!(quick.out(), "quick\n");
}

/// `--report-after` on stdin (Claude Code's in-shell route): a running entry fed as the output
/// arrives; the running envelope at the deadline, the final one at the end; an output that ends
/// first passes through as `wrap` passes it.
#[test]
fn report_after_on_stdin_prints_the_running_envelope_then_the_end() {
    let sb = Sandbox::new();
    // A small output still running at the deadline: the running envelope, then the output
    // itself (it fits --max-inline), which the running ref reads too.
    let run = sb.shell("(echo early; sleep 1; echo late) | spill wrap --report-after 200ms");
    run.status(0);
    let out = run.out();
    let (first, rest) = out.split_once('\n').unwrap();
    let running: Value = serde_json::from_str(first).unwrap();
    assert_eq!(running["running"], true, "{running}");
    assert_eq!(running["preview"]["head"][0], "early");
    assert_eq!(rest, "early\nlate\n");
    let id = running["ref"].as_str().unwrap();
    let cat = sb.shell(&format!("spill cat {id}"));
    cat.status(0);
    assert_eq!(cat.out(), "early\nlate\n");
    // A large one: the running envelope, then the final envelope.
    let run = sb.shell("(seq 1 20000; sleep 1; echo end) | spill wrap --report-after 200ms");
    run.status(0);
    let envelopes: Vec<Value> = run
        .out()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(envelopes.len(), 2, "{}", run.out());
    assert_eq!(envelopes[0]["running"], true);
    assert!(envelopes[1].get("running").is_none(), "{}", envelopes[1]);
    let tail = envelopes[1]["preview"]["tail"].as_array().unwrap();
    assert_eq!(tail.last().unwrap(), "end");
    // One that ends first passes through, and nothing more is stored.
    let count = || {
        std::fs::read_dir(sb.store_root().join("default"))
            .map(|d| d.count())
            .unwrap_or(0)
    };
    let before = count();
    let quick = sb
        .cmd(&["wrap", "--report-after", "30s"])
        .stdin("quick\n")
        .run();
    quick.status(0);
    assert_eq!(quick.out(), "quick\n");
    assert_eq!(count(), before);
}

/// `--report-every` (Gemini CLI's hook, which cancels a command silent for its inactivity
/// timeout): after the running envelope, a line at each interval in which the output grew;
/// nothing while the command prints nothing, so a silent command stays silent.
#[test]
fn report_every_prints_a_line_while_the_output_grows_and_nothing_while_it_is_silent() {
    let sb = Sandbox::new();
    // The script run both ways: its output piped in, and as `-- bash -c SCRIPT`.
    let both = |script: &str, every: &str| {
        [
            (
                "stdin",
                sb.shell(&format!(
                    "({script}) | spill wrap --report-after 200ms --report-every {every}"
                )),
            ),
            (
                "CMD",
                sb.cmd(&[
                    "wrap",
                    "--report-after",
                    "200ms",
                    "--report-every",
                    every,
                    "--",
                    "bash",
                    "-c",
                    script,
                ])
                .run(),
            ),
        ]
    };
    for (how, run) in both(
        "for i in 1 2 3 4 5 6; do echo line $i; sleep 0.3; done",
        "400ms",
    ) {
        run.status(0);
        let out = run.out();
        let first: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        assert_eq!(first["running"], true, "{how}: {out}");
        let id = first["ref"].as_str().unwrap();
        let lines: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with(&format!("[spill: {id} still running: ")))
            .collect();
        assert!(!lines.is_empty(), "{how}: {out}");
        // Each names a cursor that reads on from there.
        let cursor: u64 = lines[0]
            .rsplit_once("--since ")
            .unwrap()
            .1
            .trim_end_matches(']')
            .parse()
            .unwrap();
        assert!(cursor > first["cursor"].as_u64().unwrap(), "{how}: {out}");
        // The end follows: the output itself (it fits --max-inline) or its final envelope.
        assert!(
            out.ends_with("line 6\n") || out.contains("\"exitCode\":0"),
            "{how}: {out}"
        );
    }
    // Silent for a second: nothing is printed until the command prints, so the first report
    // (the running envelope) already holds its first line.
    for (how, run) in both("sleep 1; echo done; sleep 0.6", "200ms") {
        run.status(0);
        let out = run.out();
        let first: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        assert_eq!(first["running"], true, "{how}: {out}");
        assert_eq!(first["preview"]["head"][0], "done", "{how}: {out}");
    }
    // It needs --report-after.
    let run = sb
        .cmd(&["wrap", "--report-every", "1s", "--", "true"])
        .run();
    run.status(2);
}

#[test]
fn a_cursor_returns_only_what_is_new() {
    let sb = Sandbox::new();
    let (one, two) = (sb.path().join("one"), sb.path().join("two"));
    let script = format!(
        "echo alpha; while [ ! -e {one} ]; do sleep 0.02; done; echo beta; while [ ! -e {two} ]; do sleep 0.02; done; echo gamma",
        one = one.display(),
        two = two.display()
    );
    let (env, id) = detach(&sb, &script, &[]);
    let c0 = env["cursor"].as_u64().unwrap();
    assert_eq!(c0, 6);
    std::fs::write(&one, "").unwrap();
    let page = until(Duration::from_secs(10), "beta", || {
        let run = sb.cmd(&["cat", &id, "--since", &c0.to_string()]).run();
        (run.code == Some(0) && !run.stdout.is_empty()).then_some(run)
    });
    assert_eq!(page.out(), "beta\n");
    let c1 = cursor_of(&page);
    assert_eq!(c1, 11);
    // wait at its timeout prints what is new since the cursor, and says it is running.
    let waited = sb
        .cmd(&[
            "wait",
            &id,
            "--timeout",
            "100ms",
            "--since",
            &c0.to_string(),
        ])
        .run();
    waited.status(124);
    assert_eq!(waited.out(), "beta\n");
    assert!(
        waited
            .stderr
            .contains(&format!("next: spill wait {id} --since 11")),
        "{}",
        waited.stderr
    );
    std::fs::write(&two, "").unwrap();
    sb.cmd(&["wait", &id, "--timeout", "20s"]).run().status(0);
    let last = sb.cmd(&["cat", &id, "--since", &c1.to_string()]).run();
    last.status(0);
    assert_eq!(last.out(), "gamma\n");
    // A bound cuts a page at its last line break; the footer's cursor reads on from there.
    let bounded = sb
        .cmd(&["cat", &id, "--since", "0", "--max-bytes", "8"])
        .run();
    bounded.status(0);
    assert_eq!(bounded.out(), "alpha\n");
    assert_eq!(cursor_of(&bounded), 6);
    assert!(bounded.stderr.contains("--since 6"), "{}", bounded.stderr);
}

#[test]
fn stop_ends_the_command_and_its_process_group_and_seals_the_output() {
    let sb = Sandbox::new();
    let pidfile = sb.path().join("pid");
    let script = format!(
        "echo started; sleep 60 & echo $! > {}; wait",
        pidfile.display()
    );
    let (_, id) = detach(&sb, &script, &[]);
    let child = pid_in(&pidfile);
    assert!(alive(child));
    let stop = sb.cmd(&["stop", &id]).run();
    stop.status(0);
    assert!(
        stop.stderr.contains(&format!("stopped {id}")),
        "{}",
        stop.stderr
    );
    until(Duration::from_secs(10), "the group to end", || {
        (!alive(child)).then_some(())
    });
    let end = sb.cmd(&["wait", &id, "--timeout", "10s"]).run();
    end.status(143);
    let fin = end.json();
    assert_eq!(fin["exitCode"], 143, "{fin}");
    assert_eq!(fin["interrupted"], true, "{fin}");
    assert_eq!(
        fin["ref"].as_str().unwrap(),
        crate::common::ref_of(b"started\n")
    );
    // Stopping an ended entry says so and changes nothing.
    let again = sb.cmd(&["stop", &id]).run();
    again.status(0);
    assert!(
        again.stderr.contains("had already ended"),
        "{}",
        again.stderr
    );
    // Not a running entry at all: a clear error.
    let unknown = sb.cmd(&["stop", "sp_0123456789abcdef"]).run();
    unknown.status(2);
    assert!(
        unknown.stderr.contains("not a running entry"),
        "{}",
        unknown.stderr
    );
    let bad = sb.cmd(&["wait", "@1"]).run();
    bad.status(2);
}

#[test]
fn a_killed_supervisor_leaves_an_interrupted_entry_and_no_process_behind() {
    let sb = Sandbox::new();
    let pidfile = sb.path().join("pid");
    let script = format!(
        "echo partial output; sleep 60 & echo $! > {}; wait",
        pidfile.display()
    );
    let (_, id) = detach(&sb, &script, &[]);
    let child = pid_in(&pidfile);
    let supervisor = record(&sb, &id)["pid"].as_i64().unwrap() as i32;
    // SAFETY: kill on a pid this test's command started.
    assert_eq!(unsafe { libc::kill(supervisor, libc::SIGKILL) }, 0);
    // The command's process group does not outlive its supervisor.
    until(Duration::from_secs(10), "the group to die", || {
        (!alive(child)).then_some(())
    });
    // Readers say interrupted, the bytes so far stay readable; nothing says it finished.
    let cat = until(Duration::from_secs(10), "interrupted", || {
        let run = sb.cmd(&["cat", &id]).run();
        run.stderr.contains("was interrupted").then_some(run)
    });
    cat.status(0);
    assert_eq!(cat.out(), "partial output\n");
    let ls = sb.cmd(&["ls", "--json"]).run();
    ls.status(0);
    let row = &ls.json()["entries"][0];
    assert_eq!(row["ref"], id.as_str());
    assert_eq!(row["running"], false, "{row}");
    let wait = sb.cmd(&["wait", &id, "--timeout", "5s"]).run();
    wait.status(2);
    assert_eq!(wait.out(), "partial output\n");
    assert!(wait.stderr.contains("interrupted"), "{}", wait.stderr);
    assert!(!wait.stderr.contains("exited"), "{}", wait.stderr);
    // gc cleans it up: the record and its byte files.
    let gc = sb.cmd(&["gc"]).run();
    gc.status(0);
    assert!(
        gc.out().contains(&format!("{}.live", &id[3..])),
        "{}",
        gc.out()
    );
    let left: Vec<String> = std::fs::read_dir(scope_dir(&sb))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, [format!("{}.gone", &id[3..])]);
    let gone = sb.cmd(&["cat", &id]).run();
    gone.status(2);
    assert!(gone.stderr.contains("has been removed"), "{}", gone.stderr);
}

#[test]
fn an_endless_writer_costs_a_bounded_amount_of_disk() {
    let sb = Sandbox::new();
    let cap: u64 = 64 * 1024;
    let (_, id) = detach(&sb, "exec yes", &["--max-file", "64K"]);
    // Let it write well past its cap.
    let row = until(Duration::from_secs(30), "4 MiB of output", || {
        let ls = sb.cmd(&["ls", "--json"]).run();
        let v = ls.json();
        let row = v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["ref"] == id.as_str())
            .cloned()?;
        (row["sizeBytes"].as_u64()? > 4 << 20).then_some(row)
    });
    assert_eq!(row["running"], true, "{row}");
    // What the running entry holds on disk stays within its cap.
    assert!(row["storedBytes"].as_u64().unwrap() <= cap + 64, "{row}");
    assert!(
        row["summary"]
            .as_str()
            .unwrap()
            .contains("cut by --max-file"),
        "{row}"
    );
    // Everything in the scope (the running view and the sealing copy) stays bounded too.
    let on_disk: u64 = std::fs::read_dir(scope_dir(&sb))
        .unwrap()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    assert!(on_disk <= 2 * cap + 8192, "{on_disk}");
    // The bytes so far: head, the marker, the rolling tail.
    let cat = sb.cmd(&["cat", &id, "--raw", "--bytes", "0:"]).run();
    cat.status(0);
    let text = cat.out();
    assert!(text.starts_with("y\ny\n"));
    assert!(
        text.contains("bytes dropped here by --max-file so far"),
        "{}",
        &text[..100]
    );
    // A cursor in the cut part reads on from the first byte kept, and says what was skipped.
    let since = sb.cmd(&["cat", &id, "--since", "60000"]).run();
    since.status(0);
    assert!(
        since.stderr.contains("cut by --max-file"),
        "{}",
        since.stderr
    );
    assert!(since.out().starts_with('y') || since.out().starts_with('\n'));
    sb.cmd(&["stop", &id]).run().status(0);
    let end = sb.cmd(&["wait", &id, "--timeout", "10s"]).run();
    end.status(143);
    let fin = end.json();
    assert_eq!(fin["complete"], false, "{fin}");
    assert!(fin["storedBytes"].as_u64().unwrap() <= cap + 256, "{fin}");
}

#[test]
fn the_text_envelope_and_the_json_readers_say_running() {
    let sb = Sandbox::new();
    let go = sb.path().join("go");
    let script = format!(
        "echo '[1,2,3]'; while [ ! -e {} ]; do sleep 0.02; done",
        go.display()
    );
    let run = sb
        .cmd(&[
            "wrap",
            "--format",
            "text",
            "--detach-after",
            "200ms",
            "--",
            "sh",
            "-c",
            &script,
        ])
        .run();
    run.status(0);
    let first = run.out().lines().next().unwrap().to_string();
    assert!(
        first.starts_with("spill: 8 B so far, still running as sp_"),
        "{first}"
    );
    let id = first
        .split(" as ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    // The bytes so far parse: shape and extract answer, and say it is still running.
    let got = sb.cmd(&["extract", &id, "$[1]"]).run();
    got.status(0);
    assert_eq!(got.out().trim(), "2");
    assert!(got.stderr.contains("still running"), "{}", got.stderr);
    let shape = sb.cmd(&["shape", &id]).run();
    shape.status(0);
    assert!(
        shape.out().contains("array[3] of integer"),
        "{}",
        shape.out()
    );
    std::fs::write(&go, "").unwrap();
    sb.cmd(&["wait", &id, "--timeout", "20s"]).run().status(0);
}

/// `spill mcp` kept open for a whole test: requests one at a time, each answer awaited with a
/// bounded deadline, notifications kept.
struct Mcp {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<Value>,
    notifications: Vec<Value>,
    next_id: u64,
    /// `tools/list`'s output schemas, by tool name.
    schemas: std::collections::HashMap<String, Value>,
}

impl Mcp {
    fn start(sb: &Sandbox, scope: &str) -> Mcp {
        use std::io::BufRead;
        let mut child = sb.cmd(&["mcp"]).env("SPILL_SCOPE", scope).spawn_piped();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(|l| l.ok())
            {
                if tx
                    .send(serde_json::from_str::<Value>(&line).unwrap())
                    .is_err()
                {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut mcp = Mcp {
            child,
            stdin,
            lines,
            notifications: Vec::new(),
            next_id: 1,
            schemas: Default::default(),
        };
        mcp.request(
            "initialize",
            serde_json::json!({"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "live-test", "version": "1"}}),
        );
        mcp.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let listed = mcp.request("tools/list", serde_json::json!({}));
        for tool in listed["result"]["tools"].as_array().unwrap() {
            mcp.schemas.insert(
                tool["name"].as_str().unwrap().to_string(),
                tool["outputSchema"].clone(),
            );
        }
        mcp
    }

    fn send(&mut self, message: &Value) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and returns its response (notifications before it are kept).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(
            &serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {method} within 60 s"));
            if message["id"] == id {
                return message;
            }
            self.notifications.push(message);
        }
    }

    /// Calls a tool; its result, whose structuredContent (when there is one) must match the
    /// tool's outputSchema.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.call_with_meta(tool, arguments, None)
    }

    fn call_with_meta(&mut self, tool: &str, arguments: Value, meta: Option<Value>) -> Value {
        let mut params = serde_json::json!({"name": tool, "arguments": arguments});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        let answer = self.request("tools/call", params);
        let result = answer["result"].clone();
        assert!(result.is_object(), "{answer}");
        if let Some(structured) = result.get("structuredContent") {
            let validator = jsonschema::validator_for(&self.schemas[tool]).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(structured)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{tool}: {errors:?} in {structured}");
        }
        result
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        self.stdin.take();
        if !crate::common::exits_within(&mut self.child, Duration::from_secs(10)) {
            panic!("spill mcp did not exit after its stdin closed");
        }
    }
}

fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect()
}

/// `wrap --detach-after 200ms` in `scope`, still running at the deadline: its ref.
#[track_caller]
pub(crate) fn detach_in(sb: &Sandbox, scope: &str, script: &str) -> String {
    let run = sb
        .cmd(&["wrap", "--detach-after", "200ms", "--", "sh", "-c", script])
        .env("SPILL_SCOPE", scope)
        .run();
    run.status(0);
    let env = run.json();
    assert_eq!(env["running"], true, "{env}");
    env["ref"].as_str().unwrap().to_string()
}

#[test]
fn the_mcp_tools_read_a_running_command_from_a_cursor_and_wait_for_its_end() {
    let sb = Sandbox::new();
    let (one, two) = (sb.path().join("one"), sb.path().join("two"));
    let script = format!(
        "echo alpha; echo 'error: it broke'; while [ ! -e {one} ]; do sleep 0.02; done; echo beta; while [ ! -e {two} ]; do sleep 0.02; done; echo gamma; exit 3",
        one = one.display(),
        two = two.display()
    );
    let id = detach_in(&sb, "conv", &script);
    let mut mcp = Mcp::start(&sb, "conv");
    assert!(mcp.schemas.contains_key("wait") && mcp.schemas.contains_key("stop"));
    // Every reading tool says it is still running, how far it has grown and the cursor.
    let cat = mcp.call("cat", serde_json::json!({"source": id}));
    assert_eq!(cat["isError"], false, "{cat}");
    let live = &cat["structuredContent"]["live"];
    assert_eq!(live["state"], "running", "{cat}");
    assert_eq!(live["ref"], id.as_str());
    assert_eq!(
        (live["sizeBytes"].as_u64(), live["lines"].as_u64()),
        (Some(22), Some(2))
    );
    assert_eq!(live["cursor"], 22);
    assert!(text(&cat).starts_with("alpha\nerror: it broke\n"), "{cat}");
    assert!(
        text(&cat).contains(&format!(
            "{id} is still running: 22 bytes, 2 lines so far (cursor 22)"
        )),
        "{cat}"
    );
    for (tool, arguments) in [
        (
            "search",
            serde_json::json!({"source": id, "pattern": "broke"}),
        ),
        ("shape", serde_json::json!({"source": id})),
    ] {
        let answer = mcp.call(tool, arguments);
        assert_eq!(answer["isError"], false, "{answer}");
        assert_eq!(
            answer["structuredContent"]["live"]["state"], "running",
            "{answer}"
        );
        assert!(text(&answer).contains("still running"), "{answer}");
    }
    // Nothing new since the cursor; then only the new bytes.
    let none = mcp.call("cat", serde_json::json!({"source": id, "since": 22}));
    assert_eq!(none["structuredContent"]["text"], "", "{none}");
    assert!(text(&none).contains("nothing new"), "{none}");
    std::fs::write(&one, "").unwrap();
    let page = until(Duration::from_secs(10), "beta", || {
        let page = mcp.call("cat", serde_json::json!({"source": id, "since": 22}));
        (page["structuredContent"]["text"] != "").then_some(page)
    });
    assert_eq!(page["structuredContent"]["text"], "beta\n", "{page}");
    let live = &page["structuredContent"]["live"];
    assert_eq!(
        (live["state"].as_str(), live["cursor"].as_u64()),
        (Some("running"), Some(27))
    );
    let footer = page["structuredContent"]["footer"].as_str().unwrap();
    assert!(footer.contains("still running"), "{footer}");
    assert!(
        footer.contains(&format!("next: spill cat {id} --since 27")),
        "{footer}"
    );
    // A bounded page ends at a line break, its cursor reads on from there.
    let bounded = mcp.call(
        "cat",
        serde_json::json!({"source": id, "since": 0, "max_bytes": 8}),
    );
    assert_eq!(bounded["structuredContent"]["text"], "alpha\n", "{bounded}");
    assert_eq!(bounded["structuredContent"]["live"]["cursor"], 6);
    let refused = mcp.call(
        "cat",
        serde_json::json!({"source": id, "since": 0, "lines": "1:2"}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    // wait at its timeout: what is new since the cursor, still running, with progress.
    let early = mcp.call_with_meta(
        "wait",
        serde_json::json!({"source": id, "timeout": "1500ms", "since": 22}),
        Some(serde_json::json!({"progressToken": "tok-1"})),
    );
    assert_eq!(early["isError"], false, "{early}");
    assert_eq!(early["structuredContent"]["text"], "beta\n", "{early}");
    assert_eq!(early["structuredContent"]["live"]["state"], "running");
    assert!(
        text(&early).contains(&format!("next: spill wait {id} --since 27")),
        "{early}"
    );
    let progress: Vec<&Value> = mcp
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert!(!progress.is_empty(), "{:?}", mcp.notifications);
    assert!(
        progress
            .iter()
            .all(|n| n["params"]["progressToken"] == "tok-1")
    );
    assert!(
        progress[0]["params"]["message"]
            .as_str()
            .unwrap()
            .contains("still running"),
        "{progress:?}"
    );
    // The end: the final envelope and the command's status, as spill wait gives them.
    std::fs::write(&two, "").unwrap();
    let end = mcp.call("wait", serde_json::json!({"source": id, "timeout": 20}));
    assert_eq!(end["isError"], false, "{end}");
    let envelope = &end["structuredContent"]["envelope"];
    assert_eq!(envelope["exitCode"], 3, "{end}");
    assert_eq!(envelope["sizeBytes"], 33);
    assert!(
        envelope.get("path").is_none(),
        "the server is restricted: {envelope}"
    );
    let whole = "alpha\nerror: it broke\nbeta\ngamma\n";
    assert_eq!(
        envelope["ref"],
        crate::common::ref_of(whole.as_bytes()).as_str()
    );
    let live = &end["structuredContent"]["live"];
    assert_eq!(
        (live["state"].as_str(), live["exitCode"].as_i64()),
        (Some("exited"), Some(3))
    );
    assert_eq!(
        serde_json::from_str::<Value>(text(&end).lines().next().unwrap()).unwrap(),
        *envelope
    );
    // After the end the running ref reads the whole output, and says how it ended.
    let last = mcp.call("cat", serde_json::json!({"source": id, "since": 27}));
    assert_eq!(last["structuredContent"]["text"], "gamma\n", "{last}");
    assert_eq!(last["structuredContent"]["live"]["exitCode"], 3, "{last}");
    assert!(text(&last).contains("exited with status 3"), "{last}");
    let all = mcp.call("cat", serde_json::json!({"source": id}));
    assert!(text(&all).starts_with(whole), "{all}");
    assert!(
        text(&all).contains(&format!("{id} has ended: exited with status 3")),
        "{all}"
    );
    assert_eq!(all["structuredContent"]["live"]["sizeBytes"], 33);
}

#[test]
fn the_mcp_stop_tool_ends_the_command_and_an_interrupted_entry_reads_as_such() {
    let sb = Sandbox::new();
    let pidfile = sb.path().join("pid");
    let script = format!(
        "echo started; sleep 60 & echo $! > {}; wait",
        pidfile.display()
    );
    let id = detach_in(&sb, "conv", &script);
    let child = pid_in(&pidfile);
    // Another conversation's server cannot name it.
    {
        let mut other = Mcp::start(&sb, "other");
        let refused = other.call("stop", serde_json::json!({"source": id}));
        assert_eq!(refused["isError"], true, "{refused}");
        assert!(
            text(&refused).contains("not a running entry in this scope"),
            "{refused}"
        );
        let refused = other.call("wait", serde_json::json!({"source": id, "timeout": 1}));
        assert_eq!(refused["isError"], true, "{refused}");
    }
    assert!(alive(child));
    let mut mcp = Mcp::start(&sb, "conv");
    let stopped = mcp.call("stop", serde_json::json!({"source": id}));
    assert_eq!(stopped["isError"], false, "{stopped}");
    assert_eq!(
        stopped["structuredContent"]["stopped"], "ended",
        "{stopped}"
    );
    assert!(
        text(&stopped).contains(&format!("stopped {id} (status 143)")),
        "{stopped}"
    );
    let live = &stopped["structuredContent"]["live"];
    assert_eq!(
        (live["state"].as_str(), live["exitCode"].as_i64()),
        (Some("exited"), Some(143))
    );
    until(Duration::from_secs(10), "the group to end", || {
        (!alive(child)).then_some(())
    });
    let end = mcp.call("wait", serde_json::json!({"source": id}));
    assert_eq!(
        end["structuredContent"]["envelope"]["exitCode"], 143,
        "{end}"
    );
    assert_eq!(
        end["structuredContent"]["envelope"]["interrupted"], true,
        "{end}"
    );
    let again = mcp.call("stop", serde_json::json!({"source": id}));
    assert_eq!(
        again["structuredContent"]["stopped"], "already ended",
        "{again}"
    );
    // A supervisor killed by SIGKILL: its entry reads as interrupted, never as finished.
    let pidfile = sb.path().join("pid2");
    let script = format!(
        "echo partial output; sleep 60 & echo $! > {}; wait",
        pidfile.display()
    );
    let id = detach_in(&sb, "conv", &script);
    let child = pid_in(&pidfile);
    let path = sb
        .store_root()
        .join("conv")
        .join(format!("{}.live", &id[3..]));
    let record: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let supervisor = record["pid"].as_i64().unwrap() as i32;
    // SAFETY: kill on a pid this test's command started.
    assert_eq!(unsafe { libc::kill(supervisor, libc::SIGKILL) }, 0);
    until(Duration::from_secs(10), "the group to die", || {
        (!alive(child)).then_some(())
    });
    let cat = until(Duration::from_secs(10), "interrupted", || {
        let cat = mcp.call("cat", serde_json::json!({"source": id}));
        (cat["structuredContent"]["live"]["state"] == "interrupted").then_some(cat)
    });
    assert_eq!(
        cat["structuredContent"]["text"], "partial output\n",
        "{cat}"
    );
    assert!(
        text(&cat).contains(&format!("{id} was interrupted")),
        "{cat}"
    );
    assert!(!text(&cat).contains("exited"), "{cat}");
    let wait = mcp.call("wait", serde_json::json!({"source": id, "timeout": 5}));
    assert_eq!(wait["isError"], true, "{wait}");
    assert_eq!(
        wait["structuredContent"]["live"]["state"], "interrupted",
        "{wait}"
    );
    assert!(text(&wait).contains("was interrupted"), "{wait}");
    let stop = mcp.call("stop", serde_json::json!({"source": id}));
    assert_eq!(stop["structuredContent"]["stopped"], "killed", "{stop}");
    assert_eq!(
        stop["structuredContent"]["live"]["state"], "interrupted",
        "{stop}"
    );
}

#[test]
fn a_restricted_wait_names_no_path_even_when_the_command_was_started_unrestricted() {
    let sb = Sandbox::new();
    // Output over --max-inline, ending a moment after the deadline: the final envelope is
    // spilled JSON, rendered by the supervisor of an unrestricted wrap (with its `path`).
    let id = detach_in(&sb, "conv", "sleep 0.5; seq 1 20000");
    let unrestricted = sb
        .cmd(&["wait", &id, "--timeout", "20s"])
        .env("SPILL_SCOPE", "conv")
        .run();
    unrestricted.status(0);
    assert!(
        unrestricted.json()["path"].is_string(),
        "{}",
        unrestricted.out()
    );
    let restricted = sb
        .cmd(&["wait", &id, "--timeout", "20s"])
        .env("SPILL_SCOPE", "conv")
        .env("SPILL_RESTRICTED", "1")
        .run();
    restricted.status(0);
    let env = restricted.json();
    assert!(env.get("path").is_none(), "{env}");
    assert_eq!(env["ref"], unrestricted.json()["ref"], "{env}");
    assert!(
        !restricted
            .out()
            .contains(&sb.store_root().display().to_string())
    );
}

/// A command fed to `wrap --report-after` on stdin that ends with less than `--max-inline` of
/// output has no final envelope (`wrap` passes it through): `spill wait` and the MCP `wait`
/// answer with the output itself, never with nothing (Claude Code's model once read "(Bash
/// completed with no output)" for a build it waited on). Under the supervisor the end is always
/// a final envelope (the tests above).
#[test]
fn waiting_on_a_short_output_reads_the_output_itself() {
    let sb = Sandbox::new();
    let run = sb.shell(
        "(echo step 1; sleep 1; echo 'error: it broke') | SPILL_SCOPE=conv spill wrap --report-after 200ms",
    );
    run.status(0);
    let first = run.out().lines().next().unwrap().to_string();
    let id = serde_json::from_str::<Value>(&first).unwrap()["ref"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        run.out().ends_with("\nstep 1\nerror: it broke\n"),
        "{}",
        run.out()
    );
    let wait = sb.cmd(&["wait", &id]).env("SPILL_SCOPE", "conv").run();
    wait.status(0);
    assert_eq!(wait.out(), "step 1\nerror: it broke\n");
    let mut mcp = Mcp::start(&sb, "conv");
    let answer = mcp.call("wait", serde_json::json!({"source": id}));
    assert_eq!(answer["isError"], false, "{answer}");
    assert!(
        text(&answer).starts_with("step 1\nerror: it broke\n"),
        "{answer}"
    );
}
