#!/usr/bin/env bash
# `make test-dist`: every artifact in dist/ installed and used from the artifact itself, in a
# clean temporary folder, with no Rust toolchain on PATH (scripts/dist/test-<name>.sh each).
# Builds dist/ first when it is missing or older than the sources.
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/../.."
dist=${1:-dist}
scripts/dist/ensure.sh "$dist"
dist=$(cd "$dist" && pwd)
(cd "$dist" && sha256sum --quiet -c SHA256SUMS)
for check in scripts/dist/test-*.sh; do
  echo "== $check"
  "$check" "$dist"
done
