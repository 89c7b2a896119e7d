#!/usr/bin/env bash
# The Python artifacts into OUT (scripts/dist/build.sh runs this with dist/):
#   keyroute-VERSION-cp310-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
#       one release build of py/ (PyO3 abi3: CPython 3.10 and later), linked by zig against
#       glibc 2.17's symbols (the machine's own glibc is newer, and a library linked against
#       it needs GLIBC_2.34 symbols), its manylinux tag checked by maturin's auditwheel check
#       (which fails the build on a newer glibc symbol or a library outside the policy)
#   keyroute-VERSION.tar.gz
#       the sdist: py/, the workspace crates it builds from (core, bindings) and the
#       conformance corpus; it builds from itself (scripts/dist/test-python.sh)
# Both carry the workspace's version (scripts/dist/version.sh); a different one fails here.
# maturin and zig (both pinned, from the Python package index) live in a venv at
# build/py-dist-venv, made once.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:?usage: build-python.sh OUTDIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$ROOT"
VERSION=$(scripts/dist/version.sh)
MATURIN_PIN="1.16.0"
ZIG_PIN="0.14.1"
MANYLINUX="manylinux_2_17"
VENV="$ROOT/build/py-dist-venv"
export CARGO_TARGET_DIR="$ROOT/target"
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
export PIP_DISABLE_PIP_VERSION_CHECK=1

if [[ ! -x $VENV/bin/python ]] || ! "$VENV/bin/python" -c 'import sys' 2>/dev/null; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
fi
if [[ $("$VENV/bin/python" -m maturin --version 2>/dev/null) != "maturin $MATURIN_PIN" ]] ||
  [[ $("$VENV/bin/python" -m ziglang version 2>/dev/null) != "$ZIG_PIN" ]]; then
  "$VENV/bin/python" -m pip install -q "maturin==$MATURIN_PIN" "ziglang==$ZIG_PIN"
fi
MATURIN=("$VENV/bin/python" -m maturin)

# The corpus is a link in the checkout (py/python/keyroute/conformance/vectors): it must
# resolve, or the artifacts would ship without it.
[[ -f py/python/keyroute/conformance/vectors/v1/hostile.json ]] || {
  echo "build-python: py/python/keyroute/conformance/vectors does not reach conformance/vectors" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
echo "build-python: wheel (maturin $MATURIN_PIN, --release, --compatibility $MANYLINUX, zig $ZIG_PIN)"
# maturin finds zig through the ziglang package of the venv's python.
PATH="$VENV/bin:$PATH" "${MATURIN[@]}" build --release --locked --manifest-path py/Cargo.toml \
  --compatibility "$MANYLINUX" --zig --auditwheel check --out "$stage"
echo "build-python: sdist"
"${MATURIN[@]}" sdist --manifest-path py/Cargo.toml --out "$stage"

shopt -s nullglob
wheels=("$stage"/keyroute-*.whl)
sdists=("$stage"/keyroute-*.tar.gz)
[[ ${#wheels[@]} -eq 1 && ${#sdists[@]} -eq 1 ]] || { echo "build-python: expected one wheel and one sdist in $stage" >&2; ls -l "$stage" >&2; exit 1; }
wheel=$(basename "${wheels[0]}")
sdist=$(basename "${sdists[0]}")
# maturin names both tags of the policy: manylinux2014_x86_64.manylinux_2_17_x86_64.
[[ $wheel == "keyroute-$VERSION-cp310-abi3-"*"${MANYLINUX}_x86_64"*.whl ]] || {
  echo "build-python: $wheel is not keyroute $VERSION, abi3 from cp310, $MANYLINUX" >&2; exit 1; }
[[ $sdist == "keyroute-$VERSION.tar.gz" ]] || { echo "build-python: $sdist is not keyroute-$VERSION.tar.gz" >&2; exit 1; }

# What each artifact must hold: the extension and the corpus in the wheel; the crates, the
# lock file and the corpus in the sdist.
files=$(python3 -m zipfile -l "${wheels[0]}")
for want in keyroute/_native.abi3.so keyroute/conformance/__main__.py keyroute/conformance/vectors/v1/hostile.json \
  keyroute/uhashring/__init__.py keyroute/uhashring/monkey.py keyroute/py.typed "keyroute-$VERSION.dist-info/licenses/LICENSE-MIT"; do
  grep -qF "$want" <<<"$files" || { echo "build-python: the wheel lacks $want" >&2; exit 1; }
done
listing=$(tar -tzf "${sdists[0]}")
for want in Cargo.lock core/src/lib.rs bindings/src/lib.rs py/src/lib.rs pyproject.toml \
  python/keyroute/conformance/vectors/v1/hostile.json; do
  grep -qxF "keyroute-$VERSION/$want" <<<"$listing" || { echo "build-python: the sdist lacks $want" >&2; exit 1; }
done
shipped=$(grep -c '^keyroute/conformance/vectors/v1/[^/]*\.json' <<<"$(python3 -m zipfile -l "${wheels[0]}" | awk '{print $1}')" || true)
have=$(find conformance/vectors/v1 -maxdepth 1 -name '*.json' | wc -l)
[[ $shipped -eq $have ]] || { echo "build-python: the wheel ships $shipped vector files of $have" >&2; exit 1; }

mv "${wheels[0]}" "${sdists[0]}" "$OUT/"
echo "build-python: $OUT/$wheel"
echo "build-python: $OUT/$sdist"
