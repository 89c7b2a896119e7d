#!/usr/bin/env bash
# The npm tarballs in DIST installed into empty folders with no Rust toolchain on PATH
# (`make test-dist`), then used as users use them (node/scripts/check-install.sh): keyroute
# alone, which must fall back to WebAssembly (and say so on stderr), and keyroute with its
# linux-x64-gnu package, which must load the addon; in each, the corpus the package carries
# routed from CommonJS and ES modules, and `npx keyroute-conformance`.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dist=$(cd "${1:?usage: test-npm.sh DIST}" && pwd)
version=$("$ROOT/scripts/dist/version.sh")
tarball="$dist/keyroute-$version.tgz"
platform="$dist/keyroute-linux-x64-gnu-$version.tgz"
for f in "$tarball" "$platform"; do
  [[ -f $f ]] || { echo "test-npm: no $f" >&2; exit 1; }
done
bare=$("$ROOT/scripts/dist/no-rust-path.sh")
if PATH="$bare" command -v cargo >/dev/null || PATH="$bare" command -v rustc >/dev/null; then
  echo "test-npm: cannot make a PATH without Rust" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
for want in wasm native; do
  files=("$tarball")
  [[ $want == native ]] && files+=("$platform")
  mkdir "$work/$want"
  (cd "$work/$want" && PATH="$bare" npm init -y >/dev/null && PATH="$bare" CARGO_HOME=/nonexistent npm install --loglevel=error "${files[@]}" >/dev/null)
  PATH="$bare" "$ROOT/node/scripts/check-install.sh" "$work/$want" "$want"
  echo "test-npm: $(basename -a "${files[@]}" | tr '\n' ' ')installed and used with no Rust toolchain on PATH (keyroute.backend: $want)"
done
