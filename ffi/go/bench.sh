#!/usr/bin/env bash
# The Go package's speed against the Go-native rings, measured in one run (not part of test.sh):
# keyroute per call (RouteString) and batched (RouteBatchInto, 1,000 keys a call) against
# groupcache's consistenthash (Debian's sources) and a plain Go sorted ring, at N = 10, 100 and
# 1000 nodes, and the cost of one bare cgo call (peers/bench/main.go says how). Builds the
# release library, installs it into build/ffi/go-bench-prefix and links the bench with it.
# Goals (issue 25): per call at least 2x faster than the fastest Go ring at N = 1000, batched at
# least 10x. Prints a Markdown table of medians (ns per key) and ratios (fastest Go ring's time /
# keyroute's: above 1, keyroute is faster).
#
# With -views: a route through a LiveView (and a View snapshot) against Router.RouteID instead.
#
# Usage: ffi/go/bench.sh [-keys N] [-runs N] [-views]   (1,000,000 keys, 7 passes by default)
set -euo pipefail
GO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$GO_DIR/../.." && pwd)"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"
apt_install golang-go pkg-config
"$GO_DIR/debian-sources.sh" >/dev/null
prefix="$ROOT/build/ffi/go-bench-prefix"
make -s -C "$ROOT/ffi" install PREFIX="$prefix" LIBDIR=lib PROFILE=release
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig" GOPROXY=off GOFLAGS=-mod=mod
bin="$ROOT/build/ffi/go-bench"
(cd "$GO_DIR/peers" && go build -ldflags="-r=$prefix/lib" -o "$bin" ./bench)
"$bin" "$@"
