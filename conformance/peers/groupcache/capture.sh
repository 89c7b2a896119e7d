#!/usr/bin/env bash
# peer-kind: library (re-captured live by `make test`, see recapture-check.sh)
# Capture groupcache consistenthash vectors by running Debian's golang-github-golang-groupcache-dev
# (no server needed) with ../go/groupcache/main.go. Installs Go and the package if missing (through ffi/go/debian-sources.sh),
# (over)writes conformance/vectors/v1/groupcache-*.json.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
peers="$(dirname "$here")"
"$peers/../../ffi/go/debian-sources.sh" >/dev/null
version=$(dpkg-query -W -f='${Version}' golang-github-golang-groupcache-dev)
cd "$peers/go"
GOFLAGS=-mod=mod GOPROXY=off go run ./groupcache "$peers/keys.json" "$version" | python3 "$peers/write_docs.py"
