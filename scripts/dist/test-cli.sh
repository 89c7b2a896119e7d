#!/usr/bin/env bash
# `make test-dist` for the command: unpacks DIST/keyroute-cli-<version>-x86_64-linux-gnu.tar.gz
# in a clean temporary folder and uses it with no Rust toolchain on PATH: the binary routes
# conformance vector files (peer vectors captured from libmemcached and Redis Cluster, and a
# native ring with replicas) to the recorded nodes and slots; the bash completion loads and
# completes a subcommand, an option and an option's value; every manual page renders with groff
# without a warning.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
dist=$(cd "${1:?usage: scripts/dist/test-cli.sh DISTDIR}" && pwd)
version=$(scripts/dist/version.sh)
name=keyroute-cli-$version-x86_64-linux-gnu
tarball=$dist/$name.tar.gz
[[ -f $tarball ]] || { echo "test-cli: $tarball is missing (make dist)" >&2; exit 1; }

# shellcheck source=scripts/lib.sh
source scripts/lib.sh
command -v groff >/dev/null || apt_install groff-base

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
PATH=$(scripts/dist/no-rust-path.sh)
export PATH
if command -v cargo >/dev/null || command -v rustc >/dev/null; then
  echo "test-cli: a Rust toolchain is still on PATH" >&2
  exit 1
fi
cd "$work"
tar -xzf "$tarball"
root=$work/$name
fail() { echo "test-cli: $*" >&2; exit 1; }

# What the tarball holds.
for f in keyroute README.md LICENSE-MIT LICENSE-APACHE completions/keyroute.bash completions/_keyroute \
  completions/keyroute.fish man/man1/keyroute.1 man/man1/keyroute-route.1 topologies/3-nodes.json \
  topologies/redis.json topologies/pylibmc.json; do
  [[ -s $root/$f ]] || fail "the tarball lacks $f"
done
[[ -x $root/keyroute ]] || fail "keyroute is not executable"
bin=$root/keyroute
[[ $("$bin" --version) == "keyroute $version" ]] || fail "keyroute --version: $("$bin" --version)"

# Conformance vectors: each case's key in hex on stdin, the output against the recorded node
# (and slot, and replicas).
route_file() {
  local file=$1 replicas=${2:-}
  python3 - "$repo/conformance/vectors/v1/$file" "$work/$file" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
out = sys.argv[2]
json.dump(doc["spec"], open(out + ".spec.json", "w"))
with open(out + ".keys", "w") as keys, open(out + ".want", "w") as want:
    for case in doc["cases"]:
        if "key_hex" in case:
            key = bytes.fromhex(case["key_hex"])
        elif "key" in case:
            key = case["key"].encode()
        else:
            continue
        nodes = case.get("replicas") or [case["node"]]
        slot = [str(case["slot"])] if "slot" in case else []
        keys.write(key.hex() + "\n")
        want.write("\t".join([key.hex()] + slot + nodes) + "\n")
PY
  local args=(route -t "$work/$file.spec.json" --input hex)
  if [[ -n $replicas ]]; then args+=(--replicas "$replicas"); fi
  "$bin" "${args[@]}" <"$work/$file.keys" >"$work/$file.got"
  if ! cmp -s "$work/$file.got" "$work/$file.want"; then
    diff "$work/$file.want" "$work/$file.got" >"$work/$file.diff" || true
    head -5 "$work/$file.diff" >&2
    fail "$file: routes differ from the vector file"
  fi
  echo "test-cli: $file: $(wc -l <"$work/$file.want") keys routed as recorded"
}
route_file libmemcached-ketama-3.json
route_file redis-cluster-3.json
replicas=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cases"][0]["replicas"]))' \
  "$repo/conformance/vectors/v1/native-ring-4.json")
route_file native-ring-4.json "$replicas"
# A data error: one line with its code, status 3.
status=0
printf 'zz\n' | "$bin" route -t "$work/native-ring-4.json.spec.json" --input hex 2>"$work/err" >/dev/null || status=$?
[[ $status -eq 3 ]] && grep -q '^keyroute: error invalid_key (code 16)' "$work/err" || fail "bad hex: status $status, $(cat "$work/err")"

# The bash completion, loaded as a user's shell would, driven as readline drives it.
complete_words() {
  bash --norc --noprofile -c '
    source "$1"; shift
    complete -p keyroute >/dev/null || exit 9
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _keyroute keyroute "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"' complete "$root/completions/keyroute.bash" "$@"
}
loaded=$(bash --norc --noprofile -c 'source "$1"; complete -p keyroute' complete "$root/completions/keyroute.bash")
[[ $loaded == *"-F _keyroute"*"keyroute" ]] || fail "complete -p keyroute: $loaded"
[[ $(complete_words keyroute ro) == route ]] || fail "keyroute ro<TAB>: $(complete_words keyroute ro)"
[[ $(complete_words keyroute route --inp) == --input ]] || fail "keyroute route --inp<TAB>: $(complete_words keyroute route --inp)"
[[ $(complete_words keyroute route --input nd) == ndjson ]] || fail "--input nd<TAB>: $(complete_words keyroute route --input nd)"
has_line "$(complete_words keyroute "")" completions || fail "keyroute <TAB> does not offer completions"
echo "test-cli: bash completion: complete -p, a subcommand, an option and its value"

# Every manual page renders without a warning (groff -ww), with its sections.
for page in "$root"/man/man1/*.1; do
  groff -k -man -Tutf8 -ww -z "$page" 2>"$work/groff.err" || fail "groff failed on $(basename "$page")"
  [[ ! -s $work/groff.err ]] || fail "$(basename "$page"): $(cat "$work/groff.err")"
done
text=$(groff -k -man -Tutf8 "$root/man/man1/keyroute-route.1" 2>/dev/null | sed 's/.\x08//g')
for section in NAME SYNOPSIS DESCRIPTION OPTIONS; do
  grep -q "^$section" <<<"$text" || fail "keyroute-route.1 has no $section section"
done
grep -q -- '--input' <<<"$text" || fail "keyroute-route.1 does not document --input"
echo "test-cli: $(find "$root/man/man1" -name '*.1' | wc -l) manual pages render cleanly"
echo "test-cli: ok ($name)"
