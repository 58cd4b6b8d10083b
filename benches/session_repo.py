"""benches/session_repo.py — writes the session benchmark's repository (see benches/session.py).

A small multi-language project, `ledger`, with what an agent meets while fixing one: a Python
package whose tests fail (pytest and unittest), a shadowing copy of a module in `vendor/`, a Rust
crate that does not compile and then fails a test, a C program that does not link, a git history
of 400 commits with the one that brought the bug in its middle, application and access logs, JSON
and NDJSON dumps, a 45 MB asset among hundreds of small files, and the project's own scripts that
print tables and listings. Everything is written from fixed seeds and fixed dates, so every
machine gets the same bytes (and the same commit ids).
"""

import os
import random
import subprocess

AUTHORS = [
    ("Ravi Menon", "ravi@ledger.example"),
    ("Ana Sousa", "ana@ledger.example"),
    ("Tomasz Wilk", "tomasz@ledger.example"),
    ("Mei Lin", "mei@ledger.example"),
    ("Oskar Berg", "oskar@ledger.example"),
    ("Priya Nair", "priya@ledger.example"),
]
BUG_AUTHOR = ("Dana Whitfield", "dana@ledger.example")
COMMITS = 400
BUG_COMMIT = 213
T0 = 1735722000  # 2025-01-01T09:00:00Z

SUBJECTS = [
    "docs: note on {w} handling",
    "report: tidy the {w} column",
    "tests: cover {w} with {n} more cases",
    "ci: bump cache key for {w}",
    "parse: accept {w} in headers",
    "refactor: split {w} helper",
    "fix: typo in {w} message",
    "build: pin {w} to {n}.{m}",
]
WORDS = ["currency", "totals", "ledger", "export", "import", "rounding", "dates", "accounts",
         "balances", "journal", "audit", "invoice", "tax", "fx", "budget", "payee"]


def helper_function(k):
    return (
        f"def helper_{k:02d}(value):\n"
        f'    """Scales a ledger value by {k + 1} (kept for the {WORDS[k % len(WORDS)]} reports)."""\n'
        f"    return value * {k + 1}\n\n\n"
    )


PARSE_HEAD = '''"""Parsing of ledger ranges and amounts."""


'''

PARSE_RANGE_GOOD = '''def parse_range(text):
    """Parses 'a-b' into the half-open range a, a+1, ..., b-1."""
    start, end = text.split("-")
    return list(range(int(start), int(end)))


'''

PARSE_RANGE_BAD = '''def parse_range(text):
    """Parses 'a-b' into the half-open range a, a+1, ..., b-1."""
    start, end = text.split("-")
    return list(range(int(start), int(end) + 1))


'''

PARSE_AMOUNT = '''def parse_amount(text):
    """Parses '12.50' into cents."""
    whole, _, frac = text.partition(".")
    return int(whole) * 100 + int((frac + "00")[:2])


'''


def parse_py(stage, buggy):
    """parse.py as of a commit: the helpers added so far, then parse_range."""
    body = PARSE_HEAD + PARSE_AMOUNT
    body += PARSE_RANGE_BAD if buggy else PARSE_RANGE_GOOD
    for k in range(stage):
        body += helper_function(k)
    return body.rstrip("\n") + "\n"


# Commits that add helper k to parse.py (one in 14 commits).
HELPER_COMMITS = {c: i for i, c in enumerate(range(7, COMMITS, 14))}


