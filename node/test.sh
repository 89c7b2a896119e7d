#!/usr/bin/env bash
# Every test of the npm package, for CI and for people (idempotent):
#
#   1. npm ci in node/ (the dev tools and the peers, pinned by package-lock.json; the package's
#      install script builds the addon with cargo);
#   2. the committed CommonJS bundles are what esbuild builds from lib/ today;
#   3. the shared JS tests on the native addon and on WebAssembly (wasm/build.sh builds it):
#      API, errors, the whole conformance corpus, live peers (npm hashring, cluster-key-slot),
#      workers, memory, the README's JS section; the hashring drop-in on the addon;
#   4. the TypeScript declarations: typed use passes tsc --strict, misuse fails where marked;
#   5. the same tests and the corpus in headless Chromium (Debian's, installed when missing), and
#      the playground (adding a node shows keyroute plan's moved share; a screenshot in target/);
#   6. the two install paths from an empty folder: `npm install /abs/path/to/node` (builds from
#      source), and the `npm pack` tarball with no Rust toolchain on PATH.
set -euo pipefail
NODE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$NODE_DIR/.." && pwd)
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH" CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
cd "$NODE_DIR"

apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"; }
}

echo "node: npm ci (builds the addon from source)"
npm ci --foreground-scripts --loglevel=error
"$ROOT/wasm/build.sh"

echo "node: the CommonJS bundles are current"
npm run -s build:cjs
git -C "$ROOT" diff --exit-code -- node/dist

echo "node: JS tests on the native addon"
node --expose-gc --test test/*.test.js
echo "node: JS tests on WebAssembly"
KEYROUTE_BACKEND=wasm node --expose-gc --test \
  test/api.test.js test/errors.test.js test/conformance.test.js test/peers.test.js \
  test/workers.test.js test/memory.test.js test/readme.test.js

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
check_install() { # dir: require and import keyroute there, route conformance vectors
  (cd "$1" && node -e "
    const k = require('keyroute'); const HashRing = require('keyroute/hashring').default
    const doc = require('$ROOT/conformance/vectors/v1/npm-hashring-default-3.json')
    const r = new k.Router(doc.spec); let n = 0
    for (const c of doc.cases) if ('key' in c && 'node' in c) { if (r.route(c.key) !== c.node) throw new Error(c.id); n++ }
    if (n < 100 || new HashRing(['a:1']).get('k') !== 'a:1') throw new Error('too few cases')
    console.log('  ' + n + ' vectors routed through the installed package (CommonJS)')" &&
   node --input-type=module -e "
    import { Ring } from 'keyroute'; import { Ring as WasmRing } from 'keyroute/wasm'
    if (new Ring(['a', 'b']).route('x') !== new WasmRing(['a', 'b']).route('x')) throw new Error('backends differ')
    console.log('  ES modules: native and WebAssembly agree')")
}
mkdir "$work/from-path" && (cd "$work/from-path" && npm init -y >/dev/null && npm install --loglevel=error "$NODE_DIR" >/dev/null)
check_install "$work/from-path"
echo "  ok: npm install $NODE_DIR from an unrelated folder"

tarball=$(npm pack --silent --pack-destination "$work")
tar -tzf "$work/$tarball" >"$work/contents"
for f in keyroute.linux-x64-gnu.node wasm/keyroute_bg.wasm wasm/keyroute.js dist/index.cjs index.d.ts LICENSE-MIT; do
  grep -qx "package/$f" "$work/contents" || { echo "node: the tarball lacks $f" >&2; exit 1; }
done
node_bin=$(dirname "$(command -v node)")
bare="$node_bin:/usr/bin:/bin"
if PATH="$bare" command -v cargo >/dev/null || PATH="$bare" command -v rustc >/dev/null; then
  echo "node: cannot make a PATH without Rust ($bare)" >&2
  exit 1
fi
mkdir "$work/from-tarball"
(cd "$work/from-tarball" && PATH="$bare" npm init -y >/dev/null && PATH="$bare" CARGO_HOME=/nonexistent npm install --loglevel=error "$work/$tarball" >/dev/null)
PATH="$bare" check_install "$work/from-tarball"
echo "  ok: npm install $tarball ($(du -k "$work/$tarball" | cut -f1) KB) in an empty folder, no Rust toolchain on PATH"
echo "node: all passed"
