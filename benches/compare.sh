#!/usr/bin/env bash
# benches/compare.sh — times spill beside its anchors (cat, jq, jaq, rq, rg) on generated data and
# prints medians, ratios (spill / anchor), peak RSS and spill's peak heap.
#
#   benches/compare.sh [--size 1M|100M|1G] [--rounds N] [--only REGEX] [--skip NAMES] [--static] [--smoke]
#
#   --size    data size (default 100M); files go to benches/data/ (gitignored)
#   --rounds  alternations of each workload (default 3; 1 for the slow jq/jaq workloads at 1G)
#   --only    run only workloads whose name matches this extended regex
#   --skip    leave out these anchors (comma-separated names, e.g. jq,jaq: minutes each on 1G)
#   rq is rsonpath's binary (`cargo install rsonpath`), the SIMD JSONPath engine, timed on the
#   extract workloads it supports; where it is missing its column is left out (--smoke never
#   needs or installs it)
#   --static  also time a statically linked (musl) build for the 1 KiB wrap workload
#   --smoke   1M data, each command run once, no hyperfine/jq/jaq needed or installed;
#             exits 1 if any spill command fails (for CI)
#   SPILL_BIN=PATH in the environment times that binary instead of this tree's release build
#   SPILL_BASE=PATH also times that binary (say, the release build of an older commit) as "base"
#             in every workload it supports, in the same hyperfine invocations: the table gains
#             a "base / anchor" column and each base row gives spill / base (before/after tables
#             from one sitting)
#   The s3 workloads (last; never with --smoke) need python3: moto and awscli, pinned, go into a
#   venv under ~/.cache/spill-bench-s3, and spill is built with --features s3 into s3/ of the target directory
#   unless $SPILL (or SPILL_S3_BIN=PATH) already supports s3:// stores
#
# Each workload runs spill and its anchors in the same hyperfine invocation, and the whole
# invocation is repeated --rounds times so that spill and the anchor alternate through the
# session; the median is over all runs of all rounds. The machine may be shared: ratios from
# alternated runs are more trustworthy than absolute times.
set -euo pipefail

SIZE=100M
ROUNDS=""
ONLY=""
SKIP=""
SMOKE=0
STATIC=0
while [ $# -gt 0 ]; do
    case "$1" in
    --size) SIZE=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --skip) SKIP=,$2,; shift 2 ;;
    --static) STATIC=1; shift ;;
    --smoke) SMOKE=1; SIZE=1M; shift ;;
    -h | --help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "compare.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=$ROOT/benches/data
WORK=$DATA/work-$SIZE
OUT=$DATA/results-$SIZE
mkdir -p "$DATA" "$WORK" "$OUT"
cd "$ROOT"

say() { printf '%s\n' "$*" >&2; }

# ---- tools ---------------------------------------------------------------------------------
have() { command -v "$1" >/dev/null 2>&1; }
apt_ready=0
apt_install() {
    # Debian packages, installed only when missing (root on the benchmark machines).
    if [ $apt_ready = 0 ]; then apt-get update -qq >&2 && apt_ready=1; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}
if [ $SMOKE = 0 ]; then
    have hyperfine || apt_install hyperfine
    have jq || apt_install jq
    have rg || apt_install ripgrep
    [ -x /usr/bin/time ] || apt_install time
    have jaq || cargo install jaq --locked >&2 || say "warning: jaq could not be installed; its columns stay empty"
    have rq || nice cargo install rsonpath --locked >&2 || say "warning: rq (rsonpath) could not be installed; its columns stay empty"
    export PATH="$HOME/.cargo/bin:$PATH"
fi

