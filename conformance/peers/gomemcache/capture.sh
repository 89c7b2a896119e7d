#!/usr/bin/env bash
# peer-kind: library (re-captured live by `make test`, see recapture-check.sh)
# Capture gomemcache vectors by running Debian's golang-github-bradfitz-gomemcache-dev through
# its own memcache.Client (no memcached needed: the selector of ../go/gomemcache/main.go stops
# each call once the real ServerList has picked a server). Installs Go and the package if
# missing (through ffi/go/debian-sources.sh), (over)writes conformance/vectors/v1/gomemcache-*.json.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
peers="$(dirname "$here")"
"$peers/../../ffi/go/debian-sources.sh" >/dev/null
version=$(dpkg-query -W -f='${Version}' golang-github-bradfitz-gomemcache-dev)
cd "$peers/go"
GOFLAGS=-mod=mod GOPROXY=off go run ./gomemcache "$peers/keys.json" "$version" | python3 "$peers/write_docs.py"
