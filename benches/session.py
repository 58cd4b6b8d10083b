#!/usr/bin/env python3
"""benches/session.py — the session benchmark: what a model is sent over a whole coding session.

    benches/session.py [--spill PATH] [--rtk PATH] [--tokf PATH] [--only MODES] [--json FILE]
                       [--keep DIR] [--check]

A scripted repository (benches/session_repo.py: Python, Rust and C code with failing tests, a git
history of 400 commits, logs, JSON and NDJSON dumps, a large asset) and the commands an agent runs
while fixing it, in order, with the edits between them (as a harness's file tools would make
them, not counted). Each command has its decisive fact: the strings that must reach the model for
the step to succeed ("test_range_is_half_open", "45M ... intro.mp4", "eth137").

Each mode runs the whole session on a fresh copy of the repository:
  raw           the command's output, whole (stdout and stderr merged)
  spill         the output piped into `spill wrap --label CMD`, as the hooks run it
  spill-condense  the same with `--condense`
  rtk           the command as rtk's Claude Code hook rewrites it (`git log` -> `rtk git log`,
                `cat F` -> `rtk read F`, ...; the rest run unchanged), if --rtk names a binary
                (rtk-ai/rtk, built from its source: the crate named rtk on crates.io is
                another program)
  tokf          the command as `tokf rewrite` gives it to tokf's hook (`tokf run git log`), if
                --tokf names a binary, or is `install` (tokf 0.2.54 from crates.io, built once
                into ~/.cache/spill-bench-session)

For each mode it reports the bytes sent, the facts visible in them, and — with follow-ups — what
an agent that does not see the fact does next and what that costs: for spill, the commands of the
envelope's hint, in order, until the fact is seen (at most three; their output is what the model
is sent); for a lossy filter, reading its saved raw output where its answer says how (`tokf raw
last`), else running the command again without the filter. "Stored"
counts the facts in what spill stored (`spill cat REF`), whether or not the hint found them.

--check N exits 1 when, in a spill mode, fewer than N facts are seen with follow-ups or a stored
output does not hold its fact (CI runs it with the count the repository holds as its baseline,
so an envelope that finds less fails). Needs python3 (with pytest: a venv under
~/.cache/spill-bench-session is made when `python -m pytest` is missing), git, cargo, cc, make
and jq. Timings are not measured.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import session_repo  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTEST = "8.3.5"
TOKF = "0.2.54"


def edit(path, old, new):
    """An edit step: replaces `old` (which must occur once) by `new` in `path`."""
    def apply(repo):
        full = os.path.join(repo, path)
        with open(full) as f:
            text = f.read()
        assert text.count(old) == 1, f"edit of {path}: {old!r} occurs {text.count(old)} times"
        with open(full, "w") as f:
            f.write(text.replace(old, new))
    return ("edit", f"{path}: {old.strip()!r} -> {new.strip()!r}", apply)


# The session: (command, decisive fact) in the order an agent runs them, with edits between.
# A fact is a list of strings that must all be in what the model is sent.
SESSION = [
    ("git status", ["config/settings.toml"]),
    ("python -m pytest py/tests", ["test_range_is_half_open"]),
    ("python -m pytest -v py/tests", ["test_range_is_half_open", "FAILED"]),
    ("cat py/ledger/parse.py", ["int(end) + 1"]),
    ("grep -rn 'def parse_range' --include='*.py' .", ["./vendor/legacy/ledger/parse.py"]),
    ("find . -name '*.py' -not -path './.git/*'", ["./vendor/legacy/ledger/parse.py"]),
    ("diff -u vendor/legacy/ledger/parse.py py/ledger/parse.py", ["+def helper_28"]),
    ("git log --oneline", ["treat end of range as inclusive"]),
    ("git log", ["treat end of range as inclusive"]),
    ("git log --format='%h %ad %an %s' --date=short", ["Dana Whitfield"]),
    ("git log --format='%h %an %s' -- py/ledger/parse.py", ["Dana Whitfield"]),
    ("git blame py/ledger/parse.py", ["Dana Whitfield", "int(end) + 1"]),
    ("git log -S 'int(end) + 1' --oneline", ["treat end of range as inclusive"]),
    ("git show $(git log --format=%h -1 --grep inclusive)",
     ["+    return list(range(int(start), int(end) + 1))"]),
    edit("py/ledger/parse.py", "int(end) + 1))", "int(end)))"),
    ("python -m pytest -q py/tests", ["404 passed"]),
    ("git diff", ['+currency = "USD"']),
    ("python3 -m unittest discover -s py/tests_unit -v", ["FAIL: test_currency_default"]),
    edit("py/tests_unit/test_currency.py", 'return "USD"', 'return "EUR"'),
    ("python3 -m unittest discover -s py/tests_unit", ["Ran 60 tests", "OK"]),
    ("python3 py/tools/migrate.py", ["KeyError: 'currency'", "in convert"]),
    ("python3 py/tools/profile.py", ["reconcile_accounts"]),
    ("python3 py/tools/complexity.py", ["build_summary - F"]),
    ("python3 py/tools/check_config.py", ["cache.legacy_mode"]),
    ("cat logs/app.log", ["gateway timeout"]),
    ("tail -n 20000 logs/app.log", ["gateway timeout"]),
    ("grep -n WARN logs/app.log", ["slow response"]),
    ("cat logs/access.log", ["/api/v2/export", "503"]),
    ("grep -v ' 200 ' logs/access.log", ["/api/v2/export"]),
    ("wc -l logs/app.log logs/access.log", ["30000 logs/app.log"]),
    ("cat data/interfaces.json", ["eth137"]),
    ("jq '.[] | select(.operstate != \"UP\") | .ifname' data/interfaces.json", ["eth137"]),
    ("cat data/lint-report.json", ["no-undef"]),
    ("jq -c '.[]' data/lint-report.json", ["no-undef"]),
    ("cat data/events.ndjson", ["evt-03317"]),
    ("grep -c accepted data/events.ndjson", ["4999"]),
    ("head -n 3 data/events.ndjson", ['"evt-00000"']),
    ("cargo build --manifest-path rs/Cargo.toml", ["error[E0308]", "src/report.rs"]),
    ("cargo build --manifest-path rs/Cargo.toml --message-format=json", ["E0308"]),
    edit("rs/src/report.rs", 'let total: u32 = "12";', "let total: u32 = 12;"),
    ("cargo build --manifest-path rs/Cargo.toml", ["Finished"]),
    ("cargo test --manifest-path rs/Cargo.toml", ["tests::rounding_half_even", "43.0"]),
    edit("rs/src/lib.rs", "x.round()\n", "x.round_ties_even()\n"),
    ("cargo test --manifest-path rs/Cargo.toml", ["300 passed"]),
    ("make -C c", ["ledger_close"]),
    edit("c/ledger.c", "void ledger_open(void) {}\n", "void ledger_open(void) {}\nvoid ledger_close(void) {}\n"),
    ("make -C c", ["-o ledger"]),
    ("ls -la", ["vendor"]),
    ("ls -lR", ["./vendor/legacy/ledger:"]),
    ("du -ah .", ["45M", "./assets/video/intro.mp4"]),
    ("find assets -size +1M", ["assets/video/intro.mp4"]),
    ("git shortlog -sn HEAD", ["Dana Whitfield"]),
    ("git status --short", ["?? rs/"]),
]

# rtk's Claude Code hook (rtk 0.16, hooks/rtk-rewrite.sh) rewrites a command whose first words
# match one of these to its rtk form; every other command runs unchanged.
RTK_PREFIXES = [
    (r"git (status|diff|log|add|commit|push|pull|branch|fetch|stash|show)\b", lambda m: "rtk " + m.group(0)),
    (r"cargo (test|build|clippy|check|install|fmt)\b", lambda m: "rtk " + m.group(0)),
    (r"cat ", lambda m: "rtk read "),
    (r"(rg|grep) ", lambda m: "rtk grep "),
    (r"ls\b", lambda m: "rtk ls"),
    (r"tree\b", lambda m: "rtk tree"),
    (r"find ", lambda m: "rtk find "),
    (r"diff ", lambda m: "rtk diff "),
    (r"pytest\b", lambda m: "rtk pytest"),
    (r"python -m pytest\b", lambda m: "rtk pytest"),
]


def rtk_form(cmd):
    for pattern, repl in RTK_PREFIXES:
        m = re.match(pattern, cmd)
        if m:
            return repl(m) + cmd[m.end():]
    return cmd


def commands():
    return [s for s in SESSION if s[0] != "edit"]


def seen(text, fact):
    return all(f.encode() in text for f in fact)


def python_with_pytest(cache):
    """A `python` on PATH that has pytest: this one, or a venv made under `cache`."""
    for py in ("python", "python3"):
        exe = shutil.which(py)
        if exe and subprocess.run([exe, "-c", "import pytest"], capture_output=True).returncode == 0:
            return os.path.dirname(exe)
    venv = os.path.join(cache, f"venv-pytest-{PYTEST}")
    if not os.path.exists(os.path.join(venv, "bin", "python")):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", f"pytest=={PYTEST}"],
                       check=True)
    return os.path.join(venv, "bin")


class Session:
    def __init__(self, mode, work, spill, lossy, bindir):
        self.mode, self.spill, self.lossy = mode, spill, lossy
        self.repo = os.path.join(work, mode, "ledger")
        home = os.path.join(work, mode, "home")
        os.makedirs(home)
        session_repo.make(self.repo)
        real_home = os.path.expanduser("~")
        path = [bindir] + ([os.path.dirname(lossy)] if lossy else []) + [os.path.dirname(spill)]
        self.env = {
            "PATH": os.pathsep.join(path + [os.environ.get("PATH", "/usr/bin:/bin")]),
            "HOME": home,
            "LC_ALL": "C.UTF-8",
            "TZ": "UTC",
            "TERM": "dumb",
            "CARGO_HOME": os.environ.get("CARGO_HOME", os.path.join(real_home, ".cargo")),
            "RUSTUP_HOME": os.environ.get("RUSTUP_HOME", os.path.join(real_home, ".rustup")),
            "CARGO_TERM_COLOR": "never",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_PAGER": "cat",
            "PYTHONDONTWRITEBYTECODE": "1",
            "SPILL_DIR": os.path.join(work, mode, "store"),
            "SPILL_SCOPE": f"bench-{mode}",
        }

    def sh(self, cmd, extra=None):
        env = dict(self.env, **(extra or {}))
        p = subprocess.run(["bash", "-c", cmd], cwd=self.repo, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=900)
        return p.stdout

    def step(self, i, cmd):
        """What the model is sent for command `cmd`."""
        if self.mode == "raw":
            return self.sh(cmd)
        if self.mode.startswith("spill"):
            flags = " --condense" if self.mode == "spill-condense" else ""
            wrapped = (f"{{ {cmd}\n}} 2>&1 | {shlex.quote(self.spill)} wrap{flags} "
                       f"--label {shlex.quote(cmd)}")
            return self.sh(wrapped, {"SPILL_TURN": f"t{i}"})
        if self.mode == "rtk":
            return self.sh(rtk_form(cmd))
        if self.mode == "tokf":
            # tokf's hook runs what `tokf rewrite` prints (`tokf run git log`, `make SHELL=tokf`).
            form = self.sh(f"tokf rewrite {shlex.quote(cmd)}").decode().strip()
            return self.sh(form)
        raise ValueError(self.mode)


REF = re.compile(rb"\bsp_[0-9a-f]{16}\b")


def hinted(sent):
    """The commands an envelope's hint names, in order (a JSON envelope's `hint`, or the text
    envelope's `Read it with:` line)."""
    text = sent.decode(errors="replace")
    try:
        hint = json.loads(text).get("hint") or ""
    except (ValueError, AttributeError):
        hint = text
    m = re.search(r"Read it with: (.*)", hint)
    if not m:
        return []
    return [c.strip() for c in m.group(1).split(" \u00b7 ") if c.strip()]


