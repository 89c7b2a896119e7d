#!/usr/bin/env bash
# Re-captures every peer vector file by running the real peers (each capture.sh installs its
# peer at a pinned version, idempotently). `make conformance-peers` runs this; afterwards,
# `git diff conformance/vectors` shows whether any peer's answers changed.
set -euo pipefail
cd "$(dirname "$0")"
peers=(uhashring pymemcache jump hash_ring npm-hashring cluster-key-slot libmemcached spymemcached guava
       redis-cluster nginx twemproxy)
for peer in "${peers[@]}"; do
  echo "== $peer"
  "./$peer/capture.sh"
done
echo "all ${#peers[@]} peers captured"
