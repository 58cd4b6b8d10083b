#!/usr/bin/env python3
"""End-to-end tests of `spill hook` / `spill init` inside the real harness CLIs.

Installs pinned harness versions from npm into a cache directory (reused between runs), starts
the scripted fake model server (fake_model.py) on 127.0.0.1, runs `spill init` in a throwaway
HOME and drives real conversations. Every check prints PASS or FAIL; any FAIL exits 1. The
measured table (what the model receives for a 500 KB output with and without spill) is printed
at the end, and written as JSON with --table FILE.

Usage: tests/e2e/e2e.py [--spill PATH] [--cache DIR] [--table FILE] [--keep] [--only claude-code,claude-code-old,codex,gemini,opencode,kilo,pi,qwen-code,copilot,copilot-old,kimi]
Needs: node and npm (for the installs), python3, bash, and Python 3.13 for Kimi CLI. Network:
only the npm registry and PyPI (Kimi CLI), for the first install; the harnesses talk to
127.0.0.1 only.
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
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import fake_mcp  # noqa: E402
import fake_model  # noqa: E402

# Pinned harness versions (npm package, version, the binary it installs).
CLAUDE = ("@anthropic-ai/claude-code", "2.1.332", "claude")
# The oldest Claude Code checked too: it sets no CLAUDE_PID, so the hook finds Claude Code in its
# process tree. (The oldest whose PreToolUse hook can replace the input at all is 2.0.10: its
# hook output schema is the first with `updatedInput`; it runs on node, whose process title
# overwrites the command line, so spill cannot read its permission flags and says so instead.)
CLAUDE_OLD = ("@anthropic-ai/claude-code", "2.1.197", "claude")
# npm's package runs `cli.js` on node up to 2.1.112 and a native binary from 2.1.113 (`npm view
# @anthropic-ai/claude-code@V bin`). On node the command line is the process title, so spill
# cannot read the permission flags and does not rewrite: 2.1.113 is the oldest version spill
# wraps, and 2.1.112 the newest it leaves alone, telling the user once.
CLAUDE_OLDEST = ("@anthropic-ai/claude-code", "2.1.113", "claude")
CLAUDE_NODE = ("@anthropic-ai/claude-code", "2.1.112", "claude")
CODEX = ("@openai/codex", "0.171.0", "codex")
GEMINI = ("@google/gemini-cli", "0.61.0", "gemini")
OPENCODE = ("opencode-ai", "1.18.33", "opencode")
# The oldest version of each that npm serves and spill's `init` hooks, run through the same
# conversation checks (README, "Which harnesses spill covers"), found by bisecting `npm view PKG
# versions` with these checks and reading each version's code. Codex: 0.131.0; 0.129.0 and
# 0.130.0 read the same config.toml but never run spill's trusted hook (so `spill doctor` and
# `spill init` say so for them). Gemini CLI: 0.36.0 is the first whose BeforeTool hook can
# change the tool's input (`hookSpecificOutput.tool_input`; 0.35.3 can only allow or block).
# opencode: 1.0.152; 1.0.98 and older end every conversation with the fake model in a schema
# or DecimalError, without spill as with it, so the checks cannot tell.
CODEX_OLD = ("@openai/codex", "0.131.0", "codex")
GEMINI_OLD = ("@google/gemini-cli", "0.36.0", "gemini")
OPENCODE_OLD = ("opencode-ai", "1.0.152", "opencode")
PI = ("@mariozechner/pi-coding-agent", "0.73.1", "pi")
# Kilo Code, an opencode fork hooked by the same plugin under its own names: npm serves its CLI
# from 7.0.33 (the first 7.x) to 7.8.1, but its linux-x64 binary only at 7.0.33, 7.7.2 and 7.7.7
# (`npm view @kilocode/cli-linux-x64 versions`), so these two are the oldest and newest that run.
KILO = ("@kilocode/cli", "7.7.7", "kilo")
KILO_OLD = ("@kilocode/cli", "7.0.33", "kilo")
# Qwen Code: its PreToolUse cannot change a command in any version read (0.15.10 to 0.24.4), so
# spill covers the other tools' results (README, "Qwen Code"). 0.24.4 asks for node 22 and runs on 20.
QWEN = ("@qwen-code/qwen-code", "0.24.4", "qwen")
# GitHub Copilot CLI, driven offline (COPILOT_OFFLINE with the fake model as its OpenAI-compatible
# provider) with auto-update off: a loader that finds a newer version in the cache runs that one.
# 1.0.67 is the oldest measured whose PostToolUse hook can replace a result (`modifiedResult`):
# 1.0.22 to 1.0.49 send Claude Code's hook input but ignore that answer, 1.0.20 and older send
# camelCase fields, 1.0.7 and older cannot use a provider without a GitHub login; 1.0.58 needs
# Node 24, and 1.0.77 has no Linux binary.
COPILOT = ("@github/copilot", "1.0.102", "copilot")
COPILOT_OLD = ("@github/copilot", "1.0.67", "copilot")
# Kimi CLI, from PyPI (archived): 1.52.0's `kimi` only prints a deprecation notice and runs a
# remote install script, so 1.50.0, whose CLI has no such gate. It needs Python 3.13 (3.12.1
# fails at import on a slotted generic dataclass); its dependencies are pinned as installed on
# the day it was first run (kimi-constraints.txt), as npm's are by NPM_BEFORE.
KIMI = ("kimi-cli", "1.50.0", "kimi")

BIG = ("{ seq -f 'row %g of the big output' 1 9000; "
       "echo 'error[E0001]: something failed in the middle'; "
       "seq -f 'row %g of the big output' 9001 18000; echo 'LAST LINE: build finished'; }")
ERROR_LINE = "error[E0001]: something failed in the middle"
LAST_LINE = "LAST LINE: build finished"
SMALL = "printf 'small output\\nwith two lines\\n'"
FAILING = "echo 'about to fail' >&2; echo partial; exit 3"
QUOTING = ("printf '%s\\n' \"a \\\"quoted\\\" 'word'\" \"$(echo sub-shell)\" 'é ✓ ünïcode' && "
           "echo \"second\n  line\" | wc -l")

failures = []
# A prefix for the checks of the running thread (a lane running an older version names it).
LABEL = threading.local()


def check(name, ok, detail=""):
    name = getattr(LABEL, "value", "") + name
    print(f"{'PASS' if ok else 'FAIL'}  {name}" + (f"  ({detail})" if detail and not ok else ""))
    if not ok:
        failures.append(name)


# npm resolves the dependencies of a pinned package (their version ranges) as the registry stood
# on this day, so a run next month installs what this one did: a dependency released since can
# change a check's verdict (it did: MCP Inspector 2.12.0's client 2.3.1 stopped passing its
# server the caller's environment). A newer pin needs a later day.
NPM_BEFORE = "2026-12-02"


def install(cache, package, version, binary):
    """npm-installs package@version into cache/<name>-<version> unless it is there already."""
    prefix = cache / f"{package.replace('/', '_').lstrip('@')}-{version}"
    exe = prefix / "node_modules" / ".bin" / binary
    if exe.exists():
        return exe
    prefix.mkdir(parents=True, exist_ok=True)
    print(f"installing {package}@{version} into {prefix}")
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", f"--before={NPM_BEFORE}",
                    "--prefix", str(prefix), f"{package}@{version}"], check=True)
    if not exe.exists():
        sys.exit(f"e2e: {package}@{version} installed no {binary}")
    return exe


def python_313():
    """A Python 3.13 or later to run Kimi CLI in: on PATH, else one of pyenv's."""
    found = [shutil.which(n) for n in ("python3.14", "python3.13")]
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    found += sorted(map(str, pyenv.glob("3.1[3-9]*/bin/python3")), reverse=True)
    for python in filter(None, found):
        ran = subprocess.run([python, "-c", "import sys; print(sys.version_info >= (3, 13))"],
                             capture_output=True, text=True)
        if ran.stdout.strip() == "True":
            return python
    return None


def install_pypi(cache, package, version, binary):
    """pip-installs package==version into a venv cache/<package>-<version> unless it is there,
    its dependencies held to the versions of tests/e2e/kimi-constraints.txt."""
    venv = cache / f"{package}-{version}"
    exe = venv / "bin" / binary
    if (venv / ".installed").exists():
        return exe
    python = python_313()
    if python is None:
        # Said on the run's output, not a failure: the machine lacks what Kimi CLI runs on.
        print(f"SKIP  {package}=={version}: it needs Python 3.13 or later (python3.13 on PATH, or "
              "under pyenv), and this machine has none; its lane does not run")
        return None
    print(f"installing {package}=={version} into {venv}")
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "-c", str(HERE / "kimi-constraints.txt"), f"{package}=={version}"], check=True)
    if not exe.exists():
        sys.exit(f"e2e: {package}=={version} installed no {binary}")
    (venv / ".installed").write_text("")
    return exe


class Server:
    """The fake model server on 127.0.0.1, in a thread; its request log is a file."""

    def __init__(self, log):
        self.log = log
        self.httpd = fake_model.ThreadingHTTPServer(("127.0.0.1", 0), fake_model.Handler)
        self.httpd.log_file = str(log)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def requests(self):
        if not self.log.exists():
            return []
        # The server appends while a lane polls: a line without its newline is still being
        # written (a 500 KB request is more than one write), so only whole lines are read.
        text = self.log.read_text()
        return [json.loads(line) for line in text[:text.rfind("\n") + 1].splitlines()]


def results_for(server, marker):
    """The tool results (text, is_error) of the longest request of the conversation `marker`."""
    best = []
    for request in server.requests():
        messages = request["body"].get("messages") or []
        first = next((m for m in messages if m.get("role") == "user"), None)
        if not first or marker not in fake_model.text_of(first.get("content")):
            continue
        found = []
        for m in messages:
            if isinstance(m.get("content"), list):
                for block in m["content"]:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        found.append((fake_model.text_of(block.get("content")), bool(block.get("is_error"))))
        if len(found) >= len(best):
            best = found
    return best


def responses_results_for(server, marker):
    """The tool results (text, False) of the longest Responses API request (Codex) of the
    conversation `marker`. Codex reports a failure inside the text ("Process exited with code N")."""
    best = []
    for request in server.requests():
        items = request["body"].get("input") or []
        if not any(marker in json.dumps(i) for i in items if i.get("type") == "message"):
            continue
        found = [(i["output"] if isinstance(i.get("output"), str) else json.dumps(i.get("output")), False)
                 for i in items if i.get("type") == "function_call_output"]
        if len(found) >= len(best):
            best = found
    return best


def codex_stable(result):
    """A Codex tool result without the lines that differ between any two runs."""
    text, error = result
    return ("\n".join(l for l in text.split("\n") if not l.startswith(("Chunk ID:", "Wall time:"))), error)


