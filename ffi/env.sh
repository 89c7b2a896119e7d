# shellcheck shell=bash disable=SC2034  # sourced: the variables are for the scripts that source it
# Sourced by ffi/test.sh and ffi/bench.sh: the paths both use, found from this file (never
# hard-coded), and the cargo on PATH. Sets FFI, ROOT (and cd's there), TARGET_DIR and OUT.
FFI="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$FFI/.." && pwd)"
cd "$ROOT" || exit 1
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH" CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$ROOT/build/ffi"
