#!/usr/bin/env bash
# tests/data/signals/make.sh — (re)makes the signal corpus: real outputs of real tools, produced
# by running each tool on a small input this script writes. Not run by `cargo test` or CI (it
# installs tools from Debian, PyPI and npm); tests/signals.rs scores the committed outputs.
#
#   tests/data/signals/make.sh [--install] [CASE...]
#
# Each case's output (stdout and stderr merged, as `spill wrap -- CMD` sees them) is written to
# cases/NAME.txt, cut at 300 KB. manifest.json says, for every case, the tool, the command, the
# miss class of the issue it stands for and its decisive line(s); when a re-made output moves a
# decisive line, update the manifest by hand (the scoring test reports decisive text it cannot find).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$HERE/cases
W=${SIGNALS_WORK:-/tmp/spill-signals-work}
mkdir -p "$OUT" "$W"
CAP=300000

if [ "${1:-}" = --install ]; then
    shift
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc make valgrind strace gdb shellcheck \
        autoconf hyperfine cppcheck tidy default-jdk-headless sqlite3 perl jq nodejs npm
    pip install -q pylint mypy flake8 ruff pytest yamllint
    (mkdir -p "$W/npm" && cd "$W/npm" && npm init -y >/dev/null && npm install -q eslint@8 typescript)
fi
if [ ! -x "$W/npm/node_modules/.bin/eslint" ]; then
    (mkdir -p "$W/npm" && cd "$W/npm" && npm init -y >/dev/null && npm install -q eslint@8 typescript)
fi
export PATH=$W/npm/node_modules/.bin:$PATH
want() { [ $# -eq 0 ] || [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }
ONLY="$*"
# case NAME CMD...: runs CMD in $W/NAME through bash, output merged, capped.
case_() {
    local name=$1; shift
    if [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]]; then return; fi
    echo "make.sh: $name" >&2
    (cd "$W/$name" && bash -c "$*" 2>&1) | head -c $CAP > "$OUT/$name.txt"
}
prep() { rm -rf "${W:?}/$1"; mkdir -p "$W/$1"; }

# ---- pylint: hundreds of convention messages, one E1120 (class 1, 2) ------------------------
prep pylint
python3 - "$W/pylint" <<'PY'
import sys, os
d = sys.argv[1]
for m in range(40):
    with open(os.path.join(d, f"mod{m:02}.py"), "w") as f:
        for i in range(40):
            f.write(f"def func_{i}(a, b):\n    x = a+b\n    return x\n\n")
        if m == 23:
            f.write("def caller():\n    return func_3(1)\n")
PY
case_ pylint "pylint --disable=R --score=n mod*.py"

# ---- flake8: E-class style noise, one F821 undefined name (class 1, 2) ----------------------
prep flake8
python3 - "$W/flake8" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "app.py"), "w") as f:
    f.write("import os\n\n")
    for i in range(600):
        f.write(f"def f{i}(a,b):\n    return a+b # comment that makes the line far too long for the configured limit of this project style guide\n")
    f.write("def g():\n    return undefined_name + 1\n")
PY
case_ flake8 "flake8 app.py"

# ---- ruff JSON behind warning lines: many E501, one F821 (class 5, 6) -----------------------
prep ruff-json
cp "$W/flake8/app.py" "$W/ruff-json/app.py" 2>/dev/null || true
printf '[lint]\nselect = ["E", "F", "W"]\nignore = ["E999"]\n' > "$W/ruff-json/ruff.toml"
printf 'x = 1  # noqa: E50\n' > "$W/ruff-json/noqa.py"
case_ ruff-json "ruff check --no-cache --output-format json --select E,F,W app.py noqa.py"

# ---- ruff concise text: same input (class 1) ------------------------------------------------
prep ruff
cp "$W/flake8/app.py" "$W/ruff/app.py"
case_ ruff "ruff check --no-cache --output-format concise --select E,F,W,N app.py"

