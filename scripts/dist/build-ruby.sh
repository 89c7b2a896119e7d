#!/usr/bin/env bash
# The Ruby gem into OUT (scripts/dist/build.sh runs it; usage: build-ruby.sh OUT):
#
#   keyroute-<version>.gem
#     lib/keyroute.rb, lib/keyroute/*.rb   the gem (ruby-ffi over the installed C library), the
#                                          generated error list, the Dalli hook (keyroute/dalli)
#     test/*.rb                            its tests: methods and errors, the corpus runner, Dalli
#     README.md, LICENSE-MIT, LICENSE-APACHE
#
# The gem depends on ffi (~> 1.15, Debian's ruby-ffi) and finds libkeyroute through
# KEYROUTE_LIB, pkg-config or the loader's path; the C release tarball provides it. Built with
# Debian's ruby (`gem build`), reproducible through SOURCE_DATE_EPOCH.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: build-ruby.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(scripts/dist/version.sh)
header_version=$(sed -n 's/^#define KEYROUTE_VERSION_STRING "\(.*\)"$/\1/p' ffi/include/keyroute.h)
[[ $header_version == "$version" ]] || { echo "build-ruby: the header says $header_version, the workspace $version" >&2; exit 1; }
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
apt_install ruby

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r ffi/ruby/lib ffi/ruby/test ffi/ruby/README.md ffi/ruby/keyroute.gemspec LICENSE-MIT LICENSE-APACHE "$work/"
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
export SOURCE_DATE_EPOCH
(cd "$work" && KEYROUTE_VERSION="$version" gem build --quiet keyroute.gemspec >/dev/null)
gem="keyroute-$version.gem"
mv "$work/$gem" "$out/$gem"
echo "build-ruby: $gem ($(du -h "$out/$gem" | cut -f1))"
