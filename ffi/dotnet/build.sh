#!/usr/bin/env bash
# Compiles the assembly (usage: ffi/dotnet/build.sh OUT; ffi/dotnet/test.sh and
# scripts/dist/build-dotnet.sh run it) into OUT:
#
#   Keyroute.dll          the assembly (mcs, -warnaserror+ -warn:4, unsafe code for the spans)
#   Keyroute.xml          its XML doc comments (a public member without one fails the build)
#   Keyroute.dll.config   Mono's dllmap: DllImport("keyroute") loads the library by its SONAME
#                         (libkeyroute.so.0.MINOR), so no development symlink is needed
#
# Needs mono-mcs (the script that calls it installs it). The version is the workspace's.
set -euo pipefail
DOTNET_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$DOTNET_DIR/../.." && pwd)"
out=${1:?usage: ffi/dotnet/build.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$("$ROOT/scripts/dist/version.sh")
soname="libkeyroute.so.$(awk -F. '$1 == 0 { print "0." $2; next } { print $1 }' <<<"$version")"

gen=$(mktemp -d)
trap 'rm -rf "$gen"' EXIT
cat >"$gen/Version.g.cs" <<CS
using System.Reflection;

[assembly: AssemblyTitle("Keyroute")]
[assembly: AssemblyDescription("keyroute's consistent-hashing routers over the C library (P/Invoke)")]
[assembly: AssemblyVersion("$version.0")]
[assembly: AssemblyInformationalVersion("$version")]

namespace Keyroute
{
    public static partial class Library
    {
        const string BuiltFor = "$version";
    }
}
CS
mcs -nologo -target:library -unsafe -optimize+ -warnaserror+ -warn:4 -pathmap:"$ROOT=." \
  -out:"$out/Keyroute.dll" -doc:"$out/Keyroute.xml" "$DOTNET_DIR"/src/*.cs "$gen/Version.g.cs"
cat >"$out/Keyroute.dll.config" <<XML
<configuration>
  <dllmap dll="keyroute" target="$soname" os="linux"/>
</configuration>
XML
