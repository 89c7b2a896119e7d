#!/usr/bin/env bash
# The C ABI's cost against the Rust core, measured in one run (not part of test.sh):
# ring-v1, 1000 nodes x 160 points, 1,000,000 keys "user:NNNNNN", median of several passes.
#
#   C:    ffi/bench/bench.c          kr_route, kr_route_batch, and the same spec as a live view:
#                                    kr_live_view_route, kr_view_route (static and shared library)
#   Rust: ffi/bench/bench_core.rs    the core's Router::route / Ring::route / route_batch
#
# The C and Rust binaries alternate for ROUNDS rounds (each reports the median and the fastest
# of RUNS passes); the report gives the median over rounds of the medians, and the fastest pass
# overall (less sensitive to other load on the machine). Targets: kr_route <= 1.5x the core's route,
# kr_route_batch <= 1.1x the core's batch, kr_live_view_route <= 1.1x kr_route. Usage: ffi/bench.sh  (ROUNDS=5 RUNS=7 by default)
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
LIB="$TARGET_DIR/release"
ROUNDS="${ROUNDS:-5}"
RUNS="${RUNS:-7}"
mkdir -p "$OUT"

cargo build --release --locked -p keyroute-ffi --lib --example bench_core
gcc -std=c99 -pedantic -Wall -Wextra -Werror -O2 -I"$FFI/include" "$FFI/bench/bench.c" "$LIB/libkeyroute.a" \
  -lpthread -ldl -lm -o "$OUT/bench-static"
SHARED="$(shared_lib_dir "$LIB")" # the library also under its SONAME, which the binary records
gcc -std=c99 -pedantic -Wall -Wextra -Werror -O2 -I"$FFI/include" "$FFI/bench/bench.c" -L"$SHARED" -lkeyroute \
  -Wl,-rpath,"$SHARED" -o "$OUT/bench-shared"

log="$OUT/bench.log"
: >"$log"
for ((round = 1; round <= ROUNDS; round++)); do
  "$OUT/bench-static" "$RUNS" | sed 's/^c /static /' >>"$log"
  "$LIB/examples/bench_core" "$RUNS" >>"$log"
  "$OUT/bench-shared" "$RUNS" | sed 's/^c /shared /' >>"$log"
  echo "round $round/$ROUNDS done" >&2
done

awk -v rounds="$ROUNDS" -v runs="$RUNS" '
  { k = $1 " " $2; med[k] = med[k] " " $3; if (!(k in lo) || $4 < lo[k]) lo[k] = $4 }
  function median(key,   a, n, i, j, t) {
    n = split(med[key], a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((n + 1) / 2)]
  }
  function row(label, key, base, target) {
    printf "  %-40s %7.2f %7.2f", label, median(key), lo[key]
    if (base != "") printf "   %5.2fx %5.2fx%s", median(key) / median(base), lo[key] / lo[base], target
    printf "\n"
  }
  END {
    printf "ring-v1, N=1000 x 160 points, 1,000,000 keys \"user:NNNNNN\"; %d rounds x %d passes\n", rounds, runs
    printf "  %-40s %7s %7s   %6s %6s\n", "ns/key", "median", "min", "ratio", "(min)"
    row("Rust core  Router::route ([u8; 11] keys)", "rust route", "", "")
    row("Rust core  Router::route (&[u8] keys)", "rust route_slices", "", "")
    row("Rust core  Ring::route ([u8; 11] keys)", "rust ring_route", "", "")
    row("C ABI      kr_route (static lib)", "static kr_route", "rust route", "  vs Router::route [u8; 11], target <= 1.5x")
    row("C ABI      kr_route (static lib)", "static kr_route", "rust route_slices", "  vs Router::route &[u8]")
    row("C ABI      kr_route (shared lib)", "shared kr_route", "rust route", "  vs Router::route [u8; 11]")
    row("Rust core  route_batch ([u8; 11] keys)", "rust route_batch", "", "")
    row("Rust core  route_batch (&[u8] keys)", "rust route_batch_slices", "", "")
    row("C ABI      kr_route_batch (static lib)", "static kr_route_batch", "rust route_batch_slices", "  vs &[u8] keys, target <= 1.1x")
    row("C ABI      kr_route_batch (static lib)", "static kr_route_batch", "rust route_batch", "  vs [u8; 11] keys")
    row("C ABI      kr_route_batch (shared lib)", "shared kr_route_batch", "rust route_batch_slices", "  vs &[u8] keys")
    row("C ABI      kr_live_view_route (static lib)", "static kr_live_view_route", "static kr_route", "  vs kr_route, target <= 1.1x")
    row("C ABI      kr_view_route (static lib)", "static kr_view_route", "static kr_route", "  vs kr_route (one snapshot per pass)")
    row("C ABI      kr_live_view_route (shared lib)", "shared kr_live_view_route", "shared kr_route", "  vs kr_route")
    printf "  kr_live_view_route / kr_route, timed in alternate passes (median of the passes'"'"' ratios, each round):\n"
    printf "    static %s; shared %s; median %.2fx and %.2fx, target <= 1.1x\n", med["static live/route"], med["shared live/route"], median("static live/route"), median("shared live/route")
  }' "$log"
