#!/usr/bin/env bash
# `make test-fresh`: what a brand-new machine sees. Clones HEAD into a temporary folder and runs
# `.ci/run` there (CI=true) with nothing this machine has accumulated: an empty CARGO_HOME (only
# rustup's proxies, so the pinned toolchains in RUSTUP_HOME stay), empty npm, pip and XDG
# caches, a fresh Maven repository, and no build/, target/ or dist/ (a clone has none).
# Debian packages installed earlier stay: apt cannot be emptied without breaking the machine.
#
# Prints a table of each `make test` phase's wall time and share, and exits with .ci/run's
# status. KEEP=1 keeps the folder (its path is printed); by default it is removed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

command -v rustup >/dev/null || { echo "test-fresh: rustup is required" >&2; exit 1; }
if [[ -n $(git status --porcelain --untracked-files=no) ]]; then
  echo "test-fresh: note: uncommitted changes are not tested (the clone is of HEAD $(git rev-parse --short HEAD))" >&2
fi

fresh=$(mktemp -d /tmp/keyroute-fresh.XXXXXX)
cleanup() {
  if [[ ${KEEP:-0} == 1 ]]; then echo "test-fresh: kept $fresh"; else rm -rf "$fresh"; fi
}
trap cleanup EXIT

git clone --quiet --no-local "$ROOT" "$fresh/keyroute"
home=$fresh/cargo-home
mkdir -p "$home/bin" "$fresh/cache" "$fresh/npm-cache" "$fresh/m2"
# rustup's proxies (cargo, rustc, rustfmt, …) are the rustup binary under other names; a new
# machine has exactly these in ~/.cargo/bin and nothing that `cargo install` put there.
rustup_bin=$(command -v rustup)
for proxy in cargo cargo-clippy cargo-fmt cargo-miri clippy-driver rustc rustdoc rustfmt rust-gdb rust-lldb rustup; do
  ln -s "$rustup_bin" "$home/bin/$proxy"
done

log=$fresh/ci.log
echo "test-fresh: .ci/run in $fresh/keyroute (log: $log)"
start=$SECONDS
set +e
(
  cd "$fresh/keyroute"
  env CI=true CARGO_HOME="$home" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" \
    PATH="$home/bin:$(tr ':' '\n' <<<"$PATH" | grep -vxF "$HOME/.cargo/bin" | paste -sd:)" \
    XDG_CACHE_HOME="$fresh/cache" PIP_NO_CACHE_DIR=1 npm_config_cache="$fresh/npm-cache" \
    MAVEN_OPTS="-Dmaven.repo.local=$fresh/m2" MAKEFLAGS=--trace \
    bash .ci/run </dev/null 2>&1
) | while IFS= read -r line; do printf '%6d %s\n' "$((SECONDS - start))" "$line"; done >"$log"
status=${PIPESTATUS[0]}
set -e
total=$((SECONDS - start))

# Phases: the prerequisites of `make test`, in order, timed from make's --trace lines.
python3 - "$log" "$total" <<'PY'
import re, sys
log, total = sys.argv[1], int(sys.argv[2])
makefile = open("Makefile").read()
phases = re.search(r"^test: (.*?) ##", makefile, re.M).group(1).split()
starts = []
for line in open(log, errors="replace"):
    stamp, _, rest = line.lstrip().partition(" ")
    m = re.match(r"\s*Makefile:\d+: (?:update )?target '([\w-]+)'", rest)
    if m and m.group(1) in phases and m.group(1) not in [p for p, _ in starts]:
        starts.append((m.group(1), int(stamp)))
print(f"test-fresh: {total} s in all ({total / 60:.1f} min)")
print(f"  {'phase':<18} {'seconds':>8} {'share':>7}")
for i, (phase, t) in enumerate(starts):
    end = starts[i + 1][1] if i + 1 < len(starts) else total
    print(f"  {phase:<18} {end - t:>8} {100 * (end - t) / max(total, 1):>6.1f}%")
PY
if ((status != 0)); then
  echo "test-fresh: .ci/run FAILED (status $status); the last lines:" >&2
  tail -n 30 "$log" >&2
  KEEP=1
fi
exit "$status"