def history(root):
    """The git history, through `git fast-import`: fixed authors, dates and messages."""
    rng = random.Random(400)
    out = []
    stage = 0
    changelog = "# Changelog\n\n"
    mark = 0

    def blob(path, data):
        b = data.encode()
        out.append(f"M 100644 inline {path}\ndata {len(b)}\n".encode() + b + b"\n")

    for c in range(1, COMMITS + 1):
        if c == BUG_COMMIT:
            name, email = BUG_AUTHOR
            subject = "parse: treat end of range as inclusive"
            body = "Ranges in the import files are written 'first-last'.\n"
        else:
            name, email = AUTHORS[rng.randrange(len(AUTHORS))]
            subject = SUBJECTS[rng.randrange(len(SUBJECTS))].format(
                w=WORDS[rng.randrange(len(WORDS))], n=rng.randrange(2, 40), m=rng.randrange(10))
            body = ""
        ts = T0 + c * 3 * 3600 + rng.randrange(3000)
        msg = (subject + "\n" + ("\n" + body if body else "")).encode()
        mark += 1
        out.append(
            f"commit refs/heads/main\nmark :{mark}\nauthor {name} <{email}> {ts} +0000\n"
            f"committer {name} <{email}> {ts} +0000\ndata {len(msg)}\n".encode() + msg + b"\n")
        if c > 1:
            out.append(f"from :{mark - 1}\n".encode())
        if c == 1:
            for path, data in BASE_FILES.items():
                blob(path, data)
        if c in HELPER_COMMITS:
            stage = HELPER_COMMITS[c] + 1
        if c == 1 or c in HELPER_COMMITS or c == BUG_COMMIT:
            blob("py/ledger/parse.py", parse_py(stage, c >= BUG_COMMIT))
        changelog += f"- {subject}\n"
        blob("CHANGELOG.md", changelog)
        out.append(b"\n")
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    subprocess.run(["git", "init", "-q", "-b", "main", root], check=True, env=env)
    subprocess.run(["git", "fast-import", "--quiet"], input=b"".join(out), cwd=root, check=True,
                   env=env)
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=root, check=True, env=env)


BASE_FILES = {
    "README.md": "# ledger\n\nA small double-entry ledger: Python package, Rust core, C tool.\n",
    "config/settings.toml": "[ledger]\ncurrency = \"EUR\"\nrounding = \"half-even\"\n",
    "py/ledger/__init__.py": "",
    ".gitignore": "target/\n__pycache__/\n*.o\nc/ledger\n",
}


def write(root, path, data):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(full, mode) as f:
        f.write(data)


def python_package(root):
    tests = ["from ledger.parse import parse_range, parse_amount\n\n"]
    for i in range(12):
        if i == 5:
            tests.append(
                "def test_range_is_half_open():\n"
                "    assert parse_range(\"3-6\") == [3, 4, 5]\n\n\n")
        else:
            tests.append(
                f"def test_amount_{i:02d}():\n"
                f"    assert parse_amount(\"{i}.25\") == {i * 100 + 25}\n\n\n")
    write(root, "py/tests/test_parse.py", "".join(tests).rstrip("\n") + "\n")
    helpers = ["import pytest\n\nfrom ledger import parse\n\n\n"]
    helpers.append("@pytest.mark.parametrize(\"k\", range(28))\n"
                   "@pytest.mark.parametrize(\"value\", range(-7, 7))\n"
                   "def test_helper_scales(k, value):\n"
                   "    assert getattr(parse, f\"helper_{k:02d}\")(value) == value * (k + 1)\n")
    write(root, "py/tests/test_helpers.py", "".join(helpers))
    write(root, "py/tests/conftest.py",
          "import os\nimport sys\n\n"
          "sys.path.insert(0, os.path.join(os.path.dirname(__file__), \"..\", \"..\", \"vendor\", \"legacy\"))\n"
          "sys.path.insert(0, os.path.join(os.path.dirname(__file__), \"..\"))\n")
    # unittest suite: one failure among 60.
    cases = ["import unittest\n\n\nclass Currency(unittest.TestCase):\n"]
    for i in range(60):
        if i == 41:
            cases.append("    def test_currency_default(self):\n"
                         "        self.assertEqual(default_currency(), \"EUR\")\n\n")
        else:
            cases.append(f"    def test_code_{i:02d}(self):\n"
                         f"        self.assertEqual(len(\"C{i:02d}\"), 3)\n\n")
    cases.insert(0, "def default_currency():\n    return \"USD\"\n\n\n")
    cases.append("\nif __name__ == \"__main__\":\n    unittest.main()\n")
    write(root, "py/tests_unit/test_currency.py", "".join(cases))
    # A stale vendored copy of the package, which shadows nothing but confuses a search.
    write(root, "vendor/legacy/ledger/__init__.py", "")
    write(root, "vendor/legacy/ledger/parse.py", parse_py(3, False))


