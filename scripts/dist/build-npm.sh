#!/usr/bin/env bash
# The npm packages into OUT (`make dist`), as node/scripts/pack.sh makes them: keyroute-VERSION.tgz
# (the JS API and its types, the WebAssembly backend from wasm/build.sh, the conformance corpus
# and `keyroute-conformance`; no addon, no install script) and keyroute-linux-x64-gnu-VERSION.tgz
# (the addon: one `cargo build --release` of keyroute-node, by `npm run build-native`), which
# keyroute lists as an optionalDependency. pack.sh checks the versions and the contents.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:?usage: build-npm.sh OUTDIR}
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
"$ROOT/scripts/setup.sh"
node "$ROOT/node/scripts/build-native.cjs"
"$ROOT/wasm/build.sh"
tarballs=$("$ROOT/node/scripts/pack.sh" "$out")
while read -r tarball; do
  echo "npm: $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KB)"
done <<<"$tarballs"
