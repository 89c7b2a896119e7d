#!/usr/bin/env bash
# Every test of the npm package, for CI and for people (idempotent):
#
#   1. npm ci in node/ (the dev tools and the peers, pinned by package-lock.json; the package's
#      install script builds the addon with cargo);
#   2. the shared JS tests on the native addon and on WebAssembly (wasm/build.sh builds it):
#      API, errors, the whole conformance corpus, live peers (npm hashring, cluster-key-slot),
#      workers, memory, the README's JS section, bounded loads, hot keys and read spreading;
#      the hashring drop-in and the keyroute-conformance command (both backends) on the addon;
#   3. the TypeScript declarations: typed use passes tsc --strict, misuse fails where marked;
#   4. the same tests and the corpus in headless Chromium (Debian's, installed when missing), and
#      the playground (adding a node shows keyroute plan's moved share; a screenshot in target/);
#   5. the two install paths from an empty folder: `npm install /abs/path/to/node` (builds from
#      source), and the `npm pack` tarball (scripts/pack.sh) with no Rust toolchain on PATH; in
#      each, scripts/check-install.sh routes the corpus the package carries from CommonJS and ES
#      modules on both backends and runs `npx keyroute-conformance`.
set -euo pipefail
NODE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$NODE_DIR/.." && pwd)
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH" CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
cd "$NODE_DIR"

# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

echo "node: npm ci (builds the addon from source)"
npm ci --foreground-scripts --loglevel=error
"$ROOT/wasm/build.sh"

echo "node: JS tests on the native addon"
node --expose-gc --test test/*.test.js
echo "node: JS tests on WebAssembly"
KEYROUTE_BACKEND=wasm node --expose-gc --test \
  test/api.test.js test/errors.test.js test/conformance.test.js test/peers.test.js \
  test/workers.test.js test/memory.test.js test/readme.test.js test/hotkeys.test.js test/node-args.test.js

echo "node: TypeScript declarations (tsc --strict)"
npx tsc -p test/types
misuse=$(npx tsc --strict --noEmit --module nodenext --moduleResolution nodenext --target es2022 test/types/misuse.ts || true)
want=$(grep -n '// E$' test/types/misuse.ts | cut -d: -f1 | sort -n | tr '\n' ' ')
got=$(echo "$misuse" | sed -n 's/^test\/types\/misuse\.ts(\([0-9]*\),.*/\1/p' | sort -nu | tr '\n' ' ')
if [ "$want" != "$got" ]; then
  echo "node: tsc flagged lines [$got] of misuse.ts; expected [$want]" >&2
  echo "$misuse" >&2
  exit 1
fi

echo "node: headless Chromium"
command -v chromium >/dev/null || apt_install chromium fonts-dejavu-core
node test/browser/run.mjs
node test/browser/playground.mjs

echo "node: install paths"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/from-path" && (cd "$work/from-path" && npm init -y >/dev/null && npm install --loglevel=error "$NODE_DIR" >/dev/null)
scripts/check-install.sh "$work/from-path"
echo "  ok: npm install $NODE_DIR from an unrelated folder"

tarball=$(scripts/pack.sh "$work")
bare=$("$ROOT/scripts/dist/no-rust-path.sh")
if PATH="$bare" command -v cargo >/dev/null || PATH="$bare" command -v rustc >/dev/null; then
  echo "node: cannot make a PATH without Rust ($bare)" >&2
  exit 1
fi
mkdir "$work/from-tarball"
(cd "$work/from-tarball" && PATH="$bare" npm init -y >/dev/null && PATH="$bare" CARGO_HOME=/nonexistent npm install --loglevel=error "$tarball" >/dev/null)
PATH="$bare" scripts/check-install.sh "$work/from-tarball"
echo "  ok: npm install $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KB) in an empty folder, no Rust toolchain on PATH"
echo "node: all passed"
