#!/usr/bin/env bash
# `make lint`: every formatter and linter in check mode, installing the tools it needs
# (idempotently): rustfmt and clippy (scripts/setup.sh), ruff (pinned, into build/tools-venv),
# Debian's shellcheck, gofmt and cargo-deny (pinned, cargo install). Also checks that every generated
# file is current and that the dependency graph passes deny.toml (licences, bans, sources).
set -euo pipefail
cd "$(dirname "$0")/.."
RUFF_VERSION=0.17.6
CARGO_DENY_VERSION=0.20.2
VENV=build/tools-venv

# shellcheck source=scripts/lib.sh
source scripts/lib.sh
command -v shellcheck >/dev/null || apt_install shellcheck
command -v gofmt >/dev/null || apt_install golang-go
if [[ $("$VENV/bin/ruff" --version 2>/dev/null) != "ruff $RUFF_VERSION" ]]; then
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV" || { apt_install python3-venv && python3 -m venv "$VENV"; }
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "ruff==$RUFF_VERSION"
fi

if [[ $(cargo deny --version 2>/dev/null) != "cargo-deny $CARGO_DENY_VERSION" ]]; then
  echo "lint: installing cargo-deny $CARGO_DENY_VERSION (a few minutes, once)"
  cargo install --quiet --locked --no-default-features cargo-deny --version "$CARGO_DENY_VERSION"
fi

echo "lint: cargo fmt --check"
cargo fmt --all --check
echo "lint: cargo clippy -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "lint: generated files (cargo xtask codegen --check)"
cargo xtask codegen --check
# cargo deny reads `cargo metadata` for every platform in Cargo.lock, so the crates of other
# platforms (windows-sys, …) must be in the cargo cache first; a cache filled only by builds
# for this host lacks them. `cargo fetch` downloads every platform's crates (a no-op when warm).
echo "lint: cargo fetch --locked (every platform's crates, for cargo deny)"
cargo fetch --locked --quiet
echo "lint: cargo deny (licences, bans, sources; offline once fetched, from Cargo.lock)"
cargo deny --offline --locked check licenses bans sources
echo "lint: ruff"
"$VENV/bin/ruff" check .
echo "lint: gofmt (ffi/go, conformance/peers/go; go vet needs the C library and runs in ffi/go/test.sh)"
unformatted=$(gofmt -l ffi/go conformance/peers/go)
[[ -z $unformatted ]] || { echo "lint: gofmt -w these: $unformatted" >&2; exit 1; }
echo "lint: shellcheck"
git ls-files -z '*.sh' .ci/run | xargs -0 shellcheck -x --severity=warning
echo "lint: the docs stand alone (no reference to a document outside the repository)"
if ! python3 scripts/check_docs.py; then
  echo "lint: the lines above point outside the repository; write what they need into its own docs" >&2
  exit 1
fi
echo "lint: ok"
