#!/usr/bin/env bash
# CI's live check of the peer vectors: re-captures every peer whose capture.sh says
# `# peer-kind: library` (PyPI, npm, Debian's C and Java packages; about 20 s from cold) and fails
# if any committed vector file differs from what the real peer answers today. Peers that run
# servers (redis-server, nginx, nutcracker) or need CPython 2.7 (hash_ring) are re-captured with
# `make conformance-peers`.
set -euo pipefail
cd "$(dirname "$0")"
peers=()
for script in */capture.sh; do
  grep -q '^# peer-kind: library' "$script" && peers+=("${script%/capture.sh}")
done
[ "${#peers[@]}" -gt 0 ] || { echo "recapture: no library peers found" >&2; exit 1; }
mkdir -p .work
for peer in "${peers[@]}"; do
  log=".work/recapture-$peer.log"
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
echo "recapture: ${#peers[@]} peers re-captured live (${peers[*]}), every committed vector file unchanged"
