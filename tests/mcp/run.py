#!/usr/bin/env python3
"""`spill mcp` and `spill mcp proxy` driven by the real MCP SDK clients and in front of real MCP
servers: the Python SDK (PyPI `mcp`) and the TypeScript SDK (`@modelcontextprotocol/sdk`) as
clients, each at its latest and at one older release (the older ones negotiate 2025-03-26), the
Python SDK through both of its entry points (the high-level `mcp.Client`, which speaks 2026-07-28,
and `ClientSession`); `@modelcontextprotocol/server-filesystem` and
`@modelcontextprotocol/server-everything` as downstream servers, each at the version pinned
below.

Installs the pins into a cache directory once (a venv for Python, an npm prefix for the rest)
and reuses them. Every check prints PASS or FAIL; any FAIL exits 1.

MCP Inspector (`@modelcontextprotocol/inspector`, CLI mode) lists and calls the tools too.

Streamable HTTP (the binary must be built with `--features http`): the TypeScript SDK's
`StreamableHTTPClientTransport` against `spill mcp --http`, and `spill mcp proxy --url` in front of
server-everything's `streamableHttp` mode (http_client.mjs); then the official conformance suite
(`@modelcontextprotocol/conformance`, pinned below, run with the npm registry's `node@22`, which it
needs) against `spill mcp --http`, its per-scenario table printed. Every scenario must pass except
those in CONFORMANCE_DOES_NOT_APPLY, each with the specification's words for why; the suite itself
fails the run when one of those starts passing (a stale entry) or another one fails; each of them is
then run alone to see that it fails for the reason written down (CONFORMANCE_FAILS_WITH) and no other.

Usage: tests/mcp/run.py [--spill PATH] [--cache DIR] [--keep]
Needs: python3 (with venv), node and npm. Network: PyPI and the npm registry, for the first
install only; everything else runs on this machine.
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
# (version, entry points, other pins): the latest and one older release (1.9.4 speaks 2025-03-26
# and imports a pydantic internal that 2.12 removed).
PYTHON_SDKS = [("2.3.0", ["client", "session"], []), ("1.9.4", ["session"], ["pydantic==2.11.7"])]
NPM = [
    ("@modelcontextprotocol/sdk", "1.32.2"),
    ("@modelcontextprotocol/server-filesystem", "2026.8.31"),
    ("@modelcontextprotocol/server-everything", "2026.8.31"),
]
# An older TypeScript client (it speaks 2025-03-26); the servers come from NPM's install.
NPM_OLD = [("@modelcontextprotocol/sdk", "1.11.5")]
# MCP Inspector, in its CLI mode (one request per run).
INSPECTOR = [("@modelcontextprotocol/inspector", "2.12.0")]
# The official conformance suite and the Node it needs (22 or later; the machine's may be older).
CONFORMANCE = [("@modelcontextprotocol/conformance", "0.1.16"), ("node", "22.23.3")]

# Scenarios of the suite's active set that do not apply to spill, with the words of the
# specification (revision 2025-11-25) that make them optional. Most call the suite's own fixture
# tools, resources and prompts by name (its reference "everything" server's `test_simple_text`,
# `test://static-text`, ...): the specification defines no tool, resource or prompt that every
# server must offer, and spill's are its own (`cat`, `search`, ..., `spill://SCOPE/REF`), covered
# by the SDK checks above.
_FIXTURE_TOOL = ("calls the suite's fixture tool {} by name. Tools: \"Each tool is uniquely identified by a "
                 "name\" and clients discover them with tools/list; the specification requires no particular "
                 "tool, and spill lists only its own")
_FIXTURE_RESOURCE = ("reads the suite's fixture resource {}. Resources: \"Each resource is uniquely identified "
                     "by a URI\" and servers expose their own; spill's are spill://SCOPE/REF (resources-list passes)")
_PROMPTS = ("prompts: \"Servers that support prompts MUST declare the prompts capability during "
            "initialization\"; spill offers no prompts and declares only tools and resources")
CONFORMANCE_DOES_NOT_APPLY = {
    "logging-set-level": "logging: \"Servers that emit log message notifications MUST declare the logging "
                         "capability\"; spill emits none and does not declare it, so logging/setLevel is "
                         "method-not-found (-32601)",
    "completion-complete": "completion: \"Servers that support completions MUST declare the completions "
                           "capability\"; spill has no prompt or template arguments to complete and does not "
                           "declare it",
    "tools-call-simple-text": _FIXTURE_TOOL.format("test_simple_text"),
    "tools-call-image": _FIXTURE_TOOL.format("test_image_content"),
    "tools-call-audio": _FIXTURE_TOOL.format("test_audio_content"),
    "tools-call-embedded-resource": _FIXTURE_TOOL.format("test_embedded_resource"),
    "tools-call-mixed-content": _FIXTURE_TOOL.format("test_multiple_content_types"),
    "tools-call-with-logging": "sets the log level first, which fails as in logging-set-level (spill declares no "
                               "logging), then " + _FIXTURE_TOOL.format("test_tool_with_logging"),
    "tools-call-error": _FIXTURE_TOOL.format("test_error_handling") + " (spill's own tool errors are isError "
                        "results: tests/mcp.rs)",
    "tools-call-with-progress": _FIXTURE_TOOL.format("test_tool_with_progress") + " (spill's wait sends "
                                "progress: tests/mcp.rs)",
    "tools-call-sampling": _FIXTURE_TOOL.format("test_sampling") + "; sampling is a client feature a server "
                           "\"MAY\" request, and spill's tools never need a model",
    "tools-call-elicitation": _FIXTURE_TOOL.format("test_elicitation") + "; elicitation is a client feature a "
                              "server MAY request, and spill's tools never ask the user",
    "elicitation-sep1034-defaults": _FIXTURE_TOOL.format("test_elicitation_sep1034_defaults") + "; spill never "
                                    "requests elicitation",
    "elicitation-sep1330-enums": _FIXTURE_TOOL.format("test_elicitation_sep1330_enums") + "; spill never "
                                 "requests elicitation",
    "resources-read-text": _FIXTURE_RESOURCE.format("test://static-text"),
    "resources-read-binary": _FIXTURE_RESOURCE.format("test://static-binary"),
    "resources-templates-read": _FIXTURE_RESOURCE.format("test://template/{id}/data"),
    "resources-subscribe": "resources: \"subscribe: whether the client can subscribe to be notified of changes to "
                           "individual resources\" ... \"Both subscribe and listChanged are optional\"; a stored "
                           "output never changes once sealed, and spill does not declare subscribe",
    "resources-unsubscribe": "as resources-subscribe: subscribe is optional and spill does not declare it",
    "prompts-list": _PROMPTS,
    "prompts-get-simple": _PROMPTS,
    "prompts-get-with-args": _PROMPTS,
    "prompts-get-embedded-resource": _PROMPTS,
    "prompts-get-with-image": _PROMPTS,
}

# How each of them fails, in the suite's own error message: the reason above, and no other.
_METHOD_NOT_FOUND = {"logging-set-level": "logging/setLevel", "completion-complete": "completion/complete",
                     "tools-call-with-logging": "logging/setLevel", "resources-subscribe": "resources/subscribe",
                     "resources-unsubscribe": "resources/subscribe", "prompts-list": "prompts/list"}
CONFORMANCE_FAILS_WITH = {
    name: (f"-32601: {_METHOD_NOT_FOUND[name]}" if name in _METHOD_NOT_FOUND
           else "-32601: prompts/get" if name.startswith("prompts-get")
           else "not a spill:// URI" if name.startswith("resources-")
           else 'unknown tool \\"' + re.search(r"fixture tool (\w+) by name", CONFORMANCE_DOES_NOT_APPLY[name])[1] + '\\"')
    for name in CONFORMANCE_DOES_NOT_APPLY
}


def start_http(spill, env):
    """Starts `spill mcp --http 127.0.0.1:0` and returns (process, URL) from its first stderr line."""
    server = subprocess.Popen([str(spill), "mcp", "--http", "127.0.0.1:0"], env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = server.stderr.readline()
    if "serving http://" not in line:
        server.kill()
        server.wait()
        sys.exit(f"mcp tests: spill mcp --http did not start (is it built with --features http?): {line.strip()}")
    return server, line.split("serving ", 1)[1].strip()


def conformance_checks(modules, spill, work):
    """The official conformance suite's server scenarios against `spill mcp --http`."""
    node = modules / "node" / "bin" / "node"
    suite = modules / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPILL_")}
    env.update(SPILL_DIR=str(work / "store"), SPILL_SCOPE="conformance",
               PATH=f"{node.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    rows = "".join(f"row {i}\n" for i in range(1, 5001))
    subprocess.run([str(spill), "wrap"], input=rows.encode(), env=env, capture_output=True, check=True)
    baseline = work / "expected-failures.yml"
    baseline.write_text("server:\n" + "".join(f"  - {name}\n" for name in CONFORMANCE_DOES_NOT_APPLY))
    server, url = start_http(spill, env)
    try:
        done = subprocess.run([str(node), str(suite), "server", "--url", url, "--expected-failures", str(baseline)],
                              env=env, cwd=work, capture_output=True, text=True, timeout=900)
        # Each scenario that does not apply fails for the reason written down, not another one.
        wrong_reason = []
        for name, expected in CONFORMANCE_FAILS_WITH.items():
            alone = subprocess.run([str(node), str(suite), "server", "--url", url, "--scenario", name, "--verbose"],
                                   env=env, cwd=work, capture_output=True, text=True, timeout=300)
            messages = [line.strip() for line in alone.stdout.splitlines() if '"errorMessage"' in line]
            if not messages or not all(expected in m for m in messages):
                wrong_reason.append(f"{name}: {messages[:2] or alone.stdout[-300:]}")
    finally:
        server.kill()
        server.wait()
    table = []
    for line in done.stdout.splitlines():
        line = line.strip()
        if line[:1] in ("✓", "✗") and ":" in line:
            name, counts = line[1:].strip().split(":", 1)
            table.append((name.strip(), line[0] == "✓", counts.strip()))
    print("conformance (@modelcontextprotocol/conformance " + CONFORMANCE[0][1] + ", node " + CONFORMANCE[1][1] + "):")
    for name, passed, counts in table:
        verdict = "PASS" if passed else ("n/a " if name in CONFORMANCE_DOES_NOT_APPLY else "FAIL")
        why = f"  -- does not apply: {CONFORMANCE_DOES_NOT_APPLY[name]}" if not passed and name in CONFORMANCE_DOES_NOT_APPLY else ""
        print(f"  {verdict}  {name:32} {counts}{why}")
    passed = sum(p for _, p, _ in table)
    print(f"  {passed} passed, {len(table) - passed} not applicable or failed, of {len(table)} scenarios")
    ok = done.returncode == 0 and table and not wrong_reason
    for line in wrong_reason:
        print(f"  FAIL  fails for another reason than the one written down: {line}")
    print(f"{'PASS' if ok else 'FAIL'}  conformance: every scenario that applies passes, and only those in "
          f"CONFORMANCE_DOES_NOT_APPLY fail" + ("" if ok else f"  (exit {done.returncode}: {(done.stdout + done.stderr)[-1500:]})"))
    return 0 if ok else 1


def inspector_checks(node_modules, spill, work, downstream):
    """MCP Inspector's CLI lists and calls spill's tools, directly and through the proxy."""
    cli = str(node_modules / ".bin" / "mcp-inspector")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPILL_")}
    env.update(SPILL_DIR=str(work / "store"), SPILL_SCOPE="inspector")
    rows = "".join(f"row {i}\n" for i in range(1, 5001))
    ref = json.loads(subprocess.run([str(spill), "wrap"], input=rows.encode(), env=env, capture_output=True,
                                    check=True).stdout)["ref"]
    failed = 0

    def run(*args):
        # The Inspector gives the server it starts only a default environment (HOME, PATH, …;
        # its MCP client 2.3.1, which npm resolves for inspector 2.12.0 today, passes no other
        # variable), so the store and scope are handed to the server with `-e`, as a user would.
        server_env = [a for k in ("SPILL_DIR", "SPILL_SCOPE") for a in ("-e", f"{k}={env[k]}")]
        done = subprocess.run([cli, "--cli", *server_env, *args], env=env, capture_output=True, text=True,
                              timeout=120)
        try:
            return json.loads(done.stdout)
        except ValueError:
            return {"error": (done.stdout + done.stderr)[-400:]}

    def check(name, ok, detail):
        nonlocal failed
        print(f"{'PASS' if ok else 'FAIL'}  inspector: {name}" + ("" if ok else f"  ({str(detail)[:400]})"))
        failed += not ok

    listed = run(str(spill), "mcp", "--method", "tools/list")
    check("lists spill's tools", [t["name"] for t in listed.get("tools", [])] == ["cat", "shape", "extract", "search", "ls", "wait", "stop"], listed)
    cat = run(str(spill), "mcp", "--method", "tools/call", "--tool-name", "cat", "--tool-arg", f"source={ref}",
              "--tool-arg", "lines=5000:5000")
    check("calls cat", cat.get("content", [{}])[0].get("text") == "row 5000\nlines 5,000–5,000 of 5,000\n", cat)
    resources = run(str(spill), "mcp", "--method", "resources/list")
    check("lists the stored output", [r["uri"] for r in resources.get("resources", [])] == [f"spill://inspector/{ref}"], resources)
    # The Inspector drops a `--` from the server's arguments, so the proxy is started by a shell.
    command = " ".join(shlex.quote(w) for w in [str(spill), "mcp", "proxy", "--", sys.executable, str(downstream)])
    proxied = run("sh", "-c", f"exec {command}", "--method", "tools/list")
    check("lists the tools through the proxy", "spill_search" in [t["name"] for t in proxied.get("tools", [])], proxied)
    return failed


def install_python(cache, version, pins):
    venv = cache / "-".join([f"py-mcp-{version}", *(p.replace("==", "-") for p in pins)])
    python = venv / "bin" / "python"
    if not (venv / ".installed").exists():
        print(f"installing mcp=={version} {' '.join(pins)} into {venv}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"mcp=={version}", *pins], check=True)
        (venv / ".installed").write_text("")
    return python


# npm resolves a pinned package's dependencies as the registry stood on this day, so a later run
# installs the same tree (a dependency released since changed the Inspector's verdict once). A
# newer pin needs a later day.
NPM_BEFORE = "2026-12-02"


def install_npm(cache, packages):
    key = "-".join(f"{name.split('/')[-1]}-{version}" for name, version in packages)
    prefix = cache / f"npm-{key}-before-{NPM_BEFORE}"
    if not (prefix / ".installed").exists():
        print(f"installing {', '.join(f'{n}@{v}' for n, v in packages)} into {prefix}")
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", f"--before={NPM_BEFORE}",
                        "--prefix", str(prefix),
                        *[f"{n}@{v}" for n, v in packages]], check=True)
        (prefix / ".installed").write_text("")
    return prefix / "node_modules"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--spill", help="the spill binary, built with --features http (default: cargo build "
                                        "--features http, then debug/spill in cargo's target directory)")
    parser.add_argument("--cache", default=os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "spill-mcp"))
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    repo = HERE.parent.parent
    if args.spill:
        spill = Path(args.spill).resolve()
    else:
        subprocess.run(["cargo", "build", "--locked", "--quiet", "--features", "http"], cwd=repo, check=True)
        meta = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps", "--locked"],
                              cwd=repo, check=True, capture_output=True, text=True).stdout
        spill = Path(json.loads(meta)["target_directory"]) / "debug" / "spill"
    for tool in ("npm", "node"):
        if shutil.which(tool) is None:
            sys.exit(f"mcp tests: {tool} is not on PATH")
    cache = Path(args.cache)
    node_modules = install_npm(cache, NPM)
    old_node_modules = install_npm(cache, NPM_OLD)
    inspector_modules = install_npm(cache, INSPECTOR)
    conformance_modules = install_npm(cache, CONFORMANCE)
    runs = []
    for version, modes, pins in PYTHON_SDKS:
        python = install_python(cache, version, pins)
        for mode in modes:
            runs.append((f"python {version} {mode}", [str(python), str(HERE / "py_client.py"), str(spill),
                                                      "", mode,
                                                      str(HERE / "downstream.py")]))
    for version, modules in [(NPM[0][1], node_modules), (NPM_OLD[0][1], old_node_modules)]:
        runs.append((f"typescript {version}", ["node", str(HERE / "ts_client.mjs"), str(modules), str(spill), "",
                                                str(node_modules)]))
    work = Path(tempfile.mkdtemp(prefix="spill-mcp-"))
    status = 0
    try:
        for i, (name, command) in enumerate(runs):
            # Each run its own store and work directory.
            slot = command.index("")
            command[slot] = str(work / f"run{i}")
            Path(command[slot]).mkdir(parents=True, exist_ok=True)
            print(f"== {name} SDK client", flush=True)
            done = subprocess.run(command, timeout=600)
            status |= done.returncode != 0
        print("== MCP Inspector CLI", flush=True)
        (work / "inspector").mkdir()
        status |= inspector_checks(inspector_modules, spill, work / "inspector", HERE / "downstream.py") != 0
        print("== Streamable HTTP: the TypeScript SDK against spill mcp --http, proxy --url in front of server-everything", flush=True)
        (work / "http").mkdir()
        done = subprocess.run(["node", str(HERE / "http_client.mjs"), str(node_modules), str(spill), str(work / "http")],
                              timeout=600)
        status |= done.returncode != 0
        print("== the official conformance suite against spill mcp --http", flush=True)
        (work / "conformance").mkdir()
        status |= conformance_checks(conformance_modules, spill, work / "conformance") != 0
    finally:
        if args.keep:
            print(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("mcp tests: all checks passed" if not status else "mcp tests: some checks failed")
    return 1 if status else 0


if __name__ == "__main__":
    sys.exit(main())
