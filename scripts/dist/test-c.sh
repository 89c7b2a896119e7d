#!/usr/bin/env bash
# The C release tarball, used as it ships: unpacked into a clean temporary folder and built
# against with no Rust toolchain on PATH.
#
#   scripts/dist/test-c.sh DIST
#
# 1. a CMake project (scripts/dist/c: find_package(keyroute MAJOR.MINOR REQUIRED), derived from
#    the release's version) links keyroute::keyroute and keyroute::static; asking for the next
#    minor version must be refused;
# 2. the same program through pkg-config: `keyroute` (shared) and `keyroute-static` with
#    `--static`;
#    every program is compiled with -std=c99 -Wall -Wextra -pedantic -Werror, checks that the
#    header and the library agree, and routes cases of five vector files read from the installed
#    corpus (CMake's keyroute_VECTORS_DIR, pkg-config's vectorsdir);
# 3. readelf: the library's SONAME is libkeyroute.so.0.MINOR (MAJOR from 1.0), the links are in
#    place, each shared program NEEDs the SONAME, no static program needs libkeyroute;
# 4. the C conformance runner (ffi/tests/conformance.c) built against the install runs the whole
#    installed corpus, shared and static.
# Installs cmake, gcc, pkg-config, binutils and libjansson-dev with apt when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
dist=$(cd "${1:?usage: test-c.sh DIST}" && pwd)
version=$(scripts/dist/version.sh)
major=$(cut -d. -f1 <<<"$version")
minor=$(cut -d. -f2 <<<"$version")
patch=$(cut -d. -f3 <<<"$version" | sed 's/[^0-9].*//')
if [[ $major == 0 ]]; then soname="libkeyroute.so.0.$minor"; else soname="libkeyroute.so.$major"; fi
shopt -s nullglob
tarballs=("$dist/keyroute-$version"-x86_64-linux-gnu.tar.gz)
((${#tarballs[@]} == 1)) || { echo "test-c: expected keyroute-$version-x86_64-linux-gnu.tar.gz in $dist, found ${#tarballs[@]}" >&2; exit 1; }
shopt -u nullglob

# shellcheck source=scripts/lib.sh
source scripts/lib.sh
need=(cmake gcc make pkg-config binutils libjansson-dev)
command -v python3 >/dev/null || need+=(python3)
apt_install "${need[@]}"

PATH=$(scripts/dist/no-rust-path.sh)
export PATH
unset CARGO RUSTC RUSTUP_TOOLCHAIN
if command -v cargo || command -v rustc; then echo "test-c: Rust is still on PATH" >&2; exit 1; fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xzf "${tarballs[0]}"
prefix="$tmp/$(basename "${tarballs[0]}" .tar.gz)"
[[ -f $prefix/include/keyroute.h && -f $prefix/README.md && -f $prefix/LICENSE-MIT && -f $prefix/LICENSE-APACHE ]] ||
  { echo "test-c: the tarball lacks the header, README or licences" >&2; exit 1; }
cp -R scripts/dist/c "$tmp/project"
CFLAGS=(-std=c99 -Wall -Wextra -pedantic -Werror)
failures=0
check() { # description, command...
  local what="$1"
  shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what" >&2; failures=$((failures + 1)); fi
}

# Five vector files of the installed corpus as `spec` + `key<TAB>node` lines (text keys only).
cases_from() { # vectors dir, output dir
  mkdir -p "$2"
  python3 - "$1/v1" "$2" <<'EOF'
import json
import sys
from pathlib import Path

src, out = Path(sys.argv[1]), Path(sys.argv[2])
for name in ("libmemcached-ketama-weighted-5", "native-ring-5w", "native-maglev-4", "redis-cluster-3",
             "twemproxy-fnv1a_64-hashtag-3"):
    doc = json.loads((src / f"{name}.json").read_text(encoding="utf-8"))
    lines = [json.dumps(doc["spec"], separators=(",", ":"))]
    for case in doc["cases"]:
        key, node = case.get("key"), case.get("node")
        if isinstance(key, str) and isinstance(node, str) and not any(c in key + node for c in "\t\n\0"):
            lines.append(f"{key}\t{node}")
    if len(lines) < 11:
        sys.exit(f"{name}: fewer than 10 text cases")
    (out / f"{name}.cases").write_text("\n".join(lines[:101]) + "\n", encoding="utf-8")
EOF
}

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
needs_soname() { # binary: NEEDs the SONAME and no other libkeyroute name
  [[ $(needed "$1" | grep '^libkeyroute' || true) == "$soname" ]]
}
needs_no_keyroute() { ! grep -q '^libkeyroute' <<<"$(needed "$1")"; }

# ---------------------------------------------------------------- 3. the library's names
lib="$prefix/lib"
check "SONAME of libkeyroute.so.$version is $soname" \
  bash -c "[[ \$(readelf -d '$lib/libkeyroute.so.$version') == *'Library soname: [$soname]'* ]]"
check "links: libkeyroute.so -> $soname -> libkeyroute.so.$version" \
  bash -c "[[ \$(readlink '$lib/libkeyroute.so') == '$soname' && \$(readlink '$lib/$soname') == 'libkeyroute.so.$version' ]]"

# ---------------------------------------------------------------- 1. CMake
build="$tmp/cmake-build"
if cmake -S "$tmp/project" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" -DKEYROUTE_WANTED="$major.$minor" \
  -DCMAKE_C_FLAGS="${CFLAGS[*]}" -DCMAKE_BUILD_TYPE=Release >"$tmp/cmake.log" 2>&1 &&
  cmake --build "$build" >>"$tmp/cmake.log" 2>&1; then
  echo "ok: find_package(keyroute $major.$minor REQUIRED); consumer-shared and consumer-static built"
  cases_from "$(cat "$build/vectors-dir.txt")" "$tmp/cases-cmake"
  check "CMake, shared: routes the corpus' cases" "$build/consumer-shared" "$tmp"/cases-cmake/*.cases
  check "CMake, static: routes the corpus' cases" "$build/consumer-static" "$tmp"/cases-cmake/*.cases
  check "CMake, shared: NEEDED is $soname" needs_soname "$build/consumer-shared"
  check "CMake, static: needs no libkeyroute" needs_no_keyroute "$build/consumer-static"
else
  cat "$tmp/cmake.log" >&2
  check "CMake project configures and builds" false
fi
refused() { # version: find_package(keyroute VERSION) must find the package and refuse it
  ! cmake -S "$tmp/project" -B "$tmp/cmake-$1" -DCMAKE_PREFIX_PATH="$prefix" -DKEYROUTE_WANTED="$1" >"$tmp/cmake-$1.log" 2>&1 &&
    grep -q "compatible with requested version \"$1\"" "$tmp/cmake-$1.log" &&
    grep -q "keyroute-config.cmake, version: $version" "$tmp/cmake-$1.log"
}
check "find_package(keyroute $major.$((minor + 1))) is refused (another ABI line)" refused "$major.$((minor + 1))"
if [[ $major == 0 && $minor -gt 0 ]]; then
  check "find_package(keyroute 0.$((minor - 1))) is refused (another ABI line)" refused "0.$((minor - 1))"
fi
check "find_package(keyroute $major.$minor.$((patch + 1))) is refused (newer than this release)" \
  refused "$major.$minor.$((patch + 1))"

# ---------------------------------------------------------------- 2. pkg-config
export PKG_CONFIG_PATH="$lib/pkgconfig"
check "pkg-config: keyroute $version" test "$(pkg-config --modversion keyroute)" = "$version"
# shellcheck disable=SC2046
gcc "${CFLAGS[@]}" "$tmp/project/consumer.c" $(pkg-config --cflags --libs keyroute) -o "$tmp/pc-shared"
# shellcheck disable=SC2046
gcc "${CFLAGS[@]}" "$tmp/project/consumer.c" $(pkg-config --static --cflags --libs keyroute-static) -o "$tmp/pc-static"
cases_from "$(pkg-config --variable=vectorsdir keyroute)" "$tmp/cases-pc"
check "pkg-config, shared: routes the corpus' cases" env LD_LIBRARY_PATH="$lib" "$tmp/pc-shared" "$tmp"/cases-pc/*.cases
check "pkg-config --static: routes the corpus' cases" "$tmp/pc-static" "$tmp"/cases-pc/*.cases
check "pkg-config, shared: NEEDED is $soname" needs_soname "$tmp/pc-shared"
check "pkg-config --static: needs no libkeyroute" needs_no_keyroute "$tmp/pc-static"
check "the shared program does not start without the library" bash -c "! '$tmp/pc-shared' /dev/null 2>/dev/null"

# ---------------------------------------------------------------- 4. the corpus through the C runner
vectors="$(pkg-config --variable=vectorsdir keyroute)/v1"
# shellcheck disable=SC2046
gcc "${CFLAGS[@]}" "$ROOT/ffi/tests/conformance.c" $(pkg-config --cflags --libs keyroute jansson) -o "$tmp/conformance-shared"
# shellcheck disable=SC2046
gcc "${CFLAGS[@]}" "$ROOT/ffi/tests/conformance.c" $(pkg-config --static --cflags --libs keyroute-static) \
  $(pkg-config --libs jansson) -o "$tmp/conformance-static"
for link in shared static; do
  if (cd "$tmp" && LD_LIBRARY_PATH="$lib" "$tmp/conformance-$link" "$vectors") >"$tmp/conformance-$link.log" 2>&1; then
    echo "ok: the installed corpus through the C conformance runner ($link): $(grep ' files (' "$tmp/conformance-$link.log")"
  else
    tail -n 40 "$tmp/conformance-$link.log" >&2
    check "the installed corpus through the C conformance runner ($link)" false
  fi
done

if ((failures)); then
  echo "test-c: $failures check(s) failed" >&2
  exit 1
fi
echo "test-c: keyroute $version C tarball: CMake and pkg-config, shared and static, corpus: ok"
