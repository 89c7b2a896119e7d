#!/usr/bin/env bash
# Coverage-guided fuzzing of keyroute with cargo-fuzz (libFuzzer); the targets are in fuzz/.
#
#   scripts/fuzz.sh smoke            each target for FUZZ_SMOKE_SECONDS (15) seconds, from the
#                                    seeds only (a fresh corpus, so the time stays bounded)
#   scripts/fuzz.sh long [SECONDS]   each target for SECONDS (600) or FUZZ_MAX_RUNS (10 million)
#                                    executions, whichever comes first, growing fuzz/corpus/
#   scripts/fuzz.sh regressions      only the committed reproducers (fuzz/regressions/<target>/)
#   scripts/fuzz.sh seed             only write the seed corpora
#
# FUZZ_TARGETS="spec c_abi" fuzzes only those targets (default: every target, in TARGETS order).
# FUZZ_JOBS=N fuzzes N targets at once (default 1: the machine is shared); FUZZ_NICE=N runs
# them at that niceness (default 0), so a long run can share the machine with other work.
# Installs what it needs, idempotently: the pinned nightly (scripts/nightly.sh; cargo-fuzz's sanitizer and
# coverage flags are nightly-only) and cargo-fuzz itself. Builds the C ABI's library for the
# c_abi target (`cargo build -p keyroute-ffi`), seeds fuzz/corpus/spec/ from the conformance
# vectors, runs every committed reproducer once, then fuzzes each target in turn. Prints, per target, the executions, executions per second and
# crashes found, and exits non-zero when any target crashed (the input is then under
# fuzz/artifacts/<target>/; minimise it with `cargo +$NIGHTLY fuzz tmin <target> <input>` run
# from fuzz/, and commit the result under fuzz/regressions/<target>/).
#
# c_abi is built with AddressSanitizer (and LeakSanitizer) into fuzz/target/asan; the other
# targets, pure safe Rust over the core, without a sanitizer (twice the executions) into
# fuzz/target. Both builds keep debug assertions and overflow checks on.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/nightly.sh
ROOT=$PWD
FUZZ=$ROOT/fuzz
CARGO_FUZZ_VERSION=0.13.2
ALL_TARGETS=(spec differential transition c_abi cli_lines cli_adapter)
if [ -n "${FUZZ_TARGETS:-}" ]; then
  read -r -a TARGETS <<<"$FUZZ_TARGETS"
  for t in "${TARGETS[@]}"; do
    [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { echo "fuzz.sh: no fuzz target '$t' (${ALL_TARGETS[*]})" >&2; exit 2; }
  done
else
  TARGETS=("${ALL_TARGETS[@]}")
fi
MODE=${1:-smoke}

usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

case $MODE in
  smoke) SECONDS_PER_TARGET=${FUZZ_SMOKE_SECONDS:-15}; MAX_RUNS=-1 ;;
  long) SECONDS_PER_TARGET=${2:-600}; MAX_RUNS=${FUZZ_MAX_RUNS:-10000000} ;;
  regressions | seed) SECONDS_PER_TARGET=0; MAX_RUNS=-1 ;;
  -h | --help | help) usage ;;
  *) echo "fuzz.sh: unknown mode '$MODE'" >&2; usage ;;
esac
[[ $SECONDS_PER_TARGET =~ ^[0-9]+$ ]] || { echo "fuzz.sh: SECONDS must be a whole number" >&2; exit 2; }

# Per-target build options: the same for `build` and `run`, so a run never rebuilds.
build_opts() {
  case $1 in
    c_abi) echo "--sanitizer address --target-dir $FUZZ/target/asan" ;;
    *) echo "--sanitizer none --features cli" ;;
  esac
}

# Per-target libFuzzer options. The inputs stay small: spec and c_abi slowed to 1,600-2,700
# executions a second once their corpora held inputs of several KB (a spec of 2 KiB still
# reaches every field, limit and algorithm; a long key or spec costs a thousand short ones),
# and the CLI's readers run under limits of at most 64 bytes a line, so 4 KiB crosses them
# many times over.
run_opts() {
  case $1 in
    spec) echo "-dict=$FUZZ/dict/spec.dict -max_len=2048" ;;
    c_abi) echo "-max_len=1024" ;;
    cli_lines | cli_adapter) echo "-max_len=4096" ;;
    *) echo "" ;;
  esac
}

# Writes the spec target's seeds into directory $1: each vector file's spec, and each case's
# own spec (error cases) or raw spec text.
seed() {
  echo "fuzz.sh: seeding ${1#"$ROOT"/} from conformance/vectors"
  mkdir -p "$1"
  python3 - "$ROOT/conformance/vectors" "$1" <<'PY'
import json, os, pathlib, re, sys

vectors, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
written = 0

def write(name, text):
    global written
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)
    (out / f"{safe}.json").write_text(text)
    written += 1

for path in sorted(vectors.rglob("*.json")):
    if "schema" in path.parts:
        continue
    doc = json.loads(path.read_text())
    if not isinstance(doc, dict):
        continue
    fid = doc.get("id", path.stem)
    if "spec" in doc:
        write(f"vec-{fid}", json.dumps(doc["spec"], ensure_ascii=False, separators=(",", ":")))
    for case in doc.get("cases", []):
        # A case's own spec (error cases, keys routed through a small spec) or raw text.
        if "spec_json" in case:
            write(f"case-{fid}-{case.get('id', '')}", case["spec_json"])
        elif "spec" in case:
            write(f"case-{fid}-{case.get('id', '')}", json.dumps(case["spec"], ensure_ascii=False))
