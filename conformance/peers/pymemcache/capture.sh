#!/usr/bin/env bash
# peer-kind: library (re-captured live by `make test`, see recapture-check.sh)
# Install pymemcache (pinned) into conformance/peers/.work/pymemcache-venv if needed, then capture
# conformance/vectors/v1/pymemcache-rendezvous-*.json. Idempotent; safe to re-run.
set -euo pipefail
PIN="4.0.0"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(cd "$HERE/.." && pwd)/.work"
VENV="$WORK/pymemcache-venv"
PY="${PYTHON:-python3}"
mkdir -p "$WORK"
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
if ! "$VENV/bin/python" -c "import sys, importlib.metadata as m; sys.exit(m.version('pymemcache') != '$PIN')" 2>/dev/null; then
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "pymemcache==$PIN"
fi
exec "$VENV/bin/python" "$HERE/capture.py"
