#!/usr/bin/env bash
# The Go module from its tarball, used as a user would (scripts/dist/test.sh runs it; usage:
# test-go.sh DIST): an empty mktemp -d folder receives the C release tarball and the Go
# tarball, unpacked, and with no Rust toolchain on PATH and no module proxy (GOPROXY=off):
#
#   - the module's own tests run inside the unpacked module (every method and error kind, the
#     godoc examples, and the whole corpus the C tarball installs, at least as many files as the
#     checkout has), linked with the shared library, then with -tags keyroute_static;
#   - a program of its own module (`replace` to the unpacked folder) builds and routes, linked
#     with the shared library (an rpath to the tarball's lib/) and statically (readelf: no
#     libkeyroute needed), and prints what the checkout's C quickstart prints for the same key.
set -euo pipefail
cd "$(dirname "$0")/../.."
dist=$(cd "${1:?usage: test-go.sh DIST}" && pwd)
version=$(scripts/dist/version.sh)
gotar="$dist/keyroute-go-$version.tar.gz"
ctar=$(find "$dist" -maxdepth 1 -name "keyroute-$version-x86_64-linux-gnu.tar.gz" -print -quit)
for f in "$gotar" "$ctar"; do
  [[ -n $f && -f $f ]] || { echo "test-go: the Go or the C tarball of $version is missing in $dist" >&2; exit 1; }
done
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
apt_install golang-go pkg-config gcc etcd-server # etcd: the views test starts a member

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xzf "$ctar"
tar -C "$tmp" -xzf "$gotar"
c="$tmp/$(basename "$ctar" .tar.gz)"
mod="$tmp/keyroute-go-$version"
min_files=$(find conformance/vectors/v1 -maxdepth 1 -name '*.json' | wc -l)
no_rust_path=$(scripts/dist/no-rust-path.sh)
if PATH="$no_rust_path" command -v cargo >/dev/null || PATH="$no_rust_path" command -v rustc >/dev/null; then
  echo "test-go: the PATH for the test still has a Rust toolchain" >&2
  exit 1
fi
export PATH="$no_rust_path" GOPROXY=off GOFLAGS=-mod=mod CGO_ENABLED=1 GOPATH="$tmp/gopath" PKG_CONFIG_PATH="$c/lib/pkgconfig"
KEYROUTE_VECTORS="$(pkg-config --variable=vectorsdir keyroute)/v1"
export KEYROUTE_VECTORS KEYROUTE_MIN_FILES="$min_files" KEYROUTE_EXPECT_VERSION="$version"

(cd "$mod" && LD_LIBRARY_PATH="$c/lib" go test -count=1 .)
(cd "$mod" && go test -count=1 -tags keyroute_static -run 'Conformance|Codes|ErrorKinds|Version|Example' .)

app="$tmp/app"
mkdir -p "$app"
cat >"$app/go.mod" <<MOD
module example.com/app

go 1.19

require github.com/keyroute/keyroute/ffi/go v$version

replace github.com/keyroute/keyroute/ffi/go => $mod
MOD
cat >"$app/main.go" <<'GO'
package main

import (
	"fmt"

	keyroute "github.com/keyroute/keyroute/ffi/go"
)

func main() {
	r, err := keyroute.New(keyroute.Spec{Algorithm: "ring", Nodes: []keyroute.Node{
		{ID: "cache-a", Zone: "eu-1a"}, {ID: "cache-b", Zone: "eu-1b", Weight: 2}, {ID: "cache-c", Zone: "eu-1a"},
	}})
	if err != nil {
		panic(err)
	}
	defer r.Close()
	if !keyroute.Compatible() {
		panic("library " + keyroute.Version() + " does not serve header " + keyroute.HeaderVersion)
	}
	id, _ := r.RouteID("user:42")
	fmt.Printf("user:42 lives on %s\n", id)
	replicas, _ := r.Replicas([]byte("user:42"), 2)
	for rank, i := range replicas {
		fmt.Printf("replica %d: %s\n", rank, r.NodeID(i))
	}
}
GO
expected='user:42 lives on cache-a
replica 0: cache-a
replica 1: cache-b'
(cd "$app" && go build -ldflags="-r=$c/lib" -o app-shared . && go build -tags keyroute_static -o app-static .)
for bin in app-shared app-static; do
  got=$(env -u LD_LIBRARY_PATH "$app/$bin")
  [[ $got == "$expected" ]] || { echo "test-go: $bin printed:"$'\n'"$got" >&2; exit 1; }
done
[[ $(readelf -d "$app/app-shared") == *"libkeyroute.so.0"* ]] || { echo "test-go: app-shared does not need libkeyroute" >&2; exit 1; }
[[ $(readelf -d "$app/app-static") != *"libkeyroute"* ]] || { echo "test-go: app-static needs libkeyroute" >&2; exit 1; }
echo "test-go: keyroute-go-$version from its tarball against $(basename "$ctar"): tests, corpus ($min_files files or more), a program linked both ways"