# ---- mypy: hundreds of no-untyped-def errors, one incompatible assignment (class 1) ---------
prep mypy
python3 - "$W/mypy" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "prog.py"), "w") as f:
    for i in range(1500):
        f.write(f"def f{i}(a, b):\n    return a\n\n")
    f.write("def main() -> None:\n    count: int = 'three'\n    print(count)\n")
PY
case_ mypy "mypy --strict --no-error-summary --no-incremental prog.py"

# ---- mypy JSON lines (class 5, 7) -----------------------------------------------------------
prep mypy-json
cp "$W/mypy/prog.py" "$W/mypy-json/prog.py"
case_ mypy-json "mypy --strict --no-incremental -O json prog.py"

# ---- pytest: 300 passing tests, one expected/got failure (class 2) --------------------------
prep pytest
python3 - "$W/pytest" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "test_calc.py"), "w") as f:
    f.write("import pytest\n\ndef total(xs, n):\n    return sum(xs) - (1 if n == 1017 else 0)\n\n")
    f.write("@pytest.mark.parametrize('n', range(1500))\ndef test_total(n):\n    xs = list(range(n % 9))\n    assert total(xs, n) == sum(xs)\n")
PY
case_ pytest "python3 -m pytest -v -p no:cacheprovider test_calc.py"

# ---- pytest --durations: one slow test among many (class 4) ---------------------------------
prep pytest-durations
python3 - "$W/pytest-durations" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "test_speed.py"), "w") as f:
    f.write("import time, pytest\n\n@pytest.mark.parametrize('n', range(400))\ndef test_step(n):\n    time.sleep(0.6 if n == 263 else 0.001 * (n % 5))\n")
PY
case_ pytest-durations "python3 -m pytest -v -p no:cacheprovider --durations=0 test_speed.py"

# ---- gcc: hundreds of -Wall warnings, one error (class 1) -----------------------------------
prep gcc
python3 - "$W/gcc" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "big.c"), "w") as f:
    f.write("#include <stdio.h>\n")
    for i in range(250):
        f.write(f"int f{i}(int a) {{ int unused{i}; return a; }}\n")
    f.write("int g(void) { return undeclared_total + 1; }\n")
    for i in range(250, 400):
        f.write(f"int f{i}(int a) {{ int unused{i}; return a; }}\n")
PY
case_ gcc "gcc -Wall -Wextra -c big.c -o big.o"

# ---- valgrind: a program that prints a lot and reads past an array (class 2) ----------------
prep valgrind
cat > "$W/valgrind/oob.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void) {
    int *a = malloc(10 * sizeof *a);
    long sum = 0;
    for (int i = 0; i < 2500; i++) printf("step %d: processed record %d of 2500, checksum %ld\n", i, i, sum += i);
    for (int i = 0; i <= 10; i++) sum += a[i];
    printf("sum %ld\n", sum);
    for (int i = 0; i < 1200; i++) printf("flush %d done\n", i);
    free(a);
    return 0;
}
C
gcc -g -O0 -o "$W/valgrind/oob" "$W/valgrind/oob.c"
case_ valgrind "valgrind --error-exitcode=0 ./oob"

# ---- strace: sixty ENOENT probes, one misspelt config path the program dies of (class 3) ----
prep strace
cat > "$W/strace/cfg.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
int main(void) {
    char p[256]; struct stat st;
    for (int i = 0; i < 60; i++) { snprintf(p, sizeof p, "/usr/share/app/plugins/plugin%02d.so", i); stat(p, &st); }
    for (int i = 0; i < 1500; i++) { getpid(); }
    FILE *f = fopen("/etc/app/confg.toml", "r");
    if (!f) exit(3);
    return 0;
}
C
gcc -O0 -o "$W/strace/cfg" "$W/strace/cfg.c"
case_ strace "strace ./cfg"

