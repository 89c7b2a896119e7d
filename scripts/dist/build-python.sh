#!/usr/bin/env bash
# The Python artifacts into OUT (scripts/dist/build.sh runs this with dist/):
#   keyroute-VERSION-cp310-abi3-manylinux2014_<arch>.manylinux_2_17_<arch>.whl
#   keyroute-VERSION-cp310-abi3-musllinux_1_2_<arch>.whl
#       one release build of py/ (PyO3 abi3: CPython 3.10 and later) per platform that ships a
#       wheel (scripts/dist/platforms.sh: x86_64 and aarch64, each for glibc and for musl),
#       linked by zig: against glibc 2.17's symbols (the machine's own glibc is newer, and a
#       library linked against it needs GLIBC_2.34 symbols), or against musl. Its tag is checked
#       by maturin's auditwheel check (which fails the build on a newer glibc symbol or a library
#       outside the policy). `make test-cross` runs every wheel but the build machine's on its
#       platform's CPython (scripts/dist/run-platforms.sh).
#   keyroute-VERSION.tar.gz
#       the sdist: py/, the workspace crates it builds from (core, bindings) and the
#       conformance corpus; it builds from itself (scripts/dist/test-python.sh)
# Both carry the workspace's version (scripts/dist/version.sh); a different one fails here.
# maturin and zig (both pinned, from the Python package index) live in a venv at
# build/py-dist-venv, made once (scripts/dist/platforms.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:?usage: build-python.sh OUTDIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$ROOT"
VERSION=$(scripts/dist/version.sh)
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
export PIP_DISABLE_PIP_VERSION_CHECK=1
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# shellcheck source=scripts/dist/platforms.sh
source scripts/dist/platforms.sh
VENV_BIN=$(dist_venv)
MATURIN=("$VENV_BIN/python" -m maturin)

# The corpus is a link in the checkout (py/python/keyroute/conformance/vectors): it must
# resolve, or the artifacts would ship without it.
[[ -f py/python/keyroute/conformance/vectors/v1/hostile.json ]] || {
  echo "build-python: py/python/keyroute/conformance/vectors does not reach conformance/vectors" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# check_wheel WHEEL: it holds the extension, the package and the whole corpus.
check_wheel() {
  local files want shipped have
  files=$(python3 -m zipfile -l "$1" | awk '{print $1}')
  for want in keyroute/_native.abi3.so keyroute/conformance/__main__.py keyroute/conformance/vectors/v1/hostile.json \
    keyroute/uhashring/__init__.py keyroute/uhashring/monkey.py keyroute/py.typed "keyroute-$VERSION.dist-info/licenses/LICENSE-MIT"; do
    grep -qxF "$want" <<<"$files" || { echo "build-python: $(basename "$1") lacks $want" >&2; exit 1; }
  done
  shipped=$(grep -c '^keyroute/conformance/vectors/v1/[^/]*\.json' <<<"$files" || true)
  have=$(find conformance/vectors/v1 -maxdepth 1 -name '*.json' | wc -l)
  [[ $shipped -eq $have ]] || { echo "build-python: $(basename "$1") ships $shipped vector files of $have" >&2; exit 1; }
}

for platform in $(platforms_with wheel); do
  platform "$platform"
  arch=${platform%%-*}
  policy=$(wheel_policy "$platform")
  target=()
  [[ $PLATFORM_TOOL == host ]] || target=(--target "$PLATFORM_TARGET")
  # The Rust target of a cross platform, added by platform_cargo when rustup lacks it.
  [[ $PLATFORM_TOOL == host ]] || platform_cargo "$platform"
  echo "build-python: $platform wheel ($("${MATURIN[@]}" --version), --release, --compatibility $policy, zig $("$VENV_BIN/python" -m ziglang version))"
  # maturin finds zig through the ziglang package of the venv's python.
  PATH="$VENV_BIN:$PATH" "${MATURIN[@]}" build --release --locked --manifest-path py/Cargo.toml "${target[@]}" \
    --compatibility "$policy" --zig --auditwheel check --out "$stage/$platform"
  shopt -s nullglob
  wheels=("$stage/$platform"/keyroute-*.whl)
  shopt -u nullglob
  [[ ${#wheels[@]} -eq 1 ]] || { echo "build-python: expected one $platform wheel in $stage/$platform" >&2; ls -l "$stage/$platform" >&2; exit 1; }
  wheel=$(basename "${wheels[0]}")
  # maturin names both tags of the manylinux policy: manylinux2014_x86_64.manylinux_2_17_x86_64.
  [[ $wheel == "keyroute-$VERSION-cp310-abi3-"*"${policy}_$arch.whl" ]] || {
    echo "build-python: $wheel is not keyroute $VERSION, abi3 from cp310, $policy, $arch" >&2; exit 1; }
  check_wheel "${wheels[0]}"
  mv "${wheels[0]}" "$OUT/"
  echo "build-python: $OUT/$wheel"
done
echo "build-python: sdist"
"${MATURIN[@]}" sdist --manifest-path py/Cargo.toml --out "$stage/sdist"
shopt -s nullglob
sdists=("$stage"/sdist/keyroute-*.tar.gz)
shopt -u nullglob
[[ ${#sdists[@]} -eq 1 ]] || { echo "build-python: expected one sdist in $stage/sdist" >&2; exit 1; }
sdist=$(basename "${sdists[0]}")
[[ $sdist == "keyroute-$VERSION.tar.gz" ]] || { echo "build-python: $sdist is not keyroute-$VERSION.tar.gz" >&2; exit 1; }

# What the sdist must hold: the crates, the lock file and the corpus.
listing=$(tar -tzf "${sdists[0]}")
for want in Cargo.lock core/src/lib.rs bindings/src/lib.rs py/src/lib.rs pyproject.toml \
  python/keyroute/conformance/vectors/v1/hostile.json; do
  grep -qxF "keyroute-$VERSION/$want" <<<"$listing" || { echo "build-python: the sdist lacks $want" >&2; exit 1; }
done
mv "${sdists[0]}" "$OUT/"
echo "build-python: $OUT/$sdist"
