#!/usr/bin/env python3
"""Builds the PyPI wheel and the npm packages from this tree, installs each where a harness would
(a fresh virtual environment; a scratch Node project from the packed tarballs, offline), and runs
`spill wrap` through the path each package hands out, and by name through the `spill` each puts on
PATH (npm: `node_modules/.bin`, `npx spill-cli`, `npm install -g`; the binary itself, never a Node
launcher). Run by `.ci/run`; `cargo test` never needs it.

    python3 tests/install/check.py [--cache DIR] [--release] [--keep]

maturin (pinned below) is installed from PyPI into a virtual environment under the cache
directory (default ~/.cache/spill-ci) and reused by later runs. The wheel is built with the dev
profile unless --release is given: what this proves is the packaging, not the optimisation, and
the dev build reuses what `cargo test` compiled. RELEASING.md builds the release artefacts.
"""

import argparse
import filecmp
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

MATURIN = "maturin==1.16.0"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINES = 200_000


def say(*words):
    print("install:", *words, flush=True)


def fail(why):
    print("install: FAILED:", why, file=sys.stderr, flush=True)
    sys.exit(1)


def run(argv, **kw):
    kw.setdefault("check", True)
    return subprocess.run(argv, **kw)


def crate_version():
    with open(os.path.join(ROOT, "Cargo.toml"), encoding="utf-8") as f:
        text = f.read()
    package = text.split("[package]", 1)[1].split("\n[", 1)[0]
    name = re.search(r'^name = "([^"]+)"', package, re.M).group(1)
    version = re.search(r'^version = "([^"]+)"', package, re.M).group(1)
    return name, version


def check_versions(version):
    """Every package says the crate's version, and the main npm package asks for its platform
    package at exactly that version."""
    for name in ("spill-cli", "spill-cli-linux-x64"):
        with open(os.path.join(ROOT, "npm", name, "package.json"), encoding="utf-8") as f:
            pkg = json.load(f)
        if pkg["version"] != version:
            fail(f"npm/{name}/package.json says {pkg['version']}, Cargo.toml {version}")
        # The one install step allowed: spill-cli's postinstall, which links the binary it
        # already has (install.js; it downloads nothing). The platform package has none.
        scripts = {k: v for k, v in pkg.get("scripts", {}).items()
                   if k in {"preinstall", "install", "postinstall", "prepare"}}
        allowed = {"postinstall": "node install.js"} if name == "spill-cli" else {}
        if scripts != allowed:
            fail(f"npm/{name} has install scripts {scripts}, not {allowed}")
        if name == "spill-cli":
            if pkg.get("bin") != {"spill": "bin/spill"}:
                fail(f"spill-cli's bin is {pkg.get('bin')}, not spill -> bin/spill")
            wanted = pkg["optionalDependencies"]["spill-cli-linux-x64"]
            if wanted != version:
                fail(f"spill-cli wants spill-cli-linux-x64@{wanted}, not {version}")


def scrubbed_env(tmp):
    home = os.path.join(tmp, "home")
    os.makedirs(home, exist_ok=True)
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "LANG": "C.UTF-8",
        "SPILL_DIR": os.path.join(tmp, "store"),
    }


def maturin(cache):
    venv = os.path.join(cache, "maturin-" + MATURIN.split("==")[1])
    exe = os.path.join(venv, "bin", "maturin")
    if not os.path.exists(exe):
        say("installing", MATURIN, "into", venv)
        shutil.rmtree(venv, ignore_errors=True)
        run([sys.executable, "-m", "venv", venv])
        run([os.path.join(venv, "bin", "pip"), "install", "-q", MATURIN])
    return exe


def build_wheel(cache, out, release):
    cmd = [maturin(cache), "build", "--locked", "--out", out]
    cmd += ["--release"] if release else ["--profile", "dev"]
    say(" ".join(cmd[1:]))
    run(cmd, cwd=ROOT)
    wheels = glob.glob(os.path.join(out, "*.whl"))
    if len(wheels) != 1:
        fail(f"expected one wheel, found {wheels}")
    return wheels[0]


def check_wheel_contents(wheel, version):
    names = zipfile.ZipFile(wheel).namelist()
    binaries = [n for n in names if n.endswith(".data/scripts/spill")]
    if len(binaries) != 1:
        fail(f"the wheel holds no spill binary in its scripts: {names}")
    python = sorted(n for n in names if n.endswith(".py"))
    if python != ["spill/__init__.py", "spill/__main__.py"]:
        fail(f"the wheel's Python is more than the path helper: {python}")
    if f"spill_cli-{version}-" not in os.path.basename(wheel):
        fail(f"wheel name {os.path.basename(wheel)} is not spill_cli-{version}")


def check_envelope(stdout, where):
    try:
        env = json.loads(stdout)
    except ValueError:
        fail(f"{where}: wrap printed no envelope: {stdout[:300]!r}")
    if not (env.get("spilled") is True and env.get("lines") == LINES and env.get("ref", "").startswith("sp_")):
        fail(f"{where}: unexpected envelope: {stdout[:300]!r}")
    return env["ref"]


