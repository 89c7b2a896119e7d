#!/usr/bin/env bash
# The C release archives, one per platform that ships the C library (scripts/dist/platforms.sh):
# keyroute-<version>-<platform>.tar.gz for x86_64-linux-gnu and aarch64-linux-gnu, and
# keyroute-<version>-x86_64-windows-gnu.zip, in OUT. Each is a staged install made by
# ffi/install.sh (the install `make -C ffi install` runs), with one release build of
# keyroute-ffi for its platform:
#
#   keyroute-<version>-x86_64-linux-gnu/
#     include/keyroute.h
#     lib/libkeyroute.so.<version>, libkeyroute.so.0.<minor> (SONAME), libkeyroute.so, libkeyroute.a
#     lib/pkgconfig/keyroute.pc, keyroute-static.pc      (prefix found from their own place)
#     lib/cmake/keyroute/keyroute-config.cmake, keyroute-config-version.cmake
#     share/keyroute/vectors/v1/                          (the conformance corpus)
#     share/doc/keyroute/, LICENSE-MIT, LICENSE-APACHE, README.md
#
# On Windows the DLL is bin/keyroute.dll, with lib/libkeyroute.dll.a (its import library, for
# MinGW gcc and clang) and lib/libkeyroute.a (static). `make test-cross` runs the C conformance
# runner against each archive on its platform (qemu, wine).
#
# The archive is reproducible from the same build: sorted names, owner 0, the time of the last
# commit (SOURCE_DATE_EPOCH when set), gzip without a timestamp.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(scripts/dist/version.sh)

# The archive's README, for a Unix platform and for Windows ($platform, $name: the loop's).
unix_readme() {
  cat <<EOF
# keyroute $version for $platform: the C library

A consistent-hashing router: the same key and the same topology give the same node in every
language and on every platform. This archive is a complete install; unpack it anywhere (or into
/usr/local) and point the build at it:

\`\`\`console
cc app.c \$(PKG_CONFIG_PATH=\$PWD/$name/lib/pkgconfig pkg-config --cflags --libs keyroute)
cc app.c \$(PKG_CONFIG_PATH=\$PWD/$name/lib/pkgconfig pkg-config --static --cflags --libs keyroute-static)
cmake -DCMAKE_PREFIX_PATH=\$PWD/$name ...   # find_package(keyroute 0.$(cut -d. -f2 <<<"$version") REQUIRED)
\`\`\`

CMake targets: \`keyroute::keyroute\` (shared), \`keyroute::shared\`, \`keyroute::static\`.
The shared library's SONAME is \`libkeyroute.so.0.MINOR\` under 0.x (every 0.x minor release may
change the ABI; patch releases never do), \`libkeyroute.so.MAJOR\` from 1.0 on. Call
\`KEYROUTE_VERSION_COMPATIBLE()\` once at start-up to check that the library serves the header.

- \`include/keyroute.h\`: the API, documented function by function.
- \`share/keyroute/vectors/v1/\`: the conformance corpus, golden key → node vectors every
  keyroute surface passes (\`pkg-config --variable=vectorsdir keyroute\`, CMake's
  \`keyroute_VECTORS_DIR\`).

Licensed under MIT or Apache-2.0, at your option (LICENSE-MIT, LICENSE-APACHE).
EOF
}

windows_readme() {
  cat <<EOF
# keyroute $version for $platform: the C library for Windows x64

A consistent-hashing router: the same key and the same topology give the same node in every
language and on every platform. Built with MinGW-w64; unpack it anywhere and point the build at
it:

\`\`\`console
gcc app.c -I$name/include $name/lib/libkeyroute.dll.a    # keep bin/keyroute.dll beside app.exe
gcc app.c -I$name/include $name/lib/libkeyroute.a $(sed -n 's/^Libs.private: //p' "$stage/lib/pkgconfig/keyroute.pc")
cmake -DCMAKE_PREFIX_PATH=$name ...   # find_package(keyroute 0.$(cut -d. -f2 <<<"$version") REQUIRED)
\`\`\`

- \`bin/keyroute.dll\`: the library. Windows has no SONAME: every 0.x minor release may change
  the ABI, so call \`KEYROUTE_VERSION_COMPATIBLE()\` once at start-up to check that the DLL
  serves the header.
- \`lib/libkeyroute.dll.a\`: its import library (MinGW gcc, clang); \`lib/libkeyroute.a\`: the
  static library, with the system libraries it needs in \`lib/pkgconfig/keyroute-static.pc\`.
- \`include/keyroute.h\`: the API, documented function by function.
- \`share/keyroute/vectors/v1/\`: the conformance corpus, golden key → node vectors every
  keyroute surface passes.

Tested under wine (the C conformance runner over the whole corpus), not on a Windows machine.
Licensed under MIT or Apache-2.0, at your option (LICENSE-MIT, LICENSE-APACHE).
EOF
}

# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# shellcheck source=scripts/dist/platforms.sh
source scripts/dist/platforms.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for platform in $(platforms_with c); do
  platform_cargo "$platform"
  name="keyroute-$version-$platform"
  stage="$work/$name"
  target=()
  [[ $PLATFORM_TOOL == host ]] || target=(--target "$PLATFORM_ZTARGET") # the host's: target/release
  CARGO=${PLATFORM_CARGO[0]} ffi/install.sh --prefix / --destdir "$stage" --libdir lib --profile release \
    --relocatable "${target[@]}"
  # The static library carries the standard library's debug sections: not what a release ships
  # (the shared library is already stripped of them by the release profile).
  # mingw-w64's strip stops at the archive's members that have no sections (split-debug stubs),
  # so the Windows static library ships as rustc wrote it.
  case $platform in
    aarch64-linux-gnu) apt_install binutils-aarch64-linux-gnu; strip=aarch64-linux-gnu-strip ;;
    *-windows-gnu) strip= ;;
    *) strip="strip" ;;
  esac
  [[ -z $strip ]] || "$strip" --strip-debug "$stage/lib/libkeyroute.a"
  install -m 644 LICENSE-MIT LICENSE-APACHE "$stage/"
  if [[ $platform == *windows* ]]; then
    windows_readme >"$stage/README.md"
    archive="$out/$name.zip"
  else
    unix_readme >"$stage/README.md"
    archive="$out/$name.tar.gz"
  fi
  platform_archive "$work" "$name" "$archive"
  echo "build-c: $(basename "$archive") ($(du -h "$archive" | cut -f1))"
done
