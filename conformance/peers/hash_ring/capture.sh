#!/usr/bin/env bash
# peer-kind: python2 (needs CPython 2.7; re-captured by `make conformance-peers`)
# Python hash_ring 1.3.1 is Python-2-only (`import hash_ring` on Python 3 raises SyntaxError:
# `except ImportError, e:` in hash_ring/__init__.py; the module also uses xrange and
# map(ord, md5.digest())). So this capture runs the package under CPython 2.7.
#
# Finds a CPython 2.7 interpreter ($PYTHON2, python2.7, python2, or a pyenv 2.7.x), installs
# hash_ring==1.3.1 with that interpreter's pip into conformance/peers/.work/hash_ring-py27 if
# needed, then captures conformance/vectors/v1/python-hash-ring-*.json. Idempotent.
set -euo pipefail
PIN="1.3.1"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(cd "$HERE/.." && pwd)/.work"
TARGET="$WORK/hash_ring-py27"

is_py27() { "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (2, 7))' >/dev/null 2>&1; }
PY2=""
cands=("${PYTHON2:-}" python2.7 python2)
if command -v pyenv >/dev/null 2>&1; then
  for d in "$(pyenv root)"/versions/2.7*; do cands+=("$d/bin/python2.7"); done
fi
for d in "$HOME"/.pyenv/versions/2.7*; do cands+=("$d/bin/python2.7"); done
for c in "${cands[@]}"; do
  [ -n "$c" ] || continue
  if is_py27 "$c"; then PY2="$c"; break; fi
done
if [ -z "$PY2" ]; then
  echo "hash_ring capture: no CPython 2.7 interpreter found (set PYTHON2=/path/to/python2.7)." >&2
  echo "hash_ring $PIN cannot be imported on Python 3; nothing captured." >&2
  exit 1
fi

mkdir -p "$WORK"
if ! PYTHONPATH="$TARGET" "$PY2" -c "import sys, pkg_resources, hash_ring; sys.exit(pkg_resources.get_distribution('hash_ring').version != '$PIN' or not hash_ring.__file__.startswith('$TARGET'))" >/dev/null 2>&1; then
  rm -rf "$TARGET"
  "$PY2" -m pip install --quiet --disable-pip-version-check --no-compile --target "$TARGET" "hash_ring==$PIN"
fi
PYTHONPATH="$TARGET" exec "$PY2" "$HERE/capture.py"