PY_CLIENT = r"""
import json, os, subprocess, sys
import spill
path = spill.bin_path()
venv = sys.prefix
assert os.path.realpath(path).startswith(os.path.realpath(venv)), (path, venv)
data = "".join(f"{i}\n" for i in range(1, LINES + 1)).encode()
wrap = subprocess.run([path, "wrap"], input=data, capture_output=True, check=True)
ref = json.loads(wrap.stdout)["ref"]
tail = subprocess.run([path, "cat", ref, "--lines", f"{LINES - 1}:{LINES}"],
                      capture_output=True, check=True)
assert tail.stdout == f"{LINES - 1}\n{LINES}\n".encode(), tail.stdout
sys.stdout.buffer.write(wrap.stdout)
"""


def check_python(wheel, tmp, env):
    venv = os.path.join(tmp, "venv")
    run([sys.executable, "-m", "venv", venv])
    run([os.path.join(venv, "bin", "pip"), "install", "-q", "--no-index", wheel])
    py = os.path.join(venv, "bin", "python")
    out = run([py, "-c", PY_CLIENT.replace("LINES", str(LINES))], env=env,
              capture_output=True).stdout
    check_envelope(out, "python")
    version = run([py, "-m", "spill", "--version"], env=env, capture_output=True).stdout
    if not version.startswith(b"spill "):
        fail(f"python -m spill --version printed {version!r}")
    say("python: pip install of the wheel, spill.bin_path(), wrap and cat: ok")
    check_native(os.path.join(venv, "bin", "spill"), run(
        [py, "-c", "import spill; print(spill.bin_path())"], env=env, capture_output=True,
        text=True).stdout.strip(), "pip install: the environment's bin/spill")
    check_spill_on_path(os.path.join(venv, "bin"), env, "pip install: spill on PATH")
    say("python: `spill` on the environment's PATH is the binary itself: ok")
    return os.path.join(venv, "bin", "spill")


NODE_CLIENT = r"""
const { execFileSync } = require('child_process');
const path = require('path');
const { binaryPath } = require('spill-cli');
const bin = binaryPath();
if (!bin.startsWith(path.resolve('node_modules'))) throw new Error(`binary outside node_modules: ${bin}`);
let data = '';
for (let i = 1; i <= LINES; i++) data += `${i}\n`;
const out = execFileSync(bin, ['wrap'], { input: data });
const ref = JSON.parse(out).ref;
const tail = execFileSync(bin, ['cat', ref, '--lines', `${LINES - 1}:${LINES}`]).toString();
if (tail !== `${LINES - 1}\n${LINES}\n`) throw new Error(`cat printed ${JSON.stringify(tail)}`);
process.stdout.write(out);
"""