# ---- gdb: a segfault's backtrace after library loading chatter (class 2, 9) ------------------
prep gdb
cat > "$W/gdb/crash.c" <<'C'
#include <stdio.h>
struct node { int v; struct node *next; };
int walk(struct node *n, int depth) { return depth > 3 ? n->next->v : walk(n, depth + 1); }
int main(void) {
    struct node n = { 1, 0 };
    for (int i = 0; i < 3000; i++) printf("tick %d state=ready queue=%d\n", i, i % 7);
    return walk(&n, 0);
}
C
gcc -g -O0 -o "$W/gdb/crash" "$W/gdb/crash.c"
case_ gdb "gdb -q -batch -ex run -ex bt -ex 'info registers' ./crash"

# ---- make -k: one failing object among many, the build goes on (class 1, 3) -----------------
prep make-k
python3 - "$W/make-k" <<'PY'
import sys, os
d = sys.argv[1]
objs = []
for i in range(1200):
    with open(os.path.join(d, f"unit{i:04}.c"), "w") as f:
        if i == 541:
            f.write("int unit0541(void) { return 1 }\n")
        else:
            f.write(f"int unit{i:04}(void) {{ return {i}; }}\n")
    objs.append(f"unit{i:04}.o")
with open(os.path.join(d, "Makefile"), "w") as f:
    f.write("CFLAGS = -O2 -Wall -fPIC -DNDEBUG -I/usr/include -I./include -D_FORTIFY_SOURCE=2\nall: " + " ".join(objs) + "\n")
    f.write("%.o: %.c\n\t$(CC) $(CFLAGS) -c $< -o $@\n")
PY
case_ make-k "make -k"

# ---- make clean build: long, nothing fails, file names with failure words (clean) -----------
prep make-clean
python3 - "$W/make-clean" <<'PY'
import sys, os
d = sys.argv[1]
names = [f"src{i:04}" for i in range(1200)] + ["error_handling", "fail_fast", "exception_table", "panic_hooks", "AddressSanitizer_glue", "fatal_signal"]
with open(os.path.join(d, "Makefile"), "w") as f:
    f.write("CFLAGS = -O2 -Wall -fPIC -DNDEBUG -DON_ERROR=abort -I./include -D_FORTIFY_SOURCE=2\nall: " + " ".join(n + ".o" for n in names) + "\n")
    f.write("%.o: %.c\n\t$(CC) $(CFLAGS) -c $< -o $@\n")
for n in names:
    with open(os.path.join(d, n + ".c"), "w") as f:
        f.write(f"int {n}_fn(int x) {{ return x + 1; }}\n")
PY
case_ make-clean "make"

# ---- cppcheck: style noise, one out-of-bounds error (class 1) -------------------------------
prep cppcheck
python3 - "$W/cppcheck" <<'PY'
import sys, os
d = sys.argv[1]
for m in range(40):
    with open(os.path.join(d, f"m{m:02}.c"), "w") as f:
        for i in range(6):
            f.write(f"int m{m}_{i}(int *p) {{ int r = 0; r = 1; r = 2; return r + *p; }}\n")
        if m == 29:
            f.write("int m29_bad(void) { int a[10]; a[10] = 3; return a[0]; }\n")
PY
case_ cppcheck "cppcheck --enable=style,warning --inconclusive ."

# ---- autoconf: config.log with dozens of expected probe failures, then the fatal one (class 8)
prep configure
python3 - "$W/configure" <<'PY'
import sys, os
d = sys.argv[1]
hdrs = " ".join(f"sys/optional{i:02}.h" for i in range(120)) + " stdio.h stdlib.h string.h unistd.h"
with open(os.path.join(d, "configure.ac"), "w") as f:
    f.write("AC_INIT([demo], [1.0])\nAC_PROG_CC\n")
    f.write(f"AC_CHECK_HEADERS([{hdrs}])\n")
    f.write("AC_CHECK_FUNCS([strlcpy strlcat arc4random_buf reallocarray explicit_bzero closefrom])\n")
    f.write("AC_CHECK_LIB([zstdcompat], [ZSTD_compressStream2], [], [AC_MSG_ERROR([libzstdcompat is required])])\n")
    f.write("AC_OUTPUT\n")
PY
case_ configure "autoconf && ./configure >/dev/null 2>&1; cat config.log"

