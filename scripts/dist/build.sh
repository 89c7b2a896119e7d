#!/usr/bin/env bash
# `make dist`: every release artifact into dist/, then SHA256SUMS over them.
#
# Each ecosystem has one builder here, scripts/dist/build-<name>.sh, which writes its artifacts
# into the folder given as its first argument (dist/ by default). The version of every
# artifact is the workspace's (`scripts/dist/version.sh`); a builder that finds another
# version in its own metadata fails rather than publishing two numbers.
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/../.."
out=${1:-dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(scripts/dist/version.sh)
grep -q "^## \[$version\]" CHANGELOG.md || { echo "dist: CHANGELOG.md has no entry for $version" >&2; exit 1; }
for builder in scripts/dist/build-*.sh; do
  echo "== $builder"
  "$builder" "$out"
done
sums=$(cd "$out" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | LC_ALL=C sort | xargs -r sha256sum)
printf '%s\n' "$sums" >"$out/SHA256SUMS"
echo "dist: $(grep -c . "$out/SHA256SUMS") artifacts of keyroute $version in $out"
find "$out" -maxdepth 1 -type f -printf '  %10s  %f\n' | LC_ALL=C sort -k2
