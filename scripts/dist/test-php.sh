#!/usr/bin/env bash
# The PHP Composer package from its archive, used as a user would (scripts/dist/test.sh runs it;
# usage: test-php.sh DIST): an empty mktemp -d folder receives the C release tarball and the
# package's zip, unpacked, and with no Rust toolchain on PATH:
#
#   - the package's own tests run from the unpacked archive (ffi/php/test.sh --package) against
#     the C tarball's library: every method and error kind, the whole corpus the C tarball
#     installs (at least as many files as the checkout has), php-memcached on real memcached;
#   - a program outside the package loads it through its plain `require` path (autoload.php)
#     and prints what the checkout's C quickstart prints for the same key.
set -euo pipefail
cd "$(dirname "$0")/../.."
dist=$(cd "${1:?usage: test-php.sh DIST}" && pwd)
version=$(scripts/dist/version.sh)
phpzip="$dist/keyroute-php-$version.zip"
ctar=$(find "$dist" -maxdepth 1 -name "keyroute-$version-x86_64-linux-gnu.tar.gz" -print -quit)
for f in "$phpzip" "$ctar"; do
  [[ -n $f && -f $f ]] || { echo "test-php: the PHP zip or the C tarball of $version is missing in $dist" >&2; exit 1; }
done
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
apt_install php-cli unzip

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xzf "$ctar"
unzip -q "$phpzip" -d "$tmp"
c="$tmp/$(basename "$ctar" .tar.gz)"
pkg="$tmp/keyroute-php-$version"
[[ $(php -r 'echo json_decode(file_get_contents($argv[1]))->version;' "$pkg/composer.json") == "$version" ]] ||
  { echo "test-php: composer.json does not say version $version" >&2; exit 1; }
no_rust_path=$(scripts/dist/no-rust-path.sh)
if PATH="$no_rust_path" command -v cargo >/dev/null || PATH="$no_rust_path" command -v rustc >/dev/null; then
  echo "test-php: the PATH for the test still has a Rust toolchain" >&2
  exit 1
fi

PATH="$no_rust_path" ffi/php/test.sh --prefix "$c" --libdir lib --package "$pkg"

cat >"$tmp/app.php" <<'PHP'
<?php
require $argv[1] . '/autoload.php';

$router = Keyroute\Router::fromArray(['algorithm' => 'ring', 'nodes' => [
    ['id' => 'cache-a', 'zone' => 'eu-1a'], ['id' => 'cache-b', 'zone' => 'eu-1b', 'weight' => 2],
    ['id' => 'cache-c', 'zone' => 'eu-1a'],
]]);
echo 'user:42 lives on ', $router->routeId('user:42'), "\n";
foreach ($router->replicas('user:42', 2) as $rank => $i) {
    echo "replica $rank: ", $router->nodeId($i), "\n";
}
PHP
expected='user:42 lives on cache-a
replica 0: cache-a
replica 1: cache-b'
got=$(cd "$tmp" && PATH="$no_rust_path" KEYROUTE_LIBRARY="$c/lib/libkeyroute.so.$version" php app.php "$pkg")
[[ $got == "$expected" ]] || { echo "test-php: the program printed:"$'\n'"$got" >&2; exit 1; }
echo "test-php: keyroute-php-$version from its zip against $(basename "$ctar"): tests, corpus, php-memcached, a program through autoload.php"