def run_mode(mode, work, spill, lossy, bindir, verbose):
    s = Session(mode, work, spill, lossy, bindir)
    rows = []
    i = 0
    for item in SESSION:
        if item[0] == "edit":
            item[2](s.repo)
            continue
        cmd, fact = item
        i += 1
        sent = s.step(i, cmd)
        row = {"step": i, "command": cmd, "fact": fact, "sent": len(sent),
               "visible": seen(sent, fact), "follow_ups": [], "follow_bytes": 0}
        ref = REF.search(sent) if mode.startswith("spill") else None
        if mode.startswith("spill") and ref:
            stored = s.sh(f"spill cat {ref.group(0).decode()} --raw --bytes 0: --max-bytes 0")
            row["ref"] = ref.group(0).decode()
            row["stored"] = seen(stored, fact)
        elif mode.startswith("spill"):
            row["stored"] = None  # passed through: nothing to store
        found = row["visible"]
        if not found and mode.startswith("spill"):
            for c in hinted(sent)[:3]:
                out = s.sh(c)
                row["follow_ups"].append(c)
                row["follow_bytes"] += len(out)
                if seen(out, fact):
                    found = True
                    break
        elif not found and mode == "tokf" and b"tokf raw" in sent:
            # tokf keeps the raw output of a filtered run and says so: read it back.
            raw = s.sh("tokf raw last")
            row["follow_ups"].append("tokf raw last")
            row["follow_bytes"] += len(raw)
            found = seen(raw, fact)
        elif not found and mode in ("rtk", "tokf"):
            raw = s.sh(cmd)
            row["follow_ups"].append(f"(again, without {mode}) {cmd}")
            row["follow_bytes"] += len(raw)
            found = seen(raw, fact)
        row["found"] = found
        rows.append(row)
        if verbose:
            mark = "visible" if row["visible"] else ("found" if found else "MISSED")
            print(f"  {mode:<15} {i:>3} {len(sent):>9} B  {mark:<8} {cmd}", file=sys.stderr)
    return rows


