#!/usr/bin/env python3
"""End-to-end tests of `spill hook` / `spill init` inside the real harness CLIs.

Installs pinned harness versions from npm into a cache directory (reused between runs), starts
the scripted fake model server (fake_model.py) on 127.0.0.1, runs `spill init` in a throwaway
HOME and drives real conversations. Every check prints PASS or FAIL; any FAIL exits 1. The
measured table (what the model receives for a 500 KB output with and without spill) is printed
at the end, and written as JSON with --table FILE.

Usage: tests/e2e/e2e.py [--spill PATH] [--cache DIR] [--table FILE] [--keep]
Needs: node and npm (for the installs), python3, bash. Network: only the npm registry, for
the first install; the harnesses talk to 127.0.0.1 only.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import fake_model  # noqa: E402

# Pinned harness versions (npm package, version, the binary it installs).
CLAUDE = ("@anthropic-ai/claude-code", "2.1.332", "claude")

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


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'}  {name}" + (f"  ({detail})" if detail and not ok else ""))
    if not ok:
        failures.append(name)


def install(cache, package, version, binary):
    """npm-installs package@version into cache/<name>-<version> unless it is there already."""
    prefix = cache / f"{package.replace('/', '_').lstrip('@')}-{version}"
    exe = prefix / "node_modules" / ".bin" / binary
    if exe.exists():
        return exe
    prefix.mkdir(parents=True, exist_ok=True)
    print(f"installing {package}@{version} into {prefix}")
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
                    "--prefix", str(prefix), f"{package}@{version}"], check=True)
    if not exe.exists():
        sys.exit(f"e2e: {package}@{version} installed no {binary}")
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
        return [json.loads(line) for line in self.log.read_text().splitlines()]


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


class Claude:
    def __init__(self, exe, spill, work, server):
        self.exe, self.spill_exe, self.work, self.server = exe, spill, work, server

    def env(self, home):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SPILL_", "ANTHROPIC_", "CLAUDE"))}
        env.update(HOME=str(home), ANTHROPIC_BASE_URL=f"http://127.0.0.1:{self.server.port}",
                   ANTHROPIC_API_KEY="sk-test", SPILL_DIR=str(self.work / "store"),
                   DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                   # spill on PATH, as installed: the model's own `spill cat` calls need it.
                   PATH=f"{self.spill_exe.parent}{os.pathsep}{os.environ.get('PATH', '')}")
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
        out, err = proc.communicate(timeout=180)
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--spill", help="the spill binary (default: cargo build, target/debug/spill)")
    parser.add_argument("--cache", default=os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "spill-e2e"))
    parser.add_argument("--table", help="write the measured table here as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    repo = HERE.parent.parent
    if args.spill:
        spill = Path(args.spill).resolve()
    else:
        subprocess.run(["cargo", "build", "--locked", "--quiet"], cwd=repo, check=True)
        spill = repo / "target" / "debug" / "spill"
    for tool in ("npm", "node", "bash"):
        if shutil.which(tool) is None:
            sys.exit(f"e2e: {tool} is not on PATH")
    cache = Path(args.cache)
    claude_exe = install(cache, *CLAUDE)
    work = Path(tempfile.mkdtemp(prefix="spill-e2e-"))
    server = Server(work / "requests.log")
    rows = []
    try:
        claude = Claude(claude_exe, spill, work, server)
        row = claude_checks(claude, work)
        if row:
            row["permissionMatrix"] = permission_matrix(claude, work)
            rows.append(row)
    finally:
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
