#!/usr/bin/env bash
# The Ruby gem's tests (idempotent; Debian 12, run as root), against an installed C library:
#
#   ffi/ruby/test.sh [--prefix DIR --libdir LIBDIR]
#
# With --prefix, the library installed there (by `make -C ffi install`, as ffi/test.sh does;
# LIBDIR relative to it, default lib); without, the debug build installed into
# build/ffi/ruby-prefix first. Steps:
#
#   1. installs Debian's ruby, ruby-ffi, ruby-dalli, memcached and pkg-config (minitest comes
#      with Debian's ruby);
#   2. `ruby -wc` over every Ruby file (syntax, warnings);
#   3. the gem's tests: every method, every error kind by class and code, close and GC
#      (test_router.rb), the whole conformance corpus as installed (test_conformance.rb, at
#      least as many files as the checkout has), and Dalli routed by keyroute on real memcached
#      servers it starts: 100,000 keys, each on the server keyroute routes it to, and Dalli's own
#      ring agreeing with the `dalli` preset (test_dalli.rb).
#
# Closes with "ruby: N passed, M failed" (steps); exits non-zero on a failure.
set -euo pipefail
RB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$RB_DIR/../.." && pwd)"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

prefix="" libdir="lib"
while (($#)); do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --libdir) libdir="$2"; shift 2 ;;
    *) echo "usage: ffi/ruby/test.sh [--prefix DIR --libdir LIBDIR]" >&2; exit 2 ;;
  esac
done

steps_passed=0
steps_failed=0
pass() { steps_passed=$((steps_passed + 1)); echo "ok: $1"; }
fail() { steps_failed=$((steps_failed + 1)); echo "FAILED: $1" >&2; }

# ---------------------------------------------------------------- 1. packages
apt_install ruby ruby-ffi ruby-dalli memcached pkg-config
if [ -z "$prefix" ]; then
  prefix="$ROOT/build/ffi/ruby-prefix"
  make -s -C "$ROOT/ffi" install PREFIX="$prefix" LIBDIR="$libdir" PROFILE=debug
fi
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" LD_LIBRARY_PATH="$prefix/$libdir"
unset KEYROUTE_LIB # the library pkg-config finds, as an installed gem would
KEYROUTE_VECTORS="$(pkg-config --variable=vectorsdir keyroute)/v1"
KEYROUTE_MIN_FILES="$(find "$ROOT/conformance/vectors/v1" -maxdepth 1 -name '*.json' | wc -l)"
export KEYROUTE_VECTORS KEYROUTE_MIN_FILES
echo "ruby: $(ruby -v), ruby-ffi $(ruby -rffi -e 'print FFI::VERSION'), keyroute $(pkg-config --modversion keyroute) from $prefix"

# ---------------------------------------------------------------- 2. syntax and warnings
warned=""
while IFS= read -r f; do
  out="$(ruby -wc "$f" 2>&1)" || warned+="$f: $out"$'\n'
  [ "$out" = "Syntax OK" ] || warned+="$f: $out"$'\n'
done < <(find "$RB_DIR" -name '*.rb' -o -name '*.gemspec' | sort)
if [ -z "$warned" ]; then pass "ruby -wc (every file)"; else fail "ruby -wc: $warned"; fi

# ---------------------------------------------------------------- 3. the gem's tests
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if (cd "$RB_DIR" && ruby -W0 -Ilib -e 'ARGV.each { |f| require File.expand_path(f) }' \
      test/test_router.rb test/test_conformance.rb test/test_dalli.rb >"$log" 2>&1); then
  grep -oE '(conformance|dalli): .*|[0-9]+ runs, .*' "$log" || true
  pass "minitest: the gem's methods and errors, the corpus ($KEYROUTE_MIN_FILES files) as installed, Dalli on memcached"
else
  grep -vE '^\s*$' "$log" | tail -n 60 >&2
  fail "minitest (ffi/ruby/test)"
fi

echo "ruby: $steps_passed passed, $steps_failed failed"
[ "$steps_failed" -eq 0 ]
