#!/usr/bin/env bash
# The npm package `keyroute` into OUT (`make dist`): keyroute-VERSION.tgz, as `npm pack` makes it
# from node/ (package.json's "files"): the prebuilt linux-x64-gnu addon (one `cargo build
# --release` of keyroute-node, by the package's own install script), the WebAssembly backend
# (wasm/build.sh), the JS API and its types, the conformance corpus and `keyroute-conformance`.
# node/scripts/pack.sh checks the version against scripts/dist/version.sh and the contents.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:?usage: build-npm.sh OUTDIR}
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
"$ROOT/scripts/setup.sh"
node "$ROOT/node/scripts/build-native.cjs"
"$ROOT/wasm/build.sh"
tarball=$("$ROOT/node/scripts/pack.sh" "$out")
echo "npm: $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KB)"
