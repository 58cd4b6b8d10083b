#!/usr/bin/env python3
"""The pager and the colours in a real terminal: tmux runs bash, `spill cat` of a long output
opens less (the default pager), `q` closes it and the footer is on the screen after it; `spill
extract` at the terminal is in colour, and not with NO_COLOR; `spill view` without a JSON
viewer shows JSON pretty and coloured, and a binary as a hex dump. Run by `.ci/run` (tmux and less
from Debian); `cargo test` never needs them.

    python3 tests/terminal/pager.py --spill target/debug/spill
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from completion import Terminal  # noqa: E402


def store(spill, env, data):
    out = subprocess.run([spill, "wrap", "--max-inline", "0"], input=data, env=env,
                         capture_output=True, check=True).stdout
    return json.loads(out)["ref"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spill", required=True)
    args = ap.parse_args()
    spill = os.path.abspath(args.spill)
    missing = [tool for tool in ["tmux", "less"] if not shutil.which(tool)]
    if missing:
        print(f"pager: FAILED: not installed: {', '.join(missing)}", file=sys.stderr)
        sys.exit(1)
    work = tempfile.mkdtemp(prefix="spill-pager-")
    env = {
        "PATH": os.path.dirname(spill) + ":/usr/bin:/bin",
        "HOME": work,
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "SPILL_DIR": os.path.join(work, "store"),
    }
    text = store(spill, env, b"".join(b"row %d\n" % i for i in range(1, 5001)))
    doc = store(spill, env, json.dumps({"items": [{"id": 7, "ok": True}]}).encode())
    binary = store(spill, env, bytes(range(256)) * 2)  # 33 dump rows: one screen
    term = Terminal(work, env, ["bash", "--norc", "--noprofile"])
    try:
        term.type("PS1='ready> '; clear")
        term.keys("Enter")
        term.wait_for(["ready>"])
        # 200 lines do not fit 50 rows: less shows the first screen and waits.
        term.type(f"spill cat {text}")
        term.keys("Enter")
        screen = term.wait_for(["row 1", "row 49"])
        if "next:" in screen or "row 200" in screen:
            raise AssertionError(f"less is not showing one screen:\n{screen}")
        time.sleep(0.3)
        term.keys("q")
        # The footer is written once the pager has gone, so it is on the screen after it.
        screen = term.wait_for(["lines 1–200 of 5,000 · next: --lines 201:400", "ready>"])
        print("pager: less showed one screen; the footer came after it", flush=True)
        # Colours at the terminal; none with NO_COLOR.
        term.type(f"clear; spill extract {doc} '$.items[0]'")
        term.keys("Enter")
        term.wait_for(['"id": 7'])
        coloured = term.tmux("capture-pane", "-p", "-e", "-t", "t", capture=True)
        if "\x1b[" not in coloured:
            raise AssertionError(f"extract at the terminal is not coloured:\n{coloured!r}")
        term.type(f"clear; NO_COLOR=1 spill extract {doc} '$.items[0]'")
        term.keys("Enter")
        term.wait_for(['"id": 7'])
        plain = term.tmux("capture-pane", "-p", "-e", "-t", "t", capture=True)
        body = [line for line in plain.splitlines() if '"id"' in line or '"ok"' in line]
        if any("\x1b[" in line for line in body):
            raise AssertionError(f"NO_COLOR still coloured:\n{plain!r}")
        print("pager: extract is coloured at the terminal, plain with NO_COLOR", flush=True)
        # view with no JSON viewer installed (a PATH holding only spill, sh and less): the
        # document pretty-printed and coloured in less; a binary as cat's hex dump, no error.
        bare = os.path.join(work, "bare-bin")
        os.makedirs(bare)
        for name in ("sh", "less"):
            os.symlink(shutil.which(name), os.path.join(bare, name))
        os.symlink(spill, os.path.join(bare, "spill"))
        term.type(f"clear; PATH={bare} spill view {doc}; echo status=$?")
        term.keys("Enter")
        screen = term.wait_for(['  "items": [', '"id": 7', "status=0"])
        viewed = term.tmux("capture-pane", "-p", "-e", "-t", "t", capture=True)
        if "\x1b[" not in viewed:
            raise AssertionError(f"view of JSON is not coloured:\n{viewed!r}")
        term.type(f"clear; PATH={bare} spill view {binary}; echo status=$?")
        term.keys("Enter")
        screen = term.wait_for(["00000000  00 01 02 03", "status=0"])
        if "viewer" in screen:
            raise AssertionError(f"view of a binary failed:\n{screen}")
        print("pager: view shows JSON pretty and coloured, a binary as hex, in less", flush=True)
    finally:
        term.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
