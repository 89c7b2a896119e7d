#!/usr/bin/env bash
# The PHP package's speed (bench.php) against the release library: builds it, installs it into
# build/ffi/php-bench-prefix and runs the bench there. Not part of test.sh (a bench, not a test).
#
# Usage: ffi/php/bench.sh [KEYS [PASSES]]   (100,000 keys, 7 passes by default)
set -euo pipefail
PHP_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$PHP_DIR/../.." && pwd)"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"
apt_install php-cli php-redis
prefix="$ROOT/build/ffi/php-bench-prefix"
make -s -C "$ROOT/ffi" install PREFIX="$prefix" LIBDIR=lib PROFILE=release
libs=("$prefix/lib"/libkeyroute.so.*.*.*)
KEYROUTE_LIBRARY="${libs[0]}" php "$PHP_DIR/bench.php" "$@"
