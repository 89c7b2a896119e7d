#!/usr/bin/env bash
# Prints a PATH with no Rust toolchain on it (no cargo, rustc or rustup): the artifact tests run
# under it, so an artifact that quietly builds from source fails instead of passing.
set -euo pipefail
keep=()
IFS=: read -ra parts <<<"$PATH"
for dir in "${parts[@]}"; do
  [[ -n $dir ]] || continue
  if [[ -x $dir/cargo || -x $dir/rustc || -x $dir/rustup ]]; then continue; fi
  keep+=("$dir")
done
(IFS=:; echo "${keep[*]}")
