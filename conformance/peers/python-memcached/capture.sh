#!/usr/bin/env bash
# peer-kind: library (re-captured live by `make test`, see recapture-check.sh)
# Install python-memcached (pinned) into conformance/peers/.work/python-memcached-venv if needed,
# then capture conformance/vectors/v1/python-memcached-*.json. Idempotent; safe to re-run.
# No memcached is needed: the live servers are listening sockets on 127.0.0.1.
set -euo pipefail
PIN="1.62"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(cd "$HERE/.." && pwd)/.work"
VENV="$WORK/python-memcached-venv"
PY="${PYTHON:-python3}"
mkdir -p "$WORK"
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
if ! "$VENV/bin/python" -c "import sys, importlib.metadata as m; sys.exit(m.version('python-memcached') != '$PIN')" 2>/dev/null; then
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "python-memcached==$PIN"
fi
exec "$VENV/bin/python" "$HERE/capture.py"