# ---- javac -Xlint: deprecation noise, one incompatible-types error (class 1) ----------------
prep javac
python3 - "$W/javac" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "Main.java"), "w") as f:
    f.write("import java.util.*;\npublic class Main {\n")
    for i in range(150):
        f.write(f"  static List raw{i}() {{ List l = new ArrayList(); l.add({i}); return l; }}\n")
    f.write("  static int bad() { String s = \"x\"; int n = s; return n; }\n")
    f.write("  public static void main(String[] a) { }\n}\n")
PY
case_ javac "javac -Xlint:all -Xmaxwarns 1000 Main.java"

# ---- shellcheck: SC2086 everywhere, one SC2115 (class 1, 2) ---------------------------------
prep shellcheck
python3 - "$W/shellcheck" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "deploy.sh"), "w") as f:
    f.write("#!/bin/bash\n")
    for i in range(250):
        f.write(f"echo $VAR{i} > $OUT{i}\n")
    f.write("rm -rf \"$STAGING\"/*\nrm -rf $STAGEDIR/\n")
PY
case_ shellcheck "shellcheck deploy.sh"

# ---- tsc: implicit-any noise, one TS2322 (class 1, 2) ---------------------------------------
prep tsc
python3 - "$W/tsc" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "app.ts"), "w") as f:
    for i in range(300):
        f.write(f"export function f{i}(a, b) {{ return a; }}\n")
    f.write("export const port: number = \"8080\";\n")
PY
case_ tsc "tsc --strict --noEmit --pretty false app.ts"

# ---- eslint JSON report: 200 clean files, one with an error (class 5) -----------------------
prep eslint-json
python3 - "$W/eslint-json" <<'PY'
import sys, os
d = sys.argv[1]
os.makedirs(os.path.join(d, "src"))
for i in range(200):
    with open(os.path.join(d, "src", f"mod{i:03}.js"), "w") as f:
        body = "export const x = total + 1;\n" if i == 137 else f"export const v{i} = {i};\n"
        f.write(body)
with open(os.path.join(d, ".eslintrc.json"), "w") as f:
    f.write('{"root": true, "parserOptions": {"ecmaVersion": 2022, "sourceType": "module"}, "rules": {"no-undef": "error"}}\n')
PY
case_ eslint-json "eslint -f json src"

# ---- mocha --reporter json: the counts sit in `stats`, one failure among 300 tests (class 2) --
prep mocha-json
[ -x "$W/npm/node_modules/.bin/mocha" ] || (cd "$W/npm" && npm install -q mocha@10)
python3 - "$W/mocha-json" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "parse.test.js"), "w") as f:
    f.write("const assert = require('assert');\n")
    f.write("const width = (s) => (s === 'h173' ? s.length + 1 : s.length);\n")
    f.write("describe('header widths', () => {\n")
    for i in range(300):
        f.write(f"  it('measures h{i}', () => {{ assert.strictEqual(width('h{i}'), {len(f'h{i}')}); }});\n")
    f.write("});\n")
PY
case_ mocha-json "mocha --reporter json parse.test.js"

# ---- node --test: TAP with one failing assertion among many (class 2) -----------------------
prep node-test
python3 - "$W/node-test" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "calc.test.mjs"), "w") as f:
    f.write("import test from 'node:test';\nimport assert from 'node:assert/strict';\n")
    f.write("const add = (a, b) => (a === 41 ? a + b + 1 : a + b);\n")
    for i in range(250):
        f.write(f"test('adds {i}', () => {{ assert.equal(add({i}, 1), {i + 1}); }});\n")
PY
case_ node-test "node --test --test-reporter=tap calc.test.mjs"

# ---- tidy: hundreds of warnings, one error (class 1) ----------------------------------------
prep tidy
python3 - "$W/tidy" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "page.html"), "w") as f:
    f.write("<!DOCTYPE html>\n<html><head><title>t</title></head><body>\n")
    for i in range(1200):
        f.write(f"<img src=\"a{i}.png\">\n")
        if i == 811:
            f.write("<blink>old</blink>\n")
    f.write("</body></html>\n")