def check_node(binary, tmp, env):
    stage = os.path.join(tmp, "npm")
    shutil.copytree(os.path.join(ROOT, "npm"), stage)
    platform = os.path.join(stage, "spill-cli-linux-x64")
    os.makedirs(os.path.join(platform, "bin"), exist_ok=True)
    shutil.copy2(binary, os.path.join(platform, "bin", "spill"))
    os.chmod(os.path.join(platform, "bin", "spill"), 0o755)
    tarballs = os.path.join(tmp, "tgz")
    os.makedirs(tarballs)
    npm_env = dict(env, PATH=os.environ["PATH"], npm_config_cache=os.path.join(tmp, "npm-cache"))
    for name in ("spill-cli-linux-x64", "spill-cli"):
        run(["npm", "pack", "--silent", "--pack-destination", tarballs], cwd=os.path.join(stage, name),
            env=npm_env, stdout=subprocess.DEVNULL)
    packed = sorted(glob.glob(os.path.join(tarballs, "*.tgz")))
    if len(packed) != 2:
        fail(f"npm pack made {packed}")
    project = os.path.join(tmp, "project")
    os.makedirs(project)
    with open(os.path.join(project, "package.json"), "w", encoding="utf-8") as f:
        json.dump({"name": "scratch", "version": "0.0.0", "private": True}, f)
    # Offline: everything comes from the two tarballs, nothing from a registry.
    run(["npm", "install", "--offline", "--no-audit", "--no-fund", "--silent", *packed],
        cwd=project, env=npm_env)
    installed = os.path.join(project, "node_modules", "spill-cli-linux-x64", "bin", "spill")
    if not os.access(installed, os.X_OK):
        fail("npm did not install an executable bin/spill")
    out = run(["node", "-e", NODE_CLIENT.replace("LINES", str(LINES))], cwd=project,
              env=dict(env, PATH=os.environ["PATH"]), capture_output=True).stdout
    check_envelope(out, "node")
    say("node: npm install of both tarballs (offline), binaryPath(), wrap and cat: ok")

    # `spill` on PATH is the binary itself, never a Node launcher: node_modules/.bin/spill (what
    # `npx` and npm scripts see), `npx spill-cli …`, and the global bin of `npm install -g`.
    local_bin = os.path.join(project, "node_modules", ".bin")
    check_native(os.path.join(local_bin, "spill"), installed, "npm install: node_modules/.bin/spill")
    check_spill_on_path(local_bin, env, "npm install: spill on PATH")
    npx = run(["npx", "--offline", "spill-cli", "--version"], cwd=project, env=npm_env,
              capture_output=True).stdout
    if not npx.startswith(b"spill "):
        fail(f"npx spill-cli --version printed {npx!r}")
    prefix = os.path.join(tmp, "global")
    run(["npm", "install", "-g", "--prefix", prefix, "--offline", "--no-audit", "--no-fund",
         "--silent", *packed], cwd=tmp, env=npm_env)
    global_platform = os.path.join(prefix, "lib", "node_modules", "spill-cli-linux-x64", "bin",
                                   "spill")
    check_native(os.path.join(prefix, "bin", "spill"), global_platform, "npm install -g: bin/spill")
    check_spill_on_path(os.path.join(prefix, "bin"), env, "npm install -g: spill on PATH")
    say("node: `spill` on PATH is the native binary (node_modules/.bin, npx spill-cli, npm -g): ok")

    # Install scripts skipped (--ignore-scripts): bin/spill stays the Node stand-in, which still
    # runs the binary and passes its exit status on.
    skipped = os.path.join(tmp, "project-no-scripts")
    os.makedirs(skipped)
    with open(os.path.join(skipped, "package.json"), "w", encoding="utf-8") as f:
        json.dump({"name": "scratch", "version": "0.0.0", "private": True}, f)
    run(["npm", "install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", "--silent",
         *packed], cwd=skipped, env=npm_env)
    stand_in = os.path.join(skipped, "node_modules", ".bin", "spill")
    with open(stand_in, "rb") as f:
        if not f.read(2) == b"#!":
            fail("with --ignore-scripts, node_modules/.bin/spill is not the Node stand-in")
    check_spill_on_path(os.path.dirname(stand_in), dict(env, PATH=os.environ["PATH"]),
                        "npm install --ignore-scripts: the stand-in", prepend=True)
    gone = run([stand_in, "cat", "sp_0000000000000000"], env=dict(env, PATH=os.environ["PATH"]),
               capture_output=True, check=False)
    if gone.returncode != 2 or b"unknown ref" not in gone.stderr:
        fail(f"the stand-in did not pass spill's exit status on: {gone.returncode} {gone.stderr!r}")
    say("node: with --ignore-scripts, bin/spill is a Node stand-in that runs the binary: ok")


def check_native(path, binary, where):
    """`path` resolves to the platform package's binary itself (a hard link or a copy of it), not
    to a script."""
    real = os.path.realpath(path)
    with open(real, "rb") as f:
        head = f.read(4)
    if head != b"\x7fELF":
        fail(f"{where} resolves to {real}, which is not the binary (starts {head!r})")
    if not (os.path.samefile(real, binary) or filecmp.cmp(real, binary, shallow=False)):
        fail(f"{where} resolves to {real}, which differs from {binary}")


def check_spill_on_path(bin_dir, env, where, prepend=False):
    """Runs `spill wrap` and `spill cat` by name, as a harness's hooks do, with `bin_dir` on PATH."""
    path = bin_dir + ":" + (env["PATH"] if prepend else "/usr/bin:/bin")
    env = dict(env, PATH=path)
    data = b"".join(b"%d\n" % i for i in range(1, LINES + 1))
    wrap = run(["spill", "wrap"], input=data, env=env, capture_output=True)
    ref = check_envelope(wrap.stdout, where)
    tail = run(["spill", "cat", ref, "--lines", f"{LINES - 1}:{LINES}"], env=env,
               capture_output=True).stdout
    if tail != f"{LINES - 1}\n{LINES}\n".encode():
        fail(f"{where}: spill cat printed {tail!r}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/spill-ci"))
    ap.add_argument("--release", action="store_true", help="build the wheel with the release profile")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = ap.parse_args()
    os.makedirs(args.cache, exist_ok=True)
    name, version = crate_version()
    if name != "spill-cli":
        fail(f"the crate is {name}, not spill-cli")
    check_versions(version)
    tmp = tempfile.mkdtemp(prefix="spill-install-")
    try:
        env = scrubbed_env(tmp)
        wheel = build_wheel(args.cache, os.path.join(tmp, "dist"), args.release)
        check_wheel_contents(wheel, version)
        say("wheel:", os.path.basename(wheel), f"{os.path.getsize(wheel):,} bytes")
        binary = check_python(wheel, tmp, env)
        check_node(binary, tmp, env)
    finally:
        if args.keep:
            say("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