# ---- build and data ------------------------------------------------------------------------
# Smoke runs reuse the test profile's build (CI has it already); timings need release.
if [ $SMOKE = 1 ]; then profile=dev bin=debug; else profile=release bin=release; fi
say "building spill ($profile) and the data generator…"
cargo build --profile $profile --quiet --bin spill --example gen >&2
# SPILL_BIN times another build (say, a branch's) with this script and data.
# cargo's target directory: target/ unless CARGO_TARGET_DIR (or a cargo config) moves it.
TARGET=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
SPILL=${SPILL_BIN:-$TARGET/$bin/spill}
SPILL_STATIC=""
if [ $STATIC = 1 ]; then
    # The static build is musl's: glibc's start-up (static or dynamic) walks the CPU's cache
    # descriptors with many `cpuid` instructions, each a hypervisor exit in a VM, ~0.3 ms per
    # process here; musl does none of that (README, "Static build").
    musl=x86_64-unknown-linux-musl
    if rustup target list --installed 2>/dev/null | grep -qx $musl || rustup target add $musl >&2; then
        cargo build --release --quiet --bin spill --target $musl --target-dir "$TARGET/static" >&2
        SPILL_STATIC=$TARGET/static/$musl/release/spill
    else
        say "warning: no musl target; the static build is glibc's (+crt-static), which starts slower"
        triple=$(rustc -vV | sed -n 's/^host: //p')
        RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --quiet --bin spill \
            --target "$triple" --target-dir "$TARGET/static" >&2
        SPILL_STATIC=$TARGET/static/$triple/release/spill
    fi
fi
"$TARGET/$bin/examples/gen" --size "$SIZE" --out "$DATA" >&2
# Held-out shapes from another program and serializer (benches/holdout.py): read, never tuned
# against. The smoke run makes them too (1 MB, a second), so CI runs every command on them.
HOLDOUT=0
if have python3; then
    python3 benches/holdout.py --size "$SIZE" --out "$DATA" >&2 && HOLDOUT=1
else
    say "warning: no python3; the held-out shapes (benches/holdout.py) are left out"
fi
API=$DATA/api-$SIZE.json
EVENTS=$DATA/events-$SIZE.json
NDJSON=$DATA/log-$SIZE.ndjson
BUILD=$DATA/build-$SIZE.log
SMALL=$WORK/1k.txt
head -c 1024 "$BUILD" >"$SMALL"
STORE=$WORK/store
COPY=$WORK/copy
# Store everything: the anchor writes the whole file, so spill must too (no --max-file cap).
STORE_ARGS="--dir $STORE --quota 64G --max-file 64G"

# ---- what spill supports now -------------------------------------------------------------
supports() { "$SPILL" help 2>/dev/null | grep -qE "^  $1 "; }
flag() { "$SPILL" "$1" --help 2>/dev/null | grep -q -- "$2"; }

# ---- measuring ----------------------------------------------------------------------------
SUMMARY=$OUT/summary.tsv
: >"$SUMMARY"
FAILED=0

# Peak RSS (KiB) of a shell command and all its children, from /usr/bin/time -v.
peak_rss() {
    /usr/bin/time -v bash -c "$1" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p' | tail -1
}

# Peak RssAnon (KiB) of the spill processes a command starts, sampled every few milliseconds
# (heap and other anonymous memory, without the mapped file pages that RSS counts).
peak_heap() {
    bash -c "$1" >/dev/null 2>&1 &
    local pid=$! peak=0 p v k
    while kill -0 "$pid" 2>/dev/null; do
        for p in $pid $(pgrep -P "$pid" 2>/dev/null); do
            [ "$(cat /proc/"$p"/comm 2>/dev/null)" = spill ] || continue
            while read -r k v _; do
                if [ "$k" = RssAnon: ] && [ "$v" -gt "$peak" ]; then peak=$v; fi
            done <"/proc/$p/status" 2>/dev/null || true
        done
        sleep 0.002
    done
    wait "$pid" || true
    echo "$peak"
}

# The median in seconds of every run of command $2 in the hyperfine exports $1/round-*.json.
median() {
    jq -s --argjson i "$2" '[.[].results[$i].times[]] | sort
        | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end' "$1"/round-*.json
}

