#!/usr/bin/env bash
# The Python artifacts of DIST, each installed from itself in a clean temporary folder:
# - the wheel in a bare venv on CPython 3.10 (the lowest its abi3 tag allows), the machine's
#   python3 (3.11) and CPython 3.13, with no Rust toolchain on PATH
#   (scripts/dist/python-interpreters.sh provides 3.10 and 3.13 under build/pythons);
# - the sdist in a venv with Rust, built from nothing but itself (with the pinned maturin as
#   its build backend, the dev profile: `make dist` already made the one release build).
# Each installation runs `python -m keyroute.conformance` on the corpus it ships (JUnit XML
# read back), and the drop-ins once.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DIST=${1:?usage: test-python.sh DISTDIR}
DIST=$(cd "$DIST" && pwd)
cd "$ROOT"
VERSION=$(scripts/dist/version.sh)
# shellcheck source=scripts/dist/platforms.sh
source scripts/dist/platforms.sh # MATURIN_PIN, the builders' own
NO_RUST_PATH=$(scripts/dist/no-rust-path.sh)
export PIP_DISABLE_PIP_VERSION_CHECK=1

shopt -s nullglob
wheels=("$DIST"/keyroute-"$VERSION"-cp310-abi3-*manylinux*_x86_64.whl)
[[ ${#wheels[@]} -eq 1 ]] || { echo "test-python: no single keyroute $VERSION abi3 manylinux wheel in $DIST" >&2; exit 1; }
wheel=${wheels[0]}
sdist="$DIST/keyroute-$VERSION.tar.gz"
[[ -f $sdist ]] || { echo "test-python: no $sdist" >&2; exit 1; }

mapfile -t extra < <(scripts/dist/python-interpreters.sh)
pythons=("${extra[0]}" "$(command -v python3)" "${extra[1]}")
want_versions=(3.10 3.11 3.13)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs the installed package of venv $1 from folder $2: the shipped corpus, JUnit, drop-ins.
use_package() {
  local venv=$1 dir=$2 label=$3
  (
    cd "$dir"
    "$venv/bin/python" - "$VERSION" <<'EOF'
import sys
from pathlib import Path

import keyroute
from keyroute import conformance
from keyroute.pymemcache import RendezvousHash
from keyroute.uhashring import HashRing

version = sys.argv[1]
assert keyroute.__version__ == version, (keyroute.__version__, version)
site = Path(keyroute.__file__).resolve().parent
assert conformance.VECTORS == site / "conformance" / "vectors" / "v1", conformance.VECTORS
assert sys.prefix in str(site), f"keyroute imported from {site}, not from the venv {sys.prefix}"
ring = HashRing(nodes={"cache-a": 1, "cache-b": 2}, hash_fn="ketama")
assert ring.get_node("user:42") in ("cache-a", "cache-b")
assert RendezvousHash(["a:1", "b:1"]).get_node(b"k") in ("a:1", "b:1")
EOF
    "$venv/bin/python" -m keyroute.conformance --junit report.xml >conformance.log 2>&1 || {
      tail -n 40 conformance.log >&2; echo "test-python: $label: the shipped corpus fails" >&2; exit 1; }
    summary=$(tail -n 1 conformance.log)
    [[ $summary == "keyroute conformance: "*" 0 failed, "* ]] || { echo "test-python: $label: $summary" >&2; exit 1; }
    "$venv/bin/python" - <<'EOF'
import xml.etree.ElementTree as ET

root = ET.parse("report.xml").getroot()
assert root.tag == "testsuites" and int(root.get("failures")) == 0, root.attrib
cases = root.findall("testsuite/testcase")
assert len(cases) == int(root.get("tests")) > 1000, (len(cases), root.get("tests"))
EOF
    echo "test-python: $label: ${summary#keyroute conformance: }"
  )
}

for i in "${!pythons[@]}"; do
  py=${pythons[$i]}
  got=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  [[ $got == "${want_versions[$i]}" ]] || { echo "test-python: $py is Python $got, not ${want_versions[$i]}" >&2; exit 1; }
  dir="$work/wheel-$got"
  mkdir -p "$dir"
  "$py" -m venv "$dir/venv"
  # No Rust from here on: an installation that tried to build from source would fail.
  PATH="$NO_RUST_PATH" "$dir/venv/bin/python" -m pip install -q --no-index "$wheel"
  PATH="$NO_RUST_PATH" use_package "$dir/venv" "$dir" "wheel on CPython $("$dir/venv/bin/python" -c 'import platform; print(platform.python_version())')"
done

# The wheel's metadata, as an index shows it.
"${pythons[1]}" - "$wheel" "$VERSION" <<'EOF'
import re
import sys
import zipfile
from email.parser import Parser

wheel, version = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    meta = Parser().parsestr(z.read(f"keyroute-{version}.dist-info/METADATA").decode())
assert meta["Version"] == version and meta["Requires-Python"] == ">=3.10", (meta["Version"], meta["Requires-Python"])
assert meta["License-Expression"] == "MIT OR Apache-2.0", meta["License-Expression"]
assert sorted(meta.get_all("License-File")) == ["LICENSE-APACHE", "LICENSE-MIT"], meta.get_all("License-File")
urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
assert {"Homepage", "Source", "Documentation", "Changelog", "Issues"} <= set(urls), urls
classifiers = meta.get_all("Classifier")
assert "Programming Language :: Python :: 3.10" in classifiers and "Typing :: Typed" in classifiers, classifiers
body = meta.get_payload()
first_install = next(line for line in body.splitlines() if line.startswith("$ pip install"))
assert re.fullmatch(r"\$ pip install -q \./keyroute-[0-9.]+-cp310-abi3-\S+\.whl", first_install), f"the README's first install line: {first_install!r}"
print(f"test-python: wheel metadata: {len(classifiers)} classifiers, {len(urls)} project URLs, licence files, README")
EOF

# The sdist builds from itself, with Rust on PATH and the pinned maturin as its backend.
dir="$work/sdist"
mkdir -p "$dir/src"
python3 -m venv "$dir/venv"
"$dir/venv/bin/python" -m pip install -q "maturin==$MATURIN_PIN"
echo "test-python: building the sdist from itself (dev profile)"
# maturin stamps every file of an sdist with one fixed time (2006), and unpacking keeps it, so
# cargo, which judges freshness by modification times, would find every source older than the
# last build in the cache (build/py-sdist-target) and reuse that build's native module whatever
# the sdist holds. So the sdist is unpacked here with the time of unpacking (tar --touch): the
# workspace's crates always build from it, and only the dependencies come from the cache.
sdist_target="$ROOT/build/py-sdist-target"
tar -xzf "$sdist" -C "$dir/src" --touch
[[ -f $dir/src/keyroute-$VERSION/pyproject.toml ]] || { echo "test-python: $sdist holds no keyroute-$VERSION/pyproject.toml" >&2; exit 1; }
touch "$dir/build-started"
# (The backend runs the venv's maturin command, found on PATH.)
PATH="$dir/venv/bin:$PATH" MATURIN_PEP517_ARGS="--profile dev" CARGO_TARGET_DIR="$sdist_target" \
  "$dir/venv/bin/python" -m pip install -q --no-index --no-build-isolation "$dir/src/keyroute-$VERSION"
# The module installed must be the one just built from the sdist, not one left in the cache.
built=$(find "$sdist_target/debug" -maxdepth 1 -name 'libkeyroute_py.so' -newer "$dir/build-started")
[[ -n $built ]] || {
  echo "test-python: the sdist's native module was not built from it ($sdist_target/debug/libkeyroute_py.so is older)" >&2; exit 1; }
use_package "$dir/venv" "$dir" "sdist built on CPython $(python3 -c 'import platform; print(platform.python_version())')"
echo "test-python: the wheel on CPython 3.10, 3.11 and 3.13 without Rust, and the sdist from source: all pass"
