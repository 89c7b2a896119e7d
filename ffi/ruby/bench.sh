#!/usr/bin/env bash
# The Ruby gem's speed against Dalli's and redis-rb's own rings, measured in one run (not part
# of test.sh; see bench.rb for what is timed). Builds the release library, installs it into
# build/ffi/ruby-bench-prefix and runs bench.rb with it. Prints a Markdown table of medians
# (ns per key) and ratios (the Ruby ring's time / keyroute's: above 1, keyroute is faster).
#
# Usage: ffi/ruby/bench.sh [KEYS [PASSES]]   (200,000 keys, 5 passes by default)
set -euo pipefail
RB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$RB_DIR/../.." && pwd)"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"
apt_install ruby ruby-ffi ruby-dalli ruby-redis pkg-config
prefix="$ROOT/build/ffi/ruby-bench-prefix"
make -s -C "$ROOT/ffi" install PREFIX="$prefix" LIBDIR=lib PROFILE=release
export KEYROUTE_LIB="$prefix/lib/libkeyroute.so"
ruby -W0 -I"$RB_DIR/lib" "$RB_DIR/bench.rb" "$@"
