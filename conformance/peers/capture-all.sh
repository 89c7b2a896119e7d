#!/usr/bin/env bash
# Re-captures every peer vector file by running the real peers: every folder here with a
# capture.sh (each installs its peer at a pinned version, idempotently). `make conformance-peers`
# runs this; afterwards, `git diff conformance/vectors` shows whether any peer's answers changed.
set -euo pipefail
cd "$(dirname "$0")"
peers=()
for script in */capture.sh; do peers+=("${script%/capture.sh}"); done
for peer in "${peers[@]}"; do
  echo "== $peer"
  "./$peer/capture.sh"
done
echo "all ${#peers[@]} peers captured"