print(f"fuzz.sh: {written} seeds")
PY
}

ensure_tools() {
  ensure_nightly
  if [[ $(cargo fuzz --version 2>/dev/null) != "cargo-fuzz $CARGO_FUZZ_VERSION"* ]]; then
    echo "fuzz.sh: installing cargo-fuzz $CARGO_FUZZ_VERSION"
    cargo install cargo-fuzz --version "=$CARGO_FUZZ_VERSION" --locked
  fi
}

build() {
  echo "fuzz.sh: cargo build -p keyroute-ffi (the C ABI's library, for c_abi)"
  cargo build -p keyroute-ffi --quiet
  # Two builds, each of every target in one cargo run (fewer rebuilds if sources change
  # meanwhile): without a sanitizer, and c_abi's with AddressSanitizer.
  echo "fuzz.sh: building the fuzz targets"
  # shellcheck disable=SC2046
  (cd "$FUZZ" && cargo "+$NIGHTLY" fuzz build $(build_opts spec))
  # shellcheck disable=SC2046
  (cd "$FUZZ" && cargo "+$NIGHTLY" fuzz build $(build_opts c_abi) c_abi)
}

# Runs each committed reproducer of a target once.
regressions() {
  local t=$1 dir=$FUZZ/regressions/$1
  [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] || return 0
  echo "fuzz.sh: $t: running $(find "$dir" -type f | wc -l) committed reproducer(s)"
  # Files (not the directory) as arguments: libFuzzer runs each once and writes nothing.
  # shellcheck disable=SC2046
  if ! (cd "$FUZZ" && cargo "+$NIGHTLY" fuzz run $(build_opts "$t") "$t" "$dir"/* -- -runs=1) \
        >"$LOGS/$t.regressions.log" 2>&1; then
    echo "fuzz.sh: $t: a committed reproducer FAILS (log: $LOGS/$t.regressions.log)"
    tail -n 30 "$LOGS/$t.regressions.log"
    FAILED+=("$t (regressions)")
  fi
}

# Fuzzes one target; appends its summary line.
fuzz_one() {
  local t=$1 log=$LOGS/$1.log before after crashes rc=0 execs rate corpus=$FUZZ/corpus/$1
  if [ "$MODE" = smoke ]; then
    corpus=$FUZZ/corpus/smoke/$t
    rm -rf "$corpus"
    if [ "$t" = spec ]; then seed "$corpus" >/dev/null; fi
  fi
  mkdir -p "$FUZZ/artifacts/$t" "$corpus"
  before=$(find "$FUZZ/artifacts/$t" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l)
  echo "fuzz.sh: $t: fuzzing for ${SECONDS_PER_TARGET}s (log: $log)"
  # shellcheck disable=SC2046
  (cd "$FUZZ" && nice -n "${FUZZ_NICE:-0}" cargo "+$NIGHTLY" fuzz run $(build_opts "$t") "$t" "$corpus" -- \
    -max_total_time="$SECONDS_PER_TARGET" -runs="$MAX_RUNS" -timeout=25 -rss_limit_mb=4096 \
    -print_final_stats=1 $(run_opts "$t")) >"$log" 2>&1 || rc=$?
  after=$(find "$FUZZ/artifacts/$t" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l)
  crashes=$((after - before))
  if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then
    crashes="?"  # the run failed without an artifact (a build error, say)
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  printf '%-13s %12s %10s %8s\n' "$t" "${execs:-?}" "${rate:-?}" "$crashes" >"$LOGS/$t.summary"
  echo "fuzz.sh: $t: ${execs:-?} executions, ${rate:-?}/s, $crashes crash(es)"
  if [ "$rc" -ne 0 ] || [ "$crashes" != 0 ]; then
    echo "fuzz.sh: $t: FAILED (exit $rc); the end of its log:"
    grep -m 20 -E 'panicked at|ERROR: |SUMMARY|Failing input|Test unit written|^error' "$log" || true
    tail -n 15 "$log"
    return 1
  fi
}

if [ "$MODE" = seed ]; then
  seed "$FUZZ/corpus/spec"
  exit 0
fi

START=$(date +%s)
ensure_tools
# One folder per mode: a smoke pass (make test) can run beside a long run.
LOGS=$FUZZ/artifacts/logs/$MODE
mkdir -p "$LOGS"
seed "$FUZZ/corpus/spec"
build
FAILED=()
for t in "${TARGETS[@]}"; do
  regressions "$t"
done
if [ "$MODE" != regressions ]; then
  declare -A PIDS=()
  for t in "${TARGETS[@]}"; do
    while (($(jobs -rp | wc -l) >= ${FUZZ_JOBS:-1})); do sleep 1; done
    rm -f "$LOGS/$t.summary"
    fuzz_one "$t" &
    PIDS[$t]=$!
  done
  for t in "${TARGETS[@]}"; do
    wait "${PIDS[$t]}" || FAILED+=("$t")
  done
  echo
  printf '%-13s %12s %10s %8s\n' target execs exec/s crashes
  for t in "${TARGETS[@]}"; do cat "$LOGS/$t.summary" 2>/dev/null || echo "$t: no summary"; done
fi
echo "fuzz.sh: $MODE done in $(($(date +%s) - START))s"
if [ "${#FAILED[@]}" -ne 0 ]; then
  echo "fuzz.sh: FAILED: ${FAILED[*]}" >&2
  exit 1
fi