def summary(mode, rows):
    sent = sum(r["sent"] for r in rows)
    follow = sum(r["follow_bytes"] for r in rows)
    return {
        "mode": mode,
        "commands": len(rows),
        "bytes_sent": sent,
        "visible": sum(r["visible"] for r in rows),
        "follow_up_reads": sum(len(r["follow_ups"]) for r in rows),
        "bytes_with_follow_ups": sent + follow,
        "found_with_follow_ups": sum(r["found"] for r in rows),
        "stored_outputs": sum(1 for r in rows if r.get("ref")),
        "stored_holding_fact": sum(1 for r in rows if r.get("stored")),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spill", default=os.path.join(ROOT, "target", "release", "spill"))
    ap.add_argument("--rtk", help="an rtk binary (rtk-ai/rtk): adds the rtk mode")
    ap.add_argument("--tokf", help="a tokf binary (cargo install tokf), or `install` for tokf "
                    f"{TOKF} built with cargo into ~/.cache/spill-bench-session: adds the tokf mode")
    ap.add_argument("--only", help="comma-separated modes to run")
    ap.add_argument("--json", help="write every row and summary to this file")
    ap.add_argument("--keep", help="work in this directory (made; kept) instead of a temporary one")
    ap.add_argument("--check", type=int, metavar="N",
                    help="exit 1 if a spill mode sees fewer than N facts with follow-ups, or a "
                    "stored output lacks its fact")
    ap.add_argument("-v", "--verbose", action="store_true", help="a line per command on stderr")
    a = ap.parse_args()
    spill = os.path.abspath(a.spill)
    if not os.access(spill, os.X_OK):
        sys.exit(f"session.py: no spill binary at {spill} (cargo build --release, or --spill PATH)")
    for tool in ("git", "cargo", "cc", "make", "jq"):
        if not shutil.which(tool):
            sys.exit(f"session.py: {tool} is needed and not on PATH")
    cache = os.path.join(os.path.expanduser("~"), ".cache", "spill-bench-session")
    os.makedirs(cache, exist_ok=True)
    if a.tokf == "install":
        root = os.path.join(cache, f"tokf-{TOKF}")
        a.tokf = os.path.join(root, "bin", "tokf")
        if not os.access(a.tokf, os.X_OK):
            print(f"session.py: building tokf {TOKF} with cargo install (minutes)…", file=sys.stderr)
            subprocess.run(["cargo", "install", "--quiet", "--locked", "--root", root, "tokf",
                            "--version", TOKF], check=True)
    modes = ["raw", "spill", "spill-condense"]
    lossy = {}
    for name in ("rtk", "tokf"):
        path = getattr(a, name)
        if path:
            lossy[name] = os.path.abspath(path)
            modes.append(name)
    if a.only:
        modes = [m for m in modes if m in a.only.split(",")]

    bindir = python_with_pytest(cache)
    work = a.keep or tempfile.mkdtemp(prefix="spill-session-")
    if a.keep:
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
    results = {}
    try:
        for mode in modes:
            # The lossy filters find the real tools on PATH; spill is on PATH for the hints.
            results[mode] = run_mode(mode, work, spill, lossy.get(mode), bindir, a.verbose)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    sums = [summary(m, results[m]) for m in modes]
    n = len(commands())
    print(f"Session benchmark: {n} commands, {len(SESSION) - n} edits; "
          f"bytes the model is sent and decisive facts it sees.\n")
    print("| mode | bytes sent | facts visible | follow-up reads | bytes with follow-ups | "
          "facts seen with follow-ups | stored outputs holding their fact |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for s in sums:
        stored = (f"{s['stored_holding_fact']} of {s['stored_outputs']}"
                  if s["mode"].startswith("spill") else "—")
        print(f"| {s['mode']} | {s['bytes_sent']:,} | {s['visible']} of {n} | {s['follow_up_reads']} | "
              f"{s['bytes_with_follow_ups']:,} | {s['found_with_follow_ups']} of {n} | {stored} |")
    missed = [(m, r) for m in modes for r in results[m] if not r["found"]]
    if missed:
        print("\nFacts not seen, even with follow-ups:")
        for m, r in missed:
            print(f"- {m}, step {r['step']}: `{r['command']}` ({r['sent']:,} B sent): {r['fact']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"summary": sums, "rows": results}, f, indent=1)
    if a.check is not None:
        failed = False
        for m in modes:
            if not m.startswith("spill"):
                continue
            seen_n = sum(r["found"] for r in results[m])
            if seen_n < a.check:
                print(f"session.py: --check: {m} sees {seen_n} facts with follow-ups, fewer "
                      f"than the baseline {a.check}", file=sys.stderr)
                failed = True
            for r in results[m]:
                if r.get("stored") is False:
                    print(f"session.py: --check: {m} step {r['step']} `{r['command']}`: the "
                          f"stored output lacks {r['fact']}", file=sys.stderr)
                    failed = True
        if failed:
            sys.exit(1)


if __name__ == "__main__":
    main()