class Claude:
    name = "claude-code"

    def __init__(self, exe, spill, work, server):
        self.exe, self.spill_exe, self.work, self.server = exe, spill, work, server
        self.shell = shutil.which("bash") or "/bin/bash"
        # Directories put on Claude Code's PATH only (the sandbox's bwrap and socat), and
        # variables set (or, with None, unset) over the usual ones.
        self.extra_path = []
        self.overrides = {}

    def env(self, home):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SPILL_", "ANTHROPIC_", "CLAUDE"))}
        # The shell Claude Code runs commands in follows SHELL (bash when it names bash, zsh
        # first otherwise): set it, so a run does not depend on the caller's environment.
        env["SHELL"] = self.shell
        env.update(HOME=str(home), ANTHROPIC_BASE_URL=f"http://127.0.0.1:{self.server.port}",
                   ANTHROPIC_API_KEY="sk-test", SPILL_DIR=str(self.work / "store"),
                   DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                   # spill on PATH, as installed: the model's own `spill cat` calls need it.
                   PATH=os.pathsep.join([str(self.spill_exe.parent), *map(str, self.extra_path),
                                         os.environ.get("PATH", "")]))
        for k, v in self.overrides.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        return env

    def start(self, home, name, commands, *flags):
        script = self.work / f"{name}.json"
        script.write_text(json.dumps(commands))
        cwd = self.work / "project"
        cwd.mkdir(exist_ok=True)
        args = [str(self.exe), "-p", f"SCRIPT:{script}", "--output-format", "json", *flags]
        return subprocess.Popen(args, cwd=cwd, env=self.env(home), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def run(self, home, name, commands, *flags):
        proc = self.start(home, name, commands, *flags)
        out, err = proc.communicate(timeout=max(180, 3 * POLLS * POLL_SECONDS))
        if proc.returncode != 0:
            print(err, file=sys.stderr)
        return proc.returncode, out

    def spill(self, home, *args):
        return subprocess.run([str(self.spill_exe), *args], env=self.env(home), capture_output=True, text=True)


def init_checks(claude, home):
    """`spill init` merges, is idempotent, backs up, diffs, and --uninstall restores the file."""
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    original = ('{\n  "theme": "dark",\n  "permissions": {\n    "allow": [\n      "Read"\n    ]\n  },\n'
                '  "hooks": {\n    "PreToolUse": [\n      {\n        "matcher": "Edit",\n        "hooks": [\n'
                '          {\n            "type": "command",\n            "command": "true"\n          }\n'
                '        ]\n      }\n    ]\n  }\n}\n')
    settings.write_text(original)
    dry = claude.spill(home, "init", "claude-code", "--dry-run")
    check("claude-code: init --dry-run prints a diff and writes nothing",
          dry.returncode == 0 and "+++ " in dry.stdout and "hook claude-code" in dry.stdout
          and settings.read_text() == original, dry.stdout + dry.stderr)
    first = claude.spill(home, "init", "claude-code")
    once = settings.read_text()
    check("claude-code: init adds the hooks and keeps the other settings",
          first.returncode == 0 and "hook claude-code" in once and once.startswith(original[:80])
          and json.loads(once)["hooks"]["PreToolUse"][0]["matcher"] == "Edit", first.stderr)
    check("claude-code: init backs the file up",
          (home / ".claude" / "settings.json.spill-backup").read_text() == original)
    second = claude.spill(home, "init", "claude-code")
    check("claude-code: init twice changes nothing the second time",
          second.returncode == 0 and settings.read_text() == once and "nothing changed" in second.stdout,
          second.stdout)
    gone = claude.spill(home, "init", "claude-code", "--uninstall")
    check("claude-code: init --uninstall restores the file byte for byte",
          gone.returncode == 0 and settings.read_text() == original, gone.stderr)
    settings.unlink()
    claude.spill(home, "init", "claude-code")


def measure(text, full_bytes):
    return {"bytes": len(text.encode()), "lastLine": LAST_LINE in text, "errorLine": ERROR_LINE in text}


def claude_checks(claude, work):
    server = claude.server
    plain_home = work / "home-plain"
    (plain_home / ".claude").mkdir(parents=True)
    home = work / "home"
    init_checks(claude, home)
    full = subprocess.run(["bash", "-c", BIG], capture_output=True).stdout

    # Without spill: the same commands, for the table and the byte-for-byte comparisons.
    rc, _ = claude.run(plain_home, "plain", [BIG, SMALL, FAILING, QUOTING], "--allowedTools", "Bash")
    plain = results_for(server, "plain.json")
    check("claude-code: the run without spill completes", rc == 0 and len(plain) == 4, f"rc={rc} {len(plain)}")

    # With spill. The first conversation waits (step 5) until the second has tried its ref.
    flag = work / "second-done"
    first = claude.start(home, "first", [
        BIG, "spill cat {ref} --lines 9000:9002", "spill search {ref} -F 'LAST LINE'",
        SMALL, FAILING, QUOTING,
        f"while [ ! -e {flag} ]; do sleep 0.1; done; echo waited",
    ], "--allowedTools", "Bash")
    deadline = time.time() + 120
    ref = None
    while time.time() < deadline and ref is None and first.poll() is None:
        got = results_for(server, "first.json")
        if len(got) >= 6:
            ref = fake_model.REF.findall(got[0][0])[0] if fake_model.REF.findall(got[0][0]) else "none"
        time.sleep(0.2)
    rc2, _ = claude.run(home, "second", [f"spill cat {ref} --lines 1:2"], "--allowedTools", "Bash")
    second = results_for(server, "second.json")
    flag.touch()
    out, err = first.communicate(timeout=180)
    spilled = results_for(server, "first.json")
    check("claude-code: the conversation with spill completes",
          first.returncode == 0 and len(spilled) == 7, f"rc={first.returncode} {len(spilled)} {err[-500:]}")
    if len(spilled) < 7 or len(plain) < 4:
        return None
    big_text = spilled[0][0]
    try:
        envelope = json.loads(big_text[big_text.index("{"):])
    except ValueError:
        envelope = {}
    check("claude-code: a 500 KB output reaches the model as spill's envelope",
          envelope.get("spilled") is True and envelope.get("sizeBytes") == len(full)
          and len(big_text) < 4096, big_text[:300])
    check("claude-code: the envelope shows the last line and the error line",
          LAST_LINE in big_text and ERROR_LINE in big_text, big_text[-300:])
    check("claude-code: next turn, spill cat REF reads the same conversation's output",
          ERROR_LINE in spilled[1][0] and not spilled[1][1], spilled[1][0][:300])
    check("claude-code: next turn, spill search REF finds the last line",
          LAST_LINE in spilled[2][0] and not spilled[2][1], spilled[2][0][:300])
    check("claude-code: a small output reaches the model byte for byte as without spill",
          spilled[3] == plain[1], f"{spilled[3]!r} vs {plain[1]!r}")
    check("claude-code: a failing command reaches the model as without spill",
          spilled[4] == plain[2] and plain[2][1], f"{spilled[4]!r} vs {plain[2]!r}")
    check("claude-code: quotes, $(), newlines and UTF-8 run unchanged",
          spilled[5] == plain[3] and "ünïcode" in plain[3][0], f"{spilled[5]!r} vs {plain[3]!r}")
    check("claude-code: a second conversation cannot read the first one's ref",
          rc2 == 0 and len(second) == 1 and "unknown ref" in second[0][0], repr(second))
    store = claude.spill(home, "ls", "--all-scopes", "--json")
    scopes = {e.get("scope") for e in json.loads(store.stdout or "{}").get("entries", [])} if store.returncode == 0 else {"?"}
    check("claude-code: SessionEnd removed the conversations' entries",
          not any(s and s.startswith("claude-") for s in scopes), store.stdout[:300])

    # A deny rule still denies: the command is not rewritten, so Claude Code's rule applies.
    claude.run(home, "deny", ["printf denied-marker"], "--allowedTools", "Bash",
               "--disallowedTools", "Bash(printf:*)")
    denied = results_for(server, "deny.json")
    check("claude-code: a deny rule still stops the command",
          len(denied) == 1 and "has been denied" in denied[0][0] and denied[0][1], repr(denied))

    state_checks(claude, home, plain_home)
    binding_checks(claude, work, home)
    claude_live_checks(claude, home, plain_home)
    mcp_row = mcp_checks(claude, work, home, plain_home)

    big_plain = plain[0][0]
    path = None
    for word in big_plain.split():
        if word.startswith("/") and Path(word.strip(".,:")).exists():
            path = Path(word.strip(".,:"))
    saved = path.read_bytes() if path else b""
    return {
        "harness": f"Claude Code {CLAUDE[1]}",
        "without": {**measure(big_plain, len(full)), "retrievable": saved == full,
                    "saved": f"{len(saved)} of {len(full)} bytes in a file" if path else "no file"},
        "with": {**measure(big_text, len(full)), "retrievable": True},
        "mcp": mcp_row,
    }


def claude_live_checks(claude, home, plain_home):
    """Live output in Claude Code (README, "Claude Code"): at a Bash call's timeout Claude Code
    moves the command to the background and shows the model what it printed so far; under
    `wrap`, which prints at the end, that was nothing ("No output had been read from it").
    Now the model gets the running envelope (printed a fifth of the timeout before it) and
    reads the end with `spill wait`."""
    build = {"tool": "Bash", "input": {"command": f"for i in $(seq 1 12); do echo build step $i; sleep 0.5; done; "
                                                  f"echo '{LIVE_FAILURE}'; exit 3",
                                       "timeout": 3000, "description": "build"}}
    claude.run(plain_home, "live-plain", [build], "--allowedTools", "Bash")
    plain = results_for(claude.server, "live-plain.json")
    claude.run(home, "live-spill", [build, "spill wait {ref}"], "--allowedTools", "Bash")
    got = results_for(claude.server, "live-spill.json")
    check("claude-code: the live-output conversations complete", len(plain) == 1 and len(got) == 2,
          f"{len(plain)} {len(got)}")
    if len(plain) < 1 or len(got) < 2:
        return
    check("claude-code: without spill, the call moved to the background shows the output so far",
          "moved to the background" in plain[0][0] and "build step 1" in plain[0][0], plain[0][0][:300])
    first = got[0][0]
    check("claude-code: with spill, it shows the running envelope, not an empty output",
          "moved to the background" in first and '"running":true' in first.replace(" ", "")
          and "build step 1" in first and "No output had been read" not in first, first[:400])
    check("claude-code: spill wait on the running ref reads the failure line",
          LIVE_FAILURE in got[1][0], got[1][0][:400])
    print(f"info  claude-code: live output, bytes the model received: without spill {len(plain[0][0].encode())}; "
          f"with spill {[len(r[0].encode()) for r in got]}")
    polling_checks(claude, home, plain_home)


# The polling measurement (README, "Live output"): POLLS reads POLL_SECONDS apart of a build
# printing ten lines a second for BUILD_SECONDS. CI runs the short one; a longer one is a run
# away from CI, e.g. SPILL_E2E_POLLS=20 SPILL_E2E_POLL_SECONDS=30 SPILL_E2E_BUILD_SECONDS=600
# tests/e2e/e2e.py --only claude-code (its timings, not its checks, grow). The pause between
# polls is not `sleep N`: Claude Code (2.1.332) refuses a foreground command that begins with
# `sleep` of 25 s or more ("Blocked: standalone sleep 30. To wait for a condition, use
# Monitor…") at once, so such polls all ran within the build's first second (with spill before
# its running envelope was written: every read of the output file was empty).
POLLS = int(os.environ.get("SPILL_E2E_POLLS", "8"))
POLL_SECONDS = float(os.environ.get("SPILL_E2E_POLL_SECONDS", "1"))
BUILD_SECONDS = int(os.environ.get("SPILL_E2E_BUILD_SECONDS", "12"))


def polling_checks(claude, home, plain_home):
    """A background build polled while it runs (`run_in_background`): without spill the model
    reads Claude Code's output file (the Read tool, the whole file each time); with spill it
    reads the file once (the running envelope: the ref and the cursor), then only what is new
    (`spill cat REF --since CURSOR`, whose footer gives the next cursor). The bytes of the reads
    are the ratio README reports."""
    build = {"tool": "Bash", "input": {
        "command": f"for i in $(seq 1 {BUILD_SECONDS * 10}); do echo \"build step $i: compiling module_$i with 3 warnings\"; sleep 0.1; done; "
                   f"echo '{LIVE_FAILURE}'", "run_in_background": True, "description": "background build"}}
    pause = {"tool": "Bash", "input": {"command": f"python3 -c 'import time; time.sleep({POLL_SECONDS:g})'",
                                       "description": "wait"}}
    read = {"tool": "Read", "input": {"file_path": "{file}"}}
    plain_steps = [build] + [pause, read] * POLLS
    spill_steps = [build, pause, read] + [pause, "{next}"] * (POLLS - 1)
    claude.run(plain_home, "poll-plain", plain_steps, "--allowedTools", "Bash", "Read")
    plain = results_for(claude.server, "poll-plain.json")
    claude.run(home, "poll-spill", spill_steps, "--allowedTools", "Bash", "Read")
    got = results_for(claude.server, "poll-spill.json")
    n = len(plain_steps)
    check("claude-code: the polling conversations complete", len(plain) == n and len(got) == n,
          f"{len(plain)} {len(got)}")
    if len(plain) < n or len(got) < n:
        return
    pauses = [r[i][0] for r in (plain, got) for i in range(1, n, 2)]
    check("claude-code: the pauses between polls ran (Claude Code refused none)",
          not any("Blocked" in p for p in pauses), repr([p for p in pauses if "Blocked" in p][:1])[:300])
    reads_plain = [plain[i][0] for i in range(2, n, 2)]
    reads_spill = [got[i][0] for i in range(2, n, 2)]
    check("claude-code: a background call's output file shows spill's running envelope (ref, cursor)",
          '"running":true' in reads_spill[0].replace(" ", "") and "--since" in reads_spill[0], reads_spill[0][:400])
    # Each poll reads from the cursor: its footer gives the next one while the build runs, and
    # says "the end" once it has ended (how many polls come before the end depends on the
    # machine's pace; the build runs 12 s, so at least the first ones see it running).
    check("claude-code: each poll after it reads only what is new, with the next cursor",
          all(("--since" in r or "· the end" in r) and "unknown ref" not in r for r in reads_spill[1:])
          and "--since" in reads_spill[1], repr([r[-300:] for r in reads_spill[1:]])[:1500])
    seen_plain = "\n".join(reads_plain)
    seen_spill = "\n".join(reads_spill)
    check("claude-code: the polls see the build's progress with spill as without",
          "build step 30" in seen_plain and "build step 30" in seen_spill, seen_spill[-400:])
    total_plain = sum(len(r.encode()) for r in reads_plain)
    total_spill = sum(len(r.encode()) for r in reads_spill)
    print(f"info  claude-code: {POLLS} polls {POLL_SECONDS:g} s apart of a {BUILD_SECONDS}-second background build: {total_plain} bytes without spill "
          f"(the Read tool), {total_spill} with spill (cursors), ratio {total_spill / max(total_plain, 1):.2f}")


def binding_checks(claude, work, home, tag="claude-code"):
    """The `spill mcp` server Claude Code started (no scope given) reads the ref a Bash envelope
    of the same conversation names; a second conversation, running at the same time, cannot."""
    # Registered by `init --mcp` in the user's MCP servers (`~/.claude.json`, which Claude Code
    # itself rewrites as it runs: its uninstall is checked in tests/init.rs).
    mcp_init_checks(claude, home, home / ".claude.json", uninstall=False, label=tag)
    flags = ["--allowedTools", "Bash,mcp__spill__search"]
    slug = tag.replace(" ", "-")
    flag = work / f"binding-{slug}-done"
    search = {"tool": "mcp__spill__search", "input": {"source": "{ref}", "pattern": ERROR_LINE, "fixed_strings": True}}
    first = claude.start(home, f"bind1-{slug}", [BIG, search, f"while [ ! -e {flag} ]; do sleep 0.1; done; echo waited"], *flags)
    deadline, ref = time.time() + 120, None
    while time.time() < deadline and ref is None and first.poll() is None:
        got = results_for(claude.server, f"bind1-{slug}.json")
        if len(got) >= 2:
            found = fake_model.REF.findall(got[0][0])
            ref = found[0] if found else "none"
        time.sleep(0.2)
    other = dict(search, input=dict(search["input"], source=ref or "none"))
    claude.run(home, f"bind2-{slug}", [other], *flags)
    second = results_for(claude.server, f"bind2-{slug}.json")
    flag.touch()
    first.communicate(timeout=180)
    got = results_for(claude.server, f"bind1-{slug}.json")
    check(f"{tag}: the spill mcp conversations complete", len(got) == 3 and len(second) == 1,
          f"{len(got)} {len(second)}")
    if len(got) < 3 or len(second) < 1:
        return
    check(f"{tag}: spill mcp (no scope set) reads the ref of the same conversation's Bash envelope",
          ERROR_LINE in got[1][0] and "unknown ref" not in got[1][0], got[1][0][:300])
    check(f"{tag}: a second conversation at the same time cannot read it through spill mcp",
          "unknown ref" in second[0][0] and ERROR_LINE not in second[0][0], second[0][0][:300])


STATE_STEPS = ["mkdir -p sub && cd sub", "pwd", "cd .. && false", "pwd", "echo out; exit 3",
               "sleep 0.2 & wait; echo waited", "export E2E_CARRIED=yes", "echo carried=${E2E_CARRIED-no}",
               "echo before; kill -9 $$", "pwd"]


def state_checks(claude, home, plain_home, tag="claude-code"):
    """The harness behaves as without spill, in bash and in zsh (the shell Claude Code runs when
    SHELL does not name bash, as on macOS): `cd` carries over (and is not recorded after a
    failure), `false`, `exit 3`, a `wait` for the command's own job and `kill -9 $$` reach the
    model as Claude Code reports them."""
    default = claude.shell
    for name in ["bash", "zsh"]:
        shell = shutil.which(name)
        check(f"{tag}: {name} is installed for the state conversations", shell is not None, name)
        if shell is None:
            continue
        claude.shell = shell
        try:
            state_checks_in(claude, home, plain_home, f"{tag} ({name})")
        finally:
            claude.shell = default


def state_checks_in(claude, home, plain_home, tag):
    slug = tag.replace(" ", "-").replace("(", "").replace(")", "")
    claude.run(plain_home, f"state-plain-{slug}", STATE_STEPS, "--allowedTools", "Bash")
    plain = results_for(claude.server, f"state-plain-{slug}.json")
    claude.run(home, f"state-spill-{slug}", STATE_STEPS, "--allowedTools", "Bash")
    spilled = results_for(claude.server, f"state-spill-{slug}.json")
    n = len(STATE_STEPS)
    check(f"{tag}: the state conversations complete", len(plain) == n and len(spilled) == n,
          f"{len(plain)} {len(spilled)}")
    if len(plain) < n or len(spilled) < n:
        return
    for step, (without, with_spill) in zip(STATE_STEPS, zip(plain, spilled)):
        print(f"bytes  {tag}: {step!r}: without spill {len(without[0].encode())}, with spill {len(with_spill[0].encode())}")
    at = {step: i for i, step in enumerate(STATE_STEPS) if step != "pwd"}
    check(f"{tag}: cd sub, then pwd is sub, as without spill",
          spilled[1] == plain[1] and plain[1][0].endswith("/sub"), f"{spilled[1]!r} vs {plain[1]!r}")
    check(f"{tag}: a failing `cd .. && false` leaves the directory as without spill",
          spilled[2] == plain[2] and spilled[3] == plain[3], f"{spilled[2:4]!r} vs {plain[2:4]!r}")
    i = at["echo out; exit 3"]
    check(f"{tag}: exit 3 reaches the model as without spill",
          spilled[i] == plain[i] and plain[i][1], f"{spilled[i]!r} vs {plain[i]!r}")
    i = at["sleep 0.2 & wait; echo waited"]
    check(f"{tag}: the command's own `wait` returns, as without spill",
          spilled[i] == plain[i] and "waited" in plain[i][0], f"{spilled[i]!r} vs {plain[i]!r}")
    # Whether an exported variable reaches the next call is Claude Code's: the same with spill.
    i = at["echo carried=${E2E_CARRIED-no}"]
    check(f"{tag}: an exported variable carries over to the next call exactly as without spill",
          spilled[i] == plain[i] and "carried=" in plain[i][0], f"{spilled[i]!r} vs {plain[i]!r}")
    # What the killed shell printed just before may be missing (README, "Claude Code"): the
    # report of the death itself must be the same.
    i = at["echo before; kill -9 $$"]
    check(f"{tag}: kill -9 $$ reaches the model as a killed shell, as without spill",
          spilled[i][1] == plain[i][1] and spilled[i][0].split("\n")[0] == plain[i][0].split("\n")[0],
          f"{spilled[i]!r} vs {plain[i]!r}")
    check(f"{tag}: after the killed shell, pwd is as without spill",
          spilled[-1] == plain[-1], f"{spilled[-1]!r} vs {plain[-1]!r}")


MCP_ERROR = "error[E0002]: the MCP tool failed in the middle"
MCP_LAST = "LAST MCP LINE: done"


def mcp_checks(claude, work, home, plain_home):
    """PostToolUse: an MCP tool's large result becomes spill's envelope; a small one is untouched."""
    config = work / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"fake": {"command": sys.executable,
                                                          "args": [str(HERE / "fake_mcp.py")]}}}))
    flags = ["--mcp-config", str(config), "--allowedTools",
             "Bash,mcp__fake__big,mcp__fake__medium,mcp__fake__small"]
    steps = [{"tool": "mcp__fake__big", "input": {}}, {"tool": "mcp__fake__medium", "input": {}},
             {"tool": "mcp__fake__small", "input": {}}]
    claude.run(plain_home, "mcp-plain", steps, *flags)
    plain = results_for(claude.server, "mcp-plain.json")
    claude.run(home, "mcp-spill", [steps[0], "spill cat {ref} --lines 9000:9002", *steps[1:]], *flags)
    spilled = results_for(claude.server, "mcp-spill.json")
    check("claude-code: the MCP conversations complete", len(plain) == 3 and len(spilled) == 4,
          f"{len(plain)} {len(spilled)}")
    if len(plain) < 3 or len(spilled) < 4:
        return None
    big = spilled[0][0]
    check("claude-code: a 565 KB MCP result reaches the model as spill's envelope",
          '"spilled":true' in big and MCP_LAST in big and MCP_ERROR in big and len(big) < 4096, big[:300])
    check("claude-code: the next turn reads the MCP result with spill cat REF",
          MCP_ERROR in spilled[1][0], spilled[1][0][:300])
    check("claude-code: a 60 KB MCP result is spilled too", '"spilled":true' in spilled[2][0], spilled[2][0][:200])
    check("claude-code: a small MCP result reaches the model as without spill",
          spilled[3] == plain[2], f"{spilled[3]!r} vs {plain[2]!r}")
    proxy_checks(claude, work, plain_home)
    return {"without": measure_mcp(plain[0][0]), "with": measure_mcp(big)}


def proxy_checks(claude, work, plain_home):
    """`spill mcp proxy` in front of an MCP server, without any hook: a 200 KB result reaches the
    model as spill's envelope (Claude Code alone refuses it), and spill_search reads it."""
    config = work / "proxy-servers.json"
    server = [sys.executable, str(HERE / "fake_mcp.py")]
    config.write_text(json.dumps({"mcpServers": {
        "direct": {"command": server[0], "args": server[1:]},
        "proxied": {"command": str(claude.spill_exe), "args": ["mcp", "proxy", "--", *server]}}}))
    flags = ["--mcp-config", str(config), "--allowedTools",
             "mcp__direct__k200,mcp__proxied__k200,mcp__proxied__spill_search"]
    claude.run(plain_home, "mcp-proxy", [
        {"tool": "mcp__direct__k200", "input": {}}, {"tool": "mcp__proxied__k200", "input": {}},
        {"tool": "mcp__proxied__spill_search", "input": {"source": "{ref}", "pattern": "K200 LAST", "fixed_strings": True}},
    ], *flags)
    got = results_for(claude.server, "mcp-proxy.json")
    check("claude-code: the proxy conversation completes", len(got) == 3, repr(got)[:300])
    if len(got) < 3:
        return
    check("claude-code: without the proxy, Claude Code does not show the 200 KB result",
          "K200 LAST LINE" not in got[0][0] and len(got[0][0]) < 50000, got[0][0][:300])
    check("claude-code: through the proxy, a 200 KB MCP result reaches the model as spill's envelope",
          '"spilled":true' in got[1][0] and "K200 LAST LINE" in got[1][0] and len(got[1][0]) < 8192, got[1][0][:300])
    check("claude-code: the model's spill_search through the proxy finds the last line",
          # Claude Code shows the model a result's structuredContent (here `search --json`) and
          # its resource link rather than its text blocks.
          "K200 LAST LINE" in got[2][0] and ('"totalMatches":1' in got[2][0] or "matches 1–1 of 1" in got[2][0]),
          got[2][0][:300])


def measure_mcp(text):
    return {"bytes": len(text.encode()), "lastLine": MCP_LAST in text, "errorLine": MCP_ERROR in text}


MATRIX_HOOK = r"""#!/usr/bin/env python3
import json, os, shlex, sys
data = json.load(sys.stdin)
out = {"hookEventName": "PreToolUse", "updatedInput": dict(data["tool_input"],
       command="bash -c " + shlex.quote("echo REWRITTEN; " + data["tool_input"]["command"]))}
if os.environ["MATRIX_DECISION"] != "none":
    out["permissionDecision"] = os.environ["MATRIX_DECISION"]
print(json.dumps({"hookSpecificOutput": out}))
"""


