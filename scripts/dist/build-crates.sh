#!/usr/bin/env bash
# `make dist` (scripts/dist/build.sh) for the Rust crates: `cargo package` of the four published
# crates (keyroute, keyroute-bindings, keyroute-fleet, keyroute-cli), each verified by cargo
# (unpacked and built on its own, against its dependencies' packaged versions), copied into OUT as
# <name>-<version>.crate. Fails when a dependency on a sibling crate names another version than
# the workspace's.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: scripts/dist/build-crates.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(scripts/dist/version.sh)
crates=(keyroute keyroute-bindings keyroute-fleet keyroute-cli)

# Path dependencies must carry the version (a published crate needs one) and it must be the workspace's.
bad=$(grep -hE '^keyroute(-bindings|-fleet)? = \{.*path = ' core/Cargo.toml bindings/Cargo.toml fleet/Cargo.toml cli/Cargo.toml \
  | grep -v "version = \"$version\"" || true)
if [[ -n $bad ]]; then
  echo "build-crates: a dependency on a sibling crate does not name version $version:" >&2
  echo "$bad" >&2
  exit 1
fi

# Offline when every dependency is already in cargo's cache (after any build of the workspace);
# online only when cargo says the offline run lacked something to download.
# --allow-dirty: `make test` packages a working tree with uncommitted edits too (cargo records
# that in each crate's .cargo_vcs_info.json); a release is cut from a clean checkout.
# Cargo verifies each crate by building it against its siblings' new tarballs, which it treats
# as registry crates: immutable, so a build of the same version left in the target folder by an
# earlier run is reused as it is, and a second `make dist` after a change to the core would
# verify the bindings against the old core. Verify in a target folder of its own, emptied first.
verify_dir=target/package-verify
rm -rf "$verify_dir"
# `cargo package` verifies each crate against its siblings' fresh tarballs through a local
# registry under the target folder, and extracts them into cargo's home, in a folder named by
# that registry's path ("-<hash>"), which it reuses when the extraction of the same version is
# already there: a second `make dist` after a core change verified the bindings against the
# old core's sources. Those folders hold only our own just-packaged crates; remove ours.
registry_src="${CARGO_HOME:-$HOME/.cargo}/registry/src"
for c in "${crates[@]}"; do
  rm -rf "$registry_src"/-*/"$c-$version"
done

args=(package --locked --allow-dirty --target-dir "$verify_dir")
for c in "${crates[@]}"; do args+=(-p "$c"); done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! cargo "${args[@]}" --offline 2>&1 | tee "$log"; then
  grep -qiE 'offline|not downloaded|no matching package' "$log" || exit 1
  echo "build-crates: some dependency is not in cargo's cache; packaging online"
  cargo "${args[@]}"
fi
for c in "${crates[@]}"; do
  cp "$verify_dir/package/$c-$version.crate" "$out/"
  echo "build-crates: $out/$c-$version.crate ($(du -k "$out/$c-$version.crate" | cut -f1) KiB)"
done
