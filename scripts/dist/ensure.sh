#!/usr/bin/env bash
# Builds DIST (scripts/dist/build.sh) when it is missing or older than the sources it is made
# from; a no-op otherwise. Used by `make test-dist` and `make test-docs`.
set -euo pipefail
cd "$(dirname "$0")/../.."
dist=${1:?usage: scripts/dist/ensure.sh DIST}
if [[ ! -f $dist/SHA256SUMS ]] || [[ -n $(find core bindings ffi py cli node wasm conformance/vectors scripts/dist CHANGELOG.md -newer "$dist/SHA256SUMS" -type f -print -quit) ]]; then
  scripts/dist/build.sh "$dist"
fi
