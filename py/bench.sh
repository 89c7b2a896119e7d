#!/usr/bin/env bash
# keyroute's Python binding against uhashring 2.5 (py/bench.py), after the same setup as
# py/test.sh. Extra arguments go to bench.py (e.g. --quick, --runs 9).
set -euo pipefail
source "$(dirname "$0")/setup-venv.sh"
"$VENV/bin/python" py/bench.py "$@"