def tools(root):
    """The project's own scripts: a migration that dies after a long log, a profile table, a
    complexity listing, a configuration check."""
    write(root, "py/tools/migrate.py", '''import sys


def load(n):
    return {"id": n, "amount": n * 7 % 1000, **({"currency": "EUR"} if n != 2874 else {})}


def convert(record):
    return {"id": record["id"], "cents": record["amount"] * 100, "cur": record["currency"]}


def migrate(n):
    for i in range(n):
        out = convert(load(i))
        print(f"migrated record {i:05d} -> {out['cents']} {out['cur']}")


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)
    migrate(4000)
''')
    write(root, "py/tools/profile.py", '''import random

rng = random.Random(7)
print(f"{'function':<32} {'calls':>8} {'total_ms':>10} {'per_call_us':>12}")
for i in range(300):
    name = f"ledger_fn_{i:03d}" if i != 188 else "reconcile_accounts"
    calls = rng.randrange(10, 5000)
    total = rng.randrange(5, 400) if i != 188 else 9812
    print(f"{name:<32} {calls:>8} {total:>10} {total * 1000 // calls:>12}")
''')
    write(root, "py/tools/complexity.py", '''import random

rng = random.Random(11)
for i in range(400):
    name = f"fn_{i:03d}" if i != 261 else "build_summary"
    rank, score = ("F", 41) if i == 261 else rng.choice([("A", 2), ("A", 4), ("B", 7), ("B", 9)])
    print(f"py/ledger/mod_{i // 20:02d}.py:{(i % 20) * 12 + 3}:0 {name} - {rank} ({score})")
''')
    write(root, "py/tools/check_config.py", '''import random

rng = random.Random(5)
for i in range(800):
    section = ["cache", "export", "import", "report", "audit"][i % 5]
    key = f"{section}.option_{i:03d}" if i != 517 else "cache.legacy_mode"
    status = "deprecated" if i == 517 else "ok"
    print(f"{key:<28} = {rng.randrange(0, 10000):<6} ({status})")
''')


def rust_crate(root):
    write(root, "rs/Cargo.toml",
          "[package]\nname = \"ledger-core\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n")
    fns = []
    for i in range(60):
        fns.append(f"pub fn scale_{i:02d}(x: i64) -> i64 {{\n    let unused_{i:02d} = x * 2;\n    x * {i + 1}\n}}\n")
    lib = ["//! The ledger's core arithmetic.\n\npub mod report;\n\n",
           "/// Rounds half to even, as the ledger's rounding setting says.\n"
           "pub fn round_half_even(x: f64) -> f64 {\n    x.round()\n}\n\n",
           "\n".join(fns), "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"]
    for i in range(299):
        lib.append(f"    #[test]\n    fn scales_{i:03d}() {{\n        assert_eq!(scale_{i % 60:02d}({i}), {i} * {i % 60 + 1});\n    }}\n\n")
    lib.append("    #[test]\n    fn rounding_half_even() {\n        assert_eq!(round_half_even(42.5), 42.0);\n    }\n}\n")
    write(root, "rs/src/lib.rs", "".join(lib))
    write(root, "rs/src/report.rs",
          "/// The number of lines a report prints.\npub fn total_lines(rows: &[u32]) -> u32 {\n"
          "    let total: u32 = \"12\";\n    rows.iter().sum::<u32>() + total\n}\n")


def c_program(root):
    write(root, "c/Makefile",
          "CFLAGS ?= -O0 -Wall -Wextra\n\nledger: main.o ledger.o\n\t$(CC) -o $@ $^\n\n"
          "%.o: %.c ledger.h\n\t$(CC) $(CFLAGS) -c $<\n\nclean:\n\trm -f *.o ledger\n")
    write(root, "c/ledger.h",
          "".join(f"int ledger_op_{i:02d}(int a, int b);\n" for i in range(70))
          + "void ledger_open(void);\nvoid ledger_close(void);\n")
    write(root, "c/ledger.c",
          "#include \"ledger.h\"\n\n"
          + "".join(f"int ledger_op_{i:02d}(int a, int b) {{\n    return a * {i + 1};\n}}\n\n"
                    for i in range(70))
          + "void ledger_open(void) {}\n")
    write(root, "c/main.c",
          "#include \"ledger.h\"\n\nint main(void) {\n    ledger_open();\n"
          "    int t = ledger_op_03(1, 2);\n    ledger_close();\n    return t == 4 ? 0 : 1;\n}\n")


