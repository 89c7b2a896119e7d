#!/usr/bin/env bash
# The .NET assembly's speed against a plain C# sorted ring, measured in one run (not part of
# test.sh; bench/Bench.cs says what and how): per call and batched (1,000 keys a call) at N = 10,
# 100 and 1000 nodes, and the cost of one bare P/Invoke. Builds the release library, installs it
# into build/ffi/dotnet-bench-prefix and runs the bench on Mono against it. Prints a Markdown
# table of medians (CPU ns per key) and ratios (the C# ring's time over keyroute's).
#
# Usage: ffi/dotnet/bench.sh [KEYS [RUNS]]   (1,000,000 keys, 7 passes by default)
set -euo pipefail
DOTNET_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$DOTNET_DIR/../.." && pwd)"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"
apt_install mono-mcs mono-runtime
prefix="$ROOT/build/ffi/dotnet-bench-prefix"
make -s -C "$ROOT/ffi" install PREFIX="$prefix" LIBDIR=lib PROFILE=release
out="$ROOT/build/ffi/dotnet-bench"
"$DOTNET_DIR/build.sh" "$out"
mcs -nologo -optimize+ -warnaserror+ -r:"$out/Keyroute.dll" -out:"$out/Bench.exe" "$DOTNET_DIR/bench/Bench.cs"
LD_LIBRARY_PATH="$prefix/lib" mono "$out/Bench.exe" "$@"