PY
case_ tidy "tidy -q -e page.html"

# ---- yamllint: line-length warnings, one syntax error (class 1) -----------------------------
prep yamllint
python3 - "$W/yamllint" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "config.yaml"), "w") as f:
    f.write("---\n")
    for i in range(2000):
        f.write(f"key{i}: \"a value that is long enough to exceed the default line length limit of yamllint {i}\"\n")
        if i == 1388:
            f.write("broken: [unclosed\n")
PY
case_ yamllint "yamllint -f parsable config.yaml"

# ---- cargo build: unused-variable warnings, one E0308 (class 1) -----------------------------
prep cargo-build
(cd "$W/cargo-build" && cargo new -q --vcs none demo)
python3 - "$W/cargo-build/demo" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "src", "main.rs"), "w") as f:
    for i in range(120):
        f.write(f"fn f{i}(a: u32) -> u32 {{ let unused{i} = a; 1 }}\n")
    f.write("fn g() -> u32 { let s: u32 = \"seven\"; s }\n")
    f.write("fn main() {\n" + "".join(f"    f{i}(1);\n" for i in range(120)) + "    g();\n}\n")
PY
case_ cargo-build "cd demo && cargo build --offline --color never"

# ---- cargo test: 300 passing tests, one assert_eq failure (class 2) -------------------------
prep cargo-test
(cd "$W/cargo-test" && cargo new -q --vcs none --lib calc)
python3 - "$W/cargo-test/calc" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "src", "lib.rs"), "w") as f:
    f.write("pub fn scale(x: u64) -> u64 { if x == 1870 { x * 3 + 1 } else { x * 3 } }\n#[cfg(test)]\nmod tests {\n    use super::*;\n")
    for i in range(3000):
        f.write(f"    #[test]\n    fn scales_{i}() {{ assert_eq!(scale({i}), {3 * i}); }}\n")
    f.write("}\n")
PY
case_ cargo-test "cd calc && cargo test --offline --color never -- --test-threads 1"

# ---- cargo test, all passing, test names with failure words (clean) ------------------------
prep cargo-test-ok
(cd "$W/cargo-test-ok" && cargo new -q --vcs none --lib okcrate)
python3 - "$W/cargo-test-ok/okcrate" <<'PY'
import sys, os
d = sys.argv[1]
words = ["error_paths", "fail_fast", "panic_free", "exception_safety", "fatal_signal_names", "no_errors"]
with open(os.path.join(d, "src", "lib.rs"), "w") as f:
    f.write("pub fn id(x: u64) -> u64 { x }\n#[cfg(test)]\nmod tests {\n    use super::*;\n")
    for i in range(3000):
        f.write(f"    #[test]\n    fn {words[i % len(words)]}_{i}() {{ assert_eq!(id({i}), {i}); }}\n")
    f.write("}\n")
PY
case_ cargo-test-ok "cd okcrate && cargo test --offline --color never -- --test-threads 1"

# ---- sqlite3: a long script, one statement fails (class 2) ----------------------------------
prep sqlite
python3 - "$W/sqlite" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "load.sql"), "w") as f:
    f.write(".echo on\nCREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);\n")
    for i in range(2000):
        f.write(f"INSERT INTO users(name) VALUES ('user{i}');\n")
        if i == 1250:
            f.write("INSERT INTO usres(name) VALUES ('typo');\n")
    f.write("SELECT count(*) FROM users;\n")
PY
case_ sqlite "sqlite3 db.sqlite < load.sql"

# ---- perl -w: uninitialized-value warnings, one fatal method call (class 1) -----------------
prep perl
cat > "$W/perl/report.pl" <<'PL'
use strict; use warnings;
my %h;
for my $i (0..1999) { my $v = $h{"k$i"}; print "row $i: " . $v . "\n"; }
my $obj = bless {}, 'Report';
$obj->render_totals();
PL
case_ perl "perl report.pl"

