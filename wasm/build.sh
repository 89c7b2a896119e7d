#!/usr/bin/env bash
# Builds the WebAssembly backend into node/wasm/ (keyroute.js glue + keyroute_bg.wasm), with
# everything it needs installed first, idempotently: the wasm32 target (scripts/setup.sh), the
# wasm-bindgen CLI at the exact version Cargo.lock pins the wasm-bindgen crate to, and Debian's
# binaryen (wasm-opt). Prints the sizes.
#
# The module is size-optimised twice: rustc with the `wasm` profile (opt-level z, fat LTO), then
# wasm-opt -Oz, run *before* wasm-bindgen (Debian's binaryen 108 predates the reference-types
# table wasm-bindgen 0.2.130 writes, and mangles it when run after).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
OUT="$ROOT/node/wasm"
BUILD="$ROOT/build/wasm"
mkdir -p "$OUT" "$BUILD"

scripts/setup.sh
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
command -v wasm-opt >/dev/null || apt_install binaryen
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$want" ]; then
  echo "wasm: installing wasm-bindgen-cli $want (a few minutes, once)"
  # Not --locked: the CLI's own lockfile pins a crate version this registry does not carry.
  # --debug: it compiles in about half the time of a release build (the cold `make test`
  # budget), and its output, the JS glue and the processed module, does not depend on how the
  # CLI itself was optimised; it processes one module of a few hundred KB.
  cargo install -q --debug wasm-bindgen-cli --version "=$want"
fi

cargo build -q --locked -p keyroute-wasm --target wasm32-unknown-unknown --profile wasm
raw="$ROOT/target/wasm32-unknown-unknown/wasm/keyroute_wasm.wasm"
wasm-opt -Oz --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int --enable-mutable-globals \
  --enable-reference-types --enable-multivalue "$raw" -o "$BUILD/keyroute_opt.wasm"
wasm-bindgen --target web --no-typescript --out-dir "$OUT" --out-name keyroute "$BUILD/keyroute_opt.wasm"

size() { wc -c <"$1" | tr -d ' '; }
gz() { gzip -9c "$1" | wc -c | tr -d ' '; }
wasm="$OUT/keyroute_bg.wasm" glue="$OUT/keyroute.js"
echo "wasm: keyroute_bg.wasm $(size "$wasm") bytes ($(gz "$wasm") gzipped), keyroute.js $(size "$glue") bytes ($(gz "$glue") gzipped); total gzipped $(($(gz "$wasm") + $(gz "$glue")))"
