#!/usr/bin/env bash
# The reference Java adapter (conformance/PROTOCOL.md) under `keyroute conformance --exec`, for
# CI and for people (idempotent; Debian 12, run as root):
#
#   1. installs what it needs with apt when missing (a JDK, Debian's spymemcached and Guava);
#   2. compiles Adapter.java (javac -Xlint:all -Werror) and builds the keyroute command;
#   3. runs every spymemcached and Guava vector file through the adapter, which drives the real
#      KetamaNodeLocator and Hashing.consistentHash: every case must match (exit 0), and the
#      JUnit report must name a suite per file;
#   4. runs them again with --latin1 (a deliberate bug: key bytes read as Latin-1 text): the run
#      must fail with status 1 and the key-encoding hint, and name no other hint.
#
# Closes with "java adapter: N passed, M failed" (steps); exits non-zero if any step failed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH" CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$ROOT/build/conformance-java-adapter"

steps_passed=0
steps_failed=0
pass() { steps_passed=$((steps_passed + 1)); echo "ok: $1"; }
fail() { steps_failed=$((steps_failed + 1)); echo "FAILED: $1" >&2; }

# ---------------------------------------------------------------- 1. system packages
need=(libspymemcached-java libguava-java)
command -v javac >/dev/null && command -v java >/dev/null || need+=(default-jdk-headless)
apt_install "${need[@]}"

# ---------------------------------------------------------------- 2. build
rm -rf "$OUT"
mkdir -p "$OUT/classes"
JARS="/usr/share/java/spymemcached.jar:/usr/share/java/guava.jar"
javac -Xlint:all -Werror -d "$OUT/classes" -cp "$JARS" "$HERE/Adapter.java"
cargo build -p keyroute-cli --locked
KEYROUTE="$TARGET_DIR/debug/keyroute"
ADAPTER="java -cp '$JARS:$OUT/classes' Adapter"
FILTER=(--preset spymemcached --preset guava)

# ---------------------------------------------------------------- 3. the adapter passes
status=0
"$KEYROUTE" conformance --exec "$ADAPTER" "${FILTER[@]}" --junit "$OUT/report.xml" >"$OUT/good.txt" 2>&1 || status=$?
cat "$OUT/good.txt"
files="$(find "$ROOT/conformance/vectors/v1" -maxdepth 1 \( -name 'spymemcached-*.json' -o -name 'guava-*.json' \) | wc -l)"
suites="$(grep -c '<testsuite ' "$OUT/report.xml" || true)"
if [ "$status" -eq 0 ] && grep -q ' 0 failed' "$OUT/good.txt" && [ "$files" -gt 20 ] && [ "$suites" -eq "$files" ]; then
  pass "the reference adapter matches every case of the $files spymemcached and Guava vector files (JUnit: $suites suites)"
else
  fail "the reference adapter: status $status, $suites JUnit suites for $files files (see above)"
fi

# ---------------------------------------------------------------- 4. the Latin-1 variant fails, with its hint
status=0
"$KEYROUTE" conformance --exec "$ADAPTER --latin1" "${FILTER[@]}" >"$OUT/latin1.txt" 2>&1 || status=$?
grep -E '^(hint|[0-9]+ files)' "$OUT/latin1.txt" || true
hints="$(grep -c '^hint' "$OUT/latin1.txt" || true)"
if [ "$status" -eq 1 ] && grep -q '^hint (key-encoding): ' "$OUT/latin1.txt" && [ "$hints" -eq 1 ]; then
  pass "the Latin-1 variant fails with status 1 and only the key-encoding hint"
else
  fail "the Latin-1 variant: status $status (want 1), $hints hints (want key-encoding alone)"
fi

echo "java adapter: $steps_passed passed, $steps_failed failed"
[ "$steps_failed" -eq 0 ]
