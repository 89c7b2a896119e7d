#!/usr/bin/env bash
# The .NET package from its .nupkg, used as a user would (scripts/dist/test.sh runs it; usage:
# test-dotnet.sh DIST): in an empty mktemp -d folder, with no Rust toolchain on PATH,
#
#   - the C release tarball is unpacked, and Debian's NuGet client (nuget 2.8.7, on Mono)
#     installs Keyroute.<version>.nupkg from a folder holding only it (no other package source);
#   - ffi/dotnet/test.sh runs the assembly's tests and the whole corpus the C tarball installs
#     (at least as many files as the checkout has) against the installed lib/net45/Keyroute.dll;
#   - a program compiled against that assembly routes, with only the library's SONAME on the
#     loader's path (Mono's dllmap in Keyroute.dll.config), and prints what the checkout's C
#     quickstart prints for the same key.
set -euo pipefail
cd "$(dirname "$0")/../.."
dist=$(cd "${1:?usage: test-dotnet.sh DIST}" && pwd)
version=$(scripts/dist/version.sh)
nupkg="$dist/Keyroute.$version.nupkg"
ctar=$(find "$dist" -maxdepth 1 -name "keyroute-$version-x86_64-linux-gnu.tar.gz" -print -quit)
for f in "$nupkg" "$ctar"; do
  [[ -n $f && -f $f ]] || { echo "test-dotnet: the .nupkg or the C tarball of $version is missing in $dist" >&2; exit 1; }
done
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
apt_install mono-mcs mono-runtime nuget pkg-config python3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xzf "$ctar"
c="$tmp/$(basename "$ctar" .tar.gz)"
mkdir -p "$tmp/source" "$tmp/home"
cp "$nupkg" "$tmp/source/"
no_rust_path=$(scripts/dist/no-rust-path.sh)
if PATH="$no_rust_path" command -v cargo >/dev/null || PATH="$no_rust_path" command -v rustc >/dev/null; then
  echo "test-dotnet: the PATH for the test still has a Rust toolchain" >&2
  exit 1
fi
export PATH="$no_rust_path"
HOME="$tmp/home" nuget install Keyroute -Version "$version" -Source "$tmp/source" -OutputDirectory "$tmp/packages" -NonInteractive
net45="$tmp/packages/Keyroute.$version/lib/net45"
[[ -f $net45/Keyroute.dll && -f $net45/Keyroute.dll.config ]] || { echo "test-dotnet: nuget installed no lib/net45/Keyroute.dll" >&2; exit 1; }

ffi/dotnet/test.sh --prefix "$c" --libdir lib --assembly "$net45"

# A program against the installed package, the loader given only the SONAME.
soname=$(readelf -d "$c/lib/libkeyroute.so.$version" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
mkdir -p "$tmp/app" "$tmp/loader"
ln -s "$c/lib/libkeyroute.so.$version" "$tmp/loader/$soname"
cp "$net45/Keyroute.dll" "$net45/Keyroute.dll.config" "$tmp/app/"
cat >"$tmp/app/App.cs" <<'CS'
using System;
using Keyroute;

static class App
{
    static int Main()
    {
        if (!Library.Compatible())
            throw new Exception("library " + Library.Version + " does not serve assembly " + Library.AssemblyVersion);
        using (var r = new Router("{\"algorithm\":\"ring\",\"nodes\":[{\"id\":\"cache-a\",\"zone\":\"eu-1a\"},{\"id\":\"cache-b\",\"zone\":\"eu-1b\",\"weight\":2},{\"id\":\"cache-c\",\"zone\":\"eu-1a\"}]}"))
        {
            Console.WriteLine("user:42 lives on " + r.RouteId("user:42"));
            int[] replicas = r.Replicas("user:42", 2);
            for (int rank = 0; rank < replicas.Length; rank++)
                Console.WriteLine("replica " + rank + ": " + r.NodeId(replicas[rank]));
        }
        return 0;
    }
}
CS
mcs -nologo -warnaserror+ -r:"$tmp/app/Keyroute.dll" -out:"$tmp/app/App.exe" "$tmp/app/App.cs"
expected='user:42 lives on cache-a
replica 0: cache-a
replica 1: cache-b'
got=$(LD_LIBRARY_PATH="$tmp/loader" mono "$tmp/app/App.exe")
[[ $got == "$expected" ]] || { echo "test-dotnet: the program printed:"$'\n'"$got" >&2; exit 1; }
echo "test-dotnet: Keyroute.$version.nupkg installed by nuget against $(basename "$ctar"): tests, corpus, a program loading $soname"