def sandbox_tools(cache):
    """bubblewrap and socat, which Claude Code's sandbox needs on Linux: Debian's packages,
    unpacked into the cache, in a directory that goes on Claude Code's PATH only. (With bwrap on
    PATH, Codex 0.171 sandboxes through it and runs no command at all, so it is not installed on
    the machine.) None when they cannot be had."""
    d = cache / "claude-sandbox"
    bin_dir = d / "bin"
    if (bin_dir / "bwrap").exists() and (bin_dir / "socat").exists():
        return bin_dir
    debs, root = d / "debs", d / "root"
    debs.mkdir(parents=True, exist_ok=True)
    packages = ["bubblewrap", "socat", "libwrap0"]
    got = subprocess.run(["apt-get", "download", *packages], cwd=debs, capture_output=True, text=True)
    if got.returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], capture_output=True)
        got = subprocess.run(["apt-get", "download", *packages], cwd=debs, capture_output=True, text=True)
    if got.returncode != 0:
        print(got.stderr, file=sys.stderr)
        return None
    for deb in debs.glob("*.deb"):
        subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    libwrap = next(root.glob("usr/lib/*/libwrap.so.0"), None) or next(root.glob("lib/*/libwrap.so.0"), None)
    bin_dir.mkdir(exist_ok=True)
    shutil.copy(root / "usr" / "bin" / "bwrap", bin_dir / "bwrap")
    wrapper = bin_dir / "socat"
    wrapper.write_text(f'#!/bin/sh\nLD_LIBRARY_PATH={libwrap.parent if libwrap else ""} exec {root / "usr/bin/socat"} "$@"\n')
    wrapper.chmod(0o755)
    return bin_dir


def sandbox_checks(claude, work, cache, version):
    """Claude Code's own sandbox (bubblewrap): the sandboxed shell has Claude Code's TMPDIR, yet
    the shell, the PostToolUse hook and `spill mcp` share one store root, which `spill init`
    grants to the sandbox; without the grant, large output passes through to Claude Code's own
    cut with one line naming the setting."""
    tag = f"claude-code {version} (sandbox)"
    slug = f"sandbox-{version}"
    tools = sandbox_tools(cache)
    check(f"{tag}: bubblewrap and socat unpacked from Debian's packages", tools is not None)
    if tools is None:
        return None
    claude = Claude(claude.exe, claude.spill_exe, work, claude.server)
    claude.extra_path = [tools]
    # As a user has it: no SPILL_DIR, so every surface resolves the default root from TMPDIR,
    # which Claude Code's sandbox changes for the shell.
    tmp = work / f"{slug}-tmp"
    tmp.mkdir()
    claude.overrides = {"SPILL_DIR": None, "TMPDIR": str(tmp)}
    home, plain_home = work / f"home-{slug}", work / f"home-{slug}-plain"
    original = '{\n  "sandbox": {\n    "enabled": true,\n    "autoAllowBashIfSandboxed": true\n  }\n}\n'
    for h in (home, plain_home):
        (h / ".claude").mkdir(parents=True)
        (h / ".claude" / "settings.json").write_text(original)
    settings = home / ".claude" / "settings.json"
    init = claude.spill(home, "init", "claude-code")
    root = str(tmp / f"spill-{os.getuid()}")
    grants = json.loads(settings.read_text())["sandbox"].get("filesystem", {}).get("allowWrite", [])
    check(f"{tag}: init grants the store root to the sandbox", init.returncode == 0 and grants == [root],
          f"{grants} {init.stderr}")
    doctor = claude.spill(home, "doctor")
    check(f"{tag}: doctor says the sandbox is on and spill stores under it",
          "sandbox:   on" in doctor.stdout and "stores:    yes" in doctor.stdout, doctor.stdout[:600])
    config = work / f"{slug}-mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "fake": {"command": sys.executable, "args": [str(HERE / "fake_mcp.py")]},
        "spill": {"command": str(claude.spill_exe), "args": ["mcp"]}}}))
    flags = ["--mcp-config", str(config), "--allowedTools", "Bash,mcp__fake__big,mcp__spill__search"]
    probe = "touch \"$HOME/sandbox-probe\" 2>&1 || echo write-refused; echo TMPDIR=$TMPDIR"
    steps = [probe, BIG, "{hint}",
             {"tool": "mcp__spill__search", "input": {"source": "{ref}", "pattern": LAST_LINE, "fixed_strings": True}},
             {"tool": "mcp__fake__big", "input": {}}, "spill cat {ref} --lines 9000:9002"]
    claude.run(home, f"{slug}-spill", steps, *flags)
    got = results_for(claude.server, f"{slug}-spill.json")
    check(f"{tag}: the sandboxed conversation completes", len(got) == len(steps), repr(got)[:300])
    if len(got) < len(steps):
        return None
    check(f"{tag}: the command ran in the sandbox (HOME not writable, Claude Code's TMPDIR)",
          "write-refused" in got[0][0] and "TMPDIR=" in got[0][0]
          and not got[0][0].strip().endswith("TMPDIR=") and not (home / "sandbox-probe").exists(), got[0][0][:300])
    big = got[1][0]
    check(f"{tag}: a 500 KB output reaches the model as spill's envelope, the error line visible",
          '"spilled":true' in big and ERROR_LINE in big and len(big) < 4096 and root in big, big[:300])
    check(f"{tag}: the envelope's hinted command runs in the sandbox and finds the error line",
          ERROR_LINE in got[2][0] and not got[2][1], got[2][0][:300])
    check(f"{tag}: spill mcp (outside the sandbox) reads the sandboxed shell's ref",
          LAST_LINE in got[3][0] and "unknown ref" not in got[3][0], got[3][0][:300])
    check(f"{tag}: an MCP result stored by the PostToolUse hook is read by the sandboxed shell",
          '"spilled":true' in got[4][0] and MCP_ERROR in got[5][0] and not got[5][1], got[5][0][:300])

    # The grant taken away: the output passes through unstored, and Claude Code cuts it as
    # without spill (saving it to its own file), with spill's one line at its end.
    claude.spill(home, "init", "claude-code", "--uninstall")
    check(f"{tag}: init --uninstall restores the settings byte for byte", settings.read_text() == original)
    claude.spill(home, "init", "claude-code")
    data = json.loads(settings.read_text())
    data["sandbox"].pop("filesystem")
    settings.write_text(json.dumps(data, indent=2))
    claude.run(plain_home, f"{slug}-plain", [BIG], "--allowedTools", "Bash")
    claude.run(home, f"{slug}-nogrant", [BIG], "--allowedTools", "Bash")
    plain = results_for(claude.server, f"{slug}-plain.json")
    ungranted = results_for(claude.server, f"{slug}-nogrant.json")
    check(f"{tag}: both ungranted conversations complete", len(plain) == 1 and len(ungranted) == 1,
          f"{len(plain)} {len(ungranted)}")
    if not plain or not ungranted:
        return None
    shown = lambda t: re.sub(r"\S*tool-results/\S+|\d+(\.\d+)?\s?KB", "X", t)
    check(f"{tag}: without the grant the model gets what it gets without spill (Claude Code's own cut)",
          shown(ungranted[0][0]) == shown(plain[0][0]), f"{ungranted[0][0][:300]!r} vs {plain[0][0][:300]!r}")
    saved = (saved_file(ungranted[0][0]) or b"").decode(errors="replace")
    check(f"{tag}: and Claude Code's saved output ends with spill's one line naming the setting",
          saved.rstrip("\n").split("\n")[-1].startswith("[spill: ")
          and "sandbox.filesystem.allowWrite" in saved.rstrip("\n").split("\n")[-1], saved[-300:])
    return {"harness": f"Claude Code {version} in its sandbox", "with": measure(big, 0),
            "withoutGrant": measure(ungranted[0][0], 0), "without": measure(plain[0][0], 0)}


def old_checks(claude, work, version=CLAUDE_OLD[1]):
    """Claude Code at an older pinned version: no CLAUDE_PID, and still wrapped."""
    tag = f"claude-code {version}"
    own = "" if version == CLAUDE_OLD[1] else f"-{version}"
    home, plain_home = work / f"home-old{own}", work / f"home-old{own}-plain"
    (plain_home / ".claude").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    init = claude.spill(home, "init", "claude-code")
    check(f"{tag}: init installs the hooks", init.returncode == 0, init.stderr)
    rc, _ = claude.run(home, f"old-big{own}", [BIG], "--allowedTools", "Bash")
    got = results_for(claude.server, f"old-big{own}.json")
    text = got[0][0] if got else ""
    check(f"{tag}: without CLAUDE_PID a 500 KB output reaches the model as spill's envelope",
          '"spilled":true' in text and ERROR_LINE in text and len(text) < 4096, text[:300])
    state_checks(claude, home, plain_home, tag)
    binding_checks(claude, work, home, tag)


def node_checks(claude, work):
    """Claude Code 2.1.112, the newest that runs on node (CLAUDE_NODE): spill's hooks let Bash
    run unwrapped, as without spill, and tell the user once per conversation (the hook's
    `systemMessage`, whose mark the store keeps as `@bindings/SCOPE.told`)."""
    tag = f"claude-code {CLAUDE_NODE[1]}"
    home, plain_home = work / "home-node", work / "home-node-plain"
    (plain_home / ".claude").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    init = claude.spill(home, "init", "claude-code")
    check(f"{tag}: init installs the hooks", init.returncode == 0, init.stderr)
    steps = [BIG, SMALL]
    claude.run(plain_home, "node-plain", steps, "--allowedTools", "Bash")
    rc, out = claude.run(home, "node-spill", steps, "--allowedTools", "Bash")
    plain, got = results_for(claude.server, "node-plain.json"), results_for(claude.server, "node-spill.json")
    check(f"{tag}: the conversations complete", len(plain) == 2 and len(got) == 2, f"{len(plain)} {len(got)}")
    if len(plain) < 2 or len(got) < 2:
        return
    check(f"{tag}: Bash runs unwrapped: the big output reaches the model as Claude Code's own cut, as without spill",
          '"spilled"' not in got[0][0] and got[0][0].startswith("<persisted-output>")
          and plain[0][0].startswith("<persisted-output>") and got[1] == plain[1], got[0][0][:300])
    try:
        session = json.loads(out)["session_id"]
    except (ValueError, KeyError, TypeError):
        session = "?"
    told = work / "store" / "@bindings" / f"claude-{session}.told"
    check(f"{tag}: the user is told once that spill cannot act (the conversation's notice mark)",
          told.is_file(), f"{told} {out[-300:]}")
    notice_on_screen(claude, work, tag)


def notice_on_screen(claude, work, tag):
    """The notice is visible: Claude Code run interactively in tmux (the fake model's two Bash
    calls typed as one prompt) shows the hook's `systemMessage` on its screen, once for the
    conversation, and the commands' own output under it."""
    if shutil.which("tmux") is None:
        check(f"{tag}: tmux is on PATH for the interactive run", False)
        return
    home, project = work / "home-node-tty", work / "project-node-tty"
    (home / ".claude").mkdir(parents=True)
    project.mkdir()
    claude.spill(home, "init", "claude-code")
    # A user past onboarding, who trusts the project and approved the API key.
    (home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True, "theme": "dark",
        "customApiKeyResponses": {"approved": ["sk-test"], "rejected": []},
        "projects": {str(project): {"hasTrustDialogAccepted": True}}}))
    script = work / "node-tty.json"
    script.write_text(json.dumps(["echo first-call", "echo second-call"]))
    env = claude.env(home)
    session = f"spill-e2e-node-{os.getpid()}"
    words = ["env", *[f"{k}={v}" for k, v in env.items()], str(claude.exe), "--allowedTools", "Bash"]

    def screen():
        return subprocess.run(["tmux", "capture-pane", "-p", "-J", "-S", "-200", "-t", session],
                              capture_output=True, text=True).stdout

    def wait_for(pred, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            text = screen()
            if pred(text):
                return text
            time.sleep(0.5)
        return screen()
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "220", "-y", "60", "-c", str(project),
                    " ".join(shlex.quote(w) for w in words)], check=True)
    try:
        wait_for(lambda t: "? for shortcuts" in t, 60)
        subprocess.run(["tmux", "send-keys", "-t", session, "-l", f"SCRIPT:{script}"])
        wait_for(lambda t: "SCRIPT:" in t, 10)
        subprocess.run(["tmux", "send-keys", "-t", session, "Enter"])
        text = wait_for(lambda t: "second-call" in t and "\u25cf done" in t.replace("\n", " "), 120)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    flat = " ".join(text.split())
    shown = flat.count("says: spill: Bash calls in this conversation run without spill")
    check(f"{tag}: the notice is on Claude Code's screen, once for the conversation, with the commands' output",
          shown == 1 and "first-call" in flat and "second-call" in flat, text[-1500:])


def permission_matrix(claude, work):
    """What each PreToolUse answer does to deny rules, allow rules and headless refusals (for the
    README's table): a hook that rewrites `echo hello-world` with each decision."""
    hook = work / "matrix-hook.py"
    hook.write_text(MATRIX_HOOK)
    hook.chmod(0o755)
    cases = {
        "deny Bash(echo:*), --allowedTools Bash": ({"deny": ["Bash(echo:*)"]}, ["--allowedTools", "Bash"]),
        "allow Bash(echo:*) only": ({"allow": ["Bash(echo:*)"]}, []),
        "no rule, headless": ({}, []),
    }
    table = {}
    for decision in ("none", "allow", "ask"):
        for name, (permissions, flags) in cases.items():
            home = work / f"matrix-{decision}-{len(table)}"
            (home / ".claude").mkdir(parents=True)
            (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": permissions, "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": str(hook)}]}]}}))
            marker = f"matrix-{decision}-{len(table)}"
            env_flags = [*flags]
            os.environ["MATRIX_DECISION"] = decision
            claude.run(home, marker, ["echo hello-world"], *env_flags)
            got = results_for(claude.server, marker + ".json")
            text = got[0][0] if got else ""
            table[f"{decision} | {name}"] = ("ran rewritten" if "REWRITTEN" in text
                                            else "ran" if "hello-world" in text and not got[0][1] else "refused")
    del os.environ["MATRIX_DECISION"]
    for key, value in table.items():
        print(f"matrix: {key}: {value}")
    return table


CODEX_CONFIG = """# the user's own settings, kept byte for byte
model = "fake-model"   # a scripted model
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
env_key = "FAKE_MODEL_KEY"
"""
GEMINI_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    "telemetry": {"enabled": False},
    "privacy": {"usageStatisticsEnabled": False},
}
GEMINI_HOOK_NOTE = "\n\n[System] Tool input parameters were modified by a hook before execution."


def gemini_results_for(server, marker):
    """The tool results (text, is_error) of the longest Gemini API request of the conversation."""
    best = []
    for request in server.requests():
        contents = request["body"].get("contents")
        if not contents or marker not in json.dumps(contents):
            continue
        found = []
        for content in contents:
            for part in content.get("parts") or []:
                if "functionResponse" in part:
                    response = part["functionResponse"].get("response") or {}
                    error = "error" in response
                    text = response.get("error") if error else response.get("output")
                    found.append((text if isinstance(text, str) else json.dumps(response), error))
        if len(found) >= len(best):
            best = found
    return best


def gemini_stable(result):
    """A Gemini CLI shell result without its process-group line and the note Gemini appends
    when a hook changed the arguments (README, "Gemini CLI")."""
    text, error = result
    # "Output: " starts the first output line: on a line of its own, so the lines compare.
    text = text.removesuffix(GEMINI_HOOK_NOTE).replace("\nOutput: ", "\nOutput:\n", 1)
    return ("\n".join(l for l in text.split("\n") if not l.startswith("Process Group PGID:")), error)


def gemini_stable(result):
    """A Gemini CLI shell result without its process-group line and the note Gemini appends
    when a hook changed the arguments (README, "Gemini CLI")."""
    text, error = result
    # "Output: " starts the first output line: on a line of its own, so the lines compare.
    text = text.removesuffix(GEMINI_HOOK_NOTE).replace("\nOutput: ", "\nOutput:\n", 1)
    return ("\n".join(l for l in text.split("\n") if not l.startswith("Process Group PGID:")), error)


def chat_results_for(server, marker):
    """The tool results (text, False) of the longest chat completions request (opencode)."""
    best = []
    for request in server.requests():
        messages = request["body"].get("messages")
        if not messages or request["path"].split("?")[0].endswith("/responses"):
            continue
        if not any(m.get("role") == "user" and marker in json.dumps(m.get("content")) for m in messages):
            continue
        found = []
        for m in messages:
            if m.get("role") == "tool":
                content = m.get("content")
                if isinstance(content, list):
                    content = "\n".join(c.get("text", "") for c in content if isinstance(c, dict))
                found.append((content or "", False))
        if len(found) >= len(best):
            best = found
    return best


