#!/usr/bin/env bash
# Runs tests/s3.rs against a real S3 protocol server: moto's server mode, pinned, installed
# into a virtual environment under ~/.cache/spill-s3 and started on 127.0.0.1 on a free port.
# tests/s3/setup.py makes the bucket and the users, then turns IAM enforcement on. Usage: bash tests/s3/run.sh [cargo test args]
set -euo pipefail
cd "$(dirname "$0")/../.."

MOTO_VERSION=5.2.5
cache="${SPILL_S3_VENV:-$HOME/.cache/spill-s3}"
venv="$cache/venv"
if [ "$(cat "$venv/moto-version" 2>/dev/null)" != "$MOTO_VERSION" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION"
    echo "$MOTO_VERSION" >"$venv/moto-version"
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp)
"$venv/bin/moto_server" -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
moto=$!
trap 'kill "$moto" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
    if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; then
        break
    fi
    sleep 0.2
done

export SPILL_TEST_S3_ENDPOINT="http://127.0.0.1:$port"
export SPILL_TEST_S3_PYTHON="$venv/bin/python"
eval "$("$venv/bin/python" tests/s3/setup.py "$SPILL_TEST_S3_ENDPOINT")"
cargo test --locked --features s3 --test s3 "$@"
