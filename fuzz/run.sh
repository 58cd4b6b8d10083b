#!/usr/bin/env bash
# Runs cargo-fuzz targets for a while each: fuzz/run.sh TARGET|all SECONDS [JOBS]
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`). Each run starts
# from the committed minimal corpus (tests/fuzz-cases/TARGET) plus the working corpus
# (fuzz/corpus/TARGET, not committed), prints libFuzzer's final stats line and appends a line to
# fuzz/runs.log: date, target, seconds, executions, crashes. Crash inputs land in
# fuzz/artifacts/TARGET/; make each one a regression case in tests/fuzz-cases/TARGET/.
set -euo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: fuzz/run.sh TARGET|all SECONDS [JOBS]" >&2
    exit 2
fi
target=$1
seconds=$2
jobs=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root"

if [[ $target == all ]]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
else
    targets=("$target")
fi

for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t" "tests/fuzz-cases/$t"
    log="fuzz/artifacts/$t/last-run.log"
    status=0
    # -max_len 65536 lets inputs cross the redactor's held-back window and the preview's buffers.
    cargo +nightly fuzz run "$t" "fuzz/corpus/$t" "tests/fuzz-cases/$t" -- \
        -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -jobs="$jobs" -workers="$jobs" -print_final_stats=1 \
        -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1 || status=$?
    # With -jobs, libFuzzer writes one fuzz-N.log per worker.
    execs=$(cat "$log" fuzz-[0-9]*.log 2>/dev/null | awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}')
    crashes=$(find "fuzz/artifacts/$t" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
    rm -f fuzz-[0-9]*.log
    line="$(date -u +%FT%TZ) $t ${seconds}s executions=$execs crashes=$crashes exit=$status"
    echo "$line"
    echo "$line" >>fuzz/runs.log
done
