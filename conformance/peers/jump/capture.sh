#!/usr/bin/env bash
# peer-kind: library (re-captured live by `make test`, see recapture-check.sh)
# Install jump-consistent-hash (pinned) into conformance/peers/.work/jump-venv if needed, then capture
# conformance/vectors/v1/jump-u64be-*.json. Idempotent; safe to re-run.
set -euo pipefail
PIN="3.6.0"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(cd "$HERE/.." && pwd)/.work"
VENV="$WORK/jump-venv"
PY="${PYTHON:-python3}"
mkdir -p "$WORK"
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
if ! "$VENV/bin/python" -c "import sys, importlib.metadata as m; sys.exit(m.version('jump-consistent-hash') != '$PIN')" 2>/dev/null; then
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "jump-consistent-hash==$PIN"
fi
exec "$VENV/bin/python" "$HERE/capture.py"