class Harness:
    """A harness CLI run against the fake model in a throwaway HOME. Subclasses name the CLI
    (`name`, as `spill init` takes it), its command line, its settings and how to read what it
    sent the model."""

    name = ""
    drop_env = ()
    # True where the harness shows stdout and stderr merged in arrival order: under wrap the
    # stderr lines can come first, so a failing command's lines are compared as a multiset.
    merges_streams = False

    def __init__(self, exe, spill, work, server):
        self.exe, self.spill_exe, self.work, self.server = exe, spill, work, server

    # Directories put on PATH after spill's (Claude's sandbox lane sets its own; none here).
    extra_path = ()
    # Where set, the store is the default root under this TMPDIR instead of SPILL_DIR: Codex
    # passes an MCP server TMPDIR but no SPILL_* variable (README, "Codex").
    tmpdir = None

    def env(self, home):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SPILL_", *self.drop_env))}
        env.update(HOME=str(home), SPILL_DIR=str(self.work / "store"),
                   PATH=os.pathsep.join([str(self.spill_exe.parent), *map(str, self.extra_path),
                                         os.environ.get("PATH", "")]))
        if self.tmpdir:
            del env["SPILL_DIR"]
            env["TMPDIR"] = str(self.tmpdir)
        env.update(self.extra_env(home))
        return env

    def extra_env(self, home):
        return {}

    def start(self, home, name, commands):
        script = self.work / f"{name}.json"
        script.write_text(json.dumps(commands))
        cwd = self.project()
        # PWD as a shell sets it: Kilo Code takes its project from PWD before its cwd.
        env = {**self.env(home), "PWD": str(cwd)}
        return subprocess.Popen(self.argv(script), cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def project(self):
        cwd = self.work / f"{self.name}-project"
        cwd.mkdir(exist_ok=True)
        return cwd

    def run(self, home, name, commands):
        proc = self.start(home, name, commands)
        out, err = proc.communicate(timeout=300)
        if proc.returncode != 0:
            print(err[-2000:], file=sys.stderr)
        return proc.returncode, out

    def spill(self, home, *args):
        return subprocess.run([str(self.spill_exe), *args], env=self.env(home), capture_output=True, text=True)

    def stable(self, result):
        return result

    def routed(self, text):
        """Whether the config text routes the fake MCP server through spill's proxy."""
        return f'"{self.spill_exe}", "mcp", "proxy", "--"' in text.replace(
            f'"{self.spill_exe}"\nargs = [', f'"{self.spill_exe}", ') and "fake_mcp.py" in text


class Codex(Harness):
    """`codex exec`; CODEX_HOME is HOME/.codex."""

    name = "codex"
    product = "Codex"
    drop_env = ("CODEX", "OPENAI")
    merges_streams = True
    # workspace-write: the sandbox lets spill write its store under /tmp (README, "Codex");
    # read-only (`codex exec`'s default) lets it write nothing (codex_read_only_checks).
    sandbox = "workspace-write"

    def extra_env(self, home):
        return {"CODEX_HOME": str(home / ".codex"), "FAKE_MODEL_KEY": "sk-test"}

    def argv(self, script):
        return [str(self.exe), "exec", "--skip-git-repo-check", "--json", "-s", self.sandbox,
                f"SCRIPT:{script}"]

    def setup(self, home):
        config = home / ".codex" / "config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(CODEX_CONFIG.format(port=self.server.port))
        return config

    def results(self, marker):
        return responses_results_for(self.server, marker)

    def stable(self, result):
        return codex_stable(result)

    def add_mcp_server(self, config, name):
        """The fake MCP server as a stdio server of config.toml (its tools approved, as a user
        would for `codex exec`)."""
        config.write_text(config.read_text() + f"\n# a server of mine\n[mcp_servers.{name}]\n"
                          f"command = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(HERE / 'fake_mcp.py'))}]\n"
                          f"default_tools_approval_mode = \"approve\"   # codex exec asks nobody\n")

    # Codex offers each server's tools as the namespace `mcp__SERVER`; 0.131.0 names it
    # `mcp__SERVER__` (its `tools` list in the request), so the old lane sets this to "__".
    namespace_end = ""

    def mcp_step(self, server, tool, args=None):
        return {"tool": tool, "namespace": f"mcp__{server}{self.namespace_end}", "input": args or {}}

    def add_spill_mcp(self, config, env_vars=True):
        """`spill mcp` registered as README's Codex section says: with spill's variables in
        `env_vars` (Codex passes an MCP server no other SPILL_*), or without them."""
        names = json.dumps(CODEX_SPILL_VARS)
        config.write_text(config.read_text() + f"\n[mcp_servers.spill]\ncommand = {json.dumps(str(self.spill_exe))}\n"
                          f"args = [\"mcp\"]\n" + (f"env_vars = {names}\n" if env_vars else "")
                          + "default_tools_approval_mode = \"approve\"\n")


class Gemini(Harness):
    """`gemini -p --yolo`."""

    name = "gemini"
    product = "Gemini CLI"
    drop_env = ("GEMINI", "GOOGLE")
    merges_streams = True

    def extra_env(self, home):
        return {"GEMINI_API_KEY": "sk-test", "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{self.server.port}"}

    def argv(self, script):
        # -m: a fixed model, so Gemini CLI does not first ask a router model to pick one.
        return [str(self.exe), "-m", "gemini-2.5-flash", "-p", f"SCRIPT:{script}", "--yolo", "-o", "json"]

    def setup(self, home):
        settings = home / ".gemini" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps(GEMINI_SETTINGS, indent=2) + "\n")
        return settings

    def results(self, marker):
        return gemini_results_for(self.server, marker)

    def add_mcp_server(self, settings, name):
        """The fake MCP server in settings.json's mcpServers."""
        doc = json.loads(settings.read_text())
        doc.setdefault("mcpServers", {})[name] = {"command": sys.executable, "args": [str(HERE / "fake_mcp.py")]}
        settings.write_text(json.dumps(doc, indent=2) + "\n")

    def add_spill_mcp(self, settings):
        """`spill mcp` registered without a scope, as README says."""
        doc = json.loads(settings.read_text())
        doc.setdefault("mcpServers", {})["spill"] = {"command": str(self.spill_exe), "args": ["mcp"]}
        settings.write_text(json.dumps(doc, indent=2) + "\n")

    def mcp_step(self, server, tool, args=None):
        # Gemini CLI 0.61.0 names a server's tool `mcp_SERVER_TOOL` (its request's tool list).
        return {"tool": f"mcp_{server}_{tool}", "input": args or {}}

    # Gemini CLI 0.36 to 0.40 (not 0.45) lists a process still in a command's process group
    # when its shell exits, `Background PIDs: N`; under `wrap` one of wrap's own processes may
    # still be there, on its way out (README, "Gemini CLI"). Such a line is set aside where this
    # is set.
    lists_background = False

    def stable(self, result):
        text, error = gemini_stable(result)
        if self.lists_background:
            text = "\n".join(l for l in text.split("\n") if not l.startswith("Background PIDs: "))
        return (text, error)


QWEN_SETTINGS = {
    "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    "telemetry": {"enabled": False},
    "privacy": {"usageStatisticsEnabled": False},
}


class Qwen(Harness):
    """`qwen -p --yolo` with an OpenAI-compatible provider (OPENAI_BASE_URL), the fake MCP
    server and `spill mcp` (no scope) registered in its settings."""

    name = "qwen-code"
    drop_env = ("OPENAI", "QWEN", "DASHSCOPE")
    merges_streams = True

    def extra_env(self, home):
        return {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": f"http://127.0.0.1:{self.server.port}/v1",
                "OPENAI_MODEL": "fake-model", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}

    def argv(self, script):
        return [str(self.exe), "-p", f"SCRIPT:{script}", "--yolo", "-o", "json"]

    def setup(self, home):
        settings = home / ".qwen" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        doc = dict(QWEN_SETTINGS, mcpServers={
            "fake": {"command": sys.executable, "args": [str(HERE / "fake_mcp.py")]},
            "spill": {"command": str(self.spill_exe), "args": ["mcp"]}})
        settings.write_text(json.dumps(doc, indent=2) + "\n")
        return settings

    def run(self, home, name, commands):
        """Runs the conversation again (four times at most) when Qwen Code reported a command
        that prints as `Output: (empty)`: 0.24.4 loses a quick command's output now and then,
        without spill as with it (measured in a HOME without hooks: 4 of 40 commands; its
        pseudo-terminal shell, `tools.shell.enableInteractiveShell`, lost none of 20 but kept
        only 278,556 of the big command's 492,965 bytes in its file)."""
        for attempt in range(5):
            rc, out = super().run(home, name, commands)
            got = self.results(f"{name}.json")
            lost = [c for c, r in zip(commands, got) if isinstance(c, str) and "\nOutput: (empty)\n" in r[0]
                    and any(w in c for w in ("echo", "printf", "pwd", "seq", "spill "))]
            if not lost:
                break
            print(f"retry  {self.name}: {name}: Qwen Code lost the output of {lost[0]!r} (attempt {attempt + 1})")
        return rc, out

    def results(self, marker):
        return chat_results_for(self.server, marker)

    def stable(self, result):
        """Without the process-group line, and with the file Qwen Code saved a cut output to
        (in the HOME's runtime directory, a new random name each call) masked."""
        text, error = result
        lines = [l for l in text.split("\n") if not l.startswith("Process Group PGID:")]
        text = re.sub(r"\S*/\.qwen/tmp/[0-9a-f]+/(\w+?)_[0-9a-f]{12}\.output", r"QWEN_TMP/\1_HEX.output",
                      "\n".join(lines))
        return (text, error)


class Copilot(Harness):
    """`copilot -p --allow-all-tools` offline with the fake model as its provider, the fake MCP
    server and `spill mcp` (no scope) in its mcp-config.json."""

    name = "copilot"
    drop_env = ("COPILOT", "GH_", "GITHUB_")

    def extra_env(self, home):
        # TMPDIR: where Copilot CLI saves a large result (inside the work directory). The
        # cache is shared by every HOME: 1.0.102 unpacks itself there (235 MB) on its first run.
        tmp, cache = self.work / "copilot-tmp", self.work / "copilot-cache"
        tmp.mkdir(exist_ok=True)
        cache.mkdir(exist_ok=True)
        return {**getattr(self, "more_env", {}), "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false",
                "COPILOT_PROVIDER_BASE_URL": f"http://127.0.0.1:{self.server.port}/v1",
                "COPILOT_PROVIDER_API_KEY": "sk-test", "TMPDIR": str(tmp), "XDG_CACHE_HOME": str(cache)}

    def argv(self, script):
        return [str(self.exe), "-p", f"SCRIPT:{script}", "--allow-all-tools", "--model", "m"]

    def setup(self, home):
        config = home / ".copilot" / "mcp-config.json"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({"mcpServers": {
            "fake": {"type": "local", "command": sys.executable, "args": [str(HERE / "fake_mcp.py")], "tools": ["*"]}}},
            indent=2) + "\n")
        return config

    def results(self, marker):
        return chat_results_for(self.server, marker)

    def stable(self, result):
        """With the shell's number in its status line (one per call) and the file a large
        result was saved to masked."""
        text, error = result
        text = re.sub(r"<shellId: \d+", "<shellId: N", text)
        return (re.sub(r"/\S*-copilot-tool-output-[0-9a-f-]+\.txt", "COPILOT_TMP.txt", text), error)


class Opencode(Harness):
    """`opencode run` with an OpenAI-compatible provider."""

    name = "opencode"
    product = "opencode"
    drop_env = ("OPENCODE", "XDG_", "OPENAI")
    merges_streams = True

    def extra_env(self, home):
        return {"OPENCODE_DISABLE_AUTOUPDATE": "1"}

    def argv(self, script):
        return [str(self.exe), "run", "--model", "fake/m", "--format", "json", f"SCRIPT:{script}"]

    # The file the plugin's checks and the proxy route read and change, under HOME.
    config_file = ".config/opencode/opencode.json"
    schema = "https://opencode.ai/config.json"
    # The plugin `spill init NAME --user` writes, under HOME.
    plugin_file = ".config/opencode/plugin/spill.js"

    def config_path(self, home):
        return home / self.config_file

    def setup(self, home):
        config = self.config_path(home)
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({"$schema": self.schema, "autoupdate": False,
                                      "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "fake",
                                                            "options": {"baseURL": f"http://127.0.0.1:{self.server.port}/v1",
                                                                        "apiKey": "sk-test"},
                                                            "models": {"m": {"name": "m"}}}},
                                      **self.extra_config()}, indent=2) + "\n")
        return config

    def extra_config(self):
        return {}

    def results(self, marker):
        return chat_results_for(self.server, marker)

    def add_mcp_server(self, config, name):
        """The fake MCP server as a local server of opencode.json."""
        doc = json.loads(config.read_text())
        doc["mcp"] = {name: {"type": "local", "command": [sys.executable, str(HERE / "fake_mcp.py")],
                             "environment": {"FAKE": "1"}}}
        config.write_text(json.dumps(doc, indent=2) + "\n")

    def add_spill_mcp(self, config):
        """`spill mcp` registered without a scope, as a local server beside the others."""
        doc = json.loads(config.read_text())
        doc.setdefault("mcp", {})["spill"] = {"type": "local", "command": [str(self.spill_exe), "mcp"]}
        config.write_text(json.dumps(doc, indent=2) + "\n")

    def mcp_step(self, server, tool, args=None):
        return {"tool": f"{server}_{tool}", "input": args or {}}


class Kilo(Opencode):
    """`kilo run` (Kilo Code, an opencode fork) with the same provider in its kilo.json."""

    name = "kilo"
    product = "Kilo Code"
    drop_env = ("KILO", "OPENCODE", "XDG_", "OPENAI")
    config_file = ".config/kilo/kilo.json"
    schema = "https://app.kilo.ai/config.json"
    plugin_file = ".config/kilo/plugin/spill.js"

    def extra_env(self, home):
        # Telemetry off: 7.0.33 waits forever on its PostHog client after a conversation when
        # that host cannot be reached (this run is offline), with spill as without.
        return {"KILO_DISABLE_AUTOUPDATE": "1", "KILO_TELEMETRY_LEVEL": "off"}

    def extra_config(self):
        # As Kilo Code leaves an existing user's file at its first start (it adds this rule to
        # a global file that has none and drops `.bash-permission-migrated`): without a rule
        # that allows bash, its own rules ask before most commands, and `kilo run` refuses
        # what it would ask about (kilo_new_user_checks).
        return {"permission": {"bash": "allow"}}


class Pi(Harness):
    """`pi -p --offline` with an OpenAI chat completions provider in its models.json."""

    name = "pi"
    drop_env = ("PI_", "OPENAI", "ANTHROPIC")
    merges_streams = True

    def extra_env(self, home):
        # TMPDIR: Pi saves a cut output's whole text there (pi-bash-*.log), inside the work
        # directory rather than left behind in /tmp.
        tmp = self.work / "pi-tmp"
        tmp.mkdir(exist_ok=True)
        return {"PI_TELEMETRY": "0", "TMPDIR": str(tmp)}

    def argv(self, script):
        return [str(self.exe), "-p", "--offline", "--model", "fake/m", f"SCRIPT:{script}"]

    def setup(self, home):
        models = home / ".pi" / "agent" / "models.json"
        models.parent.mkdir(parents=True, exist_ok=True)
        models.write_text(json.dumps({"providers": {"fake": {
            "baseUrl": f"http://127.0.0.1:{self.server.port}/v1", "api": "openai-completions",
            "apiKey": "sk-test", "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": "m"}]}}}, indent=2) + "\n")
        return models

    def results(self, marker):
        return chat_results_for(self.server, marker)

    def stable(self, result):
        """With the file Pi saved a cut output to (a new random name each call) masked."""
        text, error = result
        return (re.sub(r"/\S*/pi-bash-[0-9a-f]+\.log", "PI_TMP.log", text), error)


class Kimi(Harness):
    """`kimi --print` with an `openai_legacy` provider (chat completions) in ~/.kimi/config.toml
    and the fake MCP server in ~/.kimi/mcp.json."""

    name = "kimi"
    product = "Kimi CLI"
    drop_env = ("KIMI", "OPENAI", "MOONSHOT")

    def argv(self, script):
        return [str(self.exe), "--print", "--yolo", "-p", f"SCRIPT:{script}"]

    def config_path(self, home):
        return home / ".kimi" / "mcp.json"

    def setup(self, home):
        config = home / ".kimi" / "config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(f"""default_model = "fake"
default_yolo = true

[providers.fake]
type = "openai_legacy"
base_url = "http://127.0.0.1:{self.server.port}/v1"
api_key = "sk-test"

