#!/usr/bin/env bash
# The npm packages into OUT (`make dist`), as node/scripts/pack.sh makes them: keyroute-VERSION.tgz
# (the JS API and its types, the WebAssembly backend from wasm/build.sh, the conformance corpus
# and `keyroute-conformance`; no addon, no install script) and one keyroute-<platform>-VERSION.tgz
# per platform that ships the addon (scripts/dist/platforms.sh), which keyroute lists as
# optionalDependencies: linux-x64-gnu (one `cargo build --release` of keyroute-node, by
# `npm run build-native`), linux-arm64-gnu (cargo-zigbuild, glibc 2.17) and win32-x64-gnu
# (mingw-w64); `make test-cross` loads each of the last two in Node.js on its platform (qemu,
# wine). pack.sh checks the versions and the contents.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:?usage: build-npm.sh OUTDIR}
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
"$ROOT/scripts/setup.sh"
node "$ROOT/node/scripts/build-native.cjs"
cd "$ROOT"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# shellcheck source=scripts/dist/platforms.sh
source scripts/dist/platforms.sh
NODE_API_HEADERS_PIN=1.9.0
# node_import_library: a folder with libnode.dll, the import library of node.exe's Node-API
# functions that napi-build links a windows-gnu addon against (it looks in LIBNODE_PATH). It is
# made by dlltool from node_api.def, the list of those functions in the Node.js project's
# node-api-headers package (pinned): the addon then imports them from NODE.EXE, the process
# that loads it.
node_import_library() {
  local dir=$ROOT/build/cross/libnode-$NODE_API_HEADERS_PIN
  if [[ ! -f $dir/libnode.dll ]]; then
    rm -rf "$dir" && mkdir -p "$dir"
    local tgz
    tgz=$(cd "$dir" && npm pack --silent "node-api-headers@$NODE_API_HEADERS_PIN" | tail -n 1)
    tar -xzf "$dir/$tgz" -C "$dir"
    x86_64-w64-mingw32-dlltool -d "$dir/package/def/node_api.def" -l "$dir/libnode.dll.tmp"
    mv "$dir/libnode.dll.tmp" "$dir/libnode.dll"
  fi
  echo "$dir"
}
for platform in $(platforms_with npm); do
  platform_cargo "$platform"
  [[ $PLATFORM_TOOL == host ]] && continue # the addon build-native.cjs made
  library=libkeyroute_node.so
  if [[ $PLATFORM_TOOL == mingw ]]; then
    LIBNODE_PATH=$(node_import_library)
    export LIBNODE_PATH
    library=keyroute_node.dll
  fi
  "${PLATFORM_CARGO[@]}" build --release --locked -p keyroute-node --target "$PLATFORM_ZTARGET"
  addon=node/keyroute.$(npm_name "$platform").node
  cp "${CARGO_TARGET_DIR:-target}/$PLATFORM_TARGET/release/$library" "$addon.tmp"
  mv "$addon.tmp" "$addon"
done
"$ROOT/wasm/build.sh"
tarballs=$("$ROOT/node/scripts/pack.sh" "$out")
while read -r tarball; do
  echo "npm: $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KB)"
done <<<"$tarballs"