# ---- hyperfine: three hundred commands, one far slower (class 4) -----------------------------------
prep hyperfine
case_ hyperfine "hyperfine -N --style basic --runs 3 --warmup 1 $(for i in $(seq 1 300); do if [ "$i" = 161 ]; then printf "'sleep 0.2' "; else printf "'sleep 0.00%d' " $((i % 9)); fi; done)"

# ---- cProfile: a program's log prelude, then the profile table (class 9) --------------------
prep cprofile
cat > "$W/cprofile/job.py" <<'PY'
import logging, time
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("job")
def parse_row(i): return str(i).zfill(8)
def checksum(rows): return sum(len(r) for r in rows)
def slow_dedupe(rows):
    out = []
    for r in rows:
        if r not in out: out.append(r)
    return out
def helper_a(): return [parse_row(i) for i in range(200)]
def helper_b(): return checksum(helper_a())
for i in range(1500):
    log.info("batch %d loaded, %d rows queued", i, i * 17)
rows = [parse_row(i % 3000) for i in range(6000)]
slow_dedupe(rows)
for i in range(60):
    helper_b()
PY
case_ cprofile "python3 -m cProfile -s tottime job.py"

# ---- cargo --message-format json: JSON lines among stderr lines (class 6, 7) ---------------
prep cargo-json
cp -r "$W/cargo-build/demo" "$W/cargo-json/demo"
case_ cargo-json "cd demo && cargo clean -q && cargo build --offline --color never --message-format json"

# ---- npm ls --json: a JSON document followed by npm's error lines (class 6) -----------------
prep npm-ls
cp -r "$W/npm/node_modules" "$W/npm/package.json" "$W/npm-ls/" 2>/dev/null
python3 - "$W/npm-ls/package.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d.setdefault("dependencies", {})["left-pad"] = "^1.3.0"
json.dump(d, open(p, "w"), indent=2)
PY
case_ npm-ls "npm ls --json --all --long"

# ---- ls -laR: a source tree whose file names hold failure words (clean) --------------------
prep ls-lar
python3 - "$W/ls-lar" <<'PY'
import sys, os
d = sys.argv[1]
names = ["AddressSanitizer.h", "error.c", "error_handling.rs", "fail.py", "FAILED_tests.txt", "panic.rs",
         "exception.h", "fatal.log", "Traceback.md", "segfault_handler.c", "errors", "npm-debug.log"]
for m in range(25):
    sub = os.path.join(d, "src", f"pkg{m:02}")
    os.makedirs(sub)
    for i in range(20):
        n = names[(m + i) % len(names)] if i % 4 == 0 else f"file{i:02}.c"
        with open(os.path.join(sub, n), "w") as f:
            f.write("x" * (i * 37 % 900))
PY
case_ ls-lar "ls -laR --time-style=+%Y-%m-%d src | sed -E 's/ root +root / user user /'"

# ---- ls -la: one file far larger than the rest (class 4, 10) -------------------------------
prep ls-big
python3 - "$W/ls-big" <<'PY'
import sys, os
d = sys.argv[1]
for i in range(1600):
    with open(os.path.join(d, f"chunk{i:04}.bin"), "wb") as f:
        f.truncate(3_500_000_000 if i == 1318 else 40_000 + i * 97)
PY
case_ ls-big "ls -la --time-style=+%Y-%m-%d . | sed -E 's/ root +root / user user /'"

# ---- diff -rs: hundreds of identical files, one pair differs (class 10) ---------------------
prep diff-rs
python3 - "$W/diff-rs" <<'PY'
import sys, os
d = sys.argv[1]
for side in ("expected", "actual"):
    os.makedirs(os.path.join(d, side))
    for i in range(2000):
        with open(os.path.join(d, side, f"golden{i:04}.out"), "w") as f:
            f.write(f"result {i}\n" if not (side == "actual" and i == 1377) else f"result {i + 1}\n")
PY
case_ diff-rs "diff -rqs expected actual"

