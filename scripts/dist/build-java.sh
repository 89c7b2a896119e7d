#!/usr/bin/env bash
# The Java artifacts into OUT (scripts/dist/build.sh runs it; usage: build-java.sh OUT):
#
#   keyroute-<v>.jar          the package io.github.keyroute (compiled for Java 11+), with the
#                             release libkeyroute.so of each platform that ships in the jar
#                             (scripts/dist/platforms.sh) as the JNA resource
#                             <prefix>/libkeyroute.so (linux-x86-64, linux-aarch64)
#                             (plain `java -cp keyroute-<v>.jar:jna.jar` finds it; no
#                             -Djna.library.path), the pom and pom.properties under
#                             META-INF/maven/io.github.keyroute/keyroute/, and both licences
#   keyroute-<v>-sources.jar  the package's sources
#   keyroute-<v>.pom          the same pom: coordinates, the JNA dependency (spymemcached, optional), licences
#
# <v> is scripts/dist/version.sh (test-java.sh checks that kr_version() in the jar says the same;
# `make test-cross` runs the jar on an arm64 JVM under qemu). Needs a JDK
# and Debian's libjna-java and libspymemcached-java (installed when missing, as ffi/test.sh does).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: build-java.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(scripts/dist/version.sh)
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# shellcheck source=scripts/lib.sh
source scripts/lib.sh
need=(libjna-java libspymemcached-java)
command -v javac >/dev/null && command -v jar >/dev/null || need+=(default-jdk-headless)
apt_install "${need[@]}"
JNA=/usr/share/java/jna.jar
# io.github.keyroute.spymemcached compiles against spymemcached (an optional dependency in the pom:
# only programs that use that package need it).
SPYMEMCACHED=/usr/share/java/spymemcached.jar

# shellcheck source=scripts/dist/platforms.sh
source scripts/dist/platforms.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
classes="$work/classes"
maven="$classes/META-INF/maven/io.github.keyroute/keyroute"
mkdir -p "$maven" "$work/sources/META-INF"
mapfile -t sources < <(find ffi/java/src/main/java -name '*.java' | LC_ALL=C sort)
javac --release 11 -encoding UTF-8 -Xlint:all -Werror -cp "$JNA:$SPYMEMCACHED" -d "$classes" "${sources[@]}"
# The release library of each platform that ships in the jar (scripts/dist/platforms.sh), as
# JNA's resource for it (com.sun.jna.Platform.RESOURCE_PREFIX): linux-x86-64, linux-aarch64.
natives=()
for platform in $(platforms_with jar); do
  platform_cargo "$platform"
  if [[ $PLATFORM_TOOL == host ]]; then
    cargo build -p keyroute-ffi --release --locked
    lib="${CARGO_TARGET_DIR:-target}/release/libkeyroute.so"
  else
    "${PLATFORM_CARGO[@]}" build -p keyroute-ffi --release --locked --target "$PLATFORM_ZTARGET"
    lib="${CARGO_TARGET_DIR:-target}/$PLATFORM_TARGET/release/libkeyroute.so"
  fi
  prefix=$(jna_prefix "$platform")
  mkdir -p "$classes/$prefix"
  cp "$lib" "$classes/$prefix/libkeyroute.so"
  natives+=("$prefix/libkeyroute.so")
done
sed "s/@VERSION@/$version/" ffi/java/pom.xml.in >"$maven/pom.xml"
grep -q "<version>$version</version>" "$maven/pom.xml" || { echo "build-java: pom has no version $version" >&2; exit 1; }
printf 'groupId=io.github.keyroute\nartifactId=keyroute\nversion=%s\n' "$version" >"$maven/pom.properties"
cp LICENSE-MIT LICENSE-APACHE "$classes/META-INF/"
cp LICENSE-MIT LICENSE-APACHE "$work/sources/META-INF/"
cp -r ffi/java/src/main/java/. "$work/sources/"
cat >"$work/MANIFEST.MF" <<MF
Implementation-Title: keyroute
Implementation-Version: $version
Implementation-Vendor: keyroute
Automatic-Module-Name: io.github.keyroute
MF

# Entry times from the last commit, so the same commit gives the same jars.
date_args=()
if stamp=$(git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null) && [[ -n $stamp ]]; then
  date_args=(--date="$stamp")
fi
jar="$out/keyroute-$version.jar"
rm -f "$jar" "$out/keyroute-$version-sources.jar"
TZ=UTC jar --create --file "$jar" --manifest "$work/MANIFEST.MF" "${date_args[@]}" -C "$classes" .
TZ=UTC jar --create --file "$out/keyroute-$version-sources.jar" --manifest "$work/MANIFEST.MF" "${date_args[@]}" -C "$work/sources" .
cp "$maven/pom.xml" "$out/keyroute-$version.pom"
echo "build-java: keyroute-$version.jar (${natives[*]} inside), -sources.jar, .pom"
