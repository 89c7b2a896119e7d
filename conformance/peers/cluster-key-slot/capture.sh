#!/usr/bin/env bash
# peer-kind: library (re-captured live by `make test`, see recapture-check.sh)
# Install npm cluster-key-slot (pinned) into conformance/peers/.work/cluster-key-slot if needed,
# then capture conformance/vectors/v1/cluster-key-slot-*.json. Idempotent; safe to re-run.
set -euo pipefail
PIN="1.1.2"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(cd "$HERE/.." && pwd)/.work"
PREFIX="$WORK/cluster-key-slot"
mkdir -p "$PREFIX"
have="$(cd "$PREFIX" && node -p 'require("./node_modules/cluster-key-slot/package.json").version' 2>/dev/null || true)"
if [ "$have" != "$PIN" ]; then
  npm install --prefix "$PREFIX" --save-exact --no-audit --no-fund --loglevel=error "cluster-key-slot@$PIN" >/dev/null
fi
NODE_PATH="$PREFIX/node_modules" exec node "$HERE/capture.js"
