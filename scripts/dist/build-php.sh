#!/usr/bin/env bash
# The PHP Composer package as a zip archive into OUT (scripts/dist/build.sh runs it; usage:
# build-php.sh OUT):
#
#   keyroute-php-<version>.zip
#     keyroute-php-<version>/composer.json   keyroute/keyroute <version>, PSR-4 Keyroute\ => src/
#     keyroute-php-<version>/autoload.php    the require path for users without Composer
#     keyroute-php-<version>/src/*.php       the package (FFI over the installed C library)
#     keyroute-php-<version>/tests/*.php     its tests: the corpus runner, the unit tests, the
#                                            php-memcached agreement test
#     keyroute-php-<version>/README.md, LICENSE-MIT, LICENSE-APACHE
#
# A zip with composer.json inside is what Composer's `artifact` repository type installs
# offline. The package loads the C release tarball's libkeyroute (or any `make install`).
# Reproducible as build-c.sh's archive (sorted names, fixed times, no extra attributes).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: build-php.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
apt_install zip php-cli
version=$(scripts/dist/version.sh)
name="keyroute-php-$version"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/$name/src" "$work/$name/tests"
cp ffi/php/autoload.php ffi/php/README.md LICENSE-MIT LICENSE-APACHE "$work/$name/"
cp ffi/php/src/*.php "$work/$name/src/"
cp ffi/php/tests/*.php "$work/$name/tests/"
# composer.json with the workspace's version (the checkout's has none: Composer reads tags there).
php -r '$c = json_decode(file_get_contents($argv[1]), true, 512, JSON_THROW_ON_ERROR);
  $c = array_merge(array_slice($c, 0, 2), ["version" => $argv[2]], array_slice($c, 2));
  echo json_encode($c, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES), "\n";' ffi/php/composer.json "$version" \
  >"$work/$name/composer.json"
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
find "$work/$name" -exec touch -h -d "@$epoch" {} +
archive="$out/$name.zip"
rm -f "$archive.tmp"
(cd "$work" && find "$name" | LC_ALL=C sort | TZ=UTC zip -q -X -D -@ "$archive.tmp")
mv "$archive.tmp" "$archive"
echo "build-php: $(basename "$archive") ($(du -h "$archive" | cut -f1))"
