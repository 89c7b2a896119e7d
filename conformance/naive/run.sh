#!/usr/bin/env bash
# Independent naive cross-check of keyroute's native vectors (see README.md in this folder).
# Creates (or reuses) a venv under build/naive-venv, installs the pinned xxhash, runs check.py.
set -euo pipefail

XXHASH_VERSION=4.1.0
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/build/naive-venv"

if [ ! -x "$venv/bin/python" ]; then
    mkdir -p "$root/build"
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import sys, xxhash; sys.exit(xxhash.VERSION != '$XXHASH_VERSION')" 2>/dev/null; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "xxhash==$XXHASH_VERSION"
fi

exec "$venv/bin/python" "$here/check.py" "$@"