[models.fake]
provider = "fake"
model = "m"
max_context_size = 200000
""")
        mcp = self.config_path(home)
        mcp.write_text("{}\n")
        return mcp

    def results(self, marker):
        return chat_results_for(self.server, marker)

    def add_mcp_server(self, config, name):
        """The fake MCP server as a stdio server of mcp.json, laid out as `kimi mcp add` writes."""
        doc = json.loads(config.read_text())
        doc.setdefault("mcpServers", {})[name] = {"command": sys.executable, "args": [str(HERE / "fake_mcp.py")],
                                                  "env": {"FAKE": "1"}}
        config.write_text(json.dumps(doc, indent=2))

    def mcp_step(self, server, tool, args=None):
        # Kimi CLI offers an MCP tool under its own name (its request's tool list).
        return {"tool": tool, "input": args or {}}

    def routed(self, text):
        """The fake server's entry routed as README says: spill's proxy naming the store root
        (Kimi CLI passes a server neither SPILL_DIR nor TMPDIR), the rest of the entry kept."""
        root = self.tmpdir / f"spill-{os.getuid()}" if self.tmpdir else self.work / "store"
        entry = json.loads(text)["mcpServers"]["fake"]
        return entry == {"command": str(self.spill_exe), "env": {"FAKE": "1"},
                         "args": ["mcp", "proxy", "--dir", str(root), "--", sys.executable, str(HERE / "fake_mcp.py")]}


def harness_init_checks(h, home, changed, first_ok):
    """`spill init NAME` in a HOME set up by `h.setup`: --dry-run writes nothing, the first run
    changes `changed` (and passes `first_ok(before, after)`), a second changes nothing, and
    --uninstall restores the file (or removes it when it did not exist)."""
    config = h.setup(home)
    before = changed.read_text() if changed.exists() else None
    config_text = config.read_text()
    dry = h.spill(home, "init", h.name, "--dry-run")
    check(f"{h.name}: init --dry-run prints a diff and writes nothing",
          dry.returncode == 0 and "+++ " in dry.stdout and f"hook {h.name}" in dry.stdout
          and (changed.read_text() if changed.exists() else None) == before, dry.stdout[:300] + dry.stderr)
    first = h.spill(home, "init", h.name)
    once = changed.read_text() if changed.exists() else ""
    check(f"{h.name}: init adds spill's hooks and keeps the rest",
          first.returncode == 0 and first_ok(before, once, config.read_text(), config_text), first.stderr)
    if before is not None:
        check(f"{h.name}: init backs the file up", Path(f"{changed}.spill-backup").read_text() == before)
    second = h.spill(home, "init", h.name)
    check(f"{h.name}: init twice changes nothing the second time",
          second.returncode == 0 and changed.read_text() == once and "nothing changed" in second.stdout,
          second.stdout)
    gone = h.spill(home, "init", h.name, "--uninstall")
    after = changed.read_text() if changed.exists() else None
    check(f"{h.name}: init --uninstall restores the file byte for byte (or removes what init created)",
          gone.returncode == 0 and after == before and config.read_text() == config_text, gone.stderr)
    h.spill(home, "init", h.name)


def mcp_init_checks(h, home, mcp_file, uninstall=True, label=None):
    """`spill init NAME --mcp` (the hooks and `spill mcp`) registers `spill mcp` (this spill, by
    its path) in the file where the harness keeps its MCP servers, a second run changes nothing,
    and (with `uninstall`) --uninstall gives that file back byte for byte; both are installed
    again for what follows. `label` starts the checks' names (the harness's name)."""
    n = h.name
    before = mcp_file.read_text() if mcp_file.exists() else None
    first = h.spill(home, "init", n, "--mcp")
    once = mcp_file.read_text() if mcp_file.exists() else ""
    check(f"{label or n}: init --mcp registers spill mcp in {mcp_file.name}",
          first.returncode == 0 and json.dumps(str(h.spill_exe)) in once and '"mcp"' in once
          and "MCP server (`spill mcp`)" in first.stdout, first.stdout + first.stderr + once[-400:])
    again = h.spill(home, "init", n, "--mcp")
    check(f"{label or n}: init --mcp twice changes nothing the second time",
          again.returncode == 0 and mcp_file.read_text() == once and "nothing changed" in again.stdout, again.stdout)
    if not uninstall:
        return
    gone = h.spill(home, "init", n, "--uninstall")
    after = mcp_file.read_text() if mcp_file.exists() else None
    check(f"{label or n}: init --uninstall takes spill mcp out of {mcp_file.name} byte for byte",
          gone.returncode == 0 and after == before, gone.stdout + gone.stderr)
    h.spill(home, "init", n, "--mcp")


def first_ref(h, marker, proc):
    """The ref in the first tool result of the running conversation `marker` ("none" when that
    result has none; None when the conversation ended or 280 s passed without a result)."""
    deadline = time.time() + 280
    while time.time() < deadline and proc.poll() is None:
        got = h.results(marker)
        if got:
            refs = fake_model.REF.findall(got[0][0])
            return refs[0] if refs else "none"
        time.sleep(0.2)
    return None


def conversation_checks(h, work, home, plain_home, extra=()):
    """The shared proof in one harness: the same commands without spill and with it, the ref read
    in the next turn and refused in a second conversation. `extra` steps follow the shell ones.
    Returns (plain results, spilled results, the big output) for the harness's own checks."""
    n = h.name
    full = subprocess.run(["bash", "-c", BIG], capture_output=True).stdout
    steps = [BIG, SMALL, FAILING, QUOTING, *extra]
    rc, _ = h.run(plain_home, f"{n}-plain", steps)
    plain = h.results(f"{n}-plain.json")
    check(f"{n}: the run without spill completes", rc == 0 and len(plain) == len(steps), f"rc={rc} {len(plain)}")

    flag = work / f"{n}-second-done"
    first = h.start(home, f"{n}-first", [
        BIG, "spill cat {ref} --lines 9000:9002", "spill search {ref} -F 'LAST LINE'", *steps[1:],
        f"while [ ! -e {flag} ]; do sleep 0.1; done; echo waited",
    ])
    want = len(steps) + 3
    # The first result holds the ref; the first conversation then waits (its last step) until
    # the second one has tried it.
    ref = first_ref(h, f"{n}-first.json", first)
    rc2, _ = h.run(home, f"{n}-second", [f"spill cat {ref} --lines 1:2"])
    second = h.results(f"{n}-second.json")
    flag.touch()
    out, err = first.communicate(timeout=300)
    spilled = h.results(f"{n}-first.json")
    check(f"{n}: the conversation with spill completes",
          first.returncode == 0 and len(spilled) == want, f"rc={first.returncode} {len(spilled)} {err[-500:]}")
    if len(spilled) < want or len(plain) < len(steps):
        return None
    big_text = spilled[0][0]
    try:
        envelope = json.loads(big_text[big_text.index("{"):big_text.rindex("}") + 1])
    except ValueError:
        envelope = {}
    check(f"{n}: a 500 KB output reaches the model as spill's envelope",
          envelope.get("spilled") is True and envelope.get("sizeBytes") == len(full)
          and len(big_text) < 4096, big_text[:300])
    check(f"{n}: the envelope shows the last line and the error line",
          LAST_LINE in big_text and ERROR_LINE in big_text, big_text[-300:])
    check(f"{n}: next turn, spill cat REF reads the same conversation's output",
          ERROR_LINE in spilled[1][0] and not spilled[1][1], spilled[1][0][:300])
    check(f"{n}: next turn, spill search REF finds the last line",
          LAST_LINE in spilled[2][0] and not spilled[2][1], spilled[2][0][:300])
    check(f"{n}: a small output reaches the model as without spill",
          h.stable(spilled[3]) == h.stable(plain[1]), f"{spilled[3]!r} vs {plain[1]!r}")
    a, b = h.stable(spilled[4]), h.stable(plain[2])
    same = sorted(a[0].split("\n")) == sorted(b[0].split("\n")) and a[1] == b[1] if h.merges_streams else a == b
    check(f"{n}: a failing command reaches the model as without spill",
          same and "about to fail" in plain[2][0], f"{spilled[4]!r} vs {plain[2]!r}")
    check(f"{n}: quotes, $(), newlines and UTF-8 reach the model as without spill",
          h.stable(spilled[5]) == h.stable(plain[3]), f"{spilled[5]!r} vs {plain[3]!r}")
    check(f"{n}: a second conversation cannot read the first one's ref",
          rc2 == 0 and len(second) == 1 and "unknown ref" in second[0][0], repr(second))
    return plain, [spilled[0], *spilled[3:]], full


def without_and_with(h, home, plain_home, what, steps):
    """The conversation `steps` run without spill (`plain_home`) and with it (`home`): both
    results, or None (a failed check) when either did not complete."""
    n = h.name
    h.run(plain_home, f"{n}-{what}-plain", steps)
    plain = h.results(f"{n}-{what}-plain.json")
    h.run(home, f"{n}-{what}-spill", steps)
    spilled = h.results(f"{n}-{what}-spill.json")
    check(f"{n}: the {what} conversations complete", len(plain) == len(steps) and len(spilled) == len(steps),
          f"{len(plain)} {len(spilled)}")
    if len(plain) < len(steps) or len(spilled) < len(steps):
        return None
    return plain, spilled


def shell_state_checks(h, home, plain_home, kill_step="echo before; kill -9 $$", reports_kill=True):
    """The harness behaves as without spill for the way a command ends and what it leaves: its
    exit status, its own `wait`, its shell's death by a signal, and whether a `cd` carries
    over. `kill_step` is the step that kills the shell (opencode's takes a short timeout: it
    waits for its tool timeout after a killed shell, with spill as without). A harness that
    reports no status for a killed shell (`reports_kill=False`: Pi) shows the kill by what
    its shell no longer printed after it."""
    n = h.name
    steps = ["echo out; exit 3", "sleep 0.2 & wait; echo waited", kill_step, "mkdir -p sub && cd sub", "pwd"]
    got = without_and_with(h, home, plain_home, "state", steps)
    if not got:
        return
    plain, spilled = got
    for name, i in [("exit 3", 0), ("the command's own `wait`", 1), ("kill -9 $$ (the shell's death)", 2),
                    ("cd, then pwd", 4)]:
        check(f"{n}: {name} reaches the model as without spill",
              h.stable(spilled[i]) == h.stable(plain[i]), f"{spilled[i]!r} vs {plain[i]!r}")
    if reports_kill:
        check(f"{n}: the killed shell's report names the signal or its status", "9" in plain[2][0]
              or "137" in plain[2][0] or "timeout" in plain[2][0], plain[2][0][:300])
    else:
        check(f"{n}: the killed shell printed nothing after the kill, with spill as without",
              all("before" in r[2][0] and "after the kill" not in r[2][0] for r in (plain, spilled)),
              f"{plain[2]!r} {spilled[2]!r}")


K300_FAILURE = "error[E0300]: the MCP tool failed at the very end"


def result_text(text):
    """A tool result's text: Codex's MCP results arrive as a JSON list of text items."""
    try:
        items = json.loads(text)
    except ValueError:
        return text
    if isinstance(items, list):
        return "\n".join(i.get("text", "") for i in items if isinstance(i, dict))
    return text


def spilled_envelope(text):
    """The first envelope spill printed in a tool result's text ({} when there is none)."""
    try:
        return json.JSONDecoder().raw_decode(text[text.index('{"spilled"'):])[0]
    except ValueError:
        return {}


def proxy_route_checks(h, work):
    """`spill init NAME --user --proxy-mcp` in a harness with no hook that can replace an MCP
    result (Codex, opencode, Kilo Code): the configured stdio server's 300 KB result, ending in a failure
    line, reaches the model as spill's envelope with that line (not the harness's cut), the
    envelope's hinted shell command finds it, and --uninstall gives the file back byte for byte.
    The first step is a shell command: the hook binds the conversation, which the proxy follows."""
    n = h.name
    home, plain_home = work / f"{n}-route-home", work / f"{n}-route-plain"
    # As a user runs it: the default store root (under TMPDIR, which Codex passes its servers).
    h.tmpdir = work / f"{n}-route-tmp"
    h.tmpdir.mkdir(exist_ok=True)
    for hm in (home, plain_home):
        h.add_mcp_server(h.setup(hm), "fake")
    config = (home / ".codex" / "config.toml") if n == "codex" else h.config_path(home)
    before = config.read_text()
    tool = h.mcp_step("fake", "k300")
    h.run(plain_home, f"{n}-route-plain", ["echo bound", tool])
    plain = h.results(f"{n}-route-plain.json")
    dry = h.spill(home, "init", n, "--user", "--proxy-mcp", "--dry-run")
    check(f"{n}: init --proxy-mcp --dry-run shows the route and writes nothing",
          dry.returncode == 0 and re.search(r'"mcp", "proxy", ("--dir", "[^"]+", )?"--"', dry.stdout)
          and config.read_text() == before, dry.stdout[-500:] + dry.stderr)
    first = h.spill(home, "init", n, "--user", "--proxy-mcp")
    routed = config.read_text()
    again = h.spill(home, "init", n, "--user", "--proxy-mcp")
    check(f"{n}: init --proxy-mcp routes the server through spill mcp proxy, once",
          first.returncode == 0 and h.routed(routed) and again.returncode == 0 and config.read_text() == routed, first.stdout + first.stderr + routed[-600:])
    h.run(home, f"{n}-route-spill", ["echo bound", tool, "{hint}"])
    got = h.results(f"{n}-route-spill.json")
    # The MCP tool first, before any shell command has bound the conversation: the proxy stores
    # in its own scope, and the first shell command (the hinted one) moves the result into the
    # conversation's scope before it runs.
    h.run(home, f"{n}-route-first", [tool, "{hint}"])
    first_calls = h.results(f"{n}-route-first.json")
    check(f"{n}: the proxy-route conversations complete", len(plain) == 2 and len(got) == 3,
          f"{len(plain)} {len(got)}")
    gone = h.spill(home, "init", n, "--uninstall")
    h.tmpdir = None
    check(f"{n}: init --uninstall takes the route out byte for byte",
          gone.returncode == 0 and config.read_text() == before, gone.stdout + gone.stderr)
    if len(plain) < 2 or len(got) < 3:
        return None
    without, big = result_text(plain[1][0]), result_text(got[1][0])
    envelope = spilled_envelope(big)  # then (Codex) the resource_link rendered as JSON text
    check(f"{n}: through the proxy route a 300 KB MCP result reaches the model as spill's envelope",
          envelope.get("spilled") is True and envelope.get("sizeBytes", 0) > 290_000 and len(big) < 8192,
          big[:300])
    check(f"{n}: the envelope shows the failure line", K300_FAILURE in big, big[-300:])
    hinted = result_text(got[2][0])
    check(f"{n}: the envelope's hinted shell command finds the failure line",
          K300_FAILURE in hinted and "unknown ref" not in hinted, hinted[:300])
    early = result_text(first_calls[1][0]) if len(first_calls) >= 2 else ""
    check(f"{n}: a result stored before the first shell command is read by the hinted shell command",
          len(first_calls) >= 2 and '"spilled"' in result_text(first_calls[0][0])
          and K300_FAILURE in early and "unknown ref" not in early, early[:300])
    measured = {"without": {"bytes": len(without.encode()), "failureLine": K300_FAILURE in without},
                "with": {"bytes": len(big.encode()), "failureLine": K300_FAILURE in big}}
    print(f"info  {n}: the 300 KB MCP result: {measured}")
    return measured


def spill_mcp_checks(h, work, direct_mcp=False):
    """`spill mcp` registered in the harness without a scope reads the ref of the shell's
    envelope; a second conversation at the same time cannot. With `direct_mcp` (a harness whose
    hook replaces an MCP result: Gemini CLI) the fake server's 300 KB result, ending in a failure
    line, reaches the model as spill's envelope, and the envelope's hinted shell command finds
    the line; without spill the model gets the harness's own cut."""
    n = h.name
    home, plain_home = work / f"{n}-mcp-home", work / f"{n}-mcp-plain"
    configs = {}
    for hm in (home, plain_home):
        configs[hm] = h.setup(hm)
        h.add_mcp_server(configs[hm], "fake")
    # The plain HOME has the same tools (`spill mcp` registered by hand) and no hooks.
    h.add_spill_mcp(configs[plain_home])
    # The hooks and `spill mcp`, by `init --mcp`.
    mcp_init_checks(h, home, configs[home])
    search = h.mcp_step("spill", "search", {"source": "{ref}", "pattern": ERROR_LINE, "fixed_strings": True})
    steps = [BIG, search, *([h.mcp_step("fake", "k300"), "{hint}"] if direct_mcp else [])]
    flag = work / f"{n}-mcp-done"
    first = h.start(home, f"{n}-mcp-first", [*steps, f"while [ ! -e {flag} ]; do sleep 0.1; done; echo waited"])
    ref = first_ref(h, f"{n}-mcp-first.json", first)
    h.run(home, f"{n}-mcp-second", [h.mcp_step("spill", "search", dict(search["input"], source=ref or "none"))])
    second = h.results(f"{n}-mcp-second.json")
    flag.touch()
    first.communicate(timeout=300)
    got = h.results(f"{n}-mcp-first.json")
    check(f"{n}: the spill mcp conversations complete", len(got) == len(steps) + 1 and len(second) == 1,
          f"{len(got)} {len(second)}")
    if len(got) < len(steps) + 1 or len(second) < 1:
        return None
    check(f"{n}: spill mcp (no scope set) reads the ref of the same conversation's shell envelope",
          '"spilled":true' in got[0][0] and ERROR_LINE in got[1][0] and "unknown ref" not in got[1][0],
          got[1][0][:300])
    # (Gemini CLI's tool error repeats the call's arguments, the pattern among them: no match
    # line `N:1:PATTERN` is the proof.)
    check(f"{n}: a second conversation at the same time cannot read it through spill mcp",
          "unknown ref" in second[0][0] and f":1:{ERROR_LINE}" not in second[0][0], second[0][0][:300])
    if not direct_mcp:
        return None
    h.run(plain_home, f"{n}-mcp-plain", [h.mcp_step("fake", "k300")])
    plain = h.results(f"{n}-mcp-plain.json")
    big, hinted = got[2][0], got[3][0]
    envelope = spilled_envelope(big)
    check(f"{n}: a 300 KB MCP result reaches the model as spill's envelope (the AfterTool hook)",
          envelope.get("spilled") is True and envelope.get("sizeBytes", 0) > 290_000 and len(big) < 8192,
          big[:300])
    check(f"{n}: the envelope's hinted shell command finds the MCP result's failure line",
          K300_FAILURE in hinted and "unknown ref" not in hinted, hinted[:300])
    if not plain:
        check(f"{n}: the MCP conversation without spill completes", False)
        return None
    measured = {"without": {"bytes": len(plain[0][0].encode()), "failureLine": K300_FAILURE in plain[0][0]},
                "with": {"bytes": len(big.encode()), "failureLine": K300_FAILURE in big}}
    print(f"info  {n}: the 300 KB MCP result: {measured}")
    return measured


def saved_file(text):
    """The bytes of a file the harness named in a result, if any."""
    saved = None
    for word in text.replace("\n", " ").split():
        candidate = Path(word.strip(".,:()[]"))
        if word.startswith("/") and candidate.is_file():
            saved = candidate.read_bytes()
    return saved


def table_row(title, plain_big, spilled_big, full):
    """One row of the README's table: what the model received for the big command."""
    saved = saved_file(plain_big)
    return {
        "harness": title,
        "without": {**measure(plain_big, len(full)), "retrievable": saved is not None and full in saved,
                    "saved": f"{len(saved)} of {len(full)} bytes in a file" if saved is not None else "no file"},
        "with": {**measure(spilled_big, len(full)), "retrievable": True},
    }


def codex_checks(codex, work):
    home, plain_home = work / "codex-home", work / "codex-home-plain"
    codex.setup(plain_home)
    config = home / ".codex" / "config.toml"
    harness_init_checks(codex, home, config,
                        lambda before, after, *_: after.startswith(before) and "trusted_hash" in after)
    got = conversation_checks(codex, work, home, plain_home)
    if not got:
        return None
    plain, spilled, full = got
    check("codex: a failing command's status reaches the model", "exited with code 3" in spilled[2][0],
          spilled[2][0][:200])
    check("codex: the quoting command ran", "ünïcode" in plain[3][0], plain[3][0][:200])
    shell_state_checks(codex, home, plain_home)
    # An exec-policy rule still applies: the hook lets the command through unchanged.
    rules = home / ".codex" / "rules"
    rules.mkdir(exist_ok=True)
    (rules / "default.rules").write_text('prefix_rule(pattern = ["printf"], decision = "forbidden")\n')
    codex.run(home, "codex-deny", ["printf denied-marker"])
    (rules / "default.rules").unlink()
    denied = codex.results("codex-deny.json")
    check("codex: a forbidden exec-policy rule still stops the command",
          len(denied) == 1 and "policy forbids" in denied[0][0], repr(denied))
    codex_read_only_checks(codex, work, home, plain_home, full)
    codex_live_checks(codex, home, plain_home)
    row = table_row(f"Codex {CODEX[1]}", plain[0][0], spilled[0][0], full)
    row["mcpProxy"] = proxy_route_checks(codex, work)
    codex_env_checks(codex, work)
    return row


