#!/usr/bin/env bash
# `make test-msrv`: the published crates' minimum Rust version (`rust-version` in core/,
# bindings/, fleet/ and cli/Cargo.toml, one value) is real. The crates build, with the locked
# dependencies, on that toolchain, and the core does not build on the release before it, so the
# declared minimum can be neither too low nor stale-high. Installs the two toolchains with rustup
# (minimal profile, idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
msrv=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' core/Cargo.toml)
[[ $msrv =~ ^1\.([0-9]+)$ ]] || { echo "msrv: core/Cargo.toml's rust-version '$msrv' is not 1.N" >&2; exit 1; }
before=1.$((BASH_REMATCH[1] - 1))
for crate in bindings fleet cli; do
  grep -qx "rust-version = \"$msrv\"" "$crate/Cargo.toml" || { echo "msrv: $crate/Cargo.toml must declare rust-version $msrv" >&2; exit 1; }
done

for toolchain in "$msrv" "$before"; do
  rustup run "$toolchain" rustc --version >/dev/null 2>&1 || rustup toolchain install "$toolchain" --profile minimal
done

echo "msrv: building keyroute, keyroute-bindings, keyroute-fleet and keyroute-cli with Rust $msrv"
cargo "+$msrv" build --locked -p keyroute -p keyroute-bindings -p keyroute-fleet -p keyroute-cli --target-dir target/msrv
echo "msrv: the core must not build with Rust $before (else $msrv is not the minimum)"
if cargo "+$before" check --locked --ignore-rust-version -p keyroute --target-dir target/msrv-before \
  >target/msrv-before.log 2>&1; then
  echo "msrv: keyroute builds with Rust $before: lower rust-version to the real minimum" >&2
  exit 1
fi
grep -q -- '--> core/src/' target/msrv-before.log || {
  echo "msrv: Rust $before failed, but not on keyroute's own sources:" >&2
  grep -m5 '^error' target/msrv-before.log >&2
  exit 1
}
grep -m3 '^error' target/msrv-before.log | sed 's/^/msrv:   Rust '"$before"': /'
echo "msrv: ok: $msrv is the minimum"
