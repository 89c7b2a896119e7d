#!/usr/bin/env bash
# The one install of the C library: `make -C ffi install` and the release tarball
# (scripts/dist/build-c.sh) both run it.
#
#   ffi/install.sh --prefix /usr/local [--libdir lib] [--destdir DIR] [--profile release]
#                  [--relocatable] [--target TRIPLE]
#
# Builds keyroute-ffi (cargo rustc, asking rustc for the system libraries the static library
# needs: --print native-static-libs), then installs under DESTDIR/PREFIX:
#
#   include/keyroute.h
#   LIBDIR/libkeyroute.so.X.Y.Z, the SONAME link and the dev link (.dylib names on macOS; a DLL
#     in bin/ on Windows): the names and the SONAME rule come from ffi/build.rs
#   LIBDIR/libkeyroute.a (or keyroute.lib)
#   LIBDIR/pkgconfig/keyroute.pc, keyroute-static.pc (Libs.private: rustc's list)
#   LIBDIR/cmake/keyroute/keyroute-config.cmake, keyroute-config-version.cmake
#   share/keyroute/vectors/ (the conformance corpus), share/doc/keyroute/ (licences)
#
# LIBDIR is relative to PREFIX (lib/x86_64-linux-gnu works). The library's file names follow
# the target cargo builds for (--target, or CARGO_BUILD_TARGET; CARGO may be another cargo, such
# as cargo-zigbuild, whose target may carry a glibc floor: aarch64-unknown-linux-gnu.2.17). --relocatable writes the
# pkg-config files with a prefix found from their own place (${pcfiledir}), for an install that
# is unpacked somewhere else (the tarball); the CMake files are always relocatable.
set -euo pipefail

FFI="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$FFI/.." && pwd)"
CARGO="${CARGO:-cargo}"

prefix=/usr/local
libdir=lib
destdir=
profile=release
relocatable=0
target=()
die() {
  echo "ffi/install.sh: $*" >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
    --libdir) libdir="${2:?--libdir needs a directory}"; shift 2 ;;
    --destdir) destdir="${2-}"; shift 2 ;;
    --profile) profile="${2:?--profile needs a name}"; shift 2 ;;
    --relocatable) relocatable=1; shift ;;
    --target) target=(--target "${2:?--target needs a target triple}"); shift 2 ;;
    *) die "unknown argument: $1 (see the comment at the top of this script)" ;;
  esac
done
[[ $prefix == /* ]] || die "--prefix must be an absolute path: $prefix"
[[ $libdir != /* && $libdir != *..* && -n $libdir ]] || die "--libdir must be a path under the prefix, such as lib or lib/x86_64-linux-gnu: $libdir"
libdir="${libdir%/}"
[[ $profile == debug ]] && profile=dev

# ---------------------------------------------------------------- build
# One build, read back as JSON: the artifacts' paths, the build script's OUT_DIR (the install
# names ffi/build.rs wrote) and rustc's native-static-libs note. Cargo replays the note when
# the library is already fresh, so a second install builds nothing.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$ROOT" && "$CARGO" rustc -p keyroute-ffi --lib --locked --profile "$profile" "${target[@]}" --message-format=json \
  -- --print native-static-libs) >"$work/build.json"
python3 - "$work/build.json" >"$work/build.env" <<'EOF'
import json
import sys

cdylib, staticlib, out_dir, native = [], [], "", None
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        if not line.startswith("{"):
            continue
        msg = json.loads(line)
        pkg = msg.get("package_id", "")
        if "keyroute-ffi" not in pkg:
            continue
        reason = msg.get("reason")
        if reason == "compiler-artifact":
            kinds = msg["target"]["kind"]
            for path in msg["filenames"]:
                (staticlib if path.endswith((".a", ".lib")) and "staticlib" in kinds and not path.endswith((".dll.a", ".dll.lib")) else cdylib).append(path)
        elif reason == "build-script-executed":
            out_dir = msg["out_dir"]
        elif reason == "compiler-message":
            text = msg["message"]["message"]
            if text.startswith("native-static-libs:"):
                native = text.split(":", 1)[1].strip()
            elif msg["message"]["level"] in ("warning", "error"):
                sys.stderr.write(msg["message"].get("rendered") or text)
if native is None:
    sys.exit("ffi/install.sh: rustc printed no native-static-libs note for keyroute-ffi")
if len(staticlib) != 1 or not cdylib or not out_dir:
    sys.exit(f"ffi/install.sh: unexpected build output: cdylib {cdylib}, staticlib {staticlib}, out_dir {out_dir!r}")
print(f"staticlib={staticlib[0]}")
print(f"cdylib={' '.join(cdylib)}")
print(f"out_dir={out_dir}")
print(f"native={native}")
EOF
declare -A built names
while IFS='=' read -r k v; do built[$k]=$v; done <"$work/build.env"
names_file="${built[out_dir]}/install-names"
[[ -f $names_file ]] || die "ffi/build.rs wrote no $names_file"
while IFS='=' read -r k v; do names[$k]=$v; done <"$names_file"
version="${names[version]}"
[[ $version == "$("$ROOT/scripts/dist/version.sh")" ]] || die "the library's version $version is not the workspace's"
native="${built[native]}"

# ---------------------------------------------------------------- install
dest="$destdir$prefix"
inc="$dest/include"
lib="$dest/$libdir"
install -d "$inc" "$lib/pkgconfig" "$lib/cmake/keyroute" "$dest/share/keyroute" "$dest/share/doc/keyroute"
install -m 644 "$FFI/include/keyroute.h" "$inc/keyroute.h"

# The shared library under its versioned name, with the SONAME link and the dev link.
implib=
read -ra cdylibs <<<"${built[cdylib]}"
shared_location=
for f in "${cdylibs[@]}"; do
  case "$(basename "$f")" in
    *.dll)
      install -d "$dest/bin"
      install -m 755 "$f" "$dest/bin/${names[real]}"
      shared_location="bin/${names[real]}"
      ;;
    *.dll.a | *.dll.lib | *.lib)
      install -m 644 "$f" "$lib/$(basename "$f")"
      implib="$libdir/$(basename "$f")"
      ;;
    *.so | *.dylib)
      install -m 755 "$f" "$lib/${names[real]}"
      ln -sfn "${names[real]}" "$lib/${names[soname]}"
      ln -sfn "${names[soname]}" "$lib/${names[dev]}"
      shared_location="$libdir/${names[real]}"
      ;;
    *) ;; # debug info beside the library (.pdb, .dSYM): not installed
  esac
done
[[ -n $shared_location ]] || die "no shared library among ${built[cdylib]}"
static_name="$(basename "${built[staticlib]}")"
install -m 644 "${built[staticlib]}" "$lib/$static_name"

# pkg-config: keyroute (shared; its Libs.private serve a static-only install) and
# keyroute-static (the archive by path, so the shared library beside it cannot win).
up() { # the relative path from $1 (a folder under the prefix) up to the prefix
  local p="$1" out=
  while [[ -n $p && $p != . ]]; do
    out="${out:+$out/}.."
    [[ $p == */* ]] && p="${p%/*}" || p=
  done
  echo "$out"
}
if ((relocatable)); then
  pc_prefix="\${pcfiledir}/$(up "$libdir/pkgconfig")"
