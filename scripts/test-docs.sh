#!/usr/bin/env bash
# `make test-docs`: every code block of every README and of docs/ runs from the release
# artifacts in a clean folder and prints what the doc shows (scripts/doctest.py says how).
# Installs what the docs' commands use (a C compiler, pkg-config, CMake, a JDK with Debian's
# JNA, spymemcached and Guava jars, Go for the Go module, etcd for the README's rollout, Mono
# and NuGet for the .NET package) and builds dist/ when it is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
dist=${1:-dist}
need=(gcc make pkg-config cmake golang-go libjna-java libspymemcached-java libguava-java etcd-server)
need+=(mono-mcs mono-runtime nuget) # the .NET package's README
command -v javac >/dev/null && command -v java >/dev/null || need+=(default-jdk-headless)
command -v node >/dev/null && command -v npm >/dev/null || need+=(nodejs npm)
apt_install "${need[@]}"
scripts/dist/ensure.sh "$dist"
exec python3 scripts/doctest.py "$dist" "${@:2}"