# The variables README's Codex section lists for `env_vars` (what `init --proxy-mcp` writes).
CODEX_SPILL_VARS = ["SPILL_DIR", "SPILL_STORE", "SPILL_TTL", "SPILL_QUOTA", "SPILL_MAX_FILE", "SPILL_MAX_INLINE"]


def codex_env_checks(codex, work):
    """With SPILL_DIR set, as a user's environment may have it: Codex gives MCP servers only the
    variables `env_vars` names, so `init --proxy-mcp` writes spill's into each route and README
    registers `spill mcp` with them. The routed proxy's result (stored before the first shell
    command) reads from the shell, the shell's ref reads through `spill mcp`, a second
    conversation at the same time cannot read it; without `env_vars`, `spill mcp` cannot."""
    n = codex.name
    assert codex.tmpdir is None  # SPILL_DIR is set (Harness.env)
    home, bare = work / f"{n}-env-home", work / f"{n}-env-bare"
    config = codex.setup(home)
    codex.add_mcp_server(config, "fake")
    routed = codex.spill(home, "init", n, "--proxy-mcp")
    written = config.read_text()
    check(f"{n}: init --proxy-mcp passes spill's variables to the route (env_vars)",
          routed.returncode == 0 and f"env_vars = {json.dumps(CODEX_SPILL_VARS)}" in written,
          routed.stderr + written[-400:])
    # `spill mcp` by `init --mcp`, with spill's variables in env_vars (its uninstall is checked
    # where no route shares the file).
    mcp_init_checks(codex, home, config, uninstall=False)
    check(f"{n}: init --mcp passes spill's variables to spill mcp (env_vars)",
          config.read_text().count(f"env_vars = {json.dumps(CODEX_SPILL_VARS)}") == 2, config.read_text()[-600:])
    search = codex.mcp_step("spill", "search", {"source": "{ref}", "pattern": ERROR_LINE, "fixed_strings": True})
    flag = work / f"{n}-env-done"
    first = codex.start(home, f"{n}-env-first", [
        codex.mcp_step("fake", "k300"), "{hint}", BIG, search,
        f"while [ ! -e {flag} ]; do sleep 0.1; done; echo waited"])
    deadline, ref = time.time() + 280, None
    while time.time() < deadline and ref is None and first.poll() is None:
        got = codex.results(f"{n}-env-first.json")
        if len(got) >= 3:
            found = fake_model.REF.findall(got[2][0])
            ref = found[0] if found else "none"
        time.sleep(0.2)
    other = codex.mcp_step("spill", "search", dict(search["input"], source=ref or "none"))
    codex.run(home, f"{n}-env-second", [other])
    second = codex.results(f"{n}-env-second.json")
    flag.touch()
    first.communicate(timeout=300)
    got = codex.results(f"{n}-env-first.json")
    # The control: `spill mcp` registered without env_vars reads the default root, not SPILL_DIR.
    codex.add_spill_mcp(codex.setup(bare), env_vars=False)
    codex.spill(bare, "init", n)
    codex.run(bare, f"{n}-env-bare", [BIG, search])
    without = codex.results(f"{n}-env-bare.json")
    check(f"{n}: the SPILL_DIR conversations complete", len(got) == 5 and len(second) == 1 and len(without) == 2,
          f"{len(got)} {len(second)} {len(without)}")
    if len(got) < 5 or len(second) < 1 or len(without) < 2:
        return
    hinted = result_text(got[1][0])
    # 0.131.0 hands the model an MCP result as the JSON of its content, quotes escaped.
    stored = result_text(got[0][0]).replace('\\"', '"')
    check(f"{n}: with SPILL_DIR set, a result the routed proxy stored reads from the shell",
          '"spilled"' in stored and K300_FAILURE in hinted and "unknown ref" not in hinted,
          stored[:300] + hinted[:300])
    read = result_text(got[3][0])
    check(f"{n}: with SPILL_DIR set, spill mcp registered with env_vars reads the shell's ref",
          '"spilled"' in got[2][0] and ERROR_LINE in read and "unknown ref" not in read, read[:300])
    check(f"{n}: a second conversation at the same time cannot read it through spill mcp",
          "unknown ref" in result_text(second[0][0]) and ERROR_LINE not in result_text(second[0][0]),
          second[0][0][:300])
    check(f"{n}: without env_vars, spill mcp reads another root than the hook (unknown ref)",
          '"spilled"' in without[0][0] and "unknown ref" in result_text(without[1][0]), without[1][0][:300])


UNSTORED = "[spill: "


def real_bytes(text, full):
    """How many bytes of `full`'s own lines a result holds (each whole line counted once)."""
    lines = set(full.decode().split("\n"))
    seen = set()
    for line in text.split("\n"):
        if line and line in lines:
            seen.add(line)
    return sum(len(line.encode()) + 1 for line in seen)


def codex_read_only_checks(codex, work, home, plain_home, full):
    """`-s read-only`, where spill cannot create its store: the model gets Codex's own cut of the
    output, as without spill (at least as many bytes of it), and spill's one line."""
    ro = Codex(codex.exe, codex.spill_exe, work, codex.server)
    ro.sandbox = "read-only"
    # A store root nothing has created yet: in read-only, nothing can create it.
    store = work / "store-read-only"
    ro.extra_env = lambda h: {**Codex.extra_env(ro, h), "SPILL_DIR": str(store)}
    rc, _ = ro.run(plain_home, "codex-ro-plain", [BIG])
    plain = ro.results("codex-ro-plain.json")
    rc2, _ = ro.run(home, "codex-ro-spill", [BIG])
    spilled = ro.results("codex-ro-spill.json")
    check("codex read-only: both runs complete", rc == 0 and rc2 == 0 and len(plain) == 1 and len(spilled) == 1,
          f"rc={rc},{rc2} {len(plain)} {len(spilled)}")
    if len(plain) != 1 or len(spilled) != 1:
        return
    text, without = spilled[0][0], plain[0][0]
    lines = [l for l in text.split("\n") if l.startswith(UNSTORED)]
    check("codex read-only: spill adds exactly one line, naming the sandbox setting",
          len(lines) == 1 and f"{len(full):,} bytes not stored (" in lines[0] and "-s workspace-write" in lines[0]
          and 'sandbox_mode = "workspace-write"' in lines[0] and text.count("[spill:") == 1, text[-600:])
    # The hook (outside the sandbox) may record the conversation's binding in the store's root;
    # no payload can be there.
    payloads = [p for p in store.rglob("*") if p.is_file() and len(p.name) == 16
                and all(c in "0123456789abcdef" for c in p.name)] if store.exists() else []
    check("codex read-only: no envelope, and nothing was stored", '"spilled"' not in text and not payloads,
          f"{payloads} {text[:300]}")
    got, base = real_bytes(text, full), real_bytes(without, full)
    line = len(lines[0].encode()) + 1 if lines else 0
    print(f"info  codex read-only: {got} bytes of the real output with spill, {base} without, spill's line "
          f"{line} (results of {len(text.encode())} and {len(without.encode())} bytes; the output is {len(full)})")
    # Codex keeps a fixed budget of the combined output (its head and tail): spill's line, at the
    # end, takes its own length from the tail, and nothing more (lines cut at the budget's edges
    # are not counted, so one line of the output is allowed for too).
    check("codex read-only: the model gets Codex's own cut of the output, less only spill's line",
          base > 0 and got >= base - line - max(len(l) + 1 for l in full.decode().split("\n")), f"{got} vs {base} - {line}")
    check("codex read-only: Codex's cut keeps the output's last line, as without spill",
          (LAST_LINE in text) == (LAST_LINE in without), text[-300:])


def old_version_checks(h, work, version):
    """A harness at the oldest version spill hooks: `init` installs its hooks (or plugin), then
    the same conversation checks as at the newest version."""
    n = h.name
    home, plain_home = work / f"{n}-home", work / f"{n}-home-plain"
    h.setup(plain_home)
    h.setup(home)
    first = h.spill(home, "init", n)
    check(f"{n}: init installs spill's hooks", first.returncode == 0, first.stdout + first.stderr)
    got = conversation_checks(h, work, home, plain_home)
    if not got:
        return None
    plain, spilled, full = got
    if isinstance(h, Gemini):
        # Its inactivity timeout is the same at the oldest version (0.36.0's ShellTool).
        gemini_live_checks(h, home, plain_home)
    return table_row(f"{h.product} {version}", plain[0][0], spilled[0][0], full)


def gemini_checks(gemini, work):
    home, plain_home = work / "gemini-home", work / "gemini-home-plain"
    gemini.setup(plain_home)
    settings = home / ".gemini" / "settings.json"

    def first_ok(before, after, *_):
        doc = json.loads(after)
        return doc["hooksConfig"]["enabled"] is True and doc["security"] == GEMINI_SETTINGS["security"]
    harness_init_checks(gemini, home, settings, first_ok)
    project = gemini.project()
    full = subprocess.run(["bash", "-c", BIG], capture_output=True).stdout
    (project / "big.txt").write_bytes(full)
    (project / "small.txt").write_text("a small file\n")
    files = [{"tool": "read_file", "input": {"file_path": "big.txt"}},
             {"tool": "read_file", "input": {"file_path": "small.txt"}}]
    got = conversation_checks(gemini, work, home, plain_home, files)
    if not got:
        return None
    plain, spilled, full = got
    shell_state_checks(gemini, home, plain_home)
    check("gemini: a small output differs only by Gemini's own hook note",
          spilled[1][0].endswith(GEMINI_HOOK_NOTE), spilled[1][0][-200:])
    check("gemini: a failing command's exit code reaches the model", "Exit Code: 3" in spilled[2][0],
          spilled[2][0][:200])
    # Gemini CLI refuses `$()` itself; with spill the same refusal (the hook leaves it alone).
    check("gemini: a command with $() is refused by Gemini exactly as without spill",
          spilled[3] == plain[3] and "Command injection detected" in plain[3][0], repr(spilled[3]))
    check("gemini: AfterTool replaces a large read_file result by the envelope",
          '"spilled":true' in spilled[4][0] and len(spilled[4][0]) < 4096, spilled[4][0][:300])
    # Gemini CLI cut the file to 2,000 lines before the hook saw it: the envelope says so.
    check("gemini: the read_file envelope says what it holds (Gemini's cut), not 'Stored in full'",
          '"complete":false' in spilled[4][0] and "Holds only lines 1-2000 of the file's " in spilled[4][0]
          and "Stored in full" not in spilled[4][0], spilled[4][0][:600])
    check("gemini: a small read_file result reaches the model as without spill",
          spilled[5] == plain[5], f"{spilled[5]!r} vs {plain[5]!r}")
    store = gemini.spill(home, "ls", "--all-scopes", "--json")
    scopes = {e.get("scope") for e in json.loads(store.stdout or "{}").get("entries", [])} if store.returncode == 0 else {"?"}
    check("gemini: SessionEnd removed the conversations' entries",
          not any(s and s.startswith("gemini-") for s in scopes), store.stdout[:300])
    gemini_live_checks(gemini, home, plain_home)
    # A deny policy rule still denies: the hook leaves the command alone, Gemini applies the rule.
    policies = home / ".gemini" / "policies"
    policies.mkdir(exist_ok=True)
    (policies / "deny.toml").write_text('[[rule]]\ntoolName = "run_shell_command"\n'
                                        'commandPrefix = "printf"\ndecision = "deny"\npriority = 500\n')
    gemini.run(home, "gemini-deny", ["printf denied-marker"])
    (policies / "deny.toml").unlink()
    denied = gemini.results("gemini-deny.json")
    check("gemini: a deny policy rule still stops the command",
          len(denied) == 1 and "denied by policy" in denied[0][0] and denied[0][1], repr(denied))
    row = table_row(f"Gemini CLI {GEMINI[1]}", plain[0][0], spilled[0][0], full)
    row["mcp"] = spill_mcp_checks(gemini, work, direct_mcp=True)
    return row


def gemini_live_checks(gemini, home, plain_home):
    """Long commands in Gemini CLI (README, "Gemini CLI"): Gemini cancels a command that prints
    nothing for `tools.shell.inactivityTimeout` (4 s here; 300 s by default). Under the hook the
    command's output goes to `wrap`, so `wrap` reports while it grows (the running envelope a
    fifth before the timeout, then a line at each such interval in which the command printed):
    a build that prints all along runs to its end as without spill, and one that prints nothing
    is cancelled as without spill."""
    files = [d / ".gemini" / "settings.json" for d in (home, plain_home)]
    saved = [f.read_text() for f in files]
    for f in files:
        doc = json.loads(f.read_text())
        doc.setdefault("tools", {}).setdefault("shell", {})["inactivityTimeout"] = 4
        f.write_text(json.dumps(doc, indent=2) + "\n")
    steps = ["for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18; do echo build step $i; sleep 0.5; done; "
             f"echo '{LIVE_FAILURE}'; exit 3",
             "sleep 7; echo after the silence"]
    got = without_and_with(gemini, home, plain_home, "live", steps)
    for f, text in zip(files, saved):
        f.write_text(text)
    if not got:
        return
    plain, spilled = got
    check("gemini: without spill a 9-second build that prints all along outlives the 4-second inactivity timeout",
          LIVE_FAILURE in plain[0][0] and "Exit Code: 3" in plain[0][0], plain[0][0][-300:])
    build = spilled[0][0]
    check("gemini: under spill the same build runs to its end: the model reads its failure line and status 3",
          LIVE_FAILURE in build and "Exit Code: 3" in build and "without output" not in build, build[-400:])
    check("gemini: while it ran, spill reported: the running envelope, then lines with what is new",
          '"running":true' in build.replace(" ", "") and "still running:" in build and "--since" in build,
          build[:400])
    check("gemini: a command silent for 7 s is cancelled at the inactivity timeout without spill",
          "without output" in plain[1][0] and "after the silence" not in plain[1][0], plain[1][0][:300])
    check("gemini: under spill the silent command is cancelled too, as without spill",
          "without output" in spilled[1][0] and "after the silence" not in spilled[1][0], spilled[1][0][:300])
    print(f"info  gemini: a 9-second build under a 4-second inactivity timeout, bytes the model received: "
          f"without spill {len(plain[0][0].encode())}; with spill {len(build.encode())}")


def own_file_checks(h, work, own_file):
    """The shared checks of a harness spill hooks through a file of its own (opencode's plugin,
    Pi's extension, `own_file` under HOME): init writes that file and leaves the settings alone,
    and the conversation, whose small output is byte for byte. Returns (home, plain_home,
    conversation_checks' result or None)."""
    home, plain_home = work / f"{h.name}-home", work / f"{h.name}-home-plain"
    h.setup(plain_home)

    def first_ok(before, after, config_now, config_before):
        return str(h.spill_exe) in after and config_now == config_before
    harness_init_checks(h, home, home / own_file, first_ok)
    got = conversation_checks(h, work, home, plain_home)
    if got:
        plain, spilled, _ = got
        check(f"{h.name}: a small output reaches the model byte for byte", spilled[1] == plain[1],
              f"{spilled[1]!r} vs {plain[1]!r}")
        check(f"{h.name}: the quoting command ran", "ünïcode" in plain[3][0], plain[3][0][:200])
    return home, plain_home, got


def opencode_checks(oc, work, version=OPENCODE[1]):
    """opencode's checks, and Kilo Code's (its fork, `version` as pinned): the plugin's
    conversation, the shell's state, a deny rule, live output and the MCP proxy route."""
    n = oc.name
    home, plain_home, got = own_file_checks(oc, work, oc.plugin_file)
    if not got:
        return None
    plain, spilled, full = got
    # opencode waits for its tool's timeout after a killed shell (without spill too): 3 s here.
    # Kilo Code reports a killed shell by its output alone, with no status (7.7.7).
    kilo = isinstance(oc, Kilo)
    shell_state_checks(oc, home, plain_home, {"tool": "bash", "input": {
        "command": "echo before; kill -9 $$" + ("; echo after the kill" if kilo else ""), "timeout": 3000,
        "description": "scripted command"}}, reports_kill=not kilo)
    # A deny permission rule still denies: the hook leaves the command alone.
    config = oc.config_path(home)
    kept = config.read_text()
    doc = json.loads(kept)
    doc["permission"] = {"bash": {"*": "allow", "printf *": "deny"}}
    config.write_text(json.dumps(doc))
    oc.run(home, f"{n}-deny", ["printf denied-marker"])
    config.write_text(kept)
    denied = oc.results(f"{n}-deny.json")
    check(f"{n}: a deny permission rule still stops the command",
          len(denied) == 1 and "denied-marker" not in denied[0][0].replace("printf denied-marker", "")
          and "rule" in denied[0][0], repr(denied)[:300])
    live_checks(oc, home, plain_home)
    if kilo:
        kilo_new_user_checks(oc, work)
    row = table_row(f"{oc.product} {version}", plain[0][0], spilled[0][0], full)
    row["mcpProxy"] = proxy_route_checks(oc, work)
    spill_mcp_checks(oc, work)
    return row


def kilo_checks(k, work):
    return opencode_checks(k, work, KILO[1])


