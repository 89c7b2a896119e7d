#!/usr/bin/env bash
# The Ruby gem from its artifact, used as a user would (scripts/dist/test.sh runs it; usage:
# test-ruby.sh DIST): in an empty mktemp -d folder, the C release tarball unpacked and the gem
# installed with `gem install --local` into a GEM_HOME of its own there (its ffi dependency is
# Debian's ruby-ffi), with no Rust toolchain on PATH:
#
#   - the installed gem's own tests (every method and error kind, and the whole corpus the C
#     tarball installs, at least as many files as the checkout has), the library found through
#     pkg-config;
#   - a program that requires the installed gem routes and prints what the checkout's C
#     quickstart prints for the same key.
set -euo pipefail
cd "$(dirname "$0")/../.."
dist=$(cd "${1:?usage: test-ruby.sh DIST}" && pwd)
version=$(scripts/dist/version.sh)
gemfile="$dist/keyroute-$version.gem"
ctar=$(find "$dist" -maxdepth 1 -name "keyroute-$version-x86_64-linux-gnu.tar.gz" -print -quit)
for f in "$gemfile" "$ctar"; do
  [[ -n $f && -f $f ]] || { echo "test-ruby: the gem or the C tarball of $version is missing in $dist" >&2; exit 1; }
done
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
apt_install ruby ruby-ffi pkg-config

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xzf "$ctar"
c="$tmp/$(basename "$ctar" .tar.gz)"
min_files=$(find conformance/vectors/v1 -maxdepth 1 -name '*.json' | wc -l)
no_rust_path=$(scripts/dist/no-rust-path.sh)
if PATH="$no_rust_path" command -v cargo >/dev/null || PATH="$no_rust_path" command -v rustc >/dev/null; then
  echo "test-ruby: the PATH for the test still has a Rust toolchain" >&2
  exit 1
fi
export PATH="$no_rust_path" GEM_HOME="$tmp/gems" PKG_CONFIG_PATH="$c/lib/pkgconfig"
unset KEYROUTE_LIB
gem install --local --no-document --quiet "$gemfile" >/dev/null
gemdir=$(ruby -e 'print Gem::Specification.find_by_name("keyroute").gem_dir')
[[ $gemdir == "$tmp/gems/"* ]] || { echo "test-ruby: the gem resolved to $gemdir, not the one installed" >&2; exit 1; }
KEYROUTE_VECTORS="$(pkg-config --variable=vectorsdir keyroute)/v1"
export KEYROUTE_VECTORS KEYROUTE_MIN_FILES="$min_files"

(cd "$tmp" && ruby -W0 -e 'gem "keyroute"; ARGV.each { |f| require f }' \
  "$gemdir/test/test_router.rb" "$gemdir/test/test_conformance.rb")

got=$(cd "$tmp" && ruby -e '
require "keyroute"
r = Keyroute::Router.new(algorithm: "ring", nodes: [
  { id: "cache-a", zone: "eu-1a" }, { id: "cache-b", zone: "eu-1b", weight: 2 }, { id: "cache-c", zone: "eu-1a" }])
puts "user:42 lives on #{r.route_id("user:42")}"
r.replicas("user:42", 2).each_with_index { |n, rank| puts "replica #{rank}: #{r.node_id(n)}" }
')
expected='user:42 lives on cache-a
replica 0: cache-a
replica 1: cache-b'
[[ $got == "$expected" ]] || { echo "test-ruby: the program printed:"$'\n'"$got" >&2; exit 1; }
echo "test-ruby: keyroute-$version.gem installed from itself against $(basename "$ctar"): tests, corpus ($min_files files or more), a program"
