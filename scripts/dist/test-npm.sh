#!/usr/bin/env bash
# The npm tarball in DIST installed into an empty folder with no Rust toolchain on PATH
# (`make test-dist`), then used as users use it (node/scripts/check-install.sh): the corpus the
# package carries routed through the native addon and through `keyroute/wasm`, from CommonJS
# and ES modules, and `npx keyroute-conformance` on both backends.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dist=$(cd "${1:?usage: test-npm.sh DIST}" && pwd)
version=$("$ROOT/scripts/dist/version.sh")
tarball="$dist/keyroute-$version.tgz"
[[ -f $tarball ]] || { echo "test-npm: no $tarball" >&2; exit 1; }
bare=$("$ROOT/scripts/dist/no-rust-path.sh")
if PATH="$bare" command -v cargo >/dev/null || PATH="$bare" command -v rustc >/dev/null; then
  echo "test-npm: cannot make a PATH without Rust" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
(cd "$work" && PATH="$bare" npm init -y >/dev/null && PATH="$bare" CARGO_HOME=/nonexistent npm install --loglevel=error "$tarball" >/dev/null)
PATH="$bare" "$ROOT/node/scripts/check-install.sh" "$work"
echo "test-npm: keyroute-$version.tgz installed and used with no Rust toolchain on PATH"