def kilo_new_user_checks(k, work):
    """Kilo Code with no rule that allows bash (a new user's, whose first start found no file to
    migrate): its own rules allow a few commands (`ls`, `touch`), ask before the others, and
    `kilo run` refuses what it would ask about and ends with status 1. With spill's plugin the
    conversation goes exactly as without it: the hook leaves each command alone, since its
    rewritten form would be asked about where the command itself was allowed."""
    homes = {}
    for tag in ("plain", "spill"):
        home = work / f"kilo-new-{tag}"
        config = k.setup(home)
        doc = json.loads(config.read_text())
        del doc["permission"]
        config.write_text(json.dumps(doc, indent=2) + "\n")
        (config.parent / ".bash-permission-migrated").write_text("")
        homes[tag] = home
    init = k.spill(homes["spill"], "init", "kilo")
    check("kilo: init installs the plugin for a new user", init.returncode == 0, init.stderr)
    steps = ["ls", "touch made-by-the-model", "rm made-by-the-model"]
    got = {}
    for tag, home in homes.items():
        rc, _ = k.run(home, f"kilo-new-{tag}", steps)
        got[tag] = (rc, k.results(f"kilo-new-{tag}.json"), (k.project() / "made-by-the-model").exists())
        (k.project() / "made-by-the-model").unlink(missing_ok=True)
    plain, spilled = got["plain"], got["spill"]
    check("kilo: without a rule that allows bash, a conversation goes as without spill",
          plain[0] == spilled[0] and [k.stable(r) for r in plain[1]] == [k.stable(r) for r in spilled[1]]
          and plain[2] == spilled[2] and len(plain[1]) >= 2, f"{plain!r} vs {spilled!r}")
    check("kilo: without a rule that allows bash, touch ran and rm was refused, with spill as without",
          spilled[0] == 1 and len(spilled[1]) == 2 and spilled[2], repr(spilled)[:300])


LIVE_FAILURE = "error[E0308]: mismatched types at build.rs:42"


def codex_live_checks(codex, home, plain_home):
    """Live output in Codex (README, "Codex"): `exec_command` answers after 10 s with what the
    command printed so far and leaves it running; under `wrap` that was nothing. Now the model
    gets the running envelope (ref, output so far) at 8 s, and Codex's own next read of the
    process (`write_stdin`) the final envelope, with the failure line and the status."""
    build = {"tool": "exec_command", "input": {
        "cmd": f"for i in $(seq 1 24); do echo build step $i; sleep 0.5; done; echo '{LIVE_FAILURE}'; exit 3"}}
    poll = {"tool": "write_stdin", "input": {"session_id": "{session}", "chars": "", "yield_time_ms": 10000}}
    got = without_and_with(codex, home, plain_home, "live", [build, poll])
    if not got:
        return
    plain, spilled = got
    check("codex: without spill the first answer is the output so far, the command still running",
          "Process running" in plain[0][0] and "build step 1" in plain[0][0], plain[0][0][:300])
    first = spilled[0][0]
    check("codex: with spill the first answer is the running envelope, not an empty output",
          "Process running" in first and '"running":true' in first.replace(" ", "") and "sp_" in first
          and "build step 1" in first, first[:400])
    end = spilled[1][0]
    check("codex: Codex's next read of the process gets the final envelope, the failure line and status 3",
          LIVE_FAILURE in end and "exited with code 3" in end and '"exitCode":3' in end.replace(" ", ""),
          end[:400])
    print(f"info  codex: live output, bytes the model received: without spill "
          f"{[len(r[0].encode()) for r in plain]}; with spill {[len(r[0].encode()) for r in spilled]}")


def live_checks(oc, home, plain_home):
    """Live output in opencode (README, "Live output"): a build longer than the bash tool's
    timeout (4 s here, opencode's default is 2 minutes) is handed over to spill's supervisor
    before opencode kills it; the model waits on it with the envelope's command (the hook gives
    `spill wait` a timeout under opencode's) and reads its failure line and status. Without
    spill opencode kills the build and the line never exists. A dev server that never ends is
    read while it runs and stopped."""
    def bash(command, timeout):
        return {"tool": "bash", "input": {"command": command, "timeout": timeout, "description": "scripted"}}
    n = oc.name
    build = bash(f"for i in $(seq 1 14); do echo build step $i; sleep 0.5; done; echo '{LIVE_FAILURE}'; exit 3", 4000)
    steps = [build, bash("spill wait {ref}", 4000), bash("spill wait {ref}", 4000)]
    oc.run(plain_home, f"{n}-live-plain", [build])
    plain = oc.results(f"{n}-live-plain.json")
    oc.run(home, f"{n}-live-spill", steps)
    got = oc.results(f"{n}-live-spill.json")
    check(f"{n}: the live-output conversations complete", len(plain) == 1 and len(got) == 3,
          f"{len(plain)} {len(got)}")
    if len(plain) < 1 or len(got) < 3:
        return
    check(f"{n}: without spill the tool timeout kills the build before its failure line",
          LIVE_FAILURE not in plain[0][0] and "build step 1" in plain[0][0], plain[0][0][-300:])
    first = got[0][0]
    check(f"{n}: at the timeout the model gets a running envelope (ref, output so far, wait and stop)",
          '"running":true' in first.replace(" ", "") and "spill wait sp_" in first and "spill stop sp_" in first
          and "build step 1" in first, first[:400])
    # The build ends during the first wait or the second, as fast as the harness takes its
    # turns (Kilo Code's are slow, and under load the first wait can see the end; the second
    # then finds no running entry): the waits' answers hold the failure line and the status.
    seen = got[1][0] + got[2][0]
    check(f"{n}: waiting on the ref reads the failure line and the build's status 3",
          LIVE_FAILURE in seen and ('"exitCode":3' in seen.replace(" ", "") or "exit code: 3" in seen
                                   or "status 3" in seen), seen[:800])
    # A dev server: detached, read while it runs, stopped.
    server = bash("while true; do echo tick; sleep 0.2; done", 3000)
    steps = [server, "spill cat {ref}", "spill stop {ref}", "sleep 0.5; ps -eo args | grep -c '^[w]hile true\\|[e]cho tick' || true"]
    oc.run(home, f"{n}-live-server", steps)
    served = oc.results(f"{n}-live-server.json")
    check(f"{n}: the dev-server conversation completes", len(served) == 4, str(len(served)))
    if len(served) < 4:
        return
    check(f"{n}: a running dev server is read while it runs",
          "tick" in served[1][0] and "running" in served[1][0], served[1][0][-300:])
    check(f"{n}: spill stop ends the dev server", "stopped" in served[2][0], served[2][0][:300])
    print(f"info  {n}: live output, bytes the model received: without spill {len(plain[0][0].encode())} "
          f"(killed, no failure line); with spill {[len(r[0].encode()) for r in got]} (envelope, waits)")


def pi_checks(p, work):
    home, plain_home, got = own_file_checks(p, work, ".pi/agent/extensions/spill.js")
    if not got:
        return None
    plain, spilled, full = got
    # Pi reports a shell killed by a signal as its output alone, with no status (0.73.1: its
    # exit code is null, which it does not report), with spill as without.
    shell_state_checks(p, home, plain_home, "echo before; kill -9 $$; echo after the kill", reports_kill=False)
    # With a shellCommandPrefix the command runs inside Pi's own shell, after the prefix: an
    # alias the prefix defines works as without spill, and a large output is still spilled.
    prefix = {"shellCommandPrefix": "shopt -s expand_aliases\nalias greet='echo hello from the prefix'"}
    settings = [d / ".pi" / "agent" / "settings.json" for d in (home, plain_home)]
    for f in settings:
        f.write_text(json.dumps(prefix))
    got = without_and_with(p, home, plain_home, "prefix", ["greet", "echo out; exit 3", BIG])
    for f in settings:
        f.unlink()
    if got:
        plain_p, spilled_p = got
        check("pi: an alias of shellCommandPrefix reaches the command as without spill",
              "hello from the prefix" in plain_p[0][0] and spilled_p[0] == plain_p[0], f"{spilled_p[0]!r} vs {plain_p[0]!r}")
        check("pi: with shellCommandPrefix, exit 3 reaches the model as without spill",
              spilled_p[1] == plain_p[1], f"{spilled_p[1]!r} vs {plain_p[1]!r}")
        check("pi: with shellCommandPrefix, a 500 KB output reaches the model as spill's envelope",
              '"spilled":true' in spilled_p[2][0].replace(" ", "") and len(spilled_p[2][0]) < 4096,
              spilled_p[2][0][:300])
    pi_live_checks(p, home, plain_home)
    tool_row = pi_tool_checks(p, work, home, plain_home, full)
    return [table_row(f"Pi {PI[1]}", plain[0][0], spilled[0][0], full), *tool_row]


def pi_live_checks(p, home, plain_home):
    """A call's timeout in Pi (README, "Pi"): Pi kills the command at the `timeout` the model
    gave and shows what it printed so far, which under `wrap` was nothing. Now `wrap` prints the
    running envelope a fifth before (the output so far, stored); the command still dies at the
    timeout, as without spill, and its output so far stays readable by its ref."""
    build = {"tool": "bash", "input": {"command": "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do echo build step $i; "
                                                  f"sleep 0.5; done; echo '{LIVE_FAILURE}'; exit 3", "timeout": 4}}
    got = without_and_with(p, home, plain_home, "timeout", [build, "sleep 1; spill cat {ref}"])
    if not got:
        return
    plain, spilled = got
    check("pi: without spill the call's timeout kills the build and the model reads its output so far",
          "timed out" in plain[0][0] and "build step 1" in plain[0][0] and LIVE_FAILURE not in plain[0][0],
          plain[0][0][-300:])
    first = spilled[0][0]
    check("pi: under spill the model reads the output so far too, as the running envelope, and the timeout",
          "timed out" in first and "build step 1" in first and '"running":true' in first.replace(" ", "")
          and '"exitCode"' not in first, first[-400:])
    # (The envelope's label is the command, which names the failure line; the output is read.)
    check("pi: the killed build's output so far stays readable by its ref",
          "build step 1" in spilled[1][0] and LIVE_FAILURE not in spilled[1][0], spilled[1][0][:300])
    print(f"info  pi: a build killed at a 4-second call timeout, bytes the model received: without spill "
          f"{len(plain[0][0].encode())}; with spill {len(first.encode())}")


# An extension tool of the e2e's own (in both HOMEs), standing for an MCP adapter or any tool an
# extension adds: it returns the file it is given, whole.
PI_TOOL = """import { readFileSync } from "node:fs";
export default function (pi) {
  pi.registerTool({
    name: "big_file", label: "big_file", description: "returns a file whole",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    async execute(id, params) {
      return { content: [{ type: "text", text: readFileSync(params.path, "utf8") }], details: {} };
    },
  });
}
"""


def pi_tool_checks(p, work, home, plain_home, full):
    """Other tools' results through the extension's `tool_result`: an extension tool's 564,962-
    byte result reaches the model as the envelope and `spill cat REF` reads it; `read` of the
    big file reaches it as the envelope of the lines Pi kept, saying so. Returns the table rows."""
    big = work / "pi-big-result.txt"
    big.write_text(fake_mcp.big_text())
    log = work / "pi-big-output.log"
    log.write_bytes(full)
    tools = [d / ".pi" / "agent" / "extensions" / "e2e-tool.js" for d in (home, plain_home)]
    for f in tools:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(PI_TOOL)
    steps = [{"tool": "big_file", "input": {"path": str(big)}}, "spill cat {ref} --lines 9000:9002",
             {"tool": "read", "input": {"path": str(log)}}]
    got = without_and_with(p, home, plain_home, "tools", steps)
    for f in tools:
        f.unlink()
    if not got:
        return []
    plain, spilled = got
    text = spilled[0][0]
    check("pi: an extension tool's 564,962-byte result reaches the model as spill's envelope",
          '"spilled":true' in text.replace(" ", "") and len(text) < 4096 and MCP_LAST in text
          and MCP_ERROR in text, text[:300])
    check("pi: the plain run saw the whole tool result", len(plain[0][0].encode()) == big.stat().st_size,
          str(len(plain[0][0])))
    check("pi: next turn, spill cat REF reads the tool's result", MCP_ERROR in spilled[1][0], spilled[1][0][:300])
    read = spilled[2][0]
    check("pi: a read Pi cut reaches the model as the envelope of what Pi kept, saying so",
          '"spilled":true' in read.replace(" ", "") and "Pi cut the rest" in read and len(read) < 4096,
          read[:400])
    return [{"harness": f"Pi {PI[1]}, an extension tool's 564,962-byte result",
             "without": {**measure_mcp(plain[0][0]), "retrievable": True},
             "with": {**measure_mcp(text), "retrievable": True}},
            {"harness": f"Pi {PI[1]}, read of the 492,965-byte file",
             "without": measure(plain[2][0], len(full)), "with": measure(read, len(full))}]


def qwen_checks(q, work):
    """Qwen Code: spill's hooks leave its shell as it is (it cannot change a command) and
    replace another tool's large result, which Qwen Code cut, by the envelope of the whole."""
    n = q.name
    home, plain_home = work / "qwen-home", work / "qwen-home-plain"
    q.setup(plain_home)
    settings = home / ".qwen" / "settings.json"

    def first_ok(before, after, *_):
        doc, old = json.loads(after), json.loads(before)
        return (set(doc["hooks"]) == {"PostToolUse", "SessionEnd"} and "hook qwen-code" in after
                and {k: v for k, v in doc.items() if k != "hooks"} == old)
    harness_init_checks(q, home, settings, first_ok)

    # The shell, with spill as without: Qwen Code's own cut of a big output, the rest unchanged.
    steps = [BIG, SMALL, FAILING, QUOTING]
    full = subprocess.run(["bash", "-c", BIG], capture_output=True).stdout
    got = without_and_with(q, home, plain_home, "shell", steps)
    if not got:
        return None
    plain, spilled = got
    for i, what in enumerate(["a 500 KB output (Qwen Code's own cut)", "a small output", "a failing command",
                              "quotes, $(), newlines and UTF-8"]):
        check(f"{n}: {what} reaches the model as without spill",
              q.stable(spilled[i]) == q.stable(plain[i]), f"{spilled[i]!r:.300} vs {plain[i]!r:.300}")
    check(f"{n}: a failing command's exit code reaches the model", "Exit Code: 3" in spilled[2][0],
          spilled[2][0][:200])
    shell_state_checks(q, home, plain_home)

    # Another tool's result: an MCP tool's 565 KB result and read_file of a 500 KB file.
    project = q.project()
    (project / "big.txt").write_bytes(full)
    tools = [{"tool": "mcp__fake__big", "input": {}}, {"tool": "mcp__fake__medium", "input": {}},
             {"tool": "mcp__fake__small", "input": {}},
             {"tool": "read_file", "input": {"file_path": str(project / "big.txt")}}]
    q.run(plain_home, f"{n}-mcp-plain", tools)
    mcp_plain = q.results(f"{n}-mcp-plain.json")
    search = {"tool": "mcp__spill__search", "input": {"source": "{ref}", "pattern": MCP_LAST, "fixed_strings": True}}
    flag = work / f"{n}-mcp-second-done"
    first = q.start(home, f"{n}-mcp-spill", [
        tools[0], "spill --scope {scope} cat {ref} --lines 9000:9002", search, *tools[1:],
        f"while [ ! -e {flag} ]; do sleep 0.1; done; echo waited"])
    ref = first_ref(q, f"{n}-mcp-spill.json", first)
    # A second conversation at the same time: its own hook call binds its own scope first.
    q.run(home, f"{n}-mcp-second", [tools[2], dict(search, input=dict(search["input"], source=ref or "none"))])
    second = q.results(f"{n}-mcp-second.json")
    flag.touch()
    first.communicate(timeout=300)
    got = q.results(f"{n}-mcp-spill.json")
    want = len(tools) + 3
    check(f"{n}: the tool conversations complete", len(mcp_plain) == len(tools) and len(got) == want
          and len(second) == 2, f"{len(mcp_plain)} {len(got)} {len(second)}")
    if len(mcp_plain) < len(tools) or len(got) < want or len(second) < 2:
        return None
    big = got[0][0]
    check(f"{n}: without spill Qwen Code cuts the MCP result (error line not visible)",
          "has been truncated" in mcp_plain[0][0] and MCP_ERROR not in mcp_plain[0][0], mcp_plain[0][0][:300])
    check(f"{n}: a 565 KB MCP result reaches the model as the envelope of the whole result",
          '"spilled":true' in big and '"sizeBytes":564962' in big and MCP_ERROR in big and MCP_LAST in big
          and len(big) < 4096, big[:400])
    check(f"{n}: next turn, spill --scope SCOPE cat REF in Qwen Code's shell reads it",
          MCP_ERROR in got[1][0], got[1][0][:300])
    check(f"{n}: spill mcp (no scope set) reads the ref of the same conversation's envelope",
          MCP_LAST in got[2][0] and "unknown ref" not in got[2][0], got[2][0][:300])
    check(f"{n}: a second conversation at the same time cannot read it through spill mcp",
          # Qwen Code repeats the call's arguments (the pattern) in the error it shows.
          "unknown ref" in second[1][0] and "totalMatches" not in second[1][0], second[1][0][:300])
    check(f"{n}: a 60 KB MCP result is spilled too", '"spilled":true' in got[3][0], got[3][0][:200])
    check(f"{n}: a small MCP result reaches the model as without spill", got[4] == mcp_plain[2],
          f"{got[4]!r} vs {mcp_plain[2]!r}")
    check(f"{n}: read_file of a 500 KB file reaches the model as the envelope",
          '"spilled":true' in got[5][0] and len(got[5][0]) < 4096, got[5][0][:300])
    row = table_row(f"Qwen Code {QWEN[1]}", plain[0][0], spilled[0][0], full)
    row["mcp"] = {"without": measure_mcp(mcp_plain[0][0]), "with": measure_mcp(big)}
    row["read_file"] = {"without": measure(mcp_plain[3][0], len(full)), "with": measure(got[5][0], len(full))}
    return row


