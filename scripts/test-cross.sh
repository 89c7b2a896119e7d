#!/usr/bin/env bash
# Cross-platform determinism: the core's tests and every conformance vector file, run on a
# big-endian target (s390x), a 32-bit target (i686) and 64-bit Arm (aarch64, as Graviton
# servers run) under qemu-user, built with Debian's cross compilers. The same key and topology must give the same node there as on the host.
# Then the release artifacts of every other platform (make dist: Linux arm64 and musl, Windows)
# on their platforms, under qemu-user and wine: scripts/dist/run-platforms.sh.
#
#   scripts/test-cross.sh              every target, then the release artifacts
#   scripts/test-cross.sh s390x        one target (short name or full triple)
#   scripts/test-cross.sh dist         only the release artifacts (dist/, built when stale)
#
# Installs (idempotently, as root on Debian 12) qemu-user, the cross gcc and libc of each
# target, and the rustup targets for the toolchain pinned in rust-toolchain.toml. Linkers and
# runners are set through CARGO_TARGET_<TRIPLE>_{LINKER,RUNNER} (no binfmt registration, no
# edit to .cargo/config.toml); an already-set variable wins. Full logs go to target/cross/.
# Exits non-zero if any install, build or test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
start=$SECONDS

# triple | Debian packages | linker | qemu binary | sysroot for qemu -L
TARGETS=(
  "s390x-unknown-linux-gnu|gcc-s390x-linux-gnu libc6-dev-s390x-cross|s390x-linux-gnu-gcc|qemu-s390x|/usr/s390x-linux-gnu"
  "i686-unknown-linux-gnu|gcc-i686-linux-gnu libc6-dev-i386-cross|i686-linux-gnu-gcc|qemu-i386|/usr/i686-linux-gnu"
  "aarch64-unknown-linux-gnu|gcc-aarch64-linux-gnu libc6-dev-arm64-cross|aarch64-linux-gnu-gcc|qemu-aarch64|/usr/aarch64-linux-gnu"
)

