#!/usr/bin/env bash
# The PHP package's speed (bench.php) against the release library: builds it, installs it into
# build/ffi/php-bench-prefix and runs the bench there. Not part of test.sh (a bench, not a test).
#
# Usage: ffi/php/bench.sh [KEYS [PASSES]]   (100,000 keys, 7 passes by default); PHP_ARGS adds
# php options (PHP_ARGS="-d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M"
# for the JIT a php-fpm pool usually runs with).
set -euo pipefail
PHP_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$PHP_DIR/../.." && pwd)"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"
apt_install php-cli php-redis
prefix="$ROOT/build/ffi/php-bench-prefix"
make -s -C "$ROOT/ffi" install PREFIX="$prefix" LIBDIR=lib PROFILE=release
libs=("$prefix/lib"/libkeyroute.so.*.*.*)
read -ra php_args <<<"${PHP_ARGS:-}"
KEYROUTE_LIBRARY="${libs[0]}" php "${php_args[@]}" "$PHP_DIR/bench.php" "$@"