def copilot_checks(c, work, version=COPILOT[1]):
    """GitHub Copilot CLI: commands run as Copilot CLI runs them; a large result of any tool,
    its shell's included, reaches the model as the envelope of the whole result (which Copilot
    CLI saved to a file), read back in the same conversation through the shell and `spill mcp`."""
    n = c.name
    home, plain_home = work / f"copilot-{version}-home", work / f"copilot-{version}-home-plain"
    c.setup(plain_home)
    hooks = home / ".copilot" / "hooks" / "spill.json"

    def first_ok(before, after, config_after, config_before):
        doc = json.loads(after)
        return (before is None and set(doc["hooks"]) == {"PostToolUse", "SessionEnd"}
                and "hook copilot" in after and config_after == config_before)
    harness_init_checks(c, home, hooks, first_ok)
    mcp_init_checks(c, home, home / ".copilot" / "mcp-config.json")
    # The envelope's own command works as written where Copilot CLI names the session in its
    # shell (1.0.40 and later); before, with the --scope the reply names.
    cat = "spill cat {ref} --lines 9000:9002" if version == COPILOT[1] else "spill --scope {scope} cat {ref} --lines 9000:9002"
    full = subprocess.run(["bash", "-c", BIG], capture_output=True).stdout
    steps = [BIG, SMALL, FAILING, QUOTING]
    got = without_and_with(c, home, plain_home, "shell", [*steps, "cd /; pwd", "pwd"])
    if not got:
        return None
    plain, spilled = got
    big = spilled[0][0]
    check(f"{n}: a 500 KB output reaches the model as spill's envelope of the whole output, with the status line",
          '"spilled":true' in big and f'"sizeBytes":{len(full)}' in big and ERROR_LINE in big and LAST_LINE in big
          and "exit code 0>" in big and len(big) < 4096, big[:400])
    check(f"{n}: without spill Copilot CLI shows a 500-character preview and a file",
          "Output too large to read at once" in plain[0][0] and ERROR_LINE not in plain[0][0], plain[0][0][:300])
    for i, what in [(1, "a small output"), (2, "a failing command"), (3, "quotes, $(), newlines and UTF-8"),
                    (4, "cd in one call"), (5, "the next call's working directory")]:
        a, b = c.stable(spilled[i]), c.stable(plain[i])
        # Copilot CLI's own shell interleaves a command's stderr and stdout in either order, with
        # spill as without (its commands are not rewritten): the failing one's lines as a multiset.
        same = sorted(a[0].split("\n")) == sorted(b[0].split("\n")) if i == 2 else a == b
        check(f"{n}: {what} reaches the model as without spill", same, f"{spilled[i]!r:.300} vs {plain[i]!r:.300}")

    # The ref read back: the shell's cat, spill mcp's search, in this conversation only; an MCP
    # tool's large result; a small one.
    search = {"tool": "spill-search", "input": {"source": "{ref}", "pattern": LAST_LINE, "fixed_strings": True}}
    flag = work / f"{n}-{version}-second-done"
    first = c.start(home, f"{n}-{version}-first", [
        BIG, cat, search, {"tool": "fake-big", "input": {}}, cat.replace("9000:9002", "9000:9001"),
        {"tool": "fake-small", "input": {}}, f"while [ ! -e {flag} ]; do sleep 0.1; done; echo waited"])
    ref = first_ref(c, f"{n}-{version}-first.json", first)
    c.run(home, f"{n}-{version}-second", [f"spill cat {ref} --lines 1:2",
                                          dict(search, input=dict(search["input"], source=ref or "none"))])
    second = c.results(f"{n}-{version}-second.json")
    flag.touch()
    first.communicate(timeout=300)
    got = c.results(f"{n}-{version}-first.json")
    c.run(plain_home, f"{n}-{version}-mcp-plain", [{"tool": "fake-big", "input": {}}])
    mcp_plain = c.results(f"{n}-{version}-mcp-plain.json")
    check(f"{n}: the conversations with the ref complete", len(got) == 7 and len(second) == 2 and len(mcp_plain) == 1,
          f"{len(got)} {len(second)} {len(mcp_plain)}")
    if len(got) < 7 or len(second) < 2 or len(mcp_plain) < 1:
        return None
    check(f"{n}: next turn, the envelope's spill cat REF in Copilot CLI's shell reads the output",
          ERROR_LINE in got[1][0], got[1][0][:300])
    check(f"{n}: spill mcp (no scope set) reads the ref of the same conversation's envelope",
          LAST_LINE in got[2][0] and "unknown ref" not in got[2][0], got[2][0][:300])
    check(f"{n}: a second conversation cannot read the ref, in the shell or through spill mcp",
          "unknown ref" in second[0][0] and "unknown ref" in second[1][0] and LAST_LINE not in second[1][0],
          repr(second)[:400])
    mcp = got[3][0]
    check(f"{n}: a 565 KB MCP result reaches the model as the envelope of the whole result",
          '"spilled":true' in mcp and '"sizeBytes":564962' in mcp and MCP_ERROR in mcp and MCP_LAST in mcp
          and len(mcp) < 4096, mcp[:400])
    check(f"{n}: next turn, the shell reads the MCP result by its ref", MCP_ERROR in got[4][0], got[4][0][:300])
    check(f"{n}: a small MCP result reaches the model as it is", got[5][0].strip() == "small result", got[5][0][:200])
    # A trusted project (COPILOT_ALLOW_ALL trusts every folder) with Claude Code's project hooks:
    # Copilot CLI runs them too, and spill answers them as Copilot CLI's, so the commands run as
    # without them (Claude Code's answer would ask for each, which `copilot -p` denies).
    project = c.project()
    claude_settings = project / ".claude" / "settings.json"
    init = subprocess.run([str(c.spill_exe), "init", "claude-code", "--project"], cwd=project,
                          env=c.env(plain_home), capture_output=True, text=True)
    c.more_env = {"COPILOT_ALLOW_ALL": "true"}
    try:
        got = without_and_with(c, home, plain_home, "claude-hooks", ["pwd", BIG])
    finally:
        c.more_env = {}
        shutil.rmtree(project / ".claude", ignore_errors=True)
    if got:
        plain_h, spilled_h = got
        check(f"{n}: with Claude Code's project hooks, a command runs as without spill",
              init.returncode == 0 and c.stable(spilled_h[0]) == c.stable(plain_h[0]) and str(project) in plain_h[0][0],
              f"{spilled_h[0]!r:.300} vs {plain_h[0]!r:.300} {init.stderr[-200:]}")
        check(f"{n}: with Claude Code's project hooks too, a 500 KB output reaches the model as one envelope",
              spilled_h[1][0].count('"spilled":true') == 1 and len(spilled_h[1][0]) < 4096, spilled_h[1][0][:300])
    row = table_row(f"GitHub Copilot CLI {version}", plain[0][0], big, full)
    row["mcp"] = {"without": measure_mcp(mcp_plain[0][0]), "with": measure_mcp(mcp)}
    return row


def kimi_checks(k, work):
    """Kimi CLI, whose hooks can only allow or block a call: no hook is installed (and `spill init
    kimi` says so), its MCP servers go through spill's proxy (proxy_route_checks: the envelope in
    place of Kimi CLI's 100,000-character cut, its hinted command in Kimi CLI's shell, the file back
    byte for byte), and a small MCP result or a shell command reaches the model as without spill."""
    n = k.name
    home, plain_home = work / f"{n}-home", work / f"{n}-plain"
    for hm in (home, plain_home):
        k.add_mcp_server(k.setup(hm), "fake")
    config = k.config_path(home)
    before = config.read_text()
    refused = k.spill(home, "init", n)
    check(f"{n}: init without --proxy-mcp installs no hook, says why and names the route that works",
          refused.returncode == 2 and "only allow or block" in refused.stderr and "--proxy-mcp" in refused.stderr
          and config.read_text() == before and sorted(p.name for p in config.parent.iterdir()) == [
              "config.toml", "mcp.json"], refused.stdout + refused.stderr)
    project = k.spill(home, "init", n, "--project", "--proxy-mcp")
    check(f"{n}: init --project is refused (Kimi CLI has no project MCP file)",
          project.returncode == 2 and "without --project" in project.stderr and config.read_text() == before,
          project.stderr)
    hook = subprocess.run([str(k.spill_exe), "hook", n], input=json.dumps({
        "hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Shell", "tool_input": {"command": "ls"}}),
        env=k.env(home), capture_output=True, text=True)
    check(f"{n}: spill hook kimi lets a call through unchanged (exit 0, nothing on stdout)",
          hook.returncode == 0 and hook.stdout == "" and "allow or block" in hook.stderr, hook.stdout + hook.stderr)
    measured = proxy_route_checks(k, work)
    routed = k.spill(home, "init", n, "--proxy-mcp")
    steps = [k.mcp_step("fake", "small"), SMALL, FAILING]
    got = without_and_with(k, home, plain_home, "small", steps)
    if got:
        plain, spilled = got
        for i, what in [(0, "a small MCP result"), (1, "a small shell output"), (2, "a failing command")]:
            check(f"{n}: {what} reaches the model as without spill", routed.returncode == 0
                  and spilled[i] == plain[i] and plain[i][0].strip(), f"{spilled[i]!r:.300} vs {plain[i]!r:.300}")
    # One conversation, one scope: another kimi process's shell cannot read the first one's ref.
    k.run(home, f"{n}-scope-first", [k.mcp_step("fake", "k300")])
    first = k.results(f"{n}-scope-first.json")
    ref = (fake_model.REF.findall(first[0][0]) or ["none"])[0] if first else "none"
    k.run(home, f"{n}-scope-second", [f"spill search {ref} -F 'error[E0300]'"])
    second = k.results(f"{n}-scope-second.json")
    check(f"{n}: another conversation's shell cannot read the proxy's ref",
          ref != "none" and len(second) == 1 and "unknown ref" in second[0][0] and K300_FAILURE not in second[0][0],
          f"{ref} {second!r:.300}")
    gone = k.spill(home, "init", n, "--uninstall")
    check(f"{n}: init --uninstall gives mcp.json back byte for byte", gone.returncode == 0 and config.read_text() == before,
          gone.stdout + gone.stderr)
    return {"harness": f"{k.product} {KIMI[1]}", "mcpProxy": measured} if measured else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--spill", help="the spill binary (default: cargo build, then debug/spill in cargo's target directory)")
    parser.add_argument("--cache", default=os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "spill-e2e"))
    parser.add_argument("--table", help="write the measured table here as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--only", help="comma-separated harnesses to test (default: all)")
    args = parser.parse_args()
    repo = HERE.parent.parent
    if args.spill:
        spill = Path(args.spill).resolve()
    else:
        subprocess.run(["cargo", "build", "--locked", "--quiet"], cwd=repo, check=True)
        meta = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps", "--locked"],
                              cwd=repo, check=True, capture_output=True, text=True).stdout
        spill = Path(json.loads(meta)["target_directory"]) / "debug" / "spill"
    for tool in ("npm", "node", "bash"):
        if shutil.which(tool) is None:
            sys.exit(f"e2e: {tool} is not on PATH")
    cache = Path(args.cache)
    # Qwen Code runs only when named: 0.24.4 loses a quick command's output now and then (4 of
    # 40 commands in a HOME without spill), so even with its retries its checks could fail by
    # chance, and CI (which runs the default set) must not (README, "Qwen Code").
    only = set(args.only.split(",")) if args.only else {"claude-code", "codex", "gemini", "opencode", "kilo", "pi", "copilot", "kimi"}
    claude_exe = install(cache, *CLAUDE) if "claude-code" in only else None
    claude_old_exe = install(cache, *CLAUDE_OLD) if only & {"claude-code", "claude-code-old"} else None
    claude_oldest_exe = install(cache, *CLAUDE_OLDEST) if only & {"claude-code", "claude-code-old"} else None
    claude_node_exe = install(cache, *CLAUDE_NODE) if only & {"claude-code", "claude-code-old"} else None
    codex_exe = install(cache, *CODEX) if "codex" in only else None
    gemini_exe = install(cache, *GEMINI) if "gemini" in only else None
    opencode_exe = install(cache, *OPENCODE) if "opencode" in only else None
    kilo_exe = install(cache, *KILO) if "kilo" in only else None
    if only & {"opencode", "opencode-old"} and shutil.which("rg") is None:
        # opencode 1.0.152 lists the project with ripgrep at start and, when rg is not on PATH,
        # downloads it from GitHub, which this offline run cannot reach.
        sys.exit("e2e: rg (ripgrep) is not on PATH; opencode 1.0.152 needs it (apt-get install ripgrep)")
    olds = [(install(cache, *old), cls, old[1]) for old, cls, name in [
        (CODEX_OLD, Codex, "codex"), (GEMINI_OLD, Gemini, "gemini"), (OPENCODE_OLD, Opencode, "opencode"),
        (KILO_OLD, Kilo, "kilo")]
        if only & {name, f"{name}-old"}]
    qwen_exe = install(cache, *QWEN) if "qwen-code" in only else None
    pi_exe = install(cache, *PI) if "pi" in only else None
    copilot_exes = [(install(cache, *pin), pin[1]) for pin, name in [(COPILOT, "copilot"), (COPILOT_OLD, "copilot-old")]
                    if only & {"copilot", name}]
    kimi_exe = install_pypi(cache, *KIMI) if "kimi" in only else None
    work = Path(tempfile.mkdtemp(prefix="spill-e2e-"))
    rows = []
    servers = []

    def claude_lane():
        # Each lane has its own fake model server (and request log): the logs are read whole.
        server = Server(work / "requests-claude.log")
        servers.append(server)
        if claude_exe:
            claude = Claude(claude_exe, spill, work, server)
            row = claude_checks(claude, work)
            if row:
                row["permissionMatrix"] = permission_matrix(claude, work)
                rows.append(row)
            row = sandbox_checks(claude, work, cache, CLAUDE[1])
            if row:
                rows.append(row)
        if claude_old_exe:
            old = Claude(claude_old_exe, spill, work, server)
            old_checks(old, work)
            row = sandbox_checks(old, work, cache, CLAUDE_OLD[1])
            if row:
                rows.append(row)
        if claude_oldest_exe:
            old_checks(Claude(claude_oldest_exe, spill, work, server), work, CLAUDE_OLDEST[1])
        if claude_node_exe:
            node_checks(Claude(claude_node_exe, spill, work, server), work)
        # GitHub Copilot CLI here: its runs take seconds. Its own server, whose log holds no
        # other harness's chat completions.
        if copilot_exes:
            copilot_server = Server(work / "requests-copilot.log")
            servers.append(copilot_server)
        for exe, version in copilot_exes:
            LABEL.value = f"copilot {version}: " if version != COPILOT[1] else ""
            start = time.time()
            row = copilot_checks(Copilot(exe, spill, work, copilot_server), work, version)
            print(f"time  copilot {version}: {time.time() - start:.0f} s")
            if row:
                rows.append(row)
        LABEL.value = ""

    def other_lane():
        server = Server(work / "requests-others.log")
        servers.append(server)
        for exe, cls, checks in [(codex_exe, Codex, codex_checks), (gemini_exe, Gemini, gemini_checks),
                                 (opencode_exe, Opencode, opencode_checks), (pi_exe, Pi, pi_checks),
                                 (qwen_exe, Qwen, qwen_checks)]:
            if exe:
                start = time.time()
                row = checks(cls(exe, spill, work, server), work)
                print(f"time  {cls.name}: {time.time() - start:.0f} s")
                if isinstance(row, list):
                    rows.extend(row)
                elif row:
                    rows.append(row)

    def oldest_versions():
        # The oldest hookable versions, in a work directory of their own (their files and the
        # request log's conversations never meet the newest versions').
        server = Server(work / "requests-old.log")
        servers.append(server)
        old_work = work / "old"
        old_work.mkdir()
        for exe, cls, version in olds:
            LABEL.value = f"{cls.name} {version}: "
            start = time.time()
            h = cls(exe, spill, old_work, server)
            h.lists_background = cls is Gemini
            row = old_version_checks(h, old_work, version)
            if cls in (Gemini, Opencode, Kilo):
                # spill mcp at the oldest versions too; Gemini CLI's hook replaces MCP results.
                measured = spill_mcp_checks(h, old_work, direct_mcp=cls is Gemini)
                if row and measured:
                    row["mcp"] = measured
            if cls is Codex:
                # The oldest Codex takes `env_vars` too (and names the namespace its own way).
                h.namespace_end = "__"
                codex_env_checks(h, old_work)
            print(f"time  {cls.name} {version}: {time.time() - start:.0f} s")
            if row:
                rows.append(row)
        LABEL.value = ""

    def kilo_kimi_lane():
        # The newest Kilo Code and Kimi CLI: each with its own server, whose log holds none of
        # the oldest version's conversations (the same names, in `old_work`) and none of the
        # other's.
        for exe, cls, checks in [(kilo_exe, Kilo, kilo_checks), (kimi_exe, Kimi, kimi_checks)]:
            if not exe:
                continue
            start = time.time()
            own_server = Server(work / f"requests-{cls.name}.log")
            servers.append(own_server)
            row = checks(cls(exe, spill, work, own_server), work)
            print(f"time  {cls.name}: {time.time() - start:.0f} s")
            if row:
                rows.append(row)

    def claude_oldest_lane():
        claude_lane()
        oldest_versions()

    # Claude Code's checks, the other harnesses', the oldest versions' and Kilo Code's and Kimi
    # CLI's are independent (their own HOMEs, projects and servers): three lanes at once, each
    # timed, balanced by the times measured on a 2-core machine (.ci/run of 2026-12-07:
    # Claude Code and Copilot 280 s, the oldest versions 148 s, the other lane 436 s, the newest
    # Kilo Code 367 s and Kimi 31 s).
    def timed(name, lane):
        start = time.time()
        try:
            lane()
        except Exception as e:  # a lane that breaks is a failed check, and the other lane goes on
            check(f"{name}: the lane ran to its end", False, f"{type(e).__name__}: {e}")
        print(f"time  {name} lane: {time.time() - start:.0f} s")

    lanes = [threading.Thread(target=timed, args=("claude-code; copilot; oldest codex, gemini, opencode, kilo",
                                                  claude_oldest_lane)),
             threading.Thread(target=timed, args=("codex, gemini, opencode, pi, qwen-code", other_lane)),
             threading.Thread(target=timed, args=("kilo, kimi", kilo_kimi_lane))]
    try:
        for lane in lanes:
            lane.start()
        for lane in lanes:
            lane.join()
    finally:
        for server in servers:
            server.httpd.shutdown()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work directory kept: {work}")
    for row in rows:
        print(json.dumps(row))
    if args.table:
        Path(args.table).write_text(json.dumps(rows, indent=2) + "\n")
    if failures:
        print(f"e2e: {len(failures)} check(s) failed: {', '.join(failures)}")
        return 1
    print("e2e: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
