#!/usr/bin/env bash
# Makes Debian's Go sources of the peers usable as Go modules, for the tests and the bench in
# ffi/go/peers: golang-github-bradfitz-gomemcache-dev and golang-github-golang-groupcache-dev
# install GOPATH-layout sources without a go.mod under /usr/share/gocode/src, and a module
# `replace` needs one. Copies each into build/go-debian/<name> (what ffi/go/peers/go.mod
# replaces them with) and writes its go.mod. Idempotent; installs the packages first.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=scripts/lib.sh
source "$root/scripts/lib.sh"
apt_install golang-go golang-github-bradfitz-gomemcache-dev golang-github-golang-groupcache-dev
out="$root/build/go-debian"
src=/usr/share/gocode/src/github.com
for pair in gomemcache:bradfitz/gomemcache groupcache:golang/groupcache; do
  name="${pair%%:*}" path="${pair#*:}"
  rm -rf "${out:?}/$name"
  mkdir -p "$out/$name"
  cp -R "$src/$path/." "$out/$name/"
  printf 'module github.com/%s\n\ngo 1.12\n' "$path" >"$out/$name/go.mod"
done
echo "$out"
