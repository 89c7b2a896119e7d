#!/usr/bin/env bash
# Builds the WebAssembly backend into node/wasm/ (keyroute.js glue + keyroute_bg.wasm), with
# everything it needs installed first, idempotently: the wasm32 target (scripts/setup.sh), the
# wasm-bindgen CLI at the exact version Cargo.lock pins the wasm-bindgen crate to, and Debian's
# binaryen (wasm-opt). Prints the sizes.
#
# The module is size-optimised twice: rustc with the `wasm` profile (opt-level z and fat LTO,
# with the core and XXH3 optimised for speed: see Cargo.toml), then wasm-opt -Oz, run *before*
# wasm-bindgen (Debian's binaryen 108 predates the reference-types table wasm-bindgen 0.2.130
# writes, and mangles it when run after).
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
raw="${CARGO_TARGET_DIR:-$ROOT/target}/wasm32-unknown-unknown/wasm/keyroute_wasm.wasm"
wasm-opt -Oz --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int --enable-mutable-globals \
  --enable-reference-types --enable-multivalue "$raw" -o "$BUILD/keyroute_opt.wasm"
wasm-bindgen --target web --no-typescript --out-dir "$OUT" --out-name keyroute "$BUILD/keyroute_opt.wasm"

size() { wc -c <"$1" | tr -d ' '; }
gz() { gzip -9c "$1" | wc -c | tr -d ' '; }
wasm="$OUT/keyroute_bg.wasm" glue="$OUT/keyroute.js"
total=$(($(gz "$wasm") + $(gz "$glue")))
echo "wasm: keyroute_bg.wasm $(size "$wasm") bytes ($(gz "$wasm") gzipped), keyroute.js $(size "$glue") bytes ($(gz "$glue") gzipped); total gzipped $total"

# The size budget (wasm/size-budget): more than 5% above it fails, until the budget is raised.
budget=$(grep -v '^#' wasm/size-budget | tr -d ' \n')
if ! [[ $budget =~ ^[0-9]+$ ]]; then
  echo "wasm: wasm/size-budget holds no byte count" >&2
  exit 1
fi
if ((total * 100 > budget * 105)); then
  echo "wasm: $total bytes gzipped is more than 5% over the budget of $budget (wasm/size-budget);" \
    "make it smaller, or raise the budget in the same commit and say why" >&2
  exit 1
fi
echo "wasm: within the size budget: $total of $budget bytes gzipped ($((total * 100 / budget))%)"
