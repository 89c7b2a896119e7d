#!/usr/bin/env bash
# `make test-dist` for the Rust crates (cargo itself built and verified each one in
# scripts/dist/build-crates.sh): with no Rust toolchain on PATH, each DIST/<name>-<version>.crate
# unpacks in a clean folder and holds what a user of the published crate needs and nothing of the repository
# it cannot use: its sources, licences and readme, a manifest with the workspace's version, the
# declared minimum Rust version, and versioned (not path) dependencies on its siblings; no
# tests, benches or scripts that need the rest of the repository.
set -euo pipefail
cd "$(dirname "$0")/../.."
dist=$(cd "${1:?usage: scripts/dist/test-crates.sh DISTDIR}" && pwd)
version=$(scripts/dist/version.sh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
PATH=$(scripts/dist/no-rust-path.sh)
export PATH
fail() { echo "test-crates: $*" >&2; exit 1; }

check() {
  local crate=$1 entry=$2 rust_version=$3
  shift 3
  local file=$dist/$crate-$version.crate dir=$work/$crate-$version
  [[ -f $file ]] || fail "$file is missing (make dist)"
  tar -xzf "$file" -C "$work"
  local manifest=$dir/Cargo.toml
  for f in Cargo.toml Cargo.toml.orig "$entry" LICENSE-MIT LICENSE-APACHE "$@"; do
    [[ -f $dir/$f ]] || fail "$crate: no $f in the crate"
  done
  [[ ! -e $dir/tests && ! -e $dir/benches && ! -e $dir/bench.sh ]] || fail "$crate: tests or benches packed"
  grep -qx "name = \"$crate\"" "$manifest" || fail "$crate: the manifest names another crate"
  grep -qx "version = \"$version\"" "$manifest" || fail "$crate: the manifest's version is not $version"
  grep -qx "rust-version = \"$rust_version\"" "$manifest" || fail "$crate: rust-version is not $rust_version"
  ! grep -q '^path = "\.\.' "$manifest" || fail "$crate: a path dependency is left in the manifest"
  grep -q '^license = "MIT OR Apache-2.0"' "$manifest" || fail "$crate: no licence expression"
  local size
  size=$(du -k "$file" | cut -f1)
  ((size < 512)) || fail "$crate: $size KiB packed; more than the sources should make"
  echo "test-crates: $crate $version: $(tar -tzf "$file" | wc -l) files, $size KiB"
}

# The minimum Rust version is the core's (scripts/msrv.sh builds it with that toolchain).
msrv=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' core/Cargo.toml)
[[ -n $msrv ]] || fail "core/Cargo.toml declares no rust-version of its own"
check keyroute src/lib.rs "$msrv" README.md
check keyroute-bindings src/lib.rs "$msrv"
check keyroute-fleet src/lib.rs "$msrv"
check keyroute-cli src/main.rs "$msrv" README.md Cargo.lock topologies/4-nodes.json
# Siblings are versioned dependencies, at the workspace's version.
grep -qx "version = \"$version\"" <<<"$(grep -A2 -x '\[dependencies.keyroute\]' "$work/keyroute-bindings-$version/Cargo.toml")" \
  || fail "keyroute-bindings does not depend on keyroute $version"
grep -qx "version = \"$version\"" <<<"$(grep -A2 -x '\[dependencies.keyroute-bindings\]' "$work/keyroute-cli-$version/Cargo.toml")" \
  || fail "keyroute-cli does not depend on keyroute-bindings $version"
grep -qx "version = \"$version\"" <<<"$(grep -A2 -x '\[dependencies.keyroute-fleet\]' "$work/keyroute-cli-$version/Cargo.toml")" \
  || fail "keyroute-cli does not depend on keyroute-fleet $version"
echo "test-crates: ok"
