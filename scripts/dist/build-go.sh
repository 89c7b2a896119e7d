#!/usr/bin/env bash
# The Go module's source tarball into OUT (scripts/dist/build.sh runs it; usage: build-go.sh OUT):
#
#   keyroute-go-<version>.tar.gz
#     keyroute-go-<version>/go.mod           module github.com/keyroute/keyroute/ffi/go
#     keyroute-go-<version>/*.go             the package (cgo over the installed C library) and
#                                            its tests: the conformance runner, the godoc examples
#     keyroute-go-<version>/README.md, LICENSE-MIT, LICENSE-APACHE
#
# The package builds against the C release tarball (or any `make install`), found through
# pkg-config; it needs no other Go module. ffi/go/peers (tests and bench inside Debian's
# gomemcache and groupcache) is not shipped. Reproducible as build-c.sh's archive.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: build-go.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(scripts/dist/version.sh)
header_version=$(sed -n 's/^#define KEYROUTE_VERSION_STRING "\(.*\)"$/\1/p' ffi/include/keyroute.h)
[[ $header_version == "$version" ]] || { echo "build-go: the header says $header_version, the workspace $version" >&2; exit 1; }
name="keyroute-go-$version"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/$name"
cp ffi/go/go.mod ffi/go/*.go ffi/go/README.md LICENSE-MIT LICENSE-APACHE "$work/$name/"
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
tarball="$out/$name.tar.gz"
tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -cf - "$name" | gzip -9n >"$tarball.tmp"
mv "$tarball.tmp" "$tarball"
echo "build-go: $(basename "$tarball") ($(du -h "$tarball" | cut -f1))"