fmt_time() { awk -v s="$1" 'BEGIN { if (s < 1) printf "%.1f ms", s * 1000; else printf "%.2f s", s }'; }
fmt_kib() { awk -v k="$1" 'BEGIN { if (k == "" || k == 0) print "–"; else if (k < 10240) printf "%.1f MiB", k / 1024; else printf "%.0f MiB", k / 1024 }'; }

# Whether $SPILL_BASE has the subcommand a spill command line runs ("$SPILL hook codex < …" asks
# `hook codex --help`; a second word that is a path, a variable or a flag is not a subcommand).
base_supports() {
    local rest=${1#*"$SPILL" } sub sub2
    read -r sub sub2 _ <<<"$rest"
    case "$sub2" in /* | -* | \$* | \<* | \>* | \|* | "") sub2="" ;; esac
    "$SPILL_BASE" "$sub" $sub2 --help >/dev/null 2>&1
}

# workload NAME RUNS SPILL_CMD [PREPARE] -- ANCHOR_NAME ANCHOR_CMD ...
# The anchors that need a missing tool are left out.
workload() {
    local name=$1 runs=$2 spill_cmd=$3 prepare=$4
    shift 5
    if [ -n "$ONLY" ] && ! [[ $name =~ $ONLY ]]; then return; fi
    local names=(spill) cmds=("$spill_cmd")
    if [ -n "${SPILL_BASE:-}" ] && base_supports "$spill_cmd"; then
        names+=(base); cmds+=("${spill_cmd//$SPILL/$SPILL_BASE}")
    fi
    while [ $# -gt 0 ]; do
        local tool=${2%% *}
        if have "$tool" && [[ $SKIP != *,$1,* ]]; then names+=("$1"); cmds+=("$2"); fi
        shift 2
    done
    say ""
    say "== $name"
    if [ $SMOKE = 1 ]; then
        # One run of spill (its failure fails the script) and of each anchor that is present.
        [ -n "$prepare" ] && bash -c "$prepare"
        local t0 t1
        t0=$(date +%s%N)
        if bash -c "$spill_cmd" >/dev/null 2>"$OUT/$name.err"; then
            t1=$(date +%s%N)
            say "   spill ok in $(fmt_time "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')"): $spill_cmd"
        else
            say "   FAILED: $spill_cmd"; sed 's/^/     /' "$OUT/$name.err" >&2
            FAILED=1
        fi
        return
    fi
    # Without jq or jaq in the run, a "slow" workload is an ordinary one.
    if [ "$runs" = slow ] && [[ " ${names[*]} " != *" jq "* ]] && [[ " ${names[*]} " != *" jaq "* ]]; then runs=3; fi
    local dir=$OUT/$name rounds=${ROUNDS:-3}
    rm -rf "$dir"; mkdir -p "$dir"
    # jq and jaq take tens of seconds on 1 GB: one alternation is enough there.
    if [ -z "$ROUNDS" ] && [ "$runs" = slow ]; then rounds=$([ "$SIZE" = 1G ] && echo 1 || echo 3); fi
    local warmup=1
    # The inputs are in the page cache already; a warm-up of jq on 1 GB would only cost time.
    if [ "$runs" = slow ]; then runs=1 warmup=0; fi
    local args=(--style none --warmup "$warmup" --runs "$runs")
    # Workloads beside rq write their output to a file, for every command alike.
    [ -n "${TO_FILE:-}" ] && args+=(--output "$WORK/$name.out")
    [ -n "$prepare" ] && args+=(--prepare "$prepare")
    # Without pipes or redirections, run without a shell: less noise on millisecond workloads.
    [[ "${cmds[*]}" != *[\|\<\>]* ]] && args+=(-N)
    local r
    for r in $(seq 1 "$rounds"); do
        if ! hyperfine "${args[@]}" --export-json "$dir/round-$r.json" "${cmds[@]}" >"$dir/hyperfine-$r.log" 2>&1; then
            say "   FAILED (see $dir/hyperfine-$r.log)"; tail -5 "$dir/hyperfine-$r.log" >&2
            printf '%s\tFAILED\n' "$name" >>"$SUMMARY"
            FAILED=1
            return
        fi
    done
    local i spill_median base_median=""
    spill_median=$(median "$dir" 0)
    [ "${names[1]:-}" = base ] && base_median=$(median "$dir" 1)
    for i in "${!cmds[@]}"; do
        local m rss heap="" ratio="" base_ratio=""
        m=$(median "$dir" "$i")
        if [ -n "$base_median" ] && [ "$i" -gt 1 ]; then
            base_ratio=$(awk -v a="$base_median" -v b="$m" 'BEGIN { printf "%.3f", a / b }')
        fi
        [ -n "$prepare" ] && bash -c "$prepare"
        rss=$(peak_rss "${cmds[$i]}")
        if [ "$i" = 0 ]; then
            [ -n "$prepare" ] && bash -c "$prepare"
            heap=$(peak_heap "${cmds[$i]}")
        else
            ratio=$(awk -v a="$spill_median" -v b="$m" 'BEGIN { printf "%.3f", a / b }')
        fi
        # "-" for empty fields: read would merge adjacent tabs.
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${names[$i]}" "$m" "${ratio:--}" "${rss:--}" "${heap:--}" "${base_ratio:--}" >>"$SUMMARY"
        say "   ${names[$i]}: $(fmt_time "$m")${ratio:+  (spill/${names[$i]} = $ratio)}${base_ratio:+  (base/${names[$i]} = $base_ratio)}  rss $(fmt_kib "$rss")${heap:+  heap $(fmt_kib "$heap")}"
    done
}

# ---- workloads ------------------------------------------------------------------------------
# Hot cache: read every input once.
cat "$API" "$EVENTS" "$NDJSON" "$BUILD" "$DATA/graph-$SIZE.json" "$DATA/strings-$SIZE.json" >/dev/null
[ $HOLDOUT = 1 ] && cat "$DATA/issues-$SIZE.json" "$DATA/trace-$SIZE.ndjson" "$DATA/wide-$SIZE.json" >/dev/null

# 200 calls per timed run: hyperfine's correction for the shell's own start-up is as large as
# a whole call and, on a busy machine, noisy enough to swamp it. The ratio is per call all the same.
calls() { echo "for i in \$(seq 200); do $1 < $SMALL > /dev/null; done"; }
workload wrap-1k-x200 5 "$(calls "$SPILL wrap")" "" -- \
    cat "$(calls cat)"
if [ -n "$SPILL_STATIC" ]; then
    workload wrap-1k-x200-static 5 "$(calls "$SPILL_STATIC wrap")" "" -- \
        cat "$(calls cat)"
fi
# The cost of a Claude Code PreToolUse hook call (`spill hook claude-code`: parse the input,
# read the settings and Claude Code's command line, answer with the rewritten command).
if supports hook; then
    HOOK_INPUT=$WORK/hook-pre-tool-use.json
    printf '%s\n' '{"session_id":"9c248b37-6480-4724-8b4a-4b4f84959f63","prompt_id":"774c2c40","cwd":"/tmp","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cargo test --locked","description":"Run the tests"},"tool_use_id":"toolu_1"}' >"$HOOK_INPUT"
    hook_env="CLAUDE_PID=$$ CLAUDE_CODE_ENTRYPOINT=sdk-cli HOME=$WORK"
    mkdir -p "$WORK/.claude" && printf '%s\n' '{"permissions":{"allow":["Bash"]}}' >"$WORK/.claude/settings.json"
    workload hook-claude-x200 5 "for i in \$(seq 200); do $hook_env $SPILL hook claude-code < $HOOK_INPUT > /dev/null; done" "" -- \
        cat "for i in \$(seq 200); do cat < $HOOK_INPUT > /dev/null; done"
    # The same for Codex (reads the exec-policy rules) and opencode (reads opencode.json).
    CODEX_INPUT=$WORK/hook-codex.json
    printf '%s\n' '{"session_id":"01a2315c-8f68-79e3-bc22-bbb7cfe0a188","turn_id":"t1","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cargo test --locked"},"tool_use_id":"call_1"}' >"$CODEX_INPUT"
    mkdir -p "$WORK/.codex/rules" && printf '%s\n' 'prefix_rule(pattern = ["git", "push"], decision = "forbidden")' >"$WORK/.codex/rules/default.rules"
    workload hook-codex-x200 5 "for i in \$(seq 200); do HOME=$WORK $SPILL hook codex < $CODEX_INPUT > /dev/null; done" "" -- \
        cat "for i in \$(seq 200); do cat < $CODEX_INPUT > /dev/null; done"
    OPENCODE_INPUT=$WORK/hook-opencode.json
    printf '%s\n' '{"hook_event_name":"tool.execute.before","session_id":"ses_1","tool":"bash","cwd":"/tmp","args":{"command":"cargo test --locked","description":"d"}}' >"$OPENCODE_INPUT"
    workload hook-opencode-x200 5 "for i in \$(seq 200); do HOME=$WORK $SPILL hook opencode < $OPENCODE_INPUT > /dev/null; done" "" -- \
        cat "for i in \$(seq 200); do cat < $OPENCODE_INPUT > /dev/null; done"
else say "(hook: not in this build yet)"; fi
workload wrap-text 3 "cat $BUILD | $SPILL wrap $STORE_ARGS > /dev/null" "rm -rf $STORE $COPY" -- \
    "cat>file" "cat $BUILD | cat > $COPY"
# The cost of --redact: the same text redacted (a regex pass over every byte, chunked).
workload wrap-text-redact 3 "cat $BUILD | $SPILL wrap --redact $STORE_ARGS > /dev/null" "rm -rf $STORE $COPY" -- \
    "cat>file" "cat $BUILD | cat > $COPY" \
    "wrap" "cat $BUILD | $SPILL wrap $STORE_ARGS > /dev/null"
workload wrap-json 3 "cat $API | $SPILL wrap $STORE_ARGS > /dev/null" "rm -rf $STORE $COPY" -- \
    "cat>file" "cat $API | cat > $COPY"
rm -rf "$STORE" "$COPY"

if supports shape; then
    workload shape slow "$SPILL shape $API" "" -- \
        jq "jq -c '[paths]|length' $API" \
        jaq "jaq -c '[paths]|length' $API" \
        cat "cat $API > /dev/null"
else say "(shape: not in this build yet)"; fi

if supports extract; then
    workload extract-early 10 "$SPILL extract $API '\$.items[5]'" "" -- \
        cat "cat $API > /dev/null"
    workload extract-early-jq slow "$SPILL extract $API '\$.items[5]'" "" -- \
        jq "jq '.items[5]' $API" \
        jaq "jaq '.items[5]' $API"
    TO_FILE=1 workload extract-last slow "$SPILL extract $API '\$.meta'" "" -- \
        rq "rq '\$.meta' $API" \
        jq "jq '.meta' $API" \
        jaq "jaq '.meta' $API"
    workload extract-neg slow "$SPILL extract $EVENTS '\$[-1].id'" "" -- \
        jq "jq '.[-1].id' $EVENTS" \
        jaq "jaq '.[-1].id' $EVENTS" \
        cat "cat $EVENTS > /dev/null"
    # Print every id, like jq does: lift spill's bounds where the flags exist.
    unbounded=""
    flag extract --unbounded && unbounded+=" --unbounded"
    flag extract --compact && unbounded+=" --compact"
    TO_FILE=1 workload extract-wild slow "$SPILL extract $API '\$.items[*].id'$unbounded" "" -- \
        rq "rq '\$.items[*].id' $API" \
        jq "jq -c '[.items[].id]' $API" \
        jaq "jaq -c '[.items[].id]' $API"
    # Descendant segments: every "id" member at any depth, and every value below the root.
    TO_FILE=1 workload extract-desc-id slow "$SPILL extract $API '\$..id'$unbounded" "" -- \
        rq "rq '\$..id' $API" \
        jq "jq -c '[.. | objects | select(has(\"id\")) | .id]' $API" \
        jaq "jaq -c '[.. | objects | select(has(\"id\")) | .id]' $API"
    TO_FILE=1 workload extract-desc-all slow "$SPILL extract $API '\$..*'$unbounded" "" -- \
        rq "rq '\$..*' $API" \
        jq "jq -c '[.. ] | .[1:]' $API" \
        jaq "jaq -c '[.. ] | .[1:]' $API"
    workload extract-filter slow "$SPILL extract $API '\$.items[?@.score > 99.5].id'$unbounded" "" -- \
        jq "jq -c '[.items[] | select(.score > 99.5) | .id]' $API" \
        jaq "jaq -c '[.items[] | select(.score > 99.5) | .id]' $API"
    # The same queries on the two other shapes (a minified graph with ids at three depths, a
    # pretty document of long escaped strings), on the held-out shapes (an issue tracker's pretty
    # REST dump with ids at four depths and \u escapes, one wide minified object:
    # benches/holdout.py), and with the AVX2 path forced (SPILL_SIMD): the ratio to rq must hold
    # on any document and at either vector width.
    docs="graph strings"
    [ $HOLDOUT = 1 ] && docs+=" issues wide"
    for doc in $docs; do
        f=$DATA/$doc-$SIZE.json
        wild='$.items[*].id'
        [ $doc = graph ] && wild='$.data.items[*].id'
        TO_FILE=1 workload extract-last-$doc slow "$SPILL extract $f '\$.meta'" "" -- \
            rq "rq '\$.meta' $f"
        # The wide document is one object of many keys: no array to wildcard.
        [ $doc = wide ] || TO_FILE=1 workload extract-wild-$doc slow "$SPILL extract $f '$wild'$unbounded" "" -- \
            rq "rq '$wild' $f"
        TO_FILE=1 workload extract-desc-id-$doc slow "$SPILL extract $f '\$..id'$unbounded" "" -- \
            rq "rq '\$..id' $f"
        TO_FILE=1 workload extract-desc-all-$doc slow "$SPILL extract $f '\$..*'$unbounded" "" -- \
            rq "rq '\$..*' $f"
    done
    TO_FILE=1 workload extract-last-avx2 slow "env SPILL_SIMD=avx2 $SPILL extract $API '\$.meta'" "" -- \
        rq "rq '\$.meta' $API"
    TO_FILE=1 workload extract-desc-id-avx2 slow "env SPILL_SIMD=avx2 $SPILL extract $API '\$..id'$unbounded" "" -- \
        rq "rq '\$..id' $API"
else say "(extract: not in this build yet)"; fi

if supports search; then
    workload search-count-pretty 10 "$SPILL search $API timeout --count" "" -- \
        rg "rg --count-matches timeout $API"
    workload search-count-line 10 "$SPILL search $EVENTS timeout --count" "" -- \
        rg "rg --count-matches timeout $EVENTS"
    workload search-page-pretty 10 "$SPILL search $API timeout -C 2" "" -- \
        rg "rg -n -C2 timeout $API"
    workload search-page-log 10 "$SPILL search $BUILD error -C 2" "" -- \
        rg "rg -n -C2 error $BUILD"
    if [ $HOLDOUT = 1 ]; then
        for f in "$DATA/issues-$SIZE.json" "$DATA/trace-$SIZE.ndjson" "$DATA/wide-$SIZE.json"; do
            doc=$(basename "${f%%-"$SIZE".*}")
            workload search-count-$doc 10 "$SPILL search $f retry --count" "" -- \
                rg "rg --count-matches retry $f"
        done
        # A page of the one match at the end (the `meta` member), as a reader finds a summary.
        for doc in issues wide; do
            f=$DATA/$doc-$SIZE.json
            workload search-page-$doc 10 "$SPILL search $f '\"meta\"' -C 2" "" -- \
                rg "rg -n -C2 '\"meta\"' $f"
        done
    fi
else say "(search: not in this build yet)"; fi

# ---- the object store (s3://) ---------------------------------------------------------------
# `wrap` of the build log into a bucket of a local moto server against `aws s3 cp -` of it to
# the same server, and `search --count` on the remote entry with a cold cache (downloaded and
# verified each run) and a warm one, against the same search on a local store's entry.
s3_wanted() {
    local n
    for n in s3-wrap-text s3-search-count-cold s3-search-count-warm; do
        if [ -z "$ONLY" ] || [[ $n =~ $ONLY ]]; then return 0; fi
    done
    return 1
}
# (Not a pipeline into grep: under pipefail, spill's own failing status would decide it.)
supports_s3() {
    local out
    out=$(SPILL_S3_ENDPOINT=http://127.0.0.1:1 SPILL_S3_TIMEOUT=1s "$1" ls --store s3://spill-probe/x 2>&1 || true)
    [[ $out != *"built without the \`s3\` feature"* ]]
}
if [ $SMOKE = 0 ] && s3_wanted && have python3; then
    MOTO_VERSION=5.2.5 AWSCLI_VERSION=1.46.2
    s3_venv=$HOME/.cache/spill-bench-s3/venv
    if [ "$(cat "$s3_venv/versions" 2>/dev/null)" != "$MOTO_VERSION $AWSCLI_VERSION" ]; then
        python3 -m venv "$s3_venv" >&2 &&
            "$s3_venv/bin/pip" install --quiet --disable-pip-version-check \
                "moto[server]==$MOTO_VERSION" "awscli==$AWSCLI_VERSION" >&2 &&
            echo "$MOTO_VERSION $AWSCLI_VERSION" >"$s3_venv/versions"
    fi
    S3_SPILL=${SPILL_S3_BIN:-$SPILL}
    if ! supports_s3 "$S3_SPILL"; then
        say "building spill (release, --features s3) into target/s3…"
        cargo build --release --quiet --bin spill --features s3 --target-dir "$TARGET/s3" >&2
        S3_SPILL=$TARGET/s3/release/spill
    fi
    if [ -x "$s3_venv/bin/moto_server" ] && [ -x "$s3_venv/bin/aws" ] && supports_s3 "$S3_SPILL"; then
        s3_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        "$s3_venv/bin/moto_server" -H 127.0.0.1 -p "$s3_port" >"$WORK/moto.log" 2>&1 &
        s3_moto=$!
        trap 'kill $s3_moto 2>/dev/null || true' EXIT
        # moto checks no signature without IAM set up; the AWS variables only satisfy the clients.
        export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_DEFAULT_REGION=us-east-1
        export SPILL_S3_ENDPOINT=http://127.0.0.1:$s3_port SPILL_S3_CACHE=$WORK/s3-cache
        for _ in $(seq 1 100); do
            python3 -c "import socket; socket.create_connection(('127.0.0.1', $s3_port), 1)" 2>/dev/null && break
            sleep 0.2
        done
        AWS="$s3_venv/bin/aws --endpoint-url $SPILL_S3_ENDPOINT"
        $AWS s3 mb s3://spill-bench >/dev/null
        S3_ARGS="--quota 64G --max-file 64G"
        # First prove that a wrap really lands in the bucket (a degraded envelope, "spilled":
        # false, would time a wrap that uploads nothing).
        s3_ref=$($S3_SPILL wrap --store s3://spill-bench/r $S3_ARGS <"$BUILD" | sed -n 's/.*"ref": *"\(sp_[0-9a-f]*\)".*/\1/p' | head -1)
        s3_listing=$($AWS s3 ls --recursive s3://spill-bench/r/ || true)
        if [ -n "$s3_ref" ] && [[ $s3_listing == *"${s3_ref#sp_}"* ]]; then
            workload s3-wrap-text 3 "cat $BUILD | $S3_SPILL wrap --store s3://spill-bench/w $S3_ARGS > /dev/null" \
                "$AWS s3 rm --quiet --recursive s3://spill-bench/w/ >/dev/null; $AWS s3 rm --quiet --recursive s3://spill-bench/cp/ >/dev/null; rm -rf $STORE" -- \
                "aws-s3-cp" "cat $BUILD | $AWS s3 cp - s3://spill-bench/cp/build.log" \
                "wrap-local" "cat $BUILD | $S3_SPILL wrap $STORE_ARGS > /dev/null"
        else
            s3_ref=""
        fi
        # One entry in each store, then the same search on both.
        rm -rf "$STORE" "$WORK/s3-cache"
        $S3_SPILL wrap $STORE_ARGS <"$BUILD" >/dev/null
        if [ -n "$s3_ref" ]; then
            workload s3-search-count-cold 3 "$S3_SPILL search --store s3://spill-bench/r $s3_ref error --count" \
                "rm -rf $WORK/s3-cache" -- \
                "local-store" "$S3_SPILL search $STORE_ARGS $s3_ref error --count"
            workload s3-search-count-warm 10 "$S3_SPILL search --store s3://spill-bench/r $s3_ref error --count" "" -- \
                "local-store" "$S3_SPILL search $STORE_ARGS $s3_ref error --count"
        else
            say "   FAILED: wrap into the object store gave no ref, or its payload is not in the bucket"; FAILED=1
        fi
        kill $s3_moto 2>/dev/null || true
        rm -rf "$WORK/s3-cache" "$STORE"
        unset SPILL_S3_ENDPOINT SPILL_S3_CACHE AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_DEFAULT_REGION
    else
        say "(s3: moto, awscli or a spill with --features s3 is missing; left out)"
    fi
fi

# ---- table ----------------------------------------------------------------------------------
if [ $SMOKE = 1 ]; then
    [ $FAILED = 0 ] && say "smoke: every spill command succeeded" || say "smoke: a spill command failed"
    exit $FAILED
fi
{
    printf '\n%s data, %s, %s cores, %s\n\n' "$SIZE" "$(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -1)" \
        "$(nproc)" "$(date -u '+%Y-%m-%d %H:%M UTC')"
    if [ -n "${SPILL_BASE:-}" ]; then
        printf '| workload | command | median | spill / anchor | base / anchor | peak RSS | spill heap |\n'
        printf '|---|---|---|---|---|---|---|\n'
    else
        printf '| workload | command | median | spill / anchor | peak RSS | spill heap |\n'
        printf '|---|---|---|---|---|---|\n'
    fi
    while IFS=$'\t' read -r name who m ratio rss heap base_ratio; do
        if [ "$who" = FAILED ]; then printf '| %s | FAILED | | | | |\n' "$name"; continue; fi
        [ "$ratio" = - ] && ratio="" || ratio="$ratio×"
        [ "$heap" = - ] && heap="" || heap=$(fmt_kib "$heap")
        if [ -n "${SPILL_BASE:-}" ]; then
            [ "$base_ratio" = - ] && base_ratio="" || base_ratio="$base_ratio×"
            printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$who" "$(fmt_time "$m")" "$ratio" "$base_ratio" "$(fmt_kib "${rss#-}")" "$heap"
        else
            printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$who" "$(fmt_time "$m")" "$ratio" "$(fmt_kib "${rss#-}")" "$heap"
        fi
    done <"$SUMMARY"
} | tee "$OUT/table.md"
exit $FAILED
