#!/usr/bin/env bash
# The PHP package's tests (idempotent; Debian 12, run as root), against an installed C library:
#
#   ffi/php/test.sh [--prefix DIR --libdir LIBDIR] [--package DIR]
#
# With --prefix, the library installed there (by `make -C ffi install`, as ffi/test.sh does;
# LIBDIR relative to it, default lib); without, the debug build installed into
# build/ffi/php-prefix first. --package tests another copy of the package (the unpacked dist
# archive: scripts/dist/test-php.sh); default, this folder. Steps:
#
#   1. installs Debian's php-cli (FFI built in), php-memcached, memcached and gcc;
#   2. php -l over every file; the FFI declarations (Keyroute\Library::CDEF) compiled by gcc
#      against the installed keyroute.h, so a signature that drifts fails here;
#   3. tests/router_test.php: every method, every error kind's class and code, close discipline;
#   4. tests/conformance.php: the whole corpus as installed (`pkg-config --variable=vectorsdir`),
#      at least as many files as the checkout holds;
#   5. tests/memcached.php: php-memcached configured as PHP users configure it (libketama
#      compatible, consistent, modula with each OPT_HASH) against keyroute's libmemcached presets,
#      100,000 keys each on real memcached servers started on 127.0.0.1.
#
# FFI needs no ini setting under the CLI (Debian's `ffi.enable=preload` enables it there).
# Closes with "php: N passed, M failed" (steps); exits non-zero on a failure.
set -euo pipefail
PHP_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$PHP_DIR/../.." && pwd)"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

prefix="" libdir="lib" package="$PHP_DIR"
while (($#)); do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --libdir) libdir="$2"; shift 2 ;;
    --package) package="$(cd "$2" && pwd)"; shift 2 ;;
    *) echo "usage: ffi/php/test.sh [--prefix DIR --libdir LIBDIR] [--package DIR]" >&2; exit 2 ;;
  esac
done

steps_passed=0
steps_failed=0
pass() { steps_passed=$((steps_passed + 1)); echo "ok: $1"; }
fail() { steps_failed=$((steps_failed + 1)); echo "FAILED: $1" >&2; }

# ---------------------------------------------------------------- 1. packages
apt_install php-cli php-memcached memcached gcc pkg-config
if [ -z "$prefix" ]; then
  prefix="$ROOT/build/ffi/php-prefix"
  make -s -C "$ROOT/ffi" install PREFIX="$prefix" LIBDIR="$libdir" PROFILE=debug
fi
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
libs=("$prefix/$libdir"/libkeyroute.so.*.*.*)
export KEYROUTE_LIBRARY="${libs[0]}"
vectors="$(pkg-config --variable=vectorsdir keyroute)/v1"
min_files="$(find "$ROOT/conformance/vectors/v1" -maxdepth 1 -name '*.json' | wc -l)"
echo "php: $(php -r 'echo PHP_VERSION;'), keyroute $(pkg-config --modversion keyroute) from $KEYROUTE_LIBRARY, package $package"

# ---------------------------------------------------------------- 2. syntax and declarations
lint_failed=0
while IFS= read -r -d '' f; do
  php -l "$f" >/dev/null || lint_failed=1
done < <(find "$package" -name '*.php' -print0)
if [ "$lint_failed" -eq 0 ]; then
  pass "php -l over every file"
else
  fail "php -l"
fi
# The cdef's functions after keyroute.h: a declaration that differs from the header's is a
# conflicting-types error. Keys and text are `const char *` in the cdef (same ABI), so those
# parameters are written back as the header's `const uint8_t *` first; the cdef's typedefs are
# the header's own and are left out.
cdef_c="$(mktemp --suffix .c)"
trap 'rm -f "$cdef_c"' EXIT
{
  echo '#include "keyroute.h"'
  php -r 'require $argv[1] . "/autoload.php"; echo Keyroute\Library::CDEF;' "$package" |
    grep -v -e '^ *typedef' |
    sed -E 's/const char \*key\b/const uint8_t *key/g'
} >"$cdef_c"
if gcc -std=c11 -fsyntax-only -Wall -Werror -I"$prefix/include" "$cdef_c"; then
  pass "Keyroute\\Library::CDEF agrees with the installed keyroute.h (gcc)"
else
  fail "Keyroute\\Library::CDEF differs from keyroute.h"
fi

# ---------------------------------------------------------------- 3-5. the tests
if php "$package/tests/router_test.php"; then
  pass "every method, every error kind, close discipline, transitions"
else
  fail "tests/router_test.php"
fi
if php "$package/tests/conformance.php" "$vectors" "$min_files"; then
  pass "the corpus as installed ($vectors, at least $min_files files)"
else
  fail "tests/conformance.php"
fi
if php "$package/tests/memcached.php" 100000; then
  pass "php-memcached and keyroute's libmemcached presets agree on real memcached (100,000 keys a configuration)"
else
  fail "tests/memcached.php"
fi

echo "php: $steps_passed passed, $steps_failed failed"
[ "$steps_failed" -eq 0 ]
