#!/usr/bin/env bash
# The Java package's per-key cost, against spymemcached's own KetamaNodeLocator and the Rust
# routing behind kr_route, measured in one run (not part of any test):
#
#   Java: ffi/java/bench/io/github/keyroute/Bench.java   route(byte[]), route(String), routeBatch
#         (1024 keys a call) through JNA direct mapping; spymemcached 2.12 getPrimary(String); the
#         raw direct-mapped kr_route, an interface-mapped kr_route, and a call that does no work
#         ffi/java/bench/io/github/keyroute/LocatorBench.java   getPrimary(String) of keyroute's
#         spymemcached NodeLocator (the preset and the ring) against KetamaNodeLocator's, at
#         N = 10, 100 and 1000 servers
#   Rust: ffi/java/bench/core_route.rs   keyroute_bindings::Router::route / route_batch (what
#         kr_route / kr_route_batch call) on the same specs and keys
#
# Topologies: ring-v1 with 1000 nodes x 160 points (ffi/bench's) and the spymemcached preset over
# 1000 servers (the real locator on the same servers); KEYS keys "user:NNNNNN" (the first of
# ffi/bench's 1,000,000). The Java
# and Rust processes alternate for ROUNDS rounds, each reporting the median and the fastest of
# RUNS passes after warm-up, in the measuring thread's CPU time (both sides read
# CLOCK_THREAD_CPUTIME_ID: on a shared machine wall time counts other processes too; JIT and GC
# threads are not counted); the table gives the median over rounds of the medians, the fastest
# pass overall, and ratios to the Rust figure for the same topology. Uses the release library.
# Usage: ffi/java/bench.sh   (ROUNDS=3 RUNS=3 KEYS=200000 by default)
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../env.sh"
LIB="$TARGET_DIR/release"
ROUNDS="${ROUNDS:-3}"
RUNS="${RUNS:-3}"
export KEYS="${KEYS:-200000}"
work="$OUT/java-bench"
rm -rf "$work"
mkdir -p "$work/classes"

# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"
need=(libjna-java libspymemcached-java)
command -v javac >/dev/null || need+=(default-jdk-headless)
apt_install "${need[@]}"

cargo build --release --locked -p keyroute-ffi --lib --example java_bench_core
CP="/usr/share/java/jna.jar:/usr/share/java/spymemcached.jar"
mapfile -t sources < <(find "$FFI/java/src/main/java" "$FFI/java/bench" -name '*.java' | LC_ALL=C sort)
javac -encoding UTF-8 -Xlint:all -Werror -cp "$CP" -d "$work/classes" "${sources[@]}"

log="$work/bench.log"
: >"$log"
for ((round = 1; round <= ROUNDS; round++)); do
  java -Xms2g -Xmx2g -cp "$CP:$work/classes" -Djna.library.path="$LIB" io.github.keyroute.Bench "$RUNS" "$work" >>"$log"
  "$LIB/examples/java_bench_core" "$RUNS" ring="$work/ring.json" spy="$work/spy.json" >>"$log"
  java -Xms2g -Xmx2g -cp "$CP:$work/classes" -Djna.library.path="$LIB" io.github.keyroute.LocatorBench "$RUNS" >>"$log"
  echo "round $round/$ROUNDS done" >&2
done

java_version=$(first_line "$(java -version 2>&1)")
awk -v rounds="$ROUNDS" -v runs="$RUNS" -v keys="$KEYS" -v jv="$java_version" '
  { k = $1 " " $2; med[k] = med[k] " " $3; if (!(k in lo) || $4 < lo[k]) lo[k] = $4 }
  function median(key,   a, n, i, j, t) {
    n = split(med[key], a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((n + 1) / 2)]
  }
  function row(label, key, base, note) {
    printf "  %-52s %7.2f %7.2f", label, median(key), lo[key]
    if (base != "") printf "   %6.2fx %6.2fx", median(key) / median(base), lo[key] / lo[base]
    else printf "   %7s %7s", "", ""
    printf "  %s\n", note
  }
  END {
    printf "%d keys \"user:NNNNNN\", 1000 nodes; %d rounds x %d passes; %s\n", keys, rounds, runs, jv
    printf "  %-52s %7s %7s   %7s %7s\n", "CPU ns/key", "median", "min", "ratio", "(min)"
    print "ring-v1, 1000 x 160 points"
    row("Rust      Router::route", "rust ring-route", "", "")
    row("Rust      Router::route_batch (1024 keys)", "rust ring-batch", "", "")
    row("Java/JNA  route(byte[])", "java ring-route-bytes", "rust ring-route", "vs Rust route")
    row("Java/JNA  route(String)", "java ring-route-string", "rust ring-route", "vs Rust route")
    row("Java/JNA  route(String) as strict UTF-8 + kr_route", "java ring-route-string-utf8", "rust ring-route", "vs Rust route")
    row("Java/JNA  routeBatch(byte[][]) (1024 keys a call)", "java ring-batch", "rust ring-batch", "vs Rust route_batch")
    row("JNA raw   kr_route, direct mapping, no handle guard", "java ring-raw-kr_route", "rust ring-route", "vs Rust route")
    row("JNA raw   kr_route, interface mapping", "java ring-interface-kr_route", "rust ring-route", "vs Rust route")
    row("Java/JNA  ids[route(byte[])] (the ids copied once)", "java ring-ids-route-bytes", "", "")
    row("Java/JNA  routeId(byte[])", "java ring-routeId-bytes", "", "")
    row("Java/JNA  LiveView.routeId(byte[])", "java live-routeId-bytes", "java ring-ids-route-bytes", "vs ids[route(byte[])], goal <= 1.1x")
    row("Java/JNA  LiveView.routeId(byte[])", "java live-routeId-bytes", "java ring-routeId-bytes", "vs Router.routeId(byte[])")
    row("JNA raw   kr_router_node_count (no work)", "java floor-raw-kr_router_node_count", "", "a direct-mapped call")
    row("Java/JNA  nodeCount() (no work)", "java floor-wrapper-nodeCount", "", "the same through the wrapper")
    print "spymemcached ketama, 1000 servers x 160 points"
    row("Rust      Router::route (spymemcached preset)", "rust spy-route", "", "")
    row("Rust      Router::route_batch (1024 keys)", "rust spy-batch", "", "")
    row("Java      spymemcached KetamaNodeLocator.getPrimary", "java spy-peer-getPrimary", "rust spy-route", "vs Rust route")
    row("Java/JNA  route(String) (spymemcached preset)", "java spy-route-string", "java spy-peer-getPrimary", "vs getPrimary")
    row("Java/JNA  route(byte[])", "java spy-route-bytes", "java spy-peer-getPrimary", "vs getPrimary")
    row("Java/JNA  routeBatch(byte[][]) (1024 keys a call)", "java spy-batch", "java spy-peer-getPrimary", "vs getPrimary")
    row("Java/JNA  route(String)", "java spy-route-string", "rust spy-route", "vs Rust route")
    print "spymemcached NodeLocator.getPrimary(String), N servers x 160 points (ketama)"
    split("10 100 1000", ns, " ")
    for (i = 1; i <= 3; i++) {
      n = ns[i]
      row("N=" n " spymemcached KetamaNodeLocator", "java locator-" n "-peer", "", "")
      row("N=" n " KeyrouteNodeLocator (spymemcached preset)", "java locator-" n "-spymemcached", "java locator-" n "-peer", "vs KetamaNodeLocator")
      row("N=" n " KeyrouteNodeLocator (ring)", "java locator-" n "-ring", "java locator-" n "-peer", "vs KetamaNodeLocator")
    }
  }' "$log"
