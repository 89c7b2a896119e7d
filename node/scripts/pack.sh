#!/usr/bin/env bash
# `npm pack` of node/ into the folder OUT, after checking that the package's version is the
# workspace's (scripts/dist/version.sh) and that the addon and the WebAssembly build are in
# place; then checks that the tarball carries everything a user needs without a Rust toolchain.
# Prints the tarball's path. node/test.sh and scripts/dist/build-npm.sh pack through it.
set -euo pipefail
NODE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=$(cd "$NODE_DIR/.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
version=$("$ROOT/scripts/dist/version.sh")
pkg_version=$(node -p 'require(process.argv[1]).version' "$NODE_DIR/package.json")
if [[ $pkg_version != "$version" ]]; then
  echo "node: package.json says version $pkg_version, the workspace $version" >&2
  exit 1
fi
for f in keyroute.linux-x64-gnu.node wasm/keyroute_bg.wasm wasm/keyroute.js; do
  [[ -f $NODE_DIR/$f ]] || { echo "node: $f is not built (npm ci, wasm/build.sh)" >&2; exit 1; }
done
tarball=$(cd "$NODE_DIR" && npm pack --silent --pack-destination "$out" | tail -n 1)
[[ $tarball == "keyroute-$version.tgz" ]] || { echo "node: npm pack wrote $tarball, not keyroute-$version.tgz" >&2; exit 1; }
contents=$(tar -tzf "$out/$tarball")
for f in package.json keyroute.linux-x64-gnu.node wasm/keyroute_bg.wasm wasm/keyroute.js dist/index.cjs \
  dist/hashring.cjs lib/index.js lib/wasm.js lib/conformance.js index.d.ts bin/keyroute-conformance.js \
  conformance/hostile.json LICENSE-MIT LICENSE-APACHE README.md; do
  grep -qx "package/$f" <<<"$contents" || { echo "node: the tarball lacks $f" >&2; exit 1; }
done
corpus=$(find "$ROOT/conformance/vectors/v1" -maxdepth 1 -name '*.json' | wc -l)
packed=$(grep -c '^package/conformance/.*\.json$' <<<"$contents")
[[ $corpus == "$packed" ]] || { echo "node: the tarball has $packed vector files, the corpus $corpus" >&2; exit 1; }
echo "$out/$tarball"
