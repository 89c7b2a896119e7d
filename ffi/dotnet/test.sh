#!/usr/bin/env bash
# The .NET assembly's tests (idempotent; Debian 12, run as root), against an installed C library:
#
#   ffi/dotnet/test.sh [--prefix DIR --libdir LIBDIR] [--assembly DIR]
#
# With --prefix, the library installed there (by `make -C ffi install`, as ffi/test.sh does;
# LIBDIR relative to it, default lib); without, the debug build installed into
# build/ffi/dotnet-prefix first. With --assembly, the Keyroute.dll in DIR (an unpacked release
# artifact, as scripts/dist/test-dotnet.sh passes); without, the sources compiled by
# ./build.sh. Steps:
#
#   1. installs Mono's compiler and runtime (mono-mcs, mono-runtime: about 25 MB, not
#      mono-complete) and python3 (the corpus is flattened by ffi/java/vectors.py);
#   2. compiles the assembly with -warnaserror+ (a public member without an XML doc comment
#      fails), then the tests against it, also with -warnaserror+;
#   3. runs the tests (test/Tests.cs: every method, errors by kind, the dispose discipline,
#      finalizers, threads routing while one disposes) and the whole conformance corpus as
#      installed (`pkg-config --variable=vectorsdir`), at least as many files as the checkout has.
#
# The library is found by Mono's dllmap (Keyroute.dll.config: the SONAME) on LD_LIBRARY_PATH.
# Closes with "dotnet: N passed, M failed" (steps); exits non-zero on a failure.
set -euo pipefail
DOTNET_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$DOTNET_DIR/../.." && pwd)"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

prefix="" libdir="lib" assembly=""
while (($#)); do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --libdir) libdir="$2"; shift 2 ;;
    --assembly) assembly="$2"; shift 2 ;;
    *) echo "usage: ffi/dotnet/test.sh [--prefix DIR --libdir LIBDIR] [--assembly DIR]" >&2; exit 2 ;;
  esac
done

steps_passed=0
steps_failed=0
pass() { steps_passed=$((steps_passed + 1)); echo "ok: $1"; }
fail() { steps_failed=$((steps_failed + 1)); echo "FAILED: $1" >&2; }

# ---------------------------------------------------------------- 1. packages
apt_install mono-mcs mono-runtime pkg-config python3
if [ -z "$prefix" ]; then
  prefix="$ROOT/build/ffi/dotnet-prefix"
  make -s -C "$ROOT/ffi" install PREFIX="$prefix" LIBDIR="$libdir" PROFILE=debug
fi
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" LD_LIBRARY_PATH="$prefix/$libdir"
vectors="$(pkg-config --variable=vectorsdir keyroute)/v1"
min_files="$(find "$ROOT/conformance/vectors/v1" -maxdepth 1 -name '*.json' | wc -l)"
version="$("$ROOT/scripts/dist/version.sh")"
echo "dotnet: $(mono --version | sed -n 1p), keyroute $(pkg-config --modversion keyroute) from $prefix"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# ---------------------------------------------------------------- 2. compile
if [ -z "$assembly" ]; then
  assembly="$work/lib"
  if "$DOTNET_DIR/build.sh" "$assembly"; then
    pass "Keyroute.dll compiles with -warnaserror+ -warn:4, every public member documented"
  else
    fail "Keyroute.dll (ffi/dotnet/build.sh)"
  fi
fi
cp "$assembly/Keyroute.dll" "$assembly/Keyroute.dll.config" "$work/"
if mcs -nologo -warnaserror+ -r:"$work/Keyroute.dll" -out:"$work/KeyrouteTests.exe" "$DOTNET_DIR/test/Tests.cs" &&
  mcs -nologo -warnaserror+ -r:"$work/Keyroute.dll" -out:"$work/Conformance.exe" "$DOTNET_DIR/test/Conformance.cs"; then
  pass "tests compile with -warnaserror+"
else
  fail "tests compile"
fi

# ---------------------------------------------------------------- 3. run
log="$work/log"
if mono --debug "$work/KeyrouteTests.exe" "$version" >"$log" 2>&1; then
  grep -E '^[0-9]+ passed' "$log" || true
  pass "assembly tests: every method, errors by kind, dispose discipline, finalizers, threads racing Dispose"
else
  cat "$log" >&2
  fail "assembly tests (ffi/dotnet/test/Tests.cs)"
fi
python3 "$ROOT/ffi/java/vectors.py" "$vectors"/*.json >"$work/vectors.tsv"
if mono --debug "$work/Conformance.exe" "$work/vectors.tsv" --min-files "$min_files" >"$log" 2>&1; then
  grep -E '^(conformance:|[0-9]+ passed)' "$log" || true
  pass "conformance: the corpus as installed ($min_files files or more)"
else
  sed -n 1,60p "$log" >&2
  fail "conformance (ffi/dotnet/test/Conformance.cs)"
fi

echo "dotnet: $steps_passed passed, $steps_failed failed"
[ "$steps_failed" -eq 0 ]
