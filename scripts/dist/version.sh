#!/usr/bin/env bash
# The one version of every artifact: [workspace.package] version in the root Cargo.toml.
set -euo pipefail
cd "$(dirname "$0")/../.."
sed -n '/^\[workspace.package\]/,/^\[/ s/^version = "\(.*\)"$/\1/p' Cargo.toml