# Which targets: all, or those named on the command line (s390x, i686 or the full triple);
# `dist` asks for the release artifacts, which run after every target when none is named.
selected=()
artifacts=0
[ $# -eq 0 ] && artifacts=1
for want in "$@"; do
  if [ "$want" = dist ]; then artifacts=1; fi
done
for entry in "${TARGETS[@]}"; do
  triple=${entry%%|*}
  if [ $# -eq 0 ]; then
    selected+=("$entry")
  else
    for want in "$@"; do
      if [ "$want" = "$triple" ] || [ "$want" = "${triple%%-*}" ]; then selected+=("$entry"); fi
    done
  fi
done
if [ ${#selected[@]} -eq 0 ] && [ "$artifacts" = 0 ]; then
  echo "test-cross: no known target in: $* (known: s390x, i686, aarch64, dist)" >&2
  exit 2
fi

# 1. Debian packages: only what is missing; `apt-get update` only when the install fails.
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
wanted=(qemu-user)
for entry in "${selected[@]}"; do
  IFS='|' read -r _ pkgs _ _ _ <<<"$entry"
  read -ra more <<<"$pkgs"
  wanted+=("${more[@]}")
done
apt_install "${wanted[@]}"

# 2. The rustup targets, added to the pinned toolchain (rust-toolchain.toml is not modified).
command -v rustup >/dev/null || { echo "test-cross: rustup is required" >&2; exit 1; }
toolchain=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
[ -n "$toolchain" ] || { echo "test-cross: no channel in rust-toolchain.toml" >&2; exit 1; }
installed_targets=$(rustup target list --installed --toolchain "$toolchain")
for entry in "${selected[@]}"; do
  triple=${entry%%|*}
  if ! grep -qx "$triple" <<<"$installed_targets"; then
    echo "test-cross: rustup target add --toolchain $toolchain $triple"
    rustup target add --toolchain "$toolchain" "$triple"
  fi
done

# 3. Linkers and runners, per target, through the environment (already-set values win).
for entry in "${selected[@]}"; do
  IFS='|' read -r triple _ linker qemu sysroot <<<"$entry"
  var=CARGO_TARGET_$(tr 'a-z-' 'A-Z_' <<<"$triple")
  for tool in "$linker" "$qemu"; do
    command -v "$tool" >/dev/null || { echo "test-cross: $tool is not installed" >&2; exit 1; }
  done
  [ -d "$sysroot/lib" ] || { echo "test-cross: no $sysroot/lib (the cross libc)" >&2; exit 1; }
  linker_var=${var}_LINKER runner_var=${var}_RUNNER
  export "$linker_var=${!linker_var:-$linker}"
  export "$runner_var=${!runner_var:-$qemu -L $sysroot}"
done

# 4. The tests, per target. Each command's full output goes to target/cross/<triple>-<name>.log;
# its summary lines are printed. A failure does not stop the run: every test runs, then the
# script fails at the end.
logs=target/cross
mkdir -p "$logs"
failures=()
results=()

# run_test <triple> <name> <cargo test args...>: prints the summary lines; returns cargo's status.
run_test() {
  local triple=$1 name=$2 log
  shift 2
  log="$logs/$triple-$name.log"
  echo "test-cross: [$triple] cargo test --locked --target $triple $*"
  local t0=$SECONDS rc=0
  cargo test --locked --target "$triple" "$@" >"$log" 2>&1 || rc=$?
  grep -E '^[0-9]+ files .*passed, [0-9]+ failed|^test result: ' "$log" | sed 's/^/    /' || true
  if [ "$rc" -ne 0 ]; then
    echo "test-cross: [$triple] $name FAILED (exit $rc, $((SECONDS - t0))s); the end of $log:" >&2
    tail -n 60 "$log" | sed 's/^/    | /' >&2
    failures+=("$triple $name")
  else
    echo "    ($((SECONDS - t0))s)"
  fi
  return "$rc"
}

# passed_count <log>: the sum of "N passed" over its libtest result lines.
passed_count() {
  grep -oE '^test result: .* ([0-9]+) passed' "$1" | grep -oE '[0-9]+ passed' | awk '{ s += $1 } END { print s + 0 }'
}

for entry in "${selected[@]}"; do
  IFS='|' read -r triple _ _ _ _ <<<"$entry"
  short=${triple%%-*}
  cfg=$(rustc --print cfg --target "$triple")
  endian=$(sed -n 's/^target_endian="\(.*\)"/\1/p' <<<"$cfg")
  width=$(sed -n 's/^target_pointer_width="\(.*\)"/\1/p' <<<"$cfg")
  t0=$SECONDS

  conf="fail"
  if run_test "$triple" conformance -p keyroute-bindings --test conformance -- --nocapture; then conf="ok"; fi
  line=$(grep -E '^[0-9]+ files .*passed, [0-9]+ failed' "$logs/$triple-conformance.log" | tail -n 1 || true)
  files=$(grep -oE '^[0-9]+ files' <<<"$line" | grep -oE '[0-9]+' || echo "?")
  cases=$(grep -oE '[0-9]+ passed, [0-9]+ failed' <<<"$line" || echo "did not finish")

  core=""
  for t in "lib:--lib" "determinism:--test determinism" "reference:--test reference"; do
    name=${t%%:*}
    read -ra args <<<"${t#*:}"
    if run_test "$triple" "core-$name" -p keyroute "${args[@]}"; then
      core+="${core:+, }$name $(passed_count "$logs/$triple-core-$name.log") passed"
    else
      core+="${core:+, }$name FAILED"
    fi
  done

  results+=("$short: $endian-endian, $width-bit: conformance $conf, $files files, cases $cases; core $core ($((SECONDS - t0))s)")
done

# 5. The release artifacts of the other platforms, each on its platform.
if [ "$artifacts" = 1 ]; then
  t0=$SECONDS
  scripts/dist/ensure.sh dist
  if scripts/dist/run-platforms.sh dist 2>&1 | tee "$logs/dist.log"; then
    results+=("dist: $(grep -E '^platforms: ' "$logs/dist.log" | tail -n 1) ($((SECONDS - t0))s)")
  else
    results+=("dist: FAILED ($((SECONDS - t0))s; $logs/dist.log)")
    failures+=("dist")
  fi
fi

echo
echo "test-cross: summary ($((SECONDS - start))s)"
for r in "${results[@]}"; do echo "  $r"; done
if [ ${#failures[@]} -gt 0 ]; then
  echo "test-cross: FAILED: ${failures[*]}" >&2
  exit 1
fi
echo "test-cross: ok"
