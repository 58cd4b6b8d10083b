#!/usr/bin/env bash
# Runs cargo-fuzz targets for a while each: fuzz/run.sh TARGET|all SECONDS [RUNS]
#
# Each target stops after SECONDS of wall time or, when RUNS is given, after RUNS executions,
# whichever comes first (`fuzz/run.sh all 7200 10000000` for the 10-million goal).
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`). Each run starts
# from the committed minimal corpus (tests/fuzz-cases/TARGET) plus the working corpus
# (fuzz/corpus/TARGET, not committed), prints libFuzzer's final stats line and appends a line to
# fuzz/runs.log: date, target, seconds, executions, crashes. Crash inputs land in
# fuzz/artifacts/TARGET/; make each one a regression case in tests/fuzz-cases/TARGET/.
set -euo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: fuzz/run.sh TARGET|all SECONDS [RUNS]" >&2
    exit 2
fi
target=$1
seconds=$2
runs_flag=()
[[ $# -ge 3 ]] && runs_flag=(-runs="$3")
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root"

if [[ $target == all ]]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
else
    targets=("$target")
fi

# FUZZ_NO_TRACE_COMPARES=1 builds without libFuzzer's comparison tracing (its own target
# directory): 2-3x the executions per second on the slow targets, with coarser guidance.
ntc_flag=()
ntc_dir=""
if [[ ${FUZZ_NO_TRACE_COMPARES:-} == 1 ]]; then
    ntc_flag=(--no-trace-compares)
    ntc_dir=-ntc
fi

# Safe-code targets run without AddressSanitizer (several times more executions per second);
# the JSON engine uses unsafe SIMD code, so its targets keep it. FUZZ_SANITIZER overrides.
sanitizer_for() {
    case $1 in
        json_*) echo "${FUZZ_SANITIZER:-address}" ;;
        *) echo "${FUZZ_SANITIZER:-none}" ;;
    esac
}

for t in "${targets[@]}"; do
    san=$(sanitizer_for "$t")
    # One target directory per sanitizer, so switching does not rebuild everything.
    dir_flag=()
    [[ $san == address && -z $ntc_dir ]] || dir_flag=(--target-dir "fuzz/target-$san$ntc_dir")
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t" "tests/fuzz-cases/$t"
    log="fuzz/artifacts/$t/last-run.log"
    status=0
    started=$(date +%s)
    # One process per target (run several scripts for parallelism): -jobs would make libFuzzer
    # write fuzz-N.log files into the working directory, where concurrent runs collide.
    # The targets stretch short inputs themselves (filler, repetition) where size matters.
    cargo +nightly fuzz run -s "$san" "${ntc_flag[@]}" "${dir_flag[@]}" "$t" "fuzz/corpus/$t" "tests/fuzz-cases/$t" -- \
        -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 "${runs_flag[@]}" >"$log" 2>&1 || status=$?
    execs=$(awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}' "$log")
    crashes=$(find "fuzz/artifacts/$t" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
    line="$(date -u +%FT%TZ) $t limit=${seconds}s elapsed=$(($(date +%s) - started))s sanitizer=$san${ntc_dir:+ no-trace-compares} executions=$execs crashes=$crashes exit=$status"
    echo "$line"
    echo "$line" >>fuzz/runs.log
done
