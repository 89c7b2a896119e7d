#!/usr/bin/env bash
# The .NET assembly as a NuGet package into OUT (scripts/dist/build.sh runs it; usage:
# build-dotnet.sh OUT):
#
#   Keyroute.<version>.nupkg
#     Keyroute.nuspec                  id Keyroute, the version, description, licence
#     lib/net45/Keyroute.dll           the assembly (ffi/dotnet/build.sh: mcs, -warnaserror+)
#     lib/net45/Keyroute.xml           its XML doc comments
#     lib/net45/Keyroute.dll.config    Mono's dllmap to the C library's SONAME
#     LICENSE-MIT, LICENSE-APACHE
#     [Content_Types].xml, _rels/.rels, package/services/metadata/core-properties/*.psmdcp
#
# The package holds no native code: the C library comes from the C release tarball (or any
# `make install`), found by the loader. The .nupkg is written here as the zip it is (the parts
# `nuget pack` writes, in a fixed order, dated SOURCE_DATE_EPOCH), so `make dist` needs only
# Mono's compiler and two builds give the same bytes (mcs is deterministic for the same sources);
# scripts/dist/test-dotnet.sh installs it with Debian's NuGet client to check it.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: build-dotnet.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(scripts/dist/version.sh)
header_version=$(sed -n 's/^#define KEYROUTE_VERSION_STRING "\(.*\)"$/\1/p' ffi/include/keyroute.h)
[[ $header_version == "$version" ]] || { echo "build-dotnet: the header says $header_version, the workspace $version" >&2; exit 1; }
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
apt_install mono-mcs mono-runtime python3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ffi/dotnet/build.sh "$work/lib"
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
nupkg="$out/Keyroute.$version.nupkg"
python3 - "$work/lib" "$nupkg.tmp" "$version" "$epoch" <<'PY'
import sys
import time
import zipfile
from xml.sax.saxutils import escape

lib, dest, version, epoch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
description = (
    "keyroute's consistent-hashing routers for .NET: Router, Transition and exceptions by kind, "
    "over the C library (libkeyroute, P/Invoke), key for key the same routes as every other keyroute surface."
)
nuspec = f"""<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://schemas.microsoft.com/packaging/2010/07/nuspec.xsd">
  <metadata>
    <id>Keyroute</id>
    <version>{version}</version>
    <title>keyroute</title>
    <authors>keyroute</authors>
    <owners>keyroute</owners>
    <requireLicenseAcceptance>false</requireLicenseAcceptance>
    <description>{escape(description)}</description>
    <summary>Consistent-hashing routers over the keyroute C library.</summary>
    <copyright>MIT OR Apache-2.0</copyright>
    <tags>consistent-hashing sharding memcached redis keyroute</tags>
  </metadata>
</package>
"""
psmdcp = f"""<?xml version="1.0" encoding="utf-8"?><coreProperties xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://schemas.openxmlformats.org/package/2006/metadata/core-properties"><dc:creator>keyroute</dc:creator><dc:description>{escape(description)}</dc:description><dc:identifier>Keyroute</dc:identifier><version>{version}</version><keywords>consistent-hashing sharding memcached redis keyroute</keywords><lastModifiedBy>keyroute scripts/dist/build-dotnet.sh</lastModifiedBy></coreProperties>"""
core = "package/services/metadata/core-properties/1.psmdcp"
rels = f"""<?xml version="1.0" encoding="utf-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Type="http://schemas.microsoft.com/packaging/2010/07/manifest" Target="/Keyroute.nuspec" Id="R0" /><Relationship Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="/{core}" Id="R1" /></Relationships>"""
types = """<?xml version="1.0" encoding="utf-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml" /><Default Extension="nuspec" ContentType="application/octet" /><Default Extension="dll" ContentType="application/octet" /><Default Extension="xml" ContentType="application/octet" /><Default Extension="config" ContentType="application/octet" /><Default Extension="psmdcp" ContentType="application/vnd.openxmlformats-package.core-properties+xml" /><Default Extension="" ContentType="application/octet" /></Types>"""
stamp = time.gmtime(max(epoch, 315532800))[:6]  # zip dates start in 1980


def add(z, name, data):
    info = zipfile.ZipInfo(name, stamp)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    z.writestr(info, data)


with zipfile.ZipFile(dest, "w") as z:
    add(z, "_rels/.rels", rels)
    add(z, "Keyroute.nuspec", nuspec)
    for name in ("Keyroute.dll", "Keyroute.xml", "Keyroute.dll.config"):
        with open(f"{lib}/{name}", "rb") as f:
            add(z, f"lib/net45/{name}", f.read())
    for name in ("LICENSE-MIT", "LICENSE-APACHE"):
        with open(name, "rb") as f:
            add(z, name, f.read())
    add(z, core, psmdcp)
    add(z, "[Content_Types].xml", types)
PY
mv "$nupkg.tmp" "$nupkg"
echo "build-dotnet: $(basename "$nupkg") ($(du -h "$nupkg" | cut -f1))"
