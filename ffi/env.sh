# shellcheck shell=bash disable=SC2034  # sourced: the variables are for the scripts that source it
# Sourced by ffi/test.sh and ffi/bench.sh: the paths both use, found from this file (never
# hard-coded), and the cargo on PATH. Sets FFI, ROOT (and cd's there), TARGET_DIR and OUT.
FFI="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$FFI/.." && pwd)"
cd "$ROOT" || exit 1
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH" CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$ROOT/build/ffi"

# Prints a folder to link C programs against the shared library that cargo built in $1
# (target/debug or target/release): links to it under its dev name, `libkeyroute.so`, and under
# its SONAME (`libkeyroute.so.0.MINOR`, ffi/build.rs), the name linked programs record and the
# loader looks for through their rpath. Links, so a rebuild of the library is what they load.
shared_lib_dir() {
  local src="$1" dir soname
  dir="$OUT/lib-$(basename "$src")"
  mkdir -p "$dir"
  soname="$(readelf -d "$src/libkeyroute.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
  ln -sfn "$src/libkeyroute.so" "$dir/libkeyroute.so"
  if [ -n "$soname" ]; then ln -sfn "$src/libkeyroute.so" "$dir/$soname"; fi
  echo "$dir"
}
