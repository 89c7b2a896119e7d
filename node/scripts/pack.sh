#!/usr/bin/env bash
# scripts/pack.sh OUT [PLATFORM...]: the npm packages into the folder OUT, after checking that their versions are the workspace's
# (scripts/dist/version.sh) and that the addon and the WebAssembly build are in place:
#   keyroute-VERSION.tgz                 the JS API, its types, the WebAssembly backend, the corpus
#                                        and `keyroute-conformance`; no addon and no install script.
#                                        Its manifest lists each platform package of node/npm/ as
#                                        an optionalDependency, which npm installs only on that
#                                        platform (their os/cpu/libc fields).
#   keyroute-<platform>-VERSION.tgz      the native addon for one platform (node/npm/<platform>/),
#                                        for each PLATFORM named (every one in node/npm/ when none
#                                        is: linux-x64-gnu and linux-arm64-gnu); its addon must be
#                                        built (keyroute.<platform>.node in node/).
# Then checks that each tarball carries what it must. Prints the tarballs' paths, the keyroute
# one first. node/test.sh and scripts/dist/build-npm.sh pack through it.
set -euo pipefail
NODE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=$(cd "$NODE_DIR/.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
version=$("$ROOT/scripts/dist/version.sh")
mapfile -t listed < <(cd "$NODE_DIR/npm" && ls -d -- */ | tr -d / | LC_ALL=C sort)
platforms=("$@")
((${#platforms[@]})) || platforms=("${listed[@]}")
for platform in "${platforms[@]}"; do
  [[ -d $NODE_DIR/npm/$platform ]] || { echo "node: no package node/npm/$platform" >&2; exit 1; }
done
for manifest in "$NODE_DIR/package.json" "${listed[@]/#/$NODE_DIR/npm/}"; do
  [[ -d $manifest ]] && manifest=$manifest/package.json
  pkg_version=$(node -p 'require(process.argv[1]).version' "$manifest")
  if [[ $pkg_version != "$version" ]]; then
    echo "node: ${manifest#"$ROOT"/} says version $pkg_version, the workspace $version" >&2
    exit 1
  fi
done
for f in wasm/keyroute_bg.wasm wasm/keyroute.js "${platforms[@]/#/keyroute.}"; do
  [[ $f == keyroute.* ]] && f=$f.node
  [[ -f $NODE_DIR/$f ]] || { echo "node: $f is not built (npm run build-native, wasm/build.sh)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# keyroute: packed from node/ (its prepack adds the licenses and the corpus), then its manifest
# made the published one: no scripts (the checkout's build-native and prepack are not shipped),
# no devDependencies, and the platform packages as optionalDependencies.
raw=$(cd "$NODE_DIR" && npm pack --silent --pack-destination "$work" | tail -n 1)
mkdir "$work/main" && tar -xzf "$work/$raw" -C "$work/main"
node - "$work/main/package/package.json" "$version" "${listed[@]}" <<'JS'
const fs = require('node:fs')
const [file, version, ...platforms] = process.argv.slice(2)
const manifest = JSON.parse(fs.readFileSync(file, 'utf8'))
delete manifest.scripts
delete manifest.devDependencies
manifest.optionalDependencies = Object.fromEntries(platforms.map((p) => [`keyroute-${p}`, version]))
fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`)
JS
tarball=$(npm pack --silent --pack-destination "$out" "$work/main/package" | tail -n 1)
[[ $tarball == "keyroute-$version.tgz" ]] || { echo "node: npm pack wrote $tarball, not keyroute-$version.tgz" >&2; exit 1; }
contents=$(tar -tzf "$out/$tarball")
for f in package.json wasm/keyroute_bg.wasm wasm/keyroute.js dist/index.cjs dist/hashring.cjs lib/index.js \
  lib/auto.js lib/native.js lib/platform.cjs lib/wasm.js lib/conformance.js index.d.ts bin/keyroute-conformance.js \
  conformance/hostile.json LICENSE-MIT LICENSE-APACHE README.md; do
  grep -qx "package/$f" <<<"$contents" || { echo "node: $tarball lacks $f" >&2; exit 1; }
done
if grep -E '\.node$|^package/scripts/' <<<"$contents"; then
  echo "node: $tarball carries an addon or a build script (above); they belong to the platform packages and the checkout" >&2
  exit 1
fi
corpus=$(find "$ROOT/conformance/vectors/v1" -maxdepth 1 -name '*.json' | wc -l)
packed=$(grep -c '^package/conformance/.*\.json$' <<<"$contents")
[[ $corpus == "$packed" ]] || { echo "node: $tarball has $packed vector files, the corpus $corpus" >&2; exit 1; }
echo "$out/$tarball"

# One package per platform: its manifest and README from node/npm/<platform>/, the addon, the licenses.
for platform in "${platforms[@]}"; do
  stage=$work/$platform
  mkdir "$stage"
  cp "$NODE_DIR/npm/$platform/package.json" "$NODE_DIR/npm/$platform/README.md" "$ROOT/LICENSE-MIT" "$ROOT/LICENSE-APACHE" "$stage/"
  cp "$NODE_DIR/keyroute.$platform.node" "$stage/"
  name=$(npm pack --silent --pack-destination "$out" "$stage" | tail -n 1)
  [[ $name == "keyroute-$platform-$version.tgz" ]] || { echo "node: npm pack wrote $name, not keyroute-$platform-$version.tgz" >&2; exit 1; }
  contents=$(tar -tzf "$out/$name")
  for f in package.json "keyroute.$platform.node" LICENSE-MIT LICENSE-APACHE README.md; do
    grep -qx "package/$f" <<<"$contents" || { echo "node: $name lacks $f" >&2; exit 1; }
  done
  echo "$out/$name"
done
