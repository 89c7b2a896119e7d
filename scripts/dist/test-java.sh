#!/usr/bin/env bash
# The released jar, used as a user would (scripts/dist/test.sh runs it; usage: test-java.sh DIST):
# an empty mktemp -d folder receives only keyroute-<v>.jar and Debian's jna.jar, and with no
# Rust toolchain on PATH `java -cp keyroute-<v>.jar:jna.jar` must load the native library from
# inside the jar (DistCheck: library source, kr_version, manifest and pom versions) and route
# conformance vector files correctly (ConformanceTest over a few files: native algorithms and
# errors, libmemcached, spymemcached, Guava, Redis Cluster slots). The same run against a copy of
# the jar with the library taken out must fail, so that the check cannot pass by finding a
# libkeyroute elsewhere. Also checks that the pom and the sources jar sit beside the jar.
set -euo pipefail
cd "$(dirname "$0")/../.."
dist=$(cd "${1:?usage: test-java.sh DIST}" && pwd)
version=$(scripts/dist/version.sh)
jar="$dist/keyroute-$version.jar"
for f in "$jar" "$dist/keyroute-$version-sources.jar" "$dist/keyroute-$version.pom"; do
  [[ -f $f ]] || { echo "test-java: $f is missing" >&2; exit 1; }
done
grep -q "<version>$version</version>" "$dist/keyroute-$version.pom" || { echo "test-java: the pom is not version $version" >&2; exit 1; }

# shellcheck source=scripts/lib.sh
source scripts/lib.sh
need=(libjna-java)
command -v javac >/dev/null || need+=(default-jdk-headless)
apt_install "${need[@]}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$jar" "$tmp/"
cp -L /usr/share/java/jna.jar "$tmp/jna.jar"
vectors=conformance/vectors/v1
python3 ffi/java/vectors.py "$vectors/native-ring-zones.json" "$vectors/native-maglev-4.json" "$vectors/native-errors.json" \
  "$vectors/libmemcached-ketama-weighted-8.json" "$vectors/spymemcached-ketama-hostname-3.json" \
  "$vectors/guava-consistenthash-u64be-100.json" "$vectors/redis-cluster-3.json" >"$tmp/vectors.tsv"
javac -encoding UTF-8 -Xlint:all -Werror -cp "$tmp/keyroute-$version.jar" -d "$tmp/classes" \
  ffi/java/test/DistCheck.java ffi/java/test/ConformanceTest.java

no_rust_path=$(scripts/dist/no-rust-path.sh)
run() { # jar, class, args...
  local j=$1
  shift
  (cd "$tmp" && env -u LD_LIBRARY_PATH PATH="$no_rust_path" java -cp "$j:jna.jar:classes" "$@")
}
if PATH="$no_rust_path" command -v cargo >/dev/null || PATH="$no_rust_path" command -v rustc >/dev/null; then
  echo "test-java: the PATH for the test still has a Rust toolchain" >&2
  exit 1
fi

run "keyroute-$version.jar" DistCheck "$version"
run "keyroute-$version.jar" ConformanceTest vectors.tsv --min-files 7

# The same check against the jar without its library must fail.
python3 - "$tmp/keyroute-$version.jar" "$tmp/nolib.jar" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as dst:
    for item in src.infolist():
        if not item.filename.endswith("libkeyroute.so"):
            dst.writestr(item, src.read(item))
PY
if run nolib.jar DistCheck "$version" >"$tmp/nolib.log" 2>&1 || ! grep -q 'the native library cannot be loaded' "$tmp/nolib.log"; then
  cat "$tmp/nolib.log" >&2
  echo "test-java: a jar without libkeyroute.so did not fail for want of its library" >&2
  exit 1
fi
echo "test-java: a jar without its library fails the check, as it must"
echo "test-java: keyroute-$version.jar works from the jar alone"
