#!/usr/bin/env python3
"""Held-out benchmark documents: shapes that `benches/gen.rs` never makes, written by another
program with another serializer (Python's `json`), so that no workload is tuned to one
generator's bytes. Timings on these are read, never tuned against: a change is tuned on gen.rs's
files and then checked here.

    python3 benches/holdout.py --size 100M --out benches/data

writes, each of about SIZE bytes (deterministic: a fixed seed, no clock):

- `issues-SIZE.json`: a pretty-printed (indent 2) list of issue-tracker records as a REST API
  returns them: ids at four depths (`id`, `user.id`, `labels[].id`, `comments[].author.id`),
  URLs, ISO dates, nulls, booleans, markdown bodies with `\\n`, quotes and non-ASCII text
  escaped as `\\uXXXX` (json.dumps's default), and a `meta` object last;
- `trace-SIZE.ndjson`: an NDJSON stream of tracing spans (`id` at the top and inside `parent`,
  nested `attributes`, arrays of `events`), one record per line, compact separators;
- `wide-SIZE.json`: one minified object of many keys (`{"k000001":{…},…,"meta":{…}}`) with
  small arrays of numbers, floats with exponents, and short strings, no newline.
"""
import argparse
import json
import os
import random
import sys

WORDS = ("alpha beta gamma delta build cache index parser socket retry timeout worker "
         "queue shard replica leader commit rollback schema migration token quota").split()
NAMES = ["Zoë Ångström", "Łukasz", "Søren", "José", "Ελένη", "Дмитрий", "太郎", "plain_user"]


def size_arg(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text[-1].upper() in units:
        return int(text[:-1]) * units[text[-1].upper()]
    return int(text)


def body(rng):
    lines = []
    for _ in range(rng.randint(1, 6)):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 16)))
        lines.append(rng.choice(["", "- ", "> ", "`", "**"]) + words + rng.choice(["", "\"", "`", "\\"]))
    return "\n".join(lines)


def issue(rng, n):
    uid = rng.randint(1, 5_000_000)
    return {
        "url": f"https://tracker.example/api/issues/{n}",
        "id": 10_000_000 + n,
        "number": n,
        "title": " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9))),
        "user": {"login": f"user{uid}", "id": uid, "name": rng.choice(NAMES), "site_admin": rng.random() < 0.01},
        "labels": [{"id": rng.randint(1, 999), "name": rng.choice(WORDS), "color": f"{rng.randrange(1 << 24):06x}"}
                   for _ in range(rng.randint(0, 3))],
        "state": rng.choice(["open", "closed"]),
        "locked": False,
        "assignee": None if rng.random() < 0.6 else {"id": rng.randint(1, 5_000_000), "login": "a"},
        "comments": [{"id": rng.randint(1, 1 << 40), "author": {"id": rng.randint(1, 5_000_000)},
                      "body": body(rng), "reactions": {"+1": rng.randint(0, 9), "-1": 0}}
                     for _ in range(rng.randint(0, 2))],
        "created_at": f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00Z",
        "closed_at": None,
        "body": body(rng),
        "score": round(rng.random() * 100, 3),
    }


def span(rng, n):
    return {
        "id": f"{rng.getrandbits(64):016x}",
        "trace": f"{rng.getrandbits(128):032x}",
        "parent": None if n % 7 == 0 else {"id": f"{rng.getrandbits(64):016x}"},
        "name": rng.choice(WORDS) + "." + rng.choice(WORDS),
        "start_ns": 1_700_000_000_000_000_000 + n * 1000,
        "duration_ns": rng.randint(1_000, 9_000_000),
        "attributes": {"http.status": rng.choice([200, 200, 200, 404, 500]), "net.peer": f"10.0.{n % 256}.{rng.randint(1, 254)}",
                       "retry": rng.random() < 0.1},
        "events": [{"t": rng.randint(0, 1000), "msg": rng.choice(WORDS)} for _ in range(rng.randint(0, 3))],
    }


def wide_value(rng, n):
    return {"v": [rng.randint(-1000, 1000) for _ in range(rng.randint(1, 6))],
            "f": float(f"{rng.random():.6e}") * 10 ** rng.randint(-30, 30),
            "s": rng.choice(WORDS), "id": n}


def write_issues(path, size, rng):
    with open(path, "w", encoding="ascii") as out:
        out.write('{\n  "items": [\n')
        written, n = 0, 0
        while written < size - 4096:
            text = json.dumps(issue(rng, n), indent=2)
            text = ("    " if n else "    ") + text.replace("\n", "\n    ")
            out.write((",\n" if n else "") + text)
            written += len(text) + 2
            n += 1
        meta = {"total": n, "next": None, "generated_by": "holdout.py", "id": "meta"}
        out.write('\n  ],\n  "meta": ' + json.dumps(meta, indent=2).replace("\n", "\n  ") + "\n}\n")


def write_trace(path, size, rng):
    with open(path, "w", encoding="ascii") as out:
        written, n = 0, 0
        while written < size:
            line = json.dumps(span(rng, n), separators=(",", ":")) + "\n"
            out.write(line)
            written += len(line)
            n += 1


def write_wide(path, size, rng):
    with open(path, "w", encoding="ascii") as out:
        out.write("{")
        written, n = 0, 0
        while written < size - 256:
            part = f'"k{n:07d}":' + json.dumps(wide_value(rng, n), separators=(",", ":")) + ","
            out.write(part)
            written += len(part)
            n += 1
        out.write('"meta":' + json.dumps({"count": n, "id": "meta"}, separators=(",", ":")) + "}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="100M")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "data"))
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args()
    size = size_arg(args.size)
    os.makedirs(args.out, exist_ok=True)
    for name, ext, write in (("issues", "json", write_issues), ("trace", "ndjson", write_trace),
                             ("wide", "json", write_wide)):
        path = os.path.join(args.out, f"{name}-{args.size}.{ext}")
        if os.path.exists(path) and not args.force:
            continue
        write(path + ".part", size, random.Random(f"{name}-{size}"))
        os.replace(path + ".part", path)
        print(f"{path} {os.path.getsize(path)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
