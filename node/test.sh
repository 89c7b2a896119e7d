#!/usr/bin/env bash
# Every test of the npm package, for CI and for people (idempotent):
#
#   1. npm ci in node/ (the dev tools and the peers, pinned by package-lock.json), then
#      `npm run build-native` (the addon, with cargo: the package has no install script);
#   2. the shared JS tests on the native addon and on WebAssembly (wasm/build.sh builds it):
#      API, errors, the whole conformance corpus, live peers (npm hashring, cluster-key-slot),
#      workers, memory, the README's JS section, bounded loads, hot keys and read spreading,
#      live views (and, on the addon, watches of a file and of a real etcd, with the census,
#      and keyroute/memjs's dual reads on real memcached);
#      the hashring drop-in and the keyroute-conformance command (both backends) on the addon;
#   3. the TypeScript declarations: typed use passes tsc --strict, misuse fails where marked;
#   4. the same tests and the corpus in headless Chromium (Debian's, installed when missing), and
#      the playground (adding a node shows keyroute plan's moved share; a screenshot in target/);
#   5. the install paths from an empty folder: `npm install /abs/path/to/node` (the checkout,
#      with its built addon), and the `npm pack` tarballs (scripts/pack.sh) with no Rust toolchain
#      on PATH: keyroute alone (it must fall back to WebAssembly, and say so), and keyroute with
#      its linux-x64-gnu package (it must load the addon); in each, scripts/check-install.sh
#      routes the corpus the package carries from CommonJS and ES modules on both backends and
#      runs `npx keyroute-conformance`.
set -euo pipefail
NODE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$NODE_DIR/.." && pwd)
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH" CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
cd "$NODE_DIR"

# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

echo "node: npm ci, then npm run build-native (the addon, from source)"
npm ci --loglevel=error
# The views tests' etcd (test/views.test.js starts its own on free ports of 127.0.0.1).
command -v etcd >/dev/null || { echo "node: installing etcd-server"; apt_install etcd-server; }
# keyroute/memjs's test starts its own memcached servers on free ports of 127.0.0.1.
command -v memcached >/dev/null || { echo "node: installing memcached"; apt_install memcached; }
npm run --silent build-native
"$ROOT/wasm/build.sh"

echo "node: JS tests on the native addon"
node --expose-gc --test test/*.test.js
echo "node: JS tests on WebAssembly"
KEYROUTE_BACKEND=wasm node --expose-gc --test \
  test/api.test.js test/errors.test.js test/conformance.test.js test/peers.test.js \
  test/workers.test.js test/memory.test.js test/readme.test.js test/hotkeys.test.js test/node-args.test.js \
  test/views.test.js

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
scripts/check-install.sh "$work/from-path" native
echo "  ok: npm install $NODE_DIR from an unrelated folder"

# keyroute and this machine's platform package (npm refuses another platform's outright).
packed=$(scripts/pack.sh "$work/packed" "$(node -p "require('./lib/platform.cjs').platformName()")")
mapfile -t tarballs <<<"$packed"
bare=$("$ROOT/scripts/dist/no-rust-path.sh")
if PATH="$bare" command -v cargo >/dev/null || PATH="$bare" command -v rustc >/dev/null; then
  echo "node: cannot make a PATH without Rust ($bare)" >&2
  exit 1
fi
# keyroute alone: no addon anywhere, so WebAssembly; then with its platform package: the addon.
for case in "wasm ${tarballs[0]}" "native ${tarballs[*]}"; do
  read -r want files <<<"$case"
  read -r -a files <<<"$files"
  dir=$work/from-tarball-$want
  mkdir "$dir"
  (cd "$dir" && PATH="$bare" npm init -y >/dev/null && PATH="$bare" CARGO_HOME=/nonexistent npm install --loglevel=error "${files[@]}" >/dev/null)
  PATH="$bare" scripts/check-install.sh "$dir" "$want"
  echo "  ok: npm install $(for f in "${files[@]}"; do printf '%s (%s KB) ' "$(basename "$f")" "$(du -k "$f" | cut -f1)"; done)in an empty folder, no Rust toolchain on PATH: keyroute.backend is $want"
done
echo "node: all passed"
