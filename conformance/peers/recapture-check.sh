#!/usr/bin/env bash
# CI's live check of the peer vectors: re-captures every peer that runs as a library (PyPI,
# npm, Debian's C and Java packages; about 20 s from cold) and fails if any committed vector
# file differs from what the real peer answers today. The server-based captures (redis-server,
# nginx, nutcracker) and hash_ring (needs CPython 2.7) run with `make conformance-peers`.
set -euo pipefail
cd "$(dirname "$0")"
peers=(uhashring pymemcache jump npm-hashring cluster-key-slot libmemcached spymemcached guava)
for peer in "${peers[@]}"; do
  log=".work/recapture-$peer.log"
  mkdir -p .work
  if ! "./$peer/capture.sh" > "$log" 2>&1; then
    cat "$log" >&2
    echo "recapture: $peer failed" >&2
    exit 1
  fi
done
if ! git diff --exit-code --stat -- ../vectors/v1; then
  echo "recapture: the live peers disagree with the committed vectors (git diff conformance/vectors)" >&2
  exit 1
fi
echo "recapture: ${#peers[@]} peers re-captured live, every committed vector file unchanged"
