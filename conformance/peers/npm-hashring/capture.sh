#!/usr/bin/env bash
# peer-kind: library (re-captured live by `make test`, see recapture-check.sh)
# Install npm hashring (pinned, with its two dependencies pinned too) into
# conformance/peers/.work/npm-hashring if needed, then capture
# conformance/vectors/v1/npm-hashring-*.json. Idempotent; safe to re-run.
set -euo pipefail
PIN="3.2.0"
DEPS=("connection-parse@0.0.7" "simple-lru-cache@0.0.2")
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(cd "$HERE/.." && pwd)/.work"
PREFIX="$WORK/npm-hashring"
mkdir -p "$PREFIX"
want="hashring@$PIN ${DEPS[*]}"
have="$(cd "$PREFIX" && node -e '
  const v = (p) => { try { return p + "@" + require("./node_modules/" + p + "/package.json").version; } catch (e) { return ""; } };
  console.log(["hashring", "connection-parse", "simple-lru-cache"].map(v).join(" "));' 2>/dev/null || true)"
if [ "$have" != "$want" ]; then
  npm install --prefix "$PREFIX" --save-exact --no-audit --no-fund --loglevel=error "hashring@$PIN" "${DEPS[@]}" >/dev/null
fi
NODE_PATH="$PREFIX/node_modules" exec node "$HERE/capture.js"