# ---- cmp over many pairs: one verdict differs (class 10) -----------------------------------
prep cmp
cp -r "$W/diff-rs/expected" "$W/diff-rs/actual" "$W/cmp/"
case_ cmp "for f in expected/*; do echo \"== \$f\"; cmp -l \"\$f\" \"actual/\${f#expected/}\" && echo identical; done"

# ---- python -m compileall: a long clean listing of modules (clean) -------------------------
prep compileall
python3 - "$W/compileall" <<'PY'
import sys, os
d = sys.argv[1]
words = ["errors", "exceptions", "failover", "fatal", "panic_mode", "traceback_utils", "error_codes"]
for m in range(45):
    sub = os.path.join(d, "pkg", f"mod{m:02}")
    os.makedirs(sub)
    for i in range(14):
        n = words[(m + i) % len(words)] if i % 3 == 0 else f"part{i:02}"
        with open(os.path.join(sub, n + ".py"), "w") as f:
            f.write(f"VALUE = {i}\n")
PY
case_ compileall "python3 -m compileall -f pkg"

# ---- tar -tvf: a clean archive listing (clean) ---------------------------------------------
prep tar
case_ tar "tar --owner=user --group=user --mtime=2026-01-01 -cf pkg.tar -C $W/compileall pkg -C $W/ls-lar src && tar -tvf pkg.tar"

# ---- a service log that ends in a traceback (ordinary failure) -----------------------------
prep traceback
cat > "$W/traceback/svc.py" <<'PY'
import logging, json
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
log = logging.getLogger("svc")
for i in range(3000):
    log.info("request %d served in %d ms", i, 3 + i % 11)
settings = json.loads('{"port": 8080, "workers": 4}')
log.info("starting on port %d", settings["port"])
print(settings["listen_addr"])
PY
case_ traceback "python3 svc.py"

# ---- cProfile after a short log prelude: the top row answers, and no row is an outlier (class 9)
prep cprofile-head
cat > "$W/cprofile-head/job.py" <<'PY'
import logging
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
log = logging.getLogger("indexer")
def tokenize(i): return str(i * 7919).split("9")
def build_index(n):
    idx = {}
    for i in range(n):
        for t in tokenize(i):
            idx.setdefault(t, []).append(i)
    return idx
def merge_postings(idx):
    return sorted(set(v for vs in idx.values() for v in vs[:3]))
for stage in ("config", "schema", "sources", "filters", "tokenizer", "stopwords", "shards",
              "writer", "scheduler", "ready"):
    log.info("stage %s initialised from /etc/indexer/indexer.toml", stage)
idx = build_index(150000)
merge_postings(idx)
PY
case_ cprofile-head "python3 -m cProfile -s tottime job.py"

# ---- sqlite3 -json: a JSON array, then the statement that failed (class 6; stdout line-buffered,
# or the block-buffered JSON arrives after the error and is cut by it mid-record) ----------------
prep sqlite-json
python3 - "$W/sqlite-json" <<'PY'
import sys, os
d = sys.argv[1]
with open(os.path.join(d, "load.sql"), "w") as f:
    f.write("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT, plan TEXT);\n")
    for i in range(1500):
        f.write(f"INSERT INTO users(name, plan) VALUES ('user{i}', '{['free', 'pro', 'team'][i % 3]}');\n")
PY
(cd "$W/sqlite-json" && sqlite3 db.sqlite < load.sql)
case_ sqlite-json "stdbuf -oL sqlite3 -json db.sqlite 'SELECT id, name, plan FROM users;' 'SELECT count(*) FROM usres;'"

# ---- jq -c: JSON lines, then the error that stopped jq (class 6) ------------------------------
prep jq-ndjson
python3 - "$W/jq-ndjson" <<'PY'
import sys, os, json
d = sys.argv[1]
items = [{"id": i, "meta": {"name": f"item{i}", "tier": i % 4}} for i in range(3000)]
items[2417]["meta"] = "legacy"
with open(os.path.join(d, "data.json"), "w") as f:
    json.dump(items, f)
