#!/usr/bin/env bash
# Installs the pinned Rust toolchain with the components and targets that rust-toolchain.toml
# lists (clippy, rustfmt, thumbv7em-none-eabihf). Idempotent: a no-op when all are present.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v rustup >/dev/null || { echo "setup: rustup is required" >&2; exit 1; }
toolchain=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
if ! rustup run "$toolchain" rustc --version >/dev/null 2>&1; then
  rustup toolchain install "$toolchain" --profile minimal
fi
rustup component add --toolchain "$toolchain" clippy rustfmt >/dev/null 2>&1 || rustup component add --toolchain "$toolchain" clippy rustfmt
# The targets rust-toolchain.toml lists (thumbv7em-none-eabihf proves the core is no_std).
read -ra targets <<<"$(sed -n 's/^targets *= *\[\(.*\)\]/\1/p' rust-toolchain.toml | tr -d '",')"
installed=$(rustup target list --installed --toolchain "$toolchain")
for target in "${targets[@]}"; do
  if ! grep -qxF -- "$target" <<<"$installed"; then
    rustup target add --toolchain "$toolchain" "$target"
  fi
done