else
  pc_prefix="$prefix"
fi
for pc in keyroute keyroute-static; do
  sed -e "s|@PREFIX@|$pc_prefix|g" -e "s|@LIBDIR@|$libdir|g" -e "s|@VERSION@|$version|g" \
    -e "s|@LIBS_PRIVATE@|$native|g" -e "s|@STATIC@|$static_name|g" "$FFI/$pc.pc.in" >"$lib/pkgconfig/$pc.pc"
done

# CMake: keyroute::shared, keyroute::static, keyroute::keyroute, and the version check.
cmake_libs=()
read -ra tokens <<<"$native"
for ((i = 0; i < ${#tokens[@]}; i++)); do
  t="${tokens[$i]}"
  case "$t" in
    -l*) cmake_libs+=("${t#-l}") ;;
    -framework) cmake_libs+=("-framework ${tokens[$((i + 1))]}"); i=$((i + 1)) ;;
    *) cmake_libs+=("$t") ;;
  esac
done
cmake_native="$(IFS=';'; echo "${cmake_libs[*]}")"
for f in keyroute-config keyroute-config-version; do
  sed -e "s|@UP@|$(up "$libdir/cmake/keyroute")|g" -e "s|@SHARED_LOCATION@|$shared_location|g" \
    -e "s|@SONAME@|${names[soname]:-${names[real]}}|g" -e "s|@IMPLIB@|$implib|g" \
    -e "s|@STATIC_LOCATION@|$libdir/$static_name|g" -e "s|@NATIVE_LIBS@|$cmake_native|g" \
    -e "s|@VERSION@|$version|g" -e "s|@MAJOR@|${names[major]}|g" -e "s|@MINOR@|${names[minor]}|g" \
    -e "s|@POINTER_BYTES@|${names[pointer_bytes]}|g" "$FFI/cmake/$f.cmake.in" >"$lib/cmake/keyroute/$f.cmake"
done

# The conformance corpus (every package ships it) and the licences.
rm -rf "$dest/share/keyroute/vectors"
cp -R "$ROOT/conformance/vectors" "$dest/share/keyroute/vectors"
find "$dest/share/keyroute/vectors" -type d -exec chmod 755 {} + -o -type f -exec chmod 644 {} +
install -m 644 "$ROOT/LICENSE-MIT" "$ROOT/LICENSE-APACHE" "$dest/share/doc/keyroute/"

echo "ffi/install.sh: keyroute $version (SONAME ${names[soname]:-none}) installed in $dest" \
  "(libraries in $libdir; Libs.private: $native)"