PY
case_ jq-ndjson "jq --unbuffered -c '.[] | {id, name: .meta.name, tier: .meta.tier}' data.json"

# ---- du -ah: a project tree, one 45 MB file among hundreds of small ones (outlier) ----------
prep du-tree
python3 - "$W/du-tree" <<'PY'
import sys, os
d = sys.argv[1]
for m in range(30):
    for s in ("src", "tests", "docs"):
        sub = os.path.join(d, f"pkg{m:02}", s)
        os.makedirs(sub, exist_ok=True)
        for i in range(7):
            with open(os.path.join(sub, f"part{i}.txt"), "wb") as f:
                f.write(b"x" * (2000 + (m * 7 + i) * 911 % 60000))
with open(os.path.join(d, "pkg17", "docs", "recording.webm"), "wb") as f:
    f.write(os.urandom(45 << 20))
PY
case_ du-tree "du -ah ."

# ---- ip -j link: 241 interfaces in a network namespace, one DOWN (rare value in JSON) --------
prep ip-link-json
case_ ip-link-json "unshare -n sh -c 'for i in \$(seq 1 120); do ip link add veth\${i}a type veth peer name veth\${i}b; ip link set veth\${i}a up; ip link set veth\${i}b up; done; ip link set lo up; ip link set veth58b down; ip -j link'"

# ---- pydoc: a module's documentation, prose full of "cannot" and "not found" (clean) ---------
prep pydoc
case_ pydoc "python3 -m pydoc subprocess"

# ---- man: a manual page as text (clean) ------------------------------------------------------
prep man-page
case_ man-page "MANWIDTH=80 man -P cat find"

# ---- git log: this repository's history, subjects and bodies in prose (clean) ----------------
prep git-log
case_ git-log "git -C '$HERE' log -n 150 --no-decorate --date=iso 332aed7"

# ---- find: a tree of source files whose names hold failure words (clean) --------------------
prep find-tree
python3 - "$W/find-tree" <<'PY'
import sys, os
d = sys.argv[1]
names = ["error.c", "fail_test.py", "panic.rs", "exception.h", "fatal.log", "errors.md"]
for m in range(40):
    for s in ("src", "include"):
        sub = os.path.join(d, f"mod{m:02}", s)
        os.makedirs(sub)
        for i in range(12):
            open(os.path.join(sub, names[i % 6] if i % 3 == 0 else f"unit{i:02}.c"), "w").close()
PY
case_ find-tree "find . | sort"

# ---- round three (#31): rare values in NDJSON and in text rows, more descriptive text -------
# ip -j addr as NDJSON: 241 interfaces, one DOWN (a rare value among NDJSON records)
prep ip-addr-ndjson
case_ ip-addr-ndjson "unshare -n sh -c 'for i in \$(seq 1 120); do ip link add veth\${i}a type veth peer name veth\${i}b; ip link set veth\${i}a up; ip link set veth\${i}b up; done; ip link set lo up; ip link set veth58b down; ip -j addr | jq -c \".[]\"'"

# ip -o link: the same interfaces as text rows, `state DOWN` in one (a rare value in a column)
prep ip-link-oneline
case_ ip-link-oneline "unshare -n sh -c 'for i in \$(seq 1 120); do ip link add veth\${i}a type veth peer name veth\${i}b; ip link set veth\${i}a up; ip link set veth\${i}b up; done; ip link set lo up; ip link set veth58b down; ip -o link'"

# pydoc pages full of failure words: docstrings behind a class's `|` rule, signatures (clean)
prep pydoc-unittest
case_ pydoc-unittest "python3 -m pydoc unittest"
prep pydoc-logging
case_ pydoc-logging "python3 -m pydoc logging"

# man bash: headings such as `Redirecting Standard Output and Standard Error` (clean)
prep man-bash
case_ man-bash "MANWIDTH=80 man -P cat bash"

# git log --oneline: this repository's subjects (`… not an overflow`, `… cannot rot`) (clean)
prep git-oneline
case_ git-oneline "git -C '$HERE' log --oneline -n 3000 509747b"