def logs(root):
    rng = random.Random(3030)
    lines = []
    comps = ["http", "db", "cache", "scheduler", "auth", "export"]
    for i in range(30000):
        ts = f"2025-03-04T{8 + i // 3600 % 12:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{rng.randrange(1000):03d}Z"
        if i == 17412:
            lines.append(f"{ts} ERROR [payments] gateway timeout after 30000 ms (order=8812)")
        elif i % 611 == 0:
            lines.append(f"{ts} WARN  [cache] slow response {rng.randrange(500, 900)} ms (key=acct:{rng.randrange(9999)})")
        else:
            c = comps[rng.randrange(len(comps))]
            lvl = "DEBUG" if rng.random() < 0.3 else "INFO "
            lines.append(f"{ts} {lvl} [{c}] handled request id={rng.randrange(10**6):06d} in {rng.randrange(1, 90)} ms")
    write(root, "logs/app.log", "\n".join(lines) + "\n")
    paths = ["/api/v2/accounts", "/api/v2/journal", "/static/app.js", "/api/v2/balances", "/health"]
    acc = []
    for i in range(20000):
        p = paths[rng.randrange(len(paths))]
        status, size = (304, 0) if rng.random() < 0.1 else (200, rng.randrange(200, 9000))
        if i == 12345:
            p, status, size = "/api/v2/export", 503, 0
        ip = f"10.0.{rng.randrange(4)}.{rng.randrange(1, 255)}"
        acc.append(f'{ip} - - [04/Mar/2025:{8 + i // 3600 % 12:02d}:{i // 60 % 60:02d}:{i % 60:02d} +0000] "GET {p} HTTP/1.1" {status} {size} "-" "ledger-client/2.3"')
    write(root, "logs/access.log", "\n".join(acc) + "\n")


def data(root):
    import json
    rng = random.Random(241)
    recs = []
    for i in range(241):
        recs.append({
            "ifindex": i + 1, "ifname": f"eth{i}", "flags": ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"],
            "mtu": 1500, "qdisc": "mq", "operstate": "DOWN" if i == 137 else "UP",
            "linkmode": "DEFAULT", "group": "default", "txqlen": 1000, "link_type": "ether",
            "address": "02:00:%02x:%02x:%02x:%02x" % (i // 256, i % 256, rng.randrange(256), rng.randrange(256)),
            "broadcast": "ff:ff:ff:ff:ff:ff"})
    write(root, "data/interfaces.json", json.dumps(recs, indent=2) + "\n")
    report = []
    for i in range(1081):
        if i == 703:
            msgs = [{"ruleId": "no-undef", "severity": 2, "message": "'ledgerTotal' is not defined.", "line": 88, "column": 12}]
        else:
            msgs = [{"ruleId": "no-unused-vars", "severity": 1, "message": f"'tmp{i}' is assigned a value but never used.", "line": i % 300 + 1, "column": 7}]
        report.append({"filePath": f"/src/web/components/c{i:04d}.js", "messages": msgs,
                       "errorCount": 1 if i == 703 else 0, "warningCount": 0 if i == 703 else 1})
    write(root, "data/lint-report.json", json.dumps(report) + "\n")
    ev = []
    for i in range(5000):
        ev.append(json.dumps({"id": f"evt-{i:05d}", "type": rng.choice(["posted", "posted", "reversed"]),
                              "account": f"acct-{rng.randrange(400):03d}", "cents": rng.randrange(1, 10**6),
                              "status": "rejected" if i == 3317 else "accepted"}))
    write(root, "data/events.ndjson", "\n".join(ev) + "\n")


def assets(root):
    for i in range(600):
        write(root, f"assets/icons/icon-{i:03d}.svg",
              f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><!-- {i} --></svg>\n" * (1 + i % 40))
    block = b"\x00" * (1 << 20)
    with open(os.path.join(root, "assets", "intro.tmp"), "wb") as f:
        for _ in range(45):
            f.write(block)
    os.makedirs(os.path.join(root, "assets", "video"), exist_ok=True)
    os.replace(os.path.join(root, "assets", "intro.tmp"), os.path.join(root, "assets", "video", "intro.mp4"))


def make(root):
    """Writes the repository at `root` (which must not exist)."""
    os.makedirs(root)
    history(root)
    python_package(root)
    tools(root)
    rust_crate(root)
    c_program(root)
    logs(root)
    data(root)
    assets(root)
    # One change not yet committed.
    write(root, "config/settings.toml", "[ledger]\ncurrency = \"USD\"\nrounding = \"half-even\"\n")
