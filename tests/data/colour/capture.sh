#!/bin/sh
# Regenerates the captured coloured tool outputs in this directory (see README.md here).
# Needs cargo, python3 with pytest, and npm; pip needs network access to PyPI.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# cargo: a crate with one type error and one warning, colour forced through a pipe.
mkdir -p "$work/badcrate/src"
printf '[package]\nname = "badcrate"\nversion = "0.1.0"\nedition = "2021"\n' > "$work/badcrate/Cargo.toml"
printf 'fn main() {\n    let unused = 1;\n    let n: u32 = "four";\n    println!("{n}");\n}\n' > "$work/badcrate/src/main.rs"
(cd "$work/badcrate" && CARGO_TARGET_DIR="$work/target" cargo build --color always 2>&1 || true) |
    sed "s#$work#/tmp/work#g" > "$here/cargo-build.log"

# pytest: one passing and one failing test, colour forced.
mkdir -p "$work/py"
printf 'def test_ok():\n    assert 1 + 1 == 2\n\ndef test_bad():\n    assert [1, 2, 3] == [1, 2, 4]\n' > "$work/py/test_sample.py"
(cd "$work/py" && python3 -m pytest --color=yes -p no:cacheprovider test_sample.py 2>&1 || true) |
    sed "s#$work#/tmp/work#g" > "$here/pytest.log"

# npm: a missing script, colour forced.
mkdir -p "$work/js"
printf '{"name":"sample","version":"1.0.0"}\n' > "$work/js/package.json"
(cd "$work/js" && npm run nosuch --color=always 2>&1 || true) |
    sed "s#$work#/tmp/work#g; s#in: [^ ]*_logs/[^ ]*#in: /tmp/npm/_logs/debug-0.log#" > "$here/npm-run.log"

# pip: its progress bar (\r frames and colour), which it draws only on a terminal.
(cd "$work" && script -qec "pip download --no-deps --progress-bar on -d $work/pip botocore==1.35.0" /dev/null 2>&1 || true) |
    sed "s#$work#/tmp/work#g" > "$here/pip-download.log"
