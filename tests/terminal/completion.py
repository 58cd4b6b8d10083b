#!/usr/bin/env python3
"""Shell completion of stored refs, tried in real shells in a real terminal: tmux runs bash, zsh
and fish with the committed completion scripts loaded, the keys a person would press are sent
(send-keys), and the screen is read back (capture-pane). Run by `.ci/run`, which installs tmux,
zsh and fish from Debian when they are missing; `cargo test` never needs them.

    python3 tests/terminal/completion.py --spill target/debug/spill [--shell bash,zsh,fish]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPLETIONS = os.path.join(ROOT, "completions")


class Terminal:
    """One tmux server (a private socket) running one shell in an 200x50 window."""

    def __init__(self, sandbox, env, argv):
        self.socket = os.path.join(sandbox, "tmux.sock")
        self.env = env
        self.tmux("new-session", "-d", "-x", "200", "-y", "50", "-s", "t", *argv)

    def tmux(self, *args, capture=False):
        return subprocess.run(
            ["tmux", "-S", self.socket, *args],
            env=self.env,
            check=True,
            capture_output=capture,
            text=True,
        ).stdout

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "t", *keys)

    def type(self, text):
        self.tmux("send-keys", "-t", "t", "-l", text)

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "t", capture=True)

    def wait_for(self, what, seconds=10):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            screen = self.screen()
            if all(w in screen for w in what):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"never on screen: {what!r}\n--- screen ---\n{self.screen()}")

    def close(self):
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], env=self.env,
                       capture_output=True)


def store(spill, env, label, data):
    out = subprocess.run([spill, "wrap", "--max-inline", "0", "--label", label], input=data,
                         env=env, capture_output=True, check=True).stdout
    return json.loads(out)["ref"]


SHELLS = {
    # argv, the lines that load the completion script, the prompt to wait for
    "bash": (["bash", "--norc", "--noprofile"],
             [f"source {COMPLETIONS}/spill.bash", "PS1='ready> '"]),
    "zsh": (["zsh", "-f"],
            [f"fpath=({COMPLETIONS} $fpath)", "autoload -Uz compinit && compinit -u -D",
             "PS1='ready> '"]),
    "fish": (["fish", "--no-config"],
             [f"source {COMPLETIONS}/spill.fish",
              "function fish_prompt; echo -n 'ready> '; end"]),
}


def check_bash_short_refs(term):
    """`@<Tab>` offers the short refs (@last, @1, @2 for the two entries), never bash's host
    names (HOSTFILE names one) nor files; `@l<Tab>` completes to `@last`."""
    term.keys("C-c")
    term.type("clear")
    term.keys("Enter")
    term.wait_for(["ready>"])
    term.type("spill cat @")
    term.keys("Tab")
    time.sleep(0.5)
    term.keys("Tab")
    screen = term.wait_for(["last"])
    listed = screen.split("spill cat @", 1)[1]
    if "@last" not in listed or "@1" not in listed or "@2" not in listed or "@3" in listed:
        raise AssertionError(f"bash did not offer @last, @1 and @2 (two entries):\n{screen}")
    if "spill-test-host" in screen or "cwd-file" in screen:
        raise AssertionError(f"bash offered host names or files for @:\n{screen}")
    term.keys("C-u")
    term.type("spill shape @l")
    term.keys("Tab")
    term.wait_for(["spill shape @last"])
    term.keys("C-u")
    term.type("clear")
    term.keys("Enter")
    term.wait_for(["ready>"])
    # rm takes short refs in every operand.
    term.type("spill rm @2 @")
    term.keys("Tab")
    time.sleep(0.5)
    term.keys("Tab")
    term.wait_for(["@last", "@1"])
    print("completion: bash: @<Tab> offers @last, @1, @2 and no host names", flush=True)


def check_shell(name, spill, sandbox):
    work = os.path.join(sandbox, name)
    os.makedirs(os.path.join(work, "cwd"))
    env = {
        "PATH": os.path.dirname(os.path.abspath(spill)) + ":/usr/bin:/bin",
        "HOME": work,
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "SPILL_DIR": os.path.join(work, "store"),
        "XDG_CONFIG_HOME": os.path.join(work, "config"),
        "XDG_DATA_HOME": os.path.join(work, "data"),
        # bash completes host names after @ from this file unless spill's script stops it.
        "HOSTFILE": os.path.join(work, "hosts"),
    }
    with open(env["HOSTFILE"], "w") as hosts:
        hosts.write("127.0.0.1 spill-test-host\n")
    open(os.path.join(work, "cwd", "cwd-file"), "w").close()
    numbers = store(spill, env, "seq numbers", b"".join(b"%d\n" % i for i in range(1, 5001)))
    words = store(spill, env, "build log", b"compiling\n" * 3000)
    argv, setup = SHELLS[name]
    term = Terminal(work, env, ["sh", "-c", f"cd {work}/cwd && exec " + " ".join(argv)])
    try:
        for line in setup:
            term.type(line)
            term.keys("Enter")
        term.type("clear")
        term.keys("Enter")
        term.wait_for(["ready>"])
        # A unique prefix completes to the whole ref.
        term.type(f"spill cat {numbers[:7]}")
        term.keys("Tab")
        term.wait_for([f"spill cat {numbers}"])
        term.keys("C-u")
        # With nothing typed, the refs of the scope are offered (zsh and fish with their labels).
        term.type("spill search ")
        term.keys("Tab")
        if name != "fish":
            # The first Tab inserts the refs' common prefix (`sp_`); the second lists them.
            time.sleep(0.5)
            term.keys("Tab")
        wanted = [numbers, words] + ([] if name == "bash" else ["seq numbers", "build log"])
        term.wait_for(wanted)
        # Not where a pattern goes: the second operand of search offers no refs.
        term.keys("C-c")
        term.type("clear")
        term.keys("Enter")
        term.wait_for(["ready>"])
        term.type(f"spill search {words} ")
        term.keys("Tab")
        time.sleep(1.0)
        screen = term.screen()
        if name == "bash" and numbers in screen:
            raise AssertionError(f"bash offered refs for search's PATTERN:\n{screen}")
        if name == "bash":
            check_bash_short_refs(term)
        print(f"completion: {name}: refs complete by prefix and are listed"
              f"{' with their labels' if name != 'bash' else ''}", flush=True)
    finally:
        term.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spill", required=True)
    ap.add_argument("--shell", default="bash,zsh,fish")
    args = ap.parse_args()
    missing = [tool for tool in ["tmux", *args.shell.split(",")] if not shutil.which(tool)]
    if missing:
        print(f"completion: FAILED: not installed: {', '.join(missing)}", file=sys.stderr)
        sys.exit(1)
    sandbox = tempfile.mkdtemp(prefix="spill-term-")
    try:
        for name in args.shell.split(","):
            check_shell(name, os.path.abspath(args.spill), sandbox)
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)


if __name__ == "__main__":
    main()
