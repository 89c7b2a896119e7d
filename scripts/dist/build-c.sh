#!/usr/bin/env bash
# The C release tarball: keyroute-<version>-<arch>-<os>-<abi>.tar.gz (x86_64-linux-gnu here) in
# OUT, a staged install made by ffi/install.sh (the install `make -C ffi install` runs), with
# one release build of keyroute-ffi:
#
#   keyroute-<version>-x86_64-linux-gnu/
#     include/keyroute.h
#     lib/libkeyroute.so.<version>, libkeyroute.so.0.<minor> (SONAME), libkeyroute.so, libkeyroute.a
#     lib/pkgconfig/keyroute.pc, keyroute-static.pc      (prefix found from their own place)
#     lib/cmake/keyroute/keyroute-config.cmake, keyroute-config-version.cmake
#     share/keyroute/vectors/v1/                          (the conformance corpus)
#     share/doc/keyroute/, LICENSE-MIT, LICENSE-APACHE, README.md
#
# The archive is reproducible from the same build: sorted names, owner 0, the time of the last
# commit (SOURCE_DATE_EPOCH when set), gzip without a timestamp.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(scripts/dist/version.sh)

# The platform part of the name, from the target cargo builds for: x86_64-unknown-linux-gnu
# gives x86_64-linux-gnu (the vendor dropped, as Debian's multiarch names do).
target=${CARGO_BUILD_TARGET:-$(rustc -vV | sed -n 's/^host: //p')}
platform=$(echo "$target" | sed -e 's/-unknown-/-/' -e 's/-pc-/-/')
name="keyroute-$version-$platform"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage="$work/$name"
ffi/install.sh --prefix / --destdir "$stage" --libdir lib --profile release --relocatable
# The static library carries the standard library's debug sections: not what a release ships
# (the shared library is already stripped of them by the release profile).
strip --strip-debug "$stage/lib/libkeyroute.a"
install -m 644 LICENSE-MIT LICENSE-APACHE "$stage/"
cat >"$stage/README.md" <<EOF
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

epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
tarball="$out/$name.tar.gz"
tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -cf - "$name" | gzip -9n >"$tarball.tmp"
mv "$tarball.tmp" "$tarball"
echo "build-c: $(basename "$tarball") ($(du -h "$tarball" | cut -f1))"
