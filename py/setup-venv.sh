#!/usr/bin/env bash
# Sourced by py/test.sh and py/bench.sh: a venv at build/py-venv (made once, then reused) with
# keyroute built from ./py and the test extras installed. Sets ROOT and VENV.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV="$ROOT/build/py-venv"         # the repo root found from this script, never hard-coded
cd "$ROOT"
export CARGO_TARGET_DIR="$ROOT/target"          # share the workspace's build cache
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
export PIP_DISABLE_PIP_VERSION_CHECK=1

# shellcheck source=scripts/lib.sh
source scripts/lib.sh

if [ -x "$VENV/bin/python" ] && ! "$VENV/bin/python" -c 'import sys' 2>/dev/null; then
  echo "py: $VENV is broken; recreating it"
  rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
  PYTHON=${PYTHON:-python3}
  if ! "$PYTHON" -m venv "$VENV" 2>/dev/null; then
    rm -rf "$VENV"
    apt_install python3-venv               # Debian's python3 needs it for ensurepip
    "$PYTHON" -m venv "$VENV"
  fi
fi
echo "py: building and installing ./py[test] into $VENV"
"$VENV/bin/python" -m pip install -q './py[test]'
